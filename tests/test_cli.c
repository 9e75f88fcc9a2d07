/*
 * The command line (emu/main.c): bad input is one line on stderr and its
 * exit status, never a crash; --list-cpus names the parts.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static void assert_one_line_error(const struct emu_result *r, int status)
{
    ck_assert_msg(r->status == status, "exit %d, want %d; stderr: %s", r->status, status,
                  r->err);
    ck_assert_msg(!strncmp(r->err, "emu:", 4), "stderr: %s", r->err);
    ck_assert_msg(count_char(r->err, '\n') == 1, "stderr is not one line: %s", r->err);
    ck_assert_str_eq(r->out, "");
}

START_TEST(missing_program_file_is_127)
{
    struct emu_result r;
    emu(&r, "run", "/nonexistent/sysemu/prog", NULL);
    assert_one_line_error(&r, 127);
    emu_result_free(&r);
}
END_TEST

START_TEST(non_elf_file_is_126)
{
    const char *path = scratch("notelf");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#!/bin/sh\necho this is not an ELF file\n", f);
    fclose(f);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    unlink(path);
    assert_one_line_error(&r, 126);
    ck_assert_msg(strstr(r.err, "ELF"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(truncated_elf_is_126)
{
    const char *path = scratch("truncated");
    char *hello = NULL;
    FILE *in = fopen(program("hello"), "rb");
    ck_assert_ptr_nonnull(in);
    hello = malloc(100);
    ck_assert_int_eq(fread(hello, 1, 100, in), 100);
    fclose(in);
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(fwrite(hello, 1, 100, out), 100);
    fclose(out);
    free(hello);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    unlink(path);
    assert_one_line_error(&r, 126);
    emu_result_free(&r);
}
END_TEST

START_TEST(x86_64_elf_is_126)
{
    struct emu_result r;
    emu(&r, "run", "/bin/true", NULL);
    assert_one_line_error(&r, 126);
    emu_result_free(&r);
}
END_TEST

START_TEST(unknown_option_is_2)
{
    struct emu_result r;
    emu(&r, "run", "--no-such-option", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

START_TEST(bad_mem_is_2)
{
    static const char *const bad[] = { "1K", "15M", "5G", "-1G", "1T", "lots", "", "1G2" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct emu_result r;
        emu(&r, "run", "--mem", bad[i], program("hello"), NULL);
        assert_one_line_error(&r, 2);
        ck_assert_msg(strstr(r.err, "--mem"), "--mem %s: %s", bad[i], r.err);
        emu_result_free(&r);
    }
    struct emu_result r;
    emu(&r, "run", "--mem", "16M", program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(unknown_cpu_is_2_and_points_at_list_cpus)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium9", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    ck_assert_msg(strstr(r.err, "--list-cpus"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* --kernel-config takes up or smp; anything else, or up beside --smp N > 1
 * (which boots an SMP kernel), is a usage error in one line. */
START_TEST(bad_kernel_config_is_2)
{
    static const char *const bad[][5] = {
        { "run", "--kernel-config", "", NULL },
        { "run", "--kernel-config", "SMP", NULL },
        { "run", "--kernel-config", "up;smp", NULL },
        { "run", "--kernel-config", "up", "--smp", "2" },
        { "compare", "--kernel-configs", "up;numa", NULL },
        { "compare", "--kernel-configs", "", NULL },
        { "compare", "--kernel-configs", "up;smp", "--smp", "2" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[8];
        int n = 0;
        for (int k = 0; k < 5 && bad[i][k]; k++)
            args[n++] = bad[i][k];
        args[n++] = program("hello");
        args[n] = NULL;
        struct emu_result r;
        run_emu(&r, args);
        assert_one_line_error(&r, 2);
        ck_assert_msg(strstr(r.err, "kernel-config") || strstr(r.err, "smp kernel"),
                      "case %zu: %s", i, r.err);
        emu_result_free(&r);
    }
}
END_TEST

/* Each configuration boots and runs the program; smp is the --smp N > 1
 * default, so saying it there is allowed. */
START_TEST(each_kernel_config_runs_hello)
{
    static const char *const ok[][4] = {
        { "--kernel-config", "up", NULL }, { "--kernel-config", "smp", NULL },
        { "--kernel-config", "smp", "--smp", "2" },
    };
    const char *args[8] = { "run" };
    int n = 1;
    for (int k = 0; k < 4 && ok[_i][k]; k++)
        args[n++] = ok[_i][k];
    args[n++] = program("hello");
    args[n] = NULL;
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);
}
END_TEST

/* A trace that cannot be written (a full device) is an error, not a
 * trace silently lost: one line, exit 125. */
