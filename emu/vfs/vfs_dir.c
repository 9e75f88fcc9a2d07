/*
 * Directories: entries found by name through an AVL tree, listed in the
 * order of their sequence numbers, which are also the getdents cookies.
 *
 * A new entry takes the directory's next sequence number; a removed one
 * leaves a hole in the order array, closed up later. So an entry present
 * for a whole listing keeps its number and is listed exactly once, however
 * others come and go. The tree's recursion is as deep as the tree, which
 * AVL keeps below 1.45 log2(entries): about 30 for a million entries.
 */
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIRENT64_HEADER 19   /* d_ino 8, d_off 8, d_reclen 2, d_type 1 */

/* ---- the name tree ---- */

int dent_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen;
}

static int height(const struct vfs_dent *e)
{
    return e ? e->height : 0;
}

static void fix_height(struct vfs_dent *e)
{
    int l = height(e->left), r = height(e->right);
    e->height = (int8_t)(1 + (l > r ? l : r));
}

static struct vfs_dent *rotate_right(struct vfs_dent *y)
{
    struct vfs_dent *x = y->left;
    y->left = x->right;
    x->right = y;
    fix_height(y);
    fix_height(x);
    return x;
}

static struct vfs_dent *rotate_left(struct vfs_dent *x)
{
    struct vfs_dent *y = x->right;
    x->right = y->left;
    y->left = x;
    fix_height(x);
    fix_height(y);
    return y;
}

static struct vfs_dent *balance(struct vfs_dent *e)
{
    fix_height(e);
    int b = height(e->left) - height(e->right);
    if (b > 1) {
        if (height(e->left->left) < height(e->left->right))
            e->left = rotate_left(e->left);
        return rotate_right(e);
    }
    if (b < -1) {
        if (height(e->right->right) < height(e->right->left))
            e->right = rotate_right(e->right);
        return rotate_left(e);
    }
    return e;
}

static int cmp_dents(const struct vfs_dent *a, const struct vfs_dent *b)
{
    return dent_cmp(a->name, a->len, b->name, b->len);
}

static struct vfs_dent *tree_insert(struct vfs_dent *t, struct vfs_dent *e)
{
    if (!t) {
        e->left = e->right = NULL;
        e->height = 1;
        return e;
    }
    if (cmp_dents(e, t) < 0)
        t->left = tree_insert(t->left, e);
    else
        t->right = tree_insert(t->right, e);
    return balance(t);
}

static struct vfs_dent *tree_take_min(struct vfs_dent *t, struct vfs_dent **min)
{
    if (!t->left) {
        *min = t;
        return t->right;
    }
    t->left = tree_take_min(t->left, min);
    return balance(t);
}

static struct vfs_dent *tree_remove(struct vfs_dent *t, struct vfs_dent *e)
{
    int c = cmp_dents(e, t);
    if (c < 0) {
        t->left = tree_remove(t->left, e);
    } else if (c > 0) {
        t->right = tree_remove(t->right, e);
    } else {
        struct vfs_dent *m;
        if (!t->left || !t->right)
            return t->left ? t->left : t->right;
        struct vfs_dent *r = tree_take_min(t->right, &m);
        m->right = r;
        m->left = t->left;
        t = m;
    }
    return balance(t);
}

/* A balanced tree from entries sorted by name. */
static struct vfs_dent *tree_build(struct vfs_dent **a, uint32_t n)
{
    if (!n)
        return NULL;
    uint32_t mid = n / 2;
    struct vfs_dent *e = a[mid];
    e->left = tree_build(a, mid);
    e->right = tree_build(a + mid + 1, n - mid - 1);
    fix_height(e);
    return e;
}

struct vfs_dent *dir_find(struct vfs_node *d, const char *name, size_t len)
{
    struct vfs_dent *t = d->u.dir.names;
    while (t) {
        int c = dent_cmp(name, len, t->name, t->len);
        if (!c)
            return t;
        t = c < 0 ? t->left : t->right;
    }
    return NULL;
}

struct vfs_dent *dent_new(const char *name, size_t len, uint8_t type)
{
    struct vfs_dent *e = calloc(1, sizeof *e + len + 1);
    if (!e)
        return NULL;
    memcpy(e->name, name, len);
    e->len = (uint16_t)len;
    e->type = type;
    return e;
}

/* ---- the listing order ---- */

