/* The vfs's in-memory files (emu/vfs/vfs_tree.c, vfs_file.c, vfs_attr.c): the
 * tree it starts with, open, read and write, the size limit, handles and
 * attributes. */
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

/* ---- the synthesized tree ---- */

START_TEST(empty_tree_has_tmp_and_dev_with_device_nodes)
{
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).mode, S_DIR | 01777);
    ck_assert_uint_eq(stat_of(v, "/dev", 0).mode & S_IFMT_, S_DIR);
    struct vfs_stat st = stat_of(v, "/dev/null", 0);
    ck_assert_uint_eq(st.mode & S_IFMT_, S_CHR);
    ck_assert_uint_eq(st.rdev, VFS_MKDEV(1, 3));
    ck_assert_uint_eq(stat_of(v, "/dev/zero", 0).rdev, VFS_MKDEV(1, 5));
    ck_assert_uint_eq(stat_of(v, "/dev/tty", 0).rdev, VFS_MKDEV(5, 0));
    ck_assert_uint_eq(stat_of(v, "/", 0).nlink, 4);   /* ., .., dev, tmp */
    struct names s;
    list_dir(v, "/", &s);
    ck_assert_int_eq(s.n, 4);
    ck_assert_str_eq(s.name[0], ".");
    ck_assert_str_eq(s.name[1], "..");
    ck_assert_str_eq(s.name[2], "dev");
    ck_assert_str_eq(s.name[3], "tmp");
    free_names(&s);
}
END_TEST

START_TEST(device_nodes_open_but_are_not_files)
{
    char c;
    int h = open_at(v, "/dev/null", VFS_O_RDWR);
    ck_assert_int_ge(h, 0);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, &c, 1, 0), -EINVAL);
    ck_assert_int_eq(vfs_exec_ok(v, (uint32_t)h), -EACCES);
    vfs_close(v, (uint32_t)h);
}
END_TEST

/* ---- open, read, write ---- */

START_TEST(created_file_reads_back_what_was_written)
{
    char buf[16] = { 0 };
    int h = open_at(v, "/tmp/f", VFS_O_CREAT | VFS_O_RDWR);
    ck_assert_int_ge(h, 0);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "hello", 5, 0), 5);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "HE", 2, 0), 2);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), 5);
    ck_assert_str_eq(buf, "HEllo");
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 5), 0);
    uint64_t size;
    ck_assert_int_eq(vfs_size(v, (uint32_t)h, &size), 0);
    ck_assert_uint_eq(size, 5);
    struct vfs_stat st;
    ck_assert_int_eq(vfs_fstat(v, (uint32_t)h, &st), 0);
    ck_assert_uint_eq(st.mode, S_REG | 0644);
    ck_assert_uint_eq(st.nlink, 1);
    ck_assert_uint_eq(st.uid, 0);
    ck_assert_int_eq(vfs_close(v, (uint32_t)h), 0);
}
END_TEST

START_TEST(open_errors_follow_linux)
{
    put_file(v, "/tmp/f", "x");
    ck_assert_int_eq(open_at(v, "/tmp/f", VFS_O_CREAT | VFS_O_EXCL), -EEXIST);
    ck_assert_int_eq(open_at(v, "/tmp/none", VFS_O_RDONLY), -ENOENT);
    ck_assert_int_eq(open_at(v, "/tmp/no/f", VFS_O_CREAT), -ENOENT);
    ck_assert_int_eq(open_at(v, "/tmp/f/x", VFS_O_CREAT), -ENOTDIR);
    ck_assert_int_eq(open_at(v, "/tmp/f", VFS_O_DIRECTORY), -ENOTDIR);
    ck_assert_int_eq(open_at(v, "/tmp/f/", VFS_O_RDONLY), -ENOTDIR);
    ck_assert_int_eq(open_at(v, "/tmp/g", VFS_O_CREAT | VFS_O_DIRECTORY), -EINVAL);
    ck_assert_int_eq(open_at(v, "/tmp", VFS_O_TMPFILE | VFS_O_DIRECTORY | VFS_O_RDWR),
                     -EOPNOTSUPP);
    ck_assert_int_eq(open_at(v, "/tmp", VFS_O_WRONLY), -EISDIR);
    ck_assert_int_eq(open_at(v, "/tmp", VFS_O_RDONLY | VFS_O_TRUNC), -EISDIR);
    ck_assert_int_eq(open_at(v, "/tmp", VFS_O_CREAT), -EISDIR);
    ck_assert_int_eq(open_at(v, "/tmp/new/", VFS_O_CREAT), -EISDIR);
    ck_assert_int_eq(open_at(v, "", VFS_O_RDONLY), -ENOENT);
    ck_assert_int_eq(vfs_open(v, 77, P("f"), 0, 0), -EBADF);
    ck_assert_int_eq(vfs_open(v, 77, P("/tmp/f"), 0, 0) >= 0, 1);   /* absolute: dir unused */
}
END_TEST

