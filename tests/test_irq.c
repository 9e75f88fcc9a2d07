/*
 * emu/cpu/irq.c on its own, on a bare machine (no kernel): ring-0 code
 * programs the PIT's channel 0 and the master 8259A with out, as Linux's
 * time_init and init_8259A do, then waits in hlt. The timer's interrupt
 * comes at the vector ICW2 gave, after a period of the PIT's 1193182 Hz
 * counted in the model's cycles; it waits while in service until an end
 * of interrupt, never comes with IF clear or the IRQ masked, and a one
 * shot (mode 0) comes once.
 */
#include <check.h>
#include <string.h>
#include "support.h"
#include "../emu/cpu/irq.h"

#define ICW2_BASE 0x30       /* ICW2: IRQ 0 at 0x30 */
#define COUNT 11932          /* LATCH for HZ=100 */

static struct bare b;

static void setup(void) { bare_init(&b, "pentium4"); }
static void teardown(void) { bare_destroy(&b); }

/* mov al, v; out port, al */
static size_t out(uint8_t *c, uint8_t port, uint8_t v)
{
    const uint8_t insn[] = { 0xb0, v, 0xe6, port };
    memcpy(c, insn, sizeof insn);
    return sizeof insn;
}

/* The PIT in mode, the 8259A with IRQ 0 at ICW2_BASE and mask imr; then
 * tail. */
static void program_timer(int mode, uint8_t imr, const uint8_t *tail, size_t n)
{
    uint8_t code[128];
    size_t k = 0;
    k += out(code + k, PIT_CMD_PORT, (uint8_t)(PIT_CMD_CH0_LOHI | mode << PIT_MODE_SHIFT));
    k += out(code + k, PIT_CH0_PORT, COUNT & 0xff);
    k += out(code + k, PIT_CH0_PORT, COUNT >> 8);
    k += out(code + k, PIC_MASTER_CMD, PIC_ICW1 | PIC_ICW1_ICW4);
    k += out(code + k, PIC_MASTER_DATA, ICW2_BASE);
    k += out(code + k, PIC_MASTER_DATA, 1 << 2);   /* ICW3: the slave on IRQ 2 */
    k += out(code + k, PIC_MASTER_DATA, 0x01);     /* ICW4: 8086 mode */
    k += out(code + k, PIC_MASTER_DATA, imr);
    memcpy(code + k, tail, n);
    bare_write(&b, BARE_UCODE, code, k + n);
}

/* The handler acknowledges the interrupt (EOI) and returns. */
static void handler_with_eoi(void)
{
    const uint8_t h[] = { 0xb0, PIC_EOI, 0xe6, PIC_MASTER_CMD, 0xcf };   /* ...; iret */
    bare_write(&b, BARE_HANDLER + 16 * ICW2_BASE, h, sizeof h);
}

/* sti; then hlt and count in ecx, until 3; cli; hlt (nothing wakes it) */
static const uint8_t wait_three[] = {
    0x31, 0xc9, 0xfb,                   /* xor ecx, ecx; sti */
    0xf4, 0x41, 0x83, 0xf9, 0x03, 0x75, 0xf9,   /* 1: hlt; inc ecx; cmp ecx, 3; jne 1b */
    0xfa, 0xf4,                         /* cli; hlt */
};

/* wait_three with the PIT in mode and IRQs masked by imr, the handler
 * acknowledging each; then the ticks counted and delivered are n. */
static void wait_for_three(int mode, uint8_t imr, unsigned n)
{
    handler_with_eoi();
    program_timer(mode, imr, wait_three, sizeof wait_three);
    bare_run(&b, BARE_UCODE, false);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ECX), n);
    ck_assert_uint_eq(b.m.irq.delivered, n);
}

