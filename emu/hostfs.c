/*
 * The read-only file tree of "emu run --root DIR", served to the guest
 * kernel (guest/kernel/fs.h), which keeps the descriptors and offsets.
 *
 * Containment: every path is resolved by the host kernel with openat2 on
 * a descriptor of DIR and RESOLVE_IN_ROOT, so "..", absolute paths and
 * absolute symlinks all stay inside DIR, as if DIR were "/";
 * RESOLVE_NO_MAGICLINKS refuses /proc-style links. A path is first opened
 * with O_PATH, which opens nothing; only a regular file or a directory is
 * then opened for reading, and only if it is still the same file. Nothing
 * is opened for writing. Paths and data move only through kernel memory.
 */
#define _GNU_SOURCE
#include "hostfs.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HOSTFS_IO_MAX      (1u << 20)  /* bytes per request */
#define HOSTFS_DIRENTS_MAX 100000      /* entries in one directory */
#define DIRENT64_HEADER    19          /* d_ino, d_off, d_reclen, d_type */

struct hostfs_dirent {
    uint64_t ino;
    uint8_t type;
    char *name;
};

/* ---- memory: requests and buffers must lie in kernel memory ---- */

static uint8_t *kernel_bytes(const struct guest_memory *mem, uint32_t addr, uint32_t len)
{
    if (addr < KERNEL_BASE || addr - KERNEL_BASE >= KERNEL_RAM_SIZE ||
        len > KERNEL_RAM_SIZE - (addr - KERNEL_BASE))
        return NULL;
    return guest_ptr(mem, addr, len ? len : 1);
}

static struct hostfs_file *file_at(struct hostfs *fs, uint32_t handle)
{
    if (handle >= HC_FS_MAX_FILES || fs->files[handle].fd < 0)
        return NULL;
    return &fs->files[handle];
}

/* ---- resolving ---- */

