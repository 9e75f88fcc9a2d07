/*
 * The execution loop (emu/cpu/run.c): the instruction budget stops a program
 * that never ends, at exactly its count, only instructions the model must see get a code hook,
 * and a rep's own runs (its short path in the block hook) still see an
 * interrupt between elements and a store into their own code.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

START_TEST(instruction_budget_stops_a_loop)
{
    struct emu_result r;
    emu(&r, "run", "--max-insns", "100000", program("faults"), "loop", NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_msg(strstr(r.err, "budget"), "%s", r.err);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);

    /* A budget the boot fits in: the loop itself is what runs out of it. */
    emu(&r, "run", "--max-insns", "5000000", program("faults"), "loop", NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_msg(strstr(r.out, "loop: eip="), "the program did not start: %s", r.out);
    ck_assert_msg(strstr(r.err, "budget"), "%s", r.err);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
}
END_TEST

/* Instruction lines of a --trace-insns trace: "  ADDRESS k|u ..." */
static int traced_insns(const char *trace)
{
    int n = 0;
    for (const char *l = trace; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        size_t hex = strspn(l + 2, "0123456789abcdef");
        n += l[0] == ' ' && l[1] == ' ' && hex == 8 && l[10] == ' ' &&
             (l[11] == 'k' || l[11] == 'u');
    }
    return n;
}

/* Budgets a few instructions apart, most of them inside a block of the
 * getpid loop: each run reports exactly its budget, and its trace shows
 * one instruction more than the run before (a block cut short tells only
 * what ran). */
START_TEST(the_budget_runs_exactly_that_many_instructions)
{
    const unsigned long long base = 270000;
    int before = -1;
    for (unsigned long long n = base; n < base + 6; n++) {
        char budget[32], want[64];
        snprintf(budget, sizeof budget, "%llu", n);
        snprintf(want, sizeof want, "cpu pentium4: %llu instructions,", n);
        struct emu_result r;
        emu(&r, "run", "--max-insns", budget, "--report", "--trace", "/dev/stdout",
            "--trace-insns", program("syscall_loop"), "getpid", "2000", NULL);
        ck_assert_int_eq(r.status, 124);
        ck_assert_msg(strstr(r.err, want), "%s", r.err);
        int traced = traced_insns(r.out);
        if (before >= 0)
            ck_assert_int_eq(traced, before + 1);
        before = traced;
        emu_result_free(&r);
    }
}
END_TEST

/* Whether the rep after addr (within 32 bytes) has its count known from
 * the instruction at addr on: a block from addr to that rep reads it at
 * its entry (rep_count.h). */
static bool counts_a_rep(struct machine *m, uint32_t addr)
{
    const uint8_t *code = guest_ptr(&m->mem, addr, 32);
    struct block *b = code ? block_decode(&m->blocks, addr, code, 32) : NULL;
    uint32_t len = 0;
    for (uint32_t i = 0; b && i < b->ninsns && !len; i++)
        if (i > 0 && (b->insns[i].flags & SPECIAL_REP))
            len = b->insns[i].addr + b->insns[i].len - addr;
    if (b)
        block_free(b);
    if (!len)
        return false;
    b = block_decode(&m->blocks, addr, code, len);
    bool known = b && (b->insns[b->ninsns - 1].flags & INSN_REP_EARLY) && b->rep.from == 0;
    if (b)
        block_free(b);
    return known;
}

/* The code hooks the block hook put in are exactly on the instructions the
 * CPU model must see first (rdtsc, rdmsr, wrmsr, in, out, a rep whose
 * count is not known before it) and on those before which a following
 * rep's count is read (rep_count.h). */
START_TEST(only_special_instructions_get_code_hooks)
{
    struct guest *g = guest_new("pentium4", "hello", NULL);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_gt(g->m.nspecial, 0);   /* the kernel's rdtsc and outs */
    for (int i = 0; i < g->m.nspecial; i++) {
        uint32_t addr = g->m.special_addrs[i];
        const uint8_t *code = guest_ptr(&g->m.mem, addr, 16);
        ck_assert_ptr_nonnull(code);
        struct block *b = block_decode(&g->m.blocks, addr, code, 16);
        ck_assert_ptr_nonnull(b);
        ck_assert_msg((b->insns[0].flags & SPECIALS) || counts_a_rep(&g->m, addr),
                      "a code hook on %08x, class %s", addr, class_name(b->insns[0].cls));
        for (int j = 0; j < i; j++)
            ck_assert_uint_ne(g->m.special_addrs[j], addr);   /* once each */
        block_free(b);
    }
    guest_free(g);
}
END_TEST

