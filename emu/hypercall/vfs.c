/*
 * HC_PORT_VFS: the kernel's requests on the file tree. Paths and data are
 * in kernel memory (the kernel copies user memory in and out itself); a
 * buffer that is not wholly there is -EFAULT. The vfs bounds host memory and
 * time per request (vfs.h); here only the sizes the ABI allows are checked.
 */
#include "hypercall/vfs.h"
#include "cost/centi.h"
#include <errno.h>
#include <string.h>
#include "vfs/vfs.h"

/* Modeled time: the boot epoch plus the cycles so far at the model's clock. */
static struct vfs_time modeled_now(void *ctx)
{
    struct machine *m = ctx;
    uint64_t hz = (uint64_t)m->cpu.model->clock_mhz * 1000000u;
    uint64_t cycles = centi_whole(m->cycles);
    return (struct vfs_time){ (int64_t)m->opts->epoch_sec + (int64_t)(cycles / hz),
                              (uint32_t)((cycles % hz) * 1000000000u / hz) };
}

struct vfs *vfscall_new_tree(struct machine *m, uint64_t program_size, char *err,
                             size_t errlen)
{
    const struct vfs_config cfg = {
        .lower = m->opts->root,
        .limit = (m->opts->fs_bytes ? m->opts->fs_bytes : VFS_DEFAULT_LIMIT) + program_size,
        .clock = modeled_now,
        .clock_ctx = m,
    };
    return vfs_new(&cfg, err, errlen);
}

static uint8_t *kbuf(struct machine *m, uint32_t addr, uint32_t len)
{
    if (!in_kernel_ram(addr) || len > KERNEL_RAM_SIZE - (addr - KERNEL_BASE))
        return NULL;
    return guest_ptr(&m->mem, addr, len ? len : 1);
}

struct path {
    char text[HC_VFS_PATH_MAX];
    size_t len;
};

static int get_path(struct machine *m, uint32_t addr, uint32_t len, struct path *p)
{
    const uint8_t *src;
    if (len >= HC_VFS_PATH_MAX)
        return -ENAMETOOLONG;
    if (!(src = kbuf(m, addr, len)))
        return -EFAULT;
    memcpy(p->text, src, len);
    p->text[len] = 0;
    p->len = len;
    return 0;
}

static void put_time(struct hc_time *t, struct vfs_time v)
{
    t->sec = v.sec;
    t->nsec = v.nsec;
    t->pad = 0;
}

/* The guest's buffer is only 4-byte aligned: fill a copy, then copy it. */
static int put_stat(struct machine *m, uint32_t buf, const struct vfs_stat *st)
{
    struct hc_stat out;
    uint8_t *dst = kbuf(m, buf, sizeof out);
    if (!dst)
        return -EFAULT;
    memset(&out, 0, sizeof out);
    out.dev = st->dev;
    out.ino = st->ino;
    out.rdev = st->rdev;
    out.size = st->size;
    out.blocks = st->blocks;
    out.mode = st->mode;
    out.nlink = st->nlink;
    out.uid = st->uid;
    out.gid = st->gid;
    out.blksize = st->blksize;
    put_time(&out.atime, st->atime);
    put_time(&out.mtime, st->mtime);
    put_time(&out.ctime, st->ctime);
    memcpy(dst, &out, sizeof out);
    return 0;
}

static uint64_t pos_of(const struct hc_vfs *r)
{
    return ((uint64_t)r->pos_hi << 32) | r->pos_lo;
}

static void set_pos(struct hc_vfs *r, uint64_t pos)
{
    r->pos_lo = (uint32_t)pos;
    r->pos_hi = (uint32_t)(pos >> 32);
}

/* The requests with no path. */
static int32_t on_handle(struct machine *m, struct vfs *v, struct hc_vfs *r)
{
    struct vfs_stat st;
    uint8_t *buf;
    uint64_t pos;
    int err;

    switch (r->op) {
    case VFS_CLOSE: return vfs_close(v, r->handle);
    case VFS_REF: return vfs_ref(v, r->handle);
    case VFS_READ:
    case VFS_WRITE:
        if (r->len > HC_VFS_IO_MAX)
            return -EINVAL;
        if (!(buf = kbuf(m, r->buf, r->len)))
            return -EFAULT;
        return (int32_t)(r->op == VFS_READ ? vfs_read(v, r->handle, buf, r->len, pos_of(r))
                                           : vfs_write(v, r->handle, buf, r->len, pos_of(r)));
    case VFS_FSTAT:
        err = vfs_fstat(v, r->handle, &st);
        return err ? err : put_stat(m, r->buf, &st);
    case VFS_GETDENTS:
        if (r->len > HC_VFS_IO_MAX)
            return -EINVAL;
        if (!(buf = kbuf(m, r->buf, r->len)))
            return -EFAULT;
        pos = pos_of(r);
        err = vfs_getdents(v, r->handle, buf, r->len, &pos);
        set_pos(r, pos);
        return err;
    case VFS_FTRUNCATE: return vfs_ftruncate(v, r->handle, pos_of(r));
    case VFS_FCHMOD: return vfs_fchmod(v, r->handle, r->mode);
    case VFS_FCHOWN: return vfs_fchown(v, r->handle, r->mode, r->len);
    case VFS_EXEC_OK: return vfs_exec_ok(v, r->handle);
    case VFS_PATH_OF:
        if (!(buf = kbuf(m, r->buf, r->len)))
            return -EFAULT;
        return vfs_path_of(v, r->handle, (char *)buf, r->len);
    case VFS_SIZE:
        err = vfs_size(v, r->handle, &pos);
        if (!err)
            set_pos(r, pos);
        return err;
    case VFS_USAGE: {
        uint64_t used, limit;
        vfs_usage(v, &used, &limit);
        set_pos(r, used);
        r->len = (uint32_t)(limit >> 10);
        return 0;
    }
    default:
        return -ENOSYS;
    }
}

