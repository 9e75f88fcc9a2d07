/*
 * emu run --report: the run's cycles and system calls. The text form is a
 * summary, then a table like strace -c's: one row per system call and
 * entry path, with its calls, errors, cycles (total, per call, and the
 * mean entry, body and exit), sorted by cycles, and a total row. The JSON
 * form (--report=json) has the same numbers for scripts (sums, in
 * cycles with the model's hundredths).
 *
 * The cycles of a call here are its round trip: from the trapping
 * instruction (int $0x80 or sysenter) to the first user instruction after
 * it, = entry + body + exit; README.md, "Cycles per call".
 */
#ifndef EMU_REPORT_H
#define EMU_REPORT_H

#include <stdio.h>
struct machine;
#include "account/syscalls.h"

enum report_format { REPORT_TEXT, REPORT_JSON };

/* "text" or "json"; -1 for anything else. */
int report_parse_format(const char *name, enum report_format *out);
void report_print(const struct machine *m, const struct syscall_tracker *t, FILE *f);
void report_print_json(const struct machine *m, const struct syscall_tracker *t, FILE *f);

#endif
