/*
 * The validation table (make validate, docs/validation.md): every operation
 * of lmbench_validate makes the calls it names and gives a figure on every
 * model; a span of a two-process operation holds both processes' work; and
 * the published check figures are never an input of the model.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "../emu/cost/cost_model.h"
#include "../emu/cost/published.h"
#include "../emu/account/spans.h"

#define N 40
#define NOPS 11

/* Each operation, the call its timed loop makes, and how many of them a
 * run of N makes at least (set-up and the other spans included). */
static const struct {
    const char *op, *call;
    int at_least;
} ops[NOPS] = {
    { "null", "getppid", N },       { "io", "read", N },      { "stat", "stat64", N },
    { "open", "close", N },          { "sigi", "rt_sigaction", N },
    { "sigc", "sigreturn", N },      { "prot", "sigreturn", 2 * N },
    { "pipe", "read", 2 * N },       { "ctx", "write", 3 * N }, { "fork", "fork", N },
    { "exec", "execve", N },
};

START_TEST(every_operation_makes_the_calls_it_names)
{
    const char *json = scratch("validate.json");
    char n[16], filter[128];
    snprintf(n, sizeof n, "%d", N);
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium3,-sep", "--report=json", "--report-file", json,
        program("lmbench_validate"), ops[_i].op, n, NULL);
    ck_assert_msg(r.status == 0, "%s: exit %d, %s", ops[_i].op, r.status, r.err);
    snprintf(filter, sizeof filter, "[.syscalls[] | select(.name == \"%s\") | .calls] | add",
             ops[_i].call);
    char *calls = jq(filter, json);
    ck_assert_msg(atol(calls) >= ops[_i].at_least, "%s: %s %s calls, want %d or more",
                  ops[_i].op, calls, ops[_i].call, ops[_i].at_least);
    free(calls);
    emu_result_free(&r);
    unlink(json);
}
END_TEST

/* "  MODEL  PATH  C [lo, hi] cycles = U [lo, hi] us at M MHz; published ..." */
static void check_row(const char *out, const char *model, const char *op, double iv[3])
{
    char head[32];
    snprintf(head, sizeof head, "  %-17s ", model);
    char *line = line_with(out, head);
    ck_assert_msg(line, "%s: no row for %s in\n%s", op, model, out);
    double us, ulo, uhi, mhz;
    ck_assert_msg(sscanf(line + strlen(head) + 9,
                         "%lf [%lf, %lf] cycles = %lf [%lf, %lf] us at %lf MHz", &iv[0], &iv[1],
                         &iv[2], &us, &ulo, &uhi, &mhz) == 7,
                  "%s", line);
    ck_assert_msg(iv[0] > 0 && iv[1] <= iv[0] && iv[0] <= iv[2], "%s", line);
    ck_assert_msg(us > 0 && fabs(us - iv[0] / mhz) < 0.001, "%s", line);
    ck_assert_msg(strstr(line, "; published "), "%s", line);
    free(line);
}

START_TEST(every_operation_gives_a_figure_on_every_model)
{
    char n[16];
    snprintf(n, sizeof n, "%d", N);
    struct emu_result r;
    emu(&r, "compare", "--validate", program("lmbench_validate"), ops[_i].op, n, NULL);
    ck_assert_msg(r.status == 0, "%s: exit %d, %s", ops[_i].op, r.status, r.err);
    static const char *const models[] = { "pentium4", "pentium4,-sep", "pentium3",
                                          "pentium3,-sep" };
    /* each model under each kernel configuration (rule K leaves both open),
     * and its row over both: the up run's value, an interval holding both */
    for (int m = 0; m < 4; m++) {
        char up[32], smp[32];
        double all[3], u[3], s[3];
        snprintf(up, sizeof up, "%s/up", models[m]);
        snprintf(smp, sizeof smp, "%s/smp", models[m]);
        check_row(r.out, models[m], ops[_i].op, all);
        check_row(r.out, up, ops[_i].op, u);
        check_row(r.out, smp, ops[_i].op, s);
        ck_assert_msg(all[0] == u[0] && all[1] <= u[1] && all[1] <= s[1] && all[2] >= u[2] &&
                      all[2] >= s[2], "%s on %s: [%g, %g] does not hold [%g, %g] and [%g, %g]",
                      ops[_i].op, models[m], all[1], all[2], u[1], u[2], s[1], s[2]);
    }
    /* Mau's summary has every row: the int80 run is compared with it */
    char *p4 = line_with(r.out, "  pentium4,-sep ");
    ck_assert_msg(strstr(p4, ": inside") || strstr(p4, ": outside") || strstr(p4, ": overlaps"),
                  "%s", p4);
    char *sysenter = line_with(r.out, "  pentium4          sysenter");
    ck_assert_msg(sysenter && strstr(sysenter, "not compared"), "%s", r.out);
    free(p4);
    free(sysenter);
    emu_result_free(&r);
}
END_TEST

