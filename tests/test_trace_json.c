/*
 * emu/observe/trace_json.c on its own: the events it writes for a boot, a process,
 * a system call with its three phases, a trap, an instruction and an
 * instant, read back by Debian's jq. Times are centicycles on a 1000 MHz
 * clock, so one cycle is one nanosecond of the file's microseconds.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chrome_trace.h"
#include "support.h"
#include "../emu/machine/names.h"
#include "../emu/observe/trace_json.h"
#include "syscall_nr.h"

#define PID 2
#define PROGRAM "a \"quoted\"\tname\\"

static const char *path;

/* A sysenter getpid: entry 100 cycles from 1000, body 20.5, exit 30.25. */
static const struct syscall_record call = {
    .pid = PID, .nr = SYS_getpid, .result = 2, .path = PATH_SYSENTER, .ret = RET_SYSEXIT,
    .user_eip = 0xffffe400,
    .start = 100000, .body_start = 110000, .exit_start = 112050, .end = 115075,
    .own_entry = 10000, .own_body = 2050, .own_exit = 3025,
};
/* A page fault from 2000 cycles to 2400, interrupted for 50 of them. */
static const struct syscall_record fault = {
    .pid = PID, .nr = X86_VEC_PF, .path = PATH_TRAP, .user_eip = 0x08048010,
    .start = 200000, .end = 240000, .own_entry = 35000, .ext_entry = 5000,
};

static void write_trace(void)
{
    struct trace_out out;
    path = scratch("trace_json");
    ck_assert_int_eq(trace_out_open(&out, path), 0);
    struct json_trace j = { &out, 1000, true };
    trace_json_begin(&j, PROGRAM);
    trace_json_boot(&j, 50000);
    trace_json_name(&j, PID, "sh");
    trace_json_slice(&j, PID, "user", "user", 60000, 100000, "{\"n\":1}");
    trace_json_record(&j, &call, "main\"x");
    trace_json_insn(&j, PID, 0xc0100000, true, "sysexit", "sysenter_\001exit", 114000, 115075);
    trace_json_record(&j, &fault, "");
    trace_json_instant(&j, PID, "exit", 250000, NULL);
    trace_json_end(&j);
    ck_assert_int_eq(trace_out_close(&out), 0);
}

static void remove_trace(void)
{
    unlink(path);
}

static void check_jq(const char *filter, const char *want)
{
    char *got = jq(filter, path);
    size_t n = strlen(got);
    if (n && got[n - 1] == '\n')
        got[n - 1] = 0;
    ck_assert_msg(!strcmp(got, want), "%s: got \"%s\", want \"%s\"", filter, got, want);
    free(got);
}

START_TEST(every_event_parses_and_the_slices_nest)
{
    write_trace();
    struct event *ev;
    int n = chrome_events(path, &ev);
    /* 2 boot names, boot, 2 process names, user, call + 3 phases, insn,
     * fault, exit */
    ck_assert_int_eq(n, 13);
    ck_assert_int_eq(chrome_check_nesting(ev, n, path), 8);
    free(ev);
    check_jq(".otherData.program", PROGRAM);
    check_jq("[.traceEvents[] | select(.ph == \"M\" and .pid == 2) | .args.name] | join(\",\")",
             "sh,sh");
}
END_TEST

START_TEST(times_are_the_modeled_clocks_microseconds)
{
    write_trace();
    check_jq(".traceEvents[] | select(.name == \"boot\") | \"\\(.ts) \\(.dur) \\(.pid)\"",
             "0 0.5 0");
    /* 1150.75 cycles end rounds to 1151 ns */
    check_jq(".traceEvents[] | select(.name == \"getpid\") | \"\\(.ts) \\(.dur)\"", "1 0.151");
    check_jq("[.traceEvents[] | select(.cat == \"phase\") | \"\\(.name) \\(.ts) \\(.dur)\"]"
             " | join(\",\")", "entry 1 0.1,body 1.1 0.021,exit 1.121 0.03");
    check_jq(".traceEvents[] | select(.ph == \"i\") | \"\\(.ts) \\(.s)\"", "2.5 t");
}
END_TEST

START_TEST(a_record_carries_its_own_cycles_and_where_it_came_from)
{
    write_trace();
    check_jq(".traceEvents[] | select(.name == \"getpid\") | .args | "
             "\"\\(.nr) \\(.path) \\(.return) \\(.result) \\(.round_trip_cycles) \\(.from) \\(.from_addr)\"",
             "20 sysenter sysexit 2 150.75 main\"x ffffe400");
    /* a trap is one slice, named by its vector, with no phases */
    check_jq("[.traceEvents[] | select(.cat == \"trap\") | \"\\(.name) \\(.args.round_trip_cycles) "
             "\\(.args.interrupt_cycles)\"] | join(\",\")",
             "#PF page fault 350 50");
    check_jq("[.traceEvents[] | select(.cat == \"phase\" and .ts >= 2)] | length", "0");
}
END_TEST

START_TEST(an_instruction_is_named_and_escaped)
{
    write_trace();
    check_jq(".traceEvents[] | select(.cat == \"insn\") | "
             "\"\\(.name) \\(.args.addr) \\(.args.mode) \\(.args.cycles)\"",
             "sysexit c0100000 kernel 10.75");
    check_jq(".traceEvents[] | select(.cat == \"insn\") | .args.symbol == \"sysenter_\\u0001exit\"",
             "true");
}
END_TEST

Suite *trace_json_suite(void)
{
    Suite *s = suite_create("trace_json");
    TCase *tc = tcase_create("events");
    tcase_add_checked_fixture(tc, NULL, remove_trace);
    tcase_add_test(tc, every_event_parses_and_the_slices_nest);
    tcase_add_test(tc, times_are_the_modeled_clocks_microseconds);
    tcase_add_test(tc, a_record_carries_its_own_cycles_and_where_it_came_from);
    tcase_add_test(tc, an_instruction_is_named_and_escaped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(trace_json_suite());
}
