/*
 * The command line (emu/cli/main.c, the table of emu/cli/options.c read by
 * emu/cli/cli.c): bad input is one line on stderr and its exit status, never
 * a crash; --list-cpus names the parts; every option of the table parses,
 * each command's --help lists its own, and docs/emu.1 documents the table.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unicorn/unicorn.h>
#include "../emu/cli/options.h"
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
    /* the engine emu runs with is the one this build compiled against (the
     * private 2.1 by default, the system's with UNICORN=system): the same
     * unicorn.h the tests were compiled with; Capstone is the system's */
    char *cs = modversion("capstone"), want[128];
    snprintf(want, sizeof want, "Unicorn %d.%d.%d (built with %d.%d.%d)", UC_VERSION_MAJOR,
             UC_VERSION_MINOR, UC_VERSION_PATCH, UC_VERSION_MAJOR, UC_VERSION_MINOR,
             UC_VERSION_PATCH);
    ck_assert_msg(strstr(r.out, want), "want %s in %s", want, r.out);
    snprintf(want, sizeof want, "(built with %s)\n", cs);
    char *capstone = line_with(r.out, "Capstone ");
    ck_assert_msg(capstone && strstr(r.out, want), "want %s in %s", want, r.out);
    /* its run-time major.minor begins the package version */
    ck_assert(!strncmp(capstone + 9, cs, strcspn(capstone + 9, " ")));
    free(capstone);
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

/* ---- the table of options ---- */

/* A value each option of the table takes. An option added to the table
 * without one here fails every_option_parses. */
static const struct { const char *option, *value; } valid_values[] = {
    { "--cpu", "pentium3,-sep" }, { "--tsc-skew", "0:1000" },
    { "--cost", "pentium4:alu=1" }, { "--max-insns", "1000000" },
    { "--env", "LANG=C" }, { "--argv0", "hello" }, { "--epoch", "0" }, { "--root", "/" },
    { "--mem", "64M" }, { "--smp", "2" }, { "--kernel-config", "smp" },
    { "--fs-size", "1M" }, { "-e", "trace=%file" }, { "-o", "/dev/null" },
    { "--report", "json" }, { "--report-file", "/dev/null" }, { "--trace", "/dev/null" },
    { "--trace-format", "csv" }, { "--trace-insns", "user" }, { "--trace-window", "1:" },
    { "--profile", "/dev/null" }, { "--profile-format", "folded" },
    { "--symbols", "/dev/null" }, { "--gdb", "0" }, { "--cpus", "pentium3;pentiumpro" },
    { "--kernel-configs", "up;smp" }, { "--kernel", "2.5.54" }, { "--syscall", "getpid" }, { "--svg", "/dev/null" },
};

static const char *valid_value(const struct option_spec *o)
{
    char name[4] = { '-', o->letter, 0 };
    for (size_t i = 0; i < sizeof valid_values / sizeof valid_values[0]; i++)
        if (!strcmp(valid_values[i].option, o->name ? o->name : name))
            return valid_values[i].value;
    return NULL;
}

static const char *command_word(enum command command)
{
    return command == CMD_RUN ? "run" : command == CMD_COMPARE ? "compare"
         : command == CMD_CALIBRATE ? "calibrate" : NULL;
}

/* emu COMMAND a b --help: the options a b parsed, and --help then printed
 * the command's usage. */
static void assert_parses(enum command command, const char *a, const char *b)
{
    const char *args[6];
    int n = 0;
    if (command_word(command))
        args[n++] = command_word(command);
    args[n++] = a;
    if (b)
        args[n++] = b;
    args[n++] = "--help";
    args[n] = NULL;
    struct emu_result r;
    run_emu(&r, args);
    char usage[32];
    snprintf(usage, sizeof usage, "usage: emu %s", command_word(command) ? command_word(command)
                                                                        : "run");
    ck_assert_msg(r.status == 0 && !strncmp(r.out, usage, strlen(usage)) && !strcmp(r.err, ""),
                  "emu %s %s %s --help: exit %d, stdout %.80s, stderr %s",
                  command_word(command) ? command_word(command) : "", a, b ? b : "", r.status,
                  r.out, r.err);
    emu_result_free(&r);
}

/* The actions of emu alone print and exit 0, whatever follows. */
static void assert_acts(const struct option_spec *o)
{
    char name[4] = { '-', o->letter, 0 };
    struct emu_result r;
    emu(&r, o->name ? o->name : name, NULL);
    ck_assert_msg(r.status == 0 && strlen(r.out) > 20 && !strcmp(r.err, ""), "emu %s: %d %s",
                  o->name, r.status, r.err);
    emu_result_free(&r);
    if (o->letter && o->name) {
        emu(&r, name, NULL);
        ck_assert_int_eq(r.status, 0);
        emu_result_free(&r);
    }
}

