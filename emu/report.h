/* emu run --report: the cycle and system-call summary of a run. */
#ifndef EMU_REPORT_H
#define EMU_REPORT_H

#include <stdio.h>
#include "machine.h"
#include "syscalls.h"

void report_print(const struct machine *m, const struct syscall_tracker *t, FILE *f);

#endif
