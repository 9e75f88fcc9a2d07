/*
 * The calls that change or ask about names in the tree: mkdir, unlink,
 * rmdir, rename, link, symlink, readlink, access, chmod, chown, utimensat
 * and its older forms, truncate, mknod. Each takes its path (or two) from
 * user memory and makes one request of the vfs (vfs.h).
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define UTIME_NOW  ((1u << 30) - 1)
#define UTIME_OMIT ((1u << 30) - 2)
#define RENAME_NOREPLACE 1

static struct kpath path1, path2;

/* One path, one request. */
static long path_call(uint32_t op, uint32_t dirfd, uint32_t upath, int empty_ok,
                      struct hc_vfs *r)
{
    long err = get_path(&path1, dirfd, upath, empty_ok);

    if (err < 0)
        return err;
    if (path1.len == 0 && path1.dir == NO_HANDLE)
        return -EINVAL;   /* a pipe or the console: not a node of the tree */
    return vfs_path_op(op, path1.dir, path1.text, path1.len, r);
}

/* Two paths, one request (rename, link). */
static long two_paths(uint32_t op, uint32_t olddir, uint32_t oldpath, uint32_t newdir,
                      uint32_t newpath, uint32_t flags)
{
    long err;
    struct hc_vfs r = { .flags = flags };

    if ((err = get_path(&path1, olddir, oldpath, 0)) < 0 ||
        (err = get_path(&path2, newdir, newpath, 0)) < 0)
        return err;
    r.handle2 = path2.dir;
    r.path2 = (uint32_t)path2.text;
    r.path2_len = path2.len;
    return vfs_path_op(op, path1.dir, path1.text, path1.len, &r);
}

/* ---- directories and names ---- */

long sys_mkdirat(uint32_t dirfd, uint32_t upath, uint32_t mode,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct hc_vfs r = { .mode = mode & ~current->umask & 07777 };

    return path_call(VFS_MKDIR, dirfd, upath, 0, &r);
}

long sys_mkdir(uint32_t upath, uint32_t mode, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_mkdirat(AT_FDCWD, upath, mode, 0, 0, 0);
}

long sys_unlinkat(uint32_t dirfd, uint32_t upath, uint32_t flags,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct hc_vfs r = { 0 };

    if (flags & ~AT_REMOVEDIR)
        return -EINVAL;
    return path_call(flags ? VFS_RMDIR : VFS_UNLINK, dirfd, upath, 0, &r);
}

long sys_unlink(uint32_t upath, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_unlinkat(AT_FDCWD, upath, 0, 0, 0, 0);
}

long sys_rmdir(uint32_t upath, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_unlinkat(AT_FDCWD, upath, AT_REMOVEDIR, 0, 0, 0);
}

long sys_renameat2(uint32_t olddir, uint32_t oldpath, uint32_t newdir,
                   uint32_t newpath, uint32_t flags, uint32_t a6)
{
    struct hc_stat st;

    if (flags & ~RENAME_NOREPLACE)
        return -EINVAL;
    if (flags & RENAME_NOREPLACE) {
        long err = get_path(&path2, newdir, newpath, 0);
        if (err < 0)
            return err;
        err = vfs_stat(path2.dir, path2.text, path2.len, AT_SYMLINK_NOFOLLOW, &st);
        if (err != -ENOENT)
            return err ? err : -EEXIST;
    }
    return two_paths(VFS_RENAME, olddir, oldpath, newdir, newpath, 0);
}

long sys_renameat(uint32_t olddir, uint32_t oldpath, uint32_t newdir,
                  uint32_t newpath, uint32_t a5, uint32_t a6)
{
    return sys_renameat2(olddir, oldpath, newdir, newpath, 0, 0);
}

long sys_rename(uint32_t oldpath, uint32_t newpath, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0, 0);
}

long sys_linkat(uint32_t olddir, uint32_t oldpath, uint32_t newdir,
                uint32_t newpath, uint32_t flags, uint32_t a6)
{
    if (flags & ~AT_SYMLINK_FOLLOW)
        return -EINVAL;
    return two_paths(VFS_LINK, olddir, oldpath, newdir, newpath, flags);
}

