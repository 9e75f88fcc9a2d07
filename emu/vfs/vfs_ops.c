/*
 * open and the operations on names: mkdir, unlink, rmdir, rename, link,
 * symlink, readlink. Errors and their order follow Linux's fs/namei.c.
 */
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MODE_REG 0100000u
#define MODE_DIR 0040000u
#define MODE_LNK 0120000u

/* A new node named name in d. */
static int create(struct vfs *v, struct vfs_node *d, const char *name, size_t len,
                  uint32_t mode, struct vfs_node **out)
{
    struct vfs_node *n;
    int err = node_create(v, mode, &n);
    if (err)
        return err;
    if ((err = dir_add(v, d, name, len, n, true))) {
        node_settle(v, n);
        return err;
    }
    *out = n;
    return 0;
}

/* Where a new name may be made: the checks mkdir, symlink and link share. */
static int creatable(const struct vfs *v, const struct walk *w, bool dir)
{
    if (w->type != LAST_NORM || w->node)
        return -EEXIST;
    if (w->slash && !dir)
        return -ENOENT;
    if (!dir_alive(v, w->dir))
        return -ENOENT;
    return 0;
}

static int open_existing(struct vfs *v, struct vfs_node *n, const struct walk *w, int flags)
{
    if ((flags & VFS_O_CREAT) && IS_DIR(n))
        return -EISDIR;
    if (IS_LNK(n))
        return -ELOOP;            /* O_NOFOLLOW */
    if ((w->slash || (flags & VFS_O_DIRECTORY)) && !IS_DIR(n))
        return -ENOTDIR;
    if (IS_DIR(n) && ((flags & VFS_O_ACCMODE) != VFS_O_RDONLY || (flags & VFS_O_TRUNC)))
        return -EISDIR;
    if (n->hidden_host)
        return -EACCES;           /* a host FIFO, socket or device */
    if ((flags & VFS_O_TRUNC) && IS_REG(n))
        return file_truncate(v, n, 0);
    return 0;
}

int vfs_open(struct vfs *v, uint32_t dir, const char *path, size_t len, int flags,
             uint32_t mode)
{
    v->changes++;
    const int creat_excl = VFS_O_CREAT | VFS_O_EXCL;
    bool excl = (flags & creat_excl) == creat_excl;
    struct walk w;
    struct vfs_node *n;
    if (flags & VFS_O_TMPFILE)
        return -EOPNOTSUPP;       /* it carries O_DIRECTORY: never a plain open */
    if ((flags & VFS_O_CREAT) && (flags & VFS_O_DIRECTORY))
        return -EINVAL;
    if (!handle_available(v))
        return -ENFILE;
    int err = vfs_walk(v, dir, path, len,
                       (flags & VFS_O_NOFOLLOW) || excl ? 0 : WALK_FOLLOW, &w);
    if (err)
        return err;
    if ((n = w.node)) {
        if (excl)
            return -EEXIST;
        err = open_existing(v, n, &w, flags);
    } else if (!(flags & VFS_O_CREAT)) {
        err = -ENOENT;
    } else if (w.slash) {
        err = -EISDIR;
    } else if (!dir_alive(v, w.dir)) {
        err = -ENOENT;
    } else {
        err = create(v, w.dir, w.name, w.len, MODE_REG | (mode & 07777u), &n);
    }
    return err ? err : handle_new(v, n);
}

int vfs_mkdir(struct vfs *v, uint32_t dir, const char *path, size_t len, uint32_t mode)
{
    v->changes++;
    struct walk w;
    struct vfs_node *n;
    int err = vfs_walk(v, dir, path, len, WALK_PARENT, &w);
    if (!err)
        err = creatable(v, &w, true);
    if (!err && w.dir->u.dir.nsubdirs >= VFS_LINK_MAX - 2)
        err = -EMLINK;
    return err ? err : create(v, w.dir, w.name, w.len, MODE_DIR | (mode & 07777u), &n);
}

int vfs_symlink(struct vfs *v, const char *target, size_t tlen,
                uint32_t dir, const char *path, size_t len)
{
    v->changes++;
    struct walk w;
    struct vfs_node *n;
    if (tlen == 0)
        return -ENOENT;
    if (tlen >= VFS_PATH_MAX)
        return -ENAMETOOLONG;
    if (memchr(target, 0, tlen))
        return -EINVAL;
    int err = vfs_walk(v, dir, path, len, WALK_PARENT, &w);
    if (!err)
        err = creatable(v, &w, false);
    if (!err)
        err = vfs_charge(v, tlen);
    if (err)
        return err;
    char *text = malloc(tlen);
    if (!text || (err = create(v, w.dir, w.name, w.len, MODE_LNK | 0777, &n))) {
        free(text);
        vfs_uncharge(v, tlen);
        return text ? err : -ENOMEM;
    }
    memcpy(text, target, tlen);
    n->u.lnk.target = text;
    n->u.lnk.len = (uint32_t)tlen;
    n->charge += (uint32_t)tlen;
    return 0;
}

int vfs_readlink(struct vfs *v, uint32_t dir, const char *path, size_t len,
                 char *buf, size_t cap)
{
    struct vfs_node *n;
    int err = vfs_resolve(v, dir, path, len, VFS_NOFOLLOW, &n);
    if (err)
        return err;
    if (!IS_LNK(n) || cap == 0)
        return -EINVAL;
    size_t k = n->u.lnk.len < cap ? n->u.lnk.len : cap;
    memcpy(buf, n->u.lnk.target, k);
    return (int)k;
}

