/*
 * The debugger's hold on the machine (emu/cpu/debug.c), in this process, on
 * the guest kernel: where breakpoints stop it, what the debugger reads
 * there, and that the cycle model counts exactly as with no debugger.
 * Steps, watchpoints and memory: test_debug_steps, _watch, _mem.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "debug_rig.h"

static void count_calls(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
    (void)uc;
    (void)addr;
    (void)size;
    ++*(int *)user;
}

/* ---- breakpoints ---- */

START_TEST(breakpoint_at_sysenter_entry_is_on_the_task_kernel_stack)
{
    struct counts ref;
    reference(&ref, "pentium4", "one_call", "getpid", NULL);
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, ksym("sysenter_entry"), false), 0);
    /* getpid, then exit: two calls, both through sysenter */
    for (int call = 0; call < 2; call++) {
        stop_at(&d, DEBUG_BREAK, ksym("sysenter_entry"));
        ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __KERNEL_CS);
        ck_assert_uint_eq(reg(g, UC_X86_REG_SS), __KERNEL_DS);
        /* the trampoline has loaded the TSS's esp0 over SYSENTER_ESP */
        ck_assert_uint_eq(reg(g, UC_X86_REG_ESP), tss_esp0(g));
        ck_assert_uint_eq(reg(g, UC_X86_REG_EAX), call == 0 ? SYS_getpid : SYS_exit_group);
    }
    assert_counts_as(&ref, g, run_out(&d));
    guest_free(g);
}
END_TEST

START_TEST(breakpoint_at_system_call_sees_the_cpu_trap_frame)
{
    struct counts ref;
    reference(&ref, "pentium4,-sep", "one_call", "getpid", NULL);
    struct guest *g = guest_new("pentium4,-sep", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, ksym("system_call"), true), 0);
    stop_at(&d, DEBUG_BREAK, ksym("system_call"));
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __KERNEL_CS);
    ck_assert_uint_eq(reg(g, UC_X86_REG_SS), __KERNEL_DS);
    uint32_t esp = reg(g, UC_X86_REG_ESP);
    ck_assert_uint_eq(esp, tss_esp0(g) - 20);            /* EIP CS EFLAGS ESP SS */
    ck_assert_uint_eq(word(&d, esp), VSYSCALL_BASE + 2);  /* after int $0x80 */
    ck_assert_uint_eq(word(&d, esp + 4), __USER_CS);
    ck_assert_uint_eq(word(&d, esp + 16), __USER_DS);
    assert_counts_as(&ref, g, run_out(&d));
    guest_free(g);
}
END_TEST

/* The resume at a breakpoint runs its instruction; the next stop is the
 * next time it runs. */
START_TEST(resuming_at_a_breakpoint_runs_its_instruction_first)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, VSYSCALL_BASE, false), 0);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
    uint64_t insns = g->m.insns;
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
    ck_assert_uint_gt(g->m.insns, insns + 50);   /* a whole system call later */
    ck_assert_uint_eq(reg(g, UC_X86_REG_EAX), SYS_exit_group);
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

/* A breakpoint set from ring 3 in kernel code that has run (and been
 * translated) before, in the middle of a block: docs/unicorn.md, quirk 15. */
START_TEST(breakpoints_in_kernel_code_set_from_ring3_hit)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, VSYSCALL_BASE, false), 0);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);   /* the exit call: getpid's path has run */
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __USER_CS);
    uint32_t cr2 = reg(g, UC_X86_REG_CR2);
    /* the trampoline's jmp, after its movl in the same block */
    uint32_t jmp = msr(g, MSR_IA32_SYSENTER_EIP) + 7;
    uint8_t op = 0;
    ck_assert_uint_eq(debug_read_mem(&d, jmp, &op, 1), 1);
    ck_assert_uint_eq(op, 0xe9);
    ck_assert_int_eq(debug_insert_break(&d, jmp, false), 0);
    stop_at(&d, DEBUG_BREAK, jmp);
    ck_assert_uint_eq(reg(g, UC_X86_REG_ESP), tss_esp0(g));   /* the movl ran */
    ck_assert_uint_eq(reg(g, UC_X86_REG_CR2), cr2);
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

/* docs/unicorn.md, quirk 15: why the debugger drops every translation. */
START_TEST(retranslating_kernel_code_from_ring3_misses_it)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, VSYSCALL_BASE, false), 0);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
    debug_clear(&d);
    /* CR2 holds the last demand-paging fault: the program's own page */
    uint32_t cr2 = reg(g, UC_X86_REG_CR2);
    uint32_t jmp = msr(g, MSR_IA32_SYSENTER_EIP) + 7;
    ck_assert_uint_ne(cr2, jmp);
    /* a hook on code translated before it, and only that code dropped */
    uc_hook h;
    static int calls;
    ck_assert_int_eq(engine_hook_code_range(g->m.uc, jmp, jmp, count_calls, &calls, &h), 0);
    engine_retranslate(g->m.uc, jmp, 1);
    ck_assert_uint_eq(reg(g, UC_X86_REG_CR2), jmp);   /* as if it had faulted */
    ck_assert_int_eq(run_out(&d), 0);
    ck_assert_int_eq(calls, 0);                       /* the old code ran */
    guest_free(g);
}
END_TEST

