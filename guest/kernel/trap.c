/* IDT, TSS and the C side of exception handling. */
#include "kernel.h"
#include "variant.h"
#include "mm.h"
#include "sched.h"
#include "smp.h"

struct gate {
    uint16_t offset_low, selector;
    uint8_t zero, type_attr;
    uint16_t offset_high;
} __attribute__((packed));

struct tss_struct {
    uint16_t back_link, __blh;
    uint32_t esp0;
    uint16_t ss0, __ss0h;
    uint32_t esp1;
    uint16_t ss1, __ss1h;
    uint32_t esp2;
    uint16_t ss2, __ss2h;
    uint32_t cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
    uint16_t es, __esh, cs, __csh, ss, __ssh, ds, __dsh, fs, __fsh, gs, __gsh;
    uint16_t ldt, __ldth;
    uint16_t trace, io_bitmap_base;
#if KHIST >= KHIST_260
    uint32_t sysenter_stack[KV_SYSENTER_STACK_WORDS]; /* SYSENTER_ESP: its end */
#endif
} __attribute__((packed));

_Static_assert(__builtin_offsetof(struct tss_struct, io_bitmap_base) + 2 == KV_TSS_SIZE,
               "TSS layout");
#if KHIST >= KHIST_260
_Static_assert(__builtin_offsetof(struct tss_struct, esp0) - sizeof(struct tss_struct) ==
               (uint32_t)KV_TSS_ESP0_OFFSET, "2.6.0's TSS_ESP0_OFFSET");
#else
_Static_assert(sizeof(struct tss_struct) == KV_TSS_SIZE, "TSS layout");
#endif
_Static_assert(__builtin_offsetof(struct pt_regs, orig_eax) == PT_ORIG_EAX, "pt_regs");
_Static_assert(__builtin_offsetof(struct pt_regs, xss) == PT_OLDSS, "pt_regs");
_Static_assert(sizeof(struct pt_regs) == PT_SIZE, "pt_regs size");
_Static_assert(__builtin_offsetof(struct trap_frame, error_code) == TF_ERROR, "trap frame");
_Static_assert(__builtin_offsetof(struct trap_frame, xss) == TF_OLDSS, "trap frame");

#define GATE_INTERRUPT (X86_AR_P | X86_TYPE_INTR_GATE32) /* DPL 0 */
#define GATE_TRAP      (X86_AR_P | X86_TYPE_TRAP_GATE32)

static struct gate idt_table[256] __attribute__((aligned(8)));
#ifdef CONFIG_SMP
struct tss_struct init_tss[NR_CPUS] __attribute__((aligned(128)));
#define this_tss() (&init_tss[smp_processor_id()])
#else
struct tss_struct init_tss __attribute__((aligned(128)));
#define this_tss() (&init_tss)
#endif
static uint64_t default_ldt[5];

extern void divide_error(void), debug(void), nmi(void), int3(void), overflow(void),
    bounds(void), invalid_op(void), device_not_available(void), double_fault(void),
    coprocessor_segment_overrun(void), invalid_TSS(void), segment_not_present(void),
    stack_segment(void), general_protection(void), page_fault(void),
    spurious_interrupt_bug(void), coprocessor_error(void), alignment_check(void),
    machine_check(void), simd_coprocessor_error(void), system_call(void);

static void set_gate(int n, uint8_t type_attr, void (*handler)(void))
{
    uint32_t addr = (uint32_t)handler;
    idt_table[n] = (struct gate){
        .offset_low = addr & 0xffff, .selector = __KERNEL_CS,
        .zero = 0, .type_attr = type_attr, .offset_high = addr >> 16,
    };
}

/* An external interrupt's gate: interrupts stay off in its handler. */
void set_intr_gate(int n, void (*handler)(void))
{
    set_gate(n, GATE_INTERRUPT, handler);
}

static uint64_t system_descriptor(uint32_t base, uint32_t limit, uint8_t type)
{
    uint64_t d = (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16);
    d |= (uint64_t)type << X86_DESC_ACCESS_SHIFT;
    d |= (uint64_t)((limit >> 16) & 0xf) << 48;
    d |= (uint64_t)(base >> 24) << 56;
    return d;
}