static int32_t times_of(struct machine *m, uint32_t buf, struct vfs_time t[2],
                        const struct vfs_time **out)
{
    struct hc_time in[2];
    const uint8_t *src;
    *out = NULL;
    if (!buf)
        return 0;
    if (!(src = kbuf(m, buf, sizeof in)))
        return -EFAULT;
    memcpy(in, src, sizeof in);   /* 4-byte aligned in the guest */
    for (int i = 0; i < 2; i++)
        t[i] = (struct vfs_time){ in[i].sec, in[i].nsec };
    *out = t;
    return 0;
}

/* The requests on a path (or two). */
static int32_t on_path(struct machine *m, struct vfs *v, struct hc_vfs *r)
{
    static struct path p, p2;
    struct vfs_stat st;
    struct vfs_time t[2];
    const struct vfs_time *times;
    uint8_t *buf;
    int err;

    if ((err = get_path(m, r->path, r->path_len, &p)))
        return err;
    switch (r->op) {
    case VFS_OPEN: return vfs_open(v, r->handle, p.text, p.len, (int)r->flags, r->mode);
    case VFS_STAT:
        err = vfs_stat(v, r->handle, p.text, p.len, (int)r->flags, &st);
        return err ? err : put_stat(m, r->buf, &st);
    case VFS_READLINK:
        if (!(buf = kbuf(m, r->buf, r->len)))
            return -EFAULT;
        return vfs_readlink(v, r->handle, p.text, p.len, (char *)buf, r->len);
    case VFS_TRUNCATE: return vfs_truncate(v, r->handle, p.text, p.len, pos_of(r));
    case VFS_MKDIR: return vfs_mkdir(v, r->handle, p.text, p.len, r->mode);
    case VFS_UNLINK: return vfs_unlink(v, r->handle, p.text, p.len);
    case VFS_RMDIR: return vfs_rmdir(v, r->handle, p.text, p.len);
    case VFS_RENAME:
    case VFS_LINK:
        if ((err = get_path(m, r->path2, r->path2_len, &p2)))
            return err;
        if (r->op == VFS_RENAME)
            return vfs_rename(v, r->handle, p.text, p.len, r->handle2, p2.text, p2.len);
        return vfs_link(v, r->handle, p.text, p.len, r->handle2, p2.text, p2.len,
                        (int)r->flags);
    case VFS_SYMLINK:
        if (r->len >= HC_VFS_PATH_MAX)
            return -ENAMETOOLONG;
        if (!(buf = kbuf(m, r->buf, r->len)))
            return -EFAULT;
        return vfs_symlink(v, (const char *)buf, r->len, r->handle, p.text, p.len);
    case VFS_CHMOD: return vfs_chmod(v, r->handle, p.text, p.len, r->mode, (int)r->flags);
    case VFS_CHOWN:
        return vfs_chown(v, r->handle, p.text, p.len, r->mode, r->len, (int)r->flags);
    case VFS_UTIMENS:
        if ((err = times_of(m, r->buf, t, &times)))
            return err;
        return vfs_utimens(v, r->handle, p.text, p.len, times, (int)r->flags);
    case VFS_ACCESS:
        return vfs_access(v, r->handle, p.text, p.len, (int)r->mode, (int)r->flags);
    default:
        return -ENOSYS;
    }
}

void vfs_hypercall(struct machine *m, struct hc_vfs *r)
{
    struct vfs_time t[2];
    const struct vfs_time *times;

    if (!m->vfs) {
        r->result = -ENOENT;
        return;
    }
    switch (r->op) {
    case VFS_OPEN: case VFS_STAT: case VFS_READLINK: case VFS_TRUNCATE: case VFS_MKDIR:
    case VFS_UNLINK: case VFS_RMDIR: case VFS_RENAME: case VFS_LINK: case VFS_SYMLINK:
    case VFS_CHMOD: case VFS_CHOWN: case VFS_UTIMENS: case VFS_ACCESS:
        r->result = on_path(m, m->vfs, r);
        break;
    case VFS_FUTIMENS:
        r->result = times_of(m, r->buf, t, &times);
        if (!r->result)
            r->result = vfs_futimens(m->vfs, r->handle, times);
        break;
    default:
        r->result = on_handle(m, m->vfs, r);
    }
}
