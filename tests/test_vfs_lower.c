/* The vfs over a read-only host directory (emu/vfs_lower.c): a real tree
 * made in a temporary directory, checked before and after. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "vfs_helpers.h"
#include "support.h"

#define PASSWD "root:x:0:0:from the lower tree:/root:/bin/sh\n"

static char lower[64];
static struct vfs *v;

/* ---- the host tree ---- */

static void host_path(char *out, size_t cap, const char *rel)
{
    ck_assert_int_lt(snprintf(out, cap, "%s/%s", lower, rel), (int)cap);
}

static void host_file(const char *rel, const char *text, mode_t mode)
{
    char p[512];
    host_path(p, sizeof p, rel);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, mode);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    fchmod(fd, mode);
    close(fd);
}

static void host_dir(const char *rel)
{
    char p[512];
    host_path(p, sizeof p, rel);
    ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void host_symlink(const char *rel, const char *target)
{
    char p[512];
    host_path(p, sizeof p, rel);
    ck_assert_int_eq(symlink(target, p), 0);
}

/* A new vfs over the host tree as it is now: the root is listed at once. */
static void renew(uint64_t limit)
{
    vfs_free(v);
    v = new_vfs(lower, limit);
}

/* n files named f0 .. f<n-1>, each holding its name, in a new host
 * directory; then a new vfs that sees it. */
static void host_many(const char *rel, int n)
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
static void host_huge(const char *rel, int n)
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

static void setup(void)
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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    vfs_free(v);
    v = NULL;
    nftw(lower, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* An order-free checksum of every name, type, mode, size, inode, mtime,
 * ctime, file byte and link text under the host directory. */
static uint64_t tree_sum;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int sum_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
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

static uint64_t host_checksum(void)
{
    tree_sum = 0;
    ck_assert_int_eq(nftw(lower, sum_one, 16, FTW_PHYS), 0);
    return tree_sum;
}

/* Read one byte of each of /many/f0 .. f<n-1>, so other host descriptors
 * are closed. */
static void touch_many(int n)
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

struct listing {
    char name[64][64];
    uint64_t ino[64];
    uint8_t type[64];
    int n;
};

static void collect(const char *name, uint64_t ino, uint8_t type, void *ctx)
{
    struct listing *l = ctx;
    ck_assert_int_lt(l->n, 64);
    snprintf(l->name[l->n], 64, "%s", name);
    l->ino[l->n] = ino;
    l->type[l->n++] = type;
}

static void list_dir(const char *path, struct listing *l)
{
    uint8_t buf[512];
    uint64_t cookie = 0;
    int h = open_at(v, path, VFS_O_DIRECTORY), n;
    ck_assert_int_ge(h, 0);
    l->n = 0;
    while ((n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie)) > 0)
        each_dirent(buf, n, collect, l);
    ck_assert_int_eq(n, 0);
    vfs_close(v, (uint32_t)h);
}

/* ---- reading the host ---- */

START_TEST(lower_files_read_and_stat_as_the_host_has_them)
{
    char p[512];
    struct stat hs;
    ck_assert_str_eq(get_file(v, "/etc/passwd"), PASSWD);
    host_path(p, sizeof p, "etc/passwd");
    ck_assert_int_eq(lstat(p, &hs), 0);
    struct vfs_stat st = stat_of(v, "/etc/passwd", 0);
    ck_assert_uint_eq(st.ino, hs.st_ino);
    ck_assert_uint_eq(st.mode, hs.st_mode);
    ck_assert_uint_eq(st.size, (uint64_t)hs.st_size);
    ck_assert_int_eq(st.mtime.sec, hs.st_mtim.tv_sec);
    ck_assert_uint_eq(st.mtime.nsec, (uint32_t)hs.st_mtim.tv_nsec);
    ck_assert_uint_ne(st.dev, stat_of(v, "/tmp", 0).dev);   /* layer vs host */
    ck_assert_uint_eq(st.dev, stat_of(v, "/", 0).dev);
}
END_TEST

START_TEST(lower_files_are_read_on_demand_not_copied)
{
    uint64_t before, after, limit;
    static char buf[20000];
    vfs_usage(v, &before, &limit);
    uint64_t preads = vfs_host_stats(v)->preads;
    int h = open_at(v, "/big.bin", VFS_O_RDWR);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 4096), 4096 * 2 + 100 - 1);
    ck_assert_int_eq(buf[0], 'a' + 4096 % 26);
    vfs_close(v, (uint32_t)h);
    vfs_usage(v, &after, &limit);
    ck_assert_uint_eq(after, before);
    ck_assert_uint_gt(vfs_host_stats(v)->preads, preads);
}
END_TEST