int vfs_link(struct vfs *v, uint32_t odir, const char *opath, size_t olen,
             uint32_t ndir, const char *npath, size_t nlen, int flags)
{
    v->changes++;
    struct vfs_node *old;
    struct walk w;
    int err = vfs_resolve(v, odir, opath, olen, (flags & VFS_FOLLOW) ? 0 : VFS_NOFOLLOW, &old);
    if (err)
        return err;
    if ((err = vfs_walk(v, ndir, npath, nlen, WALK_PARENT, &w)) || (err = creatable(v, &w, false)))
        return err;
    if (IS_DIR(old))
        return -EPERM;
    if (!old->links)
        return -ENOENT;
    if (old->links >= VFS_LINK_MAX)
        return -EMLINK;
    if ((err = dir_add(v, w.dir, w.name, w.len, old, true)))
        return err;
    old->ctime = vfs_now(v);
    return 0;
}

int vfs_unlink(struct vfs *v, uint32_t dir, const char *path, size_t len)
{
    v->changes++;
    struct walk w;
    int err = vfs_walk(v, dir, path, len, WALK_PARENT, &w);
    if (err)
        return err;
    struct vfs_node *n = w.node;
    if (w.type != LAST_NORM)
        return -EISDIR;
    if (!n)
        return -ENOENT;
    if (IS_DIR(n))
        return -EISDIR;
    if (w.slash)
        return -ENOTDIR;
    dir_del(v, w.dir, w.dent);
    n->ctime = vfs_now(v);
    node_settle(v, n);
    return 0;
}

int vfs_rmdir(struct vfs *v, uint32_t dir, const char *path, size_t len)
{
    v->changes++;
    struct walk w;
    int err = vfs_walk(v, dir, path, len, WALK_PARENT, &w);
    if (err)
        return err;
    struct vfs_node *n = w.node;
    if (w.type == LAST_DOT)
        return -EINVAL;
    if (w.type == LAST_DOTDOT)
        return -ENOTEMPTY;
    if (w.type == LAST_ROOT)
        return -EBUSY;
    if (!n)
        return -ENOENT;
    if (!IS_DIR(n))
        return -ENOTDIR;
    if ((err = dir_ready(v, n)))
        return err;
    if (n->u.dir.nlive)
        return -ENOTEMPTY;
    dir_del(v, w.dir, w.dent);
    n->ctime = vfs_now(v);
    node_settle(v, n);
    return 0;
}

/* d is a, or a lies on d's way up to the root. */
static bool is_ancestor(const struct vfs *v, const struct vfs_node *a, const struct vfs_node *d)
{
    for (;;) {
        if (d == a)
            return true;
        if (d == v->root || !d->u.dir.parent)
            return false;
        d = d->u.dir.parent;
    }
}

static int rename_checks(struct vfs *v, const struct walk *o, const struct walk *n)
{
    if (o->type != LAST_NORM || n->type != LAST_NORM)
        return -EBUSY;
    if (!o->node)
        return -ENOENT;
    if (!IS_DIR(o->node) && (o->slash || n->slash))
        return -ENOTDIR;
    if (!dir_alive(v, n->dir))
        return -ENOENT;
    if (IS_DIR(o->node) && is_ancestor(v, o->node, n->dir))
        return -EINVAL;      /* into its own subtree */
    if (n->node && IS_DIR(n->node) && is_ancestor(v, n->node, o->dir))
        return -ENOTEMPTY;   /* over one of its own ancestors */
    if (n->node == o->node)
        return 1;            /* the same file: nothing to do */
    if (n->node) {
        if (IS_DIR(o->node) && !IS_DIR(n->node))
            return -ENOTDIR;
        if (!IS_DIR(o->node) && IS_DIR(n->node))
            return -EISDIR;
        if (IS_DIR(n->node)) {
            int err = dir_ready(v, n->node);
            if (err)
                return err;
            if (n->node->u.dir.nlive)
                return -ENOTEMPTY;
        }
    } else if (IS_DIR(o->node) && o->dir != n->dir &&
               n->dir->u.dir.nsubdirs >= VFS_LINK_MAX - 2) {
        return -EMLINK;
    }
    return 0;
}

int vfs_rename(struct vfs *v, uint32_t odir, const char *opath, size_t olen,
               uint32_t ndir, const char *npath, size_t nlen)
{
    v->changes++;
    struct walk o, n;
    int err = vfs_walk(v, odir, opath, olen, WALK_PARENT, &o);
    if (err || (err = vfs_walk(v, ndir, npath, nlen, WALK_PARENT, &n)))
        return err;
    if ((err = rename_checks(v, &o, &n)))
        return err < 0 ? err : 0;
    /* Make all that can fail first: the new entry and room for it. The
     * entries removed give back their charge. */
    uint64_t need = VFS_DENT_CHARGE + n.len;
    uint64_t back = o.dent->charge + (n.dent ? n.dent->charge : 0);
    if (need > back && need - back > v->limit - v->used)
        return -ENOSPC;
    struct vfs_dent *e = dent_new(n.name, n.len, 0);
    if (!e || dir_reserve(n.dir)) {
        free(e);
        return -ENOMEM;
    }
    struct vfs_node *moved = o.node, *victim = n.node;
    node_get(moved);
    if (victim) {
        node_get(victim);
        dir_del(v, n.dir, n.dent);
    }
    dir_del(v, o.dir, o.dent);
    vfs_charge(v, need);      /* cannot fail: checked above */
    e->charge = (uint32_t)need;
    dir_insert(v, n.dir, e, moved);
    moved->ctime = vfs_now(v);
    if (victim) {
        victim->ctime = moved->ctime;
        node_put(v, victim);
    }
    node_put(v, moved);
    return 0;
}