void trap_init(void)
{
    static void (*const handlers[X86_NR_EXCEPTIONS])(void) = {
        divide_error, debug, nmi, int3, overflow, bounds, invalid_op,
        device_not_available, double_fault, coprocessor_segment_overrun,
        invalid_TSS, segment_not_present, stack_segment, general_protection,
        page_fault, spurious_interrupt_bug, coprocessor_error, alignment_check,
        machine_check, simd_coprocessor_error,
    };
    for (int i = 0; i < X86_NR_EXCEPTIONS; i++)
        set_gate(i, GATE_TRAP, handlers[i]);
    /* As in Linux 2.5: the page fault is an interrupt gate, and int3,
     * into and bound may be used from user mode. */
    set_gate(X86_VEC_PF, GATE_INTERRUPT, page_fault);
    set_gate(X86_VEC_NMI, GATE_INTERRUPT, nmi);
    set_gate(X86_VEC_BP, GATE_TRAP | X86_AR_DPL3, int3);
    set_gate(X86_VEC_OF, GATE_TRAP | X86_AR_DPL3, overflow);
    set_gate(X86_VEC_BR, GATE_TRAP | X86_AR_DPL3, bounds);
    set_gate(SYSCALL_VECTOR, GATE_TRAP | X86_AR_DPL3, system_call);

    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) idtr = {
        sizeof(idt_table) - 1, (uint32_t)idt_table,
    };
    __asm__ volatile("lidt %0" : : "m"(idtr));
}

/* The TSS has no I/O bitmap (its base lies past the limit), so "out" from
 * ring 3 is always #GP: user code can never reach a hypercall port. */
void tss_init(uint32_t esp0)
{
    struct tss_struct *tss = this_tss();
    uint64_t *gdt = cpu_gdt(smp_processor_id());

    tss->esp0 = esp0;
    tss->ss0 = __KERNEL_DS;
#if KHIST >= KHIST_260
    /* 2.6.0's INIT_TSS: ss1 says SYSENTER_CS is __KERNEL_CS from the
     * start, so load_esp0 writes no MSR on a CPU without SEP either */
    tss->ss1 = __KERNEL_CS;
#endif
    tss->io_bitmap_base = sizeof(*tss) + 0x1000;
    gdt[GDT_ENTRY_TSS] =
        system_descriptor((uint32_t)tss, sizeof(*tss) - 1, X86_AR_P | X86_TYPE_TSS32);
    gdt[GDT_ENTRY_LDT] =
        system_descriptor((uint32_t)default_ldt, sizeof(default_ldt) - 1, X86_AR_P | X86_TYPE_LDT);
    __asm__ volatile("ltr %w0" : : "r"(__TSS_SEL));
    __asm__ volatile("lldt %w0" : : "r"(__LDT_SEL));
}

uint32_t read_cr2(void)
{
    uint32_t v;
    __asm__ volatile("movl %%cr2, %0" : "=r"(v));
    return v;
}

static int signal_for(uint32_t vector)
{
    switch (vector) {
    case X86_VEC_DE: case X86_VEC_OF: case X86_VEC_MF: case X86_VEC_XM: return SIGFPE;
    case X86_VEC_DB: case X86_VEC_BP: return SIGTRAP;
    case X86_VEC_UD: return SIGILL;
    case X86_VEC_NM: return SIGFPE;
    case X86_VEC_AC: return SIGBUS;
    default: return SIGSEGV;
    }
}

/* si_code and si_addr as Linux 2.5's traps.c gives them. */
static int32_t fault_code(uint32_t vector, uint32_t *addr, uint32_t eip)
{
    *addr = 0;
    switch (vector) {
    case X86_VEC_DE: *addr = eip; return FPE_INTDIV;
    case X86_VEC_UD: *addr = eip; return ILL_ILLOPN;
    case X86_VEC_DB: *addr = eip; return TRAP_BRKPT;
    case X86_VEC_AC: *addr = eip; return BUS_ADRALN;
    default: return SI_KERNEL;
    }
}

/* A user fault: its signal runs the task's handler, or kills it with the
 * one-line report. */
void user_fault(struct trap_frame *tf, uint32_t cr2, int sig, int32_t code, uint32_t addr,
                const char *note)
{
    struct task_struct *me = current;

    me->thread.trap_no = tf->vector;
    me->thread.error_code = tf->error_code;
    me->thread.cr2 = cr2;
    if (!note && force_sig_fault((uint32_t)sig, code, addr) == 0)
        return;
    kill_user_why(tf, cr2, sig, note);
}

