/*
 * The vfs's private structures, shared by its files:
 *   vfs_tree.c   making the tree, nodes, handles, charges
 *   vfs_attr.c   stat, chmod, chown, utimens, access, path_of
 *   vfs_namei.c  path walking and symlinks
 *   vfs_dir.c    directory entries and getdents
 *   vfs_ops.c    open and the namespace operations
 *   vfs_file.c   file pages, read, write, truncate, copy-up
 *   vfs_lower.c  the read-only host tree
 *   vfs_clone.c  a copy of the whole tree (snapshots)
 */
#ifndef EMU_VFS_IMPL_H
#define EMU_VFS_IMPL_H

#include <stdbool.h>
#include "vfs/vfs.h"

#define VFS_PAGE          4096u
#define VFS_NODE_CHARGE   256u
#define VFS_DENT_CHARGE   64u
#define VFS_LOWER_TOTAL   (1u << 20)   /* lower entries listed, all directories */
#define VFS_SEQ_FIRST     2u           /* 0 is ".", 1 is ".." */
#define VFS_SEQ_END       0x7fffffffu
#define VFS_LINK_MAX      65000u
#define VFS_HOST_DEVS     32
#define VFS_DEV_LAYER     VFS_MKDEV(0, 0x10)
#define VFS_DEV_LOWER(i)  VFS_MKDEV(0, 0x11 + (i))
#define VFS_IO_MAX        0x7ffff000u  /* Linux's MAX_RW_COUNT */

/* d_type values */
#define VFS_DT_UNKNOWN 0
#define VFS_DT_FIFO    1
#define VFS_DT_CHR     2
#define VFS_DT_DIR     4
#define VFS_DT_BLK     6
#define VFS_DT_REG     8
#define VFS_DT_LNK     10
#define VFS_DT_SOCK    12

struct vfs_dent {
    struct vfs_dent *left, *right;   /* the directory's AVL tree, by name */
    struct vfs_node *node;           /* NULL: a lower entry not looked up yet */
    uint64_t ino;                    /* the host's, while node is NULL */
    uint32_t seq;                    /* position in the listing order */
    uint32_t charge;                 /* bytes charged; 0 for lower listings */
    uint16_t len;
    uint8_t type;                    /* VFS_DT_* */
    int8_t height;
    char name[];
};

struct vfs_slot {
    uint32_t seq;
    struct vfs_dent *d;              /* NULL: removed */
};

struct vfs_dir {
    struct vfs_dent *names;          /* AVL tree by name */
    struct vfs_slot *order;          /* ascending seq, with holes */
    uint32_t norder, cap, nlive, next_seq, nsubdirs;
    struct vfs_node *parent;         /* counted; NULL for the root */
    struct vfs_dent *dent;           /* our entry in parent; NULL if removed */
    bool unlisted;                   /* lower entries not read from the host yet */
    int list_err;                    /* a failed listing, not retried */
};

struct vfs_page {
    uint64_t index;
    uint8_t *data;
};

struct vfs_node {
    struct vfs_node *prev, *next;    /* every node, for vfs_free */
    struct vfs_node *dead_next;      /* node_put's work list */
    uint64_t ino, size, host_blocks;
    uint32_t dev, rdev, mode, uid, gid;
    uint32_t links;                  /* directory entries naming it */
    uint32_t refs;                   /* handles, children, lower children */
    uint32_t host_nlink;             /* lower directories until listed */
    uint32_t charge;
    struct vfs_time atime, mtime, ctime;
    /* where a lower node is on the host: its host parent and name */
    bool lower_data;                 /* regular: the bytes are still the host's */
    bool lower_dir;                  /* directory: has a host directory */
    bool hidden_host;                /* a lower device/FIFO/socket: never opened */
    struct vfs_node *lparent;        /* counted */
    char *lname;
    uint64_t host_dev, host_ino;
    int lru;                         /* slot in v->lru, or -1 */
    union {
        struct vfs_dir dir;
        struct {
            struct vfs_page *pages;  /* ascending index */
            uint32_t npages, cap;
        } reg;
        struct {
            char *target;
            uint32_t len;
        } lnk;
    } u;
};

struct vfs_lru_slot {
    struct vfs_node *node;
    int fd;
    uint64_t stamp;
};

struct vfs_handle {
    struct vfs_node *node;           /* NULL: free */
    uint32_t refs;
};

