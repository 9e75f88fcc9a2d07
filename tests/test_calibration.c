/*
 * The calibration (emu/compare/calibrate.c, emu/cost/cost_model.c): the committed
 * counts in emu/cost/calibration_data.h are what the replays give today, and the
 * ring-crossing costs solved from them reproduce the published figures for
 * any value of the other rows.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/compare/calibrate.h"

#define PROGRAMS BUILD_DIR "/guest/programs"

static uint64_t count_of(const struct calib_span *d, int cls)
{
    for (int k = 0; k < NCLASSES && d->counts[k].cls; k++)
        if (!strcmp(d->counts[k].cls, class_name(cls)))
            return d->counts[k].n;
    return 0;
}

/* The counts are a + b * N exactly (every iteration runs the same path), so
 * two short replays give what the committed long one has. */
START_TEST(the_committed_counts_are_what_the_replays_give)
{
    enum { N1 = 1000, N2 = 2000, MAX = 8 };
    struct calib_span a[MAX], b[MAX];
    char err[640];
    int ncommitted;
    const struct calib_span *committed = calib_data(&ncommitted);
    int run = _i, seen = 0;
    int na = calibrate_run(PROGRAMS, run, N1, a, MAX, err, sizeof err);
    int nb = calibrate_run(PROGRAMS, run, N2, b, MAX, err, sizeof err);
    ck_assert_msg(na > 0 && na == nb, "%s", err);
    for (int s = 0; s < ncommitted; s++) {
        const struct calib_span *d = &committed[s];
        if (d->run != run)
            continue;
        ck_assert_int_le(d->span, na);
        seen++;
        for (int c = 0; c < NCLASSES; c++) {
            uint64_t ca = count_of(&a[d->span - 1], c), cb = count_of(&b[d->span - 1], c);
            uint64_t per = (cb - ca) / (N2 - N1), fixed = ca - per * N1;
            ck_assert_msg(fixed + per * d->iterations == count_of(d, c),
                          "emu/cost/calibration_data.h is stale (run %d span %d, %s: %llu, the "
                          "replay gives %llu): run scripts/calibrate.sh", run, d->span,
                          class_name(c), (unsigned long long)count_of(d, c),
                          (unsigned long long)(fixed + per * d->iterations));
        }
    }
    ck_assert_int_eq(seen, na);
}
END_TEST

START_TEST(the_loop_shape_moves_only_the_loop)
{
    double reg[2][NCLASSES], mem[2][NCLASSES], delta[NCLASSES];
    int kconfig = _i;
    for (int span = 1; span <= 2; span++) {
        ck_assert(calib_counts(calib_run_of(kconfig, CALIB_LINUS_REG), span, reg[span - 1]));
        ck_assert(calib_counts(calib_run_of(kconfig, CALIB_LINUS_MEM), span, mem[span - 1]));
    }
    loop_shape_delta(kconfig, delta);
    for (int c = 0; c < NCLASSES; c++) {
        /* the same few instructions around either kind of call */
        ck_assert_double_eq_tol(mem[1][c] - reg[1][c], delta[c], 1e-9);
        if (c == CLASS_SYSENTER || c == CLASS_SYSEXIT || c == CLASS_INT || c == CLASS_IRET)
            ck_assert_double_eq_tol(delta[c], 0, 1e-9);
    }
    ck_assert_double_gt(delta[CLASS_RMW], 0.99);      /* i++ on the stack */
}
END_TEST

/* The same replays, in the same order, under each configuration. */
START_TEST(every_replay_is_listed_once_per_configuration)
{
    for (int k = 0; k < NKCONFIGS; k++)
        for (int kind = 0; kind < NCALIB_KINDS; kind++) {
            const struct calib_run *a = &calib_runs[calib_run_of(KCONFIG_UP, kind)];
            const struct calib_run *b = &calib_runs[calib_run_of(k, kind)];
            ck_assert_int_eq(b->kconfig, k);
            ck_assert_str_eq(a->program, b->program);
            ck_assert_str_eq(a->args, b->args);
            ck_assert_str_eq(a->cpu, b->cpu);
        }
}
END_TEST

