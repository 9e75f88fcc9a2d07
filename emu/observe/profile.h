/*
 * --profile FILE: the run's modeled cycles by guest function, kernel and
 * user, with inclusive costs from a shadow call stack. A call or a return
 * is the last instruction of a block; entering the kernel (int $0x80, a
 * fault, sysenter) is a call from the function that trapped, and going
 * back to ring 3 (iret, sysexit) returns to it. A return pops to the frame
 * it returns to, so longjmp-like code and stack switches cannot unbalance
 * the stack; code that falls or jumps into another symbol's range replaces
 * the frame's function (a tail call: system_call's syscall_call part).
 * Code without a symbol keeps the name of the address it was called at.
 * Each process has its own stack (switched where the kernel switches
 * tasks, as the system-call tracker sees it): a forked child's starts in
 * the kernel that runs it first, and its user frames from where fork
 * returns; a successful execve empties it. A call whose target faults
 * (demand paging) is still the call.
 *
 * Every cycle is in the profile once: each block's cycles (and what the
 * model charges between blocks: interrupt delivery, refunds) go to the
 * function it ran in, counted in whole cycles of the running total, so the
 * costs add up to the run's cycles exactly.
 *
 * Formats: callgrind (kcachegrind, qcachegrind, callgrind_annotate), and
 * folded stacks (flamegraph.pl, speedscope), kernel frames marked _[k].
 */
#ifndef EMU_PROFILE_H
#define EMU_PROFILE_H

#include <stdint.h>
#include <stdio.h>
struct machine;
#include "observe/symbols.h"
#include "account/syscalls.h"

enum profile_format { PROFILE_CALLGRIND, PROFILE_FOLDED };

struct profile;

/* "callgrind" or "folded"; -1 for anything else. */
int profile_parse_format(const char *name, enum profile_format *out);
/* NULL with the reason in err. The file is written by profile_write. */
struct profile *profile_open(const char *path, enum profile_format format, char *err,
                             size_t errlen);
int profile_attach(struct profile *p, struct machine *m, struct syscall_tracker *sys,
                   struct symtab *syms);
/* After the run: the last cycles, then the file. 0, or -1 with errno. */
int profile_write(struct profile *p, struct machine *m);
void profile_close(struct profile *p);

#endif
