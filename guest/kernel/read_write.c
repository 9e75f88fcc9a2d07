/*
 * The console: descriptors 0, 1 and 2 are the emulator's stdin, stdout
 * and stderr, reached through the HC_PORT_READ/WRITE hypercalls; reads of
 * higher descriptors go to the --root tree (file.c).
 */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define CHUNK   4096
#define IOV_MAX 1024

/* One bounce buffer: there is one task and system calls do not nest. */
static uint8_t bounce[CHUNK];

static long host_io(unsigned port, uint32_t fd, uint32_t len)
{
    struct hc_io io = { fd, (uint32_t)bounce, len, 0 };

    hypercall(port, &io);
    return io.result;
}

long sys_read(uint32_t fd, uint32_t buf, uint32_t count,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t done = 0;

    if (fd > 2)
        return fs_read(fd, buf, count);
    if (fd != 0)
        return -EBADF;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    /* A short chunk means the host had no more for now (a pipe or a
     * terminal): return what we have rather than block for more. */
    while (done < count) {
        uint32_t chunk = count - done < CHUNK ? count - done : CHUNK;
        long n = host_io(HC_PORT_READ, fd, chunk);

        if (n < 0)
            return done ? (long)done : n;
        if (n > (long)chunk)
            panic("read: host returned %ld for %u bytes", n, chunk);
        if (copy_to_user(buf + done, bounce, n) != 0)
            return done ? (long)done : -EFAULT;
        done += n;
        if ((uint32_t)n < chunk)
            break;
    }
    return done;
}

static long do_write(uint32_t fd, uint32_t buf, uint32_t count)
{
    uint32_t done = 0;

    if (fd != 1 && fd != 2)
        return -EBADF;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    while (done < count) {
        uint32_t chunk = count - done < CHUNK ? count - done : CHUNK;
        long n;

        if (copy_from_user(bounce, buf + done, chunk) != 0)
            return done ? (long)done : -EFAULT;
        n = host_io(HC_PORT_WRITE, fd, chunk);
        if (n < 0)
            return done ? (long)done : n;
        if (n > (long)chunk)
            panic("write: host returned %ld for %u bytes", n, chunk);
        done += n;
        if ((uint32_t)n < chunk)
            break;
    }
    return done;
}

long sys_write(uint32_t fd, uint32_t buf, uint32_t count,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_write(fd, buf, count);
}

struct iovec32 {
    uint32_t base, len;
};

long sys_writev(uint32_t fd, uint32_t uiov, uint32_t iovcnt,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct iovec32 iov;
    uint32_t total = 0, i;
    long n;

    if (fd != 1 && fd != 2)
        return -EBADF;
    if (iovcnt > IOV_MAX)
        return -EINVAL;
    if (!access_ok(uiov, iovcnt * sizeof(iov)))
        return -EFAULT;

    /* Check every vector before writing anything, as Linux does. */
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
        n = do_write(fd, iov.base, iov.len);
        if (n < 0)
            return total ? (long)total : n;
        total += n;
        if ((uint32_t)n < iov.len)
            break;
    }
    return total;
}

long sys_ioctl(uint32_t fd, uint32_t cmd, uint32_t arg,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    /* TCGETS and the rest: the standard streams are host pipes or files,
     * never a terminal of ours; nor is a file of the --root tree. */
    return fs_ioctl(fd);
}
