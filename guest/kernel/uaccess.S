/*
 * Kernel access to user memory. Each instruction that touches a user
 * address has an exception-table entry: a fault there resumes at the fixup
 * instead of killing the kernel.
 */
#include "../abi.h"
#include "errno.h"

#define ENTRY(name) .globl name; .type name, @function; .align 16; name:

	.text
/* int __get_user_1(uint8_t *val, uint32_t addr): 0 or -EFAULT */
ENTRY(__get_user_1)
	movl 8(%esp), %edx
1:	movzbl (%edx), %eax
	movl 4(%esp), %edx
	movb %al, (%edx)
	xorl %eax, %eax
	ret
3:	movl $(-EFAULT), %eax
	ret
.section __ex_table, "a"
	.align 4
	.long 1b, 3b
.previous

/* int __get_user_4(uint32_t *val, uint32_t addr): 0 or -EFAULT */
ENTRY(__get_user_4)
	movl 8(%esp), %edx
1:	movl (%edx), %eax
	movl 4(%esp), %edx
	movl %eax, (%edx)
	xorl %eax, %eax
	ret
3:	movl $(-EFAULT), %eax
	ret
.section __ex_table, "a"
	.align 4
	.long 1b, 3b
.previous

/* int __put_user_4(uint32_t val, uint32_t addr): 0 or -EFAULT */
ENTRY(__put_user_4)
	movl 4(%esp), %eax
	movl 8(%esp), %edx
1:	movl %eax, (%edx)
	xorl %eax, %eax
	ret
3:	movl $(-EFAULT), %eax
	ret
.section __ex_table, "a"
	.align 4
	.long 1b, 3b
.previous

	.section .note.GNU-stack, "", @progbits
