/*
 * The vfs (vfs.h): making and freeing it, nodes and their lifetime,
 * handles, and the layer's size charge.
 */
#define _GNU_SOURCE
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODE_DIR  0040000u
#define MODE_CHR  0020000u
#define NSEC      1000000000u

/* ---- time and charges ---- */

struct vfs_time vfs_now(struct vfs *v)
{
    struct vfs_time t = { 0, 0 };
    if (v->clock)
        t = v->clock(v->clock_ctx);
    if (t.nsec >= NSEC)
        t.nsec = NSEC - 1;
    return t;
}

int vfs_charge(struct vfs *v, uint64_t bytes)
{
    if (bytes > v->limit - v->used)
        return -ENOSPC;
    v->used += bytes;
    return 0;
}

void vfs_uncharge(struct vfs *v, uint64_t bytes)
{
    v->used -= bytes < v->used ? bytes : v->used;
}

/* ---- nodes ---- */

uint8_t mode_dtype(uint32_t mode)
{
    return (uint8_t)(S_TYPE(mode) >> 12);   /* DT_* is S_IFMT >> 12 */
}

bool dir_alive(const struct vfs *v, const struct vfs_node *d)
{
    return d == v->root || d->u.dir.dent != NULL;
}

struct vfs_node *node_alloc(struct vfs *v, uint32_t mode)
{
    struct vfs_node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->mode = mode;
    n->lru = -1;
    if (IS_DIR(n))
        n->u.dir.next_seq = VFS_SEQ_FIRST;
    n->next = v->all;
    if (v->all)
        v->all->prev = n;
    v->all = n;
    return n;
}

int node_create(struct vfs *v, uint32_t mode, struct vfs_node **out)
{
    if (vfs_charge(v, VFS_NODE_CHARGE))
        return -ENOSPC;
    struct vfs_node *n = node_alloc(v, mode);
    if (!n) {
        vfs_uncharge(v, VFS_NODE_CHARGE);
        return -ENOMEM;
    }
    n->charge = VFS_NODE_CHARGE;
    n->ino = v->next_ino++;
    n->dev = VFS_DEV_LAYER;
    n->atime = n->mtime = n->ctime = vfs_now(v);
    if (IS_DIR(n)) {
        n->size = VFS_PAGE;
        n->host_blocks = VFS_PAGE / 512;
    }
    *out = n;
    return 0;
}

void node_get(struct vfs_node *n)
{
    n->refs++;
}

/* Free one node; return the nodes it held a reference on. */
static void node_destroy(struct vfs *v, struct vfs_node *n, struct vfs_node *held[2])
{
    held[0] = IS_DIR(n) ? n->u.dir.parent : NULL;
    held[1] = n->lparent;
    lower_forget(v, n);
    if (IS_REG(n))
        file_free_pages(v, n);
    else if (IS_LNK(n))
        free(n->u.lnk.target);
    else if (IS_DIR(n))
        dir_free_entries(v, n);
    vfs_uncharge(v, n->charge);
    free(n->lname);
    if (n->prev)
        n->prev->next = n->next;
    else
        v->all = n->next;
    if (n->next)
        n->next->prev = n->prev;
    free(n);
}

/* A node that no entry names and no one holds is freed, and so, in turn,
 * are the parents it alone kept (a chain of removed directories can be as
 * long as the guest made it: a work list, not recursion). */
void node_settle(struct vfs *v, struct vfs_node *n)
{
    struct vfs_node *work = NULL;
    if (n && !n->refs && !n->links && n != v->root) {
        n->dead_next = NULL;
        work = n;
    }
    while (work) {
        struct vfs_node *held[2];
        n = work;
        work = n->dead_next;
        node_destroy(v, n, held);
        for (int i = 0; i < 2; i++) {
            struct vfs_node *h = held[i];
            if (h && --h->refs == 0 && !h->links && h != v->root) {
                h->dead_next = work;
                work = h;
            }
        }
    }
}

void node_put(struct vfs *v, struct vfs_node *n)
{
    n->refs--;
    node_settle(v, n);
}

/* ---- handles ---- */

struct vfs_node *handle_node(struct vfs *v, uint32_t h)
{
    if (h >= VFS_MAX_HANDLES || !v->handles[h].node)
        return NULL;
    return v->handles[h].node;
}

