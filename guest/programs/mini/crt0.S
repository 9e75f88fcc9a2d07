/* Program entry: hand the initial stack (argc, argv, envp, auxv) to C. */
	.text
	.globl _start
_start:
	xorl %ebp, %ebp
	movl %esp, %eax
	andl $-16, %esp
	subl $12, %esp
	pushl %eax
	call mini_start
	hlt
	.section .note.GNU-stack, "", @progbits
