/*
 * emu run --gdb: the machine behind the GDB stub. It serves the target
 * interface (gdb_target.h) from the machine and the debugger facility
 * (debug.h), and runs the machine as gdbstub.h says a machine must.
 *
 * Monitor commands: cycles (the modeled cycles and instructions so far),
 * cpu (the model, SEP, the SYSENTER MSRs), syscalls (the calls by path),
 * catch-faults [on|off] (off at first: with it on, a fault the CPU
 * delivers stops the machine with SIGSEGV at the first instruction of the
 * kernel's handler, the CPU's frame on the kernel stack).
 */
#ifndef EMU_GDB_MACHINE_H
#define EMU_GDB_MACHINE_H

#include <stdbool.h>
#include "gdb/gdbstub.h"
#include "machine/machine.h"
#include "account/syscalls.h"

/* -s, as QEMU has it */
#define GDB_SHORTHAND_SPEC "127.0.0.1:" GDB_DEFAULT_PORT

/*
 * Run m, booted, with the GDB stub listening on spec ("[HOST:]PORT"; the
 * port chosen is printed on stderr). wait: stop before the first
 * instruction until a client attaches. Returns emu's exit status (what
 * machine_run would), or, if the stub cannot listen, 2 with the reason
 * in m->message.
 */
int gdb_machine_run(struct machine *m, struct syscall_tracker *sys, const char *spec, bool wait);

#endif
