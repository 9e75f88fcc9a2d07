/*
 * Facts of the i386 architecture (Intel SDM, volume 3) that the emulator
 * (emu/) and the guest (guest/) both use: EFLAGS, the control registers,
 * exception vectors, segment selectors, descriptors and gates, page-table
 * entries, the error codes the CPU pushes, model-specific registers and
 * CPUID feature bits. Each is defined here and nowhere else; guest/abi.h
 * holds what is not the CPU's but the project's (the memory map, the GDT
 * layout of the sysenter patch, the hypercalls).
 *
 * It sits in guest/ beside abi.h because the freestanding guest cannot
 * reach emu/, while emu/ already includes ../guest/. It is included from C
 * (host and guest) and from guest assembly, so it holds plain #defines of
 * numbers only: no casts, no suffixes.
 */
#ifndef SYSEMU_X86_H
#define SYSEMU_X86_H

/* ---- EFLAGS ---- */
#define X86_EFLAGS_CF         0x00000001
#define X86_EFLAGS_FIXED      0x00000002 /* bit 1 always reads as 1 */
#define X86_EFLAGS_PF         0x00000004
#define X86_EFLAGS_AF         0x00000010
#define X86_EFLAGS_ZF         0x00000040
#define X86_EFLAGS_SF         0x00000080
#define X86_EFLAGS_TF         0x00000100 /* single-step trap */
#define X86_EFLAGS_IF         0x00000200 /* maskable interrupts enabled */
#define X86_EFLAGS_DF         0x00000400 /* string ops go down */
#define X86_EFLAGS_OF         0x00000800
#define X86_EFLAGS_IOPL       0x00003000 /* I/O privilege level, 2 bits */
#define X86_EFLAGS_IOPL_SHIFT 12
#define X86_EFLAGS_NT         0x00004000 /* nested task */
#define X86_EFLAGS_RF         0x00010000 /* resume: no debug fault on the next insn */
#define X86_EFLAGS_VM         0x00020000 /* virtual-8086 mode */
#define X86_EFLAGS_AC         0x00040000 /* alignment check */
#define X86_EFLAGS_ID         0x00200000 /* CPUID is available if writable */

/* ---- CR0 and CR4 ---- */
#define X86_CR0_PE 0x00000001 /* protected mode */
#define X86_CR0_MP 0x00000002
#define X86_CR0_EM 0x00000004
#define X86_CR0_TS 0x00000008
#define X86_CR0_ET 0x00000010
#define X86_CR0_NE 0x00000020
#define X86_CR0_WP 0x00010000 /* ring 0 obeys read-only pages */
#define X86_CR0_AM 0x00040000
#define X86_CR0_NW 0x20000000
#define X86_CR0_CD 0x40000000
#define X86_CR0_PG 0x80000000 /* paging */

#define X86_CR4_VME        0x00000001
#define X86_CR4_PVI        0x00000002
#define X86_CR4_TSD        0x00000004 /* rdtsc only at CPL 0 */
#define X86_CR4_DE         0x00000008
#define X86_CR4_PSE        0x00000010 /* 4 MiB pages */
#define X86_CR4_PAE        0x00000020
#define X86_CR4_MCE        0x00000040
#define X86_CR4_PGE        0x00000080 /* global pages */
#define X86_CR4_PCE        0x00000100
#define X86_CR4_OSFXSR     0x00000200
#define X86_CR4_OSXMMEXCPT 0x00000400

/* ---- Exception vectors ---- */
#define X86_VEC_DE       0  /* divide error */
#define X86_VEC_DB       1  /* debug */
#define X86_VEC_NMI      2
#define X86_VEC_BP       3  /* breakpoint, int3 */
#define X86_VEC_OF       4  /* overflow, into */
#define X86_VEC_BR       5  /* bound range */
#define X86_VEC_UD       6  /* invalid opcode */
#define X86_VEC_NM       7  /* device not available */
#define X86_VEC_DF       8  /* double fault */
#define X86_VEC_CSO      9  /* coprocessor segment overrun (386 only) */
#define X86_VEC_TS       10 /* invalid TSS */
#define X86_VEC_NP       11 /* segment not present */
#define X86_VEC_SS       12 /* stack fault */
#define X86_VEC_GP       13 /* general protection */
#define X86_VEC_PF       14 /* page fault */
#define X86_VEC_SPURIOUS 15 /* reserved; Linux's spurious_interrupt_bug */
#define X86_VEC_MF       16 /* x87 error */
#define X86_VEC_AC       17 /* alignment check */
#define X86_VEC_MC       18 /* machine check */
#define X86_VEC_XM       19 /* SIMD floating point */
#define X86_NR_EXCEPTIONS 20 /* vectors 0-19: what a Pentium 4 defines */

/* The exceptions that push an error code: one bit per vector. */
#define X86_VEC_ERROR_CODE_MASK \
    ((1 << X86_VEC_DF) | (1 << X86_VEC_TS) | (1 << X86_VEC_NP) | (1 << X86_VEC_SS) | \
     (1 << X86_VEC_GP) | (1 << X86_VEC_PF) | (1 << X86_VEC_AC))

/*
 * ---- Error codes ----
 * An error code that names a descriptor: the selector's index, plus
 * EXT when an event outside the program caused the fault, IDT when the
 * index is an IDT entry, TI (with IDT clear) when it is an LDT entry.
 */