/* The TSC is a wall clock: a span of the parent's holds the child's work
 * and the kernel's for both, as lmbench's gettimeofday did. */
START_TEST(a_span_of_a_two_process_operation_holds_both_processes)
{
    static const struct {
        const char *op;
        int calls;   /* begun in the timed span, per operation */
    } two[] = { { "pipe", 4 }, { "fork", 3 } };   /* fork, the child's exit, wait4 */
    struct guest *g = guest_new("pentium4,-sep", "lmbench_validate", two[_i].op, "30", NULL);
    struct tsc_spans *s = calloc(1, sizeof *s);
    ck_assert_int_eq(spans_attach(s, &g->m, &g->sys), 0);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_eq(spans_count(s), 2);
    struct span sp;
    int path, via;
    uint64_t calls;
    ck_assert(span_get(s, 1, &sp));
    ck_assert(span_way(&sp, &path, &via, &calls));
    ck_assert_int_eq(path, PATH_INT80);
    /* the child's call in flight at either read may fall on either side */
    ck_assert_msg(calls + 1 >= 30u * two[_i].calls && calls <= 30u * two[_i].calls + 1,
                  "%s: %llu calls begun in the span", two[_i].op, (unsigned long long)calls);
    ck_assert(span_get(s, 2, &sp));   /* the empty loop */
    ck_assert(!span_way(&sp, &path, &via, &calls));
    guest_free(g);
    free(s);
}
END_TEST

/* cost_model.c names each published input "ID AS_PRINTED" */
static bool is_input(const struct cost_input *in, const struct published *p)
{
    char name[sizeof in->name];
    snprintf(name, sizeof name, "%s %s", p->id, p->as_printed);
    return !strcmp(in->name, name);
}

START_TEST(a_check_figure_is_never_an_input_of_the_model)
{
    struct cost_input in[NINPUTS];
    cost_inputs(in);
    int checks = 0, published_inputs = 0;
    for (int k = 0; k < npublished; k++) {
        const struct published *p = &published[k];
        checks += p->role == PUB_CHECK;
        for (int i = 0; i < NINPUTS; i++)
            if (is_input(&in[i], p)) {
                ck_assert_msg(p->role == PUB_CALIBRATION, "input %d is %s", i, p->id);
                published_inputs++;
            }
    }
    ck_assert_int_eq(checks, 19);
    ck_assert_int_eq(published_inputs, 3);
}
END_TEST

START_TEST(article_compares_no_check_figure)
{
    struct emu_result r;
    emu(&r, "compare", "--article", "--cpus", "pentium4,-sep", program("lmbench_validate"),
        "null", "20", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "no published figure for this program"));
    emu_result_free(&r);
}
END_TEST

START_TEST(validate_takes_only_lmbench_validate)
{
    struct emu_result r;
    emu(&r, "compare", "--validate", "--cpus", "pentium4", program("syscall_loop"), "getppid",
        "20", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "lmbench_validate OP N"));
    emu_result_free(&r);
}
END_TEST

Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("validate");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_operation_makes_the_calls_it_names, 0, NOPS);
    tcase_add_loop_test(tc, every_operation_gives_a_figure_on_every_model, 0, NOPS);
    tcase_add_loop_test(tc, a_span_of_a_two_process_operation_holds_both_processes, 0, 2);
    tcase_add_test(tc, a_check_figure_is_never_an_input_of_the_model);
    tcase_add_test(tc, article_compares_no_check_figure);
    tcase_add_test(tc, validate_takes_only_lmbench_validate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(validate_suite());
}
