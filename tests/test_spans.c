/*
 * The program's own measurements (emu/account/spans.c): between each pair of its
 * rdtsc reads, the instructions by class and the calls by way; the span's
 * cycles are what the program itself measured.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/account/spans.h"

START_TEST(a_span_is_what_the_program_measured)
{
    struct guest *g = guest_new("pentium4", "linus_loop", "getppid", "300", NULL);
    struct tsc_spans *s = calloc(1, sizeof *s);
    ck_assert_int_eq(spans_attach(s, &g->m, &g->sys), 0);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_eq(spans_count(s), 2);   /* the kernel's own TSC reads are not spans */
    static const int want[2][2] = { { PATH_SYSENTER, VIA_PAGE }, { PATH_INT80, VIA_INLINE } };
    for (int k = 1; k <= 2; k++) {
        struct span sp;
        int path, via;
        uint64_t calls, sum = 0;
        ck_assert(span_get(s, k, &sp));
        ck_assert(span_way(&sp, &path, &via, &calls));
        ck_assert_int_eq(path, want[k - 1][0]);
        ck_assert_int_eq(via, want[k - 1][1]);
        ck_assert_uint_eq(calls, 300);
        for (int c = 0; c < NCLASSES; c++)
            sum += sp.counts[c] * g->m.cpu.cost[c];
        ck_assert_uint_eq(sum, sp.cycles);
        ck_assert_uint_eq(sp.counts[CLASS_RDTSC], 1);   /* the first read is in it */
    }
    ck_assert(!span_get(s, 3, &(struct span){ 0 }));
    guest_free(g);
    free(s);
}
END_TEST

START_TEST(a_span_with_calls_both_ways_has_no_one_way)
{
    struct span sp;
    int path, via;
    uint64_t calls;
    memset(&sp, 0, sizeof sp);
    ck_assert(!span_way(&sp, &path, &via, &calls));   /* no calls */
    sp.calls[PATH_INT80][VIA_INLINE] = 5;
    ck_assert(span_way(&sp, &path, &via, &calls));
    sp.calls[PATH_SYSENTER][VIA_PAGE] = 1;
    ck_assert(!span_way(&sp, &path, &via, &calls));
}
END_TEST

Suite *spans_suite(void)
{
    Suite *s = suite_create("spans");
    TCase *tc = tcase_create("spans");
    tcase_add_test(tc, a_span_is_what_the_program_measured);
    tcase_add_test(tc, a_span_with_calls_both_ways_has_no_one_way);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(spans_suite());
}
