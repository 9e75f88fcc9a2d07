/* fcntl on descriptors: the console's and the tree's. */
#include "fs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_fcntl64(uint32_t fd, uint32_t cmd, uint32_t arg,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = file_of(fd);

    if (fd >= FIRST_FD && !f)
        return -EBADF;
    switch (cmd) {
    case F_GETFD:
        return f && f->cloexec ? FD_CLOEXEC : 0;
    case F_SETFD:
        if (f)
            f->cloexec = (arg & FD_CLOEXEC) != 0;
        return 0;
    case F_GETFL:
        return f ? (long)(f->oflags & ~O_CLOEXEC) : (fd == 0 ? 0 : 1);
    case F_SETFL:
        return 0;   /* O_NONBLOCK and friends change nothing here */
    case F_DUPFD:
    default:
        return -EINVAL;
    }
}
