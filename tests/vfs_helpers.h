/* Helpers shared by tests/test_vfs.c and tests/test_vfs_lower.c. */
#ifndef TESTS_VFS_HELPERS_H
#define TESTS_VFS_HELPERS_H

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../emu/vfs/vfs.h"

#define P(s) (s), strlen(s)
#define ROOT VFS_ROOT

#define S_IFMT_  0170000u
#define S_DIR    0040000u
#define S_REG    0100000u
#define S_LNK    0120000u
#define S_CHR    0020000u
#define S_FIFO   0010000u
#define S_SOCK   0140000u


static int64_t test_ticks;

static inline struct vfs_time test_clock(void *ctx)
{
    (void)ctx;
    return (struct vfs_time){ 1000000 + ++test_ticks, 7 };
}

static inline struct vfs *new_vfs(const char *lower, uint64_t limit)
{
    char err[256] = "";
    struct vfs_config cfg = { lower, limit, test_clock, NULL };
    struct vfs *v = vfs_new(&cfg, err, sizeof err);
    ck_assert_msg(v != NULL, "vfs_new: %s", err);
    return v;
}

static inline int open_at(struct vfs *v, const char *path, int flags)
{
    return vfs_open(v, ROOT, P(path), flags, 0644);
}

/* Create (or replace) path holding text. */
static inline void put_file(struct vfs *v, const char *path, const char *text)
{
    int h = open_at(v, path, VFS_O_CREAT | VFS_O_TRUNC | VFS_O_WRONLY);
    ck_assert_msg(h >= 0, "create %s: %d", path, h);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, text, strlen(text), 0), (ssize_t)strlen(text));
    ck_assert_int_eq(vfs_close(v, (uint32_t)h), 0);
}

/* The whole file as a string (at most 64 KiB), or NULL if it cannot be opened. */
static inline char *get_file(struct vfs *v, const char *path)
{
    static char buf[65536];
    int h = open_at(v, path, VFS_O_RDONLY);
    if (h < 0)
        return NULL;
    ssize_t n = vfs_read(v, (uint32_t)h, buf, sizeof buf - 1, 0);
    ck_assert_int_ge(n, 0);
    buf[n] = 0;
    vfs_close(v, (uint32_t)h);
    return buf;
}

static inline struct vfs_stat stat_of(struct vfs *v, const char *path, int flags)
{
    struct vfs_stat st;
    int err = vfs_stat(v, ROOT, P(path), flags, &st);
    ck_assert_msg(err == 0, "stat %s: %d", path, err);
    return st;
}

/* Call f(name, ino, type, ctx) for each record of one getdents buffer. */
static inline int each_dirent(const uint8_t *buf, int len,
                              void (*f)(const char *, uint64_t, uint8_t, void *), void *ctx)
{
    int n = 0;
    for (int at = 0; at < len; n++) {
        uint64_t ino;
        uint16_t reclen;
        memcpy(&ino, buf + at, 8);
        memcpy(&reclen, buf + at + 16, 2);
        ck_assert_int_gt(reclen, 19);
        ck_assert_int_eq(reclen % 8, 0);
        f((const char *)buf + at + 19, ino, buf[at + 18], ctx);
        at += reclen;
    }
    return n;
}

/* ---- listing a directory ---- */

struct names {
    char *name[2048];
    uint64_t ino[2048];
    uint8_t type[2048];
    int n;
};

static inline void collect_name(const char *name, uint64_t ino, uint8_t type, void *ctx)
{
    struct names *s = ctx;
    ck_assert_int_lt(s->n, 2048);
    s->name[s->n] = strdup(name);
    s->ino[s->n] = ino;
    s->type[s->n++] = type;
}

/* Every record of a directory. */
static inline void list_dir(struct vfs *v, const char *path, struct names *s)
{
    uint8_t buf[4096];
    uint64_t cookie = 0;
    int h = vfs_open(v, ROOT, P(path), VFS_O_DIRECTORY, 0), n;
    ck_assert_int_ge(h, 0);
    memset(s, 0, sizeof *s);
    while ((n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie)) > 0)
        each_dirent(buf, n, collect_name, s);
    ck_assert_int_eq(n, 0);
    vfs_close(v, (uint32_t)h);
}

static inline int count_name(const struct names *s, const char *name)
{
    int c = 0;
    for (int i = 0; i < s->n; i++)
        c += !strcmp(s->name[i], name);
    return c;
}

static inline void free_names(struct names *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->name[i]);
    s->n = 0;
}

#endif
