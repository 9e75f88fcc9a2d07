/*
 * Open file descriptions and descriptor tables: allocation, sharing by dup
 * and fork, the lowest-free-descriptor rule, close-on-exec, and the calls
 * on descriptors themselves (close, dup, dup2, dup3, fcntl).
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static const struct file_operations *fops_of(uint32_t type, uint32_t flags)
{
    switch (type) {
    case FT_PIPE:
        return (flags & O_ACCMODE) == O_RDONLY ? &read_pipe_fops : &write_pipe_fops;
    case FT_CONSOLE: return &console_fops;
    case FT_NULL: return &null_fops;
    case FT_ZERO: return &zero_fops;
    default: return &vfs_file_fops;
    }
}

struct file *file_alloc(uint32_t type, uint32_t flags)
{
    struct file *f = kzalloc(sizeof(*f));

    if (f) {
        atomic_set(&f->f_count, 1);
        f->type = type;
        f->flags = flags;
        f->f_op = fops_of(type, flags);
        f->handle = NO_HANDLE;
        f->f_mode = (file_readable(f) ? FMODE_READ : 0) | (file_writable(f) ? FMODE_WRITE : 0);
    }
    return f;
}

static void __fput(struct file *f)
{
    if (f->type == FT_PIPE)
        pipe_release(f);
    if (f->handle != NO_HANDLE)
        vfs_put(f->handle);
    kfree_obj(f);
}

fastcall void fput(struct file *f)
{
    if (atomic_dec_and_test(&f->f_count))
        __fput(f);
}

int file_readable(const struct file *f)
{
    return !(f->flags & O_PATH) && (f->flags & O_ACCMODE) != O_WRONLY;
}

int file_writable(const struct file *f)
{
    return !(f->flags & O_PATH) && (f->flags & O_ACCMODE) != O_RDONLY;
}

/* ---- descriptor tables ---- */

static int is_cloexec(const struct files_struct *fs, uint32_t fd)
{
    return (fs->cloexec[fd / 32] >> (fd % 32)) & 1;
}

static void set_cloexec(struct files_struct *fs, uint32_t fd, int on)
{
    if (on)
        fs->cloexec[fd / 32] |= 1u << (fd % 32);
    else
        fs->cloexec[fd / 32] &= ~(1u << (fd % 32));
}

static inline struct file *fcheck_files(struct files_struct *files, uint32_t fd)
{
    return fd < files->max_fds ? files->fd[fd] : NULL_PTR;
}

struct file *fcheck(uint32_t fd)
{
    return fcheck_files(current->files, fd);
}

fastcall struct file *fget(uint32_t fd)
{
    struct files_struct *files = current->files;
    struct file *file;

    read_lock(&files->file_lock);
    file = fcheck_files(files, fd);
    if (file)
        get_file(file);
    read_unlock(&files->file_lock);
    return file;
}

static void install(struct files_struct *fs, uint32_t fd, struct file *f, int cloexec)
{
    fs->fd[fd] = f;
    set_cloexec(fs, fd, cloexec);
}

int fd_alloc(struct file *f, uint32_t from, int cloexec)
{
    struct files_struct *fs = current->files;

    for (uint32_t fd = from; fd < OPEN_MAX; fd++) {
        if (!fs->fd[fd]) {
            install(fs, fd, f, cloexec);
            return (int)fd;
        }
    }
    return -EMFILE;
}

int fd_close(uint32_t fd)
{
    struct files_struct *fs = current->files;
    struct file *f = fcheck(fd);

    if (!f)
        return -EBADF;
    fs->fd[fd] = NULL_PTR;
    set_cloexec(fs, fd, 0);
    fput(f);
    return 0;
}

struct files_struct *files_alloc(void)
{
    struct files_struct *fs = kzalloc(sizeof(*fs));

    if (!fs)
        return NULL_PTR;
    fs->file_lock = (rwlock_t)RW_LOCK_UNLOCKED;
    fs->max_fds = OPEN_MAX;
    fs->fd = get_zeroed_page();
    if (!fs->fd) {
        kfree_obj(fs);
        return NULL_PTR;
    }
    return fs;
}

static void files_free(struct files_struct *fs)
{
    for (uint32_t fd = 0; fd < OPEN_MAX; fd++)
        if (fs->fd[fd])
            fput(fs->fd[fd]);
    free_pages(fs->fd, 1);
    kfree_obj(fs);
}

/* fork: the same open files behind a copy of the table. */
struct files_struct *dup_files(struct files_struct *old)
{
    struct files_struct *fs = files_alloc();

    if (!fs)
        return NULL_PTR;
    for (uint32_t fd = 0; fd < OPEN_MAX; fd++) {
        if (old->fd[fd]) {
            get_file(old->fd[fd]);
            install(fs, fd, old->fd[fd], is_cloexec(old, fd));
        }
    }
    return fs;
}

