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

Suite *sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("priorities");
    /* most of a modeled second of a spinning process: minutes under the
     * sanitizers */
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, a_woken_task_of_better_priority_preempts_a_cpu_hog);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(sched_suite());
}
