/*
 * The Chrome Trace Event form of a trace (trace.h): the process and thread
 * names as metadata, then complete ("X") slices on one thread: boot, user
 * spans, system calls with their entry/body/exit slices inside, and each
 * traced instruction inside whichever of those it ran in; the fatal signal
 * and the exit as instant events.
 */
#ifndef EMU_TRACE_JSON_H
#define EMU_TRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "syscalls.h"
#include "trace_out.h"

struct json_trace {
    struct trace_out *out;
    uint32_t clock_mhz;
    bool first_event;
};

/* The header and the metadata naming the process and its thread. */
void trace_json_begin(struct json_trace *j, const char *name);
void trace_json_end(struct json_trace *j);
/* Times in centicycles; args: a JSON object, or NULL. */
void trace_json_slice(struct json_trace *j, const char *name, const char *cat, uint64_t start,
                      uint64_t end, const char *args);
/* from: the symbol of where user mode entered the kernel. */
void trace_json_record(struct json_trace *j, const struct syscall_record *r, const char *from);
void trace_json_insn(struct json_trace *j, uint32_t addr, bool kernel, const char *text,
                     const char *symbol, uint64_t start, uint64_t end);
void trace_json_instant(struct json_trace *j, const char *name, uint64_t when, const char *args);
/* Centicycles as integer nanoseconds of the modeled clock. */
uint64_t trace_ns(const struct json_trace *j, uint64_t centi);

#endif