START_TEST(o_trunc_empties_a_file)
{
    put_file(v, "/tmp/f", "some text");
    int h = open_at(v, "/tmp/f", VFS_O_WRONLY | VFS_O_TRUNC);
    ck_assert_int_ge(h, 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).size, 0);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(o_nofollow_on_a_symlink_is_eloop)
{
    put_file(v, "/tmp/f", "x");
    ck_assert_int_eq(vfs_symlink(v, P("f"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(open_at(v, "/tmp/l", VFS_O_NOFOLLOW), -ELOOP);
    int h = open_at(v, "/tmp/l", VFS_O_RDONLY);
    ck_assert_int_ge(h, 0);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(o_creat_through_a_dangling_symlink_creates_its_target)
{
    ck_assert_int_eq(vfs_symlink(v, P("target"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(open_at(v, "/tmp/l", VFS_O_CREAT | VFS_O_EXCL), -EEXIST);
    int h = open_at(v, "/tmp/l", VFS_O_CREAT | VFS_O_WRONLY);
    ck_assert_int_ge(h, 0);
    vfs_close(v, (uint32_t)h);
    ck_assert_uint_eq(stat_of(v, "/tmp/target", VFS_NOFOLLOW).mode & S_IFMT_, S_REG);
}
END_TEST

START_TEST(a_write_at_1gib_charges_one_page)
{
    uint64_t before, after, limit;
    uint8_t buf[8192];
    int h = open_at(v, "/tmp/sparse", VFS_O_CREAT | VFS_O_RDWR);
    ck_assert_int_ge(h, 0);
    vfs_usage(v, &before, &limit);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "z", 1, 1ull << 30), 1);
    vfs_usage(v, &after, &limit);
    ck_assert_uint_eq(after - before, 4096);
    struct vfs_stat st;
    vfs_fstat(v, (uint32_t)h, &st);
    ck_assert_uint_eq(st.size, (1ull << 30) + 1);
    ck_assert_uint_eq(st.blocks, 8);
    memset(buf, 0xaa, sizeof buf);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, (1ull << 30) - 4096), 4097);
    for (int i = 0; i < 4096; i++)
        ck_assert_uint_eq(buf[i], 0);
    ck_assert_uint_eq(buf[4096], 'z');
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(a_new_page_reads_zeros_around_the_bytes_written)
{
    uint8_t buf[8192];
    int h = open_at(v, "/tmp/mid", VFS_O_CREAT | VFS_O_RDWR);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "mid", 3, 5000), 3);
    ck_assert_int_eq(vfs_ftruncate(v, (uint32_t)h, sizeof buf), 0);
    memset(buf, 0xaa, sizeof buf);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), (int)sizeof buf);
    for (int i = 0; i < (int)sizeof buf; i++)
        if (i < 5000 || i >= 5003)
            ck_assert_msg(buf[i] == 0, "byte %d is %#x", i, buf[i]);
    ck_assert_int_eq(memcmp(buf + 5000, "mid", 3), 0);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(writing_past_the_largest_file_is_efbig)
{
    int h = open_at(v, "/tmp/f", VFS_O_CREAT | VFS_O_RDWR);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "ab", 2, VFS_FILE_MAX), -EFBIG);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "ab", 2, VFS_FILE_MAX - 1), 1);
    ck_assert_int_eq(vfs_ftruncate(v, (uint32_t)h, VFS_FILE_MAX + 1), -EFBIG);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, NULL, 1, 1ull << 63), -EINVAL);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(truncate_then_grow_reads_zeros_where_data_was)
{
    char buf[16];
    put_file(v, "/tmp/f", "abcdefgh");
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/tmp/f"), 3), 0);
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/tmp/f"), 6), 0);
    int h = open_at(v, "/tmp/f", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), 6);
    ck_assert_int_eq(memcmp(buf, "abc\0\0\0", 6), 0);
    ck_assert_int_eq(vfs_ftruncate(v, (uint32_t)h, 1), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).size, 1);
    vfs_close(v, (uint32_t)h);
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/tmp"), 0), -EISDIR);
    ck_assert_int_eq(vfs_truncate(v, ROOT, P("/dev/null"), 0), -EINVAL);
    h = open_at(v, "/tmp", VFS_O_RDONLY);
    ck_assert_int_eq(vfs_ftruncate(v, (uint32_t)h, 0), -EINVAL);
    vfs_close(v, (uint32_t)h);
}
END_TEST

