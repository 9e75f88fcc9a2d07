/*
 * System-call entry and exit as programs see them: check_syscalls checks
 * arguments, results and registers through int $0x80 and through the
 * vsyscall page on every model; and the kernel's slow exits, pending work
 * after sysenter and the fixup for a segment register that cannot be
 * restored.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const char *const models[] = { "pentium4", "pentium3", "pentium4,-sep", "pentiumpro" };

/* ------------------------------------------------------- check_syscalls */

static const char *const all_models[] = {
    "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep", "pentiumpro",
};
#define NMODELS 5

/* loop index: model * 2 + (0 int80, 1 vsyscall) */
START_TEST(check_syscalls_passes)
{
    const char *cpu = all_models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("check_syscalls"), mode, NULL);
    char *fail = line_with(r.out, "FAIL");
    ck_assert_msg(!fail, "check_syscalls %s on %s: %s", mode, cpu, fail);
    ck_assert_msg(count_lines_containing(r.out, "ok ") >= 30,
                  "check_syscalls %s on %s: only %d ok lines; exit %d, stderr: %s", mode, cpu,
                  count_lines_containing(r.out, "ok "), r.status, r.err);
    ck_assert_msg(r.status == 0, "check_syscalls %s on %s: exit %d, stderr: %s", mode, cpu,
                  r.status, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(check_syscalls_output_is_the_same_everywhere)
{
    struct emu_result ref;
    emu(&ref, "run", "--cpu", all_models[0], program("check_syscalls"), "int80", NULL);
    ck_assert_msg(count_lines_containing(ref.out, "ok ") >= 30, "reference run: %s", ref.out);
    for (int i = 0; i < 2 * NMODELS; i++) {
        const char *cpu = all_models[i / 2], *mode = i % 2 ? "vsyscall" : "int80";
        struct emu_result r;
        emu(&r, "run", "--cpu", cpu, program("check_syscalls"), mode, NULL);
        ck_assert_msg(!strcmp(r.out, ref.out),
                      "check_syscalls %s on %s differs from int80 on pentium4:\n%s\n---\n%s",
                      mode, cpu, r.out, ref.out);
        emu_result_free(&r);
    }
    emu_result_free(&ref);
}
END_TEST

/* The handlers take the saved user registers as their arguments: one that
 * wrote to an argument (or a compiler tail call that reused the argument
 * slots) would hand the caller a changed register. guest/programs/regs.c
 * makes 93 calls with every register set and checks them afterwards.
 * loop index: model * 2 + (0 int80, 1 vsyscall) */
START_TEST(no_call_changes_a_register)
{
    const char *cpu = all_models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("regs"), mode, NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "93 calls, 0 changed a register"),
                  "regs %s on %s: exit %d\n%s\nstderr: %s", mode, cpu, r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* ------------------------------------------------------------ slow exits */

START_TEST(pending_work_returns_through_iret)
{
    const char *args[] = { "run", "--cpu", models[_i], "--strace",
                           program("entry_paths"), "signal", NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "kill=0 caught=1\n");
    bool sep = _i < 2;
    /* the signal is pending at kill's exit: iret even after sysenter;
     * getpid, before it: fast */
    ck_assert_ptr_nonnull(strstr(r.err, sep ? "[sysenter/iret]    kill"
                                            : "[int80/iret]       kill"));
    ck_assert_ptr_nonnull(strstr(r.err, sep ? "[sysenter/sysexit] getpid"
                                            : "[int80/iret]       getpid"));
    emu_result_free(&r);
}
END_TEST

/* 2.5.53's sched_yield puts the task on the expired array and schedules
 * inside the call: nothing is pending at its exit, which is the fast one. */
START_TEST(sched_yield_schedules_inside_the_call)
{
    const char *args[] = { "run", "--cpu", models[_i], "--strace",
                           program("entry_paths"), "yield", NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "sched_yield=0 getpid=2\n");
    bool sep = _i < 2;
    ck_assert_ptr_nonnull(strstr(r.err, sep ? "[sysenter/sysexit] sched_yield"
                                            : "[int80/iret]       sched_yield"));
    emu_result_free(&r);
}
END_TEST

START_TEST(unrestorable_ds_is_fixed_up_to_null)
{
    const char *paths[] = { "vsyscall", "int80" };
    for (int p = 0; p < 2; p++) {
        char tracefile[] = "/tmp/sysemu-entry-XXXXXX";
        close(mkstemp(tracefile));
        const char *args[] = { "run", "--cpu", models[_i], "--trace", tracefile,
                               program("entry_paths"), "segfixup", paths[p], NULL };
        struct emu_result r;
        run_emu(&r, args);
        ck_assert_msg(r.status == 0, "%s %s: %s", models[_i], paths[p], r.err);
        ck_assert_ptr_nonnull(strstr(r.out, "ds after return = 0\n"));
        char *trace = read_file(tracefile);
        unlink(tracefile);
        /* the second set_thread_area returned through the fixup */
        ck_assert_int_eq(count_lines_containing(trace, "fixed up in the kernel"), 1);
        free(trace);
        emu_result_free(&r);
    }
}
END_TEST

Suite *entry_suite(void)
{
    Suite *s = suite_create("entry");
    TCase *calls = tcase_create("syscalls");
    tcase_set_timeout(calls, 120);
    tcase_add_loop_test(calls, check_syscalls_passes, 0, 2 * NMODELS);
    tcase_add_test(calls, check_syscalls_output_is_the_same_everywhere);
    tcase_add_loop_test(calls, no_call_changes_a_register, 0, 2 * NMODELS);
    suite_add_tcase(s, calls);

    TCase *tc = tcase_create("slow paths");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, sched_yield_schedules_inside_the_call, 0, 4);
    tcase_add_loop_test(tc, pending_work_returns_through_iret, 0, 4);
    tcase_add_loop_test(tc, unrestorable_ds_is_fixed_up_to_null, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(entry_suite());
}
