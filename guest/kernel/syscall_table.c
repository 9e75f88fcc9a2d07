/* sys_call_table, from ../syscalls.def: a number it has no row for runs
 * sys_ni_syscall too. */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Woverride-init"

syscall_fn sys_call_table[NR_syscalls] = {
    [0 ... NR_syscalls - 1] = sys_ni_syscall,
#define SYSCALL(nr, name, nargs, handler, ...) [nr] = handler,
#include "../syscalls.def"
#undef SYSCALL
};
