/* IDT delivery by the machine model, on a bare machine (no guest kernel),
 * and the faults of a program under the guest kernel as emu reports them:
 * vector, error code, CR2, the signal, never a double fault. */
#include <check.h>
#include <stdlib.h>
#include "support.h"

static struct bare b;

static void setup(void) { bare_init(&b, "pentium4"); }
static void teardown(void) { bare_destroy(&b); }

/* The frame the CPU pushed for a ring 3 -> ring 0 event, top of stack first. */
static uint32_t frame(int slot) { return bare_u32(&b, BARE_KSTACK - 20 + 4 * (uint32_t)slot); }
static uint32_t frame_err(int slot) { return bare_u32(&b, BARE_KSTACK - 24 + 4 * (uint32_t)slot); }

START_TEST(int80_through_dpl3_trap_gate_switches_to_ring0_stack)
{
    uint8_t code[] = { 0xcd, 0x80 };                 /* int $0x80 */
    bare_set_gate(&b, SYSCALL_VECTOR, X86_TYPE_TRAP_GATE32, 3);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), SYSCALL_VECTOR);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_CS), __KERNEL_CS);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_SS), __KERNEL_DS);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ESP), BARE_KSTACK - 20);
    ck_assert_uint_eq(frame(0), BARE_UCODE + 2);     /* EIP after the int */
    ck_assert_uint_eq(frame(1), __USER_CS);
    ck_assert_uint_eq(frame(2) & X86_EFLAGS_IF, X86_EFLAGS_IF);      /* user IF */
    ck_assert_uint_eq(frame(3), BARE_USTACK);
    ck_assert_uint_eq(frame(4), __USER_DS);
    /* a trap gate leaves IF set */
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF, X86_EFLAGS_IF);
}
END_TEST

START_TEST(interrupt_gate_clears_if)
{
    uint8_t code[] = { 0xcd, 0x80 };
    bare_set_gate(&b, SYSCALL_VECTOR, X86_TYPE_INTR_GATE32, 3);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), SYSCALL_VECTOR);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF, 0);
    ck_assert_uint_eq(frame(2) & X86_EFLAGS_IF, X86_EFLAGS_IF);
}
END_TEST

START_TEST(int_through_dpl0_gate_from_ring3_is_gp_with_idt_error_code)
{
    uint8_t code[] = { 0x90, 0xcd, 0x0d };           /* nop; int $0x0d */
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_uint_eq(frame_err(0), X86_IDT_ERROR(X86_VEC_GP, 0)); /* not external */
    ck_assert_uint_eq(frame_err(1), BARE_UCODE + 1); /* at the int itself */
    ck_assert_uint_eq(frame_err(2), __USER_CS);
}
END_TEST

START_TEST(loading_kernel_ds_from_ring3_is_gp_with_selector)
{
    uint8_t code[] = { 0xb8, 0x68, 0, 0, 0, 0x8e, 0xd8 }; /* mov $0x68,%eax; mov %eax,%ds */
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_uint_eq(frame_err(0), 0x68);
    ck_assert_uint_eq(frame_err(1), BARE_UCODE + 5);
}
END_TEST

START_TEST(divide_error_has_no_error_code)
{
    uint8_t code[] = { 0x31, 0xc9, 0xf7, 0xf1 };     /* xor %ecx,%ecx; div %ecx */
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_DE);
    ck_assert_uint_eq(frame(0), BARE_UCODE + 2);
    ck_assert_uint_eq(frame(1), __USER_CS);
}
END_TEST

START_TEST(not_present_gate_is_np)
{
    uint8_t code[] = { 0xcd, 0x80 };
    uint8_t flags = X86_AR_DPL3 | X86_TYPE_TRAP_GATE32;  /* P = 0 */
    bare_set_gate(&b, SYSCALL_VECTOR, X86_TYPE_TRAP_GATE32, 3);
    bare_write(&b, BARE_IDT + SYSCALL_VECTOR * 8 + X86_DESC_ACCESS_SHIFT / 8, &flags, 1);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_NP);
    ck_assert_uint_eq(frame_err(0), X86_IDT_ERROR(SYSCALL_VECTOR, 0));
}
END_TEST

START_TEST(many_faults_in_one_engine_are_never_double_faults)
{
    /* ring 0: reload DS with a bad selector; each #GP handler (hlt) stops
     * the run and we start the faulting code again. Unicorn alone would
     * report the second one as #DF and the third as a triple fault. */
    uint8_t code[] = { 0xb8, 0x38, 0x12, 0, 0, 0x8e, 0xd8 }; /* mov $0x1238,%eax; mov %eax,%ds */
    bare_write(&b, BARE_HANDLER - 0x100, code, sizeof code);
    for (int i = 0; i < 20; i++) {
        b.m.stop = STOP_NONE;
        bare_run(&b, BARE_HANDLER - 0x100, false);
        ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 0x200 - 16), 0x1238);
    }
    ck_assert_uint_eq(b.m.exceptions, 20);
}
END_TEST

