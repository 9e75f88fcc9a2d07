/*
 * The guest's writable file tree: an in-memory layer over an optional
 * read-only host directory (the "lower" tree, "emu run --root DIR").
 *
 * Model. A tree of nodes: directories, regular files, symlinks and device
 * nodes. A lower directory is read from the host once, on first need
 * (lookup, listing, rmdir; the root when the vfs is made), sorted by name,
 * and from then on lives in memory (later changes on the host are not
 * seen); its entries become nodes only when looked up. A lower regular
 * file is read from the host with pread on demand and copied into memory
 * (copy-up) on its first write, truncate, chmod, chown or utimens.
 * Everything new lives in memory. "/dev" (null 1,3; zero 1,5; tty 5,0) is
 * made here and hides the lower tree's entry of that name; so is "/tmp"
 * (01777, empty) unless the lower tree has a directory "tmp", which is
 * then the guest's /tmp, under the writable layer like the rest. Device nodes are only stored (type and rdev); the kernel
 * gives them meaning. A node lives while a directory entry or a handle
 * refers to it: unlinked while open, it reads and writes on, with nlink 0,
 * until the last close.
 *
 * Containment. The host is only read. A host object is opened one
 * component at a time beneath a directory descriptor already inside the
 * lower tree (openat2 with RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS,
 * RESOLVE_NO_MAGICLINKS, O_NOFOLLOW), never by a path; symlinks, "." and
 * ".." are resolved here in the tree (an absolute target starts at the
 * tree's root, ".." at the root stays there, 40 links at most: ELOOP), so
 * no path reaches outside the lower directory. A host object is opened for
 * reading only, after O_PATH shows it is a regular file or a directory
 * and the same inode as first seen (else ESTALE); FIFOs, sockets and
 * devices of the lower tree are listed and stat'ed but never opened
 * (EACCES). Nothing is ever written to the host.
 *
 * Limits (all per vfs). The in-memory layer holds at most `limit` bytes
 * (file pages of 4096 bytes, symlink text, 256 per node, 64 + name per
 * directory entry made by the guest); beyond it writes, creates and
 * copy-ups fail with ENOSPC (a write that fills the layer is short).
 * Files are stored as page-sized chunks, so holes cost nothing: a write at
 * offset 1 GiB charges one page. Files end at 2^43 - 1 (Linux's i386
 * MAX_LFS_FILESIZE; beyond: EFBIG). A lower directory of more than 100 000
 * entries, or listings totalling more than 2^20 entries, fail with ENOMEM,
 * as Linux reports a kernel object it cannot allocate, and the failure is
 * remembered so the host is not read again. 4096 handles (ENFILE), 64 host
 * descriptors held open (least recently used ones closed), paths of 4095
 * bytes, names of 255 (ENAMETOOLONG), 65000 links (EMLINK). Host memory and
 * time per call are bounded by these; no recursion depth is the guest's.
 *
 * Determinism. Times come only from the caller's clock (atime is never
 * updated by reading, as with noatime). Inode numbers are the host's for
 * lower nodes and a counter for new ones; st_dev tells them apart (one
 * number for the layer, one per host file system in order of first use).
 * A lower file keeps its number through copy-up, except a file with
 * several host names: each name is its own node, and its copy-up breaks
 * the hard link and takes a new number (as overlayfs without index=on).
 * Listings follow each directory's entry sequence: lower entries sorted by
 * name, then new entries in creation order. No result depends on host
 * time, addresses or hash order.
 *
 * Directory positions. A getdents cookie is an entry's sequence number
 * (0 ".", 1 "..", 2 and up entries), always below 2^31; entries present for
 * a whole listing appear exactly once however others come and go. (After
 * 2^31 entries made in one directory its live entries are renumbered; a
 * listing in progress across that may repeat or miss some.)
 *
 * Paths are (directory handle or VFS_ROOT, bytes, length); a relative path
 * starts at the directory handle, an absolute one at the root. A path may
 * hold any byte but NUL (EINVAL): the kernel cuts strings at their NUL.
 * Results are 0, a count or a handle, or -errno with Linux's values. The
 * guest is root: there are no permission checks but vfs_exec_ok's and
 * access's X_OK.
 */