#if KHIST == KHIST_SEED
/*
 * EFLAGS.TF set across sysenter in the seed patch: sysenter does not clear
 * TF, so the single-step trap is taken at CPL 0 on the trampoline's first
 * instruction, with no stack switch, on SYSENTER_ESP: the top of the
 * trampoline's own page. do_debug takes current from that stack (ESP &
 * ~(THREAD_SIZE - 1)) and stores the debug status in its thread struct.
 * Here that thread_info is the page below the trampoline (on the up
 * kernel the fixmap's page table, whose third word, the task, is 0): the
 * store is a NULL pointer dereference in kernel mode, an oops. The store
 * is not made: this kernel's fault handler, finding current the same way,
 * would fault again on the same stack. The oops is handled as Linux's die()
 * in process context: the line, and the task whose stack the TSS names
 * dies of SIGSEGV (seed_oops, on that stack); the machine goes on. A task
 * pointer into kernel memory would take the store silently; this kernel
 * keeps no debug status, so only TF is cleared then (do_debug's clear_TF).
 */
static uint32_t seed_oops_addr, seed_oops_eip;

static int seed_debug_trap(struct trap_frame *tf)
{
    struct thread_info *ti = (struct thread_info *)((uint32_t)tf & ~(THREAD_SIZE - 1));
    struct task_struct *tsk = ti->task;

    if (tf->vector != X86_VEC_DB || !(tf->eflags & X86_EFLAGS_TF))
        return 0;
    tf->eflags &= ~X86_EFLAGS_TF;
    if ((uint32_t)tsk >= KERNEL_BASE && (uint32_t)tsk < KERNEL_BASE + KERNEL_RAM_SIZE)
        return 1;
    seed_oops_addr = (uint32_t)tsk + __builtin_offsetof(struct task_struct, thread);
    seed_oops_eip = tf->eip;
    tf->eip = (uint32_t)seed_oops;
    return 1;
}

/* seed_oops's stack: the running task's, as the trampoline loads it. */
uint32_t seed_oops_stack(void)
{
#ifdef CONFIG_SMP
    return *tss_esp0_slot_of(hard_smp_processor_id());
#else
    return *tss_esp0_slot();
#endif
}

/* The oops, now on the task's stack: Linux's lines, then the task dies. */
__attribute__((noreturn)) void do_seed_oops(void)
{
    static const char null_note[] = "oops: kernel NULL pointer dereference in do_debug "
                                    "(TF set across sysenter, the seed patch)";
    static const char paging_note[] = "oops: kernel paging request in do_debug "
                                      "(TF set across sysenter, the seed patch)";
    int null = seed_oops_addr < PAGE_SIZE;
    struct trap_frame tf = {
        .vector = X86_VEC_PF, .error_code = X86_PF_WRITE,
        .eip = seed_oops_eip, .xcs = __KERNEL_CS,
    };

    printk("Unable to handle kernel %s at virtual address %08x",
           null ? "NULL pointer dereference" : "paging request", seed_oops_addr);
    printk("Oops: 0002");
    kill_user_why(&tf, seed_oops_addr, SIGSEGV, null ? null_note : paging_note);
}

#define kernel_single_step seed_debug_trap
#else
/*
 * EFLAGS.TF set across sysenter: the single-step trap lands on the first
 * kernel instruction (sysenter does not clear TF), as Linux found in
 * December 2002. The kernel clears TF for itself and owes the user the
 * trap of the sysenter step (TIF_SINGLESTEP, do_exit_work).
 */
static int kernel_single_step(struct trap_frame *tf)
{
    /* The task is the one whose stack the TSS names (on SMP, the TSS of
     * the CPU CPUID names): the trap came on that stack (2.5.53, 2.5.54),
     * or 2.6.0's debug stub moved there first. */
#ifdef CONFIG_SMP
    struct thread_info *ti =
        (struct thread_info *)(*tss_esp0_slot_of(hard_smp_processor_id()) - THREAD_SIZE);
#else
    struct thread_info *ti = (struct thread_info *)(*tss_esp0_slot() - THREAD_SIZE);
#endif

    if (tf->vector != X86_VEC_DB)
        return 0;
#if KHIST >= KHIST_260
    /* 2.6.0's debug stub made the frame anew (pushfl, TF already off):
     * a step is told by where it returns, the instruction after the
     * stack load */
    if (tf->eip != (uint32_t)sysenter_past_esp && !(tf->eflags & X86_EFLAGS_TF))
        return 0;
#else
    if (!(tf->eflags & X86_EFLAGS_TF))
        return 0;
#endif
    tf->eflags &= ~X86_EFLAGS_TF;
    ti->flags |= _TIF_SINGLESTEP;
    return 1;
}
#endif

/* The fault a kernel exception-table fixup last answered: what
 * do_iret_fault reports when the fixup was a failed return to user mode. */
static uint32_t fixed_vector, fixed_error;

