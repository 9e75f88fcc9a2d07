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
#define TRACE_TIMES_MAX 64
void trace_line_text_head(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                          const char *text, uint64_t cost);
size_t trace_line_text_times(char *out, uint64_t end);
void trace_line_csv_tail(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                         const char *text, uint64_t cost);
size_t trace_line_csv_times(char *out, uint64_t start, uint64_t end);

#endif
