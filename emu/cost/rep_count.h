/*
 * The count a rep string op finds when it first runs, worked out at the
 * entry of the block it ends (decode.h). The engine gives a rep op the
 * end of its block, and each further run a block of its own that starts
 * at it; the model charges every run (machine.h, charge_rep). A run whose
 * count is known at the block's entry is charged there, without a code
 * hook on the instruction: the count is ECX at the entry, or what a short
 * chain of moves and constant arithmetic before the rep makes of one
 * register's value at the entry (or of a constant). Where the chain only
 * starts further on (a count loaded from memory, then shifted), the count
 * is read just before the chain's first instruction, in a code hook there:
 * that instruction is in the leading block only, never in the rep's own
 * blocks, which run hook-free. Only a count the instruction right before
 * the rep makes (from memory, say) keeps the code hook on the rep.
 */
#ifndef EMU_REP_COUNT_H
#define EMU_REP_COUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <capstone/capstone.h>

#define REP_COUNT_MAX_OPS 4
#define REP_COUNT_CONST 0xff   /* source: no register, start from base */

enum rep_count_op { REP_OP_SHR, REP_OP_SAR, REP_OP_SHL, REP_OP_AND, REP_OP_ADD };

struct rep_count {
    uint8_t src;      /* 0-7: that register at the block's entry (EAX..EDI in
                         encoding order), or REP_COUNT_CONST */
    uint8_t nops;
    uint8_t op[REP_COUNT_MAX_OPS];
    uint32_t imm[REP_COUNT_MAX_OPS];
    uint32_t base;    /* the constant, for REP_COUNT_CONST */
    uint16_t from;    /* the recipe reads src just before insns[from] runs
                         (0: the block's entry; the rep's index: no recipe) */
};

/*
 * insns[0..n-1] is a block whose last instruction is a rep op. The recipe
 * in rc: the count that op finds is the value of one register (or a
 * constant) just before insns[rc->from] runs, through moves, shifts, and,
 * add, sub, inc and dec by constants only, with nothing in between that a
 * hook could change registers in (specials, int n: special says which).
 * rc->from is as small as that allows; n - 1 when nothing does.
 */
void rep_count_analyse(csh cs, const cs_insn *insns, size_t n, const bool *special,
                       struct rep_count *rc);
/* The count, given the entry value of register rc->src (ignored for
 * REP_COUNT_CONST). */
uint32_t rep_count_eval(const struct rep_count *rc, uint32_t src_value);

#endif
