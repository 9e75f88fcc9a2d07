/*
 * Opening: paths of the calling process and where they start (the root,
 * the working directory, a directory descriptor), open and its
 * relatives, the device nodes the kernel gives meaning to, and the
 * working directory itself (chdir, fchdir, getcwd).
 */
#include "kernel.h"
#include "file.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Linux's device numbers of the nodes the vfs makes in /dev (vfs.h). */
#define DEV_NULL VFS_RDEV(1, 3)
#define DEV_ZERO VFS_RDEV(1, 5)
#define DEV_TTY  VFS_RDEV(5, 0)
#define VFS_RDEV(ma, mi) (((ma) << 8) | (mi))

/* The path at upath into p, and the handle it starts from. */
long get_path(struct kpath *p, uint32_t dirfd, uint32_t upath, int empty_ok)
{
    long n = strncpy_from_user(p->text, upath, sizeof(p->text));
    struct file *f;

    if (n < 0)
        return n;
    if (n == (long)sizeof(p->text))
        return -ENAMETOOLONG;
    p->len = (uint32_t)n;
    if (n == 0 && !empty_ok)
        return -ENOENT;
    if (n > 0 && p->text[0] == '/') {
        p->dir = HC_VFS_ROOT;
        return 0;
    }
    if ((int32_t)dirfd == AT_FDCWD) {
        p->dir = current->cwd;
        return 0;
    }
    f = fcheck(dirfd);
    if (!f)
        return -EBADF;
    if (n == 0) {
        /* AT_EMPTY_PATH: the descriptor itself, which for a pipe or the
         * console is no node of the tree (the callers see NO_HANDLE) */
        p->dir = f->handle;
        return 0;
    }
    if (f->type != FT_VFS || !S_ISDIR(f->mode))
        return -ENOTDIR;
    p->dir = f->handle;
    return 0;
}

/* An opened node of the tree: a device the kernel serves, or a file. */
struct file *open_device(uint32_t handle, const struct hc_stat *st, uint32_t flags)
{
    uint32_t type = FT_VFS, stream = 0;

    if (S_ISCHR(st->mode) && !(flags & O_PATH)) {
        if (st->rdev == DEV_NULL)
            type = FT_NULL;
        else if (st->rdev == DEV_ZERO)
            type = FT_ZERO;
        else if (st->rdev == DEV_TTY)
            type = FT_CONSOLE;
        else
            return NULL_PTR;
        /* /dev/tty reads the emulator's stdin and writes its stderr */
        stream = (flags & O_ACCMODE) == O_RDONLY ? 0 : 2;
    }
    struct file *f = file_alloc(type, flags);
    if (f) {
        f->handle = handle;
        f->mode = st->mode;
        f->stream = stream;
    }
    return f;
}

/* What F_GETFL keeps of the open flags. */
#define KEPT_FLAGS (~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC))

static long do_open(uint32_t dirfd, uint32_t upath, uint32_t flags, uint32_t mode)
{
    static struct kpath p;
    struct hc_stat st;
    struct file *f;
    long h, err;
    int fd;

    if ((err = get_path(&p, dirfd, upath, 0)) < 0)
        return err;
    if (flags & O_PATH)
        flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    if ((h = vfs_open(p.dir, p.text, p.len, flags, mode & ~current->umask & 07777)) < 0)
        return h;
    if ((err = vfs_fstat((uint32_t)h, &st)) < 0) {
        vfs_put((uint32_t)h);
        return err;
    }
    f = open_device((uint32_t)h, &st, flags & KEPT_FLAGS);
    if (!f) {
        vfs_put((uint32_t)h);
        return S_ISCHR(st.mode) ? -ENXIO : -ENFILE;
    }
    fd = fd_alloc(f, 0, (flags & O_CLOEXEC) != 0);
    if (fd < 0)
        fput(f);
    return fd;
}

long sys_open(uint32_t upath, uint32_t flags, uint32_t mode,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_open(AT_FDCWD, upath, flags, mode);
}

long sys_openat(uint32_t dirfd, uint32_t upath, uint32_t flags,
                uint32_t mode, uint32_t a5, uint32_t a6)
{
    return do_open(dirfd, upath, flags, mode);
}

long sys_creat(uint32_t upath, uint32_t mode, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_open(AT_FDCWD, upath, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* ---- the working directory ---- */

static void set_cwd(uint32_t handle)
{
    uint32_t old = current->cwd;

    current->cwd = handle;
    vfs_put(old);
}

long sys_chdir(uint32_t upath, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    static struct kpath p;
    long err = get_path(&p, AT_FDCWD, upath, 0), h;

    if (err < 0)
        return err;
    if ((h = vfs_open(p.dir, p.text, p.len, O_DIRECTORY | O_RDONLY, 0)) < 0)
        return h;
    set_cwd((uint32_t)h);
    return 0;
}

long sys_fchdir(uint32_t fd, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fcheck(fd);

    if (!f)
        return -EBADF;
    if (f->type != FT_VFS || !S_ISDIR(f->mode))
        return -ENOTDIR;
    vfs_get(f->handle);
    set_cwd(f->handle);
    return 0;
}

long sys_getcwd(uint32_t ubuf, uint32_t size, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct hc_vfs r = { .op = VFS_PATH_OF, .handle = current->cwd,
                        .buf = (uint32_t)vfs_bounce, .len = HC_VFS_PATH_MAX };
    long len = vfs_call(&r);

    if (len == -ERANGE)
        return -ENAMETOOLONG;  /* longer than a page, as Linux's d_path */
    if (len < 0)
        return len;
    len += 1;                  /* with the NUL */
    if ((uint32_t)len > size)
        return -ERANGE;
    return copy_to_user(ubuf, vfs_bounce, len) ? -EFAULT : len;
}

long sys_umask(uint32_t mask, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t old = current->umask;

    current->umask = mask & 0777;
    return old;
}