void exit_files(struct task_struct *t)
{
    if (t->files) {
        files_free(t->files);
        t->files = NULL_PTR;
    }
}

void close_on_exec(struct files_struct *fs)
{
    for (uint32_t fd = 0; fd < OPEN_MAX; fd++) {
        if (fs->fd[fd] && is_cloexec(fs, fd)) {
            fput(fs->fd[fd]);
            fs->fd[fd] = NULL_PTR;
            set_cloexec(fs, fd, 0);
        }
    }
}

/* The boot program's 0, 1 and 2: the emulator's stdin, stdout, stderr. */
int console_files(struct files_struct *fs)
{
    static const uint32_t flags[3] = { O_RDONLY, O_WRONLY, O_WRONLY };

    for (uint32_t fd = 0; fd < 3; fd++) {
        struct file *f = file_alloc(FT_CONSOLE, flags[fd]);
        if (!f)
            return -ENOMEM;
        f->stream = fd;
        f->mode = S_IFCHR | 0620;
        install(fs, fd, f, 0);
    }
    return 0;
}

/* ---- the calls ---- */

long sys_close(uint32_t fd, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return fd_close(fd);
}

long sys_dup(uint32_t fd, uint32_t a2, uint32_t a3,
             uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fcheck(fd);
    int nfd;

    if (!f)
        return -EBADF;
    get_file(f);
    nfd = fd_alloc(f, 0, 0);
    if (nfd < 0)
        fput(f);
    return nfd;
}

static long do_dup3(uint32_t oldfd, uint32_t newfd, uint32_t flags)
{
    struct files_struct *fs = current->files;
    struct file *f = fcheck(oldfd), *old;

    if (!f)
        return -EBADF;
    if (newfd >= OPEN_MAX)
        return -EBADF;
    get_file(f);
    old = fs->fd[newfd];
    install(fs, newfd, f, (flags & O_CLOEXEC) != 0);
    if (old)
        fput(old);
    return newfd;
}

long sys_dup2(uint32_t oldfd, uint32_t newfd, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    if (oldfd == newfd)
        return fcheck(oldfd) ? (long)newfd : -EBADF;
    return do_dup3(oldfd, newfd, 0);
}

long sys_dup3(uint32_t oldfd, uint32_t newfd, uint32_t flags,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    if (flags & ~O_CLOEXEC)
        return -EINVAL;
    if (oldfd == newfd)
        return -EINVAL;
    return do_dup3(oldfd, newfd, flags);
}

static rwlock_t fasync_lock = RW_LOCK_UNLOCKED;

void kill_fasync(struct fasync_struct **fp, int sig, int band)
{
    read_lock(&fasync_lock);
    if (*fp)
        panic("kill_fasync: signal %d, band %d: no O_ASYNC in this kernel", sig, band);
    read_unlock(&fasync_lock);
}

/* What F_SETFL may change. */
#define SETFL_MASK (O_APPEND | O_NONBLOCK)

long sys_fcntl64(uint32_t fd, uint32_t cmd, uint32_t arg,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct files_struct *fs = current->files;
    struct file *f = fcheck(fd);
    int nfd;

    if (!f)
        return -EBADF;
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        if (arg >= OPEN_MAX)
            return -EINVAL;
        get_file(f);
        nfd = fd_alloc(f, arg, cmd == F_DUPFD_CLOEXEC);
        if (nfd < 0)
            fput(f);
        return nfd;
    case F_GETFD:
        return is_cloexec(fs, fd) ? FD_CLOEXEC : 0;
    case F_SETFD:
        set_cloexec(fs, fd, (arg & FD_CLOEXEC) != 0);
        return 0;
    case F_GETFL:
        return (long)(f->flags & ~O_CLOEXEC);
    case F_SETFL:
        f->flags = (f->flags & ~SETFL_MASK) | (arg & SETFL_MASK);
        return 0;
    default:
        return -EINVAL;
    }
}

/* mmap of descriptor fd: the handle its pages come from (NO_FILE for
 * /dev/zero, which maps anonymous memory), and what mprotect may add. A
 * shared writable mapping of a file is not supported: ENODEV. */
long file_mmap_check(uint32_t fd, int shared, int writable, uint32_t *handle,
                     uint32_t *vm_flags)
{
    struct file *f = fcheck(fd);

    if (!f || (f->flags & O_PATH))
        return -EBADF;
    if (f->type == FT_ZERO) {
        *handle = NO_FILE;
        return 0;
    }
    if (f->type != FT_VFS || !S_ISREG(f->mode))
        return -ENODEV;
    if (!file_readable(f))
        return -EACCES;
    if (shared && writable)
        return file_writable(f) ? -ENODEV : -EACCES;
    if (shared)
        *vm_flags &= ~VM_MAYWRITE;
    *handle = f->handle;
    return 0;
}
