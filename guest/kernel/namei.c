/*
 * The calls that look a path up in the tree: open, the stat family (and
 * fstat, which shares its layouts), access and readlink. A path goes from
 * user memory into path_buf, then to the emulator relative to the root or
 * to an open directory.
 */
#include "fs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The path the call in progress looks up. */
static char path_buf[HC_FS_PATH_MAX];
static uint32_t path_len;

static long host_stat(uint32_t handle, uint32_t flags, int with_path, struct hc_stat *st)
{
    struct hc_fs r = { handle, (uint32_t)path_buf, with_path ? path_len : 0, flags,
                       (uint32_t)st, sizeof(*st), 0, 0, 0 };

    memset(st, 0, sizeof(*st));
    return host_call(HC_PORT_FS_STAT, &r);
}

/* The path at upath into path_buf: its length, or -errno. */
static long get_path(uint32_t upath)
{
    long n = strncpy_from_user(path_buf, upath, sizeof(path_buf));

    if (n < 0)
        return n;
    if (n == (long)sizeof(path_buf))
        return -ENAMETOOLONG;
    path_len = n;
    return n;
}

/* Where a path in path_buf starts: the root, or an open directory. */
static long start_dir(uint32_t dirfd, uint32_t *handle)
{
    struct file *f;

    *handle = HC_FS_ROOT;
    if ((path_len > 0 && path_buf[0] == '/') || dirfd == AT_FDCWD)
        return 0;
    if (dirfd < FIRST_FD)
        return dirfd <= 2 ? -ENOTDIR : -EBADF;
    f = file_of(dirfd);
    if (!f)
        return -EBADF;
    if (!S_ISDIR(f->mode))
        return -ENOTDIR;
    *handle = f->handle;
    return 0;
}

/* ---- open ---- */

/* An open for writing fails as on a read-only mount: EISDIR for a
 * directory, ENOENT for a missing file the call would not create, else
 * EROFS. */
static long refuse_write(uint32_t dir, uint32_t oflags)
{
    struct hc_stat st;
    long err = host_stat(dir, 0, 1, &st);

    if (err == 0 && S_ISDIR(st.mode))
        return -EISDIR;
    if (err < 0 && !(oflags & O_CREAT))
        return err;
    return -EROFS;
}

static long do_open(uint32_t dirfd, uint32_t upath, uint32_t oflags)
{
    struct hc_fs r;
    struct hc_stat st;
    uint32_t dir, fd;
    long err = get_path(upath), h;

    if (err < 0)
        return err;
    if (path_len == 0)
        return -ENOENT;
    if ((err = start_dir(dirfd, &dir)) < 0)
        return err;
    if ((oflags & O_ACCMODE) != O_RDONLY || (oflags & O_WRITING))
        return refuse_write(dir, oflags);
    for (fd = 0; fd < HC_FS_MAX_FILES && files[fd].used; fd++)
        ;
    if (fd == HC_FS_MAX_FILES)
        return -EMFILE;

    r = (struct hc_fs){ dir, (uint32_t)path_buf, path_len,
                        ((oflags & O_NOFOLLOW) ? HC_FS_NOFOLLOW : 0) |
                        ((oflags & O_DIRECTORY) ? HC_FS_DIRECTORY : 0), 0, 0, 0, 0, 0 };
    if ((h = host_call(HC_PORT_FS_OPEN, &r)) < 0)
        return h;
    if ((err = host_stat((uint32_t)h, HC_FS_EMPTY_PATH, 0, &st)) < 0) {
        r.handle = (uint32_t)h;
        host_call(HC_PORT_FS_CLOSE, &r);
        return err;
    }
    files[fd] = (struct file){ 1, (oflags & O_CLOEXEC) != 0, (uint32_t)h, oflags,
                               st.mode, st.size, 0 };
    return fd + FIRST_FD;
}

long sys_open(uint32_t upath, uint32_t oflags, uint32_t mode,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_open(AT_FDCWD, upath, oflags);
}

long sys_openat(uint32_t dirfd, uint32_t upath, uint32_t oflags,
                uint32_t mode, uint32_t a5, uint32_t a6)
{
    return do_open(dirfd, upath, oflags);
}

/* ---- stat ---- */

/* The console, as the emulator's stdin/stdout/stderr look to programs. */
static void console_stat(uint32_t fd, struct hc_stat *st)
{
    uint32_t sec, usec;

    do_gettimeofday(&sec, &usec);
    memset(st, 0, sizeof(*st));
    st->dev = TTY_DEV;
    st->ino = fd + 3;
    st->mode = TTY_MODE;
    st->nlink = 1;
    st->rdev = TTY_RDEV;
    st->blksize = 1024;
    st->atime = st->mtime = st->ctime = sec;
}

/* stat of an open descriptor */
static long stat_fd(uint32_t fd, struct hc_stat *st)
{
    struct file *f = file_of(fd);

    if (fd < FIRST_FD) {
        console_stat(fd, st);
        return 0;
    }
    if (!f)
        return -EBADF;
    return host_stat(f->handle, HC_FS_EMPTY_PATH, 0, st);
}

