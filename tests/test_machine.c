/*
 * The machine core (emu/machine/machine.c): observers hear the CPU's events in the
 * order they subscribed, instructions are told (per block, no hook on each)
 * only to an observer that asks, as far as they ran, the first reason to stop wins, and the cycle
 * counters charge, refund and place instructions exactly.
 */
#include <check.h>
#include "../emu/machine/charge.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "syscall_nr.h"
#include "../emu/hypercall/mm_costs.h"
#include "../emu/hypercall/mm.h"

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

static void saw_insns(void *ctx, struct machine *m, uint32_t from, uint32_t to)
{
    (void)ctx;
    for (uint32_t i = from; i < to; i++) {
        uint32_t addr = m->cur_block->insns[i].addr;
        if (addr >= BARE_UCODE && addr < BARE_UCODE + 16)
            insns_seen++;
    }
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

START_TEST(instructions_are_told_to_an_observer_that_wants_them)
{
    uint8_t code[] = { 0x90, 0x90, 0x90, 0xf4 };     /* nop x3; hlt (#GP at CPL 3) */
    bare_write(&b, BARE_UCODE, code, sizeof code);
    ck_assert(!b.m.insn_observed);                   /* the accounting needs none */
    const struct machine_observer o = { .insns = saw_insns };
    ck_assert_int_eq(machine_observe(&b.m, &o), 0);
    ck_assert(b.m.insn_observed);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_int_eq(insns_seen, 4);                 /* the three nops and the hlt */
}
END_TEST

/* The instructions are told per block, not by a hook on each: a block a
 * fault cuts short is told through the faulting instruction, not to its
 * end. */
START_TEST(a_block_cut_short_by_a_fault_is_told_through_the_faulting_instruction)
{
    /* nop; nop; xor ecx, ecx; div ecx (#DE); nop; nop; hlt */
    uint8_t code[] = { 0x90, 0x90, 0x31, 0xc9, 0xf7, 0xf1, 0x90, 0x90, 0xf4 };
    bare_write(&b, BARE_UCODE, code, sizeof code);
    const struct machine_observer o = { .insns = saw_insns };
    ck_assert_int_eq(machine_observe(&b.m, &o), 0);
    bare_run(&b, BARE_UCODE, true);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_DE);
    ck_assert_int_eq(insns_seen, 4);                 /* two nops, xor and div */
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
    /* mov %ebx,%eax; mov (%ebx),%eax; push %eax; cpuid: alu, load, push, cpuid */
    uint8_t code[] = { 0x89, 0xd8, 0x8b, 0x03, 0x50, 0x0f, 0xa2 };
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

/* The cycle count is the dot product of the class counts and the costs. */
static uint64_t dot(const struct machine *m)
{
    uint64_t sum = 0;
    for (int c = 0; c < NCLASSES; c++)
        sum += m->class_count[c] * m->cpu.cost[c];
    return sum;
}

#define REP_SRC 0x08050000u
#define REP_DST 0x08060000u

/* mov $reps,%ebx; 1: mov $n,%ecx; mov $src,%esi; mov $dst,%edi; cld;
 * rep movsl; dec %ebx; jnz 1b; hlt */
static void run_rep_movsl(uint32_t reps, uint32_t n)
{
    uint8_t code[] = { 0xbb, 0, 0, 0, 0, 0xb9, 0, 0, 0, 0, 0xbe, 0, 0, 0, 0,
                       0xbf, 0, 0, 0, 0, 0xfc, 0xf3, 0xa5, 0x4b, 0x75, 0xeb, 0xf4 };
    uint32_t src = REP_SRC, dst = REP_DST;
    memcpy(code + 1, &reps, 4);
    memcpy(code + 6, &n, 4);
    memcpy(code + 11, &src, 4);
    memcpy(code + 16, &dst, 4);
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t word = 0x1000 + i, zero = 0;
        bare_write(&b, REP_SRC + 4 * i, &word, 4);
        bare_write(&b, REP_DST + 4 * i, &zero, 4);
    }
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, false);
    ck_assert_msg(strstr(b.m.message, "halted"), "%s", b.m.message);
}