#define X86_ERR_EXT 0x1
#define X86_ERR_IDT 0x2
#define X86_ERR_TI  0x4
#define X86_IDT_ERROR(vector, ext) ((vector) * 8 + X86_ERR_IDT + ((ext) ? X86_ERR_EXT : 0))

/* A page fault's error code. */
#define X86_PF_PROT  0x01 /* a protection violation (clear: page not present) */
#define X86_PF_WRITE 0x02
#define X86_PF_USER  0x04 /* at CPL 3 */
#define X86_PF_RSVD  0x08
#define X86_PF_INSTR 0x10 /* an instruction fetch (with NX only) */

/* ---- Selectors ---- */
#define X86_SEL_RPL 0x3 /* requested privilege level; in CS and SS, the CPL */
#define X86_SEL_TI  0x4 /* the index is into the LDT */

/*
 * ---- Descriptors ----
 * Bits 40-47 of a segment descriptor or gate are its access byte; bits
 * 52-55 of a segment descriptor are its flags.
 */
#define X86_DESC_ACCESS_SHIFT 40
#define X86_DESC_FLAGS_SHIFT  52

/* access byte */
#define X86_AR_ACCESSED  0x01
#define X86_AR_RW        0x02 /* data: writable; code: readable */
#define X86_AR_DC        0x04 /* data: expands down; code: conforming */
#define X86_AR_CODE      0x08
#define X86_AR_S         0x10 /* code or data; clear: a system descriptor or gate */
#define X86_AR_DPL_SHIFT 5    /* descriptor privilege level, 2 bits */
#define X86_AR_DPL3      0x60
#define X86_AR_P         0x80 /* present */

/* system descriptor and gate types: the access byte's low bits, S clear */
#define X86_TYPE_LDT          0x2
#define X86_TYPE_TASK_GATE    0x5
#define X86_TYPE_TSS32        0x9 /* available 32-bit TSS */
#define X86_TYPE_TSS32_BUSY   0xb
#define X86_TYPE_CALL_GATE32  0xc
#define X86_TYPE_INTR_GATE32  0xe /* clears IF on the way in */
#define X86_TYPE_TRAP_GATE32  0xf

/* flags */
#define X86_DESC_AVL 0x1 /* free for the OS */
#define X86_DESC_L   0x2 /* 64-bit code */
#define X86_DESC_DB  0x4 /* 32-bit segment */
#define X86_DESC_G   0x8 /* limit in 4 KiB pages */

/* ---- Page-table entries (and page-directory entries) ---- */
#define X86_PTE_PRESENT  0x001
#define X86_PTE_RW       0x002
#define X86_PTE_USER     0x004
#define X86_PTE_PWT      0x008
#define X86_PTE_PCD      0x010
#define X86_PTE_ACCESSED 0x020
#define X86_PTE_DIRTY    0x040
#define X86_PTE_PSE      0x080 /* in a PDE: a 4 MiB page */
#define X86_PTE_GLOBAL   0x100

/* ---- Model-specific registers ---- */
#define MSR_IA32_TSC          0x010
#define MSR_IA32_SYSENTER_CS  0x174
#define MSR_IA32_SYSENTER_ESP 0x175
#define MSR_IA32_SYSENTER_EIP 0x176

/* ---- CPUID leaf 1 EDX feature bits ---- */
#define CPUID_FEATURE_FPU (1 << 0)
#define CPUID_FEATURE_TSC (1 << 4)
#define CPUID_FEATURE_MSR (1 << 5)
#define CPUID_FEATURE_CX8 (1 << 8)
#define CPUID_FEATURE_SEP (1 << 11)

/* ---- The PC's interval timer (8254 PIT) and interrupt controller (8259A) ---- */
#define PIT_HZ            1193182u /* the PIT's input clock */
#define PIT_CH0_PORT      0x40
#define PIT_CMD_PORT      0x43
#define PIT_CMD_CH0_LOHI  0x30     /* channel 0, lobyte then hibyte */
#define PIT_MODE_SHIFT    1        /* bits 1-3 of the command: the mode */
#define PIC_MASTER_CMD    0x20
#define PIC_MASTER_DATA   0x21
#define PIC_SLAVE_CMD     0xa0
#define PIC_SLAVE_DATA    0xa1
#define PIC_ICW1          0x10     /* in a command: initialization word 1 */
#define PIC_ICW1_ICW4     0x01     /* ... ICW4 follows */
#define PIC_EOI           0x20     /* non-specific end of interrupt (OCW2) */
#define IRQ_TIMER         0
/* Where Linux 2.5 puts the 8259A's IRQs (asm-i386/irq_vectors.h): the
 * vectors after the 32 exceptions. */
#define FIRST_EXTERNAL_VECTOR 0x20

/* ---- The local APIC's interrupt command register (low word) ---- */
#define APIC_ICR_VECTOR     0x000ffu
#define APIC_DM_MASK        0x00700u
#define APIC_DM_FIXED       0x00000u
#define APIC_DM_INIT        0x00500u
#define APIC_DM_STARTUP     0x00600u
#define APIC_DEST_MASK      0xc0000u /* the destination shorthand */
#define APIC_DEST_FIELD     0x00000u
#define APIC_DEST_SELF      0x40000u
#define APIC_DEST_ALLINC    0x80000u
#define APIC_DEST_ALLBUT    0xc0000u

#endif