/* rdtsc runs in a code hook of the machine's own (quirk 8). A breakpoint
 * hook added before it or after it, the machine stops before rdtsc, and a
 * step runs exactly rdtsc, which reads the cycles counted so far. */
static void rdtsc_step(struct debug *d, struct guest *g, uint32_t at)
{
    stop_at(d, DEBUG_BREAK, at);
    uint64_t before = g->m.cycles;
    step(d);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), at + 2);
    uint64_t tsc = (uint64_t)reg(g, UC_X86_REG_EDX) << 32 | reg(g, UC_X86_REG_EAX);
    ck_assert_uint_eq(tsc, before / 100);
}

/* The kernel's rdtsc: the first instruction of the TSC timer's
 * get_offset, which do_gettimeofday reaches by an indirect call. */
static uint32_t rdtsc_insn(struct debug *d)
{
    uint32_t f = ksym("get_offset_tsc");
    uint8_t code[32];
    ck_assert_uint_eq(debug_read_mem(d, f, code, sizeof code), sizeof code);
    for (uint32_t i = 0; i + 1 < sizeof code; i++)
        if (code[i] == 0x0f && code[i + 1] == 0x31)
            return f + i;
    ck_abort_msg("no rdtsc in get_offset_tsc");
    return 0;
}

START_TEST(breakpoint_on_rdtsc_stops_before_it)
{
    struct counts ref;
    reference(&ref, "pentium4", "syscall_loop", "gettimeofday", "10");
    for (int later = 0; later < 2; later++) {
        struct guest *g = guest_new("pentium4", "syscall_loop", "gettimeofday", "10", NULL);
        struct debug d;
        debug_attach(&d, &g->m);
        if (later) {
            /* the second call: the machine has its code hook on the rdtsc */
            ck_assert_int_eq(debug_insert_break(&d, VSYSCALL_BASE, false), 0);
            stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
            stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
            debug_clear(&d);
        }
        uint32_t at = rdtsc_insn(&d);
        ck_assert_int_eq(debug_insert_break(&d, at, false), 0);
        rdtsc_step(&d, g, at);
        assert_counts_as(&ref, g, run_out(&d));
        guest_free(g);
    }
}
END_TEST

/* The rep stosb in the kernel's memset. */
static uint32_t memset_rep(struct debug *d)
{
    uint32_t memset_fn = ksym("memset");
    uint8_t code[32];
    ck_assert_uint_eq(debug_read_mem(d, memset_fn, code, sizeof code), sizeof code);
    for (uint32_t i = 0; i + 1 < sizeof code; i++)
        if (code[i] == 0xf3 && code[i + 1] == 0xaa)
            return memset_fn + i;
    ck_abort_msg("no rep stosb in memset");
    return 0;
}

/* A rep instruction: a step is one iteration (as the CPU's TF has it), a
 * breakpoint stops once per execution, not per iteration. */
START_TEST(rep_steps_one_iteration_and_breaks_once)
{
    struct counts ref;
    reference(&ref, "pentium4", "one_call", "getpid", NULL);
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    uint32_t at = memset_rep(&d);
    ck_assert_int_eq(debug_insert_break(&d, at, false), 0);
    uint32_t ecx;
    do {
        stop_at(&d, DEBUG_BREAK, at);
        ecx = reg(g, UC_X86_REG_ECX);
    } while (ecx < 3);
    uint32_t edi = reg(g, UC_X86_REG_EDI);
    step(&d);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), at);
    ck_assert_uint_eq(reg(g, UC_X86_REG_ECX), ecx - 1);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EDI), edi + 1);
    /* the next stop is another memset, not the next iteration */
    stop_at(&d, DEBUG_BREAK, at);
    ck_assert(reg(g, UC_X86_REG_ECX) != ecx - 2 || reg(g, UC_X86_REG_EDI) != edi + 2);
    debug_clear(&d);
    assert_counts_as(&ref, g, run_out(&d));
    guest_free(g);
}
END_TEST

/* ---- the cycle model does not see the debugger ---- */

static const char *const step_cpus[] = { "pentium4", "pentium4,-sep" };