START_TEST(a_rep_movsl_of_n_elements_pays_its_start_up_once)
{
    static const uint32_t ns[] = { 0, 1, 2, 7 };
    uint32_t n = ns[_i];
    run_rep_movsl(1, n);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_MOVS_START], 1);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_MOVS], n);
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
    for (uint32_t i = 0; i < 8; i++)    /* and it moved what it should */
        ck_assert_uint_eq(bare_u32(&b, REP_DST + 4 * i), i < n ? 0x1000 + i : 0);
}
END_TEST

START_TEST(each_rep_pays_its_own_start_up)
{
    run_rep_movsl(3, 2);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_MOVS_START], 3);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_MOVS], 6);
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
}
END_TEST

START_TEST(a_rep_with_an_address_size_prefix_counts_in_cx)
{
    uint8_t code[] = { 0x67, 0xf3, 0xa5 };              /* rep movsl, 16-bit addresses */
    struct block *blk = block_decode(&b.m.blocks, 0x1000, code, sizeof code);
    ck_assert_ptr_nonnull(blk);
    ck_assert_uint_eq(blk->insns[0].flags & (SPECIAL_REP | INSN_ADDR16),
                      SPECIAL_REP | INSN_ADDR16);
    ck_assert_uint_eq(blk->cost, 0);                    /* charged as it runs */
    reg_write(&b.m, UC_X86_REG_ECX, 0x10000);           /* CX = 0 */
    struct rep_step s = rep_step_of(&b.m, &blk->insns[0]);
    ck_assert(s.start && !s.element);
    reg_write(&b.m, UC_X86_REG_ECX, 0x10001);
    ck_assert(rep_step_of(&b.m, &blk->insns[0]).element);
    block_free(blk);
}
END_TEST

static bool has_code_hook(const struct machine *m, uint32_t addr)
{
    for (int i = 0; i < m->nspecial; i++)
        if (m->special_addrs[i] == addr)
            return true;
    return false;
}

/*
 * Three rep stosl. The first's count is EAX at its block's entry shifted
 * right by 2, so the block charges its first run at entry (rep_count.h);
 * the second's comes from memory right before it, so a code hook on the
 * rep charges it; the third's is EAX loaded from memory, then moved, so a
 * hook on the move reads it and the rep has none. Each pays its start-up
 * once and one element per dword it stores.
 *   mov $0x13,%eax; jmp 1f
 *   1: mov %eax,%ecx; shr $2,%ecx; mov $dst,%edi; cld; rep stosl
 *   mov count,%ecx; rep stosl
 *   mov count2,%eax; mov %eax,%ecx; rep stosl; hlt
 */
START_TEST(reps_charged_at_block_entry_and_by_code_hook_pay_the_same)
{
    uint8_t code[] = { 0xb8, 0x13, 0, 0, 0, 0xeb, 0x00,
                       0x89, 0xc1, 0xc1, 0xe9, 0x02, 0xbf, 0, 0, 0, 0, 0xfc, 0xf3, 0xab,
                       0x8b, 0x0d, 0, 0, 0, 0, 0xf3, 0xab,
                       0xa1, 0, 0, 0, 0, 0x89, 0xc1, 0xf3, 0xab, 0xf4 };
    const uint32_t entry_rep = BARE_UCODE + 18, hooked_rep = BARE_UCODE + 26;
    const uint32_t count_move = BARE_UCODE + 33, late_rep = BARE_UCODE + 35;
    uint32_t dst = REP_DST, count_at = REP_SRC, count2_at = REP_SRC + 4;
    uint32_t three = 3, two = 2, zero = 0;
    memcpy(code + 13, &dst, 4);
    memcpy(code + 22, &count_at, 4);
    memcpy(code + 29, &count2_at, 4);
    bare_write(&b, REP_SRC, &three, 4);
    bare_write(&b, REP_SRC + 4, &two, 4);
    for (uint32_t i = 0; i < 10; i++)
        bare_write(&b, REP_DST + 4 * i, &zero, 4);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, false);
    ck_assert_msg(strstr(b.m.message, "halted"), "%s", b.m.message);
    ck_assert(!has_code_hook(&b.m, entry_rep));
    ck_assert(has_code_hook(&b.m, hooked_rep));
    ck_assert(has_code_hook(&b.m, count_move));
    ck_assert(!has_code_hook(&b.m, late_rep));
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS_START], 3);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS], 4 + 3 + 2);
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
    for (uint32_t i = 0; i < 10; i++)
        ck_assert_uint_eq(bare_u32(&b, REP_DST + 4 * i), i < 7 ? 0x13 : i < 9 ? 2 : 0);
}
END_TEST

