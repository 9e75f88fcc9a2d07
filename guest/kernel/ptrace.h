/*
 * The register frame every kernel entry builds on the kernel stack
 * (struct pt_regs of Linux 2.5, i386). Each slot's offset is named once here
 * and used by name from entry.S; kernel C code checks the struct against them.
 */
#ifndef KERNEL_PTRACE_H
#define KERNEL_PTRACE_H

#define PT_EBX      0x00
#define PT_ECX      0x04
#define PT_EDX      0x08
#define PT_ESI      0x0c
#define PT_EDI      0x10
#define PT_EBP      0x14
#define PT_EAX      0x18
#define PT_DS       0x1c
#define PT_ES       0x20
#define PT_ORIG_EAX 0x24 /* system call number; for traps, the vector */
#define PT_EIP      0x28
#define PT_CS       0x2c
#define PT_EFLAGS   0x30
#define PT_OLDESP   0x34
#define PT_OLDSS    0x38
#define PT_SIZE     0x3c

/* Exceptions carry an error code between ORIG_EAX and EIP: a trap frame is
 * a pt_regs with one more word; TF_* name the slots that move. */
#define TF_VECTOR   0x24
#define TF_ERROR    0x28
#define TF_EIP      0x2c
#define TF_CS       0x30
#define TF_EFLAGS   0x34
#define TF_OLDESP   0x38
#define TF_OLDSS    0x3c

/* thread_info lives at the bottom of the 8 KiB kernel stack (THREAD_SIZE,
 * TI_FLAGS and TI_PID are in ../abi.h). */
#define TIF_SYSCALL_TRACE 0   /* syscall tracing wants the slow path */
#define TIF_NEED_RESCHED  1   /* reschedule before returning to user */
#define TIF_IRET          2   /* registers changed: return by iret */
#define TIF_SIGPENDING    3   /* a signal to act on before user mode */
#define TIF_SINGLESTEP    4   /* a #DB took EFLAGS.TF off in the kernel (sysenter) */
#define _TIF_SYSCALL_TRACE (1 << TIF_SYSCALL_TRACE)
#define _TIF_NEED_RESCHED  (1 << TIF_NEED_RESCHED)
#define _TIF_IRET          (1 << TIF_IRET)
#define _TIF_SIGPENDING    (1 << TIF_SIGPENDING)
#define _TIF_SINGLESTEP    (1 << TIF_SINGLESTEP)
#define _TIF_ALLWORK_MASK  0xffff

#ifndef __ASSEMBLER__
#include <stdint.h>

struct pt_regs {
    uint32_t ebx, ecx, edx, esi, edi, ebp, eax;
    uint32_t xds, xes;
    uint32_t orig_eax;
    uint32_t eip, xcs, eflags, esp, xss;
};

struct trap_frame {
    uint32_t ebx, ecx, edx, esi, edi, ebp, eax;
    uint32_t xds, xes;
    uint32_t vector, error_code;
    uint32_t eip, xcs, eflags, esp, xss;
};

#define user_mode(cs) (((cs) & 3) != 0)
#endif
#endif
