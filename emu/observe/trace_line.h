/*
 * One instruction's line of a text or CSV trace, formatted by hand into a
 * buffer: the same bytes fprintf made ("%08x", "%-28s", "%.2f" of
 * centicycles, ...), without fprintf's parsing or doubles, which were most
 * of --trace-insns' time.
 */
#ifndef EMU_TRACE_LINE_H
#define EMU_TRACE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TRACE_LINE_MAX 1024

struct trace_line {
    char buf[TRACE_LINE_MAX];
    size_t len;
};

/* "  %08x %c %-28s %-40s +%-7.2f %12.2f\n" of cycles given in centicycles. */
void trace_line_text(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                     const char *text, uint64_t cost, uint64_t end);
/* "insn,,,,,,,,,,,,,START,END,COST,,,,,ADDR,SYM,MODE,TEXT\n", SYM and TEXT
 * quoted as CSV needs. */
void trace_line_csv(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                    const char *text, uint64_t start, uint64_t end);

/* The same lines in two parts: what an instruction's line always has
 * (text: up to END; CSV: from the comma after END), made once, and what
 * changes each time it runs (trace_line_*_times). The head or tail is the
 * line's buffer; times_* write into out, which has TRACE_TIMES_MAX bytes,
 * and return the length. */
#define TRACE_TIMES_MAX 96
/* A CSV line's fields before its start and end cycles. */
#define TRACE_CSV_LEAD "insn,,,,,,,,,,,,,"
void trace_line_text_head(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                          const char *text, uint64_t cost);
size_t trace_line_text_times(char *out, uint64_t end);
void trace_line_csv_tail(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                         const char *text, uint64_t cost);
size_t trace_line_csv_times(char *out, uint64_t start, uint64_t end);

/* The text of a count of cycles made last (right-aligned in width), so
 * that the next, nearly always within the same hundred cycles, costs a
 * copy and two digit pairs. Zeroed: none made yet. */
struct cycles_memo {
    uint64_t base;              /* text's count down to its hundred cycles
                                   (a multiple of 10000 centicycles); 0: none */
    uint64_t last;              /* the count text is (when base is not 0) */
    uint32_t len;
    char text[32];
};

/* centi in width (right-aligned) into out, which has room for 32 bytes,
 * when cm has no text of its hundreds of cycles (the next hundred's is
 * cm's carried on). */
size_t cycles_memo_remake(struct cycles_memo *cm, char *out, uint64_t centi, size_t width);

/* (Inline: every traced instruction's line goes through these.) */
extern const char trace_digit_pairs[];

static inline size_t cycles_memo_text(struct cycles_memo *cm, char *out, uint64_t centi,
                                      size_t width)
{
    /* no division: base is 0 (none) or at least 10000 */
    uint64_t off = centi - cm->base;
    if (!cm->base || off >= 10000)
        return cycles_memo_remake(cm, out, centi, width);
    unsigned low = (unsigned)off;
    memcpy(cm->text + cm->len - 5, trace_digit_pairs + 2 * (low / 100), 2);
    memcpy(cm->text + cm->len - 2, trace_digit_pairs + 2 * (low % 100), 2);
    cm->last = centi;
    memcpy(out, cm->text, sizeof cm->text);
    return cm->len;
}

/* trace_line_*_times' bytes, through the memos (CSV: start's, end's; a
 * start that is the end before is end's text). */
static inline size_t trace_line_text_times_memo(struct cycles_memo *cm, char *out, uint64_t end)
{
    size_t n = cycles_memo_text(cm, out, end, 12);
    out[n] = '\n';
    return n + 1;
}

static inline size_t trace_line_csv_times_memo(struct cycles_memo cm[2], char *out,
                                               uint64_t start, uint64_t end)
{
    size_t k = sizeof TRACE_CSV_LEAD - 1;
    memcpy(out, TRACE_CSV_LEAD, k);
    /* nearly always where the line before ended */
    if (cm[1].base && start == cm[1].last) {
        memcpy(out + k, cm[1].text, sizeof cm[1].text);
        k += cm[1].len;
    } else {
        k += cycles_memo_text(&cm[0], out + k, start, 0);
    }
    out[k++] = ',';
    return k + cycles_memo_text(&cm[1], out + k, end, 0);
}

#endif