static double dot(const double n[NCLASSES], const double v[NCLASSES])
{
    double s = 0;
    for (int c = 0; c < NCLASSES; c++)
        s += n[c] * v[c];
    return s;
}

/* At the central inputs, and with any one input at either end; under each
 * kernel configuration, from its own replays. */
START_TEST(the_solved_costs_reproduce_the_published_figures)
{
    int kconfig = _i;
    struct cost_input in[NINPUTS];
    double x[NINPUTS], p4[NCLASSES], p6[NCLASSES], n[NCLASSES], body[NCLASSES],
        loop[NCLASSES], reg[NCLASSES], mem[NCLASSES];
    cost_inputs(in);
    for (int i = -1; i < NINPUTS; i++) {
        for (int end = 0; end < 2; end++) {
            cost_central(x);
            if (i >= 0)
                x[i] = end ? in[i].high : in[i].low;
            cost_eval(x, TABLE_P4, kconfig, NULL, p4);
            cost_eval(x, TABLE_P6, kconfig, NULL, p6);
            for (int span = 1; span <= 2; span++) {
                calib_counts(calib_run_of(kconfig, CALIB_LINUS_REG), span, reg);
                calib_counts(calib_run_of(kconfig, CALIB_LINUS_MEM), span, mem);
                for (int c = 0; c < NCLASSES; c++)
                    n[c] = reg[c] + x[INPUT_LOOP_SHAPE] * (mem[c] - reg[c]);
                ck_assert_double_eq_tol(dot(n, p4), x[INPUT_PUB_P4_SYSENTER + span - 1], 1e-6);
            }
            calib_counts(calib_run_of(kconfig, CALIB_LMBENCH), 1, body);
            calib_counts(calib_run_of(kconfig, CALIB_LMBENCH), 2, loop);
            for (int c = 0; c < NCLASSES; c++)
                n[c] = body[c] - loop[c];
            ck_assert_double_eq_tol(dot(n, p6), x[INPUT_PUB_P6_INT80], 1e-6);
            ck_assert_double_gt(p6[CLASS_SYSENTER], 0);
            ck_assert_double_eq(p6[CLASS_EXCEPTION], p6[CLASS_INT]);
        }
    }
}
END_TEST

/* The P6 sysenter pair: the P4's pair times the ratio of the two cores'
 * int + iret pairs, times the estimate's factor (docs/cost-model.md). */
START_TEST(the_p6_sysenter_pair_follows_its_one_rule)
{
    double x[NINPUTS], p4[NCLASSES], p6[NCLASSES];
    cost_central(x);
    x[INPUT_P6_PAIR_FACTOR] = 2;
    cost_eval(x, TABLE_P4, KCONFIG_UP, NULL, p4);
    cost_eval(x, TABLE_P6, KCONFIG_UP, NULL, p6);
    double want = 2 * (p4[CLASS_SYSENTER] + p4[CLASS_SYSEXIT]) *
                  (p6[CLASS_INT] + p6[CLASS_IRET]) / (p4[CLASS_INT] + p4[CLASS_IRET]);
    ck_assert_double_eq_tol(p6[CLASS_SYSENTER] + p6[CLASS_SYSEXIT], want, 1e-9);
    ck_assert_double_eq_tol(p6[CLASS_SYSENTER], p6[CLASS_SYSEXIT], 1e-9);
}
END_TEST

Suite *calibration_suite(void)
{
    Suite *s = suite_create("calibration");
    TCase *tc = tcase_create("data");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, the_committed_counts_are_what_the_replays_give, 0, ncalib_runs);
    tcase_add_test(tc, every_replay_is_listed_once_per_configuration);
    tcase_add_loop_test(tc, the_loop_shape_moves_only_the_loop, 0, NKCONFIGS);
    tcase_add_loop_test(tc, the_solved_costs_reproduce_the_published_figures, 0, NKCONFIGS);
    tcase_add_test(tc, the_p6_sysenter_pair_follows_its_one_rule);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(calibration_suite());
}