/* ring 0: load a segment register from a descriptor that is not present */
static void load_not_present(uint8_t sreg_modrm)
{
    /* a writable data segment, DPL 0, P = 0 */
    uint64_t absent = 0xffff | (uint64_t)(X86_AR_S | X86_AR_RW) << X86_DESC_ACCESS_SHIFT |
                      (uint64_t)(X86_DESC_G | X86_DESC_DB) << X86_DESC_FLAGS_SHIFT;
    bare_write(&b, BARE_GDT + 8 * 20, &absent, 8);
    uint8_t code[] = { 0xb8, 0xa0, 0, 0, 0, 0x8e, sreg_modrm }; /* mov $0xa0,%eax; mov %eax,%sreg */
    bare_write(&b, BARE_HANDLER - 0x100, code, sizeof code);
    bare_run(&b, BARE_HANDLER - 0x100, false);
}

START_TEST(not_present_data_segment_is_np_with_selector)
{
    load_not_present(0xd8);                              /* %ds */
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_NP);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 0x200 - 16), 0xa0);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 0x200 - 12), BARE_HANDLER - 0x100 + 5);
}
END_TEST

START_TEST(not_present_stack_segment_is_ss_with_selector)
{
    load_not_present(0xd0);                              /* %ss */
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_SS);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 0x200 - 16), 0xa0);
}
END_TEST

/* ---- faults of a program under the guest kernel, as emu reports them ---- */

#define NO_CR2 (-1L)
#define CR2_IS_EIP (-2L)
#define CR2_ON_STACK (-3L)
#define NO_EIP (-100)

