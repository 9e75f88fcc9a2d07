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
 * From 2.5.53 on the page is at 0xffffe000 (81549d68c0).
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

/* Where the page lies. The seed had it at the top page, FIXADDR_TOP; the
 * next day's 81549d68c0 (in 2.5.53 as released) put FIX_HOLE first, so the
 * page is one below and the top page stays unmapped. --vgettimeofday's time
 * base is always the fixmap slot below the page. */
#if KHIST == KHIST_SEED
#define KV_VSYSCALL_BASE        VSYSCALL_BASE
#else
#define KV_VSYSCALL_BASE        0xffffe000u
#endif
#define KV_VGTOD_DATA           (KV_VSYSCALL_BASE - PAGE_SIZE)

/* What lies where in the page. 2.6.0's page begins with its ELF header
 * (vsyscall.lds: the code at +0x400, each sigreturn stub at the next
 * 32-byte boundary: +0x420 and +0x440); --vgettimeofday's code, which
 * 2.6.0 had not, follows them at the seed's spacing. Before 2.6.0 the
 * entry is the page's start and the image its second half. */
#if KHIST >= KHIST_260
#define KV_ENTRY_OFFSET         0x400
#define KV_SIGRETURN_OFFSET     0x420
#define KV_RT_SIGRETURN_OFFSET  0x440
#define KV_VGTOD_SHIFT          0x40
#define KV_EHDR                 KV_VSYSCALL_BASE
#else
#define KV_ENTRY_OFFSET         0
#define KV_SIGRETURN_OFFSET     VSYSCALL_SIGRETURN_OFFSET
#define KV_RT_SIGRETURN_OFFSET  VSYSCALL_RT_SIGRETURN_OFFSET
#define KV_VGTOD_SHIFT          0
#define KV_EHDR                 (KV_VSYSCALL_BASE + VSYSCALL_EHDR_OFFSET)
#endif
#define KV_GTOD_OFFSET          (VSYSCALL_GTOD_OFFSET + KV_VGTOD_SHIFT)
#define KV_CLOCK_GETTIME_OFFSET (VSYSCALL_CLOCK_GETTIME_OFFSET + KV_VGTOD_SHIFT)
#define KV_VGTOD_READ_OFFSET    (VSYSCALL_VGTOD_READ_OFFSET + KV_VGTOD_SHIFT)
#define KV_VGTOD_RETRY_OFFSET   (VSYSCALL_VGTOD_RETRY_OFFSET + KV_VGTOD_SHIFT)
#define KV_VSYSCALL_ENTRY       (KV_VSYSCALL_BASE + KV_ENTRY_OFFSET)
#define KV_SYSENTER_RETURN      (KV_VSYSCALL_ENTRY + KV_STUB_RETURN_OFFSET)

/* 2.6.0: a few words of stack after the TSS, where SYSENTER_ESP points;
 * the entry reads esp0 at this offset from it (TSS_ESP0_OFFSET). */
#define KV_TSS_SIZE             104
#define KV_SYSENTER_STACK_WORDS 16
#define KV_TSS_ESP0_OFFSET      (4 - (KV_TSS_SIZE + 4 * KV_SYSENTER_STACK_WORDS))

#endif