void do_trap(struct trap_frame *tf)
{
    uint32_t cr2 = tf->vector == X86_VEC_PF ? read_cr2() : 0;

    /* CR0.TS: the task's first FPU instruction since it was switched in. */
    if (tf->vector == X86_VEC_NM && user_mode(tf->xcs)) {
        math_state_restore();
        return;
    }
    if (tf->vector == X86_VEC_PF) {
        do_page_fault(tf);
        return;
    }
    if (user_mode(tf->xcs)) {
        uint32_t addr;
        int32_t code = fault_code(tf->vector, &addr, tf->eip);
        user_fault(tf, cr2, signal_for(tf->vector), code, addr, NULL_PTR);
        return;
    }
    if (kernel_single_step(tf))
        return;
    uint32_t fixup = search_exception_table(tf->eip);
    if (fixup) {
        fixed_vector = tf->vector;
        fixed_error = tf->error_code;
        tf->eip = fixup;
        return;
    }
    panic("kernel fault: vector %u error %x at eip %08x cr2 %08x",
          tf->vector, tf->error_code, tf->eip, cr2);
}

/* Returning to user space faulted on the iret itself: the saved frame is
 * unusable (a forged sigcontext's selectors), so the program dies as Linux
 * kills it, with SIGSEGV, reported with the fault the iret took (#GP for a
 * bad selector, #NP, #SS, #TS). */
void do_iret_fault(void)
{
    struct pt_regs *regs = task_pt_regs(current);
    struct trap_frame tf = {
        .vector = fixed_vector, .error_code = fixed_error, .eip = regs->eip,
        .xcs = regs->xcs, .eflags = regs->eflags, .esp = regs->esp, .xss = regs->xss,
    };
    kill_user(&tf, 0, SIGSEGV);
}

#if KHIST == KHIST_SEED
/* A step owed to the user (TIF_SINGLESTEP), given as a SIGTRAP with TF back
 * on: this kernel's own answer, before the seed's oops was modelled; the
 * seed's debug trap no longer owes one (seed_debug_trap), but the branch
 * stays so that do_exit_work, on every signal's way out, keeps its code
 * and its figures. */
static void single_step_done(struct pt_regs *regs)
{
    struct trap_frame tf = {
        .vector = X86_VEC_DB, .eip = regs->eip, .xcs = regs->xcs,
        .eflags = regs->eflags, .esp = regs->esp, .xss = regs->xss,
    };

    regs->eflags |= X86_EFLAGS_TF;
    user_fault(&tf, 0, SIGTRAP, TRAP_BRKPT, regs->eip, NULL_PTR);
}
#endif

/*
 * The work syscall_exit_work was sent for (Linux's do_notify_resume):
 * rescheduling, then signals, until none is left or a handler's frame is
 * built (the next signal waits for the next return); the return is then
 * always through iret. A timer tick may have run timers that are due.
 */
void do_exit_work(struct pt_regs *regs)
{
    struct thread_info *ti = current_thread_info();

    for (;;) {
        if (ti->flags & _TIF_NEED_RESCHED) {
            schedule();
        } else if (ti->flags & _TIF_SINGLESTEP) {
            ti->flags &= ~_TIF_SINGLESTEP;
#if KHIST == KHIST_SEED
            if (user_mode(regs->xcs))
                single_step_done(regs);
#else
            /* 2.5.53 as released on (e2fb41343a, do_notify_resume): TF
             * goes back on in the frame and nothing more; the iret's TF
             * traps after the program's next instruction */
            regs->eflags |= X86_EFLAGS_TF;
#endif
        } else if (ti->flags & _TIF_SIGPENDING) {
            if (do_signal(regs))
                break;
        } else {
            break;
        }
    }
    ti->flags &= ~_TIF_IRET;
}

/* The trampoline loads esp0 from here; it is 4-byte aligned in the TSS. */
uint32_t *tss_esp0_slot(void)
{
    return (uint32_t *)((uint8_t *)this_tss() + __builtin_offsetof(struct tss_struct, esp0));
}

#if KHIST >= KHIST_260
uint16_t *tss_ss1_slot(void)
{
    return (uint16_t *)((uint8_t *)this_tss() + __builtin_offsetof(struct tss_struct, ss1));
}

uint32_t tss_sysenter_stack_top(void)
{
    return (uint32_t)this_tss() + sizeof(struct tss_struct);
}
#endif

#ifdef CONFIG_SMP
uint32_t *tss_esp0_slot_of(int cpu)
{
    return (uint32_t *)((uint8_t *)&init_tss[cpu] + __builtin_offsetof(struct tss_struct, esp0));
}

void ap_trap_init(void)
{
    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) idtr = {
        sizeof(idt_table) - 1, (uint32_t)idt_table,
    };
    __asm__ volatile("lidt %0" : : "m"(idtr));
}
#endif