START_TEST(lower_listings_are_sorted_with_types_and_host_inodes)
{
    struct listing l;
    list_dir("/etc", &l);
    ck_assert_int_eq(l.n, 5);
    ck_assert_str_eq(l.name[2], "hostname");
    ck_assert_str_eq(l.name[3], "passwd");
    ck_assert_str_eq(l.name[4], "shadowlink");
    ck_assert_uint_eq(l.type[3], 8);    /* DT_REG */
    ck_assert_uint_eq(l.type[4], 10);   /* DT_LNK */
    ck_assert_uint_eq(l.ino[3], stat_of(v, "/etc/passwd", 0).ino);
    ck_assert_uint_eq(l.ino[1], stat_of(v, "/", 0).ino);
    list_dir("/", &l);
    for (int i = 3; i < l.n; i++)
        ck_assert_int_lt(strcmp(l.name[i - 1], l.name[i]), 0);
    int fifo = 0;
    for (int i = 0; i < l.n; i++)
        if (!strcmp(l.name[i], "fifo"))
            fifo = l.type[i];
    ck_assert_int_eq(fifo, 1);   /* DT_FIFO */
}
END_TEST

START_TEST(lower_dev_and_tmp_are_replaced_by_the_vfs_own)
{
    struct listing l;
    ck_assert_int_eq(vfs_access(v, ROOT, P("/dev/sda"), 0, 0), -ENOENT);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/hostfile"), 0, 0), -ENOENT);
    ck_assert_uint_eq(stat_of(v, "/dev/null", 0).rdev, VFS_MKDEV(1, 3));
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).mode, 0041777);
    list_dir("/", &l);
    int dev = 0, tmp = 0;
    for (int i = 0; i < l.n; i++) {
        dev += !strcmp(l.name[i], "dev");
        tmp += !strcmp(l.name[i], "tmp");
    }
    ck_assert_int_eq(dev, 1);
    ck_assert_int_eq(tmp, 1);
    ck_assert_uint_eq(stat_of(v, "/dev/..", 0).ino, stat_of(v, "/", 0).ino);
}
END_TEST

START_TEST(exec_ok_needs_an_x_bit_on_lower_files)
{
    int sh = open_at(v, "/bin/sh", 0), pw = open_at(v, "/etc/passwd", 0);
    ck_assert_int_eq(vfs_exec_ok(v, (uint32_t)sh), 0);
    ck_assert_int_eq(vfs_exec_ok(v, (uint32_t)pw), -EACCES);
    vfs_close(v, (uint32_t)sh);
    vfs_close(v, (uint32_t)pw);
}
END_TEST

/* ---- containment ---- */

START_TEST(a_symlink_to_etc_passwd_resolves_inside_the_lower_tree)
{
    ck_assert_str_eq(get_file(v, "/a/b/pw"), PASSWD);
}
END_TEST

START_TEST(dotdot_symlinks_stop_at_the_lower_root)
{
    ck_assert_uint_eq(stat_of(v, "/a/b/up", 0).ino, stat_of(v, "/", 0).ino);
    ck_assert_str_eq(get_file(v, "/a/b/up/etc/passwd"), PASSWD);
    ck_assert_str_eq(get_file(v, "/a/b/c/../../../../../../etc/passwd"), PASSWD);
}
END_TEST

START_TEST(a_lower_symlink_to_an_absolute_host_path_stays_inside)
{
    ck_assert_int_eq(access("/etc/shadow", F_OK), 0);   /* the host has one */
    ck_assert_int_eq(open_at(v, "/etc/shadowlink", 0), -ENOENT);
    ck_assert_int_eq(open_at(v, "/rootlink", 0), -ENOENT);   /* "/tmp/vfs-lower-..." */
}
END_TEST

START_TEST(a_lower_fifo_is_listed_and_stated_but_never_opened)
{
    /* opening the FIFO on the host would block: the tcase timeout is the check */
    ck_assert_uint_eq(stat_of(v, "/fifo", 0).mode & 0170000, 0010000);
    ck_assert_int_eq(open_at(v, "/fifo", VFS_O_RDONLY), -EACCES);
    ck_assert_int_eq(open_at(v, "/fifo", VFS_O_WRONLY), -EACCES);
    ck_assert_int_eq(open_at(v, "/fifo", VFS_O_RDWR | VFS_O_TRUNC), -EACCES);
    /* a socket likewise */
    char p[512];
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    host_path(p, sizeof p, "sock");
    ck_assert_uint_lt(strlen(p), sizeof sa.sun_path);
    strcpy(sa.sun_path, p);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    renew(VFS_DEFAULT_LIMIT);
    ck_assert_uint_eq(stat_of(v, "/sock", 0).mode & 0170000, 0140000);
    ck_assert_int_eq(open_at(v, "/sock", VFS_O_RDONLY), -EACCES);
    close(s);
}
END_TEST

