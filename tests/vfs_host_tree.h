/* A real host tree for the vfs's lower-layer tests (test_vfs_lower.c,
 * test_vfs_bounds.c): made with mkdtemp in setup, removed in teardown. */
#ifndef TESTS_VFS_HOST_TREE_H
#define TESTS_VFS_HOST_TREE_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before including vfs_host_tree.h (nftw)"
#endif

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vfs_helpers.h"

#define PASSWD "root:x:0:0:from the lower tree:/root:/bin/sh\n"

static char lower[64];
static struct vfs *v;

/* ---- the host tree ---- */

static inline void host_path(char *out, size_t cap, const char *rel)
{
    ck_assert_int_lt(snprintf(out, cap, "%s/%s", lower, rel), (int)cap);
}

static inline void host_file(const char *rel, const char *text, mode_t mode)
{
    char p[512];
    host_path(p, sizeof p, rel);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, mode);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    fchmod(fd, mode);
    close(fd);
}

static inline void host_dir(const char *rel)
{
    char p[512];
    host_path(p, sizeof p, rel);
    ck_assert_int_eq(mkdir(p, 0755), 0);
}

static inline void host_symlink(const char *rel, const char *target)
{
    char p[512];
    host_path(p, sizeof p, rel);
    ck_assert_int_eq(symlink(target, p), 0);
}

/* A new vfs over the host tree as it is now: the root is listed at once. */
static inline void renew(uint64_t limit)
{
    vfs_free(v);
    v = new_vfs(lower, limit);
}

/* n files named f0 .. f<n-1>, each holding its name, in a new host
 * directory; then a new vfs that sees it. */
static inline void host_many(const char *rel, int n)
{
    char p[512], name[32];
    host_dir(rel);
    host_path(p, sizeof p, rel);
    int dfd = open(p, O_DIRECTORY | O_RDONLY);
    ck_assert_int_ge(dfd, 0);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "f%d", i);
        int fd = openat(dfd, name, O_CREAT | O_WRONLY, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, name, strlen(name)), (ssize_t)strlen(name));
        close(fd);
    }
    close(dfd);
    renew(VFS_DEFAULT_LIMIT);
}

/* A host directory of n names f0 .. f<n-1> holding "shared": hard links
 * to a few files (linking is ten times quicker than creating; a file
 * takes at most 65000 links on ext4); then a new vfs. */
static inline void host_huge(const char *rel, int n)
{
    char p[512], name[32], src[32] = "";
    host_dir(rel);
    host_path(p, sizeof p, rel);
    int dfd = open(p, O_DIRECTORY | O_RDONLY);
    ck_assert_int_ge(dfd, 0);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "f%d", i);
        if (i % 50000 == 0) {
            int fd = openat(dfd, name, O_CREAT | O_WRONLY, 0644);
            ck_assert_int_eq(write(fd, "shared", 6), 6);
            close(fd);
            strcpy(src, name);
        } else {
            ck_assert_int_eq(linkat(dfd, src, dfd, name, 0), 0);
        }
    }
    close(dfd);
    renew(VFS_DEFAULT_LIMIT);
}

static inline void setup(void)
{
    char p[512], big[3 * 4096 + 100];
    strcpy(lower, "/tmp/vfs-lower-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(lower));
    host_dir("etc");
    host_file("etc/passwd", PASSWD, 0644);
    host_file("etc/hostname", "lower\n", 0644);
    host_symlink("etc/shadowlink", "/etc/shadow");
    host_dir("bin");
    host_file("bin/sh", "#!fake\n", 0755);
    host_dir("a");
    host_dir("a/b");
    host_dir("a/b/c");
    host_file("a/b/c/deep.txt", "deep\n", 0644);
    host_symlink("a/b/up", "../../../../../..");
    host_symlink("a/b/pw", "/etc/passwd");
    host_path(p, sizeof p, "etc/passwd");
    host_symlink("rootlink", p);   /* the host's absolute path of a lower file */
    host_dir("e");
    host_dir("dev");
    host_file("dev/sda", "not a disk", 0644);
    host_dir("tmp");
    host_file("tmp/hostfile", "hidden", 0644);
    for (size_t i = 0; i < sizeof big - 1; i++)
        big[i] = (char)('a' + i % 26);
    big[sizeof big - 1] = 0;
    host_file("big.bin", big, 0644);
    host_path(p, sizeof p, "fifo");
    ck_assert_int_eq(mkfifo(p, 0644), 0);
    test_ticks = 0;
    v = new_vfs(lower, VFS_DEFAULT_LIMIT);
}

static inline int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void teardown(void)
{
    vfs_free(v);
    v = NULL;
    nftw(lower, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* An order-free checksum of every name, type, mode, size, inode, mtime,
 * ctime, file byte and link text under the host directory. */
static uint64_t tree_sum;

static inline uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static inline int sum_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)flag;
    (void)ftw;
    uint64_t h = fnv(14695981039346656037ull, path, strlen(path));
    uint64_t fields[] = { st->st_mode, (uint64_t)st->st_size, st->st_ino,
                          (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec,
                          (uint64_t)st->st_ctim.tv_sec, (uint64_t)st->st_ctim.tv_nsec };
    h = fnv(h, fields, sizeof fields);
    char buf[8192];
    if (S_ISREG(st->st_mode)) {
        int fd = open(path, O_RDONLY);
        ssize_t n;
        while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
            h = fnv(h, buf, (size_t)n);
        close(fd);
    } else if (S_ISLNK(st->st_mode)) {
        ssize_t n = readlink(path, buf, sizeof buf);
        h = fnv(h, buf, n > 0 ? (size_t)n : 0);
    }
    tree_sum += h;
    return 0;
}

static inline uint64_t host_checksum(void)
{
    tree_sum = 0;
    ck_assert_int_eq(nftw(lower, sum_one, 16, FTW_PHYS), 0);
    return tree_sum;
}

/* Read one byte of each of /many/f0 .. f<n-1>, so other host descriptors
 * are closed. */
static inline void touch_many(int n)
{
    char path[64], c;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/many/f%d", i);
        int h = open_at(v, path, VFS_O_RDONLY);
        ck_assert_int_ge(h, 0);
        ck_assert_int_eq(vfs_read(v, (uint32_t)h, &c, 1, 0), 1);
        vfs_close(v, (uint32_t)h);
    }
}


#endif