long sys_link(uint32_t oldpath, uint32_t newpath, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0, 0);
}

long sys_symlinkat(uint32_t utarget, uint32_t newdir, uint32_t newpath,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    long n = strncpy_from_user((char *)vfs_bounce, utarget, HC_VFS_PATH_MAX);
    struct hc_vfs r = { 0 };

    if (n < 0)
        return n;
    if (n == HC_VFS_PATH_MAX)
        return -ENAMETOOLONG;
    if (n == 0)
        return -ENOENT;
    r.buf = (uint32_t)vfs_bounce;
    r.len = (uint32_t)n;
    return path_call(VFS_SYMLINK, newdir, newpath, 0, &r);
}

long sys_symlink(uint32_t utarget, uint32_t newpath, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_symlinkat(utarget, AT_FDCWD, newpath, 0, 0, 0);
}

/* Does the user's path name /proc/self/exe (exe_path.c)? */
static int is_self_exe(uint32_t upath)
{
    static const char self[] = "/proc/self/exe";
    char text[sizeof(self)];

    if (strncpy_from_user(text, upath, sizeof(text)) != sizeof(self) - 1)
        return 0;
    return !memcmp(text, self, sizeof(self));
}

long sys_readlinkat(uint32_t dirfd, uint32_t upath, uint32_t ubuf,
                    uint32_t size, uint32_t a5, uint32_t a6)
{
    struct hc_vfs r = { .buf = (uint32_t)vfs_bounce };
    long n;

    if ((int32_t)size <= 0)
        return -EINVAL;
    if (is_self_exe(upath))
        return exe_path_readlink(ubuf, size);
    r.len = size < VFS_CHUNK ? size : VFS_CHUNK;
    if ((n = path_call(VFS_READLINK, dirfd, upath, 0, &r)) < 0)
        return n;
    if (n > (long)r.len)
        panic("vfs: readlink of %ld bytes for %u", n, r.len);
    return copy_to_user(ubuf, vfs_bounce, n) ? -EFAULT : n;
}

long sys_readlink(uint32_t upath, uint32_t ubuf, uint32_t size,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_readlinkat(AT_FDCWD, upath, ubuf, size, 0, 0);
}

/* A FIFO or a device of our own cannot be made; a plain file can. */
long sys_mknodat(uint32_t dirfd, uint32_t upath, uint32_t mode,
                 uint32_t dev, uint32_t a5, uint32_t a6)
{
    uint32_t type = mode & S_IFMT;
    long fd;

    if (type != 0 && type != S_IFREG)
        return type == S_IFDIR ? -EINVAL : -EPERM;
    fd = sys_openat(dirfd, upath, O_CREAT | O_EXCL | O_WRONLY, mode & 07777, 0, 0);
    return fd < 0 ? fd : fd_close((uint32_t)fd);
}

long sys_mknod(uint32_t upath, uint32_t mode, uint32_t dev,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_mknodat(AT_FDCWD, upath, mode, dev, 0, 0);
}

/* ---- attributes ---- */

long sys_faccessat2(uint32_t dirfd, uint32_t upath, uint32_t how,
                    uint32_t flags, uint32_t a5, uint32_t a6)
{
    struct hc_vfs r = { .mode = how, .flags = flags & AT_SYMLINK_NOFOLLOW };

    if (how & ~7u)
        return -EINVAL;
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EACCESS | AT_EMPTY_PATH))
        return -EINVAL;
    return path_call(VFS_ACCESS, dirfd, upath, (flags & AT_EMPTY_PATH) != 0, &r);
}

long sys_faccessat(uint32_t dirfd, uint32_t upath, uint32_t how,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_faccessat2(dirfd, upath, how, 0, 0, 0);
}

long sys_access(uint32_t upath, uint32_t how, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_faccessat2(AT_FDCWD, upath, how, 0, 0, 0);
}

long sys_fchmodat(uint32_t dirfd, uint32_t upath, uint32_t mode,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct hc_vfs r = { .mode = mode & 07777 };

    return path_call(VFS_CHMOD, dirfd, upath, 0, &r);
}

