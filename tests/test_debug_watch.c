/*
 * Watchpoints, the poll and caught faults (emu/cpu/debug.c): where each stops
 * the machine, and that the cycle model does not notice.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "debug_rig.h"

/* ---- watchpoints ---- */

START_TEST(watchpoint_stops_after_the_writing_instruction)
{
    struct counts ref;
    reference(&ref, "pentium4", "watched", NULL, NULL);
    ck_assert_int_eq(ref.status, 42);
    struct guest *g = guest_new("pentium4", "watched", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    to_main(&d, "watched");
    uint32_t var = psym("watched", "watched");
    ck_assert_int_eq(debug_insert_watch(&d, DEBUG_WATCH_WRITE, var, 4), 0);
    struct debug_stop s;
    ck_assert_int_eq(debug_run(&d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_WATCH);
    ck_assert_int_eq(s.kind, DEBUG_WATCH_WRITE);
    ck_assert(s.wrote);
    ck_assert_uint_eq(s.addr, var);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), psym("watched", "after_store"));
    ck_assert_uint_eq(word(&d, var), 42);
    /* nothing else writes it */
    ck_assert_int_eq(run_out(&d), 42);
    assert_counts_as(&ref, g, 42);
    guest_free(g);
}
END_TEST

START_TEST(read_and_access_watchpoints_see_their_accesses)
{
    struct guest *g = guest_new("pentium4", "watched", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    to_main(&d, "watched");
    uint32_t var = psym("watched", "watched");
    ck_assert_int_eq(debug_insert_watch(&d, DEBUG_WATCH_READ, var + 2, 1), 0);
    struct debug_stop s;
    ck_assert_int_eq(debug_run(&d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_WATCH);
    ck_assert(!s.wrote);
    ck_assert_uint_eq(s.addr, var + 2);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), psym("watched", "after_load"));
    ck_assert_int_eq(debug_remove_watch(&d, DEBUG_WATCH_READ, var + 2, 1), 0);
    debug_clear(&d);
    guest_free(g);

    g = guest_new("pentium4", "watched", NULL);
    debug_attach(&d, &g->m);
    to_main(&d, "watched");
    ck_assert_int_eq(debug_insert_watch(&d, DEBUG_WATCH_ACCESS, var, 4), 0);
    stop_at(&d, DEBUG_WATCH, psym("watched", "after_store"));
    stop_at(&d, DEBUG_WATCH, psym("watched", "after_load"));
    ck_assert_int_eq(run_out(&d), 42);
    guest_free(g);
}
END_TEST

/* The kernel fills a user variable: the watchpoint stops in ring 0, after
 * the instruction of the copy that wrote it. */
START_TEST(watchpoint_sees_the_kernel_write_a_user_variable)
{
    struct guest *g = guest_new("pentium4", "watched", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    to_main(&d, "watched");
    uint32_t when = psym("watched", "when");
    ck_assert_int_eq(debug_insert_watch(&d, DEBUG_WATCH_WRITE, when, 4), 0);
    struct debug_stop s;
    ck_assert_int_eq(debug_run(&d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_WATCH);
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __KERNEL_CS);
    ck_assert_uint_ne(word(&d, when), 0);
    ck_assert_int_eq(run_out(&d), 42);
    guest_free(g);
}
END_TEST

/* ---- the poll, and caught faults ---- */

static int polls;
static uint64_t last_poll_insns, max_gap;
static struct guest *polled;

static int count_poll(void *ctx)
{
    (void)ctx;
    uint64_t gap = polled->m.insns - last_poll_insns;
    if (gap > max_gap)
        max_gap = gap;
    last_poll_insns = polled->m.insns;
    return ++polls == 20 ? 2 : 0;
}

START_TEST(the_poll_runs_every_few_thousand_instructions_and_can_stop)
{
    struct counts ref;
    reference(&ref, "pentium4", "one_call", "getpid", NULL);
    polled = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &polled->m);
    debug_set_poll(&d, count_poll, NULL);
    struct debug_stop s;
    ck_assert_int_eq(debug_run(&d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_SIGNAL);
    ck_assert_int_eq(s.signo, 2);
    ck_assert_int_eq(polls, 20);
    assert_counts_as(&ref, polled, run_out(&d));
    ck_assert_int_gt(polls, (int)(ref.insns / DEBUG_POLL_INSNS / 2));
    /* a block is the most the poll can be late by */
    ck_assert_uint_lt(max_gap, DEBUG_POLL_INSNS + 1024);
    guest_free(polled);
}
END_TEST

/* A page fault is caught where the kernel finds it is the program's (in
 * do_page_fault), not at the demand-paging faults before it. */
START_TEST(a_caught_fault_stops_at_its_handler)
{
    struct guest *g = guest_new("pentium4", "faults", "null", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    debug_catch_faults(&d, true);
    struct debug_stop s;
    ck_assert_int_eq(debug_run(&d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_FAULT);
    ck_assert_int_eq(s.fault.vector, X86_VEC_PF);
    ck_assert_uint_eq(s.fault.from_cpl, 3);
    ck_assert_uint_eq(s.fault.return_eip, psym("faults", "at_null"));
    ck_assert_uint_gt(reg(g, UC_X86_REG_EIP), ksym("do_page_fault"));
    ck_assert_uint_lt(reg(g, UC_X86_REG_EIP), ksym("do_page_fault") + 0x400);
    ck_assert_uint_eq(reg(g, UC_X86_REG_CR2), 0);
    debug_catch_faults(&d, false);
    ck_assert_int_eq(run_out(&d), 128 + 11);
    guest_free(g);
}
END_TEST

Suite *debug_watch_suite(void)
{
    Suite *s = suite_create("debug_watch");
    TCase *tc_watch = tcase_create("watch");
    tcase_set_timeout(tc_watch, 120);
    tcase_add_test(tc_watch, watchpoint_stops_after_the_writing_instruction);
    tcase_add_test(tc_watch, read_and_access_watchpoints_see_their_accesses);
    tcase_add_test(tc_watch, watchpoint_sees_the_kernel_write_a_user_variable);
    suite_add_tcase(s, tc_watch);
    TCase *tc_poll_and_faults = tcase_create("poll_and_faults");
    tcase_set_timeout(tc_poll_and_faults, 120);
    tcase_add_test(tc_poll_and_faults, the_poll_runs_every_few_thousand_instructions_and_can_stop);
    tcase_add_test(tc_poll_and_faults, a_caught_fault_stops_at_its_handler);
    suite_add_tcase(s, tc_poll_and_faults);
    return s;
}

int main(void)
{
    return run_suite(debug_watch_suite());
}