START_TEST(trace_write_error_is_reported)
{
    struct emu_result r;
    if (_i)
        emu(&r, "run", "--trace", "/dev/full", "--trace-insns", program("hello"), NULL);
    else
        emu(&r, "run", "--trace", "/dev/full", program("hello"), NULL);
    ck_assert_msg(r.status == 125, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "emu: /dev/full: cannot write the trace: No space left on device\n");
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);
}
END_TEST

/* The same for a trace to a regular file, which emu writes itself: a write
 * refused part way (the file size limit, its signal ignored) is reported
 * with the reason, not lost. */
START_TEST(trace_file_write_error_is_reported)
{
    const char *path = scratch("trace-too-large.txt");
    char script[1024];
    snprintf(script, sizeof script, "trap '' XFSZ; ulimit -f 16; exec %s run --trace %s "
             "--trace-insns %s", EMU_PATH, path, program("hello"));
    const char *argv[] = { "sh", "-c", script, NULL };
    struct emu_result r;
    run_command(&r, argv);
    char want[512];
    snprintf(want, sizeof want, "emu: %s: cannot write the trace: File too large\n", path);
    ck_assert_msg(r.status == 125, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, want);
    ck_assert_str_eq(r.out, "hello\n");
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* Two outputs given one file would truncate and overwrite each other: the
 * run is refused before either is opened, whatever the spelling or link. A
 * device may be shared. */
START_TEST(two_outputs_naming_one_file_are_refused)
{
    const char *path = scratch("one-file.txt"), *link_path = scratch("one-file-link.txt");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("keep\n", f);
    fclose(f);
    unlink(link_path);
    ck_assert_int_eq(link(path, link_path), 0);
    const char *pairs[][4] = {
        { "-o", path, "--trace", path },
        { "--trace", path, "--profile", link_path },
        { "--profile", path, "--report-file", path },
        { "-o", link_path, "--report-file", path },
    };
    struct emu_result r;
    for (int i = 0; i < 4; i++) {
        emu(&r, "run", pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3], program("hello"),
            NULL);
        ck_assert_msg(r.status == 2, "%s %s: exit %d: %s", pairs[i][0], pairs[i][2], r.status,
                      r.err);
        ck_assert_int_eq(count_char(r.err, '\n'), 1);
        ck_assert_msg(strstr(r.err, "name the same file"), "%s", r.err);
        ck_assert_str_eq(r.out, "");
        char *kept = read_file(path);
        ck_assert_str_eq(kept, "keep\n");
        free(kept);
        emu_result_free(&r);
    }
    emu(&r, "run", "-o", "/dev/null", "--trace", "/dev/null", program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);
    unlink(link_path);
    unlink(path);
}
END_TEST

