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
#include "../kernel/variant.h"

	.section .rodata.vsyscall, "a"
	.globl vsyscall_sysenter_start, vsyscall_sysenter_end
vsyscall_sysenter_start:
	pushl %ecx
	pushl %edx
	pushl %ebp
vsyscall_sysenter_restart:
	movl %esp, %ebp
	sysenter
#if KHIST != KHIST_SEED
	/* from 2.5.53 as released (752cd93fc8): the return point aligned
	 * with nops, and before it the restart point, a jump back */
	.fill 7, 1, 0x90
	.byte 0xeb, 0xf3        /* jmp to the movl: 3 - 16 = -13 (a fixed
	                           encoding, so the offsets stay constant) */
#endif
vsyscall_sysenter_return:
	popl %ebp
	popl %edx
	popl %ecx
	ret
vsyscall_sysenter_end:

	.if (vsyscall_sysenter_return - vsyscall_sysenter_start) - KV_STUB_RETURN_OFFSET
	.error "the stub's return offset does not match SYSENTER_RETURN"
	.endif
#if KHIST == KHIST_SEED
	.if (vsyscall_sysenter_return - vsyscall_sysenter_restart) - SYSENTER_RESTART_BACK
	.error "SYSENTER_RESTART_BACK does not match the stub"
	.endif
#endif

	.section .note.GNU-stack, "", @progbits
