/* Trace files: one record per system call or trap, optionally one per
 * instruction; text, CSV, or Chrome Trace Event JSON (Perfetto). */
#ifndef EMU_TRACE_H
#define EMU_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "machine.h"
#include "syscalls.h"

enum trace_format { TRACE_TEXT, TRACE_JSON, TRACE_CSV };

struct trace {
    FILE *f;
    enum trace_format format;
    bool insns;
    bool first_event;
    double cycles_per_us;
    const struct syscall_tracker *sys;  /* set by trace_attach */
};

/* Returns 0, or -1 if name is not a format. */
int trace_parse_format(const char *name, enum trace_format *out);
/* NULL with a message in err on failure. */
struct trace *trace_open(const char *path, enum trace_format format, bool insns,
                         uint32_t clock_mhz, char *err, size_t errlen);
/* Write sys's records, and with insns each instruction of m. 0 or -1. */
int trace_attach(struct trace *t, struct machine *m, struct syscall_tracker *sys);
void trace_syscall(struct trace *t, const struct syscall_record *r);
void trace_user_span(struct trace *t, uint64_t start, uint64_t end);
void trace_insn(struct trace *t, uint32_t addr, bool kernel, const char *text,
                uint32_t cost, uint64_t total);
int trace_close(struct trace *t);

#endif
