/* The vfs over a read-only host directory (emu/vfs/vfs_lower.c): reading it,
 * containment, copy-up. The host tree is checked before and after. */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include "vfs_host_tree.h"
#include "vfs_random.h"
#include "support.h"

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
    ck_assert_uint_ne(st.dev, stat_of(v, "/dev", 0).dev);   /* layer vs host */
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
    struct names l;
    list_dir(v, "/etc", &l);
    ck_assert_int_eq(l.n, 5);
    ck_assert_str_eq(l.name[2], "hostname");
    ck_assert_str_eq(l.name[3], "passwd");
    ck_assert_str_eq(l.name[4], "shadowlink");
    ck_assert_uint_eq(l.type[3], 8);    /* DT_REG */
    ck_assert_uint_eq(l.type[4], 10);   /* DT_LNK */
    ck_assert_uint_eq(l.ino[3], stat_of(v, "/etc/passwd", 0).ino);
    ck_assert_uint_eq(l.ino[1], stat_of(v, "/", 0).ino);
    free_names(&l);
    list_dir(v, "/", &l);
    for (int i = 3; i < l.n; i++)
        ck_assert_int_lt(strcmp(l.name[i - 1], l.name[i]), 0);
    int fifo = 0;
    for (int i = 0; i < l.n; i++)
        if (!strcmp(l.name[i], "fifo"))
            fifo = l.type[i];
    ck_assert_int_eq(fifo, 1);   /* DT_FIFO */
    free_names(&l);
}
END_TEST

/* The kernel's /dev replaces the host's; the host's own tmp directory is
 * the guest's /tmp (issue 26), under the writable layer. */
START_TEST(lower_dev_is_replaced_and_lower_tmp_is_kept)
{
    struct names l;
    char p[512];
    struct stat hs;
    host_path(p, sizeof p, "tmp");
    ck_assert_int_eq(lstat(p, &hs), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/dev/sda"), 0, 0), -ENOENT);
    ck_assert_str_eq(get_file(v, "/tmp/hostfile"), "hidden");
    ck_assert_uint_eq(stat_of(v, "/dev/null", 0).rdev, VFS_MKDEV(1, 3));
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).mode, hs.st_mode);
    list_dir(v, "/", &l);
    ck_assert_int_eq(count_name(&l, "dev"), 1);
    ck_assert_int_eq(count_name(&l, "tmp"), 1);
    free_names(&l);
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
    ck_assert_uint_eq(stat_of(v, "/fifo", 0).mode & S_IFMT_, S_FIFO);
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
    ck_assert_uint_eq(stat_of(v, "/sock", 0).mode & S_IFMT_, S_SOCK);
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
    ck_assert_int_eq(vfs_chown(v, ROOT, P("/etc/shadowlink"), 3, 3, VFS_NOFOLLOW), 0);
    ck_assert_int_eq(vfs_chown(v, ROOT, P("/bin/sh"), 0, 0, 0), 0);
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

/* ---- many operations at random ---- */

/* Over the host's names and a hundred host files: lookups, copy-ups,
 * renames of lower directories, files unlinked while open. The host
 * is unchanged, and once the tree is emptied nothing is charged. */
START_TEST(random_operations_over_the_lower_tree_leave_the_host_untouched)
{
    static const char *const base[] = { "etc", "a", "b", "c", "many", "passwd",
                                        "deep.txt", "up", "pw", "..", "" };
    enum { NBASE = sizeof base / sizeof base[0], NMANY = 100 };
    static char many[NMANY][16];
    const char *parts[NBASE + NMANY];
    for (int i = 0; i < NBASE; i++)
        parts[i] = base[i];
    for (int i = 0; i < NMANY; i++) {
        snprintf(many[i], sizeof many[i], "many/f%d", i);
        parts[NBASE + i] = many[i];
    }
    host_many("many", NMANY);
    uint64_t sum = host_checksum();
    seed = (uint32_t)_i * 104729u + 3;
    random_operations(v, 20000, "", parts, NBASE + NMANY);
    empty_tree(v);
    uint64_t used, limit;
    vfs_usage(v, &used, &limit);
    ck_assert_uint_eq(used, 0);
    ck_assert_uint_le(vfs_host_stats(v)->fds_max, VFS_LRU_FDS);
    ck_assert_uint_eq(host_checksum(), sum);
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
    TCase *host = tcase_create("host");
    tcase_add_checked_fixture(host, setup, teardown);
    tcase_set_timeout(host, 10);
    tcase_add_test(host, lower_files_read_and_stat_as_the_host_has_them);
    tcase_add_test(host, lower_files_are_read_on_demand_not_copied);
    tcase_add_test(host, lower_listings_are_sorted_with_types_and_host_inodes);
    tcase_add_test(host, lower_dev_is_replaced_and_lower_tmp_is_kept);
    tcase_add_test(host, exec_ok_needs_an_x_bit_on_lower_files);
    tcase_add_test(host, a_symlink_to_etc_passwd_resolves_inside_the_lower_tree);
    tcase_add_test(host, dotdot_symlinks_stop_at_the_lower_root);
    tcase_add_test(host, a_lower_symlink_to_an_absolute_host_path_stays_inside);
    tcase_add_test(host, a_lower_fifo_is_listed_and_stated_but_never_opened);
    tcase_add_test(host, a_host_object_replaced_after_lookup_is_not_followed);
    tcase_add_test(host, changes_over_lower_files_leave_the_host_untouched);
    tcase_add_test(host, copy_up_keeps_the_inode_and_every_other_byte);
    tcase_add_test(host, a_copy_up_that_does_not_fit_is_enospc_and_keeps_the_lower_file);
    tcase_add_test(host, a_copy_up_breaks_a_host_hard_link);
    tcase_add_test(host, lower_files_unlinked_or_renamed_while_open_still_read);
    tcase_add_test(host, a_missing_lower_directory_is_a_one_line_error);
    tcase_add_loop_test(host, random_operations_over_the_lower_tree_leave_the_host_untouched,
                        0, 4);
    suite_add_tcase(s, host);
    return s;
}

int main(void)
{
    return run_suite(vfs_lower_suite());
}