/* The first slot whose seq is at least seq. */
static uint32_t slot_at(const struct vfs_dir *d, uint64_t seq)
{
    uint32_t lo = 0, hi = d->norder;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->order[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void compact(struct vfs_dir *d, bool renumber)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < d->norder; i++) {
        if (!d->order[i].d)
            continue;
        d->order[j] = d->order[i];
        if (renumber)
            d->order[j].seq = d->order[j].d->seq = VFS_SEQ_FIRST + j;
        j++;
    }
    d->norder = j;
    if (renumber)
        d->next_seq = VFS_SEQ_FIRST + j;
}

/* Room for one more slot, and a sequence number for it. Cookies stay
 * below 2^31 (old getdents and 32-bit lseek); after 2^31 entries made in
 * one directory the live ones are renumbered, and a listing in progress
 * then may repeat or miss entries. */
static int order_room(struct vfs_dir *d)
{
    if (d->next_seq >= VFS_SEQ_END)
        compact(d, true);
    if (d->norder - d->nlive > 32 && d->norder - d->nlive > d->nlive)
        compact(d, false);
    if (d->norder < d->cap)
        return 0;
    uint32_t cap = d->cap ? d->cap * 2 : 8;
    struct vfs_slot *o = realloc(d->order, (size_t)cap * sizeof *o);
    if (!o)
        return -ENOMEM;
    d->order = o;
    d->cap = cap;
    return 0;
}

int dir_reserve(struct vfs_node *d)
{
    return order_room(&d->u.dir);
}

static void link_child(struct vfs_node *d, struct vfs_dent *e)
{
    struct vfs_node *n = e->node;
    n->links++;
    if (IS_DIR(n)) {
        struct vfs_node *old = n->u.dir.parent;
        node_get(d);
        n->u.dir.parent = d;
        n->u.dir.dent = e;
        if (old)
            old->refs--;   /* a rename: the old parent still has an entry */
    }
}

/* Insert a made entry: cannot fail once dir_reserve has succeeded. */
void dir_insert(struct vfs *v, struct vfs_node *d, struct vfs_dent *e, struct vfs_node *n)
{
    struct vfs_dir *dir = &d->u.dir;
    e->node = n;
    e->type = mode_dtype(n->mode);
    e->seq = dir->next_seq++;
    dir->order[dir->norder++] = (struct vfs_slot){ e->seq, e };
    dir->names = tree_insert(dir->names, e);
    dir->nlive++;
    if (IS_DIR(n))
        dir->nsubdirs++;
    link_child(d, e);
    d->mtime = d->ctime = vfs_now(v);
}

int dir_add(struct vfs *v, struct vfs_node *d, const char *name, size_t len,
            struct vfs_node *n, bool charged)
{
    uint32_t charge = charged ? VFS_DENT_CHARGE + (uint32_t)len : 0;
    if (vfs_charge(v, charge))
        return -ENOSPC;
    struct vfs_dent *e = dent_new(name, len, 0);
    if (!e || dir_reserve(d)) {
        free(e);
        vfs_uncharge(v, charge);
        return -ENOMEM;
    }
    e->charge = charge;
    dir_insert(v, d, e, n);
    return 0;
}

/* Remove an entry; the node it named is the caller's to settle. */
void dir_del(struct vfs *v, struct vfs_node *d, struct vfs_dent *e)
{
    struct vfs_dir *dir = &d->u.dir;
    uint32_t i = slot_at(dir, e->seq);
    dir->order[i].d = NULL;
    dir->names = tree_remove(dir->names, e);
    dir->nlive--;
    if (e->type == VFS_DT_DIR)
        dir->nsubdirs--;
    if (e->node) {
        e->node->links--;
        if (IS_DIR(e->node))
            e->node->u.dir.dent = NULL;
    }
    vfs_uncharge(v, e->charge);
    free(e);
    d->mtime = d->ctime = vfs_now(v);
}

/* A lower directory's entries, sorted by name, become its whole contents. */
int dir_fill(struct vfs *v, struct vfs_node *d, struct vfs_dent **sorted, uint32_t n)
{
    struct vfs_dir *dir = &d->u.dir;
    (void)v;
    dir->order = malloc((size_t)(n ? n : 1) * sizeof *dir->order);
    if (!dir->order)
        return -ENOMEM;
    dir->cap = n ? n : 1;
    for (uint32_t i = 0; i < n; i++) {
        struct vfs_dent *e = sorted[i];
        e->seq = dir->next_seq++;
        dir->order[i] = (struct vfs_slot){ e->seq, e };
        if (e->type == VFS_DT_DIR)
            dir->nsubdirs++;
        if (e->node)
            link_child(d, e);
    }
    dir->norder = dir->nlive = n;
    dir->names = tree_build(sorted, n);
    dir->unlisted = false;
    return 0;
}

