/*
 * Regular files: bytes in page-sized chunks kept in an array sorted by
 * page index, so a hole costs nothing and a write far out charges only the
 * pages it touches. Bytes past the end of the file inside its last page
 * are always zero, so growing a file needs no clearing. A lower file's
 * bytes are the host's until copy-up.
 */
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- pages ---- */

/* The first page whose index is at least index. */
static uint32_t page_at(const struct vfs_node *n, uint64_t index)
{
    uint32_t lo = 0, hi = n->u.reg.npages;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (n->u.reg.pages[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The page at index, made if missing. A new one is cleared outside
 * [off, off + len) only: the caller fills that part at once (a start-up
 * writes the program file a whole page at a time). */
static int page_make(struct vfs *v, struct vfs_node *n, uint64_t index, size_t off, size_t len,
                     uint8_t **out)
{
    uint32_t i = page_at(n, index);
    struct vfs_page *p = n->u.reg.pages;
    if (i < n->u.reg.npages && p[i].index == index) {
        *out = p[i].data;
        return 0;
    }
    if (vfs_charge(v, VFS_PAGE))
        return -ENOSPC;
    if (n->u.reg.npages == n->u.reg.cap) {
        uint32_t cap = n->u.reg.cap ? n->u.reg.cap * 2 : 4;
        p = realloc(p, (size_t)cap * sizeof *p);
        if (!p) {
            vfs_uncharge(v, VFS_PAGE);
            return -ENOMEM;
        }
        n->u.reg.pages = p;
        n->u.reg.cap = cap;
    }
    uint8_t *data = malloc(VFS_PAGE);
    if (!data) {
        vfs_uncharge(v, VFS_PAGE);
        return -ENOMEM;
    }
    memset(data, 0, off);
    memset(data + off + len, 0, VFS_PAGE - off - len);
    memmove(p + i + 1, p + i, (size_t)(n->u.reg.npages - i) * sizeof *p);
    p[i] = (struct vfs_page){ index, data };
    n->u.reg.npages++;
    *out = data;
    return 0;
}

/* Drop the pages from index on. */
static void pages_drop_from(struct vfs *v, struct vfs_node *n, uint64_t index)
{
    uint32_t i = page_at(n, index);
    for (uint32_t j = i; j < n->u.reg.npages; j++) {
        free(n->u.reg.pages[j].data);
        vfs_uncharge(v, VFS_PAGE);
    }
    n->u.reg.npages = i;
}

void file_free_pages(struct vfs *v, struct vfs_node *n)
{
    pages_drop_from(v, n, 0);
    free(n->u.reg.pages);
    n->u.reg.pages = NULL;
    n->u.reg.cap = 0;
}

static uint64_t pages_for(uint64_t bytes)
{
    return (bytes + VFS_PAGE - 1) / VFS_PAGE;
}

/* ---- copy-up ---- */

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* The first keep bytes of a lower file into memory; it is an upper file
 * from then on, with the same inode number (see below for hard links). The layer must have room for
 * every page of it, so the host bytes read are bounded by the limit; pages
 * of zeros are then left as holes. */
int file_copy_up(struct vfs *v, struct vfs_node *n, uint64_t keep)
{
    uint8_t buf[VFS_PAGE];
    if (!n->lower_data)
        return 0;
    if (keep > n->size)
        keep = n->size;
    if (pages_for(keep) > (v->limit - v->used) / VFS_PAGE || vfs_charge(v, VFS_NODE_CHARGE))
        return -ENOSPC;
    int err = 0;
    for (uint64_t off = 0; off < keep && !err; off += VFS_PAGE) {
        size_t chunk = keep - off < VFS_PAGE ? (size_t)(keep - off) : VFS_PAGE;
        ssize_t got = lower_pread(v, n, buf, chunk, off);
        uint8_t *page;
        if (got < 0) {
            err = (int)got;
            break;
        }
        memset(buf + got, 0, VFS_PAGE - (size_t)got);
        if (all_zero(buf, chunk))
            continue;
        if (!(err = page_make(v, n, off / VFS_PAGE, 0, chunk, &page)))
            memcpy(page, buf, chunk);
    }
    if (err) {
        file_free_pages(v, n);
        vfs_uncharge(v, VFS_NODE_CHARGE);
        return err;
    }
    n->charge += VFS_NODE_CHARGE;
    n->lower_data = false;
    if (n->host_nlink > 1) {
        /* Each host name of a hard-linked file is its own node: a copy-up
         * breaks the link (as overlayfs without index=on), and the copy
         * takes a number of its own rather than share the host's. */
        n->ino = v->next_ino++;
        n->dev = VFS_DEV_LAYER;
    }
    n->size = keep;
    lower_forget(v, n);
    struct vfs_node *lp = n->lparent;
    n->lparent = NULL;
    free(n->lname);
    n->lname = NULL;
    if (lp)
        node_put(v, lp);
    return 0;
}

/* ---- reading, writing, truncating ---- */

static ssize_t file_read(struct vfs *v, struct vfs_node *n, void *buf, size_t len, uint64_t pos)
{
    if (pos >= n->size)
        return 0;
    if (len > n->size - pos)
        len = (size_t)(n->size - pos);
    if (len > VFS_IO_MAX)
        len = VFS_IO_MAX;
    if (n->lower_data)
        return lower_pread(v, n, buf, len, pos);
    uint8_t *out = buf;
    uint32_t i = page_at(n, pos / VFS_PAGE);
    for (size_t done = 0; done < len;) {
        uint64_t at = pos + done, index = at / VFS_PAGE;
        size_t in = (size_t)(at % VFS_PAGE);
        size_t k = VFS_PAGE - in < len - done ? VFS_PAGE - in : len - done;
        if (i < n->u.reg.npages && n->u.reg.pages[i].index == index)
            memcpy(out + done, n->u.reg.pages[i++].data + in, k);
        else
            memset(out + done, 0, k);
        done += k;
    }
    return (ssize_t)len;
}

static ssize_t file_write(struct vfs *v, struct vfs_node *n, const void *buf, size_t len,
                          uint64_t pos)
{
    const uint8_t *in = buf;
    if (pos >= VFS_FILE_MAX)
        return -EFBIG;
    if (len > VFS_FILE_MAX - pos)
        len = (size_t)(VFS_FILE_MAX - pos);
    if (len > VFS_IO_MAX)
        len = VFS_IO_MAX;
    if (len == 0)
        return 0;
    int err = file_copy_up(v, n, n->size);
    size_t done = 0;
    while (!err && done < len) {
        uint64_t at = pos + done;
        size_t off = (size_t)(at % VFS_PAGE);
        size_t k = VFS_PAGE - off < len - done ? VFS_PAGE - off : len - done;
        uint8_t *page;
        if (!(err = page_make(v, n, at / VFS_PAGE, off, k, &page))) {
            memcpy(page + off, in + done, k);
            done += k;
        }
    }
    if (!done)
        return err;
    if (pos + done > n->size)
        n->size = pos + done;
    n->mtime = n->ctime = vfs_now(v);
    return (ssize_t)done;
}

int file_truncate(struct vfs *v, struct vfs_node *n, uint64_t size)
{
    if (size > VFS_FILE_MAX)
        return -EFBIG;
    int err = file_copy_up(v, n, size);
    if (err)
        return err;
    if (size < n->size) {
        pages_drop_from(v, n, pages_for(size));
        uint32_t i = page_at(n, size / VFS_PAGE);
        if (size % VFS_PAGE && i < n->u.reg.npages && n->u.reg.pages[i].index == size / VFS_PAGE)
            memset(n->u.reg.pages[i].data + size % VFS_PAGE, 0, VFS_PAGE - size % VFS_PAGE);
    }
    n->size = size;
    n->mtime = n->ctime = vfs_now(v);
    return 0;
}

/* ---- the interface ---- */

static int regular(struct vfs *v, uint32_t h, struct vfs_node **out)
{
    struct vfs_node *n = handle_node(v, h);
    if (!n)
        return -EBADF;
    if (IS_DIR(n))
        return -EISDIR;
    if (!IS_REG(n))
        return -EINVAL;   /* devices mean what the kernel makes them mean */
    *out = n;
    return 0;
}

ssize_t vfs_read(struct vfs *v, uint32_t h, void *buf, size_t len, uint64_t pos)
{
    struct vfs_node *n;
    int err = regular(v, h, &n);
    if (err)
        return err;
    if (pos > INT64_MAX)
        return -EINVAL;
    return file_read(v, n, buf, len, pos);
}

ssize_t vfs_write(struct vfs *v, uint32_t h, const void *buf, size_t len, uint64_t pos)
{
    v->changes++;
    struct vfs_node *n;
    int err = regular(v, h, &n);
    if (err)
        return err;
    if (pos > INT64_MAX)
        return -EINVAL;
    return file_write(v, n, buf, len, pos);
}

int vfs_size(struct vfs *v, uint32_t h, uint64_t *size)
{
    struct vfs_node *n = handle_node(v, h);
    if (!n)
        return -EBADF;
    *size = IS_LNK(n) ? n->u.lnk.len : n->size;
    return 0;
}

int vfs_ftruncate(struct vfs *v, uint32_t h, uint64_t size)
{
    v->changes++;
    struct vfs_node *n;
    int err = regular(v, h, &n);
    if (err)
        return err == -EISDIR ? -EINVAL : err;
    return file_truncate(v, n, size);
}

int vfs_truncate(struct vfs *v, uint32_t dir, const char *path, size_t len, uint64_t size)
{
    v->changes++;
    struct vfs_node *n;
    int err = vfs_resolve(v, dir, path, len, 0, &n);
    if (err)
        return err;
    if (IS_DIR(n))
        return -EISDIR;
    if (!IS_REG(n))
        return -EINVAL;
    return file_truncate(v, n, size);
}
