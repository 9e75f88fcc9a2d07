/*
 * Attributes (vfs.h): stat, chmod, chown, utimens, access, exec_ok, and
 * path_of. The guest is root: only execute permission is ever checked.
 * A lower regular file's metadata change copies it up (vfs_file.c).
 */
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <string.h>

#define NSEC 1000000000u

static void fill_stat(const struct vfs *v, const struct vfs_node *n, struct vfs_stat *st)
{
    memset(st, 0, sizeof *st);
    st->dev = n->dev;
    st->ino = n->ino;
    st->rdev = n->rdev;
    st->mode = n->mode;
    st->uid = n->uid;
    st->gid = n->gid;
    st->blksize = VFS_PAGE;
    st->atime = n->atime;
    st->mtime = n->mtime;
    st->ctime = n->ctime;
    if (IS_DIR(n))
        st->nlink = dir_nlink(v, n);
    else if (n->lower_data && n->links)
        st->nlink = n->host_nlink - 1 + n->links;   /* the host's other names */
    else
        st->nlink = n->links;
    st->size = IS_LNK(n) ? n->u.lnk.len : n->size;
    if (IS_REG(n) && !n->lower_data)
        st->blocks = (uint64_t)n->u.reg.npages * (VFS_PAGE / 512);
    else
        st->blocks = n->host_blocks;
}

int vfs_fstat(struct vfs *v, uint32_t h, struct vfs_stat *st)
{
    struct vfs_node *n = handle_node(v, h);
    if (!n)
        return -EBADF;
    fill_stat(v, n, st);
    return 0;
}

int vfs_stat(struct vfs *v, uint32_t dir, const char *path, size_t len, int flags,
             struct vfs_stat *st)
{
    struct vfs_node *n;
    int err = vfs_resolve(v, dir, path, len, flags, &n);
    if (err)
        return err;
    fill_stat(v, n, st);
    return 0;
}

static int set_mode(struct vfs *v, struct vfs_node *n, uint32_t mode)
{
    if (IS_REG(n) && n->lower_data) {
        int err = file_copy_up(v, n, n->size);
        if (err)
            return err;
    }
    n->mode = S_TYPE(n->mode) | (mode & 07777u);
    n->ctime = vfs_now(v);
    return 0;
}

int vfs_chmod(struct vfs *v, uint32_t dir, const char *path, size_t len, uint32_t mode,
              int flags)
{
    v->changes++;
    struct vfs_node *n;
    int err = vfs_resolve(v, dir, path, len, flags, &n);
    if (err)
        return err;
    if (IS_LNK(n))
        return -EOPNOTSUPP;   /* fchmodat(AT_SYMLINK_NOFOLLOW) on a symlink */
    return set_mode(v, n, mode);
}

int vfs_fchmod(struct vfs *v, uint32_t h, uint32_t mode)
{
    v->changes++;
    struct vfs_node *n = handle_node(v, h);
    return n ? set_mode(v, n, mode) : -EBADF;
}

static int set_owner(struct vfs *v, struct vfs_node *n, uint32_t uid, uint32_t gid)
{
    const uint32_t keep = (uint32_t)-1;
    if (uid == keep && gid == keep)
        return 0;
    if (IS_REG(n) && n->lower_data) {
        int err = file_copy_up(v, n, n->size);
        if (err)
            return err;
    }
    if (uid != keep)
        n->uid = uid;
    if (gid != keep)
        n->gid = gid;
    if (!IS_DIR(n)) {
        n->mode &= ~04000u;
        if (n->mode & 0010)
            n->mode &= ~02000u;
    }
    n->ctime = vfs_now(v);
    return 0;
}

int vfs_chown(struct vfs *v, uint32_t dir, const char *path, size_t len, uint32_t uid,
              uint32_t gid, int flags)
{
    v->changes++;
    struct vfs_node *n;
    int err = vfs_resolve(v, dir, path, len, flags, &n);
    return err ? err : set_owner(v, n, uid, gid);
}

