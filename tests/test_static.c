/*
 * Unmodified static i386 Linux programs under emu: glibc and musl builds of
 * the programs in guest/programs/static and Debian's busybox-static, on the four models
 * of the comparison. They call the kernel through "call *%gs:0x10", the
 * AT_SYSINFO copy libc keeps in its TCB, so they take sysenter exactly where
 * the model has SEP. Also: the --root file tree and its containment.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"

#define MAX_ARGS 48
#define SECRET "sysemu-outside-secret-7d1c"
#define LOOP_OUT "gettimeofday: 10000 calls, time never went backwards\n"

static char tree[256];   /* the scratch directory: tree/root is --root */
static char root[300];

/* ------------------------------------------------------------ helpers */

static const char *fixture(const char *name)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    if (!strcmp(name, "busybox"))
        snprintf(p, 256, "%s/i386/root/bin/busybox", BUILD_DIR);
    else
        snprintf(p, 256, "%s/static/%s", BUILD_DIR, name);
    ck_assert_msg(access(p, X_OK) == 0, "fixture %s is missing: run make", p);
    return p;
}

struct report {
    long sysenter, int80, sysexit, iret, unknown;
};

static bool parse_report(const char *err, struct report *rep)
{
    char *line = line_with(err, "emu: report: system calls: ");
    if (!line)
        return false;
    int got = sscanf(line, "emu: report: system calls: %ld via sysenter, %ld via int $0x80; "
                     "returns: %ld sysexit, %ld iret; %ld unknown", &rep->sysenter,
                     &rep->int80, &rep->sysexit, &rep->iret, &rep->unknown);
    free(line);
    return got == 5;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void link_in(const char *target, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, name);
    ck_assert_int_eq(symlink(target, path), 0);
}

/*
 * tree/secret.txt          outside the root: must never be read
 * tree/root/hello.txt      two lines
 * tree/root/sub/inner.txt
 * tree/root/abs-out        -> /etc/passwd        (absolute, pointing outside)
 * tree/root/rel-out        -> ../secret.txt      (relative, pointing outside)
 * tree/root/secret-abs     -> <tree>/secret.txt  (the host path of the secret)
 * tree/root/link-in        -> sub/inner.txt
 * tree/root/loop1 <-> loop2, tree/root/fifo
 */
static void remove_tree(void);

static void make_tree(void)
{
    char path[512];
    snprintf(tree, sizeof tree, "/tmp/sysemu_static_%d", (int)getpid());
    snprintf(root, sizeof root, "%s/root", tree);
    remove_tree();   /* what a killed earlier run with our pid left */
    snprintf(path, sizeof path, "%s/sub", root);
    ck_assert_int_eq(mkdir(tree, 0755), 0);
    ck_assert_int_eq(mkdir(root, 0755), 0);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    write_file(tree, "secret.txt", SECRET "\n");
    write_file(root, "hello.txt", "hello from the tree\nsecond line\n");
    write_file(root, "sub/inner.txt", "inner\n");
    link_in("/etc/passwd", "abs-out");
    link_in("../secret.txt", "rel-out");
    snprintf(path, sizeof path, "%s/secret.txt", tree);
    link_in(path, "secret-abs");
    link_in("sub/inner.txt", "link-in");
    link_in("loop2", "loop1");
    link_in("loop1", "loop2");
    snprintf(path, sizeof path, "%s/fifo", root);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
}

static void remove_tree(void)
{
    static const char *const names[] = {
        "root/sub/inner.txt", "root/sub", "root/hello.txt", "root/abs-out", "root/rel-out",
        "root/secret-abs", "root/link-in", "root/loop1", "root/loop2", "root/fifo", "root",
        "secret.txt",
    };
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tree, names[i]);
        if (unlink(path) != 0)
            rmdir(path);
    }
    rmdir(tree);
}

static void no_secret(const struct emu_result *r)
{
    ck_assert_msg(!strstr(r->out, SECRET) && !strstr(r->err, SECRET),
                  "the secret outside the root leaked: %s%s", r->out, r->err);
    ck_assert_msg(!strstr(r->out, "root:x:0:0"), "/etc/passwd leaked: %s", r->out);
}

/* ------------------------------------------- programs on every model */

static const char *const models[] = { "pentium4", "pentium3", "pentium4,-sep", "pentium3,-sep" };
#define NMODELS 4

static bool has_sep(int model)
{
    return model < 2;
}

enum { NO_ROOT, WITH_ROOT };