/* stat of dirfd + the path at upath; AT_EMPTY_PATH and "" mean dirfd itself. */
static long stat_at(uint32_t dirfd, uint32_t upath, uint32_t atflags, struct hc_stat *st)
{
    uint32_t dir;
    long err = get_path(upath);

    if (err < 0)
        return err;
    if (path_len == 0) {
        if (!(atflags & AT_EMPTY_PATH))
            return -ENOENT;
        if (dirfd != AT_FDCWD)
            return stat_fd(dirfd, st);
        path_buf[0] = '/';
        path_len = 1;
    }
    if ((err = start_dir(dirfd, &dir)) < 0)
        return err;
    return host_stat(dir, (atflags & AT_SYMLINK_NOFOLLOW) ? HC_FS_NOFOLLOW : 0, 1, st);
}

/* Linux's dev_t encodings: glibc's 64-bit one (the host's) into the
 * kernel's 32-bit new_encode_dev. */
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
    s.st_atime = st->atime;
    s.st_atime_nsec = st->atime_nsec;
    s.st_mtime = st->mtime;
    s.st_mtime_nsec = st->mtime_nsec;
    s.st_ctime = st->ctime;
    s.st_ctime_nsec = st->ctime_nsec;
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
    s.st_atime = st->atime;
    s.st_atime_nsec = st->atime_nsec;
    s.st_mtime = st->mtime;
    s.st_mtime_nsec = st->mtime_nsec;
    s.st_ctime = st->ctime;
    s.st_ctime_nsec = st->ctime_nsec;
    return copy_to_user(ubuf, &s, sizeof(s));
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
    s.atime = (struct statx_time){ st->atime, st->atime_nsec, 0 };
    s.mtime = (struct statx_time){ st->mtime, st->mtime_nsec, 0 };
    s.ctime = (struct statx_time){ st->ctime, st->ctime_nsec, 0 };
    s.rdev_major = dev_major(st->rdev);
    s.rdev_minor = dev_minor(st->rdev);
    s.dev_major = dev_major(st->dev);
    s.dev_minor = dev_minor(st->dev);
    return copy_to_user(ubuf, &s, sizeof(s));
}

typedef long (*put_stat_fn)(const struct hc_stat *st, uint32_t ubuf);

/* stat/lstat (nofollow) of a path, written out in the caller's layout. */
static long stat_path(uint32_t upath, uint32_t atflags, uint32_t ubuf, put_stat_fn put)
{
    struct hc_stat st;
    long err = stat_at(AT_FDCWD, upath, atflags, &st);

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
    return stat_path(upath, 0, ubuf, put_stat64);
}

long sys_lstat64(uint32_t upath, uint32_t ubuf, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(upath, AT_SYMLINK_NOFOLLOW, ubuf, put_stat64);
}

long sys_fstat64(uint32_t fd, uint32_t ubuf, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_open_file(fd, ubuf, put_stat64);
}

long sys_stat(uint32_t upath, uint32_t ubuf, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(upath, 0, ubuf, put_stat32);
}

long sys_lstat(uint32_t upath, uint32_t ubuf, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return stat_path(upath, AT_SYMLINK_NOFOLLOW, ubuf, put_stat32);
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

/* access: the tree is read-only and we are root, so only W_OK and X_OK
 * can fail. */
static long do_access(uint32_t dirfd, uint32_t upath, uint32_t how, uint32_t atflags)
{
    struct hc_stat st;
    long err;

    if (how & ~7u)
        return -EINVAL;
    if ((err = stat_at(dirfd, upath, atflags & AT_SYMLINK_NOFOLLOW, &st)) < 0)
        return err;
    if (how & W_OK)
        return -EROFS;
    if ((how & X_OK) && !(st.mode & 0111))
        return -EACCES;
    return 0;
}

long sys_access(uint32_t upath, uint32_t how, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_access(AT_FDCWD, upath, how, 0);
}

long sys_faccessat(uint32_t dirfd, uint32_t upath, uint32_t how,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_access(dirfd, upath, how, 0);
}

long sys_faccessat2(uint32_t dirfd, uint32_t upath, uint32_t how,
                    uint32_t atflags, uint32_t a5, uint32_t a6)
{
    return do_access(dirfd, upath, how, atflags);
}

/* ---- readlink ---- */

static long do_readlink(uint32_t dirfd, uint32_t upath, uint32_t ubuf, uint32_t size)
{
    struct hc_fs r;
    uint32_t dir;
    long err, n;

    if ((int32_t)size <= 0)
        return -EINVAL;
    if ((err = get_path(upath)) < 0)
        return err;
    if (path_len == 0)
        return -ENOENT;
    if ((err = start_dir(dirfd, &dir)) < 0)
        return err;
    r = (struct hc_fs){ dir, (uint32_t)path_buf, path_len, HC_FS_NOFOLLOW,
                        (uint32_t)fs_bounce, size < FS_CHUNK ? size : FS_CHUNK, 0, 0, 0 };
    if ((n = host_call(HC_PORT_FS_READLINK, &r)) < 0)
        return n;
    if (n > (long)r.len)
        panic("fs: host readlink %ld bytes for %u", n, r.len);
    if (copy_to_user(ubuf, fs_bounce, n) != 0)
        return -EFAULT;
    return n;
}

long sys_readlink(uint32_t upath, uint32_t ubuf, uint32_t size,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_readlink(AT_FDCWD, upath, ubuf, size);
}

long sys_readlinkat(uint32_t dirfd, uint32_t upath, uint32_t ubuf,
                    uint32_t size, uint32_t a5, uint32_t a6)
{
    return do_readlink(dirfd, upath, ubuf, size);
}