/* Each option of the table, in each command that takes it and in each of
 * its spellings: --NAME VALUE, --NAME=VALUE, -L VALUE, -LVALUE. */
START_TEST(every_option_parses)
{
    const struct option_spec *o = &cli_options[_i];
    const char *value = valid_value(o);
    char name[4] = { '-', o->letter, 0 }, joined[128];
    ck_assert_msg(!o->metavar || value, "no value to try %s with: add one to valid_values",
                  o->name ? o->name : name);
    for (unsigned command = 1; command <= CMD_CALIBRATE; command <<= 1) {
        if (!(o->commands & command))
            continue;
        if (command == CMD_EMU) {
            assert_acts(o);
            continue;
        }
        if (o->name) {
            assert_parses(command, o->name, o->metavar && !o->optional ? value : NULL);
            if (o->metavar) {
                snprintf(joined, sizeof joined, "%s=%s", o->name, value);
                assert_parses(command, joined, NULL);
            }
        }
        if (o->letter) {
            assert_parses(command, name, o->metavar ? value : NULL);
            if (o->metavar) {
                snprintf(joined, sizeof joined, "%s%s", name, value);
                assert_parses(command, joined, NULL);
            }
        }
    }
}
END_TEST

/* A command refuses the table's options that are not its own, in one line. */
START_TEST(each_command_refuses_the_others_options)
{
    const struct option_spec *o = &cli_options[_i];
    const char *value = valid_value(o);
    char name[4] = { '-', o->letter, 0 };
    for (unsigned command = CMD_RUN; command <= CMD_CALIBRATE; command <<= 1) {
        if (o->commands & command)
            continue;
        const char *args[] = { command_word(command), o->name ? o->name : name,
                               o->metavar && !o->optional ? value : program("hello"),
                               program("hello"), NULL };
        struct emu_result r;
        run_emu(&r, args);
        ck_assert_msg(r.status == 2 && count_char(r.err, '\n') == 1 && strstr(r.err, "does not "
                      "take") && !strcmp(r.out, ""), "emu %s %s: %d %s", args[0], args[1],
                      r.status, r.err);
        emu_result_free(&r);
    }
}
END_TEST

/* The options one --help text heads its entries with ("  -v, --verbose",
 * "  --report[=FORMAT]"), each once, and nothing else. */
static int help_options(const char *help, char names[][32], int max)
{
    int n = 0;
    for (const char *line = help; line && *line; line = strchr(line, '\n') + 1) {
        if (!strncmp(line, "  -", 3))
            for (const char *p = line + 2; *p == '-' && n < max; ) {
                size_t len = strcspn(p, " [,=\n");
                snprintf(names[n++], 32, "%.*s", (int)len, p);
                p += len;
                if (strncmp(p, ", -", 3))
                    break;
                p += 2;
            }
        if (!strchr(line, '\n'))
            break;
    }
    return n;
}

static bool table_has(enum command command, const char *name)
{
    for (int i = 0; i < cli_option_count; i++) {
        const struct option_spec *o = &cli_options[i];
        char letter[4] = { '-', o->letter, 0 };
        if ((o->commands & command) && ((o->name && !strcmp(o->name, name)) ||
                                        (o->letter && !strcmp(letter, name))))
            return true;
    }
    return false;
}

static bool listed(char names[][32], int n, const char *name)
{
    int times = 0;
    for (int i = 0; i < n; i++)
        times += !strcmp(names[i], name);
    return times == 1;
}

START_TEST(each_help_lists_exactly_its_options)
{
    for (unsigned command = 1; command <= CMD_CALIBRATE; command <<= 1) {
        struct emu_result r;
        const char *args[] = { command_word(command) ? command_word(command) : "--help",
                               "--help", NULL };
        if (command == CMD_EMU)
            args[1] = NULL;
        run_emu(&r, args);
        ck_assert_int_eq(r.status, 0);
        char names[128][32];
        int n = help_options(r.out, names, 128);
        for (int i = 0; i < n; i++)
            ck_assert_msg(table_has(command, names[i]), "emu %s --help lists %s", args[0],
                          names[i]);
        for (int i = 0; i < cli_option_count; i++) {
            const struct option_spec *o = &cli_options[i];
            char letter[4] = { '-', o->letter, 0 };
            if (!(o->commands & command))
                continue;
            ck_assert_msg(!o->name || listed(names, n, o->name), "emu %s --help: %s", args[0],
                          o->name);
            ck_assert_msg(!o->letter || listed(names, n, letter), "emu %s --help: %s", args[0],
                          letter);
        }
        if (command == CMD_COMPARE)     /* it refuses them: its help does not offer them */
            ck_assert(!listed(names, n, "--cpu") && !listed(names, n, "--no-sep") &&
                      listed(names, n, "--cpus"));
        emu_result_free(&r);
    }
}
END_TEST