START_TEST(a_host_object_replaced_after_lookup_is_not_followed)
{
    char p[512], q[512], buf[64];
    host_many("many", 100);
    int h = open_at(v, "/a/b/c/deep.txt", VFS_O_RDONLY);
    int hn = open_at(v, "/etc/hostname", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), 5);
    ck_assert_int_eq(vfs_read(v, (uint32_t)hn, buf, sizeof buf, 0), 6);
    touch_many(100);   /* their host descriptors are closed now */
    /* on the host: "a" becomes a symlink to "/", hostname a new file */
    host_path(p, sizeof p, "a");
    host_path(q, sizeof q, "a_old");
    ck_assert_int_eq(rename(p, q), 0);
    ck_assert_int_eq(symlink("/", p), 0);
    host_file("etc/hostname.new", "other\n", 0644);   /* made first: a new inode */
    host_path(p, sizeof p, "etc/hostname.new");
    host_path(q, sizeof q, "etc/hostname");
    ck_assert_int_eq(rename(p, q), 0);
    ck_assert_int_lt(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), 0);
    ck_assert_int_eq(vfs_read(v, (uint32_t)hn, buf, sizeof buf, 0), -ESTALE);
    vfs_close(v, (uint32_t)h);
    vfs_close(v, (uint32_t)hn);
}
END_TEST

/* ---- copy-up ---- */

START_TEST(changes_over_lower_files_leave_the_host_untouched)
{
    uint64_t sum = host_checksum();
    int h = open_at(v, "/etc/passwd", VFS_O_WRONLY);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "ROOT", 4, 0), 4);
    vfs_close(v, (uint32_t)h);
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/etc/hostname"), 2), 0);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/bin/sh"), 0700, 0), 0);
    struct vfs_time t[2] = { { 5, 0 }, { 6, 0 } };
    ck_assert_int_eq(vfs_utimens(v, ROOT, P("/a/b/c/deep.txt"), t, 0), 0);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/etc"), 0700, 0), 0);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/big.bin")), 0);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/etc/passwd"), ROOT, P("/etc/pw2"), 0), 0);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/a"), ROOT, P("/z")), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/e/new"), 0755), 0);
    put_file(v, "/e/new/f", "new");
    ck_assert_int_eq(vfs_symlink(v, P("x"), ROOT, P("/etc/l")), 0);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/e"), ROOT, P("/bin/e")), 0);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/z/b/c/../c")), -ENOTEMPTY);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/z/b/c/deep.txt")), 0);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/z/b/c")), 0);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/z/b/up")), 0);
    /* the vfs sees every change */
    char expect[sizeof PASSWD];
    memcpy(expect, PASSWD, sizeof PASSWD);
    memcpy(expect, "ROOT", 4);
    ck_assert_str_eq(get_file(v, "/etc/pw2"), expect);
    ck_assert_str_eq(get_file(v, "/etc/hostname"), "lo");
    ck_assert_uint_eq(stat_of(v, "/bin/sh", 0).mode, 0100700);
    ck_assert_uint_eq(stat_of(v, "/etc", 0).mode, 0040700);
    ck_assert_str_eq(get_file(v, "/bin/e/new/f"), "new");
    ck_assert_int_eq(vfs_access(v, ROOT, P("/a"), 0, 0), -ENOENT);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/z/b/c"), 0, 0), -ENOENT);
    /* the host none */
    ck_assert_uint_eq(host_checksum(), sum);
}
END_TEST