/* The kernel runs at CPL 0, where an in or out passes the I/O permission
 * check: its writes to the 8259A and the PIT (a port in the instruction)
 * get no code hook; its hypercalls (ports 0xe0-0xef), whose work is
 * charged at the out, do. (A port in DX is not known before: hooked.) */
START_TEST(the_kernels_device_ports_get_no_code_hook)
{
    struct guest *g = guest_new("pentium4", "hello", NULL);
    int hypercalls = 0;
    ck_assert_int_eq(guest_run(g), 0);
    for (int i = 0; i < g->m.nspecial; i++) {
        uint32_t addr = g->m.special_addrs[i];
        const uint8_t *code = guest_ptr(&g->m.mem, addr, 16);
        struct block *b = code ? block_decode(&g->m.blocks, addr, code, 16) : NULL;
        ck_assert_ptr_nonnull(b);
        const struct insn *in = &b->insns[0];
        uint8_t op = in->len >= 2 ? code[in->len - 2] : 0, port = code[in->len - 1];
        if (in_kernel_ram(addr) && (in->flags & SPECIAL_IO) && op >= 0xe4 && op <= 0xe7) {
            ck_assert_msg(port >= 0xe0, "a code hook on the kernel's %02x %02x at %08x", op,
                          port, addr);
            hypercalls++;
        }
        block_free(b);
    }
    ck_assert_int_gt(hypercalls, 0);
    guest_free(g);
}
END_TEST

/* --no-cycle-model: no block hook, so nothing is counted, and the program
 * still runs (its clock then is not the model's). */
START_TEST(without_the_cycle_model_nothing_is_charged)
{
    struct machine *m = calloc(1, sizeof *m);
    static char *argv[] = { "hello", "5", NULL };
    static char *envp[] = { NULL };
    struct run_options opts = { .cpu_spec = "pentium4", .max_insns = 100000000, .quiet = true,
                                .no_cycle_model = true, .argc = 2, .argv = argv,
                                .envp = envp };
    opts.program = program("hello");
    ck_assert_int_eq(machine_init(m, &opts), 0);
    ck_assert_int_eq(machine_run(m), 5);
    ck_assert_int_eq(m->stop, STOP_EXIT);
    ck_assert_uint_eq(m->insns, 0);
    ck_assert_uint_eq(m->cycles, 0);
    machine_destroy(m);
    free(m);
}
END_TEST

/* ---- a rep's own runs (run.c, rep_again) ---- */

#define REP_DST 0x08060000u

/* The cycles at the block hook of each run of the rep at rep_at in a
 * block of its own: where the timer's deadline is checked (a rep's own
 * block charges nothing at its entry, so the observer sees them as the
 * check did); and the cycles at the timer's delivery. */
static uint32_t rep_at;
static uint64_t own_runs, last_own_run;
static struct insn last_at_rep;   /* the first instruction of the last block there */

static void saw_block(void *ctx, struct machine *m, const struct block *blk)
{
    (void)ctx;
    if (blk->addr == rep_at) {
        own_runs++;
        last_own_run = m->cycles;
        last_at_rep = blk->insns[0];
    }
}

/* Watch the blocks at at on b's machine, from no runs seen. */
static void watch_rep(struct bare *b, uint32_t at)
{
    const struct machine_observer o = { .block = saw_block };
    ck_assert_int_eq(machine_observe(&b->m, &o), 0);
    rep_at = at;
    own_runs = last_own_run = 0;
    memset(&last_at_rep, 0, sizeof last_at_rep);
}

static uint64_t dot(const struct machine *m)
{
    uint64_t sum = 0;
    for (int c = 0; c < NCLASSES; c++)
        sum += m->class_count[c] * m->cpu.cost[c];
    return sum;
}

/* The 8259A as Linux sets it up (IRQ 0 at FIRST_EXTERNAL_VECTOR, the
 * only one unmasked) and the PIT in one-shot mode, due at deadline
 * (centicycles). */