int handle_new(struct vfs *v, struct vfs_node *n)
{
    for (uint32_t h = v->handle_hint; h < VFS_MAX_HANDLES; h++) {
        if (!v->handles[h].node) {
            v->handles[h] = (struct vfs_handle){ n, 1 };
            node_get(n);
            v->handle_hint = h + 1;
            return (int)h;
        }
    }
    return -ENFILE;
}

bool handle_available(const struct vfs *v)
{
    for (uint32_t h = v->handle_hint; h < VFS_MAX_HANDLES; h++)
        if (!v->handles[h].node)
            return true;
    return false;
}

int vfs_ref(struct vfs *v, uint32_t h)
{
    v->changes++;
    if (!handle_node(v, h))
        return -EBADF;
    if (v->handles[h].refs == UINT32_MAX)
        return -ENFILE;
    v->handles[h].refs++;
    return 0;
}

int vfs_close(struct vfs *v, uint32_t h)
{
    v->changes++;
    struct vfs_node *n = handle_node(v, h);
    if (!n)
        return -EBADF;
    if (--v->handles[h].refs)
        return 0;
    v->handles[h].node = NULL;
    if (h < v->handle_hint)
        v->handle_hint = h;
    node_put(v, n);
    return 0;
}

void vfs_usage(const struct vfs *v, uint64_t *used, uint64_t *limit)
{
    *used = v->used;
    *limit = v->limit;
}

const struct vfs_host_stats *vfs_host_stats(const struct vfs *v)
{
    return &v->host;
}

/* ---- the tree ---- */

static struct vfs_node *synth(struct vfs *v, uint32_t mode, uint32_t rdev)
{
    struct vfs_node *n = node_alloc(v, mode);
    if (!n)
        return NULL;
    n->ino = v->next_ino++;
    n->dev = VFS_DEV_LAYER;
    n->rdev = rdev;
    n->atime = n->mtime = n->ctime = vfs_now(v);
    if (IS_DIR(n)) {
        n->size = VFS_PAGE;
        n->host_blocks = VFS_PAGE / 512;
    }
    return n;
}

static int make_dev(struct vfs *v)
{
    static const struct { const char *name; uint32_t rdev; } devs[] = {
        { "null", VFS_MKDEV(1, 3) }, { "tty", VFS_MKDEV(5, 0) }, { "zero", VFS_MKDEV(1, 5) },
    };
    v->tmp = synth(v, MODE_DIR | 01777, 0);
    v->dev = synth(v, MODE_DIR | 0755, 0);
    if (!v->tmp || !v->dev)
        return -ENOMEM;
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        struct vfs_node *n = synth(v, MODE_CHR | 0666, devs[i].rdev);
        if (!n || dir_add(v, v->dev, devs[i].name, strlen(devs[i].name), n, false))
            return -ENOMEM;
    }
    return 0;
}

struct vfs *vfs_new(const struct vfs_config *cfg, char *err, size_t errlen)
{
    struct vfs *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "vfs: out of memory");
        return NULL;
    }
    v->limit = cfg->limit;
    v->clock = cfg->clock;
    v->clock_ctx = cfg->clock_ctx;
    v->next_ino = 1;
    v->root_fd = -1;
    for (int i = 0; i < VFS_LRU_FDS; i++)
        v->lru[i].fd = -1;
    int rc;
    if (cfg->lower) {
        rc = make_dev(v);
        if (!rc && lower_init(v, cfg->lower, err, errlen))
            goto fail;
    } else {
        v->root = synth(v, MODE_DIR | 0755, 0);
        rc = v->root ? make_dev(v) : -ENOMEM;
        if (!rc)
            rc = dir_add(v, v->root, "dev", 3, v->dev, false);
        if (!rc)
            rc = dir_add(v, v->root, "tmp", 3, v->tmp, false);
    }
    if (rc) {
        snprintf(err, errlen, "vfs: %s", strerror(-rc));
        goto fail;
    }
    v->root->links = 1;
    return v;
fail:
    vfs_free(v);
    return NULL;
}

void vfs_free(struct vfs *v)
{
    if (!v)
        return;
    lower_free(v);
    while (v->all) {
        struct vfs_node *n = v->all;
        v->all = n->next;
        if (IS_REG(n))
            file_free_pages(v, n);
        else if (IS_LNK(n))
            free(n->u.lnk.target);
        else if (IS_DIR(n))
            dir_free_entries(v, n);
        free(n->lname);
        free(n);
    }
    free(v);
}
