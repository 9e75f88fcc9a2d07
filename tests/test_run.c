/*
 * The execution loop (emu/run.c): the instruction budget stops a program
 * that never ends, and only instructions the model must see get a code
 * hook.
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

Suite *loop_suite(void)
{
    Suite *s = suite_create("run");
    TCase *tc = tcase_create("loop");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, instruction_budget_stops_a_loop);
    tcase_add_test(tc, only_special_instructions_get_code_hooks);
    tcase_add_test(tc, without_the_cycle_model_nothing_is_charged);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(loop_suite());
}
