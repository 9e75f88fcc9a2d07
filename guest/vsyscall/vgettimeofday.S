/*
 * The user-space clock of --vgettimeofday, copied by the kernel into the
 * vsyscall page at VSYSCALL_GTOD_OFFSET (vdso.c names the two entries):
 *   int __vdso_gettimeofday(struct timeval *tv, struct timezone *tz)
 *   int __vdso_clock_gettime(clockid_t clk, struct timespec *ts)
 * They read the time base the timer tick publishes at VGTOD_DATA under a
 * sequence count, read the TSC, and compute the time exactly as the
 * kernel's do_gettimeofday does (timer_tsc.c): from the tick the last
 * interrupt applied, the cycles since it scaled by one 32x32 multiply. So
 * for the same TSC value and the same base both give the same time.
 * A time zone, a NULL tv, a clock other than CLOCK_REALTIME (or _COARSE,
 * which this kernel reads the same way), or a base more
 * than 2^32 cycles old make the system call through the page's entry. A
 * TSC behind the base's (another CPU's TSC, --tsc-skew) counts as no cycles
 * since it, as Linux's later vread_tsc does. Errors come back as -errno.
 */
#include "../abi.h"
#include "../kernel/variant.h"
#include "syscall_nr.h"

#define DATA(field)  (KV_VGTOD_DATA + VGTOD_##field)
#define USEC_PER_SEC 1000000
#define CLOCK_REALTIME 0
#define CLOCK_REALTIME_COARSE 5

	.section .rodata.vsyscall, "a"
	.globl vsyscall_vgtod_start, vsyscall_vgtod_end
vsyscall_vgtod_start:

/* at VSYSCALL_GTOD_OFFSET */
	pushl %ebx
	pushl %esi
	movl 12(%esp), %esi             /* tv */
	cmpl $0, 16(%esp)               /* tz */
	jne 1f
	testl %esi, %esi
	jz 1f
	call vgtod_read
	jc 1f
	movl %ebx, (%esi)
	movl %ecx, 4(%esi)
	xorl %eax, %eax
	popl %esi
	popl %ebx
	ret
1:	movl $(SYS_gettimeofday), %eax
	movl %esi, %ebx
	movl 16(%esp), %ecx
	movl $(KV_VSYSCALL_ENTRY), %edx /* absolute: this code is copied */
	call *%edx
	popl %esi
	popl %ebx
	ret

	.org VSYSCALL_CLOCK_GETTIME_OFFSET - VSYSCALL_GTOD_OFFSET, 0xcc
vsyscall_clock_gettime:
	pushl %ebx
	pushl %esi
	movl 16(%esp), %esi             /* ts */
	cmpl $(CLOCK_REALTIME), 12(%esp)
	je 2f
	cmpl $(CLOCK_REALTIME_COARSE), 12(%esp)  /* the same clock in this kernel */
	jne 1f
2:	call vgtod_read
	jc 1f
	movl %ebx, (%esi)
	imull $1000, %ecx, %ecx
	movl %ecx, 4(%esi)
	xorl %eax, %eax
	popl %esi
	popl %ebx
	ret
1:	movl $(SYS_clock_gettime), %eax
	movl 12(%esp), %ebx
	movl %esi, %ecx
	movl $(KV_VSYSCALL_ENTRY), %edx
	call *%edx
	popl %esi
	popl %ebx
	ret

/* EBX:ECX = the time in seconds and microseconds, carry clear; carry set:
 * make the system call. EAX and EDX are clobbered. */
	.org VSYSCALL_VGTOD_READ_OFFSET - VSYSCALL_GTOD_OFFSET, 0xcc
vgtod_read:
	pushl %edi
	.org VSYSCALL_VGTOD_RETRY_OFFSET - VSYSCALL_GTOD_OFFSET, 0x90
vgtod_retry:
	movl DATA(SEQ), %edi
	testl $1, %edi
	jnz vgtod_retry                 /* the kernel is writing it (on another CPU) */
	rdtsc
	subl DATA(TSC_LO), %eax
	sbbl DATA(TSC_HI), %edx         /* EDX:EAX = cycles since the base's tick */
	movl DATA(SEC), %ebx
	movl DATA(USEC), %ecx
	cmpl DATA(SEQ), %edi
	jne vgtod_retry                 /* a tick published a new base meanwhile */
	testl %edx, %edx
	jz 2f
	js 1f
	stc                             /* 2^32 cycles or more: the kernel's way */
	popl %edi
	ret
1:	xorl %eax, %eax                 /* this TSC is behind the base's */
2:	mull DATA(QUOTIENT)             /* EDX = microseconds since the base's tick */
	addl %edx, %ecx
4:	cmpl $(USEC_PER_SEC), %ecx
	jb 5f
	subl $(USEC_PER_SEC), %ecx
	incl %ebx
	jmp 4b
5:	clc
	popl %edi
	ret
	/* up to the vDSO image; .org fails if the code ran into it */
	.org VSYSCALL_EHDR_OFFSET - VSYSCALL_GTOD_OFFSET, 0xcc
vsyscall_vgtod_end:


	.section .note.GNU-stack, "", @progbits