/* ---- the size limit ---- */

START_TEST(the_layer_fills_with_enospc_and_recovers_after_unlink)
{
    static uint8_t chunk[16384];
    uint64_t used, limit;
    vfs_free(v);
    v = new_vfs(NULL, 256 * 1024);
    int h = open_at(v, "/tmp/big", VFS_O_CREAT | VFS_O_WRONLY);
    ck_assert_int_ge(h, 0);
    uint64_t pos = 0;
    ssize_t n;
    while ((n = vfs_write(v, (uint32_t)h, chunk, sizeof chunk, pos)) == (ssize_t)sizeof chunk)
        pos += (uint64_t)n;
    ck_assert_int_gt(n, 0);                       /* the last write is short */
    pos += (uint64_t)n;
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, chunk, 1, pos), -ENOSPC);
    /* what is left is less than a page: small nodes fit, then nothing */
    char name[32];
    int made = 0, err = 0;
    while (made < 64 && !err) {
        snprintf(name, sizeof name, "/tmp/s%d", made);
        int k = open_at(v, name, VFS_O_CREAT);
        err = k < 0 ? k : vfs_close(v, (uint32_t)k);
        made += !err;
    }
    ck_assert_int_eq(err, -ENOSPC);
    ck_assert_int_lt(made, 64);
    vfs_usage(v, &used, &limit);
    ck_assert_uint_le(used, limit);
    ck_assert_uint_gt(used + 256 + 64 + 8, limit);
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), -ENOSPC);
    ck_assert_int_eq(vfs_symlink(v, P("x"), ROOT, P("/tmp/l")), -ENOSPC);
    for (made = 0, err = 0; made < 64 && !err; made++) {
        snprintf(name, sizeof name, "/tmp/l%d", made);
        err = vfs_link(v, ROOT, P("/tmp/s0"), ROOT, P(name), 0);
    }
    ck_assert_int_eq(err, -ENOSPC);
    /* unlinked but open: the space is still held */
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/big")), 0);
    ck_assert_int_eq(open_at(v, "/tmp/other", VFS_O_CREAT), -ENOSPC);
    vfs_close(v, (uint32_t)h);
    uint64_t after;
    vfs_usage(v, &after, &limit);
    ck_assert_uint_ge(used - after, pos);
    put_file(v, "/tmp/other", "fits again");
    ck_assert_str_eq(get_file(v, "/tmp/other"), "fits again");
}
END_TEST

/* ---- handles ---- */

