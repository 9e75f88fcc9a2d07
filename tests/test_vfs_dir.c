/* The vfs's directories (emu/vfs/vfs_dir.c, vfs_ops.c): getdents, mkdir,
 * unlink, rmdir, rename, with no host directory under them. */
#include "vfs_helpers.h"
#include "support.h"

static struct vfs *v;

static void setup(void)
{
    test_ticks = 0;
    v = new_vfs(NULL, VFS_DEFAULT_LIMIT);
}

static void teardown(void)
{
    vfs_free(v);
    v = NULL;
}

/* ---- directories ---- */

START_TEST(getdents_lists_dot_dotdot_then_entries_in_creation_order)
{
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    put_file(v, "/tmp/d/b", "");
    put_file(v, "/tmp/d/a", "");
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d/c"), 0700), 0);
    struct names s;
    list_dir(v, "/tmp/d", &s);
    ck_assert_int_eq(s.n, 5);
    ck_assert_str_eq(s.name[0], ".");
    ck_assert_uint_eq(s.ino[0], stat_of(v, "/tmp/d", 0).ino);
    ck_assert_str_eq(s.name[1], "..");
    ck_assert_uint_eq(s.ino[1], stat_of(v, "/tmp", 0).ino);
    ck_assert_str_eq(s.name[2], "b");
    ck_assert_str_eq(s.name[3], "a");
    ck_assert_uint_eq(s.ino[3], stat_of(v, "/tmp/d/a", 0).ino);
    ck_assert_uint_eq(s.type[3], 8);   /* DT_REG */
    ck_assert_str_eq(s.name[4], "c");
    ck_assert_uint_eq(s.type[4], 4);   /* DT_DIR */
    free_names(&s);
    list_dir(v, "/", &s);
    ck_assert_uint_eq(s.ino[1], s.ino[0]);   /* the root's ".." is itself */
    free_names(&s);
}
END_TEST

START_TEST(getdents_errors)
{
    uint8_t buf[64];
    uint64_t cookie = 0;
    put_file(v, "/tmp/f", "");
    int f = open_at(v, "/tmp/f", VFS_O_RDONLY), d = open_at(v, "/tmp", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_getdents(v, (uint32_t)f, buf, sizeof buf, &cookie), -ENOTDIR);
    ck_assert_int_eq(vfs_getdents(v, (uint32_t)d, buf, 20, &cookie), -EINVAL);
    ck_assert_int_eq(vfs_getdents(v, 999, buf, sizeof buf, &cookie), -EBADF);
    cookie = 1ull << 40;   /* past the end */
    ck_assert_int_eq(vfs_getdents(v, (uint32_t)d, buf, sizeof buf, &cookie), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/gone"), 0755), 0);
    int g = open_at(v, "/tmp/gone", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/gone")), 0);
    cookie = 0;
    ck_assert_int_eq(vfs_getdents(v, (uint32_t)g, buf, sizeof buf, &cookie), -ENOENT);
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).nlink, 2);
    struct vfs_stat st;
    vfs_fstat(v, (uint32_t)g, &st);
    ck_assert_uint_eq(st.nlink, 0);
}
END_TEST

/* Entries present for a whole listing appear exactly once; entries
 * removed before the listing reached them do not appear at all; entries
 * made during it (at the end of the order) appear once. */
