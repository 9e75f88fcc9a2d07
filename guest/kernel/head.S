/*
 * Kernel entry from the emulator. The machine starts in 32-bit protected
 * mode with flat ring-0 segments, paging off, and EBX = the boot record.
 * We load our own GDT (the 2.5.53 layout), reload every segment register,
 * switch to the boot stack and call start_kernel(boot).
 */
#include "../abi.h"
#include "ptrace.h"
#ifdef CONFIG_SMP
#include "../x86.h"
#endif

/* After lgdt: reload CS and the data segments from the new GDT (fs and gs
 * stay null until a task's TLS needs them). */
.macro LOAD_KERNEL_SEGMENTS
	ljmp $__KERNEL_CS, $1f
1:	movl $__KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
.endm

	.section .text.head, "ax"
	.globl startup_32
startup_32:
	cld
	lgdt gdt_descr
	LOAD_KERNEL_SEGMENTS
	/* room at the top for pid 1's pt_regs, which exec fills */
	movl $init_thread_union + THREAD_SIZE - PT_SIZE, %esp
	pushl %ebx
	call start_kernel
2:	hlt
	jmp 2b

#ifdef CONFIG_SMP
/*
 * An AP, from the page STARTUP named (smp.c put a jump here there): the
 * same as above with its own GDT and idle stack, which the boot CPU set
 * in ap_gdt_descr and ap_stack, and paging on with the kernel's tables.
 */
	.globl startup_ap
startup_ap:
	cld
	lgdt ap_gdt_descr
	LOAD_KERNEL_SEGMENTS
	movl ap_stack, %esp
	movl swapper_pg_dir, %eax
	movl %eax, %cr3
	movl %cr0, %eax
	orl $(X86_CR0_PG | X86_CR0_WP), %eax
	movl %eax, %cr0
	call start_secondary
2:	hlt
	jmp 2b
#endif

	.data
	.align 4
	.word 0
gdt_descr:
	.word GDT_ENTRIES * 8 - 1
	.long gdt_table
#ifdef CONFIG_SMP
	.word 0
	.globl ap_gdt_descr
ap_gdt_descr:
	.word GDT_ENTRIES * 8 - 1
	.long 0
	.globl ap_stack
ap_stack:
	.long 0
#endif

/*
 * The descriptors are those of head.S after the sysenter patch: user
 * code/data moved from entries 4/5 to 14/15 so that SYSENTER_CS (entry 12)
 * +8, +16 and +24 give kernel DS, user CS and user DS as sysenter and
 * sysexit require. TSS and LDT are filled in at run time.
 */
	.align 32
	.globl gdt_table
gdt_table:
	.quad 0x0000000000000000	/* 0x00 null */
	.quad 0x0000000000000000	/* 0x08 reserved */
	.quad 0x0000000000000000	/* 0x10 reserved */
	.quad 0x0000000000000000	/* 0x18 reserved */
	.quad 0x0000000000000000	/* 0x20 unused */
	.quad 0x0000000000000000	/* 0x28 unused */
	.quad 0x0000000000000000	/* 0x33 TLS entry 1 */
	.quad 0x0000000000000000	/* 0x3b TLS entry 2 */
	.quad 0x0000000000000000	/* 0x43 TLS entry 3 */
	.quad 0x0000000000000000	/* 0x48 reserved */
	.quad 0x0000000000000000	/* 0x50 reserved */
	.quad 0x0000000000000000	/* 0x58 reserved */
	.quad 0x00cf9a000000ffff	/* 0x60 kernel 4GB code */
	.quad 0x00cf92000000ffff	/* 0x68 kernel 4GB data */
	.quad 0x00cffa000000ffff	/* 0x73 user 4GB code */
	.quad 0x00cff2000000ffff	/* 0x7b user 4GB data */
	.quad 0x0000000000000000	/* 0x80 TSS descriptor */
	.quad 0x0000000000000000	/* 0x88 LDT descriptor */
	.quad 0x00c09a0000000000	/* 0x90 PnP BIOS 32-bit code */
	.quad 0x00809a0000000000	/* 0x98 PnP BIOS 16-bit code */
	.quad 0x0080920000000000	/* 0xa0 PnP BIOS 16-bit data */
	.quad 0x0080920000000000	/* 0xa8 PnP BIOS 16-bit data */
	.quad 0x0080920000000000	/* 0xb0 PnP BIOS 16-bit data */
	.quad 0x00409a0000000000	/* 0xb8 APM CS code */
	.quad 0x00009a0000000000	/* 0xc0 APM CS 16-bit code */
	.quad 0x0040920000000000	/* 0xc8 APM DS data */
	.fill GDT_ENTRIES - 26, 8, 0
#ifdef CONFIG_SMP
	/* the other CPUs' GDTs, copies of this one (2.5.53's head.S too) */
	.fill (NR_CPUS - 1) * GDT_ENTRIES, 8, 0
#endif

/* The one task's kernel stack; thread_info sits at its bottom. */
	.section .bss.stack, "aw", @nobits
	.align THREAD_SIZE
	.globl init_thread_union
init_thread_union:
	.skip THREAD_SIZE

	.section .note.GNU-stack, "", @progbits
