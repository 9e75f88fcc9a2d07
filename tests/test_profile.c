/*
 * --profile (emu/profile.c, call_tree.c): the callgrind file loads with
 * Debian's callgrind_annotate (valgrind), whose totals are the run's
 * cycles, function by function too; inclusive costs follow the shadow
 * stack across the ring; the folded stacks add up to the same total.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

/* The run's cycles and boot cycles, from --report. */
static void run_cycles(const char *err, long *cycles, long *boot)
{
    char *cpu = line_with(err, "emu: report: cpu ");
    ck_assert_msg(cpu != NULL, "%s", err);
    ck_assert_int_eq(sscanf(cpu, "emu: report: cpu %*s %*d instructions, %ld cycles (boot %ld)",
                            cycles, boot), 2);
    free(cpu);
}

static long number(const char *s)
{
    long v = 0;
    for (; *s == ' '; s++)
        ;
    for (; (*s >= '0' && *s <= '9') || *s == ','; s++)
        if (*s != ',')
            v = v * 10 + (*s - '0');
    return v;
}

/* callgrind_annotate's PROGRAM TOTALS, the sum of its function lines, and
 * the cost of one function ("file:fn"; -1 if it has none). */
static long annotate(const char *path, bool inclusive, long *sum, const char *fn, long *cost)
{
    const char *argv[] = { "callgrind_annotate", "--auto=no", "--threshold=100",
                           inclusive ? "--inclusive=yes" : "--inclusive=no", path, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "callgrind_annotate %s: %d %s", path, r.status, r.err);
    long total = -1;
    *sum = 0;
    *cost = -1;
    bool functions = false;
    for (char *save = NULL, *line = strtok_r(r.out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "PROGRAM TOTALS"))
            total = number(line);
        else if (strstr(line, "file:function"))
            functions = true;
        else if (functions && strstr(line, "%)  ")) {
            *sum += number(line);
            if (!strcmp(strstr(line, "%)  ") + 4, fn))
                *cost = number(line);
        }
    }
    ck_assert_msg(total >= 0 && functions, "no totals from callgrind_annotate: %s", r.out);
    emu_result_free(&r);
    return total;
}

static const char *const runs[][5] = {
    { "pentium4", "syscall_loop", "gettimeofday", "100", NULL },
    { "pentium4,-sep", "syscall_loop", "gettimeofday", "100", NULL },
    { "pentium3", "syscall_loop", "getpid", "50", "int80" },
    { "pentium4", "hello-glibc", NULL, NULL, NULL },
    { "pentiumpro", "busybox", "uname", "-m", NULL },
};

static void run_profiled(int i, const char *profile, const char *format, struct emu_result *r)
{
    const char *prog = !strcmp(runs[i][1], "syscall_loop") ? program(runs[i][1])
                                                          : fixture(runs[i][1]);
    const char *args[16] = { "run", "--report", "--cpu", runs[i][0], "--profile", profile,
                             "--profile-format", format, prog };
    int n = 9;
    for (int k = 2; k < 5 && runs[i][k]; k++)
        args[n++] = runs[i][k];
    args[n] = NULL;
    run_emu(r, args);
    ck_assert_msg(r->status == 0, "%s: %s", runs[i][1], r->err);
}

START_TEST(callgrind_profile_loads_and_its_totals_are_the_runs_cycles)
{
    const char *path = scratch("callgrind.out");
    struct emu_result r;
    run_profiled(_i, path, "callgrind", &r);
    long cycles, boot, sum, start;
    run_cycles(r.err, &cycles, &boot);
    long total = annotate(path, false, &sum, "user:_start", &start);
    ck_assert_int_eq(total, cycles);
    ck_assert_int_eq(sum, cycles);
    /* inclusive: the program's entry holds everything after the boot (busybox
     * is stripped: its entry has no name) */
    total = annotate(path, true, &sum, "user:_start", &start);
    ck_assert_int_eq(total, cycles);
    if (strcmp(runs[_i][1], "busybox"))
        ck_assert_msg(start == cycles - boot, "_start %ld, run %ld - boot %ld", start, cycles,
                      boot);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* The folded file's stacks, and the count of those that contain frames. */
static long folded_total(const char *text, const char *frames, int *with)
{
    long total = 0;
    *with = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        const char *space = end;
        while (space > line && space[-1] != ' ')
            space--;
        ck_assert_msg(space > line, "no count: %.*s", (int)(end - line), line);
        total += strtol(space, NULL, 10);
        char *stack = strndup(line, (size_t)(space - line));
        *with += strstr(stack, frames) != NULL;
        free(stack);
        line = end + 1;
    }
    return total;
}

START_TEST(folded_stacks_sum_to_the_runs_cycles)
{
    /* where the kernel is entered from, on each path */
    static const char *const entered[] = {
        "main;__kernel_vsyscall;sysenter_entry_[k]",
        "main;__kernel_vsyscall;system_call_[k]",
        "main;system_call_[k]",
        "__kernel_vsyscall;sysenter_entry_[k]",
        "__kernel_vsyscall;system_call_[k]",
    };
    const char *path = scratch("folded.txt");
    struct emu_result r;
    run_profiled(_i, path, "folded", &r);
    long cycles, boot;
    run_cycles(r.err, &cycles, &boot);
    char *text = read_file(path);
    int with, kernel;
    ck_assert_int_eq(folded_total(text, entered[_i], &with), cycles);
    ck_assert_msg(with > 0, "no stack with %s:\n%.2000s", entered[_i], text);
    folded_total(text, "start_kernel_[k]", &kernel);
    ck_assert_int_gt(kernel, 0);
    free(text);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

START_TEST(a_bad_profile_is_a_usage_error)
{
    struct emu_result r;
    emu(&r, "run", "--profile", scratch("p"), "--profile-format", "pprof", program("hello"),
        NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
    emu(&r, "run", "--profile", "/nonexistent/dir/p", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
}
END_TEST

Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, callgrind_profile_loads_and_its_totals_are_the_runs_cycles, 0,
                        sizeof runs / sizeof runs[0]);
    tcase_add_loop_test(tc, folded_stacks_sum_to_the_runs_cycles, 0,
                        sizeof runs / sizeof runs[0]);
    tcase_add_test(tc, a_bad_profile_is_a_usage_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(profile_suite());
}