START_TEST(the_timer_interrupts_at_icw2s_vector_after_one_period)
{
    const uint8_t tail[] = { 0xfb, 0xf4 };   /* sti; hlt */
    program_timer(2, 0xfe, tail, sizeof tail);
    bare_run(&b, BARE_UCODE, false);
    /* its handler (hlt) waits again: in service, so nothing more comes */
    ck_assert_int_eq(bare_halted_vector(&b), ICW2_BASE);
    ck_assert_uint_eq(b.m.irq.delivered, 1);
    double period = (double)COUNT * b.m.cpu.model->clock_mhz * 1e6 / PIT_HZ;
    ck_assert_double_eq_tol(centi_to_cycles(b.m.irq.period), period, 0.01);
    /* both hlts waited in modeled time: each nearly a period */
    ck_assert_uint_gt(b.m.irq.idle_cycles, b.m.irq.period);
    ck_assert_uint_lt(b.m.irq.idle_cycles, 2 * b.m.irq.period);
}
END_TEST

START_TEST(after_an_end_of_interrupt_the_next_tick_comes)
{
    wait_for_three(2, 0xfe, 3);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), BARE_UCODE + 8 * 4 + sizeof wait_three);
}
END_TEST

START_TEST(a_one_shot_comes_once)
{
    /* the second hlt has nothing to wake it */
    wait_for_three(0, 0xfe, 1);
    ck_assert(!b.m.irq.pit_running);
}
END_TEST

START_TEST(no_interrupt_with_if_clear_or_the_irq_masked)
{
    handler_with_eoi();
    const uint8_t cli_hlt[] = { 0xfa, 0xf4 };
    program_timer(2, 0xfe, cli_hlt, sizeof cli_hlt);
    bare_run(&b, BARE_UCODE, false);
    ck_assert_uint_eq(b.m.irq.delivered, 0);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), BARE_UCODE + 8 * 4 + sizeof cli_hlt);

    bare_destroy(&b);
    bare_init(&b, "pentium4");
    wait_for_three(2, 0xff, 0);
}
END_TEST

START_TEST(only_the_pit_and_pic_ports_are_theirs)
{
    ck_assert(irq_port_out(&b.m, PIT_CMD_PORT, 0x34));
    ck_assert(irq_port_out(&b.m, PIC_SLAVE_DATA, 0));
    ck_assert(!irq_port_out(&b.m, 0x80, 0));
    /* a count for channel 1 does not touch channel 0 */
    ck_assert(irq_port_out(&b.m, PIT_CMD_PORT, 0x74));
    ck_assert(!b.m.irq.pit_running);
    /* the low byte alone does not start channel 0 */
    irq_port_out(&b.m, PIT_CMD_PORT, PIT_CMD_CH0_LOHI | 2 << PIT_MODE_SHIFT);
    irq_port_out(&b.m, PIT_CH0_PORT, COUNT & 0xff);
    ck_assert(!b.m.irq.pit_running);
    irq_port_out(&b.m, PIT_CH0_PORT, COUNT >> 8);
    ck_assert(b.m.irq.pit_running);
    ck_assert_uint_eq(b.m.irq.reload, COUNT);
}
END_TEST

/* The PIT in mode 2 with reload count, the 8259A with IRQ 0 unmasked at
 * ICW2_BASE through an interrupt gate (its handler's hlt then stops the
 * machine with IF clear, the clock where the handler left it). */
static void timer_from_now(uint16_t count)
{
    bare_set_gate(&b, ICW2_BASE, X86_TYPE_INTR_GATE32, 0);
    irq_port_out(&b.m, PIT_CMD_PORT, PIT_CMD_CH0_LOHI | 2 << PIT_MODE_SHIFT);
    irq_port_out(&b.m, PIT_CH0_PORT, count & 0xff);
    irq_port_out(&b.m, PIT_CH0_PORT, count >> 8);
    irq_port_out(&b.m, PIC_MASTER_CMD, PIC_ICW1 | PIC_ICW1_ICW4);
    irq_port_out(&b.m, PIC_MASTER_DATA, ICW2_BASE);
    irq_port_out(&b.m, PIC_MASTER_DATA, 1 << 2);
    irq_port_out(&b.m, PIC_MASTER_DATA, 0x01);
    irq_port_out(&b.m, PIC_MASTER_DATA, 0xfe);
}

#define LOOP_INCS 300

