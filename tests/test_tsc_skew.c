/*
 * --tsc-skew CPU:OFFSET[:PPM] (emu/cpu/cpu_insns.c tsc_at, emu/cli/main.c): each
 * CPU's rdtsc is its modeled cycles times (1 + PPM/1e6) plus OFFSET. Seen
 * through syscall_loop, which divides the TSC difference around its loop by
 * the calls, and through the kernel's clock, which counts from the TSC it
 * read at boot; and through guest/programs/monotonic.c, moved between two
 * CPUs at every reading (sched_setaffinity), for both clocks.
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

/* monotonic N 2's two "largest backward step" figures, in microseconds
 * (the same on a second run). */
static void steps(const char *cpu, const char *skew, const char *moves, long *kernel, long *user)
{
    struct emu_result r;
    const char *args[12] = { "run", "--smp", "2", "--vgettimeofday", "--cpu", cpu };
    int n = 6;
    if (skew) {
        args[n++] = "--tsc-skew";
        args[n++] = skew;
    }
    args[n++] = program("monotonic");
    args[n++] = moves;
    args[n++] = "2";
    args[n] = NULL;
    run_emu(&r, args);
    ck_assert_msg(r.status == 0, "%s%s", r.out, r.err);
    ck_assert_msg(strstr(r.out, " migrations over 2 CPUs\n"), "%s", r.out);
    const char *k = strstr(r.out, "kernel gettimeofday: largest backward step ");
    const char *u = strstr(r.out, "user-space gettimeofday: largest backward step ");
    ck_assert_msg(k && u, "%s", r.out);
    *kernel = strtol(k + strlen("kernel gettimeofday: largest backward step "), NULL, 10);
    *user = strtol(u + strlen("user-space gettimeofday: largest backward step "), NULL, 10);
    struct emu_result again;
    run_emu(&again, args);
    ck_assert_str_eq(again.out, r.out);
    emu_result_free(&again);
    emu_result_free(&r);
}

/* With every TSC in step, a program moved between two CPUs at each
 * reading never sees either clock go back. */
START_TEST(tscs_in_step_time_never_goes_back_across_cpus)
{
    long kernel, user;
    steps("pentium4", NULL, "100", &kernel, &user);
    ck_assert_int_eq(kernel, 0);
    ck_assert_int_eq(user, 0);
    steps("pentium3", NULL, "100", &kernel, &user);
    ck_assert_int_eq(kernel, 0);
    ck_assert_int_eq(user, 0);
}
END_TEST

/*
 * CPU 1's TSC 1 ms ahead (2 400 000 cycles at the P4's 2.4 GHz, 850 000 at
 * the P3's 850 MHz): a reading on CPU 1 is 1 ms late, so the next one, on
 * CPU 0, is earlier by the skew less the few microseconds between them
 * (the expected step: in (900, 1000] us), through the kernel and in user
 * space alike.
 */
START_TEST(a_cpu_ahead_by_a_skew_steps_time_back_by_about_the_skew)
{
    long kernel, user;
    steps("pentium4", "1:2400000", "100", &kernel, &user);
    ck_assert_msg(user > 900 && user <= 1000, "user %ld", user);
    ck_assert_msg(kernel > 900 && kernel <= 1000, "kernel %ld", kernel);
    steps("pentium3", "1:850000", "100", &kernel, &user);
    ck_assert_msg(user > 900 && user <= 1000, "user %ld", user);
    ck_assert_msg(kernel > 900 && kernel <= 1000, "kernel %ld", kernel);
}
END_TEST

/*
 * CPU 1's TSC 20 ms behind: a TSC behind the base's tick counts as no
 * cycles since it (both clocks), so a reading there is never before the
 * base: the step back is at most the time since the base's tick - one tick
 * (1 ms) plus the lag of the interrupt that applies the next, up to one
 * more - however large the skew; and the kernel's 32-bit offset does not
 * wrap to an hour. 5000 moves run past several ticks.
 */
START_TEST(a_cpu_behind_steps_back_at_most_about_two_ticks)
{
    long kernel, user;
    steps("pentium4", "1:-48000000", "5000", &kernel, &user);
    ck_assert_msg(user > 0 && user <= 2000, "user %ld", user);
    ck_assert_msg(kernel > 0 && kernel <= 2000, "kernel %ld", kernel);
}
END_TEST

/*
 * CPU 1's TSC 20 ms ahead: both clocks add CPU 1's cycles since CPU 0's
 * last tick to the same base, as 2.5.53's get_offset did with a TSC out
 * of step, so both run about the skew ahead on CPU 1 and step back by
 * about all of it on CPU 0.
 */
START_TEST(a_large_skew_ahead_steps_both_clocks_back_by_about_the_skew)
{
    long kernel, user;
    steps("pentium4", "1:48000000", "5000", &kernel, &user);
    ck_assert_msg(user > 19900 && user <= 20000, "user %ld", user);
    ck_assert_msg(kernel > 19900 && kernel <= 20000, "kernel %ld", kernel);
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
    tcase_add_test(tc, tscs_in_step_time_never_goes_back_across_cpus);
    tcase_add_test(tc, a_cpu_ahead_by_a_skew_steps_time_back_by_about_the_skew);
    tcase_add_test(tc, a_cpu_behind_steps_back_at_most_about_two_ticks);
    tcase_add_test(tc, a_large_skew_ahead_steps_both_clocks_back_by_about_the_skew);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
