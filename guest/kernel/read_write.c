/*
 * read, write and their vector and positioned forms, lseek and ioctl, on
 * every kind of open file (file.h). Bytes of the tree and of the console
 * pass through a kernel bounce buffer in VFS_CHUNK pieces; a pipe copies
 * straight between user memory and its ring (pipe.c).
 */
#include "kernel.h"
#include "file.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define IOV_MAX 1024
#define TCGETS  0x5401
#define TIOCGWINSZ 0x5413
#define TERMIOS_SIZE 36   /* the kernel's struct termios: 4 flags, c_line, 19 c_cc */
#define WINSIZE_SIZE 8
#define FIONBIO 0x5421
#define FIOCLEX 0x5451
#define FIONCLEX 0x5450

/* The console: one hypercall per chunk to the emulator's stdin or output. */
static long console_io(unsigned port, uint32_t stream, uint32_t len)
{
    struct hc_io io = { stream, (uint32_t)vfs_bounce, len, 0 };

    hypercall(port, &io);
    if (io.result > (int32_t)len)
        panic("console: %d bytes for %u", io.result, len);
    return io.result;
}

/* One request about a boot console (its stream is the emulator's 0-2). */
long console_call(uint32_t op, const struct file *f, struct hc_console *c)
{
    c->op = op;
    c->fd = f->stream;
    hypercall(HC_PORT_CONSOLE, c);
    return c->result;
}

/* The emulator's own descriptors, not /dev/tty (a node of the tree). */
int boot_console(const struct file *f)
{
    return f->type == FT_CONSOLE && f->handle == NO_HANDLE;
}

static long console_pread(struct file *f, uint32_t buf, uint32_t count, uint64_t pos)
{
    struct hc_console c = { .offset_lo = (uint32_t)pos, .offset_hi = (uint32_t)(pos >> 32),
                            .buf = (uint32_t)vfs_bounce };
    long n;

    c.len = count < VFS_CHUNK ? count : VFS_CHUNK;
    if (!access_ok(buf, count))
        return -EFAULT;
    n = console_call(CONSOLE_PREAD, f, &c);
    if (n > 0 && copy_to_user(buf, vfs_bounce, n) != 0)
        return -EFAULT;
    return n;
}

typedef long (*chunk_fn)(struct file *f, uint32_t len, uint64_t pos);

static long read_chunk(struct file *f, uint32_t len, uint64_t pos)
{
    if (f->type == FT_CONSOLE)
        return console_io(HC_PORT_READ, f->stream, len);
    return vfs_pread(f->handle, vfs_bounce, len, pos);
}

static long write_chunk(struct file *f, uint32_t len, uint64_t pos)
{
    if (f->type == FT_CONSOLE)
        return console_io(HC_PORT_WRITE, f->stream, len);
    return vfs_pwrite(f->handle, vfs_bounce, len, pos);
}

/* Move count bytes in bounce-sized chunks; a short chunk ends it (the host
 * had no more for now, or the file ended). */
static long chunked(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos, int write)
{
    uint32_t done = 0;

    while (done < count) {
        uint32_t chunk = count - done < VFS_CHUNK ? count - done : VFS_CHUNK;
        long n;

        if (write && copy_from_user(vfs_bounce, buf + done, chunk) != 0)
            return done ? (long)done : -EFAULT;
        n = write ? write_chunk(f, chunk, *pos) : read_chunk(f, chunk, *pos);
        if (n < 0)
            return done ? (long)done : n;
        if (!write && copy_to_user(buf + done, vfs_bounce, n) != 0)
            return done ? (long)done : -EFAULT;
        done += n;
        *pos += n;
        if ((uint32_t)n < chunk)
            break;
    }
    return done;
}

static long tree_read(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos)
{
    if (S_ISDIR(f->mode))
        return -EISDIR;
    return chunked(f, buf, count, pos, 0);
}

static long tree_write(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos)
{
    /* O_APPEND: at the end, even for pwrite (as Linux, whatever POSIX says) */
    if ((f->flags & O_APPEND) && vfs_size(f->handle, pos) < 0)
        return -EIO;
    return chunked(f, buf, count, pos, 1);
}

static long console_read(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos)
{
    return chunked(f, buf, count, pos, 0);
}

static long console_write(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos)
{
    return chunked(f, buf, count, pos, 1);
}

const struct file_operations vfs_file_fops = { .read = tree_read, .write = tree_write };
const struct file_operations console_fops = { .read = console_read, .write = console_write };

#define FLOCK_VERIFY_READ  1
#define FLOCK_VERIFY_WRITE 2

/* No record locks here, so never a mandatory one in the way. */
static inline long locks_verify_area(int read_write, struct file *f, uint64_t pos,
                                     uint32_t count)
{
    (void)read_write, (void)pos, (void)count;
    if (f->f_flock)
        return -EAGAIN;
    return 0;
}

#define DN_ACCESS 0x00000001
#define DN_MODIFY 0x00000002

