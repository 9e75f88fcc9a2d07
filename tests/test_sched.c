/*
 * The scheduler in 2.5.53's shape (guest/kernel/sched.c,
 * docs/fidelity-sched.md): what its priorities change for a program.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

/* A sleeper earns a priority bonus; when its timer wakes it while a CPU
 * hog runs, it takes the CPU at the hog's next return to user mode
 * instead of waiting for the end of the hog's time slice (~100 ms). */
START_TEST(a_woken_task_of_better_priority_preempts_a_cpu_hog)
{
    struct emu_result r;
    long late = -1;

    emu(&r, "run", "--cpu", "pentium3", program("wake_preempt"), NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
    char *line = line_with(r.out, "wake_preempt: latest wake-up ");
    ck_assert_msg(line && sscanf(line, "wake_preempt: latest wake-up %ld us late", &late) == 1,
                  "%s", r.out);
    ck_assert_msg(late >= 0 && late < 3000, "a 1 ms sleep ended %ld us late", late);
    ck_assert_ptr_nonnull(strstr(r.out, "wake_preempt: the hog ended\n"));
    free(line);
    emu_result_free(&r);
}
END_TEST

/* Two CPU hogs: each waits for the other's whole time slice, 2.5.53's
 * 151 ticks for nice 0 (the first slices are the halves fork split), in
 * the expired array until the active one is empty. */
START_TEST(cpu_hogs_take_turns_of_a_whole_time_slice)
{
    struct emu_result r;
    long parent = -1, child = -1;

    emu(&r, "run", "--cpu", "pentium3", program("slices"), "300", NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
    char *pl = line_with(r.out, "slices: the parent waited at most ");
    char *cl = line_with(r.out, "slices: the child waited at most ");
    ck_assert_msg(pl && cl, "%s", r.out);
    ck_assert_int_eq(sscanf(pl, "slices: the parent waited at most %ld ms", &parent), 1);
    ck_assert_int_eq(sscanf(cl, "slices: the child waited at most %ld ms", &child), 1);
    ck_assert_msg(parent == 151 && child == 151, "%s", r.out);
    free(pl);
    free(cl);
    emu_result_free(&r);
}
END_TEST

Suite *sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("priorities");
    /* most of a modeled second of a spinning process: minutes under the
     * sanitizers */
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, a_woken_task_of_better_priority_preempts_a_cpu_hog);
    tcase_add_test(tc, cpu_hogs_take_turns_of_a_whole_time_slice);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(sched_suite());
}
