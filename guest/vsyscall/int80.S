/*
 * The vsyscall page for CPUs without SEP: the classic trap. Copied by the
 * kernel to 0xfffff000; programs "call *AT_SYSINFO" instead of "int $0x80".
 */
	.section .rodata.vsyscall, "a"
	.globl vsyscall_int80_start, vsyscall_int80_end
vsyscall_int80_start:
	int $0x80
	ret
vsyscall_int80_end:

	.section .note.GNU-stack, "", @progbits