struct vfs {
    struct vfs_node *root, *all;
    int root_fd;                     /* the lower directory, or -1 */
    uint64_t used, limit, next_ino, lower_entries;
    vfs_clock_fn clock;
    void *clock_ctx;
    struct vfs_lru_slot lru[VFS_LRU_FDS];
    uint64_t lru_clock;
    uint64_t host_devs[VFS_HOST_DEVS];
    uint32_t nhost_devs;
    uint32_t handle_hint;
    struct vfs_node *tmp, *dev;      /* made here; the root listing adds them */
    bool lower_tmp;                  /* the lower tree's own tmp is the guest's */
    struct vfs_host_stats host;
    uint64_t changes;                /* vfs_changes */
    struct vfs_handle handles[VFS_MAX_HANDLES];
};

#define S_TYPE(m) ((m) & 0170000u)
#define IS_DIR(n) (S_TYPE((n)->mode) == 0040000u)
#define IS_REG(n) (S_TYPE((n)->mode) == 0100000u)
#define IS_LNK(n) (S_TYPE((n)->mode) == 0120000u)

/* vfs_tree.c */
struct vfs_time vfs_now(struct vfs *v);
int vfs_charge(struct vfs *v, uint64_t bytes);
void vfs_uncharge(struct vfs *v, uint64_t bytes);
struct vfs_node *node_alloc(struct vfs *v, uint32_t mode);    /* no number, no charge */
int node_create(struct vfs *v, uint32_t mode, struct vfs_node **out); /* a new node */
void node_get(struct vfs_node *n);
void node_put(struct vfs *v, struct vfs_node *n);
void node_settle(struct vfs *v, struct vfs_node *n);  /* free it if nothing names it */
struct vfs_node *handle_node(struct vfs *v, uint32_t h);
int handle_new(struct vfs *v, struct vfs_node *n);
bool handle_available(const struct vfs *v);
uint8_t mode_dtype(uint32_t mode);
bool dir_alive(const struct vfs *v, const struct vfs_node *d);

/* vfs_namei.c */
enum { LAST_NORM, LAST_DOT, LAST_DOTDOT, LAST_ROOT };
#define WALK_FOLLOW 1u     /* follow a symlink in the last component */
#define WALK_PARENT 2u     /* ... not even if a '/' follows it (unlink, rename ...) */
struct walk {
    struct vfs_node *dir;            /* where the last name is (NORM, DOT, DOTDOT) */
    struct vfs_node *node;           /* what it names, or NULL */
    struct vfs_dent *dent;           /* its entry (NORM, found) */
    const char *name;                /* the last component */
    size_t len;
    int type;                        /* LAST_* */
    bool slash;                      /* a '/' followed it: must be a directory */
};
int vfs_walk(struct vfs *v, uint32_t dir, const char *path, size_t len, unsigned flags,
             struct walk *w);
/* The node a path names, following the last symlink unless VFS_NOFOLLOW. */
int vfs_resolve(struct vfs *v, uint32_t dir, const char *path, size_t len, int flags,
                struct vfs_node **out);

/* vfs_dir.c */
struct vfs_dent *dent_new(const char *name, size_t len, uint8_t type);
struct vfs_dent *dir_find(struct vfs_node *d, const char *name, size_t len);
int dir_ready(struct vfs *v, struct vfs_node *d);
void dir_attach(struct vfs_node *d, struct vfs_dent *e, struct vfs_node *n);
int dent_node(struct vfs *v, struct vfs_node *d, struct vfs_dent *e, struct vfs_node **out);
int dir_add(struct vfs *v, struct vfs_node *d, const char *name, size_t len,
            struct vfs_node *n, bool charged);
int dir_reserve(struct vfs_node *d);   /* room for one dir_insert */
void dir_insert(struct vfs *v, struct vfs_node *d, struct vfs_dent *e, struct vfs_node *n);
void dir_del(struct vfs *v, struct vfs_node *d, struct vfs_dent *e);
int dir_fill(struct vfs *v, struct vfs_node *d, struct vfs_dent **sorted, uint32_t n);
int dent_cmp(const char *a, size_t alen, const char *b, size_t blen);
void dir_free_entries(struct vfs *v, struct vfs_node *d);
uint32_t dir_nlink(const struct vfs *v, const struct vfs_node *d);

/* vfs_file.c */
int file_truncate(struct vfs *v, struct vfs_node *n, uint64_t size);
int file_copy_up(struct vfs *v, struct vfs_node *n, uint64_t keep);
void file_free_pages(struct vfs *v, struct vfs_node *n);

/* vfs_lower.c */
int lower_init(struct vfs *v, const char *path, char *err, size_t errlen);
void lower_free(struct vfs *v);
int lower_list(struct vfs *v, struct vfs_node *d);
int lower_node(struct vfs *v, struct vfs_node *d, struct vfs_dent *e, struct vfs_node **out);
ssize_t lower_pread(struct vfs *v, struct vfs_node *n, void *buf, size_t len, uint64_t pos);
void lower_forget(struct vfs *v, struct vfs_node *n);   /* close its descriptor */

#endif
