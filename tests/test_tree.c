/*
 * The file tree as programs see it (the kernel's file calls over the vfs,
 * emu/vfs/vfs.h and emu/hypercall/vfs.c): glibc and musl builds of fs_probe and
 * Debian's busybox read, list, stat and map the files of --root, never
 * reach a path outside it, and write only to the in-memory layer: the
 * host's files never change.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

#define MAX_ARGS 48

static const char *const probes[] = { "fs_probe-glibc", "fs_probe-musl" };

static void probe(struct emu_result *r, int which, bool with_root, const char *cmd,
                  const char *const *paths)
{
    const char *args[MAX_ARGS + 1] = { "run" };
    int n = 1;
    if (with_root) {
        args[n++] = "--root";
        args[n++] = tree_root();
    }
    args[n++] = fixture(probes[which]);
    args[n++] = cmd;
    while (*paths && n < MAX_ARGS)
        args[n++] = *paths++;
    args[n] = NULL;
    run_emu(r, args);
}

START_TEST(files_read_list_stat_and_map)
{
    struct emu_result r;
    const char *one[] = { "/hello.txt", NULL };
    probe(&r, _i, true, "cat", one);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "hello from the tree\nsecond line\n"
                            "[size 32, end 32, byte at 16: 114]\n");
    emu_result_free(&r);

    probe(&r, _i, true, "mmap", one);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    ck_assert_str_eq(r.out, "hello from the tree\nsecond line\n");
    emu_result_free(&r);

    const char *dirs[] = { "/sub", NULL };
    probe(&r, _i, true, "ls", dirs);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    ck_assert_str_eq(r.out, ".\n..\ninner.txt\n");
    emu_result_free(&r);

    const char *stats[] = { "hello.txt", "link-in", "/sub/../sub", NULL };
    probe(&r, _i, true, "stat", stats);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    ck_assert_str_eq(r.out, "hello.txt: file, 32 bytes, readable\n"
                            "link-in: symlink to sub/inner.txt\n"
                            "link-in: file, 6 bytes, readable\n"
                            "/sub/../sub: directory, 0 bytes, readable\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(paths_outside_the_root_are_not_reached)
{
    char host_secret[512], long_path[6000];
    snprintf(host_secret, sizeof host_secret, "%s/secret.txt", tree_dir());
    for (size_t i = 0; i + 2 < sizeof long_path; i += 2)
        memcpy(long_path + i, "a/", 2);
    long_path[sizeof long_path - 2] = 'a';
    long_path[sizeof long_path - 1] = 0;
    const char *paths[] = {
        "../../etc/passwd", "/etc/passwd", "../secret.txt", "/../../secret.txt",
        host_secret, "abs-out", "rel-out", "secret-abs", "sub/../../secret.txt",
        "loop1", "fifo", "/proc/self/exe", long_path, "link-in", NULL,
    };
    static const char *const want[] = {
        "open ../../etc/passwd: ENOENT\n", "open /etc/passwd: ENOENT\n",
        "open ../secret.txt: ENOENT\n", "open /../../secret.txt: ENOENT\n",
        ": ENOENT\n" /* host_secret */, "open abs-out: ENOENT\n", "open rel-out: ENOENT\n",
        "open secret-abs: ENOENT\n", "open sub/../../secret.txt: ENOENT\n",
        "open loop1: ELOOP\n", "open fifo: EACCES\n", "open /proc/self/exe: ENOENT\n",
        ": ENAMETOOLONG\n" /* long_path */, "open link-in: ok: inner\n",
    };
    struct emu_result r;
    probe(&r, _i, true, "open", paths);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    const char *line = r.out;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *end = strchr(line, '\n');
        ck_assert_msg(end, "%s: %zu lines, want %zu", probes[_i], i, sizeof want / sizeof want[0]);
        size_t len = (size_t)(end + 1 - line), wl = strlen(want[i]);
        ck_assert_msg(len >= wl && !strncmp(end + 1 - wl, want[i], wl),
                      "%s, path %zu: got \"%.*s\", want \"...%s\"", probes[_i], i,
                      (int)(len > 200 ? 200 : len), line, want[i]);
        line = end + 1;
    }
    no_secret(&r);
    emu_result_free(&r);
}
END_TEST

