/*
 * Kernel entry and exit: the int $0x80 system call, the sysenter system
 * call of the 2.5.53 patch, and the exception stubs. Every entry builds a
 * struct pt_regs (ptrace.h) on the kernel stack; slot offsets are the PT_*
 * names from ptrace.h.
 */
#include "../abi.h"
#include "../x86.h"
#include "ptrace.h"
#include "errno.h"
#include "syscall_nr.h"
#include "variant.h"

#define ENTRY(name) .globl name; .type name, @function; .align 16; name:

/* Save the registers a C handler may clobber, plus DS/ES; load flat data
 * segments (Linux 2.5 used __USER_DS in the kernel too: base 0, 4 GiB). */
#define SAVE_ALL \
	cld; \
	pushl %es; \
	pushl %ds; \
	pushl %eax; \
	pushl %ebp; \
	pushl %edi; \
	pushl %esi; \
	pushl %edx; \
	pushl %ecx; \
	pushl %ebx; \
	movl $(__USER_DS), %edx; \
	movl %edx, %ds; \
	movl %edx, %es;

/*
 * Pop what SAVE_ALL pushed. A user can leave a selector in DS/ES whose
 * descriptor is gone by the time we return (a TLS entry it cleared); the
 * pop then faults in the kernel, and the fixup loads a null selector.
 */
#define RESTORE_INT_REGS \
	popl %ebx; \
	popl %ecx; \
	popl %edx; \
	popl %esi; \
	popl %edi; \
	popl %ebp; \
	popl %eax

#define RESTORE_REGS \
	RESTORE_INT_REGS; \
1:	popl %ds; \
2:	popl %es; \
.section .fixup, "ax"; \
3:	movl $0, (%esp); \
	jmp 1b; \
4:	movl $0, (%esp); \
	jmp 2b; \
.previous; \
.section __ex_table, "a"; \
	.align 4; \
	.long 1b, 3b; \
	.long 2b, 4b; \
.previous

/* Drop ORIG_EAX and return with iret; an iret that faults kills the task. */
#define RESTORE_ALL \
	RESTORE_REGS \
	addl $4, %esp; \
1:	iret; \
.section __ex_table, "a"; \
	.align 4; \
	.long 1b, iret_fault; \
.previous

#define GET_THREAD_INFO(reg) \
	movl $-THREAD_SIZE, reg; \
	andl %esp, reg;

/* The register that holds the thread_info on the way out: EBX in 2.5,
 * EBP in 2.6.0, whose sysexit path restores no register from the frame
 * (EBX must still be the caller's; the page's stub pops EBP). */
#if KHIST >= KHIST_260
#define TI %ebp
#else
#define TI %ebx
#endif

/*
 * SMP_BIG_LOCK (the kernel for --smp N > 1, not 2.5.53's shape): the big
 * kernel lock (smp.c) is taken on every entry, right after
 * SAVE_ALL (the C call clobbers EAX, ECX, EDX, all saved in the frame;
 * EAX, the system call number, is read back), and dropped on every way
 * out, before the registers come back. The IPI handlers take no lock: they
 * must run while another CPU holds it and waits for them.
 */
#ifdef SMP_BIG_LOCK
#define LOCK_KERNEL \
	call lock_kernel; \
	movl PT_ORIG_EAX(%esp), %eax;
#define UNLOCK_KERNEL \
	call unlock_kernel;
#else
#define LOCK_KERNEL
#define UNLOCK_KERNEL
#endif

	.text

/* int $0x80: the CPU pushed SS, ESP, EFLAGS, CS, EIP through the DPL-3 gate. */
ENTRY(system_call)
	pushl %eax
	SAVE_ALL
	LOCK_KERNEL
	GET_THREAD_INFO(TI)
	cmpl $(NR_syscalls), %eax
	jae syscall_badsys
	testb $(_TIF_SYSCALL_TRACE), TI_FLAGS(TI)
	jnz syscall_trace_entry
	.globl syscall_call
syscall_call:
	call *sys_call_table(, %eax, 4)
	.globl syscall_return
syscall_return:
	movl %eax, PT_EAX(%esp)
syscall_exit:
	cli
	movl TI_FLAGS(TI), %ecx
	testw $_TIF_ALLWORK_MASK, %cx
	jne syscall_exit_work
	.globl restore_all
restore_all:
	UNLOCK_KERNEL
	RESTORE_ALL

