/*
 * Unmodified static i386 Linux programs under emu: glibc and musl builds of
 * the programs in guest/programs/static and Debian's busybox-static, on the four models
 * of the comparison. They call the kernel through "call *%gs:0x10", the
 * AT_SYSINFO copy libc keeps in its TCB, so they take sysenter exactly where
 * the model has SEP. (The --root tree: test_tree.c; compare: test_compare.c.)
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"

#define LOOP_OUT "gettimeofday: 10000 calls, time never went backwards\n"

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
    /* the tree's files, and the kernel's /dev and /tmp */
    { "busybox", WITH_ROOT, { "ls", "/" },
      "abs-out\ndev\nfifo\nhello.txt\nlink-in\nloop1\nloop2\nrel-out\nsecret-abs\nsub\ntmp\n",
      0, 5 },
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
        args[n++] = tree_root();
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

/* ------------------------------------------- issue 26, item 5 */

/* A block that stores to a fresh page (#PF, a page made) and then needs a
 * code page not yet loaded (a fetch fault raised at the block's start,
 * run up to the instruction that needs the page): the run_to armed for
 * the fetch is disarmed by the store's fault, but the engine kept its
 * stop, and the one-CPU loop took that stop for "the machine halted"
 * (125). Loop index: build * (NMODELS + 1) + model, the last one --smp 2. */
START_TEST(a_store_fault_then_a_fetch_fault_in_one_block_runs_as_natively)
{
    static const char *const builds[] = { "page_cross-glibc", "page_cross-musl" };
    const char *prog = fixture(builds[_i / (NMODELS + 1)]);
    int model = _i % (NMODELS + 1);
    const char *args[] = { "run", "--cpu", models[model % NMODELS], "--smp",
                           model == NMODELS ? "2" : "1", prog, NULL };
    const char *argv[] = { prog, NULL };
    struct emu_result r, n;
    run_emu(&r, args);
    run_native(&n, NULL, argv);
    ck_assert_msg(r.status == n.status && !strcmp(r.out, n.out),
                  "%s on %s (--smp %s): exit %d, stdout %s, stderr %s; natively (%s) %d, %s",
                  prog, args[2], args[4], r.status, r.out, r.err, native_runner(), n.status,
                  n.out);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "crosser: 55667788\n");
    emu_result_free(&r);
    emu_result_free(&n);
}
END_TEST

Suite *static_suite(void)
{
    Suite *s = suite_create("static");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, tree_make, tree_remove);
    tcase_add_loop_test(tc, static_program_runs_and_uses_sysenter_only_with_sep, 0,
                        NCASES * NMODELS);
    tcase_add_loop_test(tc, a_store_fault_then_a_fetch_fault_in_one_block_runs_as_natively, 0,
                        2 * (NMODELS + 1));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(static_suite());
}
