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
#include <string.h>
#include "cost/decode.h"
#include "observe/symbols.h"
#include "observe/trace_line.h"

/* The parts, one after another; off[i] is where the i-th begins. */
struct line_memo {
    uint32_t sym_gen;
    bool csv;
    bool rep;                   /* a rep op among them: not every line is its part's */
    uint8_t modes;              /* MEMO_USER | MEMO_KERNEL: where they are */
    uint32_t longest;           /* the longest part's length */
    uint32_t ninsns;
    uint32_t off[];             /* ninsns + 1 offsets into the chars after */
};

/* Zeroed bytes after a memo's chars: its parts are copied in fixed sizes
 * up to this (line_memo_run), reading past their ends. */
#define MEMO_SLACK 160

#define MEMO_USER 1
#define MEMO_KERNEL 2

/* What a memo is made from: the format, the symbols (NULL: none) and the
 * look-up hint and line buffer the trace keeps. */
struct memo_maker {
    bool csv;
    struct symtab *syms;
    size_t *last_sym;
    struct trace_line *line;
};

/* b's memo made (or remade) now; NULL if out of memory. */
const struct line_memo *line_memo_make(const struct memo_maker *mk, struct block_cache *bc,
                                       struct block *b);

/* (Inline: a traced instruction's every line goes through these.) */
static inline const char *line_memo_chars(const struct line_memo *lm)
{
    return (const char *)&lm->off[lm->ninsns + 1];
}

/* b's memo, made now if it has none or a stale one; NULL if out of memory. */
static inline const struct line_memo *line_memo_of(const struct memo_maker *mk,
                                                   struct block_cache *bc, struct block *b)
{
    const struct line_memo *lm = b->memo;
    if (lm && lm->sym_gen == (mk->syms ? mk->syms->generation : 0) && lm->csv == mk->csv)
        return lm;
    return line_memo_make(mk, bc, b);
}

/* The longest line the index-th instruction's memo makes. */
static inline size_t line_memo_max(const struct line_memo *lm, uint32_t index)
{
    return lm->off[index + 1] - lm->off[index] + TRACE_TIMES_MAX;
}

/* The index-th instruction's part, of *n bytes. */
static inline const char *line_memo_part(const struct line_memo *lm, uint32_t index, size_t *n)
{
    *n = lm->off[index + 1] - lm->off[index];
    return line_memo_chars(lm) + lm->off[index];
}

/* A line from its part (n bytes) and the times it ran, [start, end)
 * centicycles (their text through the memos times), into out (room for
 * n + TRACE_TIMES_MAX bytes); returns its length. */
static inline size_t line_memo_join(bool csv, const char *part, size_t n, char *out,
                                    struct cycles_memo times[2], uint64_t start, uint64_t end)
{
    if (csv) {
        size_t k = trace_line_csv_times_memo(times, out, start, end);
        memcpy(out + k, part, n);
        return k + n;
    }
    memcpy(out, part, n);
    return n + trace_line_text_times_memo(&times[1], out + n, end);
}

/* The index-th instruction's line, which ran in [start, end), into out
 * (room for line_memo_max bytes); returns its length. */
static inline size_t line_memo_line(const struct line_memo *lm, uint32_t index, char *out,
                                    struct cycles_memo times[2], uint64_t start, uint64_t end)
{
    size_t n;
    const char *part = line_memo_part(lm, index, &n);
    return line_memo_join(lm->csv, part, n, out, times, start, end);
}

/* What the times of every line ending in one hundred cycles have alike
 * (CSV "LEAD<start>,<end>", text "<end>\n"), and where in it the two
 * counts' last five characters are. Zeroed: none. */
struct times_form {
    uint64_t base;              /* the hundred's (cycles_memo's base) */
    size_t len, start_at, end_at;
    char tmpl[96];
};

/* The lines of the current block b's [from, to), the first starting at
 * *start, into out (room for line_memo_max of each and MEMO_SLACK more:
 * it writes past the lines' end), as line_memo_line
 * makes them (form: kept between calls); *start is moved past them, *last
 * is where the last begins. Returns the end of what it wrote. */
char *line_memo_run(const struct line_memo *lm, const struct block *b, uint32_t from,
                    uint32_t to, struct cycles_memo times[2], struct times_form *form,
                    uint64_t *start, char *out, char **last);

#endif