/*
 * sysenter clears only IF, RF and VM, so a sysenter-entered kernel runs
 * with the caller's NT; an iret with NT set is a return to the task in
 * the TSS back link (#TS). sysexit ignores NT, so only the paths below,
 * which leave through iret, clear the flags first; the frame's EFLAGS,
 * NT included, go back to the program. Linux clears NT (with AC and TF)
 * on SYSENTER entry since 3.18 ("x86_64, entry: Filter RFLAGS.NT on entry
 * from userspace", October 2014; its i386 entry_32.S later did the same);
 * 2.5.53 did not, and its iret then failed.
 */
#define CLEAR_SYSENTER_FLAGS \
	pushl $(X86_EFLAGS_FIXED); \
	popfl

/* Pending work: run it, then always leave through iret, which restores
 * every register sysexit would not. */
syscall_exit_work:
	CLEAR_SYSENTER_FLAGS
	sti
	movl %esp, %eax
	pushl %eax
	call do_exit_work
	addl $4, %esp
	cli
	jmp restore_all

/* 2.5.53 calls do_syscall_trace here, for ptrace. Nothing sets
 * TIF_SYSCALL_TRACE in this kernel, which has no ptrace: the test above is
 * the entry's all the same, and this is what 2.5.53 does around the call,
 * -ENOSYS stored, the number read back and checked, the exit by iret. */
syscall_trace_entry:
	movl $(-ENOSYS), PT_EAX(%esp)
	movl PT_ORIG_EAX(%esp), %eax
	cmpl $(NR_syscalls), %eax
	jnae syscall_call
	jmp syscall_exit

syscall_badsys:
	CLEAR_SYSENTER_FLAGS
	call sys_ni_syscall
	movl %eax, PT_EAX(%esp)
	jmp syscall_exit

/*
 * sysenter: the CPU loaded CS/SS from SYSENTER_CS and ESP/EIP from the MSRs
 * (set up, with the per-CPU trampoline, by enable_sep_cpu in sysenter.c)
 * and cleared IF; it saved nothing. The per-CPU trampoline has switched to
 * the task's esp0. The vsyscall stub left ESP in EBP, with the caller's
 * EBP (the sixth argument) on top of that stack; it will return to
 * SYSENTER_RETURN. Build the same frame as int $0x80 would.
 */
ENTRY(sysenter_entry)
#if KHIST >= KHIST_260
	/* 2.6.0: SYSENTER_ESP is the end of this CPU's TSS; its esp0 lies
	 * at a fixed offset below */
	movl KV_TSS_ESP0_OFFSET(%esp), %esp
	.globl sysenter_past_esp
sysenter_past_esp:
#endif
	sti
	pushl $(__USER_DS)
	pushl %ebp
	pushfl
	pushl $(__USER_CS)
	pushl $(KV_SYSENTER_RETURN)
	/* The sixth argument: a user pointer read in the kernel, so range
	 * check it and let a fault land on the fixup. */
	cmpl $(USER_SPACE_TOP - 3), %ebp
	jae sysenter_badstack
1:	movl (%ebp), %ebp
.section __ex_table, "a"
	.align 4
	.long 1b, sysenter_badstack
.previous
	pushl %eax
	SAVE_ALL
	LOCK_KERNEL
	GET_THREAD_INFO(TI)
	cmpl $(NR_syscalls), %eax
	jae syscall_badsys
	testb $(_TIF_SYSCALL_TRACE), TI_FLAGS(TI)
	jnz syscall_trace_entry
	.globl sysenter_call
sysenter_call:
	call *sys_call_table(, %eax, 4)
	.globl sysenter_return
sysenter_return:
	movl %eax, PT_EAX(%esp)
	cli
	movl TI_FLAGS(TI), %ecx
	testw $_TIF_ALLWORK_MASK, %cx
	jne syscall_exit_work
	UNLOCK_KERNEL
	/* sysexit takes EIP from EDX and ESP from ECX; the stub restores
	 * the caller's EDX and ECX from the user stack. */
#if KHIST >= KHIST_260
	/* 2.6.0: no register comes from the frame. EBX, ESI and EDI are
	 * the caller's still (the handlers preserve them), EAX is the
	 * result, the stub pops EBP; a call that changes registers leaves
	 * by iret (TIF_IRET). */
	movl PT_EIP(%esp), %edx
	movl PT_OLDESP(%esp), %ecx