START_TEST(a_file_unlinked_while_open_lives_until_the_last_close)
{
    char buf[8] = { 0 };
    put_file(v, "/tmp/f", "abc");
    int h = open_at(v, "/tmp/f", VFS_O_RDWR);
    ck_assert_int_eq(vfs_ref(v, (uint32_t)h), 0);
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/f")), 0);
    ck_assert_int_eq(open_at(v, "/tmp/f", VFS_O_RDONLY), -ENOENT);
    ck_assert_int_eq(vfs_write(v, (uint32_t)h, "XY", 2, 3), 2);
    ck_assert_int_eq(vfs_read(v, (uint32_t)h, buf, sizeof buf, 0), 5);
    ck_assert_str_eq(buf, "abcXY");
    struct vfs_stat st;
    vfs_fstat(v, (uint32_t)h, &st);
    ck_assert_uint_eq(st.nlink, 0);
    ck_assert_int_eq(vfs_close(v, (uint32_t)h), 0);
    ck_assert_int_eq(vfs_fstat(v, (uint32_t)h, &st), 0);   /* one reference left */
    ck_assert_int_eq(vfs_close(v, (uint32_t)h), 0);
    ck_assert_int_eq(vfs_close(v, (uint32_t)h), -EBADF);
    ck_assert_int_eq(vfs_fstat(v, (uint32_t)h, &st), -EBADF);
    ck_assert_int_eq(vfs_ref(v, (uint32_t)h), -EBADF);
}
END_TEST

START_TEST(the_handle_table_is_bounded_with_enfile)
{
    int first = -1, h = 0;
    for (int i = 0; i < VFS_MAX_HANDLES; i++) {
        h = open_at(v, "/tmp", VFS_O_RDONLY);
        ck_assert_int_eq(h, i);
        if (first < 0)
            first = h;
    }
    ck_assert_int_eq(open_at(v, "/tmp", VFS_O_RDONLY), -ENFILE);
    ck_assert_int_eq(open_at(v, "/tmp/new", VFS_O_CREAT), -ENFILE);
    ck_assert_int_eq(stat_of(v, "/tmp", 0).nlink, 2);
    ck_assert_int_eq(vfs_stat(v, ROOT, P("/tmp/new"), 0, &(struct vfs_stat){ 0 }), -ENOENT);
    vfs_close(v, 17);
    ck_assert_int_eq(open_at(v, "/tmp", VFS_O_RDONLY), 17);   /* the lowest free */
    (void)first;
}
END_TEST

/* ---- attributes ---- */

START_TEST(chmod_changes_permissions_and_ctime_only)
{
    put_file(v, "/tmp/f", "");
    struct vfs_stat before = stat_of(v, "/tmp/f", 0);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp/f"), 0170755, 0), 0);
    struct vfs_stat after = stat_of(v, "/tmp/f", 0);
    ck_assert_uint_eq(after.mode, S_REG | 0755);
    ck_assert_int_gt(after.ctime.sec, before.ctime.sec);
    ck_assert_int_eq(after.mtime.sec, before.mtime.sec);
    ck_assert_int_eq(vfs_symlink(v, P("f"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp/l"), 0600, VFS_NOFOLLOW), -EOPNOTSUPP);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp/l"), 0600, 0), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).mode, S_REG | 0600);
    int h = open_at(v, "/tmp", 0);
    ck_assert_int_eq(vfs_fchmod(v, (uint32_t)h, 0700), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp", 0).mode, S_DIR | 0700);
    vfs_close(v, (uint32_t)h);
}
END_TEST