static const struct program_case {
    const char *fixture;
    int root;
    const char *args[4];
    const char *out;       /* stdout, exactly */
    int status;
    long min_calls;        /* system calls at least */
} cases[] = {
    { "hello-glibc", NO_ROOT, { "7" }, "hello, world (argc=2, HOME=/)\n", 7, 5 },
    { "hello-musl", NO_ROOT, { "7" }, "hello, world (argc=2, HOME=/)\n", 7, 3 },
    { "tls-glibc", NO_ROOT, { NULL },
      "counter=43 name=tls!\nerrno: EBADF\ngs selector is a TLS entry, self pointer matches "
      "pthread_self\n%gs:0x10 is AT_SYSINFO (fffff000)\n", 0, 5 },
    { "tls-musl", NO_ROOT, { NULL },
      "counter=43 name=tls!\nerrno: EBADF\ngs selector is a TLS entry, self pointer matches "
      "pthread_self\n%gs:0x10 is AT_SYSINFO (fffff000)\n", 0, 3 },
    { "busybox", NO_ROOT, { "echo", "hello", "world" }, "hello world\n", 0, 3 },
    { "busybox", NO_ROOT, { "uname", "-m" }, "i686\n", 0, 3 },
    { "busybox", WITH_ROOT, { "ls", "/" },
      "abs-out\nfifo\nhello.txt\nlink-in\nloop1\nloop2\nrel-out\nsecret-abs\nsub\n", 0, 5 },
    { "busybox", WITH_ROOT, { "cat", "/hello.txt", "/sub/inner.txt" },
      "hello from the tree\nsecond line\ninner\n", 0, 5 },
    { "gettimeofday_loop-glibc", NO_ROOT, { NULL }, LOOP_OUT, 0, 10000 },
    { "gettimeofday_loop-musl", NO_ROOT, { NULL }, LOOP_OUT, 0, 10000 },
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* loop index: case * NMODELS + model */
START_TEST(static_program_runs_and_uses_sysenter_only_with_sep)
{
    const struct program_case *c = &cases[_i / NMODELS];
    int model = _i % NMODELS;
    const char *args[16] = { "run", "--report", "--cpu", models[model] };
    int n = 4;
    if (c->root == WITH_ROOT) {
        args[n++] = "--root";
        args[n++] = root;
    }
    args[n++] = fixture(c->fixture);
    for (int i = 0; i < 4 && c->args[i]; i++)
        args[n++] = c->args[i];
    args[n] = NULL;

    struct emu_result r;
    struct report rep;
    run_emu(&r, args);
    const char *what = c->args[0] ? c->args[0] : "";
    ck_assert_msg(r.status == c->status, "%s %s on %s: exit %d, want %d; stderr: %s",
                  c->fixture, what, models[model], r.status, c->status, r.err);
    ck_assert_msg(!strcmp(r.out, c->out), "%s %s on %s: stdout\n%s\nwant\n%s", c->fixture,
                  what, models[model], r.out, c->out);
    ck_assert_msg(parse_report(r.err, &rep), "no report in: %s", r.err);
    ck_assert_msg(rep.sysenter + rep.int80 >= c->min_calls, "%s: only %ld calls", c->fixture,
                  rep.sysenter + rep.int80);
    if (has_sep(model))
        ck_assert_msg(rep.sysenter >= c->min_calls - 3 && rep.sysexit > 0,
                      "%s %s on %s: %ld via sysenter, %ld via int $0x80", c->fixture, what,
                      models[model], rep.sysenter, rep.int80);
    else
        ck_assert_msg(rep.sysenter == 0 && rep.sysexit == 0 && rep.int80 >= c->min_calls,
                      "%s %s on %s: %ld via sysenter, %ld via int $0x80", c->fixture, what,
                      models[model], rep.sysenter, rep.int80);
    no_secret(&r);
    emu_result_free(&r);
}
END_TEST

START_TEST(compare_prints_the_table_and_sysenter_is_faster)
{
    const char *name = _i ? "gettimeofday_loop-musl" : "gettimeofday_loop-glibc";
    struct emu_result r;
    emu(&r, "compare", fixture(name), NULL);
    ck_assert_msg(r.status == 0, "compare %s: exit %d, %s", name, r.status, r.err);
    char *header = line_with(r.out, "cycles/call");
    ck_assert_msg(header && strstr(header, "SEP") && strstr(header, "path"), "%s", r.out);
    free(header);
    for (int m = 0; m < NMODELS; m++) {
        char want[64];
        snprintf(want, sizeof want, "%-16s %-4s %-9s    10000", models[m],
                 has_sep(m) ? "on" : "off", has_sep(m) ? "sysenter" : "int80");
        ck_assert_msg(strstr(r.out, want), "compare %s: no row \"%s\" in:\n%s", name, want,
                      r.out);
    }
    for (int m = 0; m < 2; m++) {
        char prefix[64];
        double fast, slow, ratio;
        snprintf(prefix, sizeof prefix, "%s clock_gettime64: sysenter ", models[m]);
        char *line = line_with(r.out, prefix);
        ck_assert_msg(line, "compare %s: no ratio line for %s:\n%s", name, models[m], r.out);
        ck_assert_int_eq(sscanf(line + strlen(prefix), "%lf / int80 %lf cycles = %lf of the time",
                                &fast, &slow, &ratio), 3);
        ck_assert_msg(fast < slow && ratio < 1.0, "%s", line);
        free(line);
    }
    emu_result_free(&r);
}
END_TEST

/* ------------------------------------------------------ the file tree */

static const char *const probes[] = { "fs_probe-glibc", "fs_probe-musl" };

static void probe(struct emu_result *r, int which, bool with_root, const char *cmd,
                  const char *const *paths)
{
    const char *args[MAX_ARGS + 1] = { "run" };
    int n = 1;
    if (with_root) {
        args[n++] = "--root";
        args[n++] = root;
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
    snprintf(host_secret, sizeof host_secret, "%s/secret.txt", tree);
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

START_TEST(the_tree_cannot_be_written)
{
    const char *paths[] = { "/hello.txt", "/new.txt", "/sub", NULL };
    struct emu_result r;
    probe(&r, _i, true, "write", paths);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "open /hello.txt for writing: EROFS\ncreate /hello.txt: EROFS\n"
                            "open /new.txt for writing: ENOENT\ncreate /new.txt: EROFS\n"
                            "open /sub for writing: EISDIR\ncreate /sub: EISDIR\n");
    emu_result_free(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/new.txt", root);
    ck_assert_msg(access(path, F_OK) != 0, "the guest created %s", path);
    char *text = NULL;
    snprintf(path, sizeof path, "%s/hello.txt", root);
    text = read_file(path);
    ck_assert_str_eq(text, "hello from the tree\nsecond line\n");
    free(text);
}
END_TEST

START_TEST(without_root_nothing_exists)
{
    const char *paths[] = { "/hello.txt", "/", "/etc/passwd", NULL };
    struct emu_result r;
    probe(&r, _i, false, "open", paths);
    ck_assert_str_eq(r.out, "open /hello.txt: ENOENT\nopen /: ENOENT\nopen /etc/passwd: ENOENT\n");
    emu_result_free(&r);

    emu(&r, "run", fixture("busybox"), "cat", "/etc/passwd", NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.out, "");
    no_secret(&r);
    emu_result_free(&r);
}
END_TEST

START_TEST(busybox_cannot_read_through_escaping_symlinks)
{
    struct emu_result r;
    emu(&r, "run", "--root", root, fixture("busybox"), "cat", "/rel-out", "/abs-out",
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
    snprintf(file, sizeof file, "%s/hello.txt", root);
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

/* ------------------------------------------------- --strace, --report */

START_TEST(strace_names_paths_and_the_entry_path)
{
    struct emu_result r;
    emu(&r, "run", "--strace", "--root", root, fixture("busybox"), "cat", "/hello.txt", NULL);
    ck_assert_int_eq(r.status, 0);
    char *open = line_with(r.err, "\"/hello.txt\"");
    ck_assert_msg(open && !strncmp(open, "[sysenter/sysexit] openat(0xffffff9c, \"/hello.txt\", ",
                                   52) && strstr(open, ") = 3 <"), "%s", r.err);
    free(open);
    char *tls = line_with(r.err, "set_thread_area(");
    ck_assert_msg(tls && !strncmp(tls, "[int80/iret] ", 13), "%s", r.err);
    free(tls);
    emu_result_free(&r);
}
END_TEST

START_TEST(report_counts_only_unknown_calls_as_enosys)
{
    /* glibc calls rseq, which the kernel answers -ENOSYS on purpose: a
     * known call, so not counted. */
    struct emu_result r;
    struct report rep;
    emu(&r, "run", "--strace", "--report", fixture("hello-glibc"), NULL);
    ck_assert_int_eq(r.status, 0);
    char *rseq = line_with(r.err, "] rseq(");
    ck_assert_msg(rseq && strstr(rseq, ") = -38 <"), "%s", r.err);
    free(rseq);
    ck_assert(parse_report(r.err, &rep));
    ck_assert_msg(rep.unknown == 0, "%ld unknown: %s", rep.unknown, r.err);
    emu_result_free(&r);

    emu(&r, "run", "--report", program("check_syscalls"), "vsyscall", NULL);
    ck_assert(parse_report(r.err, &rep));
    ck_assert_msg(rep.unknown == 3, "check_syscalls makes 3 unknown calls, report says %ld",
                  rep.unknown);
    emu_result_free(&r);
}
END_TEST

Suite *static_suite(void)
{
    Suite *s = suite_create("static");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_add_loop_test(tc, static_program_runs_and_uses_sysenter_only_with_sep, 0,
                        NCASES * NMODELS);
    tcase_add_loop_test(tc, compare_prints_the_table_and_sysenter_is_faster, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_add_loop_test(tc, files_read_list_stat_and_map, 0, 2);
    tcase_add_loop_test(tc, paths_outside_the_root_are_not_reached, 0, 2);
    tcase_add_loop_test(tc, the_tree_cannot_be_written, 0, 2);
    tcase_add_loop_test(tc, without_root_nothing_exists, 0, 2);
    tcase_add_test(tc, busybox_cannot_read_through_escaping_symlinks);
    tcase_add_test(tc, bad_root_is_a_one_line_error);
    suite_add_tcase(s, tc);

    tc = tcase_create("observability");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_add_test(tc, strace_names_paths_and_the_entry_path);
    tcase_add_test(tc, report_counts_only_unknown_calls_as_enosys);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(static_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