#elif KHIST >= KHIST_2554
	/* 2.5.54: DS and ES are the user's already (SAVE_ALL loads
	 * __USER_DS): only the general registers are popped */
	RESTORE_INT_REGS
	movl (PT_EIP - PT_DS)(%esp), %edx
	movl (PT_OLDESP - PT_DS)(%esp), %ecx
#else
	RESTORE_REGS
	movl (PT_EIP - PT_ORIG_EAX)(%esp), %edx
	movl (PT_OLDESP - PT_ORIG_EAX)(%esp), %ecx
#endif
	sti
	.globl sysenter_exit
sysenter_exit:
	sysexit

sysenter_badstack:
	pushl %eax
	SAVE_ALL
	LOCK_KERNEL
	CLEAR_SYSENTER_FLAGS
	GET_THREAD_INFO(TI)
	movl $(-EFAULT), PT_EAX(%esp)
	jmp syscall_exit

/* Leave for the boot program, whose registers exec put at the top of this
 * stack: the usual way out, which takes iret (exec set TIF_IRET). */
ENTRY(start_user)
	movl 4(%esp), %esp
	GET_THREAD_INFO(TI)
	jmp syscall_exit

/* A new task's first switch lands here (__switch_to returns to it), its
 * stack pointer at its pt_regs (the parent's, EAX = 0): it leaves for user
 * mode through iret, whichever way the parent came in. */
ENTRY(ret_from_fork)
	call schedule_tail
	GET_THREAD_INFO(TI)
	jmp syscall_exit

/*
 * IRQ 0, the timer (vector FIRST_EXTERNAL_VECTOR, an interrupt gate):
 * ORIG_EAX -1 (no system call), then the tick. Back to user mode it leaves
 * through the system call's exit, where a reschedule the tick asked for
 * happens (preemption) and signals are delivered; back to the kernel it
 * just returns (the kernel is not preemptible, as 2.5 without
 * CONFIG_PREEMPT).
 */
ENTRY(irq0_interrupt)
	pushl $-1
	SAVE_ALL
	LOCK_KERNEL
irq0_tick:
	movl %esp, %eax
	pushl %eax
	call do_timer_interrupt
	addl $4, %esp
	GET_THREAD_INFO(TI)
	testl $3, PT_CS(%esp)
	jnz syscall_exit
	jmp restore_all

/* The same with --vgettimeofday: the clock's base published first, under
 * the lock (do_gettimeofday on another CPU moves the same xtime). */
ENTRY(irq0_interrupt_vgtod)
	pushl $-1
	SAVE_ALL
	LOCK_KERNEL
	call vgtod_tick
	jmp irq0_tick

#ifdef CONFIG_SMP
/* An IPI asking this CPU to run a function (smp.c), an interrupt gate,
 * with nothing to acknowledge (the APIC has no ISR here). Without the
 * lock, it returns straight to what it interrupted: pending work waits
 * for the next entry. */
ENTRY(call_function_interrupt)
	pushl $-1
	SAVE_ALL
	call smp_call_function_interrupt
	RESTORE_ALL

/* An AP's local APIC timer: its tick, like IRQ 0's (timer.c). */
ENTRY(apic_timer_interrupt)
	pushl $-1
	SAVE_ALL
	LOCK_KERNEL
	movl %esp, %eax
	pushl %eax
	call smp_apic_timer_interrupt
	addl $4, %esp
	GET_THREAD_INFO(TI)
	testl $3, PT_CS(%esp)
	jnz syscall_exit
	jmp restore_all

/* The reschedule IPI: its work is done by waking the CPU from hlt in its
 * idle loop (sched.c), which looks at the run queue again. */
ENTRY(reschedule_interrupt)
	pushl $-1
	SAVE_ALL
	RESTORE_ALL
#endif

/* Exceptions: the stub pushes an error code where the CPU does not (the
 * vectors outside X86_VEC_ERROR_CODE_MASK), then the vector, so every trap
 * frame has the same layout (struct trap_frame). */
#define TRAP(name, vector) \
ENTRY(name) \
	.if !((X86_VEC_ERROR_CODE_MASK >> (vector)) & 1); \
	pushl $0; \
	.endif; \
	pushl $(vector); \
	jmp trap_common

TRAP(divide_error, X86_VEC_DE)
#if KHIST >= KHIST_260
/*
 * 2.6.0: a debug trap on sysenter_entry's first instruction (TF set across
 * sysenter) runs on the few words after the TSS; before anything else,
 * move to the task's stack, loaded from the TSS as the entry would, and
 * make the frame a return to the instruction after that load. (2.6.0 does
 * the same for NMI; this machine raises none.)
 */
