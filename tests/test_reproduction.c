/*
 * The reproduction: the replays of the published experiments, run as the
 * 2002-2003 programs ran, reproduce the calibration points (by
 * construction, to the 0.01-cycle rounding of the costs), charge a rep
 * string op's start-up once per call, and give the same numbers every
 * run. The article's figures are not pinned here: they are what the model
 * predicts, and make run prints them beside it. These are cycle counts of
 * the model, not host timings.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

/* The number a replay printed after label ("...: 641.00 cycles"). */
static double printed(const char *out, const char *label)
{
    const char *p = strstr(out, label);
    ck_assert_msg(p != NULL, "no \"%s\" in:\n%s", label, out);
    return strtod(p + strlen(label), NULL);
}

static void replay(struct emu_result *r, const char *cpu, const char *cost, const char *prog,
                   const char *a1, const char *a2)
{
    const char *args[10];
    int n = 0;
    args[n++] = "run";
    args[n++] = "--cpu";
    args[n++] = cpu;
    if (cost) {
        args[n++] = "--cost";
        args[n++] = cost;
    }
    args[n++] = program(prog);
    args[n++] = a1;
    if (a2)
        args[n++] = a2;
    args[n] = NULL;
    run_emu(r, args);
    ck_assert_msg(r->status == 0, "%s: %s", prog, r->err);
}

START_TEST(calibration_points_are_reproduced)
{
    /* If the kernel's entry or exit path changes, test_calibration fails
     * first: run scripts/calibrate.sh. */
    struct emu_result r;
    replay(&r, "pentium4", NULL, "linus_loop", "getppid", "20000");
    ck_assert_double_eq_tol(printed(r.out, "call 0xfffff000: "), 641, 0.05);
    ck_assert_double_eq_tol(printed(r.out, "int $0x80: "), 1761, 0.05);
    emu_result_free(&r);
    replay(&r, "pentium3,-sep", NULL, "lmbench_null", "20000", NULL);
    ck_assert_double_eq_tol(printed(r.out, "null call, int $0x80 library: "), 320, 0.05);
    emu_result_free(&r);
}
END_TEST

START_TEST(the_rep_start_up_is_charged_once_per_call)
{
    /* gettimeofday copies its timeval to user space with one rep movsl;
     * the start-up is on no calibration path, so nothing else moves */
    struct emu_result with, without;
    replay(&with, "pentium4", "rep_movs_start=163", "linus_loop", "gettimeofday", "2000");
    replay(&without, "pentium4", "rep_movs_start=0", "linus_loop", "gettimeofday", "2000");
    static const char *const labels[] = { "call 0xfffff000: ", "int $0x80: " };
    for (int i = 0; i < 2; i++) {
        double d = printed(with.out, labels[i]) - printed(without.out, labels[i]);
        ck_assert_msg(d > 162.98 && d < 163.02, "%s one start-up per call: %.2f", labels[i], d);
    }
    emu_result_free(&with);
    emu_result_free(&without);
}
END_TEST

START_TEST(runs_are_deterministic)
{
    struct emu_result a, b;
    replay(&a, "pentium3", NULL, "linus_loop", "gettimeofday", "3000");
    replay(&b, "pentium3", NULL, "linus_loop", "gettimeofday", "3000");
    ck_assert_str_eq(a.out, b.out);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

Suite *reproduction_suite(void)
{
    Suite *s = suite_create("reproduction");
    TCase *tc = tcase_create("article");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, calibration_points_are_reproduced);
    tcase_add_test(tc, the_rep_start_up_is_charged_once_per_call);
    tcase_add_test(tc, runs_are_deterministic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(reproduction_suite());
}