START_TEST(getdents_is_stable_while_entries_come_and_go)
{
    enum { N = 300, CHURN = 20 };
    char name[64], to[64];
    uint8_t buf[256];
    uint64_t cookie = 0;
    bool removed[N] = { false };
    struct names s = { 0 };
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "/tmp/d/f%03d", i);
        put_file(v, name, "");
    }
    int h = open_at(v, "/tmp/d", VFS_O_RDONLY), n, round = 0;
    while ((n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie)) > 0) {
        each_dirent(buf, n, collect_name, &s);
        if (++round > CHURN)
            continue;
        /* remove one entry far ahead, one already listed, rename one
         * ahead, and make a new one */
        int gone[3] = { N - 1 - round, round, 200 + round };
        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof name, "/tmp/d/f%03d", gone[k]);
            ck_assert_int_eq(vfs_unlink(v, ROOT, P(name)), 0);
        }
        snprintf(name, sizeof name, "/tmp/d/f%03d", gone[2]);
        snprintf(to, sizeof to, "/tmp/d/r%03d", round);
        ck_assert_int_eq(vfs_rename(v, ROOT, P(name), ROOT, P(to)), 0);
        for (int k = 0; k < 3; k++)
            removed[gone[k]] = true;
        snprintf(name, sizeof name, "/tmp/d/new%03d", round);
        put_file(v, name, "");
    }
    ck_assert_int_eq(n, 0);
    ck_assert_int_gt(round, CHURN);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "f%03d", i);
        if (!removed[i])
            ck_assert_int_eq(count_name(&s, name), 1);
        else if (i >= N - 1 - CHURN || (i > 200 && i <= 200 + CHURN))
            ck_assert_int_eq(count_name(&s, name), 0);   /* gone before reached */
    }
    for (int r = 1; r <= CHURN; r++) {
        snprintf(name, sizeof name, "new%03d", r);
        ck_assert_int_eq(count_name(&s, name), 1);
        snprintf(name, sizeof name, "r%03d", r);
        ck_assert_int_eq(count_name(&s, name), 1);
    }
    for (int i = 0; i < s.n; i++)
        ck_assert_int_eq(count_name(&s, s.name[i]), 1);
    free_names(&s);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(mkdir_errors_and_link_counts)
{
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d/"), 0755), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/d", 0).mode, S_DIR | 0755);
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).nlink, 3);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), -EEXIST);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/x/y"), 0755), -ENOENT);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/."), 0755), -EEXIST);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/"), 0755), -EEXIST);
    ck_assert_int_eq(vfs_symlink(v, P("nowhere"), ROOT, P("/tmp/dl")), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/dl"), 0755), -EEXIST);
    put_file(v, "/tmp/f", "");
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/f/d"), 0755), -ENOTDIR);
}
END_TEST

START_TEST(unlink_errors)
{
    put_file(v, "/tmp/f", "");
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp")), -EISDIR);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/none")), -ENOENT);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/f/")), -ENOTDIR);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/.")), -EISDIR);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/")), -EISDIR);
    ck_assert_int_eq(vfs_symlink(v, P("/tmp"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/l/")), -ENOTDIR);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/l")), 0);      /* the link, not /tmp */
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).mode & S_IFMT_, S_DIR);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/f")), 0);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/f")), -ENOENT);
}
END_TEST

START_TEST(rmdir_errors)
{
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    put_file(v, "/tmp/d/f", "");
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/d")), -ENOTEMPTY);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/")), -EBUSY);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/d/.")), -EINVAL);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/d/..")), -ENOTEMPTY);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/d/f")), -ENOTDIR);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/none")), -ENOENT);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/d/f")), 0);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/d/")), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).nlink, 2);
}
END_TEST

/* ---- rename ---- */

START_TEST(rename_over_a_file_replaces_it)
{
    put_file(v, "/tmp/a", "A");
    put_file(v, "/tmp/b", "B");
    uint64_t ino = stat_of(v, "/tmp/a", 0).ino;
    int hb = open_at(v, "/tmp/b", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/a"), ROOT, P("/tmp/b")), 0);
    ck_assert_str_eq(get_file(v, "/tmp/b"), "A");
    ck_assert_uint_eq(stat_of(v, "/tmp/b", 0).ino, ino);
    ck_assert_int_eq(open_at(v, "/tmp/a", 0), -ENOENT);
    char c;
    ck_assert_int_eq(vfs_read(v, (uint32_t)hb, &c, 1, 0), 1);   /* the old b, still open */
    ck_assert_int_eq(c, 'B');
    vfs_close(v, (uint32_t)hb);
}
END_TEST

START_TEST(rename_follows_linux_rules)
{
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/e"), 0755), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/full"), 0755), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d/sub"), 0755), 0);
    put_file(v, "/tmp/full/x", "");
    put_file(v, "/tmp/f", "");
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), ROOT, P("/tmp/full")), -ENOTEMPTY);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/e")), -EISDIR);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), ROOT, P("/tmp/f")), -ENOTDIR);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), ROOT, P("/tmp/d/sub/in")), -EINVAL);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), ROOT, P("/tmp/d/in")), -EINVAL);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/full/x"), ROOT, P("/tmp/full")), -ENOTEMPTY);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/none"), ROOT, P("/tmp/z")), -ENOENT);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/"), ROOT, P("/tmp/z")), -EBUSY);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d/."), ROOT, P("/tmp/z")), -EBUSY);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/f/"), ROOT, P("/tmp/z")), -ENOTDIR);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/no/z")), -ENOENT);
    /* hard links to the same file: nothing happens, both remain */
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/f2"), 0), 0);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/f2")), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).nlink, 2);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/f")), 0);
    /* a directory over an empty one; ".." moves with it */
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), ROOT, P("/tmp/e")), 0);
    ck_assert_int_eq(vfs_stat(v, ROOT, P("/tmp/d"), 0, &(struct vfs_stat){ 0 }), -ENOENT);
    ck_assert_uint_eq(stat_of(v, "/tmp/e/sub/..", 0).ino, stat_of(v, "/tmp/e", 0).ino);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/e/sub"), ROOT, P("/tmp/full/sub/")), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/full/sub/..", 0).ino, stat_of(v, "/tmp/full", 0).ino);
    ck_assert_uint_eq(stat_of(v, "/tmp/e", 0).nlink, 2);
    ck_assert_uint_eq(stat_of(v, "/tmp/full", 0).nlink, 3);
}
END_TEST

