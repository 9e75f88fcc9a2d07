/*
 * The stat family: the kernel gets one struct hc_stat from the tree (or
 * makes it, for a pipe or the console) and writes it out in the caller's
 * layout: struct stat, stat64, statx.
 */
#include "kernel.h"
#include "file.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define TTY_MODE  (S_IFCHR | 0620)
#define TTY_RDEV  ((136 << 8) | 0)   /* like /dev/pts/0 */
#define TTY_DEV   0x16

/* The console, as the emulator's stdin/stdout/stderr look to programs. */
void console_stat(uint32_t stream, struct hc_stat *st)
{
    struct timeval tv;
    uint32_t sec;

    do_gettimeofday(&tv);
    sec = tv.tv_sec;
    memset(st, 0, sizeof(*st));
    st->dev = TTY_DEV;
    st->ino = stream + 3;
    st->mode = TTY_MODE;
    st->nlink = 1;
    st->rdev = TTY_RDEV;
    st->blksize = 1024;
    st->atime.sec = st->mtime.sec = st->ctime.sec = sec;
}

long stat_file(struct file *f, struct hc_stat *st)
{
    if (f->type == FT_PIPE) {
        pipe_stat(f, st);
        return 0;
    }
    if (boot_console(f)) {
        struct hc_console c = { .buf = (uint32_t)st, .len = sizeof(*st) };
        return console_call(CONSOLE_STAT, f, &c);
    }
    if (f->handle == NO_HANDLE) {
        console_stat(f->stream, st);
        return 0;
    }
    return vfs_fstat(f->handle, st);
}

static long stat_fd(uint32_t fd, struct hc_stat *st)
{
    struct file *f = fcheck(fd);

    return f ? stat_file(f, st) : -EBADF;
}

/* stat of dirfd + the path at upath; AT_EMPTY_PATH and "" mean dirfd itself. */
static long stat_at(uint32_t dirfd, uint32_t upath, uint32_t atflags, struct hc_stat *st)
{
    static struct kpath p;
    long err = get_path(&p, dirfd, upath, (atflags & AT_EMPTY_PATH) != 0);

    if (err < 0)
        return err;
    if (p.len == 0) {
        if ((int32_t)dirfd != AT_FDCWD)
            return stat_fd(dirfd, st);
        p.text[0] = '.';
        p.len = 1;
    }
    return vfs_stat(p.dir, p.text, p.len, atflags & AT_SYMLINK_NOFOLLOW, st);
}

/* Linux's dev_t encodings: glibc's 64-bit one (the host's, for the files of
 * --root) into the kernel's 32-bit new_encode_dev. */
static uint32_t dev_major(uint64_t dev)
{
    return (uint32_t)(((dev >> 8) & 0xfff) | ((dev >> 32) & 0xfffff000u));
}

static uint32_t dev_minor(uint64_t dev)
{
    return (uint32_t)((dev & 0xff) | ((dev >> 12) & 0xffffff00u));
}

static uint32_t encode_dev(uint64_t dev)
{
    uint32_t ma = dev_major(dev), mi = dev_minor(dev);

    return (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12);
}

struct stat32 {
    uint32_t st_dev, st_ino;
    uint16_t st_mode, st_nlink, st_uid, st_gid;
    uint32_t st_rdev, st_size, st_blksize, st_blocks;
    uint32_t st_atime, st_atime_nsec, st_mtime, st_mtime_nsec;
    uint32_t st_ctime, st_ctime_nsec;
    uint32_t unused[2];
};

/* i386 aligns 64-bit members to 4 bytes, which is what the ABI wants. */
struct stat64 {
    uint64_t st_dev;
    uint32_t pad0;
    uint32_t st_ino32;
    uint32_t st_mode, st_nlink, st_uid, st_gid;
    uint64_t st_rdev;
    uint32_t pad3;
    int64_t st_size;
    uint32_t st_blksize;
    uint64_t st_blocks;
    uint32_t st_atime, st_atime_nsec, st_mtime, st_mtime_nsec;
    uint32_t st_ctime, st_ctime_nsec;
    uint64_t st_ino;
};

struct statx_time {
    int64_t sec;
    uint32_t nsec;
    int32_t reserved;
};

struct statx {
    uint32_t mask, blksize;
    uint64_t attributes;
    uint32_t nlink, uid, gid;
    uint16_t mode, spare0;
    uint64_t ino, size, blocks, attributes_mask;
    struct statx_time atime, btime, ctime, mtime;
    uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
    uint64_t spare[14];
};

_Static_assert(sizeof(struct stat32) == 64, "struct stat layout");
_Static_assert(sizeof(struct stat64) == 96, "struct stat64 layout");
_Static_assert(__builtin_offsetof(struct stat64, st_size) == 44, "stat64 st_size");
_Static_assert(__builtin_offsetof(struct stat64, st_ino) == 88, "stat64 st_ino");
_Static_assert(sizeof(struct statx) == 256, "struct statx layout");
_Static_assert(__builtin_offsetof(struct statx, ino) == 32, "statx ino");
_Static_assert(__builtin_offsetof(struct statx, mtime) == 112, "statx mtime");
_Static_assert(__builtin_offsetof(struct statx, dev_minor) == 140, "statx dev");

#define STATX_BASIC_STATS 0x7ff

