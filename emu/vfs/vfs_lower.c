/*
 * The read-only host tree under the vfs. A lower node remembers where it
 * is on the host as (host parent node, name); a host object is opened one
 * component at a time beneath its parent's descriptor, never by path:
 * openat2 with RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and
 * RESOLVE_NO_MAGICLINKS, plus O_NOFOLLOW. Symlinks are read with
 * readlinkat on an O_PATH descriptor and followed in the vfs, never by the
 * host. At most VFS_LRU_FDS descriptors are held (the root's aside); the
 * least recently used is closed, and reopened later from its parent, which
 * is checked to still be the same inode.
 */
#define _GNU_SOURCE
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define LIST_BUF        32768
#define DIRENT64_HEADER 19

/* ---- host descriptors ---- */

static int host_open(struct vfs *v, int dirfd, const char *name, int flags)
{
    struct open_how how = {
        .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    long fd = -1;
    for (int tries = 0; tries < 4; tries++) {
        v->host.opens++;
        fd = syscall(SYS_openat2, dirfd, name, &how, sizeof how);
        if (fd >= 0 || (errno != EAGAIN && errno != EINTR))
            break;
    }
    return fd < 0 ? -errno : (int)fd;
}

static bool same_object(const struct vfs_node *n, const struct stat *st)
{
    return st->st_dev == n->host_dev && st->st_ino == n->host_ino &&
           S_TYPE(st->st_mode) == S_TYPE(n->mode);
}

/* Open n for reading beneath its host parent's descriptor pfd. Only a
 * directory or a regular file, only the inode first seen there. */
static int open_object(struct vfs *v, int pfd, const struct vfs_node *n)
{
    struct stat st;
    int fd;
    if (IS_DIR(n)) {
        fd = host_open(v, pfd, n->lname, O_RDONLY | O_DIRECTORY);
    } else {
        int path_fd = host_open(v, pfd, n->lname, O_PATH);
        if (path_fd < 0)
            return path_fd;
        bool ok = !fstat(path_fd, &st) && same_object(n, &st);
        close(path_fd);
        if (!ok)
            return -ESTALE;
        fd = host_open(v, pfd, n->lname, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    }
    if (fd < 0)
        return fd;
    if (fstat(fd, &st) || !same_object(n, &st)) {
        close(fd);
        return -ESTALE;   /* the host tree changed under us */
    }
    return fd;
}

static void lru_close(struct vfs *v, int slot)
{
    struct vfs_lru_slot *s = &v->lru[slot];
    close(s->fd);
    s->node->lru = -1;
    *s = (struct vfs_lru_slot){ .fd = -1 };
    v->host.fds_open--;
}

static void lru_put(struct vfs *v, struct vfs_node *n, int fd)
{
    int slot = 0;
    for (int i = 0; i < VFS_LRU_FDS; i++) {
        if (!v->lru[i].node) {
            slot = i;
            break;
        }
        if (v->lru[i].stamp < v->lru[slot].stamp)
            slot = i;
    }
    if (v->lru[slot].node)
        lru_close(v, slot);
    v->lru[slot] = (struct vfs_lru_slot){ n, fd, ++v->lru_clock };
    n->lru = slot;
    if (++v->host.fds_open > v->host.fds_max)
        v->host.fds_max = v->host.fds_open;
}

void lower_forget(struct vfs *v, struct vfs_node *n)
{
    if (n->lru >= 0)
        lru_close(v, n->lru);
}

static bool has_fd(const struct vfs *v, const struct vfs_node *n)
{
    return n == v->root || n->lru >= 0;
}

static int fd_of(struct vfs *v, struct vfs_node *n)
{
    if (n == v->root)
        return v->root_fd;
    v->lru[n->lru].stamp = ++v->lru_clock;
    return v->lru[n->lru].fd;
}

/* A descriptor for a lower directory or a lower regular file, opening it
 * and any host ancestors whose descriptors were closed, top down. The
 * chain is as long as the host tree is deep: a list, not recursion. */
static int lower_fd(struct vfs *v, struct vfs_node *n)
{
    size_t depth = 0;
    for (struct vfs_node *x = n; !has_fd(v, x); x = x->lparent)
        depth++;
    if (!depth)
        return fd_of(v, n);
    struct vfs_node **chain = malloc(depth * sizeof *chain);
    if (!chain)
        return -ENOMEM;
    size_t i = 0;
    for (struct vfs_node *x = n; !has_fd(v, x); x = x->lparent)
        chain[i++] = x;
    int err = 0;
    while (i-- > 0 && !err) {
        int fd = open_object(v, fd_of(v, chain[i]->lparent), chain[i]);
        if (fd < 0)
            err = fd;
        else
            lru_put(v, chain[i], fd);
    }
    free(chain);
    return err ? err : fd_of(v, n);
}

/* ---- nodes from host objects ---- */

static uint32_t host_dev(struct vfs *v, dev_t dev)
{
    uint32_t i = 0;
    while (i < v->nhost_devs && v->host_devs[i] != (uint64_t)dev)
        i++;
    if (i == v->nhost_devs) {
        if (i == VFS_HOST_DEVS)
            return VFS_DEV_LOWER(VFS_HOST_DEVS - 1);   /* shared past the table */
        v->host_devs[v->nhost_devs++] = dev;
    }
    return VFS_DEV_LOWER(i);
}

static struct vfs_time host_time(struct timespec ts)
{
    return (struct vfs_time){ ts.tv_sec, (uint32_t)ts.tv_nsec };
}

static void take_attrs(struct vfs *v, struct vfs_node *n, const struct stat *st)
{
    n->ino = st->st_ino;
    n->dev = host_dev(v, st->st_dev);
    n->mode = st->st_mode;
    n->uid = st->st_uid;
    n->gid = st->st_gid;
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        n->rdev = VFS_MKDEV(major(st->st_rdev), minor(st->st_rdev));
    n->size = S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) ? (uint64_t)st->st_size : 0;
    n->host_blocks = (uint64_t)st->st_blocks;
    n->host_nlink = st->st_nlink ? (uint32_t)st->st_nlink : 1;
    n->atime = host_time(st->st_atim);
    n->mtime = host_time(st->st_mtim);
    n->ctime = host_time(st->st_ctim);
    n->host_dev = st->st_dev;
    n->host_ino = st->st_ino;
}

static int read_symlink(struct vfs_node *n, int path_fd)
{
    char buf[VFS_PATH_MAX];
    ssize_t len = readlinkat(path_fd, "", buf, sizeof buf);
    if (len < 0)
        return -errno;
    if ((size_t)len >= sizeof buf)
        return -ENAMETOOLONG;
    n->u.lnk.target = malloc(len ? (size_t)len : 1);
    if (!n->u.lnk.target)
        return -ENOMEM;
    memcpy(n->u.lnk.target, buf, (size_t)len);
    n->u.lnk.len = (uint32_t)len;
    return 0;
}

/* What a lower entry of d names, made into a node on first lookup. */
int lower_node(struct vfs *v, struct vfs_node *d, struct vfs_dent *e, struct vfs_node **out)
{
    struct stat st;
    int dfd = lower_fd(v, d);
    if (dfd < 0)
        return dfd;
    int pfd = host_open(v, dfd, e->name, O_PATH);
    if (pfd < 0)
        return pfd;
    struct vfs_node *n = NULL;
    int err = fstat(pfd, &st) ? -errno : 0;
    if (!err && !(n = node_alloc(v, st.st_mode)))
        err = -ENOMEM;
    if (!err) {
        take_attrs(v, n, &st);
        if (S_ISLNK(st.st_mode))
            err = read_symlink(n, pfd);
        else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
            n->hidden_host = true;
        else if (!(n->lname = strdup(e->name)))
            err = -ENOMEM;
    }
    close(pfd);
    if (err) {
        node_settle(v, n);
        return err;
    }
    if (n->lname) {
        n->lparent = d;
        node_get(d);
        n->lower_data = S_ISREG(st.st_mode);
        n->lower_dir = S_ISDIR(st.st_mode);
        if (n->lower_dir)
            n->u.dir.unlisted = true;
    }
    dir_attach(d, e, n);
    *out = n;
    return 0;
}

ssize_t lower_pread(struct vfs *v, struct vfs_node *n, void *buf, size_t len, uint64_t pos)
{
    int fd = lower_fd(v, n);
    size_t done = 0;
    if (fd < 0)
        return fd;
    while (done < len) {
        v->host.preads++;
        ssize_t k = pread(fd, (char *)buf + done, len - done, (off_t)(pos + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return done ? (ssize_t)done : -errno;
        if (k == 0)
            break;   /* the host file shrank */
        done += (size_t)k;
    }
    return (ssize_t)done;
}

/* ---- listing ---- */

static int by_name(const void *a, const void *b)
{
    const struct vfs_dent *x = *(struct vfs_dent *const *)a, *y = *(struct vfs_dent *const *)b;
    return dent_cmp(x->name, x->len, y->name, y->len);
}

/* The kernel's /dev hides the lower tree's; its /tmp too, unless the
 * lower tree has a directory of that name (the writable layer covers it
 * as it covers the rest). */
static bool hidden_at_root(const struct vfs *v, const char *name, size_t len)
{
    if (len != 3)
        return false;
    return !memcmp(name, "dev", 3) || (!memcmp(name, "tmp", 3) && !v->lower_tmp);
}

/* For file systems whose listings leave d_type unknown. */
static uint8_t type_by_stat(struct vfs *v, int dfd, const char *name)
{
    struct stat st;
    int fd = host_open(v, dfd, name, O_PATH);
    uint8_t type = VFS_DT_UNKNOWN;
    if (fd >= 0 && !fstat(fd, &st))
        type = mode_dtype(st.st_mode);
    if (fd >= 0)
        close(fd);
    return type;
}

struct listing {
    struct vfs_dent **e;
    uint32_t n, cap;
};

static int listing_add(struct listing *l, struct vfs_dent *e)
{
    if (!e)
        return -ENOMEM;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        struct vfs_dent **a = realloc(l->e, (size_t)cap * sizeof *a);
        if (!a) {
            free(e);
            return -ENOMEM;
        }
        l->e = a;
        l->cap = cap;
    }
    l->e[l->n++] = e;
    return 0;
}

/* One getdents64 buffer's records into l. */
static int take_records(struct vfs *v, struct vfs_node *d, int dfd, const uint8_t *buf,
                        size_t len, struct listing *l)
{
    for (size_t at = 0; at + DIRENT64_HEADER < len;) {
        uint64_t ino;
        uint16_t reclen;
        memcpy(&ino, buf + at, 8);
        memcpy(&reclen, buf + at + 16, 2);
        if (reclen <= DIRENT64_HEADER || reclen > len - at)
            return -EIO;
        const char *name = (const char *)buf + at + DIRENT64_HEADER;
        size_t nlen = strnlen(name, reclen - DIRENT64_HEADER);
        uint8_t type = buf[at + 18];
        at += reclen;
        if ((nlen == 1 && name[0] == '.') || (nlen == 2 && !memcmp(name, "..", 2)) ||
            nlen > VFS_NAME_MAX || (d == v->root && hidden_at_root(v, name, nlen)))
            continue;
        if (l->n >= VFS_DIR_MAX || v->lower_entries + l->n >= VFS_LOWER_TOTAL)
            return -ENOMEM;   /* see vfs.h: too big to hold */
        if (type == VFS_DT_UNKNOWN)
            type = type_by_stat(v, dfd, name);
        struct vfs_dent *e = dent_new(name, nlen, type);
        if (e) {
            e->ino = ino;
            v->host.listed++;
            v->host.listed_bytes += sizeof *e + nlen + 1;
        }
        int err = listing_add(l, e);
        if (err)
            return err;
    }
    return 0;
}

static int add_synthesized(struct vfs *v, struct listing *l)
{
    struct vfs_node *nodes[2] = { v->dev, v->tmp };
    const char *names[2] = { "dev", "tmp" };
    for (int i = 0; i < (v->lower_tmp ? 1 : 2); i++) {
        struct vfs_dent *e = dent_new(names[i], 3, VFS_DT_DIR);
        int err = listing_add(l, e);
        if (err)
            return err;
        e->node = nodes[i];
    }
    return 0;
}

/* Read a lower directory from the host, once: its entries, sorted by name,
 * become the directory's contents. */
int lower_list(struct vfs *v, struct vfs_node *d)
{
    struct listing l = { 0 };
    int dfd = lower_fd(v, d), err = 0;
    uint8_t *buf = dfd < 0 ? NULL : malloc(LIST_BUF);
    if (dfd < 0)
        return dfd;
    if (!buf)
        return -ENOMEM;
    if (lseek(dfd, 0, SEEK_SET) < 0)
        err = -errno;
    while (!err) {
        v->host.getdents++;
        long got = syscall(SYS_getdents64, dfd, buf, LIST_BUF);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            err = got < 0 ? -errno : 0;
            break;
        }
        err = take_records(v, d, dfd, buf, (size_t)got, &l);
    }
    free(buf);
    if (!err && d == v->root)
        err = add_synthesized(v, &l);
    if (!err) {
        if (l.n)
            qsort(l.e, l.n, sizeof *l.e, by_name);
        err = dir_fill(v, d, l.e, l.n);
    }
    if (err) {
        for (uint32_t i = 0; i < l.n; i++)
            free(l.e[i]);
    } else {
        v->lower_entries += l.n;
    }
    free(l.e);
    return err;
}

/* ---- the lower root ---- */

int lower_init(struct vfs *v, const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--root %s: %s", path, strerror(errno));
        return -1;
    }
    v->root_fd = fd;
    int probe = host_open(v, fd, ".", O_PATH);
    if (probe < 0) {
        snprintf(err, errlen, "--root %s: %s", path, probe == -ENOSYS
                 ? "the host kernel has no openat2 (Linux 5.6 or later is needed)"
                 : strerror(-probe));
        return -1;
    }
    close(probe);
    struct vfs_node *root = fstat(fd, &st) ? NULL : node_alloc(v, st.st_mode);
    if (!root) {
        snprintf(err, errlen, "--root %s: cannot read it", path);
        return -1;
    }
    take_attrs(v, root, &st);
    root->lower_dir = true;
    root->u.dir.unlisted = true;
    v->root = root;
    v->lower_tmp = !fstatat(fd, "tmp", &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
    int rc = lower_list(v, root);
    if (rc) {
        snprintf(err, errlen, "--root %s: %s", path, strerror(-rc));
        return -1;
    }
    return 0;
}

void lower_free(struct vfs *v)
{
    for (int i = 0; i < VFS_LRU_FDS; i++)
        if (v->lru[i].node)
            lru_close(v, i);
    if (v->root_fd >= 0)
        close(v->root_fd);
    v->root_fd = -1;
}
