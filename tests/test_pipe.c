/*
 * Descriptors and pipes (guest/kernel/file.c, pipe.c, read_write.c), run
 * by guest/programs/fds.c natively and under emu on every CPU model: the
 * same output, the same exit status. The program uses only relative paths;
 * natively it runs in an empty scratch directory, under emu with an empty
 * scratch directory as --root (and "/" as its working directory), so both
 * start from the same nothing.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const char *const cases[] = {
    "lowest", "dup", "fcntl", "cloexec", "pipe", "atomic", "epipe", "nonblock", "stdout",
    "devices", "positioned",
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static const char *const cpus[] = { "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep",
                                    "pentiumpro" };
#define NCPUS (int)(sizeof cpus / sizeof cpus[0])

static void scratch_dir(char *dir)
{
    strcpy(dir, "/tmp/sysemu_pipe_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* execve(2): the descriptors marked close-on-exec (3 by O_CLOEXEC, 5 by
 * F_SETFD) are closed in the new image, the others (4) stay open. */
static const char cloexec_rule[] = "open: 3 4 5\nfd 3: closed\nfd 4: open\nfd 5: closed\n";

START_TEST(descriptors_and_pipes_behave_as_natively)
{
    const char *c = cases[_i];
    char native_dir[64], emu_dir[64];
    struct emu_result native, r;
    scratch_dir(native_dir);
    const char *argv[] = { program("fds"), c, NULL };
    run_native(&native, native_dir, argv);
    remove_dir(native_dir);
    if (!native_is_host() && !strcmp(c, "cloexec")) {
        /* qemu-i386 cannot exec the i386 image: the reference is the rule */
        fprintf(stderr, "fds cloexec: under %s an i386 execve fails; held to execve(2)'s "
                        "rule instead\n", native_runner());
        emu_result_free(&native);
        native = (struct emu_result){ .status = 0, .out = strdup(cloexec_rule),
                                      .err = strdup("") };
    }
    ck_assert_msg(native.status == 0, "fds %s natively: exit %d: %s", c, native.status,
                  native.err);
    for (int m = 0; m < NCPUS; m++) {
        scratch_dir(emu_dir);
        const char *args[] = { "run", "--cpu", cpus[m], "--root", emu_dir, program("fds"), c,
                               NULL };
        run_emu(&r, args);
        remove_dir(emu_dir);
        ck_assert_msg(r.status == native.status, "fds %s on %s: exit %d, natively %d: %s", c,
                      cpus[m], r.status, native.status, r.err);
        ck_assert_msg(!strcmp(r.out, native.out), "fds %s on %s:\n%s\nnatively:\n%s", c,
                      cpus[m], r.out, native.out);
        ck_assert_msg(!strcmp(r.err, native.err), "fds %s on %s, stderr:\n%s\nnatively:\n%s",
                      c, cpus[m], r.err, native.err);
        emu_result_free(&r);
    }
    emu_result_free(&native);
}
END_TEST

/* What the comparison rests on: the native runs say what Linux says. */
START_TEST(the_native_runs_show_the_rules)
{
    char dir[64];
    struct emu_result r;
    scratch_dir(dir);
    const char *lowest[] = { program("fds"), "lowest", NULL };
    run_native(&r, dir, lowest);
    ck_assert_str_eq(r.out, "close 0: 0\nclose 0 again: -9\nopen gives 0\ndup gives 3\n"
                            "after closing 2, open gives 2\n");
    emu_result_free(&r);
    const char *atomic[] = { program("fds"), "atomic", NULL };
    run_native(&r, dir, atomic);
    ck_assert_str_eq(r.out, "327680 bytes: 40 records of a, 40 of b, 0 bytes out of place\n");
    emu_result_free(&r);
    const char *nonblock[] = { program("fds"), "nonblock", NULL };
    run_native(&r, dir, nonblock);
    ck_assert_str_eq(r.out, "read of an empty pipe: -11\nit holds 65536 bytes, then write "
                            "gives -11\na 1-byte write into the full pipe: -11\n");
    emu_result_free(&r);
    const char *devices[] = { program("fds"), "devices", NULL };
    run_native(&r, dir, devices);
    ck_assert_str_eq(r.out, "write 1 byte to /dev/null: 1\nwrite 0 bytes: 0\n"
                            "write 3000 bytes: 3000\nread /dev/null: 0\n"
                            "write to a read-only /dev/null: -9\nread a write-only one: -9\n"
                            "read 1 byte of /dev/zero: 1, 0 not zero, 2999 of the rest "
                            "untouched\nread 3000 bytes of /dev/zero: 3000, 0 not zero\n"
                            "write to /dev/zero: 1\n");
    emu_result_free(&r);
    const char *positioned[] = { program("fds"), "positioned", NULL };
    run_native(&r, dir, positioned);
    ck_assert_str_eq(r.out, "pwrite to a pipe: -29\npread of a pipe: -29\npread at -1: -22\n"
                            "pread of fd 99 at -1: -22\nempty write without a reader: 0\n");
    emu_result_free(&r);
    remove_dir(dir);
}
END_TEST

/* A pipe nobody reads: its writer blocks, its parent waits for the writer,
 * and nothing can ever run again. The machine says so and stops: a run
 * that cannot go on, 124. */
START_TEST(a_pipe_nobody_reads_ends_in_a_deadlock_report)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", cpus[_i], program("fds"), "deadlock", NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_str_eq(r.out, "");
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_msg(strstr(r.err, ": deadlock: pid 2 (fds) waits for a child to exit (wait); "
                                "pid 3 (fds) waits for write to a full pipe\n"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

Suite *pipe_suite(void)
{
    Suite *s = suite_create("pipe");
    TCase *tc = tcase_create("descriptors");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, descriptors_and_pipes_behave_as_natively, 0, NCASES);
    tcase_add_test(tc, the_native_runs_show_the_rules);
    tcase_add_loop_test(tc, a_pipe_nobody_reads_ends_in_a_deadlock_report, 0, NCPUS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(pipe_suite());
}
