/*
 * The machine core (emu/machine.c): observers hear the CPU's events in the
 * order they subscribed, the every-instruction hook costs nothing until
 * someone asks for it, the first reason to stop wins, and the cycle
 * counters charge, refund and place instructions exactly.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static struct bare b;
static int calls[3], order[16], norder, insns_seen, vector_seen;

static void setup(void)
{
    bare_init(&b, "pentium4");
    memset(calls, 0, sizeof calls);
    norder = insns_seen = 0;
    vector_seen = -1;
}

static void teardown(void) { bare_destroy(&b); }

static void heard(void *ctx, struct machine *m, const struct delivery_event *e)
{
    (void)m;
    int who = (int)(intptr_t)ctx;
    calls[who]++;
    vector_seen = e->vector;
    if (norder < 16)
        order[norder++] = who;
}

static void saw_insn(void *ctx, struct machine *m, uint32_t addr, uint32_t size)
{
    (void)ctx;
    (void)m;
    (void)size;
    if (addr >= BARE_UCODE && addr < BARE_UCODE + 16)
        insns_seen++;
}

START_TEST(observers_hear_a_delivery_in_the_order_they_subscribed)
{
    uint8_t code[] = { 0x90, 0xcd, 0x80 };           /* nop; int $0x80 */
    bare_set_gate(&b, SYSCALL_VECTOR, X86_TYPE_TRAP_GATE32, 3);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    const struct machine_observer first = { .ctx = (void *)1, .delivery = heard };
    const struct machine_observer second = { .ctx = (void *)2, .delivery = heard };
    ck_assert_int_eq(machine_observe(&b.m, &first), 0);
    ck_assert_int_eq(machine_observe(&b.m, &second), 0);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), SYSCALL_VECTOR);
    ck_assert_int_eq(calls[1], 1);
    ck_assert_int_eq(calls[2], 1);
    ck_assert_int_eq(norder, 2);
    ck_assert_int_eq(order[0], 1);
    ck_assert_int_eq(order[1], 2);
    ck_assert_int_eq(vector_seen, SYSCALL_VECTOR);
}
END_TEST

START_TEST(there_is_room_for_a_bounded_number_of_observers)
{
    const struct machine_observer o = { .ctx = (void *)1, .delivery = heard };
    /* bare_init attached the accounting: one is taken */
    for (int i = b.m.nobservers; i < MACHINE_MAX_OBSERVERS; i++)
        ck_assert_int_eq(machine_observe(&b.m, &o), 0);
    ck_assert_int_eq(machine_observe(&b.m, &o), -1);
}
END_TEST

START_TEST(the_instruction_hook_goes_in_only_for_an_observer_that_wants_it)
{
    uint8_t code[] = { 0x90, 0x90, 0x90, 0xf4 };     /* nop x3; hlt (#GP at CPL 3) */
    bare_write(&b, BARE_UCODE, code, sizeof code);
    ck_assert(!b.m.insn_hooked);                     /* the accounting needs none */
    const struct machine_observer o = { .insn = saw_insn };
    ck_assert_int_eq(machine_observe(&b.m, &o), 0);
    ck_assert(b.m.insn_hooked);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_int_eq(insns_seen, 4);                 /* the three nops and the hlt */
}
END_TEST

START_TEST(the_first_reason_to_stop_wins)
{
    machine_stop(&b.m, STOP_BUDGET, "first %d", 1);
    machine_stop(&b.m, STOP_MACHINE, "second");
    ck_assert_int_eq(b.m.stop, STOP_BUDGET);
    ck_assert_str_eq(b.m.message, "first 1");
    ck_assert_int_eq(machine_fail(&b.m, 126, "bad %s", "file"), 126);
    ck_assert_str_eq(b.m.message, "bad file");
}
END_TEST

START_TEST(charging_refunding_and_placing_in_a_block)
{
    /* mov %ebx,%eax; add (%ebx),%eax; push %eax; cpuid: alu, load, push, cpuid */
    uint8_t code[] = { 0x89, 0xd8, 0x03, 0x03, 0x50, 0x0f, 0xa2 };
    const uint32_t *cost = b.m.cpu.cost;
    struct block *blk = block_decode(&b.m.blocks, 0x1000, code, sizeof code);
    ck_assert_ptr_nonnull(blk);
    ck_assert_uint_eq(blk->ninsns, 4);
    /* as the block hook leaves things when the block starts */
    b.m.cur_block = blk;
    b.m.cur_limit = blk->ninsns;
    b.m.block_start_cycles = 1000;
    b.m.cycles = 1000 + blk->cost;
    b.m.insns = 4;
    ck_assert_uint_eq(blk->cost, cost[CLASS_ALU] + cost[CLASS_LOAD] + cost[CLASS_PUSH] +
                                 cost[CLASS_CPUID]);
    /* the instruction at 0x1004 (push) starts after the mov and the add */
    ck_assert_uint_eq(cycles_before(&b.m, 0x1004), 1000 + cost[CLASS_ALU] + cost[CLASS_LOAD]);
    ck_assert_uint_eq(cycles_before(&b.m, 0x9999), b.m.cycles);   /* not in the block */
    /* a fault at the push: it and the cpuid were never executed */
    truncate_current_block(&b.m, 2);
    ck_assert_uint_eq(b.m.cycles, 1000 + cost[CLASS_ALU] + cost[CLASS_LOAD]);
    ck_assert_uint_eq(b.m.insns, 2);
    ck_assert_uint_eq(b.m.cur_limit, 2);
    truncate_current_block(&b.m, 3);                 /* past the limit: nothing */
    ck_assert_uint_eq(b.m.insns, 2);
    charge(&b.m, CLASS_EXCEPTION, 2);
    ck_assert_uint_eq(b.m.cycles, 1000 + cost[CLASS_ALU] + cost[CLASS_LOAD] +
                                  2 * cost[CLASS_EXCEPTION]);
    b.m.cur_block = NULL;
    block_free(blk);
}
END_TEST

Suite *machine_suite(void)
{
    Suite *s = suite_create("machine");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, observers_hear_a_delivery_in_the_order_they_subscribed);
    tcase_add_test(tc, there_is_room_for_a_bounded_number_of_observers);
    tcase_add_test(tc, the_instruction_hook_goes_in_only_for_an_observer_that_wants_it);
    tcase_add_test(tc, the_first_reason_to_stop_wins);
    tcase_add_test(tc, charging_refunding_and_placing_in_a_block);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(machine_suite());
}
