/*
 * Which step of the sysenter patch's history this kernel is built as (the
 * Makefile's -DKHIST; emu's --kernel, enum kernel_history in emu/image/kconfig.h
 * numbers them the same). docs/fidelity.md, "Kernel variants", lists each
 * difference with its commit.
 *
 *   KHIST_SEED  the patch of 16 Dec 2002 Linus timed (the default): a
 *               per-CPU trampoline loads esp0 from the TSS
 *   KHIST_2553  2.5.53 as released (0bd0ed9719, 21 Dec): SYSENTER_EIP is
 *               sysenter_entry itself and every context switch writes
 *               SYSENTER_CS and SYSENTER_ESP (load_esp0's two wrmsr); the
 *               page's stub pads its return point (752cd93fc8)
 *   KHIST_2554  2.5.54: DS/ES stay the user's in the kernel, so the sysexit
 *               path pops no segment register (25699633e8); prefetch on the
 *               P4 too (e17f572d4d)
 *   KHIST_260   2.6.0: SYSENTER_ESP fixed at the end of the TSS, whose esp0
 *               the entry's first instruction loads (f3abf939b9,
 *               1b8f4be288): no wrmsr at a switch; sysexit restores no
 *               register from the frame; the vsyscall page is an ELF image
 *               (80a9004362) that AT_SYSINFO_EHDR names
 */
#ifndef GUEST_KERNEL_VARIANT_H
#define GUEST_KERNEL_VARIANT_H

#define KHIST_SEED 0
#define KHIST_2553 1
#define KHIST_2554 2
#define KHIST_260  3

#ifndef KHIST
#define KHIST KHIST_SEED
#endif

/* The vsyscall page's sysenter stub. The seed's returns 7 bytes in and a
 * restarted call goes back to its movl (SYSENTER_RESTART_BACK, abi.h);
 * from 2.5.53 on, the return point is 16 bytes in, after seven nops and a
 * two-byte jmp back to the movl, which a restart (EIP - 2) lands on. */
#if KHIST == KHIST_SEED
#define KV_STUB_RETURN_OFFSET   SYSENTER_RETURN_OFFSET
#define KV_STUB_RESTART_BACK    SYSENTER_RESTART_BACK
#else
#define KV_STUB_RETURN_OFFSET   16
#define KV_STUB_RESTART_BACK    2
#endif

/* Where the page's system-call entry (AT_SYSINFO, __kernel_vsyscall) lies.
 * 2.6.0's page begins with its ELF header and has its code further in
 * (0x400 there, its sigreturn stubs 0x20 and 0x40 after it); here the
 * entry is 0x20 before the sigreturn stubs, which stay where the emulator
 * knows them. */
#if KHIST >= KHIST_260
#define KV_ENTRY_OFFSET         0x3e0
#define KV_EHDR                 VSYSCALL_BASE
#else
#define KV_ENTRY_OFFSET         0
#define KV_EHDR                 VSYSCALL_EHDR
#endif
#define KV_VSYSCALL_ENTRY       (VSYSCALL_BASE + KV_ENTRY_OFFSET)
#define KV_SYSENTER_RETURN      (KV_VSYSCALL_ENTRY + KV_STUB_RETURN_OFFSET)

/* 2.6.0: a few words of stack after the TSS, where SYSENTER_ESP points;
 * the entry reads esp0 at this offset from it (TSS_ESP0_OFFSET). */
#define KV_TSS_SIZE             104
#define KV_SYSENTER_STACK_WORDS 16
#define KV_TSS_ESP0_OFFSET      (4 - (KV_TSS_SIZE + 4 * KV_SYSENTER_STACK_WORDS))

#endif
