/*
 * The signal-return trampolines of the vsyscall page, copied by the kernel
 * to VSYSCALL_BASE + VSYSCALL_SIGRETURN_OFFSET and _RT_SIGRETURN_OFFSET.
 * A handler installed without SA_RESTORER returns here (its frame's
 * pretcode). They enter with int $0x80 whatever the CPU: sigreturn leaves
 * through iret anyway.
 */
#include "../abi.h"
#include "syscall_nr.h"

	.section .rodata.vsyscall, "a"
	.globl vsyscall_sigreturn_start, vsyscall_sigreturn_end
	.globl vsyscall_rt_sigreturn_start, vsyscall_rt_sigreturn_end
vsyscall_sigreturn_start:
	popl %eax
	movl $(SYS_sigreturn), %eax
	int $0x80
vsyscall_sigreturn_end:

vsyscall_rt_sigreturn_start:
	movl $(SYS_rt_sigreturn), %eax
	int $0x80
vsyscall_rt_sigreturn_end:

	.section .note.GNU-stack, "", @progbits
