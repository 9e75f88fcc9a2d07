/*
 * The two ways into the kernel, each taking (nr, a1..a6) cdecl:
 *   mini_int80      - the classic inline int $0x80
 *   mini_vsyscall   - call *AT_SYSINFO (the vsyscall page)
 */
	.text
#define ARG(n) (20 + 4 * (n))(%esp)   /* after the four pushes below */

.macro LOAD_ARGS
	pushl %ebp
	pushl %edi
	pushl %esi
	pushl %ebx
	movl ARG(0), %eax
	movl ARG(1), %ebx
	movl ARG(2), %ecx
	movl ARG(3), %edx
	movl ARG(4), %esi
	movl ARG(5), %edi
	movl ARG(6), %ebp
.endm

.macro RESTORE_ARGS
	popl %ebx
	popl %esi
	popl %edi
	popl %ebp
	ret
.endm

	.globl mini_int80
mini_int80:
	LOAD_ARGS
	int $0x80
	RESTORE_ARGS

	.globl mini_vsyscall
mini_vsyscall:
	LOAD_ARGS
	call *mini_sysinfo
	RESTORE_ARGS

	.section .note.GNU-stack, "", @progbits
