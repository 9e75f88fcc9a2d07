/* Bounds on the host work the vfs does (emu/vfs/vfs_lower.c): descriptors
 * held, and big directories read once. Counted, never timed. */
#define _GNU_SOURCE
#include "vfs_host_tree.h"
#include "support.h"

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
 * reads the host directory once, and keeps one copy of its entries, a few
 * dozen bytes each (the emulator's first --root took 1.57 GB for this). */
START_TEST(a_100000_entry_directory_is_read_from_the_host_once)
{
    static uint8_t buf[65536];
    host_huge("huge", VFS_DIR_MAX);
    uint64_t first = 0, kept = 0, kept_bytes = 0;
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
        if (round == 0) {
            first = vfs_host_stats(v)->getdents;
            kept = vfs_host_stats(v)->listed;
            kept_bytes = vfs_host_stats(v)->listed_bytes;
        }
    }
    ck_assert_uint_gt(first, 0);
    ck_assert_uint_eq(vfs_host_stats(v)->getdents, first);
    ck_assert_uint_ge(kept, VFS_DIR_MAX);
    ck_assert_uint_le(kept, VFS_DIR_MAX + 16);   /* the root's few, and /huge's */
    ck_assert_uint_eq(vfs_host_stats(v)->listed, kept);
    ck_assert_uint_eq(vfs_host_stats(v)->listed_bytes, kept_bytes);
    ck_assert_uint_le(kept_bytes, 96 * kept);
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
    ck_assert_uint_eq(stat_of(v, "/over", 0).mode & S_IFMT_, S_DIR);
    vfs_close(v, (uint32_t)h);
}
END_TEST

Suite *vfs_bounds_suite(void)
{
    Suite *s = suite_create("vfs_bounds");
    TCase *fds = tcase_create("fds");
    tcase_add_checked_fixture(fds, setup, teardown);
    tcase_set_timeout(fds, 10);
    tcase_add_test(fds, host_descriptors_stay_bounded_and_are_reopened);
    suite_add_tcase(s, fds);
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
    return run_suite(vfs_bounds_suite());
}
