/*
 * --tsc-skew CPU:OFFSET[:PPM] (emu/cpu_insns.c tsc_at, emu/main.c): each
 * CPU's rdtsc is its modeled cycles times (1 + PPM/1e6) plus OFFSET. Seen
 * through syscall_loop, which divides the TSC difference around its loop by
 * the calls, and through the kernel's clock, which counts from the TSC it
 * read at boot. Monotonicity across CPUs: guest/programs/monotonic.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

/* syscall_loop's "N cycles per iteration" under the given options. */
static double per_iteration(const char *o1, const char *o2, const char *o3)
{
    struct emu_result r;
    const char *args[12] = { "run" };
    const char *opts[3] = { o1, o2, o3 };
    int n = 1;
    for (int k = 0; k < 3; k++)
        if (opts[k])
            args[n++] = opts[k];
    args[n++] = program("syscall_loop");
    args[n++] = "gettimeofday";
    args[n++] = "1000";
    args[n] = NULL;
    run_emu(&r, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *p = strstr(r.out, ": ");
    ck_assert_msg(p, "%s", r.out);
    double v = strtod(p + 2, NULL);
    emu_result_free(&r);
    return v;
}

START_TEST(an_offset_leaves_tsc_differences_alone)
{
    double base = per_iteration(NULL, NULL, NULL);
    ck_assert(base > 0);
    ck_assert(per_iteration("--tsc-skew", "0:5000000", NULL) == base);
    ck_assert(per_iteration("--tsc-skew", "0:-5000", NULL) == base);
}
END_TEST

START_TEST(a_rate_scales_the_tsc_differences)
{
    double base = per_iteration(NULL, NULL, NULL);
    double fast = per_iteration("--tsc-skew", "0:0:100000", NULL);
    double slow = per_iteration("--tsc-skew", "0:0:-250000", NULL);
    /* +10% and -25%, to the rounding of the cycle counts */
    ck_assert_msg(fast > base * 1.0999 && fast < base * 1.1001, "%f %f", base, fast);
    ck_assert_msg(slow > base * 0.7499 && slow < base * 0.7501, "%f %f", base, slow);
}
END_TEST

/* The kernel's clock counts from its boot TSC: an offset on the CPU it
 * runs on leaves the date as it was. */
START_TEST(an_offset_leaves_the_kernels_date_alone)
{
    struct emu_result a, b;
    emu(&a, "run", fixture("busybox"), "date", NULL);
    emu(&b, "run", "--tsc-skew", "0:123456789", fixture("busybox"), "date", NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    ck_assert_str_eq(a.out, b.out);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

static const char *const bad[] = {
    "0", "0:", ":5", "0:abc", "8:0", "-1:5", "0:1:2:3", "0:1:1000000", "0:1:-1000000",
    "0:99999999999999999999", "0:5x", "x:5",
};

START_TEST(bad_values_are_a_one_line_usage_error)
{
    struct emu_result r;
    emu(&r, "run", "--tsc-skew", bad[_i], program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.out, "");
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_msg(strstr(r.err, "--tsc-skew"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(a_cpu_outside_the_machine_or_given_twice_is_refused)
{
    struct emu_result r;
    emu(&r, "run", "--tsc-skew", "1:100", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
    emu(&r, "run", "--tsc-skew", "0:1", "--tsc-skew", "0:2", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
    emu(&r, "run", "--smp", "2", "--tsc-skew", "1:100:50", "--tsc-skew", "0:0", program("hello"),
        NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* monotonic.c migrates with sched_setaffinity: with every TSC in step
 * neither clock goes back. A kernel without the call (issue17 at 112f1db
 * runs processes on CPU 0 only) makes the program say so (exit 3), never
 * report steps it did not measure. */
START_TEST(monotonic_in_step_sees_no_step_or_says_it_cannot_migrate)
{
    struct emu_result r;
    emu(&r, "run", "--smp", "2", "--vgettimeofday", program("monotonic"), "10", NULL);
    if (r.status == 3) {
        ck_assert_msg(strstr(r.out, "cannot migrate"), "%s", r.out);
        ck_assert_msg(!strstr(r.out, "largest backward step"), "%s", r.out);
    } else {
        ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
        ck_assert_msg(strstr(r.out, "kernel gettimeofday: largest backward step 0 us"), "%s",
                      r.out);
        ck_assert_msg(strstr(r.out, "user-space gettimeofday: largest backward step 0 us"),
                      "%s", r.out);
    }
    emu_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tsc_skew");
    TCase *tc = tcase_create("tsc_skew");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, an_offset_leaves_tsc_differences_alone);
    tcase_add_test(tc, a_rate_scales_the_tsc_differences);
    tcase_add_test(tc, an_offset_leaves_the_kernels_date_alone);
    tcase_add_loop_test(tc, bad_values_are_a_one_line_usage_error, 0,
                        (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, a_cpu_outside_the_machine_or_given_twice_is_refused);
    tcase_add_test(tc, monotonic_in_step_sees_no_step_or_says_it_cannot_migrate);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
