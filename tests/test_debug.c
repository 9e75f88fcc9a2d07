/*
 * The debugger's hold on the machine (emu/debug.c), in this process, on
 * the guest kernel: where breakpoints, steps, watchpoints, the poll and
 * caught faults stop the machine, what the debugger reads there, and that
 * the cycle model counts exactly as it does with no debugger at all.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/debug.h"
#include "../emu/ksyms.h"
#include "syscall_nr.h"

static uint32_t ksym(const char *name)
{
    uint32_t a = ksym_find(kernel_image_start, (size_t)(kernel_image_end - kernel_image_start),
                           name);
    ck_assert_msg(a, "the kernel has no %s", name);
    return a;
}

/* A symbol of a guest program. */
static uint32_t psym(const char *prog, const char *name)
{
    FILE *f = fopen(program(prog), "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t image[1 << 20];
    size_t n = fread(image, 1, sizeof image, f);
    fclose(f);
    uint32_t a = ksym_find(image, n, name);
    ck_assert_msg(a, "%s has no %s", prog, name);
    return a;
}

static uint32_t reg(struct guest *g, int r)
{
    return reg_read(&g->m, r);
}

static uint32_t msr(struct guest *g, uint32_t index)
{
    return (uint32_t)engine_read_msr(g->m.uc, index);
}

/* A 32-bit word of guest memory as the debugger reads it. */
static uint32_t word(struct debug *d, uint32_t addr)
{
    uint32_t v = 0;
    ck_assert_uint_eq(debug_read_mem(d, addr, (uint8_t *)&v, 4), 4);
    return v;
}

static uint32_t tss_esp0(struct guest *g)
{
    uc_x86_mmr tr = { 0 };
    uc_reg_read(g->m.uc, UC_X86_REG_TR, &tr);
    uint32_t esp0;
    memcpy(&esp0, guest_ptr(&g->m.mem, (uint32_t)tr.base + 4, 4), 4);
    return esp0;
}

/* ---- what a run without a debugger counts ---- */

struct counts {
    int status;
    uint64_t cycles, insns;
    struct syscall_tracker sys;
};

static void reference(struct counts *c, const char *cpu, const char *prog, const char *arg,
                      const char *arg2)
{
    struct guest *g = guest_new(cpu, prog, arg, arg2, NULL);
    c->status = guest_run(g);
    c->cycles = g->m.cycles;
    c->insns = g->m.insns;
    memcpy(&c->sys, &g->sys, sizeof c->sys);
    guest_free(g);
}

/* Everything the model counted, the system-call records included. */
static void assert_counts_as(const struct counts *c, struct guest *g, int status)
{
    ck_assert_int_eq(status, c->status);
    ck_assert_uint_eq(g->m.cycles, c->cycles);
    ck_assert_uint_eq(g->m.insns, c->insns);
    ck_assert_uint_eq(g->sys.seq, c->sys.seq);
    ck_assert_msg(!memcmp(&g->sys.cur, &c->sys.cur, sizeof c->sys.cur),
                  "the last system call's record differs");
    ck_assert_msg(!memcmp(g->sys.stats, c->sys.stats, sizeof c->sys.stats),
                  "the per-call cycle statistics differ");
    ck_assert_uint_eq(g->sys.vsyscall_cycles, c->sys.vsyscall_cycles);
    ck_assert_uint_eq(g->sys.returns_sysexit, c->sys.returns_sysexit);
    ck_assert_uint_eq(g->sys.returns_iret, c->sys.returns_iret);
}

/* Continue to the end, through every stop; the exit status. */
static int run_out(struct debug *d)
{
    struct debug_stop s;
    int status;
    while ((status = debug_run(d, false, &s)) == MACHINE_PAUSED)
        ;
    return status;
}

static void stop_at(struct debug *d, enum debug_why why, uint32_t eip)
{
    struct debug_stop s;
    ck_assert_int_eq(debug_run(d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, why);
    ck_assert_uint_eq(reg_read(d->m, UC_X86_REG_EIP), eip);
}

static void step(struct debug *d)
{
    struct debug_stop s;
    ck_assert_int_eq(debug_run(d, true, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_STEPPED);
}

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
    uint32_t jmp = msr(g, MSR_IA32_SYSENTER_EIP) + 6;
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
    ck_assert_uint_eq(reg(g, UC_X86_REG_CR2), 0);
    uint32_t jmp = msr(g, MSR_IA32_SYSENTER_EIP) + 6;
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

/* ---- single steps across every crossing ---- */

START_TEST(step_from_sysenter_lands_on_sysenter_eip)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, VSYSCALL_BASE + 5, false), 0);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE + 5);
    uint8_t insn[2];
    ck_assert_uint_eq(debug_read_mem(&d, VSYSCALL_BASE + 5, insn, 2), 2);
    ck_assert(insn[0] == 0x0f && insn[1] == 0x34);   /* sysenter */
    step(&d);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), msr(g, MSR_IA32_SYSENTER_EIP));
    ck_assert_uint_eq(reg(g, UC_X86_REG_ESP), msr(g, MSR_IA32_SYSENTER_ESP));
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __KERNEL_CS);
    ck_assert_uint_eq(reg(g, UC_X86_REG_SS), __KERNEL_DS);
    step(&d);   /* movl esp0, %esp */
    ck_assert_uint_eq(reg(g, UC_X86_REG_ESP), tss_esp0(g));
    step(&d);   /* jmp sysenter_entry */
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), ksym("sysenter_entry"));
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

