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
    struct line_memo *lm = malloc(size + MEMO_SLACK);
    if (!lm)
        return NULL;
    memset((char *)lm + size, 0, MEMO_SLACK);
    lm->sym_gen = sym_generation(mk);
    lm->csv = mk->csv;
    lm->ninsns = b->ninsns;
    lm->rep = false;
    lm->modes = 0;
    lm->longest = 0;
    size_t used = 0;
    for (uint32_t i = 0; i < b->ninsns; i++) {
        fixed_part(mk, bc, b, i);
        lm->rep |= (b->insns[i].flags & SPECIAL_REP) != 0;
        lm->modes |= in_kernel_ram(b->insns[i].addr) ? MEMO_KERNEL : MEMO_USER;
        lm->off[i] = (uint32_t)used;
        if (mk->line->len > lm->longest)
            lm->longest = (uint32_t)mk->line->len;
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

/* ---- a run of lines in one hundred cycles ---- */

/* The last four digits of every count below 10000, as a line shows them
 * ("ab.cd": "abcd" here). */
static char low_digits[10000][4];

static void make_low_digits(void)
{
    if (low_digits[1][3])
        return;
    for (unsigned v = 0; v < 10000; v++) {
        memcpy(low_digits[v], trace_digit_pairs + 2 * (v / 100), 2);
        memcpy(low_digits[v] + 2, trace_digit_pairs + 2 * (v % 100), 2);
    }
}

/* n bytes (at most MEMO_SLACK) of a part to dst, as one of three fixed
 * sizes: up to MEMO_SLACK more are read (the memo's slack) and written
 * (the run's). */
static void copy_part(char *dst, const char *src, size_t n)
{
    if (n <= 64)
        memcpy(dst, src, 64);
    else if (n <= 96)
        memcpy(dst, src, 96);
    else
        memcpy(dst, src, MEMO_SLACK);
}

/* "ab.cd" at at */
static void put_low(char *at, const char *d)
{
    memcpy(at, d, 2);
    memcpy(at + 3, d + 2, 2);
}

struct run {
    const struct line_memo *lm;
    const struct block *b;
    char *p, *last;             /* where the next line goes, where the last began */
    uint64_t start;             /* where the next instruction starts */
};

/* f made for cm's hundred: CSV "LEAD<start>,<end>", text "<end>\n". */
static void make_form(struct times_form *f, bool csv, const struct cycles_memo *cm)
{
    size_t k = sizeof TRACE_CSV_LEAD - 1, len = cm->len;
    f->base = cm->base;
    if (!csv) {
        memcpy(f->tmpl, cm->text, sizeof cm->text);
        f->tmpl[len] = '\n';
        f->start_at = f->end_at = len - 5;
        f->len = len + 1;
        return;
    }
    memcpy(f->tmpl, TRACE_CSV_LEAD, k);
    memcpy(f->tmpl + k, cm->text, sizeof cm->text);
    f->tmpl[k + len] = ',';
    memcpy(f->tmpl + k + len + 1, cm->text, sizeof cm->text);
    f->start_at = k + len - 5;
    f->end_at = k + 2 * len - 4;
    f->len = k + 2 * len + 1;
}

/* Lines of [i, to) while they end in f's hundred, the first starting at
 * r's start (CSV: its memo's count); the index reached. A CSV line is its
 * times then its part, a text line the other way round; each copy may
 * run past its end, so the later one is written last. */
static inline __attribute__((always_inline)) uint32_t
run_lines(struct run *r, uint32_t i, uint32_t to, const struct times_form *f, bool csv)
{
    const struct insn *ins = r->b->insns;
    const uint32_t *off = r->lm->off;
    const char *chars = line_memo_chars(r->lm);
    char *p = r->p;
    unsigned low = (unsigned)(r->start - f->base);
    size_t tlen = f->len, start_at = f->start_at, end_at = f->end_at, n = 0;
    uint32_t o = off[i], from = i;
    for (; i < to; i++) {
        uint64_t e = low + (uint64_t)ins[i].cost;
        if (e >= 10000)
            break;
        uint32_t o1 = off[i + 1];
        n = o1 - o;
        char *times = csv ? p : p + n;
        if (csv)
            memcpy(times, f->tmpl, 64);
        copy_part(csv ? p + tlen : p, chars + o, n);
        if (!csv)
            memcpy(times, f->tmpl, 32);
        if (csv)
            put_low(times + start_at, low_digits[low]);
        put_low(times + end_at, low_digits[e]);
        p += tlen + n;
        low = (unsigned)e;
        o = o1;
    }
    if (i > from)
        r->last = p - tlen - n;
    r->p = p;
    r->start = f->base + low;
    return i;
}

/* Lines from i on in the end memo's hundred, if the next starts there
 * (CSV: where the line before ended); the index reached. */
static uint32_t run_in_hundred(struct run *r, uint32_t i, uint32_t to, struct cycles_memo *cm,
                               struct times_form *f)
{
    bool csv = r->lm->csv;
    if (!cm->base || (csv && r->start != cm->last) ||
        (!csv && (r->start < cm->base || r->start - cm->base >= 10000)))
        return i;
    if (f->base != cm->base)
        make_form(f, csv, cm);
    if (f->len > 64 || r->lm->longest > MEMO_SLACK)
        return i;
    /* (two loops, each with csv a constant) */
    uint32_t j = csv ? run_lines(r, i, to, f, true) : run_lines(r, i, to, f, false);
    if (j > i) {
        put_low(cm->text + cm->len - 5, low_digits[r->start - cm->base]);
        cm->last = r->start;
    }
    return j;
}

char *line_memo_run(const struct line_memo *lm, const struct block *b, uint32_t from,
                    uint32_t to, struct cycles_memo times[2], struct times_form *form,
                    uint64_t *start, char *out, char **last)
{
    struct run r = { lm, b, out, out, *start };
    make_low_digits();
    for (uint32_t i = from; i < to;) {
        uint32_t j = run_in_hundred(&r, i, to, &times[1], form);
        if (j == i) {
            uint64_t e = r.start + b->insns[i].cost;
            r.last = r.p;
            r.p += line_memo_line(lm, i, r.p, times, r.start, e);
            r.start = e;
            j = i + 1;
        }
        i = j;
    }
    *start = r.start;
    *last = r.last;
    return r.p;
}