static const struct fault_expect {
    const char *name;
    const char *cpu;
    int status;
    const char *signal;
    const char *vector;   /* as the report starts it: "#GP " */
    long error;           /* -1: do not check */
    long cr2;             /* an address, or NO_CR2 / CR2_IS_EIP / CR2_ON_STACK */
    int eip_delta;        /* report eip - printed eip, or NO_EIP */
} faults[] = {
    { "wrmsr", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "rdmsr", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "hlt", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "cli", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "sti", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "lgdt", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "lgdt-user", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "lidt", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "mov-cr3", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "out", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "outl", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "in", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "iret", "pentium4", 139, "SIGSEGV", "#GP ", __KERNEL_CS, NO_CR2, 0 },
    { "sysexit", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "sysexit", "pentium3", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "int13", "pentium4", 139, "SIGSEGV", "#GP ", X86_IDT_ERROR(X86_VEC_GP, 0), NO_CR2, 0 },
    { "kernel-ds", "pentium4", 139, "SIGSEGV", "#GP ", __KERNEL_DS, NO_CR2, 0 },
    { "far-call-bad", "pentium4", 139, "SIGSEGV", "#GP ", 0x1234, NO_CR2, 0 },
    { "ud2", "pentium4", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "ud2", "pentiumpro", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    /* the Pentium Pro has sysenter: with SYSENTER_CS = 0 it is #GP(0) */
    { "sysenter-by-hand", "pentiumpro", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "sysenter-by-hand", "pentium4,-sep", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "sysenter-by-hand", "pentium3,-sep", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "div0", "pentium4", 136, "SIGFPE", "#DE ", 0, NO_CR2, 0 },
    { "int3", "pentium4", 133, "SIGTRAP", "#BP ", 0, NO_CR2, 1 },
    { "kread", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_PROT, 0xc0100000L, 0 },
    { "kread", "pentiumpro", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_PROT, 0xc0100000L, 0 },
    { "kwrite", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, 0xc0100000L, 0 },
    { "null", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER, 0, 0 },
    { "hole-read", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER, 0xe0000000L, 0 },
    { "vsyscall-write", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, 0xfffff000L, 0 },
    { "vsyscall-write", "pentiumpro", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, 0xfffff000L, 0 },
    { "text-write", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, CR2_IS_EIP, 0 },
    { "stack-overflow", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE, CR2_ON_STACK, NO_EIP },
};

START_TEST(fault_is_reported_with_vector_error_and_cr2)
{
    const struct fault_expect *f = &faults[_i];
    struct emu_result r;
    emu(&r, "run", "--cpu", f->cpu, program("faults"), f->name, NULL);
    ck_assert_msg(r.status == f->status, "faults %s on %s: exit %d, want %d; stdout: %s"
                  "stderr: %s", f->name, f->cpu, r.status, f->status, r.out, r.err);
    ck_assert_msg(count_char(r.err, '\n') == 1, "faults %s: stderr is not one line: %s",
                  f->name, r.err);
    ck_assert_msg(!strncmp(r.err, "emu: ", 5), "faults %s: %s", f->name, r.err);

    char want[160];
    snprintf(want, sizeof want, "killed by %s: %s", f->signal, f->vector);
    ck_assert_msg(strstr(r.err, want), "faults %s on %s: want \"%s\" in: %s", f->name,
                  f->cpu, want, r.err);
    ck_assert_msg(!strstr(r.err, "#DF") && !strstr(r.err, "double"), "%s", r.err);

    long eip = hex_after(r.out, "eip=");
    if (f->eip_delta != NO_EIP) {
        ck_assert_msg(eip > 0, "faults %s printed no eip: %s", f->name, r.out);
        snprintf(want, sizeof want, " at eip %08lx,", eip + f->eip_delta);
        ck_assert_msg(strstr(r.err, want), "faults %s: want \"%s\" in: %s", f->name, want,
                      r.err);
    }
    if (f->error >= 0) {
        snprintf(want, sizeof want, ", error %#lx\n", f->error);
        ck_assert_msg(strstr(r.err, want), "faults %s: want \"%s\" in: %s", f->name, want,
                      r.err);
    }
    long cr2 = hex_after(r.err, "cr2 ");
    if (f->cr2 == NO_CR2) {
        ck_assert_msg(cr2 == -1, "cr2 reported for a non-#PF: %s", r.err);
    } else if (f->cr2 == CR2_IS_EIP) {
        ck_assert_msg(cr2 == eip, "faults %s: cr2 %lx, want %lx: %s", f->name, cr2, eip, r.err);
    } else if (f->cr2 == CR2_ON_STACK) {
        /* the stack grew to its 8 MiB limit; the fault is just below it */
        ck_assert_msg(cr2 >= (long)(USER_STACK_TOP - USER_STACK_MAX - PAGE_SIZE) &&
                      cr2 < (long)(USER_STACK_TOP - USER_STACK_MAX),
                      "faults %s: cr2 %lx not just below the 8 MiB stack: %s", f->name, cr2,
                      r.err);
    } else {
        ck_assert_msg(cr2 == f->cr2, "faults %s: cr2 %lx, want %lx: %s", f->name, cr2, f->cr2,
                      r.err);
    }
    emu_result_free(&r);
}
END_TEST

START_TEST(efault_storm_then_user_page_fault)
{
    const char *cpu = _i ? "pentiumpro" : "pentium4";
    struct emu_result r;
    emu(&r, "run", "--strace", "--cpu", cpu, program("faults"), "efault-storm", "50", NULL);
    ck_assert_msg(r.status == 139, "efault-storm on %s: exit %d; stdout %s", cpu, r.status,
                  r.out);
    ck_assert_int_eq(count_lines_containing(r.err, "= -1 EFAULT (Bad address)"), 50);
    ck_assert_int_eq(count_lines_containing(r.err, _i ? "[int80/iret]       write(1, " :
                                                        "[sysenter/sysexit] write(1, "), 51);
    ck_assert_msg(!strstr(r.err, "#DF") && !strstr(r.err, "double fault"), "%s", r.err);
    long eip = hex_after(r.out, "eip=");
    char want[160];
    snprintf(want, sizeof want,
             "killed by SIGSEGV: #PF page fault at eip %08lx, cr2 c0100000, error 0x5\n", eip);
    char *kill = line_with(r.err, "emu: ");
    ck_assert_msg(kill && strstr(kill, "killed by SIGSEGV: #PF"), "%s", r.err);
    free(kill);
    ck_assert_msg(strstr(r.err, want), "want \"%s\" in: %s", want, r.err);
    emu_result_free(&r);
}
END_TEST

Suite *trap_suite(void)
{
    Suite *s = suite_create("trap");
    TCase *tc = tcase_create("delivery");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, int80_through_dpl3_trap_gate_switches_to_ring0_stack);
    tcase_add_test(tc, interrupt_gate_clears_if);
    tcase_add_test(tc, int_through_dpl0_gate_from_ring3_is_gp_with_idt_error_code);
    tcase_add_test(tc, loading_kernel_ds_from_ring3_is_gp_with_selector);
    tcase_add_test(tc, divide_error_has_no_error_code);
    tcase_add_test(tc, not_present_gate_is_np);
    tcase_add_test(tc, many_faults_in_one_engine_are_never_double_faults);
    tcase_add_test(tc, not_present_data_segment_is_np_with_selector);
    tcase_add_test(tc, not_present_stack_segment_is_ss_with_selector);
    suite_add_tcase(s, tc);

    tc = tcase_create("guest faults");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, fault_is_reported_with_vector_error_and_cr2, 0,
                        sizeof faults / sizeof faults[0]);
    tcase_add_loop_test(tc, efault_storm_then_user_page_fault, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(trap_suite());
}
