/* The vfs's in-memory tree (emu/vfs.h), with no host directory under it. */
#include "vfs_helpers.h"
#include "support.h"

#define S_IFMT_  0170000u
#define S_DIR    0040000u
#define S_REG    0100000u
#define S_LNK    0120000u
#define S_CHR    0020000u

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

/* ---- listing helpers ---- */

struct names {
    char *name[2048];
    uint64_t ino[2048];
    uint8_t type[2048];
    int n;
};

static void collect(const char *name, uint64_t ino, uint8_t type, void *ctx)
{
    struct names *s = ctx;
    ck_assert_int_lt(s->n, 2048);
    s->name[s->n] = strdup(name);
    s->ino[s->n] = ino;
    s->type[s->n++] = type;
}

static void list_dir(const char *path, struct names *s)
{
    uint8_t buf[4096];
    uint64_t cookie = 0;
    int h = vfs_open(v, ROOT, P(path), VFS_O_DIRECTORY, 0), n;
    ck_assert_int_ge(h, 0);
    memset(s, 0, sizeof *s);
    while ((n = vfs_getdents(v, (uint32_t)h, buf, sizeof buf, &cookie)) > 0)
        each_dirent(buf, n, collect, s);
    ck_assert_int_eq(n, 0);
    vfs_close(v, (uint32_t)h);
}

static int count_name(const struct names *s, const char *name)
{
    int c = 0;
    for (int i = 0; i < s->n; i++)
        c += !strcmp(s->name[i], name);
    return c;
}

static void free_names(struct names *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->name[i]);
    s->n = 0;
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
    list_dir("/", &s);
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

/* ---- directories ---- */

START_TEST(getdents_lists_dot_dotdot_then_entries_in_creation_order)
{
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d"), 0755), 0);
    put_file(v, "/tmp/d/b", "");
    put_file(v, "/tmp/d/a", "");
    ck_assert_int_eq(vfs_mkdir(v, ROOT, P("/tmp/d/c"), 0700), 0);
    struct names s;
    list_dir("/tmp/d", &s);
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
    list_dir("/", &s);
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
        each_dirent(buf, n, collect, &s);
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
    list_dir("/tmp", &s);
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

Suite *vfs_suite(void)
{
    Suite *s = suite_create("vfs");
    TCase *tc = tcase_create("tree");
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
    tcase_add_test(tc, writing_past_the_largest_file_is_efbig);
    tcase_add_test(tc, truncate_then_grow_reads_zeros_where_data_was);
    tcase_add_test(tc, the_layer_fills_with_enospc_and_recovers_after_unlink);
    tcase_add_test(tc, a_file_unlinked_while_open_lives_until_the_last_close);
    tcase_add_test(tc, the_handle_table_is_bounded_with_enfile);
    tcase_add_test(tc, getdents_lists_dot_dotdot_then_entries_in_creation_order);
    tcase_add_test(tc, getdents_errors);
    tcase_add_test(tc, getdents_is_stable_while_entries_come_and_go);
    tcase_add_test(tc, mkdir_errors_and_link_counts);
    tcase_add_test(tc, unlink_errors);
    tcase_add_test(tc, rmdir_errors);
    tcase_add_test(tc, rename_over_a_file_replaces_it);
    tcase_add_test(tc, rename_follows_linux_rules);
    tcase_add_test(tc, hard_links_share_a_node_and_directories_cannot_be_linked);
    tcase_add_test(tc, symlinks_read_back_and_resolve_relative_to_their_directory);
    tcase_add_test(tc, symlink_loops_and_chains_longer_than_40_are_eloop);
    tcase_add_test(tc, dotdot_at_the_root_stays_at_the_root);
    tcase_add_test(tc, chmod_changes_permissions_and_ctime_only);
    tcase_add_test(tc, utimens_sets_omits_and_uses_the_vfs_clock);
    tcase_add_test(tc, times_come_from_the_clock_and_track_changes);
    tcase_add_test(tc, inode_numbers_are_deterministic);
    tcase_add_test(tc, access_checks_existence_and_execute_bits);
    tcase_add_test(tc, relative_paths_start_at_the_directory_handle);
    tcase_add_test(tc, path_of_follows_renames_of_ancestors);
    tcase_add_test(tc, path_and_name_lengths_are_bounded);
    tcase_add_test(tc, names_may_hold_any_bytes_but_slash_and_nul);
    tcase_add_test(tc, a_very_deep_tree_is_handled_without_recursion);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(vfs_suite());
}