#ifndef EMU_VFS_H
#define EMU_VFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../guest/abi.h"
#include "linux_abi.h"

#define VFS_ROOT          HC_VFS_ROOT /* directory handle: the root */
#define VFS_MAX_HANDLES   4096
#define VFS_PATH_MAX      HC_VFS_PATH_MAX /* with the NUL, as Linux's PATH_MAX */
#define VFS_NAME_MAX      255
#define VFS_SYMLINK_MAX   40          /* links followed in one lookup */
#define VFS_DIR_MAX       100000      /* entries in one lower directory */
#define VFS_LRU_FDS       64          /* host descriptors held open */
#define VFS_FILE_MAX      ((1ull << 43) - 1)
#define VFS_DEFAULT_LIMIT (64ull << 20)

/* open flags: Linux's i386 values, so the kernel passes its own through */
#define VFS_O_ACCMODE   LINUX_O_ACCMODE
#define VFS_O_RDONLY    LINUX_O_RDONLY
#define VFS_O_WRONLY    LINUX_O_WRONLY
#define VFS_O_RDWR      LINUX_O_RDWR
#define VFS_O_CREAT     LINUX_O_CREAT
#define VFS_O_EXCL      LINUX_O_EXCL
#define VFS_O_TRUNC     LINUX_O_TRUNC
#define VFS_O_DIRECTORY LINUX_O_DIRECTORY
#define VFS_O_NOFOLLOW  LINUX_O_NOFOLLOW
#define VFS_O_TMPFILE   LINUX___O_TMPFILE /* not supported: EOPNOTSUPP */

#define VFS_NOFOLLOW    LINUX_AT_SYMLINK_NOFOLLOW
#define VFS_FOLLOW      LINUX_AT_SYMLINK_FOLLOW /* (link) */

#define VFS_F_OK LINUX_F_OK
#define VFS_X_OK LINUX_X_OK
#define VFS_W_OK LINUX_W_OK
#define VFS_R_OK LINUX_R_OK

#define VFS_UTIME_NOW  HC_VFS_UTIME_NOW
#define VFS_UTIME_OMIT HC_VFS_UTIME_OMIT

/* Linux's new_encode_dev: what stat64's st_dev and st_rdev hold */
#define VFS_MKDEV(ma, mi) \
    ((uint32_t)(((mi) & 0xffu) | ((uint32_t)(ma) << 8) | (((uint32_t)(mi) & ~0xffu) << 12)))

struct vfs_time {
    int64_t sec;
    uint32_t nsec;
};

struct vfs_stat {
    uint64_t dev, ino, rdev, size, blocks;   /* blocks of 512 bytes */
    uint32_t mode, nlink, uid, gid, blksize;
    struct vfs_time atime, mtime, ctime;
};

typedef struct vfs_time (*vfs_clock_fn)(void *ctx);

struct vfs_config {
    const char *lower;       /* host directory, or NULL for none */
    uint64_t limit;          /* bytes the in-memory layer may hold */
    vfs_clock_fn clock;      /* "now"; NULL: always 0 */
    void *clock_ctx;
};

/* What the host was asked for, for tests and bounds. */
struct vfs_host_stats {
    uint64_t getdents;       /* getdents64 calls on host directories */
    uint64_t listed;         /* entries those calls gave that the vfs keeps */
    uint64_t listed_bytes;   /* their records and names, in host memory */
    uint64_t opens;          /* openat2 calls */
    uint64_t preads;
    uint32_t fds_open;       /* descriptors held now, the root's aside */
    uint32_t fds_max;        /* the most held at once */
};

struct vfs;

/* NULL with a one-line message in err on failure. */
struct vfs *vfs_new(const struct vfs_config *cfg, char *err, size_t errlen);
void vfs_free(struct vfs *v);

int vfs_open(struct vfs *v, uint32_t dir, const char *path, size_t len, int flags,
             uint32_t mode);
int vfs_ref(struct vfs *v, uint32_t h);      /* one more reference to h */
int vfs_close(struct vfs *v, uint32_t h);    /* drops one reference */