static void arm_timer(struct machine *m, uint64_t deadline)
{
    m->irq.icw_step = 0;
    m->irq.vector_base = FIRST_EXTERNAL_VECTOR;
    m->irq.imr = (uint8_t)~(1u << IRQ_TIMER);
    m->irq.pit_mode = 0;
    m->irq.pit_running = true;
    m->irq.deadline = deadline;
}

/*
 * mov $n,%ecx; mov $dst,%edi; cld; rep stosl; hlt, with the timer due
 * while the rep runs. A CPU takes an interrupt between the elements of a
 * rep string op (EIP still at the rep, ECX what is left); here it is
 * taken at the first of the rep's own blocks whose check finds the
 * deadline passed: the run before it was checked before the deadline,
 * and its element brought the cycles past it. The rep goes on after the
 * handler from where it was (not started here: the handler halts).
 */
START_TEST(a_timer_due_inside_a_long_rep_is_taken_between_its_elements)
{
    struct bare b;
    const uint32_t n = 4000;
    uint8_t code[] = { 0xb9, 0, 0, 0, 0, 0xbf, 0, 0, 0, 0, 0xfc, 0xf3, 0xab, 0xf4 };
    uint32_t dst = REP_DST;
    memcpy(code + 1, &n, 4);
    memcpy(code + 6, &dst, 4);
    bare_init(&b, "pentium4");
    watch_rep(&b, BARE_UCODE + 11);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    uint64_t element = b.m.cpu.cost[CLASS_REP_STOS];
    uint64_t deadline = b.m.cycles + 2000 * element + element / 2;
    arm_timer(&b.m, deadline);
    bare_run(&b, BARE_UCODE, true);

    ck_assert_int_eq(bare_halted_vector(&b), FIRST_EXTERNAL_VECTOR + IRQ_TIMER);
    ck_assert_uint_eq(b.m.irq.delivered, 1);
    /* taken between elements: the frame's EIP is the rep's */
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 20), rep_at);
    uint32_t left = bare_reg(&b, UC_X86_REG_ECX);
    ck_assert_uint_gt(left, 0);
    ck_assert_uint_lt(left, n);
    /* charged the elements it stored, each once, and one start-up */
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS], n - left);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS_START], 1);
    ck_assert_uint_eq(bare_u32(&b, REP_DST + 4 * (n - left - 1)), 0);
    ck_assert_uint_eq(own_runs, n - left - 1);   /* the first ran in the leading block */
    /* at the first boundary after the deadline */
    ck_assert_uint_lt(last_own_run, deadline);
    ck_assert_uint_ge(last_own_run + element, deadline);
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
    bare_destroy(&b);
}
END_TEST

/*
 * mov $10,%ecx; mov $rep-3,%edi; mov $0xcd,%al; cld; jmp 1f; three
 * bytes; 1: rep stosb; hlt. The rep's fourth element stores 0xcd over
 * its own rep prefix: the code at the rep is then "cd aa", int $0xaa, as
 * long as the rep was (the same size of block). The block hook sees the
 * new bytes: the observers are told the int's block, not the rep's, and
 * the int is not charged as one more element.
 *
 * What the engine runs then differs. 2.0 drops the rep's translation and
 * runs the int (delivered through its gate, ECX what the rep left).
 * 2.1.1 goes on with the rep it had translated until ECX is 0, its
 * further stores uncharged (the hook reads the int at each of them: the
 * code in memory is not the code that runs, docs/unicorn.md quirk 22),
 * and its last stores make the code at the rep and after it "cd cd",
 * int $0xcd, whose gate is kernel-only: a #GP.
 */
