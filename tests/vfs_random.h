/* Many operations at random, for tests/test_vfs_namei.c and
 * tests/test_vfs_lower.c: a fixed seed, so every run is the same. */
#ifndef TESTS_VFS_RANDOM_H
#define TESTS_VFS_RANDOM_H

#include <stdbool.h>
#include <stdio.h>
#include "vfs_helpers.h"

static uint32_t seed;

static inline uint32_t rnd(uint32_t n)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
}

/* prefix, then 1 to 4 of the parts, with "/" between */
static inline void random_path(char *out, size_t cap, const char *prefix,
                               const char *const *parts, uint32_t nparts)
{
    int n = snprintf(out, cap, "%s", prefix);
    for (uint32_t i = 0, depth = 1 + rnd(4); i < depth; i++)
        n += snprintf(out + n, cap - (size_t)n, "/%s", parts[rnd(nparts)]);
}

/* ops operations on random paths; every handle closed at the end. */
static inline void random_operations(struct vfs *v, int ops, const char *prefix,
                                     const char *const *parts, uint32_t nparts)
{
    char p1[160], p2[160];
    uint8_t buf[512];
    int handles[16];
    int nh = 0;
    size_t skip = strlen(prefix) + 1;   /* p2 + skip: a relative symlink text */
    for (int op = 0; op < ops; op++) {
        random_path(p1, sizeof p1, prefix, parts, nparts);
        random_path(p2, sizeof p2, prefix, parts, nparts);
        uint32_t k = rnd(16);
        int h = nh ? handles[rnd((uint32_t)nh)] : -1;
        switch (k) {
        case 0: case 1: {
            int fl = (int)(rnd(2) ? VFS_O_CREAT : 0) | (rnd(4) ? 0 : VFS_O_TRUNC) |
                     (rnd(8) ? 0 : VFS_O_EXCL) | (rnd(8) ? 0 : VFS_O_NOFOLLOW);
            int nhd = vfs_open(v, ROOT, P(p1), fl, 0644);
            if (nhd >= 0 && nh < 16)
                handles[nh++] = nhd;
            else if (nhd >= 0)
                vfs_close(v, (uint32_t)nhd);
            break;
        }
        case 2:
            if (nh) {
                uint32_t i = rnd((uint32_t)nh);
                ck_assert_int_eq(vfs_close(v, (uint32_t)handles[i]), 0);
                handles[i] = handles[--nh];
            }
            break;
        case 3:
            if (h >= 0)
                vfs_write(v, (uint32_t)h, buf, rnd(sizeof buf), rnd(3) ? rnd(9000) : rnd(1u << 30));
            break;
        case 4:
            if (h >= 0) {
                uint64_t cookie = rnd(4);
                vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie);
                vfs_read(v, (uint32_t)h, buf, sizeof buf, rnd(5000));
                vfs_path_of(v, (uint32_t)h, (char *)buf, rnd(64));
                vfs_ftruncate(v, (uint32_t)h, rnd(10000));
            }
            break;
        case 5: vfs_mkdir(v, ROOT, P(p1), 0755); break;
        case 6: vfs_rmdir(v, ROOT, P(p1)); break;
        case 7: vfs_unlink(v, ROOT, P(p1)); break;
        case 8: case 9: vfs_rename(v, ROOT, P(p1), ROOT, P(p2)); break;
        case 10: vfs_link(v, ROOT, P(p1), ROOT, P(p2), (int)rnd(2) * VFS_FOLLOW); break;
        case 11: vfs_symlink(v, P(p2 + rnd(2) * skip), ROOT, P(p1)); break;
        case 12: vfs_truncate(v, ROOT, P(p1), rnd(6000)); break;
        case 14: case 15: {
            int r = vfs_open(v, ROOT, P(p1), VFS_O_RDONLY, 0);
            if (r >= 0) {
                vfs_read(v, (uint32_t)r, buf, sizeof buf, rnd(2));
                vfs_close(v, (uint32_t)r);
            }
            break;
        }
        default:
            if (h >= 0 && rnd(2))
                vfs_chmod(v, (uint32_t)h, P(p1 + skip), rnd(07777), 0);
            else
                vfs_chmod(v, ROOT, P(p1), rnd(07777), 0);
            break;
        }
    }
    while (nh)
        ck_assert_int_eq(vfs_close(v, (uint32_t)handles[--nh]), 0);
}

/* Remove everything but /dev and /tmp themselves, without recursion:
 * passes over the tree until nothing is left. */
static inline void empty_tree(struct vfs *v)
{
    static char stack[4096][160];
    for (int pass = 0; pass < 64; pass++) {
        int top = 0, left = 0;
        strcpy(stack[top++], "");
        while (top > 0) {
            char dir[160];
            struct names s;
            strcpy(dir, stack[--top]);
            list_dir(v, *dir ? dir : "/", &s);
            for (int i = 2; i < s.n; i++) {
                char path[160];
                ck_assert_int_lt(snprintf(path, sizeof path, "%s/%s", dir, s.name[i]),
                                 (int)sizeof path);
                bool keep = !*dir && (!strcmp(s.name[i], "tmp") || !strcmp(s.name[i], "dev"));
                if (s.type[i] == 4 && (keep || vfs_rmdir(v, ROOT, P(path)) == -ENOTEMPTY)) {
                    ck_assert_int_lt(top, 4096);
                    strcpy(stack[top++], path);
                    left += !keep;
                } else if (s.type[i] != 4) {
                    ck_assert_int_eq(vfs_unlink(v, ROOT, P(path)), 0);
                }
            }
            free_names(&s);
        }
        if (!left)
            return;
    }
    ck_abort_msg("the tree did not empty");
}

#endif