/* ring 3: 1: inc eax, LOOP_INCS times; jmp 1b */
static void inc_loop(void)
{
    uint8_t code[LOOP_INCS + 5];
    int32_t back = -(LOOP_INCS + 5);
    memset(code, 0x40, LOOP_INCS);
    code[LOOP_INCS] = 0xe9;
    memcpy(code + LOOP_INCS + 1, &back, 4);
    bare_write(&b, BARE_UCODE, code, sizeof code);
}

/* The interrupt's return EIP, from the frame its handler halted on. */
static uint32_t return_eip(void)
{
    ck_assert_int_eq(bare_halted_vector(&b), ICW2_BASE);
    return bare_u32(&b, bare_reg(&b, UC_X86_REG_ESP));
}

START_TEST(the_timer_interrupts_at_the_instruction_its_deadline_passed)
{
    static const uint16_t counts[] = { 1, 2, 3, 5, 7 };
    unsigned inside = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        bare_destroy(&b);
        bare_init(&b, "pentium4");
        timer_from_now(counts[i]);
        inc_loop();
        reg_write(&b.m, UC_X86_REG_EAX, 0);
        bare_run(&b, BARE_UCODE, true);
        uint32_t eip = return_eip();
        ck_assert_uint_ge(eip, BARE_UCODE);
        ck_assert_uint_le(eip, BARE_UCODE + LOOP_INCS);
        const uint32_t *cost = b.m.cpu.cost;
        /* the clock at the interrupt: before its delivery from ring 3
         * and the handler's hlt */
        uint64_t at = b.m.cycles - cost[CLASS_EXCEPTION] - cost[CLASS_SYSTEM];
        uint64_t deadline = b.m.irq.deadline - b.m.irq.period;
        uint64_t before = eip == BARE_UCODE ? cost[CLASS_JMP] : cost[CLASS_ALU];
        ck_assert_uint_ge(at, deadline);
        ck_assert_uint_lt(at - before, deadline);
        /* every inc before it ran, none after */
        ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX) % LOOP_INCS, eip - BARE_UCODE);
        inside += eip != BARE_UCODE;
    }
    ck_assert_uint_gt(inside, 0);
}
END_TEST

START_TEST(after_sti_the_interrupt_waits_one_instruction)
{
    timer_from_now(2);
    /* cli; mov ecx, 5000; 1: dec ecx; jnz 1b (past the deadline);
     * sti; inc eax; inc eax; inc eax; hlt */
    const uint8_t code[] = { 0xfa, 0xb9, 0x88, 0x13, 0x00, 0x00, 0x49, 0x75, 0xfd,
                             0xfb, 0x40, 0x40, 0x40, 0xf4 };
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, false);
    ck_assert_uint_eq(b.m.irq.delivered, 1);
    ck_assert_uint_eq(return_eip(), BARE_UCODE + 11);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX), 1);
}
END_TEST

/* An interrupt held while IF was clear is taken before the first
 * instruction after the popf that sets IF (popf has no shadow), far from
 * the timer's next deadline. The block after the popf runs twice, IF set
 * and nothing held the first time: the second time the block hook knows
 * it, and still takes the interrupt at its start. */
START_TEST(an_interrupt_held_by_if_is_taken_right_after_popf_sets_it)
{
    const uint8_t code[] = {
        0xbb, 0x02, 0x00, 0x00, 0x00,           /* mov ebx, 2 */
        0xbe, 0x01, 0x00, 0x00, 0x00,           /* mov esi, 1 */
        0xfa, 0x89, 0xf1,                       /* 1: cli; mov ecx, esi */
        0x49, 0x75, 0xfd,                       /* 2: dec ecx; jnz 2b */
        0x68, 0x02, 0x02, 0x00, 0x00, 0x9d,     /* push 0x202; popf */
        0x40, 0x40, 0x40,                       /* inc eax (3 times) */
        0xbe, 0x30, 0x75, 0x00, 0x00,           /* mov esi, 30000 */
        0x4b, 0x75, 0xe9,                       /* dec ebx; jnz 1b */
        0xf4,                                   /* hlt */
    };
    enum { AFTER_POPF = 22 };
    bare_write(&b, BARE_UCODE, code, sizeof code);
    timer_from_now(60000);   /* the next deadline about 50 ms later */
    /* inside the second pass's loop, with IF clear */
    b.m.irq.deadline = b.m.cycles + 2000 * b.m.cpu.cost[CLASS_ALU];
    reg_write(&b.m, UC_X86_REG_EAX, 0);
    bare_run(&b, BARE_UCODE, false);
    ck_assert_uint_eq(b.m.irq.delivered, 1);
    ck_assert_uint_eq(return_eip(), BARE_UCODE + AFTER_POPF);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX), 3);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EBX), 1);
}
END_TEST