int vfs_fchown(struct vfs *v, uint32_t h, uint32_t uid, uint32_t gid)
{
    v->changes++;
    struct vfs_node *n = handle_node(v, h);
    return n ? set_owner(v, n, uid, gid) : -EBADF;
}

static int set_times(struct vfs *v, struct vfs_node *n, const struct vfs_time times[2])
{
    struct vfs_time now = vfs_now(v), t[2] = { now, now };
    bool set[2] = { true, true };
    for (int i = 0; times && i < 2; i++) {
        if (times[i].nsec == VFS_UTIME_OMIT)
            set[i] = false;
        else if (times[i].nsec != VFS_UTIME_NOW && times[i].nsec >= NSEC)
            return -EINVAL;
        else if (times[i].nsec != VFS_UTIME_NOW)
            t[i] = times[i];
    }
    if (!set[0] && !set[1])
        return 0;
    if (IS_REG(n) && n->lower_data) {
        int err = file_copy_up(v, n, n->size);
        if (err)
            return err;
    }
    if (set[0])
        n->atime = t[0];
    if (set[1])
        n->mtime = t[1];
    n->ctime = now;
    return 0;
}

static bool times_valid(const struct vfs_time times[2])
{
    for (int i = 0; times && i < 2; i++)
        if (times[i].nsec >= NSEC && times[i].nsec != VFS_UTIME_NOW &&
            times[i].nsec != VFS_UTIME_OMIT)
            return false;
    return true;
}

int vfs_utimens(struct vfs *v, uint32_t dir, const char *path, size_t len,
                const struct vfs_time times[2], int flags)
{
    v->changes++;
    struct vfs_node *n;
    if (!times_valid(times))
        return -EINVAL;
    int err = vfs_resolve(v, dir, path, len, flags, &n);
    return err ? err : set_times(v, n, times);
}

int vfs_futimens(struct vfs *v, uint32_t h, const struct vfs_time times[2])
{
    v->changes++;
    struct vfs_node *n = handle_node(v, h);
    if (!times_valid(times))
        return -EINVAL;
    return n ? set_times(v, n, times) : -EBADF;
}

int vfs_access(struct vfs *v, uint32_t dir, const char *path, size_t len, int mode,
               int flags)
{
    struct vfs_node *n;
    if (mode & ~(VFS_R_OK | VFS_W_OK | VFS_X_OK))
        return -EINVAL;
    int err = vfs_resolve(v, dir, path, len, flags, &n);
    if (err)
        return err;
    /* root may read and write anything; executing needs an x bit somewhere */
    if ((mode & VFS_X_OK) && !IS_DIR(n) && !(n->mode & 0111))
        return -EACCES;
    return 0;
}

int vfs_exec_ok(struct vfs *v, uint32_t h)
{
    struct vfs_node *n = handle_node(v, h);
    if (!n)
        return -EBADF;
    return IS_REG(n) && (n->mode & 0111) ? 0 : -EACCES;
}

int vfs_path_of(struct vfs *v, uint32_t h, char *buf, size_t cap)
{
    struct vfs_node *n = handle_node(v, h);
    if (!n)
        return -EBADF;
    if (!IS_DIR(n))
        return -ENOTDIR;
    if (!dir_alive(v, n))
        return -ENOENT;
    if (cap < 2)
        return -ERANGE;
    size_t at = cap - 1;
    buf[at] = 0;
    for (; n != v->root; n = n->u.dir.parent) {
        const struct vfs_dent *e = n->u.dir.dent;
        if ((size_t)e->len + 1 > at)
            return -ERANGE;
        at -= e->len;
        memcpy(buf + at, e->name, e->len);
        buf[--at] = '/';
    }
    if (at == cap - 1)
        buf[--at] = '/';
    size_t len = cap - 1 - at;
    memmove(buf, buf + at, len + 1);
    return len > INT32_MAX ? -ERANGE : (int)len;
}

