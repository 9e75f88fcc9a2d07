/* Paths in the vfs (emu/vfs/vfs_namei.c): links and symlinks, "..", directory
 * handles, path_of, and hostile paths, with no host directory. */
#include "vfs_random.h"
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

/* ---- links ---- */

START_TEST(hard_links_share_a_node_and_directories_cannot_be_linked)
{
    put_file(v, "/tmp/f", "data");
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/g"), 0), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/g", 0).nlink, 2);
    ck_assert_uint_eq(stat_of(v, "/tmp/g", 0).ino, stat_of(v, "/tmp/f", 0).ino);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp"), ROOT, P("/tmp/d"), 0), -EPERM);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/g"), 0), -EEXIST);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/none"), ROOT, P("/tmp/h"), 0), -ENOENT);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/f"), ROOT, P("/tmp/h/"), 0), -ENOENT);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/f")), 0);
    ck_assert_str_eq(get_file(v, "/tmp/g"), "data");
    ck_assert_uint_eq(stat_of(v, "/tmp/g", 0).nlink, 1);
    /* link to a symlink itself, or (VFS_FOLLOW) to what it names */
    ck_assert_int_eq(vfs_symlink(v, P("g"), ROOT, P("/tmp/s")), 0);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/s"), ROOT, P("/tmp/s2"), 0), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/s2", VFS_NOFOLLOW).mode & S_IFMT_, S_LNK);
    ck_assert_int_eq(vfs_link(v, ROOT, P("/tmp/s"), ROOT, P("/tmp/g2"), VFS_FOLLOW), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/g2", VFS_NOFOLLOW).mode & S_IFMT_, S_REG);
}
END_TEST

