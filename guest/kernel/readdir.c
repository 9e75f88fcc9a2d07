/* Reading a directory of the tree. */
#include "fs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_getdents64(uint32_t fd, uint32_t udirp, uint32_t count,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = file_of(fd);
    struct hc_fs r;
    long n;

    if (!f || (f->oflags & O_PATH))
        return -EBADF;
    if (!S_ISDIR(f->mode))
        return -ENOTDIR;
    if (!access_ok(udirp, count))
        return -EFAULT;
    r = (struct hc_fs){ f->handle, 0, 0, 0, (uint32_t)fs_bounce,
                        count < FS_CHUNK ? count : FS_CHUNK,
                        (uint32_t)f->pos, (uint32_t)(f->pos >> 32), 0 };
    n = host_call(HC_PORT_FS_GETDENTS, &r);
    if (n <= 0)
        return n;
    if (n > (long)r.len)
        panic("fs: host getdents %ld bytes for %u", n, r.len);
    if (copy_to_user(udirp, fs_bounce, n) != 0)
        return -EFAULT;
    f->pos = ((uint64_t)r.pos_hi << 32) | r.pos_lo;
    return n;
}
