/* Reading an open file of the tree: read, lseek, and mmap's private copy. */
#include "fs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Up to len bytes of f at pos into fs_bounce: bytes or -errno. */
static long host_read(const struct file *f, uint64_t pos, uint32_t len)
{
    struct hc_fs r = { f->handle, 0, 0, 0, (uint32_t)fs_bounce, len,
                       (uint32_t)pos, (uint32_t)(pos >> 32), 0 };
    long n = host_call(HC_PORT_FS_READ, &r);

    if (n > (long)len)
        panic("fs: host read %ld bytes for %u", n, len);
    return n;
}

long fs_read(uint32_t fd, uint32_t buf, uint32_t count)
{
    struct file *f = file_of(fd);
    uint32_t done = 0;

    if (!f || (f->oflags & O_PATH))
        return -EBADF;
    if (S_ISDIR(f->mode))
        return -EISDIR;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    while (done < count) {
        uint32_t chunk = count - done < FS_CHUNK ? count - done : FS_CHUNK;
        long n = host_read(f, f->pos, chunk);

        if (n < 0)
            return done ? (long)done : n;
        if (copy_to_user(buf + done, fs_bounce, n) != 0)
            return done ? (long)done : -EFAULT;
        f->pos += n;
        done += n;
        if ((uint32_t)n < chunk)
            break;
    }
    return done;
}

/* A private copy of a file for mmap: check first, then fill. */
long fs_mmap_check(uint32_t fd, uint32_t shared, uint32_t writable)
{
    struct file *f = file_of(fd);

    if (!f || (f->oflags & O_PATH))
        return -EBADF;
    if (S_ISDIR(f->mode))
        return -ENODEV;
    if (shared && writable)
        return -EACCES;
    return 0;
}

long fs_mmap_fill(uint32_t fd, uint32_t addr, uint32_t len, uint64_t offset)
{
    struct file *f = file_of(fd);
    uint32_t done = 0;

    while (f && done < len) {
        uint32_t chunk = len - done < FS_CHUNK ? len - done : FS_CHUNK;
        long n = host_read(f, offset + done, chunk);

        if (n < 0)
            return n;
        if (copy_to_user(addr + done, fs_bounce, n) != 0)
            return -EFAULT;
        done += n;
        if ((uint32_t)n < chunk)
            break;   /* past the end of the file: the pages stay zero */
    }
    return 0;
}

static long do_seek(uint32_t fd, int64_t off, uint32_t whence, uint64_t *out)
{
    struct file *f = file_of(fd);
    int64_t base;

    if (fd < FIRST_FD)
        return -ESPIPE;
    if (!f)
        return -EBADF;
    if (S_ISDIR(f->mode) && whence != SEEK_SET && !(whence == SEEK_CUR && off == 0))
        return -EINVAL;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)f->pos; break;
    case SEEK_END: base = (int64_t)f->size; break;
    case SEEK_DATA:
    case SEEK_HOLE:
        if (off < 0 || (uint64_t)off >= f->size)
            return -ENXIO;
        *out = f->pos = whence == SEEK_DATA ? (uint64_t)off : f->size;
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
    uint64_t pos;
    struct file *f = file_of(fd);
    uint64_t old = f ? f->pos : 0;
    long err = do_seek(fd, (int32_t)off, whence, &pos);

    if (err)
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
    uint64_t pos;
    long err = do_seek(fd, (int64_t)(((uint64_t)hi << 32) | lo), whence, &pos);

    if (err)
        return err;
    return copy_to_user(uresult, &pos, sizeof(pos));
}
