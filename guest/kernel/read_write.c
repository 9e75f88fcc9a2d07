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

long file_read(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos)
{
    if (!file_readable(f))
        return -EBADF;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    switch (f->type) {
    case FT_PIPE: return pipe_read(f, buf, count);
    case FT_NULL: return 0;
    case FT_ZERO: {
        static const uint8_t zeros[1024];
        uint32_t done = 0;
        while (done < count) {
            uint32_t n = count - done < sizeof(zeros) ? count - done : sizeof(zeros);
            if (copy_to_user(buf + done, zeros, n) != 0)
                return done ? (long)done : -EFAULT;
            done += n;
        }
        return done;
    }
    case FT_VFS:
        if (S_ISDIR(f->mode))
            return -EISDIR;
        /* fall through */
    default:
        return chunked(f, buf, count, pos, 0);
    }
}

long file_write(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos)
{
    if (!file_writable(f))
        return -EBADF;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    switch (f->type) {
    case FT_PIPE: return pipe_write(f, buf, count);
    case FT_NULL:
    case FT_ZERO: return count;
    case FT_VFS:
        /* O_APPEND: at the end, even for pwrite (as Linux, whatever POSIX says) */
        if ((f->flags & O_APPEND) && vfs_size(f->handle, pos) < 0)
            return -EIO;
        /* fall through */
    default:
        return chunked(f, buf, count, pos, 1);
    }
}

long sys_read(uint32_t fd, uint32_t buf, uint32_t count,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fget(fd);

    return f ? file_read(f, buf, count, &f->pos) : -EBADF;
}

long sys_write(uint32_t fd, uint32_t buf, uint32_t count,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fget(fd);

    return f ? file_write(f, buf, count, &f->pos) : -EBADF;
}

static int seekable(const struct file *f)
{
    return f->type == FT_VFS;
}

static long positioned(uint32_t fd, uint32_t buf, uint32_t count, uint64_t pos, int write)
{
    struct file *f = fget(fd);

    if (!f)
        return -EBADF;
    if (f->type == FT_PIPE || f->type == FT_CONSOLE)
        return -ESPIPE;
    if ((int64_t)pos < 0)
        return -EINVAL;
    return write ? file_write(f, buf, count, &pos) : file_read(f, buf, count, &pos);
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

static long vectored(uint32_t fd, uint32_t uiov, uint32_t iovcnt, int write)
{
    struct file *f = fget(fd);
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
        n = write ? file_write(f, iov.base, iov.len, &f->pos)
                  : file_read(f, iov.base, iov.len, &f->pos);
        if (n < 0)
            return total ? (long)total : n;
        total += n;
        if ((uint32_t)n < iov.len)
            break;
    }
    return total;
}

long sys_readv(uint32_t fd, uint32_t uiov, uint32_t iovcnt,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return vectored(fd, uiov, iovcnt, 0);
}

long sys_writev(uint32_t fd, uint32_t uiov, uint32_t iovcnt,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return vectored(fd, uiov, iovcnt, 1);
}

/* ---- lseek ---- */

static long do_seek(struct file *f, int64_t off, uint32_t whence, uint64_t *out)
{
    int64_t base;
    uint64_t size = 0;

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
    struct file *f = fget(fd);
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
    struct file *f = fget(fd);
    uint64_t pos;
    long err;

    if (!f)
        return -EBADF;
    if ((err = do_seek(f, (int64_t)(((uint64_t)hi << 32) | lo), whence, &pos)) != 0)
        return err;
    return copy_to_user(uresult, &pos, sizeof(pos));
}

long sys_ioctl(uint32_t fd, uint32_t cmd, uint32_t arg,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fget(fd);
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
    default:
        /* TCGETS and the rest: the console is the emulator's streams, which
         * are host pipes or files, never a terminal of ours. */
        return -ENOTTY;
    }
}
