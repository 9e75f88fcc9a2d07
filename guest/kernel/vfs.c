/* The kernel's side of the file tree's requests (vfs.h). */
#include "vfs.h"

uint8_t vfs_bounce[VFS_CHUNK];

long vfs_call(struct hc_vfs *r)
{
    hypercall(HC_PORT_VFS, r);
    return r->result;
}

long vfs_path_op(uint32_t op, uint32_t dir, const char *path, uint32_t len,
                 struct hc_vfs *r)
{
    r->op = op;
    r->handle = dir;
    r->path = (uint32_t)path;
    r->path_len = len;
    return vfs_call(r);
}

long vfs_open(uint32_t dir, const char *path, uint32_t len, uint32_t flags, uint32_t mode)
{
    struct hc_vfs r = { .flags = flags, .mode = mode };

    return vfs_path_op(VFS_OPEN, dir, path, len, &r);
}

void vfs_get(uint32_t h)
{
    struct hc_vfs r = { .op = VFS_REF, .handle = h };

    if (vfs_call(&r))
        panic("vfs: a reference to handle %u that is not there", h);
}

void vfs_put(uint32_t h)
{
    struct hc_vfs r = { .op = VFS_CLOSE, .handle = h };

    if (vfs_call(&r))
        panic("vfs: closing handle %u that is not there", h);
}

static long vfs_io(uint32_t op, uint32_t h, const void *buf, uint32_t len, uint64_t pos)
{
    struct hc_vfs r = { .op = op, .handle = h, .buf = (uint32_t)buf, .len = len,
                        .pos_lo = (uint32_t)pos, .pos_hi = (uint32_t)(pos >> 32) };
    long n = vfs_call(&r);

    if (n > (long)len)
        panic("vfs: %ld bytes moved for %u", n, len);
    return n;
}

long vfs_pread(uint32_t h, void *buf, uint32_t len, uint64_t pos)
{
    return vfs_io(VFS_READ, h, buf, len, pos);
}

long vfs_pwrite(uint32_t h, const void *buf, uint32_t len, uint64_t pos)
{
    return vfs_io(VFS_WRITE, h, buf, len, pos);
}

long vfs_fstat(uint32_t h, struct hc_stat *st)
{
    struct hc_vfs r = { .op = VFS_FSTAT, .handle = h, .buf = (uint32_t)st, .len = sizeof(*st) };

    return vfs_call(&r);
}

long vfs_stat(uint32_t dir, const char *path, uint32_t len, uint32_t flags,
              struct hc_stat *st)
{
    struct hc_vfs r = { .flags = flags, .buf = (uint32_t)st, .len = sizeof(*st) };

    return vfs_path_op(VFS_STAT, dir, path, len, &r);
}

long vfs_size(uint32_t h, uint64_t *size)
{
    struct hc_vfs r = { .op = VFS_SIZE, .handle = h };
    long err = vfs_call(&r);

    *size = ((uint64_t)r.pos_hi << 32) | r.pos_lo;
    return err;
}

long vfs_exec_ok(uint32_t h)
{
    struct hc_vfs r = { .op = VFS_EXEC_OK, .handle = h };

    return vfs_call(&r);
}