START_TEST(step_from_sysexit_lands_on_sysenter_return)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, ksym("sysenter_exit"), false), 0);
    stop_at(&d, DEBUG_BREAK, ksym("sysenter_exit"));
    step(&d);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), SYSENTER_RETURN);
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __USER_CS);
    ck_assert_uint_eq(reg(g, UC_X86_REG_SS), __USER_DS);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EAX), 1);   /* getpid's result */
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

START_TEST(step_from_int80_lands_on_system_call_and_iret_returns_to_the_stub)
{
    struct guest *g = guest_new("pentium4,-sep", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    ck_assert_int_eq(debug_insert_break(&d, VSYSCALL_BASE, false), 0);
    stop_at(&d, DEBUG_BREAK, VSYSCALL_BASE);
    ck_assert_int_eq(debug_remove_break(&d, VSYSCALL_BASE, false), 0);
    step(&d);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), ksym("system_call"));
    ck_assert_uint_eq(reg(g, UC_X86_REG_ESP), tss_esp0(g) - 20);
    /* step through the kernel until ring 3: the last step is the iret */
    uint32_t from = 0;
    int steps = 0;
    while ((reg(g, UC_X86_REG_CS) & 3) == 0 && steps++ < 1000) {
        from = reg(g, UC_X86_REG_EIP);
        step(&d);
    }
    uint8_t op = 0;
    ck_assert_uint_eq(debug_read_mem(&d, from, &op, 1), 1);
    ck_assert_uint_eq(op, 0xcf);   /* iret */
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), VSYSCALL_BASE + 2);
    ck_assert_uint_eq(reg(g, UC_X86_REG_SS), __USER_DS);
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

/* A fault (or a software interrupt) the stepped instruction raises: the
 * step ends on the first instruction of its handler. */
static const struct {
    const char *cpu, *fault, *handler;
} faults[] = {
    { "pentium4", "null", "page_fault" },
    { "pentium4", "wrap_read", "page_fault" },           /* quirk 5 */
    { "pentium4", "ud2", "invalid_op" },                 /* quirk 7 */
    { "pentium4", "rdmsr", "general_protection" },       /* a code hook's */
    { "pentium4", "outb", "general_protection" },        /* quirk 6 */
    { "pentium4", "div0", "divide_error" },
    { "pentium4", "int3", "int3" },                      /* an interrupt */
    { "pentium4", "sysexit", "general_protection" },
};

