#include "observe/trace_memo.h"
#include <stdlib.h>
#include <string.h>

static char *memo_chars(struct line_memo *lm)
{
    return (char *)&lm->off[lm->ninsns + 1];
}

static uint32_t sym_generation(const struct memo_maker *mk)
{
    return mk->syms ? mk->syms->generation : 0;
}

/* The fixed part of the index-th instruction's line, into mk->line. */
static void fixed_part(const struct memo_maker *mk, struct block_cache *bc,
                       const struct block *b, uint32_t index)
{
    const struct insn *in = &b->insns[index];
    char sym[128] = "";
    if (mk->syms)
        symtab_format_near(mk->syms, in->addr, sym, sizeof sym, mk->last_sym);
    const char *text = block_insn_text(bc, b, index);
    bool kernel = in_kernel_ram(in->addr);
    if (mk->csv)
        trace_line_csv_tail(mk->line, in->addr, kernel, sym, text, in->cost);
    else
        trace_line_text_head(mk->line, in->addr, kernel, sym, text, in->cost);
}

/* Two passes over the block: the first sizes the memo, the second fills it. */
static struct line_memo *make_memo(const struct memo_maker *mk, struct block_cache *bc,
                                   const struct block *b)
{
    size_t size = sizeof(struct line_memo) + (b->ninsns + 1) * sizeof(uint32_t);
    for (uint32_t i = 0; i < b->ninsns; i++) {
        fixed_part(mk, bc, b, i);
        size += mk->line->len;
    }
    struct line_memo *lm = malloc(size);
    if (!lm)
        return NULL;
    lm->sym_gen = sym_generation(mk);
    lm->csv = mk->csv;
    lm->ninsns = b->ninsns;
    lm->rep = false;
    lm->modes = 0;
    size_t used = 0;
    for (uint32_t i = 0; i < b->ninsns; i++) {
        fixed_part(mk, bc, b, i);
        lm->rep |= (b->insns[i].flags & SPECIAL_REP) != 0;
        lm->modes |= in_kernel_ram(b->insns[i].addr) ? MEMO_KERNEL : MEMO_USER;
        lm->off[i] = (uint32_t)used;
        memcpy(memo_chars(lm) + used, mk->line->buf, mk->line->len);
        used += mk->line->len;
    }
    lm->off[b->ninsns] = (uint32_t)used;
    return lm;
}

const struct line_memo *line_memo_make(const struct memo_maker *mk, struct block_cache *bc,
                                       struct block *b)
{
    struct line_memo *lm = make_memo(mk, bc, b);
    if (!lm)
        return NULL;
    free(b->memo);
    b->memo = lm;
    return lm;
}
