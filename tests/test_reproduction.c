/*
 * The article's result as the model produces it, and the calibration points
 * the unpublished ring-crossing costs were derived from. These are cycle
 * counts of the model (deterministic), not host timings.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

/* cycles/call printed by syscall_loop (the guest's own TSC measurement) */
static double loop_cycles(const char *cpu, const char *call, const char *mode)
{
    const char *args[] = { "run", "--cpu", cpu, program("syscall_loop"), call, "20000",
                           mode, NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    const char *p = strstr(r.out, ": ");
    ck_assert_ptr_nonnull(p);
    double v = strtod(p + 2, NULL);
    emu_result_free(&r);
    return v;
}

static void assert_near(double got, double want, double tolerance, const char *what)
{
    ck_assert_msg(got > want * (1 - tolerance) && got < want * (1 + tolerance),
                  "%s: model %.1f cycles, published %.1f", what, got, want);
}

START_TEST(calibration_points_are_reproduced)
{
    /* If the kernel's entry or exit path changes, these move: re-run
     * scripts/calibrate.sh and update emu/cost_tables.h. */
    assert_near(loop_cycles("pentium4", "getppid", "vsyscall"), 641, 0.01,
                "P4 getppid via sysenter (Linus, 16 Dec 2002)");
    assert_near(loop_cycles("pentium4", "getppid", "int80"), 1761, 0.01,
                "P4 getppid via int $0x80 (Linus, 16 Dec 2002)");
    assert_near(loop_cycles("pentium3,-sep", "getppid", "libc"), 320, 0.01,
                "P6 lmbench null call via int $0x80 (OSDL, 2.4.18)");
}
END_TEST

/* emu compare's ratio line for a model: "MODEL gettimeofday: ... = R of the time" */
static double compare_ratio(const char *out, const char *model)
{
    char key[64];
    snprintf(key, sizeof key, "%s gettimeofday: sysenter", model);
    const char *line = strstr(out, key);
    ck_assert_msg(line != NULL, "no ratio line for %s", model);
    const char *eq = strstr(line, " = ");
    ck_assert_ptr_nonnull(eq);
    return strtod(eq + 3, NULL);
}

START_TEST(article_speedups_emerge)
{
    const char *args[] = { "compare", "--article", program("syscall_loop"), "gettimeofday",
                           "20000", NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    double p4 = compare_ratio(r.out, "pentium4"), p3 = compare_ratio(r.out, "pentium3");
    /* P4: "just over half the time" */
    ck_assert_msg(p4 >= 0.45 && p4 <= 0.62, "P4 sysenter/int80 time ratio %.3f", p4);
    /* P3: "a factor of 1.2" */
    ck_assert_msg(1 / p3 >= 1.1 && 1 / p3 <= 1.3, "P3 speedup %.3f", 1 / p3);
    ck_assert_ptr_nonnull(strstr(r.out, "1280.4 / 2415.7"));
    emu_result_free(&r);
}
END_TEST

/* cycles/call of syscall_loop with one --cost override */
static double loop_cycles_with(const char *cpu, const char *call, const char *cost)
{
    const char *args[] = { "run", "--cpu", cpu, "--cost", cost, program("syscall_loop"), call,
                           "2000", NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    const char *p = strstr(r.out, ": ");
    ck_assert_ptr_nonnull(p);
    double v = strtod(p + 2, NULL);
    emu_result_free(&r);
    return v;
}

START_TEST(the_rep_start_up_is_charged_once_per_call)
{
    /* gettimeofday copies its timeval to user space with one rep movsl */
    double with = loop_cycles_with("pentium4", "gettimeofday", "rep_start=163");
    double without = loop_cycles_with("pentium4", "gettimeofday", "rep_start=0");
    ck_assert_msg(with - without > 162.99 && with - without < 163.01,
                  "one start-up per call: %.2f - %.2f", with, without);
}
END_TEST

Suite *reproduction_suite(void)
{
    Suite *s = suite_create("reproduction");
    TCase *tc = tcase_create("article");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, calibration_points_are_reproduced);
    tcase_add_test(tc, article_speedups_emerge);
    tcase_add_test(tc, the_rep_start_up_is_charged_once_per_call);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(reproduction_suite());
}