/* A block that clears IF before the deadline: the cut finds the CPU
 * will not take the interrupt, and the rest of the block runs, charged
 * once. */
START_TEST(a_block_that_clears_if_before_the_deadline_runs_on)
{
    enum { N = 40, M = 60 };
    uint8_t code[2 + N + 1 + M + 1];
    code[0] = 0xfb;                      /* sti */
    code[1] = 0x90;                      /* nop (the shadow) */
    memset(code + 2, 0x40, N);           /* inc eax */
    code[2 + N] = 0xfa;                  /* cli */
    memset(code + 3 + N, 0x40, M);
    code[3 + N + M] = 0xf4;              /* hlt */
    bare_write(&b, BARE_UCODE, code, sizeof code);
    timer_from_now(1);
    const uint32_t *cost = b.m.cpu.cost;
    uint64_t from = b.m.cycles;
    b.m.irq.deadline = from + cost[CLASS_STI] + (2 + N + M / 2) * cost[CLASS_ALU] +
                       cost[CLASS_CLI];
    reg_write(&b.m, UC_X86_REG_EAX, 0);
    bare_run(&b, BARE_UCODE, false);
    /* requested where the deadline passed, held by IF */
    ck_assert_uint_eq(b.m.irq.irr, 1u << IRQ_TIMER);
    ck_assert_uint_eq(b.m.irq.delivered, 0);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), BARE_UCODE + sizeof code);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX), N + M);
    ck_assert_uint_eq(b.m.insns, sizeof code);
    ck_assert_uint_eq(b.m.cycles - from, cost[CLASS_STI] + (1 + N + M) * cost[CLASS_ALU] +
                                         cost[CLASS_CLI] + cost[CLASS_SYSTEM]);
}
END_TEST

START_TEST(the_budget_stops_at_its_instruction_inside_a_block)
{
    uint8_t code[LOOP_INCS + 1];
    memset(code, 0x40, LOOP_INCS);
    code[LOOP_INCS] = 0xf4;
    bare_write(&b, BARE_UCODE, code, sizeof code);
    b.opts.max_insns = LOOP_INCS / 3;
    reg_write(&b.m, UC_X86_REG_EAX, 0);
    uint64_t from = b.m.cycles;
    bare_run(&b, BARE_UCODE, false);
    ck_assert_int_eq(b.m.stop, STOP_BUDGET);
    ck_assert_uint_eq(b.m.insns, LOOP_INCS / 3);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX), LOOP_INCS / 3);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), BARE_UCODE + LOOP_INCS / 3);
    ck_assert_uint_eq(b.m.cycles - from, (uint64_t)LOOP_INCS / 3 * b.m.cpu.cost[CLASS_ALU]);
}
END_TEST

Suite *irq_suite(void)
{
    Suite *s = suite_create("irq");
    TCase *tc = tcase_create("bare");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, the_timer_interrupts_at_icw2s_vector_after_one_period);
    tcase_add_test(tc, after_an_end_of_interrupt_the_next_tick_comes);
    tcase_add_test(tc, a_one_shot_comes_once);
    tcase_add_test(tc, no_interrupt_with_if_clear_or_the_irq_masked);
    tcase_add_test(tc, only_the_pit_and_pic_ports_are_theirs);
    tcase_add_test(tc, the_timer_interrupts_at_the_instruction_its_deadline_passed);
    tcase_add_test(tc, after_sti_the_interrupt_waits_one_instruction);
    tcase_add_test(tc, an_interrupt_held_by_if_is_taken_right_after_popf_sets_it);
    tcase_add_test(tc, a_block_that_clears_if_before_the_deadline_runs_on);
    tcase_add_test(tc, the_budget_stops_at_its_instruction_inside_a_block);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(irq_suite());
}