/* emu compare with no model in --cpus is a usage error, not an empty table. */
START_TEST(compare_without_a_cpu_model_is_2)
{
    static const char *const lists[] = { "", ";;;", "pentium4;", ";pentium3", "pentium4;;pentium3" };
    struct emu_result r;
    emu(&r, "compare", "--cpus", lists[_i], program("hello"), NULL);
    ck_assert_msg(r.status == 2, "--cpus '%s': exit %d: %s", lists[_i], r.status, r.err);
    ck_assert_msg(strstr(r.err, "--cpus") && count_char(r.err, '\n') == 1, "%s", r.err);
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(no_program_is_2)
{
    struct emu_result r;
    emu(&r, "run", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
    emu(&r, "run", "--cpu", "pentium4", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

/* The first line of `pkg-config --modversion NAME`. */
static char *modversion(const char *name)
{
    const char *argv[] = { "pkg-config", "--modversion", name, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_int_eq(r.status, 0);
    r.out[strcspn(r.out, "\n")] = 0;
    free(r.err);
    return r.out;
}

START_TEST(version_names_emu_unicorn_and_capstone)
{
    struct emu_result r;
    emu(&r, "--version", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    ck_assert_int_eq(count_char(r.out, '\n'), 4);
    ck_assert(!strncmp(r.out, "emu (sysemu) ", 13));
    /* and the kernel image a run boots unless told otherwise */
    ck_assert_msg(strstr(r.out, "\nkernel: 2.5.53 up, -march=pentium4 (kernel-pentium4-up.elf) "
                                "by default"), "%s", r.out);
    /* the library emu runs with is the one pkg-config describes */
    char *uc = modversion("unicorn"), *cs = modversion("capstone"), want[128];
    snprintf(want, sizeof want, "Unicorn %s (built with %s)", uc, uc);
    ck_assert_msg(strstr(r.out, want), "want %s in %s", want, r.out);
    snprintf(want, sizeof want, "(built with %s)\n", cs);
    char *capstone = line_with(r.out, "Capstone ");
    ck_assert_msg(capstone && strstr(r.out, want), "want %s in %s", want, r.out);
    /* its run-time major.minor begins the package version */
    ck_assert(!strncmp(capstone + 9, cs, strcspn(capstone + 9, " ")));
    free(capstone);
    free(uc);
    free(cs);
    emu_result_free(&r);
}
END_TEST

START_TEST(each_command_has_its_help)
{
    struct emu_result r;
    emu(&r, "run", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    ck_assert(strstr(r.out, "usage: emu run") && strstr(r.out, "--strace") &&
              strstr(r.out, "--profile FILE") && strstr(r.out, "--cpu NAME") &&
              strstr(r.out, "%file"));
    emu_result_free(&r);
    emu(&r, "compare", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(strstr(r.out, "usage: emu compare") && strstr(r.out, "--cpus LIST") &&
              !strstr(r.out, "--strace"));
    emu_result_free(&r);
    emu(&r, "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(strstr(r.out, "emu run --help"));
    emu_result_free(&r);
}
END_TEST

START_TEST(compare_refuses_what_it_would_not_honour)
{
    static const char *const opts[][3] = {
        { "--cpu", "pentium3", NULL }, { "--no-sep", NULL, NULL }, { "--strace", NULL, NULL },
        { "--trace", "/tmp/x", NULL }, { "--profile", "/tmp/x", NULL },
        { "--cost", "pentium9:alu=1", NULL },
    };
    const char *args[8] = { "compare" };
    int n = 1;
    for (int k = 0; k < 3 && opts[_i][k]; k++)
        args[n++] = opts[_i][k];
    args[n++] = program("hello");
    args[n] = NULL;
    struct emu_result r;
    run_emu(&r, args);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

START_TEST(calibrate_without_its_replays_fails_in_one_line)
{
    struct emu_result r;
    emu(&r, "calibrate", "/nonexistent-sysemu-dir", NULL);
    ck_assert_int_ne(r.status, 0);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "emu: calibrate: linus_loop"));
    ck_assert_str_eq(r.out, "");                /* no half-written header */
    emu_result_free(&r);
    emu(&r, "calibrate", "a", "b", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

/* The round trip of the gettimeofday call in a run's --strace line. */
static long round_trip(const char *cpu, const char *cost, const char *line_start)
{
    struct emu_result r;
    const char *args[] = { "run", "--strace", "--cpu", cpu, cost ? "--cost" : NULL, cost,
                           NULL };
    const char *argv[10];
    int n = 0;
    for (int k = 0; k < 6 && args[k]; k++)
        argv[n++] = args[k];
    argv[n++] = program("one_call");
    argv[n] = NULL;
    run_emu(&r, argv);
    if (r.status) {
        long status = -r.status;
        emu_result_free(&r);
        return status;
    }
    char *line = line_with(r.err, line_start);
    ck_assert_msg(line != NULL, "%s", r.err);
    long cycles = atol(strrchr(line, '<') + 1);
    free(line);
    emu_result_free(&r);
    return cycles;
}

START_TEST(a_cost_for_one_model_applies_to_that_model)
{
    const char *call = "[sysenter/sysexit] gettimeofday(";
    long p4 = round_trip("pentium4", NULL, call);
    long p4_all = round_trip("pentium4", "sysenter=1181", call);
    long p4_own = round_trip("pentium4", "pentium4:sysenter=1181", call);
    ck_assert_int_gt(p4, 0);
    ck_assert_int_eq(p4_all, p4_own);
    ck_assert_int_gt(p4_own, p4 + 900);
    /* for another model than the run's: a usage error, not silently nothing */
    ck_assert_int_eq(round_trip("pentium4", "pentium3:sysenter=1181", call), -2);
    ck_assert_int_eq(round_trip("pentium4", "pentium9:sysenter=1", call), -2);

    /* compare runs each model with the overrides for it */
    struct emu_result a, b;
    emu(&a, "compare", "--cpus", "pentium4;pentium3", program("syscall_loop"), "getpid", "100",
        NULL);
    emu(&b, "compare", "--cpus", "pentium4;pentium3", "--cost", "pentium3:sysenter=500",
        program("syscall_loop"), "getpid", "100", NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    char *a4 = line_with(a.out, "pentium4 "), *b4 = line_with(b.out, "pentium4 ");
    char *a3 = line_with(a.out, "pentium3 "), *b3 = line_with(b.out, "pentium3 ");
    ck_assert_str_eq(a4, b4);
    ck_assert_str_ne(a3, b3);
    free(a4);
    free(b4);
    free(a3);
    free(b3);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

START_TEST(progress_shows_only_when_asked_in_a_pipe)
{
    struct emu_result r;
    emu(&r, "run", program("hello"), NULL);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
    emu(&r, "run", "--progress", program("syscall_loop"), "getpid", "10", NULL);
    ck_assert_int_eq(r.status, 0);
    /* the last line says the run is done, with its counts */
    char *done = line_with(r.err, "emu: done: ");
    ck_assert_msg(done && strstr(done, "M instructions, ") && strstr(done, "M cycles, 12 system "
                                                                         "calls"), "%s", r.err);
    free(done);
    emu_result_free(&r);
    emu(&r, "run", "--progress", "--no-progress", program("hello"), NULL);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(installed_emu_runs_from_another_directory)
{
    char prefix[] = "/tmp/sysemu-install-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(prefix));
    char prefix_arg[128], build_arg[128];
    snprintf(prefix_arg, sizeof prefix_arg, "PREFIX=%s", prefix);
    snprintf(build_arg, sizeof build_arg, "BUILD=%s", BUILD_DIR);
    /* not the jobserver of a make that runs the tests */
    const char *make[] = { "env", "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "make",
                           "-s", "install", prefix_arg, build_arg, NULL };
    struct emu_result r;
    run_command(&r, make);
    ck_assert_msg(r.status == 0, "make install: %s", r.err);
    emu_result_free(&r);

    char hello[512], script[1024];
    ck_assert_ptr_nonnull(realpath(program("hello"), hello));
    snprintf(script, sizeof script, "cd / && exec %s/bin/emu run %s", prefix, hello);
    const char *run[] = { "sh", "-c", script, NULL };
    run_command(&r, run);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);

    char page[256];
    snprintf(page, sizeof page, "%s/share/man/man1/emu.1", prefix);
    const char *man[] = { "env", "MANWIDTH=80", "man", "--warnings", "-P", "cat", "-l", page,
                          NULL };
    run_command(&r, man);
    ck_assert_msg(r.status == 0 && !strcmp(r.err, ""), "man: %d %s", r.status, r.err);
    ck_assert(strstr(r.out, "NAME") && strstr(r.out, "emu run") &&
              strstr(r.out, "CYCLES PER CALL") && strstr(r.out, "https://lwn.net/"));
    emu_result_free(&r);

    snprintf(script, sizeof script, "test -s %s/share/doc/sysemu/README.md && "
             "test -s %s/share/doc/sysemu/docs/cost-model.md && rm -r %s", prefix, prefix,
             prefix);
    const char *check[] = { "sh", "-c", script, NULL };
    run_command(&r, check);
    ck_assert_msg(r.status == 0, "the documents are not installed: %s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(bad_cost_and_stepping_flags_are_2)
{
    struct emu_result r;
    emu(&r, "run", "--cost", "sysenter=abc", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
    emu(&r, "run", "--cpu", "pentiumpro,stepping=99", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    ck_assert_msg(strstr(r.err, "stepping=99"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("command line");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, missing_program_file_is_127);
    tcase_add_test(tc, non_elf_file_is_126);
    tcase_add_test(tc, truncated_elf_is_126);
    tcase_add_test(tc, x86_64_elf_is_126);
    tcase_add_test(tc, unknown_option_is_2);
    tcase_add_test(tc, bad_mem_is_2);
    tcase_add_test(tc, unknown_cpu_is_2_and_points_at_list_cpus);
    tcase_add_test(tc, bad_kernel_config_is_2);
    tcase_add_loop_test(tc, each_kernel_config_runs_hello, 0, 3);
    tcase_add_test(tc, no_program_is_2);
    tcase_add_test(tc, version_names_emu_unicorn_and_capstone);
    tcase_add_test(tc, each_command_has_its_help);
    tcase_add_loop_test(tc, compare_refuses_what_it_would_not_honour, 0, 6);
    tcase_add_test(tc, a_cost_for_one_model_applies_to_that_model);
    tcase_add_test(tc, progress_shows_only_when_asked_in_a_pipe);
    tcase_add_test(tc, installed_emu_runs_from_another_directory);
    tcase_add_loop_test(tc, trace_write_error_is_reported, 0, 2);
    tcase_add_test(tc, trace_file_write_error_is_reported);
    tcase_add_test(tc, two_outputs_naming_one_file_are_refused);
    tcase_add_loop_test(tc, compare_without_a_cpu_model_is_2, 0, 5);
    tcase_add_test(tc, calibrate_without_its_replays_fails_in_one_line);
    tcase_add_test(tc, bad_cost_and_stepping_flags_are_2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(cli_suite());
}
