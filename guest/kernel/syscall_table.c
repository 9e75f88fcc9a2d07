/* sys_call_table, from ../syscalls.def: a number it has no row for runs
 * sys_ni_syscall too. */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Numbers with no handler: the kernel does not implement the call. */
long sys_ni_syscall(uint32_t a1, uint32_t a2, uint32_t a3,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    return -ENOSYS;
}

/* (sys_enosys, for known calls we choose not to support, is in sys.c: the
 * emulator tells the two apart by address, so they must not be merged.) */

#pragma GCC diagnostic ignored "-Woverride-init"

syscall_fn sys_call_table[NR_syscalls] = {
    [0 ... NR_syscalls - 1] = sys_ni_syscall,
#define SYSCALL(nr, name, nargs, handler, ...) [nr] = handler,
#include "../syscalls.def"
#undef SYSCALL
};