START_TEST(symlinks_read_back_and_resolve_relative_to_their_directory)
{
    char buf[64];
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    put_file(v, "/tmp/d/f", "in d");
    ck_assert_int_eq(vfs_symlink(v, P("d/f"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(vfs_readlink(v, ROOT, P("/tmp/l"), buf, sizeof buf), 3);
    ck_assert_int_eq(memcmp(buf, "d/f", 3), 0);
    ck_assert_int_eq(vfs_readlink(v, ROOT, P("/tmp/l"), buf, 2), 2);   /* truncated */
    ck_assert_int_eq(vfs_readlink(v, ROOT, P("/tmp/d/f"), buf, sizeof buf), -EINVAL);
    ck_assert_str_eq(get_file(v, "/tmp/l"), "in d");
    ck_assert_uint_eq(stat_of(v, "/tmp/l", VFS_NOFOLLOW).size, 3);
    ck_assert_uint_eq(stat_of(v, "/tmp/l", VFS_NOFOLLOW).mode, S_LNK | 0777);
    ck_assert_int_eq(vfs_symlink(v, "", 0, ROOT, P("/tmp/e")), -ENOENT);
    ck_assert_int_eq(vfs_symlink(v, P("x"), ROOT, P("/tmp/l")), -EEXIST);
    ck_assert_int_eq(vfs_symlink(v, P("x"), ROOT, P("/tmp/new/")), -ENOENT);
    /* a link to a directory, followed with a trailing slash */
    ck_assert_int_eq(vfs_symlink(v, P("/tmp/d"), ROOT, P("/tmp/ld")), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/ld/", VFS_NOFOLLOW).mode & S_IFMT_, S_DIR);
    ck_assert_str_eq(get_file(v, "/tmp/ld/f"), "in d");
}
END_TEST

START_TEST(symlink_loops_and_chains_longer_than_40_are_eloop)
{
    char name[64], target[64];
    ck_assert_int_eq(vfs_symlink(v, P("b"), ROOT, P("/tmp/a")), 0);
    ck_assert_int_eq(vfs_symlink(v, P("a"), ROOT, P("/tmp/b")), 0);
    ck_assert_int_eq(open_at(v, "/tmp/a", 0), -ELOOP);
    ck_assert_int_eq(vfs_stat(v, ROOT, P("/tmp/a/x"), VFS_NOFOLLOW, &(struct vfs_stat){ 0 }),
                     -ELOOP);
    ck_assert_int_eq(vfs_symlink(v, P("/tmp/self/x"), ROOT, P("/tmp/self")), 0);
    ck_assert_int_eq(open_at(v, "/tmp/self", VFS_O_CREAT), -ELOOP);
    /* l0 -> f, l1 -> l0, ... l40 -> l39: 40 links resolve, 41 do not */
    put_file(v, "/tmp/f", "end");
    ck_assert_int_eq(vfs_symlink(v, P("f"), ROOT, P("/tmp/l0")), 0);
    for (int i = 1; i <= 40; i++) {
        snprintf(name, sizeof name, "/tmp/l%d", i);
        snprintf(target, sizeof target, "l%d", i - 1);
        ck_assert_int_eq(vfs_symlink(v, P(target), ROOT, P(name)), 0);
    }
    ck_assert_str_eq(get_file(v, "/tmp/l39"), "end");
    ck_assert_int_eq(open_at(v, "/tmp/l40", 0), -ELOOP);
}
END_TEST

START_TEST(dotdot_at_the_root_stays_at_the_root)
{
    put_file(v, "/tmp/f", "x");
    ck_assert_str_eq(get_file(v, "/../../tmp/f"), "x");
    ck_assert_str_eq(get_file(v, "../../../tmp/./f"), "x");
    ck_assert_int_eq(vfs_symlink(v, P("../../../../../../tmp/f"), ROOT, P("/tmp/up")), 0);
    ck_assert_str_eq(get_file(v, "/tmp/up"), "x");
    ck_assert_uint_eq(stat_of(v, "/..", 0).ino, stat_of(v, "/", 0).ino);
}
END_TEST

/* ---- directory handles and path_of ---- */

START_TEST(relative_paths_start_at_the_directory_handle)
{
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    int d = open_at(v, "/tmp/d", VFS_O_DIRECTORY);
    int h = vfs_open(v, (uint32_t)d, P("f"), VFS_O_CREAT | VFS_O_WRONLY, 0600);
    ck_assert_int_ge(h, 0);
    vfs_close(v, (uint32_t)h);
    ck_assert_uint_eq(stat_of(v, "/tmp/d/f", 0).mode, S_REG | 0600);
    ck_assert_int_eq(vfs_mkdir(v, (uint32_t)d, P("../e"), 0755), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/e"), 0, 0), 0);
    ck_assert_int_eq(vfs_open(v, (uint32_t)h, P("x"), 0, 0), -EBADF);
    int f = open_at(v, "/tmp/d/f", 0);
    ck_assert_int_eq(vfs_open(v, (uint32_t)f, P("x"), 0, 0), -ENOTDIR);
    vfs_close(v, (uint32_t)f);
    vfs_close(v, (uint32_t)d);
}
END_TEST

START_TEST(path_of_follows_renames_of_ancestors)
{
    char buf[256];
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/a"), 0755), 0);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/a/b"), 0755), 0);
    int h = open_at(v, "/tmp/a/b", VFS_O_DIRECTORY);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)h, buf, sizeof buf), 8);
    ck_assert_str_eq(buf, "/tmp/a/b");
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/a"), ROOT, P("/moved")), 0);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)h, buf, sizeof buf), 8);
    ck_assert_str_eq(buf, "/moved/b");
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)h, buf, 8), -ERANGE);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)h, buf, 9), 8);
    int r = open_at(v, "/", 0);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)r, buf, sizeof buf), 1);
    ck_assert_str_eq(buf, "/");
    vfs_close(v, (uint32_t)r);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/moved/b")), 0);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)h, buf, sizeof buf), -ENOENT);
    /* a removed directory: nothing can be made in it, ".." still leads up */
    ck_assert_int_eq(vfs_open(v, (uint32_t)h, P("f"), VFS_O_CREAT, 0644), -ENOENT);
    ck_assert_int_eq(vfs_mkdir(v, (uint32_t)h, P("d"), 0755), -ENOENT);
    ck_assert_uint_eq(stat_of(v, "/moved", 0).ino,
                      ({ struct vfs_stat s; vfs_stat(v, (uint32_t)h, P(".."), 0, &s); s.ino; }));
    vfs_close(v, (uint32_t)h);
    put_file(v, "/tmp/f", "");
    h = open_at(v, "/tmp/f", 0);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)h, buf, sizeof buf), -ENOTDIR);
    vfs_close(v, (uint32_t)h);
}
END_TEST

/* ---- hostile input ---- */

START_TEST(path_and_name_lengths_are_bounded)
{
    static char path[VFS_PATH_MAX + 8];
    char name[300];
    memset(name, 'n', sizeof name);
    memcpy(path, "/tmp/", 5);
    memcpy(path + 5, name, 256);
    ck_assert_int_ge(vfs_open(v, ROOT, path, 5 + 255, VFS_O_CREAT, 0644), 0);
    ck_assert_int_eq(vfs_open(v, ROOT, path, 5 + 256, VFS_O_CREAT, 0644), -ENAMETOOLONG);
    /* 4095 bytes is a path; 4096 is not */
    for (int i = 0; i < VFS_PATH_MAX; i += 2)
        memcpy(path + i, "./", 2);
    memcpy(path + 4090, "tmp/.", 5);
    ck_assert_int_eq(vfs_access(v, ROOT, path, 4095, 0, 0), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, path, 4096, 0, 0), -ENAMETOOLONG);
    ck_assert_int_eq(vfs_access(v, ROOT, "tmp\0x", 5, 0, 0), -EINVAL);
}
END_TEST

START_TEST(names_may_hold_any_bytes_but_slash_and_nul)
{
    char name[256];
    for (int i = 0; i < 255; i++)
        name[i] = (char)(i % 255 + 1 == '/' ? 0x80 : i % 255 + 1);
    char path[300] = "/tmp/";
    memcpy(path + 5, name, 255);
    int h = vfs_open(v, ROOT, path, 260, VFS_O_CREAT, 0644);
    ck_assert_int_ge(h, 0);
    vfs_close(v, (uint32_t)h);
    struct names s;
    list_dir(v, "/tmp", &s);
    ck_assert_int_eq(s.n, 3);
    ck_assert_uint_eq(strlen(s.name[2]), 255);
    ck_assert_int_eq(memcmp(s.name[2], name, 255), 0);
    free_names(&s);
}
END_TEST

