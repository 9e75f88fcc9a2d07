/* --strace: one line per system call or trap on stderr, as it ends. */
#ifndef EMU_STRACE_H
#define EMU_STRACE_H

#include "machine.h"
#include "syscalls.h"

/* Print sys's records, reading string arguments from m's memory. 0 or -1. */
int strace_attach(struct machine *m, struct syscall_tracker *sys);
void strace_print(const struct machine *m, const struct syscall_record *r);

#endif