/* At the entry of the system call and at the kernel's #PF in its copy to
 * user space: the rep counts in between. */
static uint64_t at_entry[NCLASSES], at_fault[NCLASSES];

static void snap_entry(void *ctx, struct machine *m, uint32_t insn_addr)
{
    (void)ctx;
    (void)insn_addr;
    if (reg_read(m, UC_X86_REG_EAX) == SYS_gettimeofday)
        memcpy(at_entry, m->class_count, sizeof at_entry);
}

static void snap_fault(void *ctx, struct machine *m, const struct delivery_event *e)
{
    (void)ctx;
    if (e->vector == X86_VEC_PF && e->from_cpl == 0)
        memcpy(at_fault, m->class_count, sizeof at_fault);
}

START_TEST(a_rep_that_faults_is_charged_for_the_elements_it_moved)
{
    /* the timeval ends 4 bytes into an unmapped page: __copy_user's head
     * rep movsb moves the 4 bytes up to the 8-byte boundary, its rep movsl
     * faults on its first word, the kernel's fixup returns -EFAULT. The
     * faulting run is refunded, its start-up with it: what is charged is
     * the head's start-up and its 4 elements. */
    struct guest *g = guest_new("pentium4", "one_call", "gettimeofday-edge", NULL);
    const struct machine_observer o = { .sysenter = snap_entry, .delivery = snap_fault };
    memset(at_fault, 0, sizeof at_fault);
    ck_assert_int_eq(machine_observe(&g->m, &o), 0);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_uint_eq(at_fault[CLASS_REP_MOVS_START] - at_entry[CLASS_REP_MOVS_START], 1);
    ck_assert_uint_eq(at_fault[CLASS_REP_MOVS] - at_entry[CLASS_REP_MOVS], 4);
    ck_assert_uint_eq(g->m.cycles, dot(&g->m));
    guest_free(g);
}
END_TEST

/*
 * A user block's classes are counted when something reads them (charge.h):
 * at every event an observer hears the counts are whole, their dot product
 * with the costs the cycles (none of the loop's user blocks missing).
 */
static int events_seen, events_off;

static void check_counts(struct machine *m)
{
    events_seen++;
    events_off += dot(m) != m->cycles;
}

static void counts_at_sysenter(void *ctx, struct machine *m, uint32_t insn_addr)
{
    (void)ctx;
    (void)insn_addr;
    check_counts(m);
}

static void counts_at_delivery(void *ctx, struct machine *m, const struct delivery_event *e)
{
    (void)ctx;
    (void)e;
    check_counts(m);
}

START_TEST(the_counts_an_observer_reads_give_the_cycles)
{
    static const char *const cpus[] = { "pentium4", "pentium4,-sep" };
    struct guest *g = guest_new(cpus[_i], "syscall_loop", "gettimeofday", "200", NULL);
    const struct machine_observer o = { .sysenter = counts_at_sysenter,
                                        .delivery = counts_at_delivery,
                                        .tsc = counts_at_sysenter };
    events_seen = events_off = 0;
    ck_assert_int_eq(machine_observe(&g->m, &o), 0);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_ge(events_seen, 200);
    ck_assert_int_eq(events_off, 0);
    guest_free(g);
}
END_TEST

/* A page the emulator clears or copies for the kernel is charged as the
 * rep stosl / rep movsl of 1024 dwords Linux 2.5 would run, a TLB refill
 * as two loads: counted in those classes, so the cycles stay a dot product. */