START_TEST(stepping_through_system_calls_counts_as_without)
{
    struct counts ref;
    reference(&ref, step_cpus[_i], "one_call", "gettimeofday", NULL);
    struct guest *g = guest_new(step_cpus[_i], "one_call", "gettimeofday", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    to_main(&d, "one_call");
    /* through gettimeofday (the kernel's rdtsc), into exit, to the end */
    struct debug_stop s;
    int status, steps = 0;
    while ((status = debug_run(&d, true, &s)) == MACHINE_PAUSED)
        steps++;
    ck_assert_int_gt(steps, 200);
    assert_counts_as(&ref, g, status);
    guest_free(g);
}
END_TEST

START_TEST(a_breakpoint_on_every_kernel_entry_instruction_counts_as_without)
{
    struct counts ref;
    reference(&ref, step_cpus[_i], "syscall_loop", "gettimeofday", "20");
    struct guest *g = guest_new(step_cpus[_i], "syscall_loop", "gettimeofday", "20", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    /* every instruction from the kernel entry to the dispatch call,
     * splitting the blocks the system-call accounting reads */
    uint32_t from = ksym(_i == 0 ? "sysenter_entry" : "system_call");
    uint32_t to = ksym(_i == 0 ? "sysenter_call" : "syscall_call");
    for (uint32_t a = from; a <= to; a++)
        ck_assert_int_eq(debug_insert_break(&d, a, a & 1), 0);
    int stops = 0;
    struct debug_stop s;
    int status;
    while ((status = debug_run(&d, false, &s)) == MACHINE_PAUSED)
        stops++;
    ck_assert_int_gt(stops, 10);
    assert_counts_as(&ref, g, status);
    guest_free(g);
}
END_TEST

/*
 * Stepping into and through memset: the stop before its rep stosb cuts the
 * block the rep ends, and each step after is one run of the rep. Each run
 * is charged as without a debugger (machine.h, charge_rep): the start-up
 * on the first only, one element on each that finds a count, nothing on
 * the engine's last run, which finds it at zero.
 */
START_TEST(stepping_through_a_rep_op_charges_its_start_up_once)
{
    struct counts ref;
    reference(&ref, "pentium4", "one_call", "getpid", NULL);
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct machine *m = &g->m;
    struct debug d;
    debug_attach(&d, m);
    uint32_t memset_fn = ksym("memset"), rep = memset_rep(&d), n;
    ck_assert_int_eq(debug_insert_break(&d, memset_fn, false), 0);
    do {
        stop_at(&d, DEBUG_BREAK, memset_fn);
        n = word(&d, reg(g, UC_X86_REG_ESP) + 12);   /* memset's length */
    } while (n < 3 || n > 512);
    debug_clear(&d);
    uint32_t ret = word(&d, reg(g, UC_X86_REG_ESP));
    uint64_t starts = m->class_count[CLASS_REP_STOS_START];
    uint64_t elements = m->class_count[CLASS_REP_STOS];
    uint32_t runs = 0;
    while (reg(g, UC_X86_REG_EIP) != ret) {
        uint32_t eip = reg(g, UC_X86_REG_EIP), ecx = reg(g, UC_X86_REG_ECX);
        uint64_t before = m->cycles;
        step(&d);
        if (eip != rep)
            continue;
        uint64_t want = (runs == 0 ? m->cpu.cost[CLASS_REP_STOS_START] : 0) +
                        (ecx ? m->cpu.cost[CLASS_REP_STOS] : 0);
        ck_assert_uint_eq(m->cycles - before, want);
        ck_assert_uint_eq(reg(g, UC_X86_REG_ECX), ecx ? ecx - 1 : 0);
        runs++;
    }
    ck_assert_uint_eq(runs, n + 1);
    ck_assert_uint_eq(m->class_count[CLASS_REP_STOS_START] - starts, 1);
    ck_assert_uint_eq(m->class_count[CLASS_REP_STOS] - elements, n);
    assert_counts_as(&ref, g, run_out(&d));
    guest_free(g);
}
END_TEST

Suite *debug_suite(void)
{
    Suite *s = suite_create("debug");
    TCase *tc_breakpoints = tcase_create("breakpoints");
    tcase_set_timeout(tc_breakpoints, 120);
    tcase_add_test(tc_breakpoints, breakpoint_at_sysenter_entry_is_on_the_task_kernel_stack);
    tcase_add_test(tc_breakpoints, breakpoint_at_system_call_sees_the_cpu_trap_frame);
    tcase_add_test(tc_breakpoints, resuming_at_a_breakpoint_runs_its_instruction_first);
    tcase_add_test(tc_breakpoints, breakpoints_in_kernel_code_set_from_ring3_hit);
    tcase_add_test(tc_breakpoints, retranslating_kernel_code_from_ring3_misses_it);
    tcase_add_test(tc_breakpoints, breakpoint_on_rdtsc_stops_before_it);
    tcase_add_test(tc_breakpoints, rep_steps_one_iteration_and_breaks_once);
    suite_add_tcase(s, tc_breakpoints);
    TCase *tc_cycles = tcase_create("cycles");
    tcase_set_timeout(tc_cycles, 120);
    tcase_add_loop_test(tc_cycles, stepping_through_system_calls_counts_as_without, 0, 2);
    tcase_add_loop_test(tc_cycles, a_breakpoint_on_every_kernel_entry_instruction_counts_as_without, 0, 2);
    tcase_add_test(tc_cycles, stepping_through_a_rep_op_charges_its_start_up_once);
    suite_add_tcase(s, tc_cycles);
    return s;
}

int main(void)
{
    return run_suite(debug_suite());
}