static rwlock_t dparent_lock = RW_LOCK_UNLOCKED;

/* Nobody watches a directory here (no dnotify): the mask is always 0. */
static inline void dnotify_parent(struct file *f, uint32_t event)
{
    read_lock(&dparent_lock);
    if (f->f_dnotify_mask & event)
        panic("dnotify: no directory notification in this kernel");
    read_unlock(&dparent_lock);
}

/* Today's Linux's limits on a transfer, which 2.5.53 did not check here:
 * the tests compare with it. */
static inline long rw_limits(uint32_t buf, uint32_t *count)
{
    if (*count > MAX_RW_COUNT)
        *count = MAX_RW_COUNT;
    return access_ok(buf, *count) ? 0 : -EFAULT;
}

long vfs_read(struct file *file, uint32_t buf, uint32_t count, uint64_t *pos)
{
    long ret;

    if (!(file->f_mode & FMODE_READ))
        return -EBADF;
    if (!file->f_op || !file->f_op->read)
        return -EINVAL;
    if ((ret = rw_limits(buf, &count)) != 0)
        return ret;
    ret = locks_verify_area(FLOCK_VERIFY_READ, file, *pos, count);
    if (!ret) {
        ret = file->f_op->read(file, buf, count, pos);
        if (ret > 0)
            dnotify_parent(file, DN_ACCESS);
    }
    return ret;
}

long vfs_write(struct file *file, uint32_t buf, uint32_t count, uint64_t *pos)
{
    long ret;

    if (!(file->f_mode & FMODE_WRITE))
        return -EBADF;
    if (!file->f_op || !file->f_op->write)
        return -EINVAL;
    if ((ret = rw_limits(buf, &count)) != 0)
        return ret;
    ret = locks_verify_area(FLOCK_VERIFY_WRITE, file, *pos, count);
    if (!ret) {
        ret = file->f_op->write(file, buf, count, pos);
        if (ret > 0)
            dnotify_parent(file, DN_MODIFY);
    }
    return ret;
}

long sys_read(uint32_t fd, uint32_t buf, uint32_t count,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *file;
    long ret = -EBADF;

    file = fget(fd);
    if (file) {
        ret = vfs_read(file, buf, count, &file->pos);
        fput(file);
    }
    return ret;
}

long sys_write(uint32_t fd, uint32_t buf, uint32_t count,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *file;
    long ret = -EBADF;

    file = fget(fd);
    if (file) {
        ret = vfs_write(file, buf, count, &file->pos);
        fput(file);
    }
    return ret;
}

static int seekable(const struct file *f)
{
    return f->type == FT_VFS;
}

static long positioned(uint32_t fd, uint32_t buf, uint32_t count, uint64_t pos, int write)
{
    struct file *f;
    long ret;

    if ((int64_t)pos < 0)
        return -EINVAL;
    f = fget(fd);
    if (!f)
        return -EBADF;
    if (boot_console(f) && !write)
        ret = console_pread(f, buf, count, pos);
    else if (f->type == FT_PIPE || f->type == FT_CONSOLE)
        ret = -ESPIPE;
    else
        ret = write ? vfs_write(f, buf, count, &pos) : vfs_read(f, buf, count, &pos);
    fput(f);
    return ret;
}

long sys_pread64(uint32_t fd, uint32_t buf, uint32_t count,
                 uint32_t lo, uint32_t hi, uint32_t a6)
{
    return positioned(fd, buf, count, ((uint64_t)hi << 32) | lo, 0);
}

long sys_pwrite64(uint32_t fd, uint32_t buf, uint32_t count,
                  uint32_t lo, uint32_t hi, uint32_t a6)
{
    return positioned(fd, buf, count, ((uint64_t)hi << 32) | lo, 1);
}

struct iovec32 {
    uint32_t base, len;
};

static long vectored(struct file *f, uint32_t uiov, uint32_t iovcnt, int write)
{
    struct iovec32 iov;
    uint32_t total = 0, i;
    long n;

    if (!f)
        return -EBADF;
    if (iovcnt > IOV_MAX)
        return -EINVAL;
    if (!access_ok(uiov, iovcnt * sizeof(iov)))
        return -EFAULT;
    /* Check every vector before moving anything, as Linux does. */
    for (i = 0; i < iovcnt; i++) {
        if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)) != 0)
            return -EFAULT;
        if (iov.len > MAX_RW_COUNT - total)
            return -EINVAL;
        if (!access_ok(iov.base, iov.len))
            return -EFAULT;
        total += iov.len;
    }
    total = 0;
    for (i = 0; i < iovcnt; i++) {
        if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)) != 0)
            return total ? (long)total : -EFAULT;
        if (iov.len == 0)
            continue;
        n = write ? vfs_write(f, iov.base, iov.len, &f->pos)
                  : vfs_read(f, iov.base, iov.len, &f->pos);
        if (n < 0)
            return total ? (long)total : n;
        total += n;
        if ((uint32_t)n < iov.len)
            break;
    }
    return total;
}