START_TEST(work_done_for_the_kernel_is_charged_as_the_instructions_it_stands_for)
{
    mm_cost_charge(&b.m, MM_COST_CLEAR_PAGE, 3);
    mm_cost_charge(&b.m, MM_COST_COPY_PAGE, 2);
    mm_cost_charge(&b.m, MM_COST_TLB_REFILL, 5);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS_START], 3);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS], 3 * 1024);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_MOVS_START], 2);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_MOVS], 2 * 1024);
    ck_assert_uint_eq(b.m.class_count[CLASS_LOAD], 10);
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
    ck_assert_uint_eq(b.m.cycles, 3 * mm_cost_of(&b.m.cpu, MM_COST_CLEAR_PAGE) +
                                  2 * mm_cost_of(&b.m.cpu, MM_COST_COPY_PAGE) +
                                  5 * mm_cost_of(&b.m.cpu, MM_COST_TLB_REFILL));
}
END_TEST

/* get_zeroed_page's request: the emulator zeroes a page of the kernel's
 * RAM and charges clear_page; anything but a whole page of it is refused
 * and left alone. */
START_TEST(the_kernel_gets_a_zeroed_page_charged_as_clear_page)
{
    const uint32_t page = KERNEL_BASE + 0x200000;
    uint8_t dirty[PAGE_SIZE];
    memset(dirty, 0xa5, sizeof dirty);
    bare_write(&b, page, dirty, sizeof dirty);
    struct hc_mm r = { .op = MM_CLEAR_KERNEL, .addr = page };
    mm_hypercall(&b.m, &r);
    ck_assert_int_eq(r.result, 0);
    for (uint32_t i = 0; i < PAGE_SIZE; i += 4)
        ck_assert_uint_eq(bare_u32(&b, page + i), 0);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS_START], 1);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS], 1024);
    ck_assert_uint_eq(b.m.cycles, mm_cost_of(&b.m.cpu, MM_COST_CLEAR_PAGE));

    const uint32_t refused[] = { page + 4, USER_SPACE_BASE + 0x100000,
                                 KERNEL_BASE + KERNEL_RAM_SIZE, KERNEL_BASE - PAGE_SIZE };
    bare_write(&b, page, dirty, sizeof dirty);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        r = (struct hc_mm){ .op = MM_CLEAR_KERNEL, .addr = refused[i] };
        mm_hypercall(&b.m, &r);
        ck_assert_int_eq(r.result, -EINVAL);
    }
    ck_assert_uint_eq(bare_u32(&b, page + 4), 0xa5a5a5a5);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS_START], 1);
}
END_TEST

START_TEST(cycles_are_counts_times_costs_after_a_whole_program)
{
    static const char *const cpus[] = { "pentium4", "pentium4,-sep", "pentium3",
                                        "pentiumpro" };
    struct guest *g = guest_new(cpus[_i], "syscall_loop", "gettimeofday", "50", NULL);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_uint_gt(g->m.cycles, 0);
    ck_assert_uint_eq(g->m.cycles, dot(&g->m));
    guest_free(g);
}
END_TEST

Suite *machine_suite(void)
{
    Suite *s = suite_create("machine");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, observers_hear_a_delivery_in_the_order_they_subscribed);
    tcase_add_test(tc, there_is_room_for_a_bounded_number_of_observers);
    tcase_add_test(tc, instructions_are_told_to_an_observer_that_wants_them);
    tcase_add_test(tc, a_block_cut_short_by_a_fault_is_told_through_the_faulting_instruction);
    tcase_add_test(tc, the_first_reason_to_stop_wins);
    tcase_add_test(tc, charging_refunding_and_placing_in_a_block);
    tcase_add_loop_test(tc, a_rep_movsl_of_n_elements_pays_its_start_up_once, 0, 4);
    tcase_add_test(tc, each_rep_pays_its_own_start_up);
    tcase_add_test(tc, a_rep_with_an_address_size_prefix_counts_in_cx);
    tcase_add_test(tc, reps_charged_at_block_entry_and_by_code_hook_pay_the_same);
    tcase_add_test(tc, a_rep_that_faults_is_charged_for_the_elements_it_moved);
    tcase_add_loop_test(tc, the_counts_an_observer_reads_give_the_cycles, 0, 2);
    tcase_add_test(tc, work_done_for_the_kernel_is_charged_as_the_instructions_it_stands_for);
    tcase_add_test(tc, the_kernel_gets_a_zeroed_page_charged_as_clear_page);
    tcase_add_loop_test(tc, cycles_are_counts_times_costs_after_a_whole_program, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(machine_suite());
}
