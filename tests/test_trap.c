/* IDT delivery by the machine model, on a bare machine (no guest kernel). */
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
    return s;
}

int main(void)
{
    return run_suite(trap_suite());
}