START_TEST(writes_stay_in_memory_and_the_host_is_untouched)
{
    const char *paths[] = { "/hello.txt", "/new.txt", "/sub", NULL };
    struct emu_result r;
    probe(&r, _i, true, "write", paths);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "open /hello.txt for writing: succeeded\n"
                            "create /hello.txt: succeeded\n"
                            "open /new.txt for writing: ENOENT\ncreate /new.txt: succeeded\n"
                            "open /sub for writing: EISDIR\ncreate /sub: EISDIR\n");
    emu_result_free(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/new.txt", tree_root());
    ck_assert_msg(access(path, F_OK) != 0, "the guest created %s", path);
    char *text = NULL;
    snprintf(path, sizeof path, "%s/hello.txt", tree_root());
    text = read_file(path);
    ck_assert_str_eq(text, "hello from the tree\nsecond line\n");
    free(text);

    /* busybox writes, appends, copies and deletes; the tree sees it all */
    emu(&r, "run", "--root", tree_root(), fixture("busybox"), "sh", "-c",
        "echo changed > hello.txt; echo more >> hello.txt; cp hello.txt sub/copy; "
        "mkdir sub/new; mv sub/copy sub/new/moved; rm link-in; cat sub/new/moved; ls sub",
        NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "changed\nmore\ninner.txt\nnew\n");
    emu_result_free(&r);
    text = read_file(path);
    ck_assert_str_eq(text, "hello from the tree\nsecond line\n");
    free(text);
    snprintf(path, sizeof path, "%s/link-in", tree_root());
    ck_assert_msg(access(path, F_OK) == 0, "the guest removed the host's %s", path);
    snprintf(path, sizeof path, "%s/sub/new", tree_root());
    ck_assert_msg(access(path, F_OK) != 0, "the guest created %s", path);
}
END_TEST

START_TEST(without_root_only_the_kernels_directories_exist)
{
    const char *paths[] = { "/hello.txt", "/", "/etc/passwd", "/tmp", "/dev/null", NULL };
    struct emu_result r;
    probe(&r, _i, false, "open", paths);
    ck_assert_str_eq(r.out, "open /hello.txt: ENOENT\nopen /: ok: \nopen /etc/passwd: ENOENT\n"
                            "open /tmp: ok: \nopen /dev/null: ok: \n");
    emu_result_free(&r);

    emu(&r, "run", fixture("busybox"), "cat", "/etc/passwd", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.out, "");
    no_secret(&r);
    emu_result_free(&r);

    emu(&r, "run", fixture("busybox"), "ls", "/", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "dev\ntmp\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(busybox_cannot_read_through_escaping_symlinks)
{
    struct emu_result r;
    emu(&r, "run", "--root", tree_root(), fixture("busybox"), "cat", "/rel-out", "/abs-out",
        "/secret-abs", "/../secret.txt", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.out, "");
    ck_assert_int_eq(count_lines_containing(r.err, "No such file or directory"), 4);
    no_secret(&r);
    emu_result_free(&r);
}
END_TEST

START_TEST(bad_root_is_a_one_line_error)
{
    char file[512];
    snprintf(file, sizeof file, "%s/hello.txt", tree_root());
    const char *bad[2] = { "/nonexistent/sysemu/root", file };
    for (int i = 0; i < 2; i++) {
        struct emu_result r;
        emu(&r, "run", "--root", bad[i], fixture("hello-musl"), NULL);
        ck_assert_msg(r.status == 2, "--root %s: exit %d, %s", bad[i], r.status, r.err);
        ck_assert_msg(!strncmp(r.err, "emu: --root ", 12) && strchr(r.err, '\n') ==
                      r.err + strlen(r.err) - 1, "not one line: %s", r.err);
        ck_assert_str_eq(r.out, "");
        emu_result_free(&r);
    }
}
END_TEST

Suite *tree_suite(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, tree_make, tree_remove);
    tcase_add_loop_test(tc, files_read_list_stat_and_map, 0, 2);
    tcase_add_loop_test(tc, paths_outside_the_root_are_not_reached, 0, 2);
    tcase_add_loop_test(tc, writes_stay_in_memory_and_the_host_is_untouched, 0, 2);
    tcase_add_loop_test(tc, without_root_only_the_kernels_directories_exist, 0, 2);
    tcase_add_test(tc, busybox_cannot_read_through_escaping_symlinks);
    tcase_add_test(tc, bad_root_is_a_one_line_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(tree_suite());
}
