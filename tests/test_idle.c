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
#include "support.h"

/* ------------------------------------------------ item 8: deadlocks */

static const struct stuck_case {
    const char *mode;
    const char *waits;     /* the report after "deadlock: " */
} stuck[] = {
    { "pipes", "pid 1 (%s) waits for read from an empty pipe; "
               "pid 2 (%s) waits for read from an empty pipe" },
    { "poll", "pid 1 (%s) waits for a descriptor to be ready (poll)" },
    { "pause", "pid 1 (%s) waits for a signal (pause)" },
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

Suite *idle_suite(void)
{
    Suite *s = suite_create("idle");
    TCase *tc = tcase_create("deadlock");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_process_waiting_for_ever_is_124_with_who_waits_on_what, 0,
                        NSTUCK * 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(idle_suite());
}
