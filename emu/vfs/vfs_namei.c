/*
 * Path walking. Iterative: the path still to walk is a stack of segments
 * (the caller's path, then the text of each symlink being followed), at
 * most VFS_SYMLINK_MAX + 1 deep; a symlink's text is read in place from
 * its node, never copied. An absolute path or symlink starts at the tree's
 * root, and ".." at the root stays there, so nothing leads outside.
 */
#include "vfs/vfs_impl.h"
#include <errno.h>
#include <string.h>

struct segment {
    const char *p;
    size_t n;
};

struct nd {
    struct vfs *v;
    struct vfs_node *cur;
    struct segment seg[VFS_SYMLINK_MAX + 1];
    int depth;
    int links;
};

static bool strip_slashes(struct segment *s)
{
    bool any = false;
    while (s->n && *s->p == '/') {
        s->p++;
        s->n--;
        any = true;
    }
    return any;
}

static void push(struct nd *nd, const char *p, size_t n)
{
    struct segment *s = &nd->seg[nd->depth++];
    s->p = p;
    s->n = n;
    if (n && *p == '/')
        nd->cur = nd->v->root;
    strip_slashes(s);
}

/* The next component; *slash if slashes followed it. */
static bool next_component(struct nd *nd, const char **name, size_t *len, bool *slash)
{
    while (nd->depth && !nd->seg[nd->depth - 1].n)
        nd->depth--;
    if (!nd->depth)
        return false;
    struct segment *s = &nd->seg[nd->depth - 1];
    const char *end = memchr(s->p, '/', s->n);
    size_t l = end ? (size_t)(end - s->p) : s->n;
    *name = s->p;
    *len = l;
    s->p += l;
    s->n -= l;
    *slash = strip_slashes(s);
    return true;
}

static bool nothing_left(const struct nd *nd)
{
    for (int i = 0; i < nd->depth; i++)
        if (nd->seg[i].n)
            return false;
    return true;
}

static int start_dir(struct vfs *v, uint32_t dir, struct vfs_node **out)
{
    if (dir == VFS_ROOT) {
        *out = v->root;
        return 0;
    }
    struct vfs_node *d = handle_node(v, dir);
    if (!d)
        return -EBADF;
    if (!IS_DIR(d))
        return -ENOTDIR;
    *out = d;
    return 0;
}

static bool is_dot(const char *s, size_t n)
{
    return n == 1 && s[0] == '.';
}

static bool is_dotdot(const char *s, size_t n)
{
    return n == 2 && s[0] == '.' && s[1] == '.';
}

static struct vfs_node *parent_of(struct vfs *v, struct vfs_node *d)
{
    return d == v->root || !d->u.dir.parent ? d : d->u.dir.parent;
}

int vfs_walk(struct vfs *v, uint32_t dir, const char *path, size_t len, unsigned flags,
             struct walk *w)
{
    struct nd nd = { .v = v };
    bool must_dir = false;
    int err;
    memset(w, 0, sizeof *w);
    if (len == 0)
        return -ENOENT;
    if (len >= VFS_PATH_MAX)
        return -ENAMETOOLONG;
    if (memchr(path, 0, len))
        return -EINVAL;
    if (path[0] != '/' && (err = start_dir(v, dir, &nd.cur)))
        return err;
    push(&nd, path, len);
    for (;;) {
        const char *name;
        size_t nlen;
        bool slash;
        struct vfs_node *cur = nd.cur;
        if (!next_component(&nd, &name, &nlen, &slash)) {
            w->type = LAST_ROOT;   /* "/", or a symlink to it */
            w->node = cur;
            return 0;
        }
        bool last = nothing_left(&nd);
        must_dir |= last && slash;
        if (nlen > VFS_NAME_MAX)
            return -ENAMETOOLONG;
        if (is_dot(name, nlen) || is_dotdot(name, nlen)) {
            struct vfs_node *to = is_dot(name, nlen) ? cur : parent_of(v, cur);
            if (!last) {
                nd.cur = to;
                continue;
            }
            *w = (struct walk){ .dir = cur, .node = to, .name = name, .len = nlen,
                                .type = is_dot(name, nlen) ? LAST_DOT : LAST_DOTDOT,
                                .slash = must_dir };
            return 0;
        }
        if ((err = dir_ready(v, cur)))
            return err;
        struct vfs_dent *e = dir_find(cur, name, nlen);
        struct vfs_node *n = NULL;
        if (e && (err = dent_node(v, cur, e, &n)))
            return err;
        if (!n && !last)
            return -ENOENT;
        if (n && IS_LNK(n) &&
            (!last || (flags & WALK_FOLLOW) || (must_dir && !(flags & WALK_PARENT)))) {
            if (++nd.links > VFS_SYMLINK_MAX)
                return -ELOOP;
            if (!n->u.lnk.len)
                return -ENOENT;
            push(&nd, n->u.lnk.target, n->u.lnk.len);
            continue;
        }
        if (!last) {
            if (!IS_DIR(n))
                return -ENOTDIR;
            nd.cur = n;
            continue;
        }
        *w = (struct walk){ .dir = cur, .node = n, .dent = e, .name = name, .len = nlen,
                            .type = LAST_NORM, .slash = must_dir };
        return 0;
    }
}

int vfs_resolve(struct vfs *v, uint32_t dir, const char *path, size_t len, int flags,
                struct vfs_node **out)
{
    struct walk w;
    int err = vfs_walk(v, dir, path, len, (flags & VFS_NOFOLLOW) ? 0 : WALK_FOLLOW, &w);
    if (err)
        return err;
    if (!w.node)
        return -ENOENT;
    if (w.slash && !IS_DIR(w.node))
        return -ENOTDIR;
    *out = w.node;
    return 0;
}