START_TEST(step_over_a_fault_lands_on_its_handler)
{
    char label[64], arg[32];
    snprintf(label, sizeof label, "at_%s", faults[_i].fault);
    snprintf(arg, sizeof arg, "%s", faults[_i].fault);
    for (char *p = arg; *p; p++)
        if (*p == '_')
            *p = '-';
    if (!strcmp(arg, "outb"))
        snprintf(arg, sizeof arg, "out");
    struct guest *g = guest_new(faults[_i].cpu, "faults", arg, NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    uint32_t at = psym("faults", label);
    ck_assert_int_eq(debug_insert_break(&d, at, false), 0);
    stop_at(&d, DEBUG_BREAK, at);
    uint32_t esp0 = tss_esp0(g);
    step(&d);
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), ksym(faults[_i].handler));
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __KERNEL_CS);
    /* the CPU's frame: [error code,] EIP, CS, EFLAGS, ESP, SS */
    uint32_t esp = reg(g, UC_X86_REG_ESP);
    ck_assert(esp == esp0 - 20 || esp == esp0 - 24);
    ck_assert_uint_eq(word(&d, esp0 - 4), __USER_DS);
    ck_assert_uint_eq(word(&d, esp0 - 16), __USER_CS);
    uint32_t ret = word(&d, esp0 - 20);
    /* a fault returns to the instruction, a trap (int3) after it */
    ck_assert(ret == at || (!strcmp(faults[_i].fault, "int3") && ret == at + 1));
    run_out(&d);
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

/* The kernel's rdtsc in do_gettimeofday, in the middle of a block. */
static uint32_t rdtsc_insn(struct debug *d)
{
    uint32_t f = ksym("do_gettimeofday");
    uint8_t code[32];
    ck_assert_uint_eq(debug_read_mem(d, f, code, sizeof code), sizeof code);
    for (uint32_t i = 1; i + 1 < sizeof code; i++)
        if (code[i] == 0x0f && code[i + 1] == 0x31)
            return f + i;
    ck_abort_msg("no rdtsc in do_gettimeofday");
    return 0;
}

/* Stop at the program's main: its pages are loaded, its bss cleared. */
static void to_main(struct debug *d, const char *prog)
{
    uint32_t main_fn = psym(prog, "main");
    ck_assert_int_eq(debug_insert_break(d, main_fn, false), 0);
    stop_at(d, DEBUG_BREAK, main_fn);
    ck_assert_int_eq(debug_remove_break(d, main_fn, false), 0);
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

/* A rep instruction: a step is one iteration (as the CPU's TF has it), a
 * breakpoint stops once per execution, not per iteration. */
START_TEST(rep_steps_one_iteration_and_breaks_once)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    uint32_t memset_fn = ksym("memset");
    uint32_t at = 0;
    uint8_t code[32];
    ck_assert_uint_eq(debug_read_mem(&d, memset_fn, code, sizeof code), sizeof code);
    for (uint32_t i = 0; i + 1 < sizeof code && !at; i++)
        if (code[i] == 0xf3 && code[i + 1] == 0xaa)   /* rep stosb */
            at = memset_fn + i;
    ck_assert_uint_ne(at, 0);
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
    ck_assert_int_eq(run_out(&d), 0);
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
    ck_assert_uint_eq(reg(g, UC_X86_REG_EIP), ksym("page_fault"));
    ck_assert_uint_eq(reg(g, UC_X86_REG_CR2), 0);
    debug_catch_faults(&d, false);
    ck_assert_int_eq(run_out(&d), 128 + 11);
    guest_free(g);
}
END_TEST

/* ---- memory as the debugger sees it ---- */

