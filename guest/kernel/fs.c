/* The descriptor table and the buffers; closing a file; the one directory. */
#include "fs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

struct file files[HC_FS_MAX_FILES];
uint8_t fs_bounce[FS_CHUNK];

int fs_fd_open(uint32_t fd)
{
    return fd < FIRST_FD || file_of(fd) != NULL_PTR;
}

long sys_close(uint32_t fd, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = file_of(fd);
    struct hc_fs r = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };

    if (fd < FIRST_FD)
        return 0;   /* the console stays */
    if (!f)
        return -EBADF;
    r.handle = f->handle;
    host_call(HC_PORT_FS_CLOSE, &r);
    f->used = 0;
    return 0;
}

long sys_getcwd(uint32_t ubuf, uint32_t size, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    if (size < 2)
        return -ERANGE;
    return copy_to_user(ubuf, "/", 2) ? -EFAULT : 2;
}

long fs_ioctl(uint32_t fd)
{
    /* TCGETS and the rest: no descriptor here is a terminal of ours. */
    return fs_fd_open(fd) ? -ENOTTY : -EBADF;
}
