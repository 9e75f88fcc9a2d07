/*
 * A copy of the whole tree (vfs.h: vfs_clone): every node, entry, file
 * page and handle, with the pointers among them turned into the copy's.
 */
#define _GNU_SOURCE
#include "snapshot.h"
#include "../../emu/vfs/vfs_impl.h"
#include <stdlib.h>
#include <string.h>

/* Old pointers to new ones, sorted by the old. */
struct ptr_pair {
    const void *from;
    void *to;
};

struct ptr_map {
    struct ptr_pair *pairs;
    size_t n, cap;
};

static int map_add(struct ptr_map *m, const void *from, void *to)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct ptr_pair *p = realloc(m->pairs, cap * sizeof *p);
        if (!p)
            return -1;
        m->pairs = p;
        m->cap = cap;
    }
    m->pairs[m->n++] = (struct ptr_pair){ from, to };
    return 0;
}

static int by_from(const void *a, const void *b)
{
    const void *x = ((const struct ptr_pair *)a)->from, *y = ((const struct ptr_pair *)b)->from;
    return x < y ? -1 : x > y;
}

static void *map_get(const struct ptr_map *m, const void *from)
{
    if (!from)
        return NULL;
    struct ptr_pair key = { from, NULL };
    struct ptr_pair *p = bsearch(&key, m->pairs, m->n, sizeof key, by_from);
    return p ? p->to : NULL;
}

/* A node's own memory: its file pages, link text, entries (not yet tied
 * to the copy's pointers) and host name. */
static int copy_body(struct vfs_node *n, const struct vfs_node *o, struct ptr_map *dents)
{
    n->lname = NULL;
    if (o->lname && !(n->lname = strdup(o->lname)))
        return -1;
    if (IS_REG(o)) {
        n->u.reg.pages = NULL;
        n->u.reg.cap = n->u.reg.npages = 0;
        if (!o->u.reg.npages)
            return 0;
        n->u.reg.pages = malloc(o->u.reg.npages * sizeof *n->u.reg.pages);
        if (!n->u.reg.pages)
            return -1;
        n->u.reg.cap = o->u.reg.npages;
        for (uint32_t i = 0; i < o->u.reg.npages; i++) {
            uint8_t *data = malloc(VFS_PAGE);
            if (!data)
                return -1;
            memcpy(data, o->u.reg.pages[i].data, VFS_PAGE);
            n->u.reg.pages[i] = (struct vfs_page){ o->u.reg.pages[i].index, data };
            n->u.reg.npages++;
        }
    } else if (IS_LNK(o)) {
        n->u.lnk.target = malloc(o->u.lnk.len ? o->u.lnk.len : 1);
        if (!n->u.lnk.target)
            return -1;
        if (o->u.lnk.len)
            memcpy(n->u.lnk.target, o->u.lnk.target, o->u.lnk.len);
    } else if (IS_DIR(o)) {
        const struct vfs_dir *od = &o->u.dir;
        struct vfs_dir *d = &n->u.dir;
        d->cap = d->norder = 0;
        d->order = od->norder ? malloc(od->norder * sizeof *d->order) : NULL;
        if (od->norder && !d->order)
            return -1;
        d->cap = od->norder;
        for (uint32_t i = 0; i < od->norder; i++) {
            const struct vfs_dent *oe = od->order[i].d;
            struct vfs_dent *e = NULL;
            if (oe) {
                size_t size = sizeof *oe + oe->len + 1;
                if (!(e = malloc(size)) || map_add(dents, oe, e)) {
                    free(e);
                    return -1;
                }
                memcpy(e, oe, size);
            }
            d->order[d->norder++] = (struct vfs_slot){ od->order[i].seq, e };
        }
    }
    return 0;
}

/* The copy's pointers, once every node and entry has its copy. */
static void tie(struct vfs_node *n, const struct ptr_map *nodes, const struct ptr_map *dents)
{
    n->lparent = map_get(nodes, n->lparent);
    n->dead_next = NULL;
    n->lru = -1;
    if (!IS_DIR(n))
        return;
    struct vfs_dir *d = &n->u.dir;
    d->names = map_get(dents, d->names);
    d->parent = map_get(nodes, d->parent);
    d->dent = map_get(dents, d->dent);
    for (uint32_t i = 0; i < d->norder; i++) {
        struct vfs_dent *e = d->order[i].d;
        if (!e)
            continue;
        e->left = map_get(dents, e->left);
        e->right = map_get(dents, e->right);
        e->node = map_get(nodes, e->node);
    }
}

struct vfs *vfs_clone(const struct vfs *v)
{
    if (v->root_fd >= 0 || v->nhost_devs)
        return NULL;
    struct vfs *c = malloc(sizeof *c);
    struct ptr_map nodes = { 0 }, dents = { 0 };
    if (!c)
        return NULL;
    memcpy(c, v, sizeof *c);
    c->all = NULL;
    for (int i = 0; i < VFS_LRU_FDS; i++)
        c->lru[i] = (struct vfs_lru_slot){ NULL, -1, 0 };
    struct vfs_node *last = NULL;
    int bad = 0;
    /* the copies in the same order, each bare until its body is copied */
    for (const struct vfs_node *o = v->all; o && !bad; o = o->next) {
        struct vfs_node *n = malloc(sizeof *n);
        if (!n || map_add(&nodes, o, n)) {
            free(n);
            bad = 1;
            break;
        }
        memcpy(n, o, sizeof *n);
        n->lname = NULL;
        memset(&n->u, 0, sizeof n->u);
        n->prev = last;
        n->next = NULL;
        if (last)
            last->next = n;
        else
            c->all = n;
        last = n;
        bad = copy_body(n, o, &dents);
    }
    if (!bad) {
        qsort(nodes.pairs, nodes.n, sizeof *nodes.pairs, by_from);
        qsort(dents.pairs, dents.n, sizeof *dents.pairs, by_from);
        for (struct vfs_node *n = c->all; n; n = n->next)
            tie(n, &nodes, &dents);
        c->root = map_get(&nodes, v->root);
        c->tmp = map_get(&nodes, v->tmp);
        c->dev = map_get(&nodes, v->dev);
        for (int h = 0; h < VFS_MAX_HANDLES; h++)
            c->handles[h].node = map_get(&nodes, v->handles[h].node);
    }
    free(nodes.pairs);
    free(dents.pairs);
    if (bad) {
        c->root_fd = -1;
        c->nhost_devs = 0;
        vfs_free(c);
        return NULL;
    }
    return c;
}

uint64_t vfs_changes(const struct vfs *v)
{
    return v->changes;
}