static int open_in_root(const struct hostfs *fs, const char *path, int flags)
{
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    for (int tries = 0; tries < 8; tries++) {
        long fd = syscall(SYS_openat2, fs->root_fd, path, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        if (errno != EAGAIN)   /* EAGAIN: a rename raced the lookup */
            break;
    }
    return errno == EXDEV ? -ENOENT : -errno;
}

/* The request's path, joined to its start directory's unless absolute. */
static int request_path(struct hostfs *fs, const struct guest_memory *mem,
                        const struct hc_fs *r, char *out, size_t cap)
{
    const uint8_t *p = kernel_bytes(mem, r->path, r->path_len);
    if (fs->root_fd < 0)
        return -ENOENT;
    if (!p)
        return -EFAULT;
    if (r->path_len == 0)
        return -ENOENT;
    if (r->path_len >= HC_FS_PATH_MAX)
        return -ENAMETOOLONG;
    if (memchr(p, 0, r->path_len))
        return -EINVAL;
    const char *base = "";
    if (p[0] != '/' && r->handle != HC_FS_ROOT) {
        const struct hostfs_file *dir = file_at(fs, r->handle);
        if (!dir)
            return -EBADF;
        base = dir->path;
    }
    int n = snprintf(out, cap, "%s%s%.*s", base, *base ? "/" : "", (int)r->path_len,
                     (const char *)p);
    if (n < 0 || (size_t)n >= cap || n >= HC_FS_PATH_MAX)
        return -ENAMETOOLONG;
    return 0;
}

/* O_PATH open of the request's path: a descriptor or -errno. */
static int open_path(struct hostfs *fs, const struct guest_memory *mem,
                     const struct hc_fs *r, bool nofollow, char *path, size_t cap)
{
    int err = request_path(fs, mem, r, path, cap);
    if (err)
        return err;
    return open_in_root(fs, path, O_PATH | (nofollow ? O_NOFOLLOW : 0));
}

/* ---- directories ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct hostfs_dirent *)a)->name,
                  ((const struct hostfs_dirent *)b)->name);
}

static void free_dirents(struct hostfs_file *f)
{
    for (size_t i = 0; i < f->nents; i++)
        free(f->ents[i].name);
    free(f->ents);
    f->ents = NULL;
    f->nents = 0;
}

static int add_dirent(struct hostfs_file *f, size_t *cap, const struct dirent *d)
{
    if (f->nents == HOSTFS_DIRENTS_MAX)
        return -ENOMEM;
    if (f->nents == *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        struct hostfs_dirent *n = realloc(f->ents, ncap * sizeof *n);
        if (!n)
            return -ENOMEM;
        f->ents = n;
        *cap = ncap;
    }
    char *name = strdup(d->d_name);
    if (!name)
        return -ENOMEM;
    f->ents[f->nents++] = (struct hostfs_dirent){ d->d_ino, d->d_type, name };
    return 0;
}

/* Read the whole directory once, sorted, so that entry indexes are stable
 * offsets and runs are deterministic. */
static int snapshot_dir(struct hostfs_file *f)
{
    int dfd = dup(f->fd);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    size_t cap = 0;
    int err = 0;
    if (!d) {
        err = -errno;
        if (dfd >= 0)
            close(dfd);
        return err;
    }
    for (struct dirent *e; !err && (e = readdir(d));)
        err = add_dirent(f, &cap, e);
    closedir(d);
    if (err)
        free_dirents(f);
    else if (f->nents)
        qsort(f->ents, f->nents, sizeof *f->ents, by_name);
    return err;
}

/* linux_dirent64 records for entries from *pos on, as many as fit. */
static int32_t fill_dirents(const struct hostfs_file *f, uint8_t *out, uint32_t len,
                            uint64_t *pos)
{
    uint32_t used = 0;
    uint64_t i = *pos;
    for (; i < f->nents; i++) {
        const struct hostfs_dirent *e = &f->ents[i];
        size_t namelen = strlen(e->name);
        uint32_t reclen = (uint32_t)((DIRENT64_HEADER + namelen + 1 + 7) & ~(size_t)7);
        if (reclen > len - used)
            break;
        uint64_t off = i + 1;
        uint16_t rl = (uint16_t)reclen;
        memset(out + used, 0, reclen);
        memcpy(out + used, &e->ino, 8);
        memcpy(out + used + 8, &off, 8);
        memcpy(out + used + 16, &rl, 2);
        out[used + 18] = e->type;
        memcpy(out + used + DIRENT64_HEADER, e->name, namelen);
        used += reclen;
    }
    if (i == *pos && i < f->nents)
        return -EINVAL;   /* the buffer cannot hold one entry */
    *pos = i;
    return (int32_t)used;
}

/* ---- operations ---- */

static void close_file(struct hostfs_file *f)
{
    close(f->fd);
    free(f->path);
    free_dirents(f);
    f->fd = -1;
    f->dir = false;
    f->path = NULL;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Open what the O_PATH descriptor pfd names, if it may be opened at all. */
static int open_checked(struct hostfs *fs, int pfd, const char *path, uint32_t flags)
{
    struct stat ps, st;
    if (fstat(pfd, &ps))
        return -errno;
    if (S_ISLNK(ps.st_mode))
        return -ELOOP;          /* HC_FS_NOFOLLOW on a symlink, as O_NOFOLLOW */
    if (!S_ISREG(ps.st_mode) && !S_ISDIR(ps.st_mode))
        return -EACCES;         /* devices, FIFOs, sockets: never opened */
    if ((flags & HC_FS_DIRECTORY) && !S_ISDIR(ps.st_mode))
        return -ENOTDIR;
    int fd = open_in_root(fs, path, O_RDONLY | O_NOCTTY | O_NONBLOCK |
                                    ((flags & HC_FS_NOFOLLOW) ? O_NOFOLLOW : 0));
    if (fd < 0)
        return fd;
    if (fstat(fd, &st) || !same_file(&ps, &st)) {
        close(fd);
        return -EAGAIN;         /* the tree changed under us */
    }
    return fd;
}

static int32_t op_open(struct hostfs *fs, const struct guest_memory *mem, const struct hc_fs *r)
{
    char path[HC_FS_PATH_MAX + 64];
    uint32_t h = 0;
    if (r->flags & HC_FS_WRITE)
        return -EROFS;
    while (h < HC_FS_MAX_FILES && fs->files[h].fd >= 0)
        h++;
    if (h == HC_FS_MAX_FILES)
        return -EMFILE;
    int pfd = open_path(fs, mem, r, (r->flags & HC_FS_NOFOLLOW) != 0, path, sizeof path);
    if (pfd < 0)
        return pfd;
    int fd = open_checked(fs, pfd, path, r->flags);
    close(pfd);
    if (fd < 0)
        return fd;
    struct hostfs_file *f = &fs->files[h];
    *f = (struct hostfs_file){ .fd = fd, .path = strdup(path) };
    struct stat st;
    int err = !f->path ? -ENOMEM : fstat(fd, &st) ? -errno : 0;
    if (!err && S_ISDIR(st.st_mode)) {
        f->dir = true;
        err = snapshot_dir(f);
    }
    if (err) {
        close_file(f);
        return err;
    }
    return (int32_t)h;
}

static int32_t op_read(struct hostfs *fs, const struct guest_memory *mem, const struct hc_fs *r)
{
    struct hostfs_file *f = file_at(fs, r->handle);
    uint8_t *out = kernel_bytes(mem, r->buf, r->len);
    uint64_t pos = ((uint64_t)r->pos_hi << 32) | r->pos_lo;
    if (!f)
        return -EBADF;
    if (f->dir)
        return -EISDIR;
    if (!out || r->len > HOSTFS_IO_MAX)
        return -EFAULT;
    if (pos > INT64_MAX)
        return -EINVAL;
    uint32_t done = 0;
    while (done < r->len) {
        ssize_t n = pread(f->fd, out + done, r->len - done, (off_t)(pos + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return done ? (int32_t)done : -errno;
        if (n == 0)
            break;
        done += (uint32_t)n;
    }
    return (int32_t)done;
}

static int32_t op_getdents(struct hostfs *fs, const struct guest_memory *mem, struct hc_fs *r)
{
    struct hostfs_file *f = file_at(fs, r->handle);
    uint8_t *out = kernel_bytes(mem, r->buf, r->len);
    uint64_t pos = ((uint64_t)r->pos_hi << 32) | r->pos_lo;
    if (!f)
        return -EBADF;
    if (!f->dir)
        return -ENOTDIR;
    if (!out || r->len > HOSTFS_IO_MAX)
        return -EFAULT;
    int32_t n = fill_dirents(f, out, r->len, &pos);
    r->pos_lo = (uint32_t)pos;
    r->pos_hi = (uint32_t)(pos >> 32);
    return n;
}

static void to_hc_stat(const struct stat *s, struct hc_stat *o)
{
    memset(o, 0, sizeof *o);
    o->dev = s->st_dev;
    o->ino = s->st_ino;
    o->rdev = s->st_rdev;
    o->size = (uint64_t)s->st_size;
    o->blocks = (uint64_t)s->st_blocks;
    o->mode = s->st_mode;
    o->nlink = (uint32_t)s->st_nlink;
    o->uid = s->st_uid;
    o->gid = s->st_gid;
    o->blksize = (uint32_t)s->st_blksize;
    o->atime = (uint32_t)s->st_atim.tv_sec;
    o->atime_nsec = (uint32_t)s->st_atim.tv_nsec;
    o->mtime = (uint32_t)s->st_mtim.tv_sec;
    o->mtime_nsec = (uint32_t)s->st_mtim.tv_nsec;
    o->ctime = (uint32_t)s->st_ctim.tv_sec;
    o->ctime_nsec = (uint32_t)s->st_ctim.tv_nsec;
}

static int32_t op_stat(struct hostfs *fs, const struct guest_memory *mem, const struct hc_fs *r)
{
    char path[HC_FS_PATH_MAX + 64];
    uint8_t *out = kernel_bytes(mem, r->buf, sizeof(struct hc_stat));
    struct stat st;
    struct hc_stat hs;
    int fd;
    if (!out || r->len < sizeof hs)
        return -EFAULT;
    if (r->flags & HC_FS_EMPTY_PATH) {
        const struct hostfs_file *f = file_at(fs, r->handle);
        if (!f)
            return -EBADF;
        fd = f->fd;
    } else if ((fd = open_path(fs, mem, r, (r->flags & HC_FS_NOFOLLOW) != 0, path,
                               sizeof path)) < 0) {
        return fd;
    }
    int err = fstat(fd, &st) ? -errno : 0;
    if (!(r->flags & HC_FS_EMPTY_PATH))
        close(fd);
    if (err)
        return err;
    to_hc_stat(&st, &hs);
    memcpy(out, &hs, sizeof hs);
    return 0;
}

static int32_t op_readlink(struct hostfs *fs, const struct guest_memory *mem, const struct hc_fs *r)
{
    char path[HC_FS_PATH_MAX + 64];
    uint8_t *out = kernel_bytes(mem, r->buf, r->len);
    struct stat st;
    if (!out || r->len == 0 || r->len > HOSTFS_IO_MAX)
        return -EFAULT;
    int fd = open_path(fs, mem, r, true, path, sizeof path);
    if (fd < 0)
        return fd;
    ssize_t n = -EINVAL;
    if (fstat(fd, &st))
        n = -errno;
    else if (S_ISLNK(st.st_mode) && (n = readlinkat(fd, "", (char *)out, r->len)) < 0)
        n = -errno;
    close(fd);
    return (int32_t)n;
}

static int32_t op_close(struct hostfs *fs, const struct hc_fs *r)
{
    struct hostfs_file *f = file_at(fs, r->handle);
    if (!f)
        return -EBADF;
    close_file(f);
    return 0;
}

/* ---- the interface ---- */

bool hostfs_is_port(uint32_t port)
{
    return port >= HC_PORT_FS_OPEN && port <= HC_PORT_FS_READLINK;
}

int hostfs_hypercall(struct hostfs *fs, const struct guest_memory *mem, uint32_t port,
                     uint32_t block)
{
    uint8_t *b = kernel_bytes(mem, block, sizeof(struct hc_fs));
    struct hc_fs r;
    if (!b)
        return -1;
    memcpy(&r, b, sizeof r);
    switch (port) {
    case HC_PORT_FS_OPEN: r.result = op_open(fs, mem, &r); break;
    case HC_PORT_FS_CLOSE: r.result = op_close(fs, &r); break;
    case HC_PORT_FS_READ: r.result = op_read(fs, mem, &r); break;
    case HC_PORT_FS_GETDENTS: r.result = op_getdents(fs, mem, &r); break;
    case HC_PORT_FS_STAT: r.result = op_stat(fs, mem, &r); break;
    case HC_PORT_FS_READLINK: r.result = op_readlink(fs, mem, &r); break;
    default: return -1;
    }
    memcpy(b, &r, sizeof r);
    return 0;
}

int hostfs_init(struct hostfs *fs, const char *root, char *err, size_t errlen)
{
    fs->ready = true;
    fs->root_fd = -1;
    for (int i = 0; i < HC_FS_MAX_FILES; i++)
        fs->files[i] = (struct hostfs_file){ .fd = -1 };
    if (!root)
        return 0;
    fs->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fs->root_fd < 0) {
        snprintf(err, errlen, "--root %s: %s", root, strerror(errno));
        return -1;
    }
    int fd = open_in_root(fs, ".", O_PATH);
    if (fd < 0) {
        snprintf(err, errlen, "--root %s: %s", root, fd == -ENOSYS
                 ? "the host kernel has no openat2 (Linux 5.6 or later is needed)"
                 : strerror(-fd));
        close(fs->root_fd);
        fs->root_fd = -1;
        return -1;
    }
    close(fd);
    return 0;
}

void hostfs_destroy(struct hostfs *fs)
{
    if (!fs->ready)
        return;
    for (int i = 0; i < HC_FS_MAX_FILES; i++)
        if (fs->files[i].fd >= 0)
            close_file(&fs->files[i]);
    if (fs->root_fd >= 0)
        close(fs->root_fd);
    fs->root_fd = -1;
    fs->ready = false;
}