START_TEST(a_rep_that_overwrites_its_own_code_is_noticed)
{
    struct bare b;
    uint8_t code[] = { 0xb9, 10, 0, 0, 0, 0xbf, 0, 0, 0, 0, 0xb0, 0xcd, 0xfc, 0xeb, 0x03,
                       0x90, 0x90, 0x90, 0xf3, 0xaa, 0xf4 };
    uint32_t first = BARE_UCODE + 15;
    const int vector = code[19];   /* the stosb opcode, then the int's vector */
    memcpy(code + 6, &first, 4);
    bare_init(&b, "pentium4");
    watch_rep(&b, BARE_UCODE + 18);
    bare_set_gate(&b, vector, X86_TYPE_TRAP_GATE32, 3);
    bare_write(&b, BARE_UCODE, code, sizeof code);
    bare_run(&b, BARE_UCODE, true);

    ck_assert_uint_eq(last_at_rep.addr, rep_at);
    ck_assert(last_at_rep.flags & INSN_SOFTINT);
    ck_assert_uint_eq(bare_u32(&b, first), 0xcdcdcdcdu);
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS_START], 1);
#if UC_VERSION_MAJOR == 2 && UC_VERSION_MINOR == 0
    ck_assert_uint_eq(last_at_rep.int_vector, vector);
    ck_assert_int_eq(bare_halted_vector(&b), vector);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 20), rep_at + 2);   /* after the int */
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ECX), 6);
    ck_assert_uint_eq(b.m.class_count[CLASS_INT], 1);
    /* Four elements stored, the fourth charged twice: a store into the
     * block that runs makes the engine run it again as a block of its
     * own (docs/unicorn.md, quirk 22), which at the block's own start the
     * block hook cannot tell from the rep's next run (run.c, restart_of). */
    ck_assert_uint_eq(b.m.class_count[CLASS_REP_STOS], 5);
#else
    ck_assert_uint_eq(last_at_rep.int_vector, code[11]);   /* "cd cd" by then */
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 20), rep_at + 2);   /* at int $0xcd */
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ECX), 0);
    ck_assert_uint_eq(bare_u32(&b, first + 6), 0xcdcdcdcdu);
    ck_assert_uint_eq(b.m.class_count[CLASS_INT], 0);
#endif
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
    bare_destroy(&b);
}
END_TEST

/*
 * mov $2,%ebx; 1: call B; movl $NEW,B; dec %ebx; jnz 1b; hlt;
 * B: inc %eax (4 times); ret. The program rewrites B's first four bytes
 * to imul %eax,%eax; nop between its two calls: the same size of block
 * at the same address, whose translation the engine drops and makes
 * again. The block hook's cache still holds the old block there, and
 * the bytes it compares are what tells it the block is another: the
 * second call is charged as the imul and the nop it runs.
 */
START_TEST(a_block_rewritten_to_its_own_size_is_charged_as_rewritten)
{
    struct bare b;
    enum { B = 24 };
    uint8_t code[] = { 0xbb, 0x02, 0x00, 0x00, 0x00,                 /* mov $2, %ebx */
                       0xe8, B - 10, 0x00, 0x00, 0x00,               /* 1: call B */
                       0xc7, 0x05, 0, 0, 0, 0, 0x0f, 0xaf, 0xc0, 0x90, /* movl $NEW, B */
                       0x4b, 0x75, 0xee,                             /* dec %ebx; jnz 1b */
                       0xf4,                                         /* hlt: #GP at CPL 3 */
                       0x40, 0x40, 0x40, 0x40, 0xc3 };               /* B: inc x4; ret */
    uint32_t at = BARE_UCODE + B;
    memcpy(code + 12, &at, 4);
    bare_init(&b, "pentium4");
    bare_write(&b, BARE_UCODE, code, sizeof code);
    reg_write(&b.m, UC_X86_REG_EAX, 3);
    bare_run(&b, BARE_UCODE, true);

    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX), 7 * 7);
    ck_assert_uint_eq(b.m.class_count[CLASS_IMUL], 1);
    ck_assert_uint_eq(b.m.cycles, dot(&b.m));
    bare_destroy(&b);
}
END_TEST

Suite *loop_suite(void)
{
    Suite *s = suite_create("run");
    TCase *tc = tcase_create("loop");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, instruction_budget_stops_a_loop);
    tcase_add_test(tc, a_block_rewritten_to_its_own_size_is_charged_as_rewritten);
    tcase_add_test(tc, the_budget_runs_exactly_that_many_instructions);
    tcase_add_test(tc, only_special_instructions_get_code_hooks);
    tcase_add_test(tc, the_kernels_device_ports_get_no_code_hook);
    tcase_add_test(tc, without_the_cycle_model_nothing_is_charged);
    tcase_add_test(tc, a_timer_due_inside_a_long_rep_is_taken_between_its_elements);
    tcase_add_test(tc, a_rep_that_overwrites_its_own_code_is_noticed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(loop_suite());
}
