/*
 * Intervals (emu/compare/interval.c): a quantity recomputed from its counts for
 * each input at either end of its range, then all low and all high; the
 * inputs that move it most, largest first; overridden inputs stay fixed.
 */
#include <check.h>
#include <math.h>
#include <string.h>
#include "support.h"
#include "../emu/compare/interval.h"

static struct model_point central_point(void)
{
    struct model_point p;
    memset(&p, 0, sizeof p);
    cost_central(p.x);
    return p;
}

START_TEST(a_quantity_of_fixed_rows_has_no_width)
{
    /* 3 alu + 1 rdtsc on the P4: both rows are single published figures,
     * and nothing calibrated is in it */
    struct model_point p = central_point();
    struct measure q = { .table = TABLE_P4 };
    q.counts[CLASS_ALU] = 3;
    q.counts[CLASS_RDTSC] = 1;
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&q, NULL, &p, &iv, mv);
    ck_assert_double_eq_tol(iv.value, 3 * 0.5 + 80, 1e-9);
    ck_assert_double_eq_tol(iv.low, iv.value, 1e-9);
    ck_assert_double_eq_tol(iv.high, iv.value, 1e-9);
    /* every input was tried and none moved it */
    for (int k = 0; k < NMOVERS; k++)
        ck_assert(mv[k].input < 0 || mv[k].at_low == mv[k].at_high);
}
END_TEST

START_TEST(a_range_row_spans_its_range_and_moves_most)
{
    /* P4 branches print "2-4" and rmw "≥8" ([8, 16]): 10 branches, 1 rmw */
    struct model_point p = central_point();
    struct measure q = { .table = TABLE_P4 };
    q.counts[CLASS_BRANCH] = 10;
    q.counts[CLASS_RMW] = 1;
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&q, NULL, &p, &iv, mv);
    ck_assert_double_eq_tol(iv.value, 10 * 2 + 8, 1e-9);
    ck_assert_double_eq_tol(iv.low, 28, 1e-9);
    ck_assert_double_eq_tol(iv.high, 10 * 4 + 16, 1e-9);   /* the all-high corner */
    ck_assert_int_eq(mv[0].input, INPUT_ROW(TABLE_P4, CLASS_BRANCH));   /* swing 20 */
    ck_assert_int_eq(mv[1].input, INPUT_ROW(TABLE_P4, CLASS_RMW));      /* swing 8 */
    ck_assert_double_eq_tol(mv[0].at_high - mv[0].at_low, 20, 1e-9);
}
END_TEST

START_TEST(an_overridden_input_stays_put)
{
    struct model_point p = central_point();
    p.x[INPUT_ROW(TABLE_P4, CLASS_BRANCH)] = 3;
    p.fixed[INPUT_ROW(TABLE_P4, CLASS_BRANCH)] = true;
    struct measure q = { .table = TABLE_P4 };
    q.counts[CLASS_BRANCH] = 10;
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&q, NULL, &p, &iv, mv);
    ck_assert_double_eq_tol(iv.low, 30, 1e-9);
    ck_assert_double_eq_tol(iv.high, 30, 1e-9);
}
END_TEST

/* Under each kernel configuration, with that configuration's calibration. */
START_TEST(a_calibrated_row_moves_against_the_rest_of_its_path)
{
    /* One call on Linus's sysenter path costs the published 641 whatever
     * the rows: what they add, the calibrated pair gives back (to within
     * what charging each class in whole centicycles leaves, 1e-4 here). */
    double counts[NCLASSES];
    int kconfig = _i;
    ck_assert(calib_counts(calib_run_of(kconfig, CALIB_LINUS_REG), 1, counts));
    struct model_point p = central_point();
    p.kconfig = kconfig;
    struct measure q = { .table = TABLE_P4 };
    memcpy(q.counts, counts, sizeof counts);
    loop_shape_delta(kconfig, q.shape);    /* a replay of Linus's loop */
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&q, NULL, &p, &iv, mv);
    ck_assert_double_eq_tol(iv.value, 641, 1e-3);
    /* only the published figure's own precision moves it */
    ck_assert_double_eq_tol(iv.low, 640.5, 1e-3);
    ck_assert_double_eq_tol(iv.high, 641.5, 1e-3);
    ck_assert_int_eq(mv[0].input, INPUT_PUB_P4_SYSENTER);
}
END_TEST

START_TEST(a_ratio_of_two_quantities)
{
    struct model_point p = central_point();
    struct measure a = { .table = TABLE_P4 }, b = { .table = TABLE_P4 };
    a.counts[CLASS_BRANCH] = 1;   /* [2, 4] */
    b.counts[CLASS_RDTSC] = 1;    /* 80 */
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&a, &b, &p, &iv, mv);
    ck_assert_double_eq_tol(iv.value, 2.0 / 80, 1e-12);
    ck_assert_double_eq_tol(iv.high, 4.0 / 80, 1e-12);
}
END_TEST

/* The interval over both kernel configurations (emu compare --article)
 * holds each configuration's interval; the central value is left alone. */
START_TEST(the_union_holds_each_configurations_interval)
{
    struct interval up = { 10, 9, 12 }, smp = { 14, 13, 16 }, u = up;
    interval_widen(&u, &smp);
    ck_assert(u.low <= up.low && u.high >= up.high);
    ck_assert(u.low <= smp.low && u.high >= smp.high);
    ck_assert_double_eq(u.value, up.value);
    ck_assert_double_eq(u.low, 9);
    ck_assert_double_eq(u.high, 16);
}
END_TEST

/* The configuration is named among the movers when its swing is one of
 * the largest, in its place by swing. */
START_TEST(the_configuration_is_a_mover_by_its_swing)
{
    struct mover mv[NMOVERS] = { { 1, 0, 5 }, { 2, 0, 3 }, { 3, 0, 1 } };
    movers_add(mv, (struct mover){ MOVER_KCONFIG, 10, 14 });
    ck_assert_int_eq(mv[0].input, 1);
    ck_assert_int_eq(mv[1].input, MOVER_KCONFIG);
    ck_assert_int_eq(mv[2].input, 2);
    movers_add(mv, (struct mover){ MOVER_KCONFIG, 0, 0.5 });
    ck_assert_int_eq(mv[2].input, 2);
}
END_TEST

Suite *interval_suite(void)
{
    Suite *s = suite_create("interval");
    TCase *tc = tcase_create("propagation");
    tcase_add_test(tc, a_quantity_of_fixed_rows_has_no_width);
    tcase_add_test(tc, a_range_row_spans_its_range_and_moves_most);
    tcase_add_test(tc, an_overridden_input_stays_put);
    tcase_add_loop_test(tc, a_calibrated_row_moves_against_the_rest_of_its_path, 0, NKCONFIGS);
    tcase_add_test(tc, a_ratio_of_two_quantities);
    tcase_add_test(tc, the_union_holds_each_configurations_interval);
    tcase_add_test(tc, the_configuration_is_a_mover_by_its_swing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(interval_suite());
}