static long put_stat32(const struct hc_stat *st, uint32_t ubuf)
{
    struct stat32 s;

    if (st->ino > 0xffffffffu || st->size > 0x7fffffffu || st->nlink > 0xffff)
        return -EOVERFLOW;
    memset(&s, 0, sizeof(s));
    s.st_dev = encode_dev(st->dev);
    s.st_ino = (uint32_t)st->ino;
    s.st_mode = (uint16_t)st->mode;
    s.st_nlink = (uint16_t)st->nlink;
    s.st_uid = (uint16_t)st->uid;
    s.st_gid = (uint16_t)st->gid;
    s.st_rdev = encode_dev(st->rdev);
    s.st_size = (uint32_t)st->size;
    s.st_blksize = st->blksize;
    s.st_blocks = (uint32_t)st->blocks;
    s.st_atime = (uint32_t)st->atime.sec;
    s.st_atime_nsec = st->atime.nsec;
    s.st_mtime = (uint32_t)st->mtime.sec;
    s.st_mtime_nsec = st->mtime.nsec;
    s.st_ctime = (uint32_t)st->ctime.sec;
    s.st_ctime_nsec = st->ctime.nsec;
    return copy_to_user(ubuf, &s, sizeof(s));
}

static long put_stat64(const struct hc_stat *st, uint32_t ubuf)
{
    struct stat64 s;

    memset(&s, 0, sizeof(s));
    s.st_dev = encode_dev(st->dev);
    s.st_ino32 = (uint32_t)st->ino;
    s.st_ino = st->ino;
    s.st_mode = st->mode;
    s.st_nlink = st->nlink;
    s.st_uid = st->uid;
    s.st_gid = st->gid;
    s.st_rdev = encode_dev(st->rdev);
    s.st_size = (int64_t)st->size;
    s.st_blksize = st->blksize;
    s.st_blocks = st->blocks;
    s.st_atime = (uint32_t)st->atime.sec;
    s.st_atime_nsec = st->atime.nsec;
    s.st_mtime = (uint32_t)st->mtime.sec;
    s.st_mtime_nsec = st->mtime.nsec;
    s.st_ctime = (uint32_t)st->ctime.sec;
    s.st_ctime_nsec = st->ctime.nsec;
    return copy_to_user(ubuf, &s, sizeof(s));
}

static struct statx_time sx_time(struct hc_time t)
{
    return (struct statx_time){ t.sec, t.nsec, 0 };
}

static long put_statx(const struct hc_stat *st, uint32_t ubuf)
{
    static struct statx s;

    memset(&s, 0, sizeof(s));
    s.mask = STATX_BASIC_STATS;
    s.blksize = st->blksize;
    s.nlink = st->nlink;
    s.uid = st->uid;
    s.gid = st->gid;
    s.mode = (uint16_t)st->mode;
    s.ino = st->ino;
    s.size = st->size;
    s.blocks = st->blocks;
    s.atime = sx_time(st->atime);
    s.mtime = sx_time(st->mtime);
    s.ctime = sx_time(st->ctime);
    s.rdev_major = dev_major(st->rdev);
    s.rdev_minor = dev_minor(st->rdev);
    s.dev_major = dev_major(st->dev);
    s.dev_minor = dev_minor(st->dev);
    return copy_to_user(ubuf, &s, sizeof(s));
}

typedef long (*put_stat_fn)(const struct hc_stat *st, uint32_t ubuf);

static long stat_path(uint32_t dirfd, uint32_t upath, uint32_t atflags, uint32_t ubuf,
                      put_stat_fn put)
{
    struct hc_stat st;
    long err;

    if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800))
        return -EINVAL;
    err = stat_at(dirfd, upath, atflags, &st);
    return err < 0 ? err : put(&st, ubuf);
}

static long stat_open_file(uint32_t fd, uint32_t ubuf, put_stat_fn put)
{
    struct hc_stat st;
    long err = stat_fd(fd, &st);

    return err < 0 ? err : put(&st, ubuf);
}

long sys_stat64(uint32_t upath, uint32_t ubuf, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(AT_FDCWD, upath, 0, ubuf, put_stat64);
}

long sys_lstat64(uint32_t upath, uint32_t ubuf, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(AT_FDCWD, upath, AT_SYMLINK_NOFOLLOW, ubuf, put_stat64);
}

long sys_fstat64(uint32_t fd, uint32_t ubuf, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_open_file(fd, ubuf, put_stat64);
}

long sys_fstatat64(uint32_t dirfd, uint32_t upath, uint32_t ubuf,
                   uint32_t atflags, uint32_t a5, uint32_t a6)
{
    return stat_path(dirfd, upath, atflags, ubuf, put_stat64);
}

long sys_stat(uint32_t upath, uint32_t ubuf, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(AT_FDCWD, upath, 0, ubuf, put_stat32);
}

long sys_lstat(uint32_t upath, uint32_t ubuf, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(AT_FDCWD, upath, AT_SYMLINK_NOFOLLOW, ubuf, put_stat32);
}

long sys_fstat(uint32_t fd, uint32_t ubuf, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_open_file(fd, ubuf, put_stat32);
}

long sys_statx(uint32_t dirfd, uint32_t upath, uint32_t atflags,
               uint32_t mask, uint32_t ubuf, uint32_t a6)
{
    struct hc_stat st;
    long err;

    if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 | 0x6000))
        return -EINVAL;
    if ((err = stat_at(dirfd, upath, atflags, &st)) < 0)
        return err;
    return put_statx(&st, ubuf);
}
