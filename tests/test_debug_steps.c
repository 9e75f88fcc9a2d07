/*
 * Single steps (emu/cpu/debug.c) across every way into the kernel and out:
 * sysenter, sysexit, int $0x80, iret, faults and interrupts.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "debug_rig.h"

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
    ck_assert_uint_eq(reg(g, UC_X86_REG_EAX), 2);   /* getpid's result: the boot program */
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
Suite *debug_steps_suite(void)
{
    Suite *s = suite_create("debug_steps");
    TCase *tc_steps = tcase_create("steps");
    tcase_set_timeout(tc_steps, 120);
    tcase_add_test(tc_steps, step_from_sysenter_lands_on_sysenter_eip);
    tcase_add_test(tc_steps, step_from_sysexit_lands_on_sysenter_return);
    tcase_add_test(tc_steps, step_from_int80_lands_on_system_call_and_iret_returns_to_the_stub);
    tcase_add_loop_test(tc_steps, step_over_a_fault_lands_on_its_handler, 0, sizeof faults / sizeof faults[0]);
    suite_add_tcase(s, tc_steps);
    return s;
}

int main(void)
{
    return run_suite(debug_steps_suite());
}