/* Regular files only (a directory: EISDIR; a device: EINVAL, the kernel
 * serves those). Handles carry no open mode: the kernel checks it. */
ssize_t vfs_read(struct vfs *v, uint32_t h, void *buf, size_t len, uint64_t pos);
ssize_t vfs_write(struct vfs *v, uint32_t h, const void *buf, size_t len, uint64_t pos);
int vfs_size(struct vfs *v, uint32_t h, uint64_t *size);   /* for O_APPEND */
int vfs_ftruncate(struct vfs *v, uint32_t h, uint64_t size);
int vfs_truncate(struct vfs *v, uint32_t dir, const char *path, size_t len, uint64_t size);

int vfs_fstat(struct vfs *v, uint32_t h, struct vfs_stat *st);
int vfs_stat(struct vfs *v, uint32_t dir, const char *path, size_t len, int flags,
             struct vfs_stat *st);                            /* flags: VFS_NOFOLLOW */

/* linux_dirent64 records from *cookie on; *cookie is advanced. Bytes, 0 at
 * the end, -EINVAL if not even one record fits. */
int vfs_getdents(struct vfs *v, uint32_t h, void *buf, size_t len, uint64_t *cookie);

int vfs_mkdir(struct vfs *v, uint32_t dir, const char *path, size_t len, uint32_t mode);
int vfs_unlink(struct vfs *v, uint32_t dir, const char *path, size_t len);
int vfs_rmdir(struct vfs *v, uint32_t dir, const char *path, size_t len);
int vfs_rename(struct vfs *v, uint32_t odir, const char *opath, size_t olen,
               uint32_t ndir, const char *npath, size_t nlen);
int vfs_link(struct vfs *v, uint32_t odir, const char *opath, size_t olen,
             uint32_t ndir, const char *npath, size_t nlen, int flags); /* VFS_FOLLOW */
int vfs_symlink(struct vfs *v, const char *target, size_t tlen,
                uint32_t dir, const char *path, size_t len);
int vfs_readlink(struct vfs *v, uint32_t dir, const char *path, size_t len,
                 char *buf, size_t cap);                      /* bytes, no NUL */

int vfs_chmod(struct vfs *v, uint32_t dir, const char *path, size_t len, uint32_t mode,
              int flags);                                     /* VFS_NOFOLLOW */
int vfs_fchmod(struct vfs *v, uint32_t h, uint32_t mode);
/* uid or gid (uint32_t)-1: unchanged. As Linux since 2.2.13, even for
 * root, a non-directory loses set-user-ID, and set-group-ID if
 * group-executable. A lower regular file is copied up, as for chmod. */
int vfs_chown(struct vfs *v, uint32_t dir, const char *path, size_t len, uint32_t uid,
              uint32_t gid, int flags);                       /* VFS_NOFOLLOW */
int vfs_fchown(struct vfs *v, uint32_t h, uint32_t uid, uint32_t gid);
/* times[0] atime, times[1] mtime; NULL: both now; nsec may be
 * VFS_UTIME_NOW or VFS_UTIME_OMIT. */
int vfs_utimens(struct vfs *v, uint32_t dir, const char *path, size_t len,
                const struct vfs_time times[2], int flags);   /* VFS_NOFOLLOW */
int vfs_futimens(struct vfs *v, uint32_t h, const struct vfs_time times[2]);

int vfs_access(struct vfs *v, uint32_t dir, const char *path, size_t len, int mode,
               int flags);                                    /* VFS_NOFOLLOW */
int vfs_exec_ok(struct vfs *v, uint32_t h);  /* 0: a regular file with an x bit */
/* The absolute path of directory h, NUL-ended: its length, -ERANGE if cap
 * is too small, -ENOENT if it was removed, -ENOTDIR if not a directory. */
int vfs_path_of(struct vfs *v, uint32_t h, char *buf, size_t cap);

void vfs_usage(const struct vfs *v, uint64_t *used, uint64_t *limit);
const struct vfs_host_stats *vfs_host_stats(const struct vfs *v);

#endif
