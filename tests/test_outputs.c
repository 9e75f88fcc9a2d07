/*
 * emu/cli/outputs.c on its own, in this process, in the order emu run takes:
 * opened before the boot, attached after it, finished and closed after the
 * run. What it opens is written (the report and the trace read back by
 * jq, the strace lines, the profile); two outputs in one file, or one in
 * the program's file, are refused before anything is written, a device
 * may be shared; a report it cannot write is a usage error; the progress
 * line is there when asked for and not when refused.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"
#include "../emu/cpu/boot.h"
#include "../emu/cli/outputs.h"

struct rig {
    struct run_options opts;
    struct machine *m;
    struct syscall_tracker *sys;
    char *argv[3];
    char *envp[1];
};

static void rig_new(struct rig *r)
{
    memset(r, 0, sizeof *r);
    r->opts.cpu_spec = "pentium4";
    r->opts.max_insns = 100000000;
    r->opts.quiet = true;
    r->opts.program = program("syscall_loop");
    r->argv[0] = (char *)r->opts.program;
    r->argv[1] = "getppid";
    r->argv[2] = "5";
    r->opts.argc = 3;
    r->opts.argv = r->argv;
    r->opts.envp = r->envp;
    r->m = calloc(1, sizeof *r->m);
    r->sys = calloc(1, sizeof *r->sys);
    ck_assert(r->m && r->sys);
    ck_assert_int_eq(machine_init_bare(r->m, &r->opts), 0);
}

/* emu run's order after outputs_open: 0, or the first failure. */
static int rig_run(struct rig *r, struct outputs *o)
{
    ck_assert_int_eq(machine_boot(r->m), 0);
    ck_assert_int_eq(syscalls_attach(r->sys, r->m), 0);
    ck_assert_int_eq(outputs_attach(o, r->m, r->sys), 0);
    ck_assert_int_eq(machine_run(r->m), 0);
    return outputs_finish(o, r->m, r->sys);
}

static void rig_free(struct rig *r, struct outputs *o)
{
    ck_assert_int_eq(outputs_close(o), 0);
    machine_destroy(r->m);
    free(r->m);
    free(r->sys);
}

static void check_jq(const char *filter, const char *path, const char *want)
{
    char *got = jq(filter, path);
    ck_assert_msg(!strcmp(got, want), "%s %s: got \"%s\", want \"%s\"", filter, path, got, want);
    free(got);
}

