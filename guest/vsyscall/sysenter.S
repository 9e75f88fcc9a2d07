/*
 * The vsyscall page for CPUs with SEP. sysenter saves nothing, so the stub
 * keeps what the kernel will clobber on the user stack: ECX and EDX (sysexit
 * takes ESP and EIP from them) and EBP (the kernel takes the user ESP from
 * it). EBP is pushed last so that (%ebp) is the caller's EBP: the sixth
 * system-call argument, which the kernel reads from there.
 *
 * The kernel returns to SYSENTER_RETURN, the instruction after sysenter;
 * a call a signal interrupted restarts at the movl (SYSENTER_RESTART_BACK).
 */
#include "../abi.h"

	.section .rodata.vsyscall, "a"
	.globl vsyscall_sysenter_start, vsyscall_sysenter_end
vsyscall_sysenter_start:
	pushl %ecx
	pushl %edx
	pushl %ebp
vsyscall_sysenter_restart:
	movl %esp, %ebp
	sysenter
vsyscall_sysenter_return:
	popl %ebp
	popl %edx
	popl %ecx
	ret
vsyscall_sysenter_end:

	.if (vsyscall_sysenter_return - vsyscall_sysenter_start) - SYSENTER_RETURN_OFFSET
	.error "SYSENTER_RETURN_OFFSET does not match the stub"
	.endif
	.if (vsyscall_sysenter_return - vsyscall_sysenter_restart) - SYSENTER_RESTART_BACK
	.error "SYSENTER_RESTART_BACK does not match the stub"
	.endif

	.section .note.GNU-stack, "", @progbits
