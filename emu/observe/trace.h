/*
 * Trace files: the boot, each span of user mode, each system call or trap
 * (with its entry, body and exit), and with --trace-insns each instruction
 * (user, kernel or all), every address with its symbol; as text, CSV (one
 * schema, whatever is traced) or Chrome Trace Event JSON for Perfetto
 * (trace_json.c). A cycle window keeps only what overlaps it.
 *
 * Times are the model's cycles; the JSON gives them in microseconds of the
 * modeled clock, each boundary rounded once to a whole nanosecond, so
 * slices that touch in cycles touch in the file and never overlap.
 */
#ifndef EMU_TRACE_H
#define EMU_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
struct machine;
#include "cost/decode.h"
#include "observe/trace_line.h"
#include "observe/symbols.h"
#include "account/syscalls.h"
#include "observe/trace_json.h"
#include "observe/trace_memo.h"
#include "observe/trace_out.h"

enum trace_format { TRACE_TEXT, TRACE_JSON, TRACE_CSV };
enum trace_insns { INSNS_NONE, INSNS_USER, INSNS_KERNEL, INSNS_ALL };

struct trace_options {
    const char *path;
    enum trace_format format;
    enum trace_insns insns;
    uint64_t from, to;          /* the window, in cycles; to 0: to the end */
};

/* An instruction seen, written once the next event shows it completed. */
struct trace_insn {
    bool valid;
    uint32_t pid;               /* the process it ran in */
    uint32_t addr;
    bool kernel;
    uint64_t start, end;        /* centicycles */
    char text[INSN_TEXT_MAX];   /* a copy: the block may go before this is written */
    /* A copy of its memo's part (trace_memo.h), which makes its line if it
     * ran whole (cost memo_cost) under the same symbols; memo_len 0: none. */
    uint32_t memo_len, memo_gen;
    uint64_t memo_cost;
    char part[TRACE_LINE_MAX];
    /* Its line already written as if it ran whole (a file of its own),
     * at out.len written_at: nothing is written after it until it is
     * flushed, so it can be taken back. */
    bool written;
    size_t written_at;
};

struct trace {
    struct trace_out out;
    struct trace_options o;
    struct json_trace json;     /* the JSON writer, when the format is JSON */
    struct machine *m;
    const struct syscall_tracker *sys;
    struct symtab *syms;
    size_t last_sym;            /* the symbol of the instruction written last */
    struct trace_insn pending;
    struct trace_line line;     /* an instruction's line, formatted */
    struct memo_maker memo;     /* how its lines' memos are made */
    struct cycles_memo times[2];    /* the start and end cycles written last */
    struct times_form form;     /* of times[1]'s hundred, for runs of lines */
};

/* "text", "json", "csv"; "user", "kernel", "all"; "FROM:TO" in cycles (either
 * may be empty). 0, or -1 if the text is not one. */
int trace_parse_format(const char *name, enum trace_format *out);
int trace_parse_insns(const char *name, enum trace_insns *out);
int trace_parse_window(const char *text, uint64_t *from, uint64_t *to);

/* NULL with a message in err on failure. name: the process's name. */
struct trace *trace_open(const struct trace_options *o, uint32_t clock_mhz, const char *name,
                         char *err, size_t errlen);
/* Write sys's records, and the instructions of m the options ask for. */
int trace_attach(struct trace *t, struct machine *m, struct syscall_tracker *sys,
                 struct symtab *syms);
int trace_close(struct trace *t);

#endif
