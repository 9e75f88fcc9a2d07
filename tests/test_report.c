/*
 * --report (emu/report.c): the system calls by entry path and return,
 * the unknown ones, and the same numbers on every run.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static const char *const models[] = {
    "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep", "pentiumpro",
};
#define NMODELS 5
static bool model_has_working_sep(int m)
{
    return m == 0 || m == 2;
}

START_TEST(report_counts_sysenter_only_where_it_is_used)
{
    const char *cpu = models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    bool sysenter = model_has_working_sep(_i / 2) && _i % 2;
    long n_sysenter = -1, n_int80 = -1, n_sysexit = -1, n_iret = -1;
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, program("check_syscalls"), mode, NULL);
    ck_assert_msg(report_paths(r.err, &n_sysenter, &n_int80, &n_sysexit, &n_iret),
                  "no report line in: %s", r.err);
    if (sysenter) {
        ck_assert_msg(n_sysenter > 20 && n_int80 == 0 && n_sysexit > 20,
                      "%s on %s: %ld sysenter, %ld int80, %ld sysexit", mode, cpu,
                      n_sysenter, n_int80, n_sysexit);
    } else {
        ck_assert_msg(n_sysenter == 0 && n_int80 > 20 && n_sysexit == 0 && n_iret > 20,
                      "%s on %s: %ld sysenter, %ld int80, %ld sysexit, %ld iret", mode, cpu,
                      n_sysenter, n_int80, n_sysexit, n_iret);
    }
    char *cpu_line = line_with(r.err, "emu: report: cpu ");
    ck_assert_ptr_nonnull(cpu_line);
    ck_assert_msg(strstr(cpu_line, cpu), "report names %s for --cpu %s", cpu_line, cpu);
    free(cpu_line);
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

START_TEST(runs_are_deterministic)
{
    struct emu_result a, b;
    emu(&a, "run", "--report", program("syscall_loop"), "gettimeofday", "100", NULL);
    emu(&b, "run", "--report", program("syscall_loop"), "gettimeofday", "100", NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    ck_assert_msg(count_lines_containing(a.err, "emu: report:") >= 2, "%s", a.err);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_str_eq(a.err, b.err);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("counts");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, report_counts_sysenter_only_where_it_is_used, 0, 2 * NMODELS);
    tcase_add_test(tc, report_counts_only_unknown_calls_as_enosys);
    tcase_add_test(tc, runs_are_deterministic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(report_suite());
}
