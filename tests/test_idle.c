/*
 * Runs that wait (issue 26, items 8 and 9): a guest whose processes all
 * wait for ever ends as a run that cannot go on, 124, with one line naming
 * who waits on what; natively the same binary is still waiting when
 * timeout(1) ends it (also 124). A long sleep costs modeled time, not
 * host time.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "support.h"

/* ------------------------------------------------ item 8: deadlocks */

static const struct stuck_case {
    const char *mode;
    const char *waits;     /* the report after "deadlock: " */
} stuck[] = {
    { "pipes", "pid 2 (%s) waits for read from an empty pipe; "
               "pid 3 (%s) waits for read from an empty pipe" },
    { "poll", "pid 2 (%s) waits for a descriptor to be ready (poll)" },
    { "pause", "pid 2 (%s) waits for a signal (pause)" },
};
#define NSTUCK (int)(sizeof stuck / sizeof stuck[0])

/* The same binary natively (or under qemu-i386), ended by timeout(1)
 * after a second: still waiting, it printed its one line. */
static void native_still_waits(const char *prog, const char *mode)
{
    const char *argv[] = { "timeout", "1", "/usr/bin/qemu-i386", prog, mode, NULL };
    struct emu_result n;
    if (native_is_host())
        argv[2] = prog, argv[3] = mode, argv[4] = NULL;
    run_command(&n, argv);
    ck_assert_msg(n.status == 124, "%s %s natively (%s): exit %d, %s", prog, mode,
                  native_runner(), n.status, n.err);
    char want[64];
    snprintf(want, sizeof want, "stuck: %s\n", mode);
    ck_assert_str_eq(n.out, want);
    emu_result_free(&n);
}

/* loop index: (case * 2 + libc) * 2 + (--smp 2) */
START_TEST(every_process_waiting_for_ever_is_124_with_who_waits_on_what)
{
    const struct stuck_case *c = &stuck[_i / 4];
    const char *name = (_i / 2) % 2 ? "stuck-musl" : "stuck-glibc";
    const char *prog = fixture(name);
    struct emu_result r;
    emu(&r, "run", "--smp", _i % 2 ? "2" : "1", prog, c->mode, NULL);
    char waits[256], want[320];
    snprintf(waits, sizeof waits, c->waits, name, name);
    snprintf(want, sizeof want, "emu: %s: deadlock: %s\n", prog, waits);
    ck_assert_msg(r.status == 124, "%s %s: exit %d, %s", name, c->mode, r.status, r.err);
    ck_assert_str_eq(r.err, want);
    char out[64];
    snprintf(out, sizeof out, "stuck: %s\n", c->mode);
    ck_assert_str_eq(r.out, out);
    emu_result_free(&r);
    if (_i % 4 == 0)
        native_still_waits(prog, c->mode);
}
END_TEST

/* ------------------------------------------------ item 9: long sleeps */

/* emu with argv, stdout into out: its status, and the host CPU seconds it
 * used (wait4's rusage: not the wall clock of a shared machine). */
static int run_timed(const char *const *argv, const char *out, double *cpu_s)
{
    struct rusage ru;
    int status = run_emu_rusage(argv, out, &ru);
    *cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
             (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    return status;
}

/*
 * nanosleep of 1000 s. Every 1 ms tick of it ran in the engine before
 * (the tick and the idle loop, about 250 instructions): 1.2 seconds of
 * host CPU per 100 modeled seconds, 14 s for this one. Tickless idle
 * drops the ticks that find nothing to do: well under a second, however
 * long the sleep; 5 s leaves room for a slow host. The clock says the
 * program slept 1000 s, up to the tick that wakes it and its way back
 * (1 ms).
 */
START_TEST(a_1000_second_sleep_takes_modeled_time_not_host_time)
{
    const char *prog = fixture(_i ? "sleeper-musl" : "sleeper-glibc");
    const char *out = scratch("sleep-out");
    const char *argv[] = { EMU_PATH, "run", prog, "1000", NULL };
    double cpu_s;
    int status = run_timed(argv, out, &cpu_s);
    char *text = read_file(out);
    long long us = 0;
    unsigned long long cycles = 0;
    ck_assert_msg(status == 0, "%s: exit %d: %s", prog, status, text);
    ck_assert_msg(sscanf(text, "slept %lld us, %llu cycles", &us, &cycles) == 2, "%s", text);
    ck_assert_msg(us >= 1000000000LL && us < 1000001000LL, "%s slept %lld us", prog, us);
    ck_assert_msg(cycles >= 1000ULL * 2400000000ULL, "%s: %llu cycles", prog, cycles);
    ck_assert_msg(cpu_s < 5.0, "%s: 1000 modeled seconds took %.2f s of host CPU", prog, cpu_s);
    free(text);
    unlink(out);
}
END_TEST

/* A sleep past what the machine's clock counts (2^64 centicycles: 2.4
 * years at 2.4 GHz): nothing can happen before it, so the run cannot go
 * on, as with an exhausted budget; before, its ticks ran until the budget
 * was spent, 22 minutes of host CPU. */
START_TEST(a_sleep_past_the_modeled_clock_is_124_at_once)
{
    const char *prog = fixture("sleeper-glibc");
    const char *out = scratch("sleep-out");
    const char *argv[] = { EMU_PATH, "run", prog, "1000000000", NULL };
    double cpu_s;
    int status = run_timed(argv, out, &cpu_s);
    ck_assert_int_eq(status, 124);
    ck_assert_msg(cpu_s < 5.0, "%.2f s of host CPU", cpu_s);
    unlink(out);
    struct emu_result r;
    emu(&r, "run", prog, "1000000000", NULL);
    ck_assert_msg(strstr(r.err, ": every process waits for a timer past 38430716 s of modeled "
                                "time, more than the machine counts\n"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

Suite *idle_suite(void)
{
    Suite *s = suite_create("idle");
    TCase *tc = tcase_create("deadlock");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_process_waiting_for_ever_is_124_with_who_waits_on_what, 0,
                        NSTUCK * 4);
    suite_add_tcase(s, tc);
    TCase *sleep = tcase_create("sleep");
    tcase_set_timeout(sleep, 120);
    tcase_add_loop_test(sleep, a_1000_second_sleep_takes_modeled_time_not_host_time, 0, 2);
    tcase_add_test(sleep, a_sleep_past_the_modeled_clock_is_124_at_once);
    suite_add_tcase(s, sleep);
    return s;
}

int main(void)
{
    return run_suite(idle_suite());
}
