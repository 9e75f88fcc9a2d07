/*
 * The system-call handlers, declared from ../syscalls.def. entry.S calls
 * sys_call_table[eax] with the six saved argument registers (ebx, ecx,
 * edx, esi, edi, ebp) as cdecl arguments, so every handler takes six words
 * and ignores the ones it does not need.
 */
#ifndef KERNEL_SYSCALLS_H
#define KERNEL_SYSCALLS_H

#include <stdint.h>
#include "syscall_nr.h"

typedef long (*syscall_fn)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
extern syscall_fn sys_call_table[NR_syscalls];

#define SYSCALL(nr, name, nargs, handler, ...) \
    long handler(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
#include "../syscalls.def"
#undef SYSCALL

#endif