void dir_free_entries(struct vfs *v, struct vfs_node *d)
{
    struct vfs_dir *dir = &d->u.dir;
    for (uint32_t i = 0; i < dir->norder; i++) {
        if (dir->order[i].d) {
            vfs_uncharge(v, dir->order[i].d->charge);
            free(dir->order[i].d);
        }
    }
    free(dir->order);
    dir->order = NULL;
    dir->names = NULL;
    dir->norder = dir->nlive = dir->cap = 0;
}

uint32_t dir_nlink(const struct vfs *v, const struct vfs_node *d)
{
    if (!dir_alive(v, d))
        return 0;
    if (d->u.dir.unlisted)
        return d->host_nlink;
    return 2 + d->u.dir.nsubdirs;
}

/* ---- lookups ---- */

int dir_ready(struct vfs *v, struct vfs_node *d)
{
    if (d->u.dir.list_err)
        return d->u.dir.list_err;
    if (!d->u.dir.unlisted)
        return 0;
    int err = lower_list(v, d);
    if (err)
        d->u.dir.list_err = err;
    return err;
}

/* A lower entry's node, just made from the host's object. */
void dir_attach(struct vfs_node *d, struct vfs_dent *e, struct vfs_node *n)
{
    uint8_t type = mode_dtype(n->mode);
    if (e->type == VFS_DT_DIR)
        d->u.dir.nsubdirs--;
    if (type == VFS_DT_DIR)
        d->u.dir.nsubdirs++;
    e->type = type;
    e->node = n;
    link_child(d, e);
}

int dent_node(struct vfs *v, struct vfs_node *d, struct vfs_dent *e, struct vfs_node **out)
{
    if (e->node) {
        *out = e->node;
        return 0;
    }
    return lower_node(v, d, e, out);
}

/* ---- getdents ---- */

static uint32_t put_dirent(uint8_t *out, size_t room, uint64_t ino, uint64_t off,
                           uint8_t type, const char *name, size_t len)
{
    uint32_t reclen = (uint32_t)((DIRENT64_HEADER + len + 1 + 7) & ~(size_t)7);
    uint16_t rl = (uint16_t)reclen;
    if (reclen > room)
        return 0;
    memset(out, 0, reclen);
    memcpy(out, &ino, 8);
    memcpy(out + 8, &off, 8);
    memcpy(out + 16, &rl, 2);
    out[18] = type;
    memcpy(out + DIRENT64_HEADER, name, len);
    return reclen;
}

int vfs_getdents(struct vfs *v, uint32_t h, void *buf, size_t len, uint64_t *cookie)
{
    struct vfs_node *d = handle_node(v, h);
    uint8_t *out = buf;
    if (!d)
        return -EBADF;
    if (!IS_DIR(d))
        return -ENOTDIR;
    if (!dir_alive(v, d))
        return -ENOENT;   /* as Linux for a removed directory */
    int err = dir_ready(v, d);
    if (err)
        return err;
    if (len > INT32_MAX)
        len = INT32_MAX;
    const struct vfs_dir *dir = &d->u.dir;
    uint64_t pos = *cookie;
    size_t used = 0;
    uint32_t n;
    bool more = false;
    if (pos == 0) {
        if (!(n = put_dirent(out, len, d->ino, 1, VFS_DT_DIR, ".", 1)))
            return -EINVAL;
        used += n;
        pos = 1;
    }
    if (pos == 1) {
        const struct vfs_node *p = d == v->root ? d : dir->parent;
        if (!(n = put_dirent(out + used, len - used, p->ino, 2, VFS_DT_DIR, "..", 2)))
            more = true;
        used += n;
        pos = n ? 2 : 1;
    }
    for (uint32_t i = slot_at(dir, pos); !more && i < dir->norder; i++) {
        const struct vfs_dent *e = dir->order[i].d;
        if (!e)
            continue;
        uint64_t ino = e->node ? e->node->ino : e->ino;
        if (!(n = put_dirent(out + used, len - used, ino, (uint64_t)e->seq + 1, e->type,
                             e->name, e->len)))
            more = true;
        used += n;
        if (n)
            pos = (uint64_t)e->seq + 1;
    }
    if (!used && more)
        return -EINVAL;
    *cookie = pos;
    return (int)used;
}