/* docs/emu.1's OPTIONS: its sections, and the commands each stands for. */
static unsigned man_section(const char *title)
{
    static const struct { const char *title; unsigned commands; } sections[] = {
        { "\"Options of every command\"", CMD_ALL },
        { "\"Without a command\"", CMD_EMU },
        { "\"Options of run and compare\"", CMD_RUN | CMD_COMPARE },
        { "\"Options of run\"", CMD_RUN },
        { "\"Options of compare\"", CMD_COMPARE },
    };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (!strcmp(title, sections[i].title))
            return sections[i].commands;
    ck_abort_msg("docs/emu.1: unknown section %s", title);
    return 0;
}

/* The options a .TP tag line of the man page names: ".BR \-v ", " \-\-verbose". */
static int tag_options(char *line, char names[][32], int max)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " ", &save); w && n < max;
         w = strtok_r(NULL, " ", &save)) {
        if (strncmp(w, "\\-", 2))
            continue;
        int k = 0;
        for (; *w && k < 31; w++) {
            if (*w == '\\' && w[1] == '-')
                continue;
            if (!(*w == '-' || (*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') ||
                  (*w >= '0' && *w <= '9')))
                break;
            names[n][k++] = *w;
        }
        names[n++][k] = 0;
    }
    return n;
}

static const struct option_spec *table_option(const char *name)
{
    for (int i = 0; i < cli_option_count; i++) {
        const struct option_spec *o = &cli_options[i];
        if ((o->name && !strcmp(o->name, name)) ||
            (o->letter && name[0] == '-' && name[1] == o->letter && !name[2]))
            return o;
    }
    return NULL;
}

/* Every option the man page documents is in the table, for the commands
 * of its section; every option of the table is documented. */
START_TEST(the_man_page_documents_the_table)
{
    char *page = read_file("docs/emu.1");
    ck_assert_msg(page != NULL, "run the tests from the source tree");
    bool in_options = false, tag = false, documented[256] = { false };
    unsigned commands = 0;
    int found = 0;
    for (char *save = NULL, *line = strtok_r(page, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, ".SH ", 4))
            in_options = !strcmp(line, ".SH OPTIONS");
        else if (in_options && !strncmp(line, ".SS ", 4))
            commands = man_section(line + 4);
        else if (in_options && tag) {
            char names[8][32];
            int n = tag_options(line, names, 8);
            ck_assert_msg(n > 0 && commands, "docs/emu.1: a .TP with no option: %s", line);
            for (int i = 0; i < n; i++) {
                const struct option_spec *o = table_option(names[i]);
                ck_assert_msg(o, "docs/emu.1 documents %s, which emu does not have", names[i]);
                ck_assert_msg(o->commands == commands, "docs/emu.1 has %s in the wrong section",
                              names[i]);
                documented[o - cli_options] = true;
                found++;
            }
        }
        tag = !strcmp(line, ".TP");
    }
    for (int i = 0; i < cli_option_count; i++)
        ck_assert_msg(documented[i], "docs/emu.1 does not document %s",
                      cli_options[i].name ? cli_options[i].name : "a one-letter option");
    ck_assert_int_ge(found, cli_option_count);
    free(page);
}
END_TEST

/* A value that the options take for PROGRAM (a mistyped -o PROGRAM ARG,
 * or --strace -s 64 meaning strace's -s) never truncates a file: PROGRAM is
 * checked first, and an output naming the program is refused. */
START_TEST(a_mistyped_output_truncates_nothing)
{
    static const char *const outputs[] = { "-o", "--trace", "--profile", "--report-file" };
    const char *prog = scratch("program-copy"), *kept = scratch("kept.txt");
    char *hello = read_file(program("hello"));
    ck_assert_ptr_nonnull(hello);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp %s %s && printf 'keep\\n' > %s", program("hello"), prog, kept);
    ck_assert_int_eq(system(cmd), 0);
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        struct emu_result r;
        /* the file taken for the output, the next word for PROGRAM */
        emu(&r, "run", outputs[i], kept, "64", NULL);
        assert_one_line_error(&r, 127);
        emu_result_free(&r);
        emu(&r, "run", outputs[i], kept, "/etc/hostname", NULL);
        assert_one_line_error(&r, 126);
        emu_result_free(&r);
        char *now = read_file(kept);
        ck_assert_msg(!strcmp(now, "keep\n"), "%s %s truncated it", outputs[i], kept);
        free(now);
        /* the program itself as the output */
        emu(&r, "run", outputs[i], prog, prog, NULL);
        assert_one_line_error(&r, 2);
        ck_assert_msg(strstr(r.err, "names the program"), "%s", r.err);
        emu_result_free(&r);
        now = read_file(prog);
        ck_assert_msg(!strcmp(now, hello), "%s PROGRAM truncated the program", outputs[i]);
        free(now);
    }
    unlink(prog);
    unlink(kept);
    free(hello);
}
END_TEST

