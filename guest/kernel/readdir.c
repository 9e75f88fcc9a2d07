/* Reading a directory of the tree: getdents64, and the old getdents. */
#include "kernel.h"
#include "file.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* linux_dirent64 records of f from its cookie, into vfs_bounce. */
static long read_dir(struct file *f, uint32_t count)
{
    struct hc_vfs r = { .op = VFS_GETDENTS, .handle = f->handle, .buf = (uint32_t)vfs_bounce,
                        .len = count < VFS_CHUNK ? count : VFS_CHUNK,
                        .pos_lo = (uint32_t)f->pos, .pos_hi = (uint32_t)(f->pos >> 32) };
    long n;

    if (f->type != FT_VFS || (f->flags & O_PATH))
        return -EBADF;
    if (!S_ISDIR(f->mode))
        return -ENOTDIR;
    n = vfs_call(&r);
    if (n > (long)r.len)
        panic("vfs: getdents of %ld bytes for %u", n, r.len);
    if (n > 0)
        f->pos = ((uint64_t)r.pos_hi << 32) | r.pos_lo;
    return n;
}

long sys_getdents64(uint32_t fd, uint32_t udirp, uint32_t count,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fcheck(fd);
    long n;

    if (!f)
        return -EBADF;
    if (!access_ok(udirp, count))
        return -EFAULT;
    if ((n = read_dir(f, count)) <= 0)
        return n;
    return copy_to_user(udirp, vfs_bounce, n) ? -EFAULT : n;
}

struct dirent64_head {
    uint64_t ino;
    int64_t off;
    uint16_t reclen;
    uint8_t type;
} __attribute__((packed));

/*
 * The old layout: d_ino and d_off of 32 bits, d_reclen, the name, and the
 * type in the record's last byte. Each record is no longer than its
 * dirent64 (8 bytes smaller heads, 1 more at the end): read as many new
 * records as fit, rewrite them in place, stop before one that overflows.
 */
long sys_getdents(uint32_t fd, uint32_t udirp, uint32_t count,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct file *f = fcheck(fd);
    uint8_t *out = vfs_bounce;
    uint32_t in = 0, done = 0;
    uint64_t start;
    long n;

    if (!f)
        return -EBADF;
    if (!access_ok(udirp, count))
        return -EFAULT;
    start = f->pos;
    if ((n = read_dir(f, count)) <= 0)
        return n;
    while (in < (uint32_t)n) {
        struct dirent64_head h;
        memcpy(&h, vfs_bounce + in, sizeof(h));
        const char *name = (const char *)vfs_bounce + in + sizeof(h);
        uint32_t len = strlen(name), reclen = (10 + len + 2 + 3) & ~3u;
        if (h.ino > 0xffffffffu) {
            f->pos = start;
            return done ? (long)done : -EOVERFLOW;
        }
        uint32_t ino = (uint32_t)h.ino, off = (uint32_t)h.off;
        uint16_t rl = (uint16_t)reclen;
        memmove(out + done + 10, name, len + 1);
        memcpy(out + done, &ino, 4);
        memcpy(out + done + 4, &off, 4);
        memcpy(out + done + 8, &rl, 2);
        out[done + reclen - 1] = h.type;
        done += reclen;
        start = (uint64_t)h.off;
        in += h.reclen;
    }
    f->pos = start;
    return copy_to_user(udirp, vfs_bounce, done) ? -EFAULT : (long)done;
}