START_TEST(copy_up_keeps_the_inode_and_every_other_byte)
{
    static char before[20000], after[20000];
    uint64_t ino = stat_of(v, "/big.bin", 0).ino;
    int h = open_at(v, "/big.bin", VFS_O_RDWR);
    ssize_t n = vfs_read(v, (uint32_t)h, before, sizeof before, 0);
    ck_assert_int_eq(n, 3 * 4096 + 99);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "#", 1, 5000), 1);
    uint64_t preads = vfs_host_stats(v)->preads;
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, after, sizeof after, 0), n);
    ck_assert_uint_eq(vfs_host_stats(v)->preads, preads);   /* in memory now */
    before[5000] = '#';
    ck_assert_int_eq(memcmp(before, after, (size_t)n), 0);
    ck_assert_uint_eq(stat_of(v, "/big.bin", 0).ino, ino);
    ck_assert_uint_eq(stat_of(v, "/big.bin", 0).blocks, 4 * 8);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(a_copy_up_that_does_not_fit_is_enospc_and_keeps_the_lower_file)
{
    renew(3 * 4096);
    int h = open_at(v, "/big.bin", VFS_O_RDWR);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "#", 1, 0), -ENOSPC);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/big.bin"), 0600, 0), -ENOSPC);
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/big.bin"), 3 * 4096 + 1), -ENOSPC);
    char c;
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, &c, 1, 0), 1);
    ck_assert_int_eq(c, 'a');
    uint64_t used, limit;
    vfs_usage(v, &used, &limit);
    ck_assert_uint_eq(used, 0);
    /* a truncate that keeps less does fit */
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/big.bin"), 4096), 0);
    ck_assert_uint_eq(stat_of(v, "/big.bin", 0).size, 4096);
    vfs_close(v, (uint32_t)h);
}
END_TEST

/* Two host names of one file: one inode and nlink 2 while both are the
 * host's; writing one copies it up, which breaks the link. */
START_TEST(a_copy_up_breaks_a_host_hard_link)
{
    char p[512], q[512];
    host_path(p, sizeof p, "etc/hostname");
    host_path(q, sizeof q, "etc/hostname2");
    ck_assert_int_eq(link(p, q), 0);
    renew(VFS_DEFAULT_LIMIT);
    struct vfs_stat a = stat_of(v, "/etc/hostname", 0), b = stat_of(v, "/etc/hostname2", 0);
    ck_assert_uint_eq(a.ino, b.ino);
    ck_assert_uint_eq(a.nlink, 2);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/etc/hostname"), ROOT, P("/tmp/third"), 0), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/third", 0).nlink, 3);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/third")), 0);
    int h = open_at(v, "/etc/hostname2", VFS_O_WRONLY);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "L", 1, 0), 1);
    vfs_close(v, (uint32_t)h);
    b = stat_of(v, "/etc/hostname2", 0);
    ck_assert_uint_ne(b.ino, a.ino);
    ck_assert_uint_eq(b.nlink, 1);
    ck_assert_str_eq(get_file(v, "/etc/hostname2"), "Lower\n");
    ck_assert_str_eq(get_file(v, "/etc/hostname"), "lower\n");
    ck_assert_uint_eq(stat_of(v, "/etc/hostname", 0).ino, a.ino);
}
END_TEST

START_TEST(lower_files_unlinked_or_renamed_while_open_still_read)
{
    char buf[16] = { 0 };
    host_many("many", 100);
    int h = open_at(v, "/a/b/c/deep.txt", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/a/b/c/deep.txt")), 0);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/a/b/c")), 0);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/a"), ROOT, P("/tmp/a")), 0);
    touch_many(100);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), 5);
    ck_assert_str_eq(buf, "deep\n");
    vfs_close(v, (uint32_t)h);
    ck_assert_str_eq(get_file(v, "/tmp/a/b/pw"), PASSWD);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/etc")), -ENOTEMPTY);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/e")), 0);
}
END_TEST

/* ---- bounds on host work ---- */

START_TEST(host_descriptors_stay_bounded_and_are_reopened)
{
    char path[64], buf[16];
    int h[200];
    host_many("many", 200);
    for (int i = 0; i < 200; i++) {
        snprintf(path, sizeof path, "/many/f%d", i);
        h[i] = open_at(v, path, VFS_O_RDONLY);
        ck_assert_int_ge(h[i], 0);
        ck_assert_int_gt(vfs_read(v, (uint32_t)h[i], buf, sizeof buf, 0), 0);
    }
    ck_assert_uint_le(vfs_host_stats(v)->fds_open, VFS_LRU_FDS);
    ck_assert_uint_le(vfs_host_stats(v)->fds_max, VFS_LRU_FDS);
    for (int i = 0; i < 200; i++) {
        snprintf(path, sizeof path, "f%d", i);
        ssize_t n = vfs_read(v, (uint32_t)h[i], buf, sizeof buf, 0);
        ck_assert_int_eq(n, (ssize_t)strlen(path));
        ck_assert_int_eq(memcmp(buf, path, (size_t)n), 0);
        vfs_close(v, (uint32_t)h[i]);
    }
    ck_assert_uint_le(vfs_host_stats(v)->fds_max, VFS_LRU_FDS);
}
END_TEST

/* Issue 13 row 6: a 100 000-entry directory opened and listed 64 times
 * reads the host directory once. */