static long with_file(uint32_t fd, uint32_t uiov, uint32_t iovcnt, int write)
{
    struct file *f = fget(fd);
    long ret;

    if (!f)
        return -EBADF;
    ret = vectored(f, uiov, iovcnt, write);
    fput(f);
    return ret;
}

long sys_readv(uint32_t fd, uint32_t uiov, uint32_t iovcnt,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return with_file(fd, uiov, iovcnt, 0);
}

long sys_writev(uint32_t fd, uint32_t uiov, uint32_t iovcnt,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return with_file(fd, uiov, iovcnt, 1);
}

/* ---- lseek ---- */

/* The host file's one offset, shared by every process that inherited it. */
static long console_seek(struct file *f, int64_t off, uint32_t whence, uint64_t *out)
{
    struct hc_console c = { .offset_lo = (uint32_t)off, .offset_hi = (uint32_t)(off >> 32),
                            .whence = whence };
    long err = console_call(CONSOLE_SEEK, f, &c);

    if (!err)
        *out = ((uint64_t)c.offset_hi << 32) | c.offset_lo;
    return err;
}

static long do_seek(struct file *f, int64_t off, uint32_t whence, uint64_t *out)
{
    int64_t base;
    uint64_t size = 0;

    if (boot_console(f))
        return console_seek(f, off, whence, out);

    if (f->type == FT_NULL || f->type == FT_ZERO) {
        *out = f->pos = 0;
        return 0;
    }
    if (!seekable(f) || (f->flags & O_PATH))
        return f->flags & O_PATH ? -EBADF : -ESPIPE;
    if (S_ISDIR(f->mode)) {
        /* a directory's position is a getdents cookie: only back to the
         * start, or to where it is */
        if (whence == SEEK_SET && off == 0) {
            *out = f->pos = 0;
            return 0;
        }
        if (whence == SEEK_CUR && off == 0) {
            *out = f->pos;
            return 0;
        }
        return -EINVAL;
    }
    if (whence == SEEK_END || whence == SEEK_DATA || whence == SEEK_HOLE)
        if (vfs_size(f->handle, &size) < 0)
            return -EIO;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)f->pos; break;
    case SEEK_END: base = (int64_t)size; break;
    case SEEK_DATA:
    case SEEK_HOLE:
        if (off < 0 || (uint64_t)off >= size)
            return -ENXIO;
        *out = f->pos = whence == SEEK_DATA ? (uint64_t)off : size;
        return 0;
    default: return -EINVAL;
    }
    if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
        return -EINVAL;
    *out = f->pos = (uint64_t)(base + off);
    return 0;
}

long sys_lseek(uint32_t fd, uint32_t off, uint32_t whence,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fcheck(fd);
    uint64_t pos, old;
    long err;

    if (!f)
        return -EBADF;
    old = f->pos;
    if ((err = do_seek(f, (int32_t)off, whence, &pos)) != 0)
        return err;
    if (pos > 0x7fffffffu) {
        f->pos = old;
        return -EOVERFLOW;
    }
    return (long)pos;
}

long sys_llseek(uint32_t fd, uint32_t hi, uint32_t lo, uint32_t uresult,
                uint32_t whence, uint32_t a6)
{
    struct file *f = fcheck(fd);
    uint64_t pos;
    long err;

    if (!f)
        return -EBADF;
    if ((err = do_seek(f, (int64_t)(((uint64_t)hi << 32) | lo), whence, &pos)) != 0)
        return err;
    return copy_to_user(uresult, &pos, sizeof(pos));
}

/* A terminal's settings or size, read from the host's terminal. */
static long console_ioctl(struct file *f, uint32_t cmd, uint32_t arg)
{
    uint32_t len = cmd == TCGETS ? TERMIOS_SIZE : WINSIZE_SIZE;
    struct hc_console c = { .whence = cmd, .buf = (uint32_t)vfs_bounce, .len = len };
    long err = console_call(CONSOLE_IOCTL, f, &c);

    if (err)
        return err;
    return copy_to_user(arg, vfs_bounce, len) ? -EFAULT : 0;
}

long sys_ioctl(uint32_t fd, uint32_t cmd, uint32_t arg,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fcheck(fd);
    uint32_t on;

    if (!f)
        return -EBADF;
    switch (cmd) {
    case FIONBIO:
        if (get_user_u32(&on, arg))
            return -EFAULT;
        f->flags = on ? f->flags | O_NONBLOCK : f->flags & ~O_NONBLOCK;
        return 0;
    case FIOCLEX:
    case FIONCLEX:
        return sys_fcntl64(fd, F_SETFD, cmd == FIOCLEX, 0, 0, 0);
    case TCGETS:
    case TIOCGWINSZ:
        if (boot_console(f))
            return console_ioctl(f, cmd, arg);
        return -ENOTTY;
    default:
        /* the rest: no terminal is ours to change */
        return -ENOTTY;
    }
}
