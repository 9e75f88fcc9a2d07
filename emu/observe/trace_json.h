/*
 * The Chrome Trace Event form of a trace (trace.h): one track (pid = tid)
 * per guest process, named by its command (the kernel's comm) in
 * process_name and thread_name metadata, written again when an exec
 * changes it (viewers keep the last); the boot on a track of its own,
 * pid 0 ("kernel", thread "boot"). On each track complete ("X") slices
 * that nest: user spans, system calls and traps with their entry/body/exit
 * slices inside, the times the process was switched out (inside the
 * call's phase, or between two user spans), and each traced instruction
 * inside whichever of those it ran in; signals and the exit as instant
 * events.
 */
#ifndef EMU_TRACE_JSON_H
#define EMU_TRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "account/syscalls.h"
#include "observe/trace_out.h"

struct json_trace {
    struct trace_out *out;
    uint32_t clock_mhz;
    bool first_event;
};

/* The header (name: the program run) and the boot track's metadata. */
void trace_json_begin(struct json_trace *j, const char *name);
void trace_json_end(struct json_trace *j);
/* The metadata naming process pid's track comm. */
void trace_json_name(struct json_trace *j, uint32_t pid, const char *comm);
/* The boot, from 0 to end, on its own track. */
void trace_json_boot(struct json_trace *j, uint64_t end);
/* On process pid's track. Times in centicycles; args: a JSON object, or NULL. */
void trace_json_slice(struct json_trace *j, uint32_t pid, const char *name, const char *cat,
                      uint64_t start, uint64_t end, const char *args);
/* from: the symbol of where user mode entered the kernel. */
void trace_json_record(struct json_trace *j, const struct syscall_record *r, const char *from);
void trace_json_insn(struct json_trace *j, uint32_t pid, uint32_t addr, bool kernel,
                     const char *text, const char *symbol, uint64_t start, uint64_t end);
void trace_json_instant(struct json_trace *j, uint32_t pid, const char *name, uint64_t when,
                        const char *args);

#endif