/* Holes left by removed entries are closed up as the directory grows
 * again; a listing across that keeps its place. */
START_TEST(getdents_keeps_its_place_across_the_closing_of_holes)
{
    char name[64];
    uint8_t buf[128];
    uint64_t cookie = 0;
    struct names s = { 0 };
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "/tmp/d/f%04d", i);
        put_file(v, name, "");
    }
    int h = open_at(v, "/tmp/d", VFS_O_RDONLY);
    int n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie);
    ck_assert_int_gt(n, 0);
    each_dirent(buf, n, collect_name, &s);
    int listed = s.n - 2;   /* f0000 .. f(listed-1), after "." and ".." */
    for (int i = 0; i < 1000; i++) {
        if (i % 10 == 5)
            continue;   /* the survivors */
        snprintf(name, sizeof name, "/tmp/d/f%04d", i);
        ck_assert_int_eq(vfs_unlink(v, ROOT, P(name)), 0);
    }
    put_file(v, "/tmp/d/last", "");   /* 900 holes, 100 entries: closed up */
    while ((n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie)) > 0)
        each_dirent(buf, n, collect_name, &s);
    ck_assert_int_eq(n, 0);
    for (int i = 5; i < 1000; i += 10) {
        snprintf(name, sizeof name, "f%04d", i);
        ck_assert_int_eq(count_name(&s, name), 1);
    }
    ck_assert_int_eq(count_name(&s, "last"), 1);
    ck_assert_int_eq(s.n, 2 + listed + (100 - (listed + 4) / 10) + 1);
    vfs_close(v, (uint32_t)h);
    free_names(&s);
    list_dir(v, "/tmp/d", &s);
    ck_assert_int_eq(s.n, 2 + 100 + 1);
    free_names(&s);
}
END_TEST

/* ext4's limit: 65000 links to a file, and so 64998 subdirectories. */
START_TEST(links_and_subdirectories_stop_at_65000_with_emlink)
{
    char name[64];
    put_file(v, "/tmp/f", "");
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/l"), 0755), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    for (int i = 1; i < 65000; i++) {
        snprintf(name, sizeof name, "/tmp/l/%d", i);
        ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/f"), ROOT, P(name), 0), 0);
    }
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).nlink, 65000);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/l/x"), 0), -EMLINK);
    for (int i = 0; i < 64998; i++) {
        snprintf(name, sizeof name, "/tmp/d/%d", i);
        ck_assert_int_eq(vfs_mkdir(v, ROOT, P(name), 0755), 0);
    }
    ck_assert_uint_eq(stat_of(v, "/tmp/d", 0).nlink, 65000);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d/x"), 0755), -EMLINK);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/e"), 0755), 0);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/e"), ROOT, P("/tmp/d/e")), -EMLINK);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d/0"), ROOT, P("/tmp/d/zero")), 0);
}
END_TEST

Suite *vfs_dir_suite(void)
{
    Suite *s = suite_create("vfs_dir");
    TCase *tc = tcase_create("dirs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, getdents_lists_dot_dotdot_then_entries_in_creation_order);
    tcase_add_test(tc, getdents_errors);
    tcase_add_test(tc, getdents_is_stable_while_entries_come_and_go);
    tcase_add_test(tc, mkdir_errors_and_link_counts);
    tcase_add_test(tc, unlink_errors);
    tcase_add_test(tc, rmdir_errors);
    tcase_add_test(tc, rename_over_a_file_replaces_it);
    tcase_add_test(tc, rename_follows_linux_rules);
    tcase_add_test(tc, getdents_keeps_its_place_across_the_closing_of_holes);
    tcase_add_test(tc, links_and_subdirectories_stop_at_65000_with_emlink);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(vfs_dir_suite());
}
