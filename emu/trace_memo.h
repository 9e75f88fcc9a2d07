/*
 * A memo of each translated block's trace lines as far as they never
 * change (text: all but the end cycles; CSV: all after them), made the
 * first time the block is traced and kept with it (block.memo) until its
 * code or the symbols change: then a traced instruction costs a copy and
 * its cycles' digits (trace_line.h's parts).
 */
#ifndef EMU_TRACE_MEMO_H
#define EMU_TRACE_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "decode.h"
#include "symbols.h"
#include "trace_line.h"

struct line_memo;

/* What a memo is made from: the format, the symbols (NULL: none) and the
 * look-up hint and line buffer the trace keeps. */
struct memo_maker {
    bool csv;
    struct symtab *syms;
    size_t *last_sym;
    struct trace_line *line;
};

/* b's memo, made (or remade, if stale) now; NULL if out of memory. */
const struct line_memo *line_memo_of(const struct memo_maker *mk, struct block_cache *bc,
                                     struct block *b);
/* The longest line the index-th instruction's memo makes. */
size_t line_memo_max(const struct line_memo *lm, uint32_t index);
/* That line, which ran in [start, end) centicycles, into out (room for
 * line_memo_max bytes); returns its length. */
size_t line_memo_line(const struct line_memo *lm, uint32_t index, char *out, uint64_t start,
                      uint64_t end);

#endif