/* A chain of directories as deep as the guest likes: walking, path_of,
 * the rename-cycle check and the freeing are all loops, not recursion. */
START_TEST(a_very_deep_tree_is_handled_without_recursion)
{
    enum { DEPTH = 20000 };
    static char buf[DEPTH * 2 + 16];
    uint64_t base, used, limit;
    vfs_usage(v, &base, &limit);
    int d = open_at(v, "/tmp", 0);
    for (int i = 0; i < DEPTH; i++) {
        ck_assert_int_eq(vfs_mkdir(v, (uint32_t)d, P("d"), 0755), 0);
        int next = vfs_open(v, (uint32_t)d, P("d"), VFS_O_DIRECTORY, 0);
        ck_assert_int_ge(next, 0);
        vfs_close(v, (uint32_t)d);
        d = next;
    }
    int len = vfs_path_of(v, (uint32_t)d, buf, sizeof buf);
    ck_assert_int_eq(len, 4 + 2 * DEPTH);
    ck_assert_int_eq(vfs_path_of(v, (uint32_t)d, buf, 100), -ERANGE);
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), (uint32_t)d, P("cycle")), -EINVAL);
    /* remove every directory from the bottom up while the deepest is open:
     * the removed chain stays, then goes at the last close */
    ck_assert_int_eq(vfs_rename(v, ROOT, P("/tmp/d"), ROOT, P("/tmp/top")), 0);
    int cur = vfs_open(v, (uint32_t)d, P(".."), VFS_O_DIRECTORY, 0);
    ck_assert_int_eq(vfs_rmdir(v, (uint32_t)cur, P("d")), 0);
    for (int level = DEPTH - 1; level > 1; level--) {
        int up = vfs_open(v, (uint32_t)cur, P(".."), VFS_O_DIRECTORY, 0);
        ck_assert_int_ge(up, 0);
        ck_assert_int_eq(vfs_rmdir(v, (uint32_t)up, P("d")), 0);
        vfs_close(v, (uint32_t)cur);
        cur = up;
    }
    vfs_close(v, (uint32_t)cur);
    ck_assert_int_eq(vfs_rmdir(v, ROOT, P("/tmp/top")), 0);
    vfs_usage(v, &used, &limit);
    ck_assert_uint_gt(used, base);           /* the deepest is still open */
    vfs_close(v, (uint32_t)d);
    vfs_usage(v, &used, &limit);
    ck_assert_uint_eq(used, base);
}
END_TEST

/* Random paths over a few names with ".", "..", trailing slashes and
 * symlinks, through every operation; then every handle is closed and the
 * tree emptied, and the layer's charge must return to zero (a leaked node
 * or entry would keep its charge; ASan checks the rest). */
START_TEST(random_operations_leave_nothing_behind)
{
    static const char *const parts[] = { "a", "b", "c", "l", "m", ".", "..", "" };
    seed = (uint32_t)_i * 7919u + 1;
    uint64_t tmp_ino = stat_of(v, "/tmp", 0).ino;
    random_operations(v, 20000, "/tmp", parts, 8);
    empty_tree(v);
    /* all that may be left is a /tmp the guest made ("/tmp/" is a path
     * random_path makes: a rename onto it or rmdir of it can happen) */
    uint64_t used, limit, expect = 0;
    struct vfs_stat st;
    int tmp = vfs_stat(v, ROOT, P("/tmp"), 0, &st);
    if (!tmp && st.ino != tmp_ino)
        expect = 256 + 64 + 3;
    vfs_usage(v, &used, &limit);
    ck_assert_uint_eq(used, expect);
    ck_assert_uint_eq(stat_of(v, "/", 0).nlink, tmp ? 3 : 4);
}
END_TEST

Suite *vfs_namei_suite(void)
{
    Suite *s = suite_create("vfs_namei");
    TCase *tc = tcase_create("paths");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, hard_links_share_a_node_and_directories_cannot_be_linked);
    tcase_add_test(tc, symlinks_read_back_and_resolve_relative_to_their_directory);
    tcase_add_test(tc, symlink_loops_and_chains_longer_than_40_are_eloop);
    tcase_add_test(tc, dotdot_at_the_root_stays_at_the_root);
    tcase_add_test(tc, relative_paths_start_at_the_directory_handle);
    tcase_add_test(tc, path_of_follows_renames_of_ancestors);
    tcase_add_test(tc, path_and_name_lengths_are_bounded);
    tcase_add_test(tc, names_may_hold_any_bytes_but_slash_and_nul);
    tcase_add_test(tc, a_very_deep_tree_is_handled_without_recursion);
    tcase_add_loop_test(tc, random_operations_leave_nothing_behind, 0, 8);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(vfs_namei_suite());
}