START_TEST(every_output_asked_for_is_written)
{
    struct rig r;
    struct outputs o = { 0 };
    o.strace = true;
    o.strace_path = scratch("strace.txt");
    o.trace.path = scratch("trace.json");
    o.trace.format = TRACE_JSON;
    o.report = true;
    o.report_format = REPORT_JSON;
    o.report_path = scratch("report.json");
    o.profile_path = scratch("profile.folded");
    o.profile_format = PROFILE_FOLDED;
    o.progress_mode = PROGRESS_OFF;
    rig_new(&r);
    ck_assert_int_eq(outputs_open(&o, r.m), 0);
    ck_assert_ptr_null(o.progress);
    ck_assert_int_eq(rig_run(&r, &o), 0);
    char want[64];
    snprintf(want, sizeof want, "%llu %llu\n", (unsigned long long)r.m->insns,
             (unsigned long long)r.sys->by_path[PATH_SYSENTER]);
    uint64_t cycles = r.m->cycles;
    rig_free(&r, &o);

    check_jq("\"\\(.instructions) \\(.entries.sysenter)\"", o.report_path, want);
    check_jq(".syscalls[] | select(.name == \"getppid\") | .calls", o.report_path, "5\n");
    /* the trace names the process by its program's file name */
    check_jq("[.traceEvents[] | select(.name == \"getppid\")] | length", o.trace.path, "5\n");
    check_jq("[.traceEvents[] | select(.name == \"process_name\") | .args.name] | any(. == \"syscall_loop\")",
             o.trace.path, "true\n");
    char *strace = read_file(o.strace_path);
    ck_assert_int_eq(count_lines_containing(strace, "getppid()"), 5);
    free(strace);
    /* the folded stacks hold every cycle of the run */
    char *folded = read_file(o.profile_path);
    uint64_t sum = 0;
    for (char *save = NULL, *l = strtok_r(folded, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        sum += strtoull(strrchr(l, ' ') + 1, NULL, 10);
    free(folded);
    ck_assert_uint_eq(sum, centi_whole(cycles));
    const char *files[] = { o.strace_path, o.trace.path, o.report_path, o.profile_path };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(files[i]);
}
END_TEST

/* outputs_open with o refuses, naming what; nothing is created. */
static void refused(struct outputs *o, const char *want)
{
    struct rig r;
    rig_new(&r);
    ck_assert_int_eq(outputs_open(o, r.m), 2);
    ck_assert_msg(strstr(r.m->message, want), "want \"%s\" in: %s", want, r.m->message);
    rig_free(&r, o);
}

START_TEST(two_outputs_in_one_file_are_refused)
{
    char dir[64], same[96];
    snprintf(dir, sizeof dir, "/tmp/sysemu-outputs-%d", (int)getpid());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    char trace[96];
    snprintf(trace, sizeof trace, "%s/out", dir);
    snprintf(same, sizeof same, "%s/./out", dir);
    struct outputs o = { .trace.path = trace, .profile_path = same };
    refused(&o, "--trace and --profile name the same file");
    ck_assert_int_ne(access(trace, F_OK), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(an_output_in_the_programs_file_is_refused)
{
    struct stat before, after;
    ck_assert_int_eq(stat(program("syscall_loop"), &before), 0);
    struct outputs o = { .report = true, .report_path = program("syscall_loop") };
    refused(&o, "--report-file names the program");
    ck_assert_int_eq(stat(program("syscall_loop"), &after), 0);
    ck_assert_int_eq(after.st_size, before.st_size);
}
END_TEST

START_TEST(a_device_may_be_shared)
{
    struct rig r;
    struct outputs o = { .strace = true, .strace_path = "/dev/null", .trace.path = "/dev/null",
                         .progress_mode = PROGRESS_OFF };
    rig_new(&r);
    ck_assert_int_eq(outputs_open(&o, r.m), 0);
    ck_assert_int_eq(rig_run(&r, &o), 0);
    rig_free(&r, &o);
}
END_TEST

START_TEST(a_report_it_cannot_write_is_a_usage_error)
{
    struct outputs o = { .report = true, .report_path = "/nonexistent-dir/report.txt" };
    refused(&o, "cannot write report /nonexistent-dir/report.txt");
}
END_TEST

START_TEST(the_progress_line_when_asked_for)
{
    struct rig r;
    struct outputs on = { .progress_mode = PROGRESS_ON }, off = { .progress_mode = PROGRESS_OFF };
    rig_new(&r);
    ck_assert_int_eq(outputs_open(&on, r.m), 0);
    ck_assert_int_eq(outputs_open(&off, r.m), 0);
    ck_assert_ptr_nonnull(on.progress);
    ck_assert_ptr_null(off.progress);
    ck_assert_int_eq(outputs_close(&off), 0);
    rig_free(&r, &on);
}
END_TEST

/* emu run attaches the system-call accounting only when an output reads
 * it; the machine it leaves out of a run runs the same. */
START_TEST(the_accounting_only_for_an_output_that_reads_it)
{
    struct outputs none = { .progress_mode = PROGRESS_OFF };
    struct outputs each[] = {
        { .strace = true, .strace_path = "/dev/null", .progress_mode = PROGRESS_OFF },
        { .trace.path = "/dev/null", .progress_mode = PROGRESS_OFF },
        { .report = true, .report_path = "/dev/null", .progress_mode = PROGRESS_OFF },
        { .profile_path = "/dev/null", .profile_format = PROFILE_FOLDED,
          .progress_mode = PROGRESS_OFF },
        { .progress_mode = PROGRESS_ON },
    };
    struct rig with, without;
    rig_new(&with);
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
        ck_assert_int_eq(outputs_open(&each[i], with.m), 0);
        ck_assert_msg(outputs_read_calls(&each[i]), "output %zu", i);
        if (i > 0)
            ck_assert_int_eq(outputs_close(&each[i]), 0);
    }
    rig_new(&without);
    ck_assert_int_eq(outputs_open(&none, without.m), 0);
    ck_assert(!outputs_read_calls(&none));
    ck_assert_int_eq(rig_run(&with, &each[0]), 0);
    ck_assert_int_eq(machine_boot(without.m), 0);
    ck_assert_int_eq(machine_run(without.m), 0);
    ck_assert_uint_eq(without.m->cycles, with.m->cycles);
    ck_assert_uint_eq(without.m->insns, with.m->insns);
    ck_assert_uint_eq(without.sys->by_path[PATH_SYSENTER], 0);
    ck_assert_uint_ge(with.sys->by_path[PATH_SYSENTER], 5);   /* the 5 getppid and more */
    rig_free(&with, &each[0]);
    rig_free(&without, &none);
}
END_TEST

Suite *outputs_suite(void)
{
    Suite *s = suite_create("outputs");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_output_asked_for_is_written);
    tcase_add_test(tc, two_outputs_in_one_file_are_refused);
    tcase_add_test(tc, an_output_in_the_programs_file_is_refused);
    tcase_add_test(tc, a_device_may_be_shared);
    tcase_add_test(tc, a_report_it_cannot_write_is_a_usage_error);
    tcase_add_test(tc, the_progress_line_when_asked_for);
    tcase_add_test(tc, the_accounting_only_for_an_output_that_reads_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(outputs_suite());
}