START_TEST(a_100000_entry_directory_is_read_from_the_host_once)
{
    static uint8_t buf[65536];
    host_huge("huge", VFS_DIR_MAX);
    uint64_t first = 0;
    for (int round = 0; round < 64; round++) {
        uint64_t cookie = 0, entries = 0;
        int h = open_at(v, "/huge", VFS_O_DIRECTORY), n;
        ck_assert_int_ge(h, 0);
        while ((n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie)) > 0)
            for (int at = 0; at < n; entries++)
                at += buf[at + 16] | buf[at + 17] << 8;
        ck_assert_int_eq(n, 0);
        ck_assert_uint_eq(entries, VFS_DIR_MAX + 2);
        vfs_close(v, (uint32_t)h);
        if (round == 0)
            first = vfs_host_stats(v)->getdents;
    }
    ck_assert_uint_gt(first, 0);
    ck_assert_uint_eq(vfs_host_stats(v)->getdents, first);
    ck_assert_str_eq(get_file(v, "/huge/f99999"), "shared");
    ck_assert_uint_eq(vfs_host_stats(v)->getdents, first);
}
END_TEST

/* Opening it is cheap (nothing is listed yet); listing it or looking up
 * a name in it fails, once, and the host is not read again. */
START_TEST(a_directory_over_100000_entries_is_enomem_and_not_reread)
{
    uint8_t buf[4096];
    uint64_t cookie = 0;
    host_huge("over", VFS_DIR_MAX + 1);
    int h = open_at(v, "/over", VFS_O_DIRECTORY);
    ck_assert_int_ge(h, 0);
    ck_assert_int_eq(vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie), -ENOMEM);
    uint64_t calls = vfs_host_stats(v)->getdents;
    ck_assert_int_eq(vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie), -ENOMEM);
    ck_assert_int_eq(open_at(v, "/over/f1", 0), -ENOMEM);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/over")), -ENOMEM);
    ck_assert_uint_eq(vfs_host_stats(v)->getdents, calls);
    ck_assert_uint_le(calls, VFS_DIR_MAX / 100);   /* it stopped reading at the cap */
    ck_assert_uint_eq(stat_of(v, "/over", 0).mode & 0170000, 0040000);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(a_missing_lower_directory_is_a_one_line_error)
{
    char err[256] = "";
    struct vfs_config cfg = { "/nonexistent/dir", VFS_DEFAULT_LIMIT, NULL, NULL };
    ck_assert_ptr_null(vfs_new(&cfg, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "--root /nonexistent/dir"));
    ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

Suite *vfs_lower_suite(void)
{
    Suite *s = suite_create("vfs_lower");
    TCase *tc = tcase_create("host");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, lower_files_read_and_stat_as_the_host_has_them);
    tcase_add_test(tc, lower_files_are_read_on_demand_not_copied);
    tcase_add_test(tc, lower_listings_are_sorted_with_types_and_host_inodes);
    tcase_add_test(tc, lower_dev_and_tmp_are_replaced_by_the_vfs_own);
    tcase_add_test(tc, exec_ok_needs_an_x_bit_on_lower_files);
    tcase_add_test(tc, a_symlink_to_etc_passwd_resolves_inside_the_lower_tree);
    tcase_add_test(tc, dotdot_symlinks_stop_at_the_lower_root);
    tcase_add_test(tc, a_lower_symlink_to_an_absolute_host_path_stays_inside);
    tcase_add_test(tc, a_lower_fifo_is_listed_and_stated_but_never_opened);
    tcase_add_test(tc, a_host_object_replaced_after_lookup_is_not_followed);
    tcase_add_test(tc, changes_over_lower_files_leave_the_host_untouched);
    tcase_add_test(tc, copy_up_keeps_the_inode_and_every_other_byte);
    tcase_add_test(tc, a_copy_up_that_does_not_fit_is_enospc_and_keeps_the_lower_file);
    tcase_add_test(tc, a_copy_up_breaks_a_host_hard_link);
    tcase_add_test(tc, lower_files_unlinked_or_renamed_while_open_still_read);
    tcase_add_test(tc, host_descriptors_stay_bounded_and_are_reopened);
    tcase_add_test(tc, a_missing_lower_directory_is_a_one_line_error);
    suite_add_tcase(s, tc);
    TCase *big = tcase_create("big");
    tcase_add_checked_fixture(big, setup, teardown);
    tcase_set_timeout(big, 120);
    tcase_add_test(big, a_100000_entry_directory_is_read_from_the_host_once);
    tcase_add_test(big, a_directory_over_100000_entries_is_enomem_and_not_reread);
    suite_add_tcase(s, big);
    return s;
}

int main(void)
{
    return run_suite(vfs_lower_suite());
}