long sys_chmod(uint32_t upath, uint32_t mode, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_fchmodat(AT_FDCWD, upath, mode, 0, 0, 0);
}

static uint32_t vfs_handle_of(uint32_t fd, long *err)
{
    struct file *f = fcheck(fd);

    *err = !f ? -EBADF : f->handle == NO_HANDLE ? -EINVAL : 0;
    return f ? f->handle : NO_HANDLE;
}

long sys_fchmod(uint32_t fd, uint32_t mode, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    long err;
    struct hc_vfs r = { .op = VFS_FCHMOD, .mode = mode & 07777 };

    r.handle = vfs_handle_of(fd, &err);
    return err ? err : vfs_call(&r);
}

long sys_fchownat(uint32_t dirfd, uint32_t upath, uint32_t uid,
                  uint32_t gid, uint32_t flags, uint32_t a6)
{
    struct hc_vfs r = { .mode = uid, .len = gid, .flags = flags & AT_SYMLINK_NOFOLLOW };

    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    return path_call(VFS_CHOWN, dirfd, upath, (flags & AT_EMPTY_PATH) != 0, &r);
}

long sys_chown32(uint32_t upath, uint32_t uid, uint32_t gid,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_fchownat(AT_FDCWD, upath, uid, gid, 0, 0);
}

long sys_lchown32(uint32_t upath, uint32_t uid, uint32_t gid,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_fchownat(AT_FDCWD, upath, uid, gid, AT_SYMLINK_NOFOLLOW, 0);
}

long sys_fchown32(uint32_t fd, uint32_t uid, uint32_t gid,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    long err;
    struct hc_vfs r = { .op = VFS_FCHOWN, .mode = uid, .len = gid };

    r.handle = vfs_handle_of(fd, &err);
    return err ? err : vfs_call(&r);
}

/* The 16-bit forms: -1 stays "unchanged". */
static uint32_t id16(uint32_t id)
{
    return (id & 0xffff) == 0xffff ? 0xffffffffu : (id & 0xffff);
}

long sys_chown16(uint32_t upath, uint32_t uid, uint32_t gid,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_chown32(upath, id16(uid), id16(gid), 0, 0, 0);
}

long sys_lchown16(uint32_t upath, uint32_t uid, uint32_t gid,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_lchown32(upath, id16(uid), id16(gid), 0, 0, 0);
}

long sys_fchown16(uint32_t fd, uint32_t uid, uint32_t gid,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_fchown32(fd, id16(uid), id16(gid), 0, 0, 0);
}

/* ---- times ---- */

static long set_times(uint32_t dirfd, uint32_t upath, struct hc_time *t, uint32_t flags)
{
    struct hc_vfs r = { .buf = (uint32_t)t, .flags = flags & AT_SYMLINK_NOFOLLOW };
    long err;

    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    if (upath == 0) {
        /* utimensat(fd, NULL, ...): the descriptor itself */
        r.op = VFS_FUTIMENS;
        r.handle = vfs_handle_of(dirfd, &err);
        return err ? err : vfs_call(&r);
    }
    return path_call(VFS_UTIMENS, dirfd, upath, (flags & AT_EMPTY_PATH) != 0, &r);
}

static int valid_nsec(uint32_t nsec)
{
    return nsec < 1000000000u || nsec == UTIME_NOW || nsec == UTIME_OMIT;
}

long sys_utimensat(uint32_t dirfd, uint32_t upath, uint32_t utimes,
                   uint32_t flags, uint32_t a5, uint32_t a6)
{
    int32_t ts[4];
    struct hc_time t[2];

    if (!utimes)
        return set_times(dirfd, upath, NULL_PTR, flags);
    if (copy_from_user(ts, utimes, sizeof(ts)) != 0)
        return -EFAULT;
    for (int i = 0; i < 2; i++) {
        if (!valid_nsec((uint32_t)ts[2 * i + 1]))
            return -EINVAL;
        t[i] = (struct hc_time){ ts[2 * i], (uint32_t)ts[2 * i + 1], 0 };
    }
    return set_times(dirfd, upath, t, flags);
}