START_TEST(memory_reads_follow_the_page_tables)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    uint8_t buf[8];
    /* before the first instruction paging is off: physical memory */
    ck_assert_uint_eq(debug_read_mem(&d, 0x00001000u, buf, 8), 8);
    uint32_t main_fn = psym("one_call", "main");
    to_main(&d, "one_call");
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __USER_CS);
    /* user code: readable, not writable (read-only pages) */
    uint8_t code[4];
    ck_assert_uint_eq(debug_read_mem(&d, main_fn, code, 4), 4);
    ck_assert(!memcmp(code, guest_ptr(&g->m.mem, main_fn, 4), 4));
    ck_assert_uint_eq(debug_write_mem(&d, main_fn, code, 4), 0);
    /* the user stack: writable; what is written reads back */
    uint32_t esp = reg(g, UC_X86_REG_ESP), v = 0x5a5aa5a5, old = word(&d, esp - 64);
    ck_assert_uint_eq(debug_write_mem(&d, esp - 64, (uint8_t *)&v, 4), 4);
    ck_assert_uint_eq(word(&d, esp - 64), v);
    ck_assert_uint_eq(debug_write_mem(&d, esp - 64, (uint8_t *)&old, 4), 4);
    /* never mapped: the NULL page, a hole in user space, beyond kernel RAM */
    ck_assert_uint_eq(debug_read_mem(&d, 0, buf, 1), 0);
    ck_assert_uint_eq(debug_read_mem(&d, 0x40000000u, buf, 1), 0);
    ck_assert_uint_eq(debug_read_mem(&d, KERNEL_BASE + KERNEL_RAM_SIZE, buf, 1), 0);
    /* a read stops at the first byte it cannot read */
    ck_assert_uint_eq(debug_read_mem(&d, KERNEL_BASE + KERNEL_RAM_SIZE - 3, buf, 8), 3);
    /* kernel memory reads as the kernel sees it, from ring 3 too */
    uint32_t entry = ksym("sysenter_entry");
    ck_assert_uint_eq(debug_read_mem(&d, entry, buf, 8), 8);
    ck_assert(!memcmp(buf, guest_ptr(&g->m.mem, entry, 8), 8));
    /* the vsyscall page: user-readable, writable by no one */
    ck_assert_uint_eq(debug_read_mem(&d, VSYSCALL_BASE, buf, 1), 1);
    ck_assert_uint_eq(buf[0], 0x51);   /* push %ecx */
    ck_assert_uint_eq(debug_write_mem(&d, VSYSCALL_BASE, buf, 1), 0);
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

Suite *debug_suite(void)
{
    Suite *s = suite_create("debug");
    TCase *tc = tcase_create("breakpoints");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, breakpoint_at_sysenter_entry_is_on_the_task_kernel_stack);
    tcase_add_test(tc, breakpoint_at_system_call_sees_the_cpu_trap_frame);
    tcase_add_test(tc, resuming_at_a_breakpoint_runs_its_instruction_first);
    tcase_add_test(tc, breakpoints_in_kernel_code_set_from_ring3_hit);
    tcase_add_test(tc, retranslating_kernel_code_from_ring3_misses_it);
    tcase_add_test(tc, breakpoint_on_rdtsc_stops_before_it);
    tcase_add_test(tc, rep_steps_one_iteration_and_breaks_once);
    suite_add_tcase(s, tc);

    tc = tcase_create("steps");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, step_from_sysenter_lands_on_sysenter_eip);
    tcase_add_test(tc, step_from_sysexit_lands_on_sysenter_return);
    tcase_add_test(tc, step_from_int80_lands_on_system_call_and_iret_returns_to_the_stub);
    tcase_add_loop_test(tc, step_over_a_fault_lands_on_its_handler, 0,
                        sizeof faults / sizeof faults[0]);
    suite_add_tcase(s, tc);

    tc = tcase_create("cycles");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, stepping_through_system_calls_counts_as_without, 0, 2);
    tcase_add_loop_test(tc, a_breakpoint_on_every_kernel_entry_instruction_counts_as_without,
                        0, 2);
    tcase_add_test(tc, the_poll_runs_every_few_thousand_instructions_and_can_stop);
    suite_add_tcase(s, tc);

    tc = tcase_create("watch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, watchpoint_stops_after_the_writing_instruction);
    tcase_add_test(tc, read_and_access_watchpoints_see_their_accesses);
    tcase_add_test(tc, watchpoint_sees_the_kernel_write_a_user_variable);
    tcase_add_test(tc, a_caught_fault_stops_at_its_handler);
    tcase_add_test(tc, memory_reads_follow_the_page_tables);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(debug_suite());
}