ENTRY(debug)
	cmpl $sysenter_entry, (%esp)
	jne debug_stack_correct
	movl (KV_TSS_ESP0_OFFSET + 12)(%esp), %esp
	pushfl
	pushl $(__KERNEL_CS)
	pushl $sysenter_past_esp
debug_stack_correct:
	pushl $0
	pushl $(X86_VEC_DB)
	jmp trap_common
#else
TRAP(debug, X86_VEC_DB)
#endif
#if KHIST == KHIST_SEED
/* The seed's debug trap on the trampoline found no task (trap.c,
 * seed_debug_trap) and returned here, still on the trampoline's page:
 * onto the task's stack, as the trampoline would, and the oops. */
ENTRY(seed_oops)
	call seed_oops_stack
	movl %eax, %esp
	call do_seed_oops
#endif
TRAP(nmi, X86_VEC_NMI)
TRAP(int3, X86_VEC_BP)
TRAP(overflow, X86_VEC_OF)
TRAP(bounds, X86_VEC_BR)
TRAP(invalid_op, X86_VEC_UD)
TRAP(device_not_available, X86_VEC_NM)
TRAP(double_fault, X86_VEC_DF)
TRAP(coprocessor_segment_overrun, X86_VEC_CSO)
TRAP(invalid_TSS, X86_VEC_TS)
TRAP(segment_not_present, X86_VEC_NP)
TRAP(stack_segment, X86_VEC_SS)
TRAP(general_protection, X86_VEC_GP)
TRAP(page_fault, X86_VEC_PF)
TRAP(spurious_interrupt_bug, X86_VEC_SPURIOUS)
TRAP(coprocessor_error, X86_VEC_MF)
TRAP(alignment_check, X86_VEC_AC)
TRAP(machine_check, X86_VEC_MC)
TRAP(simd_coprocessor_error, X86_VEC_XM)

trap_common:
	SAVE_ALL
#ifdef SMP_BIG_LOCK
	call lock_kernel
#endif
	movl %esp, %eax
	pushl %eax
	call do_trap
	addl $4, %esp
	testl $3, TF_CS(%esp)
	jnz ret_to_user_from_trap
	UNLOCK_KERNEL
	RESTORE_REGS
	addl $8, %esp
1:	iret
.section __ex_table, "a"
	.align 4
	.long 1b, iret_fault
.previous

/*
 * Back to user mode from a trap: through the system call's exit, which
 * delivers signals (the fault's own, to a handler) and reschedules. The
 * trap frame becomes a pt_regs: everything below the error code moves up
 * one word over it, and ORIG_EAX is -1 (no system call to restart).
 */
ret_to_user_from_trap:
	movl $(TF_ERROR / 4), %ecx
2:	movl -4(%esp, %ecx, 4), %eax
	movl %eax, (%esp, %ecx, 4)
	decl %ecx
	jnz 2b
	addl $4, %esp
	movl $-1, PT_ORIG_EAX(%esp)
	GET_THREAD_INFO(TI)
	jmp syscall_exit

/* An iret back to user space faulted: the frame is bad. Kill the task. */
iret_fault:
	movl $(__USER_DS), %eax
	movl %eax, %ds
	movl %eax, %es
#ifdef SMP_BIG_LOCK
	call lock_kernel
#endif
	call do_iret_fault

/* Where the vsyscall page lies and what is where in it (AT_SYSINFO, the
 * first sigreturn stub, --vgettimeofday's two entries and its reader's
 * retry): the emulator reads them from this image (emu/image/ksyms.h). */
	.globl vsyscall_page_entry, vsyscall_page_base, vsyscall_page_sigreturn
	.globl vsyscall_page_gtod, vsyscall_page_clock_gettime, vsyscall_page_vgtod_retry
	.set vsyscall_page_entry, KV_VSYSCALL_ENTRY
	.set vsyscall_page_base, KV_VSYSCALL_BASE
	.set vsyscall_page_sigreturn, KV_VSYSCALL_BASE + KV_SIGRETURN_OFFSET
	.set vsyscall_page_gtod, KV_VSYSCALL_BASE + KV_GTOD_OFFSET
	.set vsyscall_page_clock_gettime, KV_VSYSCALL_BASE + KV_CLOCK_GETTIME_OFFSET
	.set vsyscall_page_vgtod_retry, KV_VSYSCALL_BASE + KV_VGTOD_RETRY_OFFSET

	.section .note.GNU-stack, "", @progbits