/* -s is QEMU's gdb shortcut and takes no value; someone who meant strace's
 * -s SIZE is told so, not only that a program called 64 is missing. */
START_TEST(s_takes_no_value_and_says_so)
{
    struct emu_result r;
    emu(&r, "run", "--strace", "-s", "64", program("hello"), NULL);
    assert_one_line_error(&r, 127);
    ck_assert_msg(strstr(r.err, "emu: 64: ") && strstr(r.err, "-s takes no value") &&
                  strstr(r.err, "QEMU") && strstr(r.err, "--gdb 127.0.0.1:1234"), "%s", r.err);
    emu_result_free(&r);
    emu(&r, "run", "--strace", "-s64", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    ck_assert_msg(strstr(r.err, "-s takes no value"), "%s", r.err);
    emu_result_free(&r);
    /* a flag's value after '=' is refused as well */
    emu(&r, "run", "--strace=yes", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
    /* and a value-taking option at the end says what it wants */
    emu(&r, "run", "--cpu", NULL);
    assert_one_line_error(&r, 2);
    ck_assert_msg(strstr(r.err, "--cpu NAME"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* --cpu=X is --cpu X: the run's calls go the way the model makes them. */
START_TEST(cpu_after_equals_is_the_cpu)
{
    struct emu_result a, b;
    emu(&a, "run", "--strace", "--cpu=pentium3,-sep", program("one_call"), NULL);
    emu(&b, "run", "--strace", "--cpu", "pentium3,-sep", program("one_call"), NULL);
    ck_assert_msg(a.status == 0, "%s", a.err);
    ck_assert_str_eq(a.err, b.err);
    ck_assert_msg(strstr(a.err, "[int80/iret]") && !strstr(a.err, "[sysenter/"), "%s", a.err);
    emu_result_free(&a);
    emu_result_free(&b);
    emu(&a, "run", "--strace", "--cpu=pentium3", program("one_call"), NULL);
    ck_assert_msg(a.status == 0 && strstr(a.err, "[sysenter/sysexit]"), "%s", a.err);
    emu_result_free(&a);
}
END_TEST

/* --cpu help (and --cpus help) list the models as emu --list-cpus does. */
START_TEST(cpu_help_lists_the_models)
{
    struct emu_result list, r;
    emu(&list, "--list-cpus", NULL);
    ck_assert_int_eq(list.status, 0);
    ck_assert_ptr_nonnull(strstr(list.out, "pentiumpro"));
    static const char *const ways[][3] = {
        { "run", "--cpu", "help" }, { "run", "--cpu=help", NULL },
        { "compare", "--cpus", "help" }, { "compare", "--cpus=help", NULL },
    };
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        const char *args[5] = { ways[i][0], ways[i][1], ways[i][2], NULL };
        run_emu(&r, args);
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, list.out);
        ck_assert_str_eq(r.err, "");
        emu_result_free(&r);
    }
    emu_result_free(&list);
}
END_TEST

/* -f, strace's "follow children", is taken and changes nothing: every
 * process is followed. */
START_TEST(f_is_taken_and_changes_nothing)
{
    struct emu_result a, b;
    emu(&a, "run", "--strace", "-f", program("proc"), "fork", NULL);
    emu(&b, "run", "--strace", program("proc"), "fork", NULL);
    ck_assert_msg(a.status == b.status, "%d %d: %s", a.status, b.status, a.err);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_str_eq(a.err, b.err);
    ck_assert_msg(strstr(a.err, "[pid "), "%s", a.err);
    emu_result_free(&a);
    emu_result_free(&b);
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
    tcase_add_loop_test(tc, every_option_parses, 0, cli_option_count);
    tcase_add_loop_test(tc, each_command_refuses_the_others_options, 0, cli_option_count);
    tcase_add_test(tc, each_help_lists_exactly_its_options);
    tcase_add_test(tc, the_man_page_documents_the_table);
    tcase_add_test(tc, a_mistyped_output_truncates_nothing);
    tcase_add_test(tc, s_takes_no_value_and_says_so);
    tcase_add_test(tc, cpu_after_equals_is_the_cpu);
    tcase_add_test(tc, cpu_help_lists_the_models);
    tcase_add_test(tc, f_is_taken_and_changes_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(cli_suite());
}
