/*
 * Charging modeled time: a block at its entry, an instruction, a rep
 * string op run by run, and taking back what did not run. The primitives
 * of the cycle model; the CPU mechanisms and the execution loop call them.
 */
#ifndef EMU_CHARGE_H
#define EMU_CHARGE_H

#include "machine/machine.h"

/* Charge count instructions of class cls. */
void charge(struct machine *m, int cls, uint64_t count);
/* The instruction running, of class cls, is not charged after all (a
 * hypercall's `out` that stands for the kernel's own work): its cost and
 * its count come off, and the rest of the block starts that much earlier. */
void refund_current_insn(struct machine *m, int cls);
/* Charge block b at its entry: every instruction not charged later.
 * (Inline, as is machine_notify_block: the block hook's every block.) A
 * user block's classes are counted at the next read (block_ran): a user
 * loop runs its blocks many times between two reads, where the kernel's
 * run about once between the accounting's at a call's entry and exit. */
static inline void charge_block(struct machine *m, const struct block *b, bool user)
{
    m->rep_charged = NULL;
    m->cycles += b->cost;
    if (user) {
        block_ran(&m->blocks, b);
        return;
    }
    for (uint32_t t = 0; t < b->ntally; t++)
        m->class_count[b->tally[t].cls] += b->tally[t].n;
}
/* Instruction counts by class at the start of the instruction at addr in
 * the current block (m->class_count if addr is not in it). Valid before
 * anything is charged later in the block (a rep, an int's delivery). */
void counts_before(struct machine *m, uint32_t addr, uint64_t out[NCLASSES]);

/*
 * A rep string op is charged as it runs, just before each run (in a code
 * hook on it, or earlier: rep_early, below): the engine
 * runs it once per element and once more with the count
 * at zero. Its start-up is charged on the first run (even with a zero
 * count: the CPU still starts the instruction); one element on each run
 * that finds a non-zero count. A run continues the previous one only if
 * nothing else ran in between: after an interrupt or a fault the
 * instruction starts again, and so does its start-up. A run that faults is
 * refunded, like any instruction that faults (truncate_current_block).
 */
/* What the next run of rep op `in` will be charged (no side effects). */
struct rep_step rep_step_of(struct machine *m, const struct insn *in);
/* Centicycles of that step. */
uint64_t rep_step_cost(const struct machine *m, const struct insn *in, struct rep_step s);
/* Charge the next run of rep op `in`, which finds ECX (or CX) at count. */
void charge_rep(struct machine *m, const struct insn *in, uint32_t count);
/*
 * A block that ends with a rep whose count is known before it
 * (rep_count.h) charges that run early (charge_rep_early): at its entry,
 * after the block, or in a code hook on the instruction its count is read
 * before, instead of in a code hook on the rep: the same step as the rep's
 * hook would have charged just before the rep ran, and refunded the same
 * way if the block is cut before it. Not while a debugger holds
 * instructions: then every rep keeps its hook, which is where the
 * debugger can stop it.
 */
static inline bool rep_early(const struct machine *m, const struct insn *in)
{
    return (in->flags & INSN_REP_EARLY) && !m->hold.insn;
}
static inline bool rep_count_here(const struct machine *m, const struct insn *in)
{
    return (in->flags & INSN_REP_COUNT) && !m->hold.insn;
}
void charge_rep_early(struct machine *m, const struct block *b);
/*
 * The next run of the live rep op `in` in a block of its own (rep_live at
 * in->addr: the run before was its own, with an element): charge_rep's
 * step without its start-up, inline for the block hook, which runs it
 * once per element of every long rep.
 */
static inline void charge_rep_again(struct machine *m, const struct insn *in)
{
    uint32_t count = reg_read(m, UC_X86_REG_ECX);
    if (in->flags & INSN_ADDR16)
        count &= 0xffff;
    bool element = count != 0;
    if (element) {
        m->cycles += m->cpu.cost[in->cls];
        m->class_count[in->cls]++;
    }
    m->rep_charged = in;
    m->rep_step = (struct rep_step){ .start = false, .element = element };
    m->rep_live = element;
}
/* Stop charging the current block at insns[index]: refund it and the rest. */
void truncate_current_block(struct machine *m, uint32_t index);
/* Centicycles at the start of the instruction at addr in the current block. */
uint64_t cycles_before(struct machine *m, uint32_t addr);

#endif