long sys_utimensat_time64(uint32_t dirfd, uint32_t upath, uint32_t utimes,
                          uint32_t flags, uint32_t a5, uint32_t a6)
{
    int64_t ts[4];
    struct hc_time t[2];

    if (!utimes)
        return set_times(dirfd, upath, NULL_PTR, flags);
    if (copy_from_user(ts, utimes, sizeof(ts)) != 0)
        return -EFAULT;
    for (int i = 0; i < 2; i++) {
        if (ts[2 * i + 1] < 0 || !valid_nsec((uint32_t)ts[2 * i + 1]))
            return -EINVAL;
        t[i] = (struct hc_time){ ts[2 * i], (uint32_t)ts[2 * i + 1], 0 };
    }
    return set_times(dirfd, upath, t, flags);
}

/* utimes and futimesat take microseconds. */
long sys_futimesat(uint32_t dirfd, uint32_t upath, uint32_t utimes,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    int32_t tv[4];
    struct hc_time t[2];

    if (!utimes)
        return set_times(dirfd, upath, NULL_PTR, 0);
    if (copy_from_user(tv, utimes, sizeof(tv)) != 0)
        return -EFAULT;
    for (int i = 0; i < 2; i++) {
        if ((uint32_t)tv[2 * i + 1] >= 1000000u)
            return -EINVAL;
        t[i] = (struct hc_time){ tv[2 * i], (uint32_t)tv[2 * i + 1] * 1000u, 0 };
    }
    return set_times(dirfd, upath, t, 0);
}

long sys_utimes(uint32_t upath, uint32_t utimes, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_futimesat(AT_FDCWD, upath, utimes, 0, 0, 0);
}

long sys_utime(uint32_t upath, uint32_t ubuf, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t tb[2];
    struct hc_time t[2];

    if (!ubuf)
        return set_times(AT_FDCWD, upath, NULL_PTR, 0);
    if (copy_from_user(tb, ubuf, sizeof(tb)) != 0)
        return -EFAULT;
    t[0] = (struct hc_time){ (int32_t)tb[0], 0, 0 };
    t[1] = (struct hc_time){ (int32_t)tb[1], 0, 0 };
    return set_times(AT_FDCWD, upath, t, 0);
}

/* ---- sizes ---- */

static long do_truncate(uint32_t upath, uint64_t size)
{
    struct hc_vfs r = { .pos_lo = (uint32_t)size, .pos_hi = (uint32_t)(size >> 32) };

    if ((int64_t)size < 0)
        return -EINVAL;
    return path_call(VFS_TRUNCATE, AT_FDCWD, upath, 0, &r);
}

static long do_ftruncate(uint32_t fd, uint64_t size)
{
    struct file *f = fcheck(fd);
    struct hc_vfs r = { .op = VFS_FTRUNCATE, .pos_lo = (uint32_t)size,
                        .pos_hi = (uint32_t)(size >> 32) };

    if (!f)
        return -EBADF;
    if ((int64_t)size < 0)
        return -EINVAL;
    if (f->type != FT_VFS || !file_writable(f))
        return S_ISDIR(f->mode) ? -EISDIR : -EINVAL;
    r.handle = f->handle;
    return vfs_call(&r);
}

long sys_truncate(uint32_t upath, uint32_t size, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_truncate(upath, (uint64_t)(int64_t)(int32_t)size);
}

long sys_truncate64(uint32_t upath, uint32_t lo, uint32_t hi,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_truncate(upath, ((uint64_t)hi << 32) | lo);
}

long sys_ftruncate(uint32_t fd, uint32_t size, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_ftruncate(fd, (uint64_t)(int64_t)(int32_t)size);
}

long sys_ftruncate64(uint32_t fd, uint32_t lo, uint32_t hi,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_ftruncate(fd, ((uint64_t)hi << 32) | lo);
}

/* Nothing is ever in flight to a disk. */
long sys_fsync(uint32_t fd, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return fcheck(fd) ? 0 : -EBADF;
}

long sys_sync(uint32_t a1, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return 0;
}