START_TEST(chown_sets_owners_and_drops_set_id_bits)
{
    put_file(v, "/tmp/f", "");
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp/f"), 06755, 0), 0);
    ck_assert_int_eq(vfs_chown(v, ROOT, P("/tmp/f"), 1000, (uint32_t)-1, 0), 0);
    struct vfs_stat st = stat_of(v, "/tmp/f", 0);
    ck_assert_uint_eq(st.uid, 1000);
    ck_assert_uint_eq(st.gid, 0);
    ck_assert_uint_eq(st.mode, S_REG | 0755);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp/f"), 02745, 0), 0);
    ck_assert_int_eq(vfs_chown(v, ROOT, P("/tmp/f"), (uint32_t)-1, 7, 0), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).mode, S_REG | 02745);   /* no group x */
    ck_assert_int_eq(vfs_symlink(v, P("f"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(vfs_chown(v, ROOT, P("/tmp/l"), 5, 5, VFS_NOFOLLOW), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/l", VFS_NOFOLLOW).uid, 5);
    ck_assert_uint_eq(stat_of(v, "/tmp/f", 0).uid, 1000);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp"), 03777, 0), 0);
    int h = open_at(v, "/tmp", 0);
    ck_assert_int_eq(vfs_fchown(v, (uint32_t)h, 1, 2), 0);
    st = stat_of(v, "/tmp", 0);
    ck_assert_uint_eq(st.mode, S_DIR | 03777);   /* directories keep them */
    ck_assert_uint_eq(st.gid, 2);
    vfs_close(v, (uint32_t)h);
    ck_assert_int_eq(vfs_fchown(v, 4000, 1, 1), -EBADF);
}
END_TEST

START_TEST(utimens_sets_omits_and_uses_the_vfs_clock)
{
    put_file(v, "/tmp/f", "");
    struct vfs_time t[2] = { { 100, 5 }, { 200, 6 } };
    ck_assert_int_eq(vfs_utimens(v, ROOT, P("/tmp/f"), t, 0), 0);
    struct vfs_stat st = stat_of(v, "/tmp/f", 0);
    ck_assert_int_eq(st.atime.sec, 100);
    ck_assert_uint_eq(st.atime.nsec, 5);
    ck_assert_int_eq(st.mtime.sec, 200);
    ck_assert_int_eq(st.ctime.sec, 1000000 + test_ticks);   /* ctime is "now" */
    struct vfs_time omit_now[2] = { { 0, VFS_UTIME_OMIT }, { 0, VFS_UTIME_NOW } };
    ck_assert_int_eq(vfs_utimens(v, ROOT, P("/tmp/f"), omit_now, 0), 0);
    st = stat_of(v, "/tmp/f", 0);
    ck_assert_int_eq(st.atime.sec, 100);
    ck_assert_int_eq(st.mtime.sec, 1000000 + test_ticks);
    ck_assert_uint_eq(st.mtime.nsec, 7);
    ck_assert_int_eq(vfs_utimens(v, ROOT, P("/tmp/f"), NULL, 0), 0);
    st = stat_of(v, "/tmp/f", 0);
    ck_assert_int_eq(st.atime.sec, st.mtime.sec);
    ck_assert_int_eq(st.atime.sec, 1000000 + test_ticks);
    struct vfs_time bad[2] = { { 0, 1000000000 }, { 0, 0 } };
    ck_assert_int_eq(vfs_utimens(v, ROOT, P("/tmp/f"), bad, 0), -EINVAL);
    ck_assert_int_eq(vfs_symlink(v, P("f"), ROOT, P("/tmp/l")), 0);
    ck_assert_int_eq(vfs_utimens(v, ROOT, P("/tmp/l"), t, VFS_NOFOLLOW), 0);
    ck_assert_int_eq(stat_of(v, "/tmp/l", VFS_NOFOLLOW).mtime.sec, 200);
    ck_assert_int_ne(stat_of(v, "/tmp/f", 0).mtime.sec, 200);
}
END_TEST

START_TEST(times_come_from_the_clock_and_track_changes)
{
    int64_t t0 = 1000000 + test_ticks;
    put_file(v, "/tmp/f", "x");
    struct vfs_stat f = stat_of(v, "/tmp/f", 0), d = stat_of(v, "/tmp", 0);
    ck_assert_int_gt(f.mtime.sec, t0);
    ck_assert_int_eq(d.mtime.sec, f.ctime.sec - 1);   /* the entry was made, then written */
    int h = open_at(v, "/tmp/f", VFS_O_RDONLY);
    char c;
    vfs_read(v, (uint32_t)h, &c, 1, 0);
    ck_assert_int_eq(stat_of(v, "/tmp/f", 0).atime.sec, f.atime.sec);   /* noatime */
    vfs_close(v, (uint32_t)h);
    int64_t before = 1000000 + test_ticks;
    ck_assert_int_eq(vfs_unlink(v, ROOT, P("/tmp/f")), 0);
    ck_assert_int_gt(stat_of(v, "/tmp", 0).mtime.sec, before);
}
END_TEST

START_TEST(inode_numbers_are_deterministic)
{
    struct vfs *w = new_vfs(NULL, VFS_DEFAULT_LIMIT);
    put_file(v, "/tmp/a", "");
    put_file(w, "/tmp/a", "");
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    ck_assert_int_eq(vfs_mkdir(w, ROOT, P("/tmp/d"), 0755), 0);
    ck_assert_uint_eq(stat_of(v, "/tmp/d", 0).ino, stat_of(w, "/tmp/d", 0).ino);
    ck_assert_uint_eq(stat_of(v, "/tmp/a", 0).ino, stat_of(w, "/tmp/a", 0).ino);
    ck_assert_uint_ne(stat_of(v, "/tmp/a", 0).ino, stat_of(v, "/tmp/d", 0).ino);
    vfs_free(w);
}
END_TEST

START_TEST(access_checks_existence_and_execute_bits)
{
    put_file(v, "/tmp/f", "");
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/f"), VFS_F_OK, 0), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/f"), VFS_R_OK | VFS_W_OK, 0), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/f"), VFS_X_OK, 0), -EACCES);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp"), VFS_X_OK, 0), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/none"), VFS_F_OK, 0), -ENOENT);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/f"), 8, 0), -EINVAL);
    int h = open_at(v, "/tmp/f", 0);
    ck_assert_int_eq(vfs_exec_ok(v, (uint32_t)h), -EACCES);
    ck_assert_int_eq(vfs_chmod(v, ROOT, P("/tmp/f"), 0100, 0), 0);
    ck_assert_int_eq(vfs_exec_ok(v, (uint32_t)h), 0);
    ck_assert_int_eq(vfs_access(v, ROOT, P("/tmp/f"), VFS_X_OK, 0), 0);
    vfs_close(v, (uint32_t)h);
    h = open_at(v, "/tmp", 0);
    ck_assert_int_eq(vfs_exec_ok(v, (uint32_t)h), -EACCES);
    vfs_close(v, (uint32_t)h);
}
END_TEST

Suite *vfs_suite(void)
{
    Suite *s = suite_create("vfs");
    TCase *tc = tcase_create("files");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, empty_tree_has_tmp_and_dev_with_device_nodes);
    tcase_add_test(tc, device_nodes_open_but_are_not_files);
    tcase_add_test(tc, created_file_reads_back_what_was_written);
    tcase_add_test(tc, open_errors_follow_linux);
    tcase_add_test(tc, o_trunc_empties_a_file);
    tcase_add_test(tc, o_nofollow_on_a_symlink_is_eloop);
    tcase_add_test(tc, o_creat_through_a_dangling_symlink_creates_its_target);
    tcase_add_test(tc, a_write_at_1gib_charges_one_page);
    tcase_add_test(tc, a_new_page_reads_zeros_around_the_bytes_written);
    tcase_add_test(tc, writing_past_the_largest_file_is_efbig);
    tcase_add_test(tc, truncate_then_grow_reads_zeros_where_data_was);
    tcase_add_test(tc, the_layer_fills_with_enospc_and_recovers_after_unlink);
    tcase_add_test(tc, a_file_unlinked_while_open_lives_until_the_last_close);
    tcase_add_test(tc, the_handle_table_is_bounded_with_enfile);
    tcase_add_test(tc, chmod_changes_permissions_and_ctime_only);
    tcase_add_test(tc, chown_sets_owners_and_drops_set_id_bits);
    tcase_add_test(tc, utimens_sets_omits_and_uses_the_vfs_clock);
    tcase_add_test(tc, times_come_from_the_clock_and_track_changes);
    tcase_add_test(tc, inode_numbers_are_deterministic);
    tcase_add_test(tc, access_checks_existence_and_execute_bits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(vfs_suite());
}
