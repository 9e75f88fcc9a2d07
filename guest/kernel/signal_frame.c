/*
 * Delivery: the i386 signal frames of Linux 2.5/2.6 (arch/i386/kernel/
 * signal.c), built on the user stack on the way back to user mode, and
 * sigreturn, which takes them down again. glibc's and musl's handlers,
 * ucontext readers and siglongjmp see the layouts they were built for:
 *
 *   sigframe:    pretcode, sig, sigcontext, fpstate, extramask, retcode
 *   rt_sigframe: pretcode, sig, pinfo, puc, siginfo, ucontext, fpstate, retcode
 *
 * A forged frame is sanitised the way Linux does it: only the arithmetic
 * flags, DF, TF and AC come from it (IOPL, NT, VM and IF keep their user
 * values); every selector gets RPL 3, so a kernel one fails at the iret or
 * the segment pop (and the task gets SIGSEGV, not the kernel a selector);
 * an EIP in the kernel's half is refused.
 */
#include "kernel.h"
#include "sched.h"
#include "mm.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

struct sigcontext {
    uint16_t gs, __gsh, fs, __fsh, es, __esh, ds, __dsh;
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;
    uint32_t trapno, err, eip;
    uint16_t cs, __csh;
    uint32_t eflags, esp_at_signal;
    uint16_t ss, __ssh;
    uint32_t fpstate;          /* user address of the frame's fpstate, or 0 */
    uint32_t oldmask, cr2;
};

/* struct _fpstate up to its magic: the fnsave image, then status and
 * magic 0xffff ("no fxsave data follows"). */
struct fpstate {
    uint8_t fnsave[108];
    uint16_t status, magic;
};

struct siginfo {
    int32_t signo, errno_, code;
    uint32_t fields[29];
};

struct ucontext {
    uint32_t flags, link;
    struct stack32 stack;
    struct sigcontext mcontext;
    uint64_t sigmask;
};

struct sigframe {
    uint32_t pretcode;
    int32_t sig;
    struct sigcontext sc;
    struct fpstate fpstate;
    uint32_t extramask[1];
    uint8_t retcode[8];
};

struct rt_sigframe {
    uint32_t pretcode;
    int32_t sig;
    uint32_t pinfo, puc;
    struct siginfo info;
    struct ucontext uc;
    struct fpstate fpstate;
    uint8_t retcode[8];
};

_Static_assert(sizeof(struct sigcontext) == 88, "sigcontext layout");
_Static_assert(sizeof(struct siginfo) == 128, "siginfo layout");
_Static_assert(__builtin_offsetof(struct ucontext, mcontext) == 20, "ucontext layout");
_Static_assert(__builtin_offsetof(struct ucontext, sigmask) == 108, "ucontext layout");
_Static_assert(__builtin_offsetof(struct rt_sigframe, info) == 16, "rt_sigframe layout");
_Static_assert(__builtin_offsetof(struct sigframe, sc) == 8, "sigframe layout");

/* What sigreturn takes from a frame's EFLAGS (Linux's FIX_EFLAGS). */
#define FIX_EFLAGS (X86_EFLAGS_AC | X86_EFLAGS_OF | X86_EFLAGS_DF | X86_EFLAGS_TF | \
                    X86_EFLAGS_SF | X86_EFLAGS_ZF | X86_EFLAGS_AF | X86_EFLAGS_PF | \
                    X86_EFLAGS_CF)

/* The frame goes below the interrupted stack, or at the top of the
 * alternate stack for SA_ONSTACK when not already on it; the handler
 * starts with (ESP + 4) 16-byte aligned, as the i386 ABI expects. */
static uint32_t frame_address(const struct pt_regs *regs, const struct k_sigaction *ka,
                              uint32_t size)
{
    struct stack32 *alt = &current->sighand->altstack;
    uint32_t sp = regs->esp;

    if ((ka->flags & SA_ONSTACK) && alt->flags != SS_DISABLE && alt->size &&
        !(sp - alt->sp <= alt->size))
        sp = alt->sp + alt->size;
    sp -= size;
    return ((sp + 4) & ~15u) - 4;
}

static void fill_sigcontext(struct sigcontext *sc, const struct pt_regs *regs,
                            uint32_t fpstate, uint64_t mask)
{
    struct task_struct *me = current;
    uint32_t gs, fs;

    savesegment(gs, gs);
    savesegment(fs, fs);
    memset(sc, 0, sizeof(*sc));
    sc->gs = (uint16_t)gs;
    sc->fs = (uint16_t)fs;
    sc->es = (uint16_t)regs->xes;
    sc->ds = (uint16_t)regs->xds;
    sc->edi = regs->edi;
    sc->esi = regs->esi;
    sc->ebp = regs->ebp;
    sc->esp = regs->esp;
    sc->ebx = regs->ebx;
    sc->edx = regs->edx;
    sc->ecx = regs->ecx;
    sc->eax = regs->eax;
    sc->trapno = me->thread.trap_no;
    sc->err = me->thread.error_code;
    sc->eip = regs->eip;
    sc->cs = (uint16_t)regs->xcs;
    sc->eflags = regs->eflags;
    sc->esp_at_signal = regs->esp;
    sc->ss = (uint16_t)regs->xss;
    sc->fpstate = fpstate;
    sc->oldmask = (uint32_t)mask;
    sc->cr2 = me->thread.cr2;
}

/* The x87 state into the frame's fpstate; 0 if the task never used it. */
static uint32_t save_fpu(struct fpstate *fp, uint32_t user_addr)
{
    struct task_struct *me = current;

    if (!me->thread.used_math)
        return 0;
    fpu_save_to(me, fp->fnsave);
    fp->status = 0;
    fp->magic = 0xffff;
    me->thread.used_math = 0;
    return user_addr;
}

static void fill_siginfo(struct siginfo *si, uint32_t sig, const struct sig_info *info)
{
    memset(si, 0, sizeof(*si));
    si->signo = (int32_t)sig;
    si->code = info->code;
    si->fields[0] = info->w[0];
    si->fields[1] = info->w[1];
    si->fields[2] = info->w[2];
}

/* Where the handler returns: SA_RESTORER's, else the vsyscall page's. */
static uint32_t restorer(const struct k_sigaction *ka, int rt)
{
    if (ka->flags & SA_RESTORER)
        return ka->restorer;
    return VSYSCALL_BASE + (rt ? VSYSCALL_RT_SIGRETURN_OFFSET : VSYSCALL_SIGRETURN_OFFSET);
}

/* "popl %eax; movl $nr, %eax; int $0x80" (sigreturn), or without the pop
 * (rt): never run, but gdb recognises a frame by it, as on Linux. */
static void retcode(uint8_t *code, uint32_t nr, int pop)
{
    uint8_t *p = code;

    if (pop)
        *p++ = 0x58;
    *p++ = 0xb8;
    memcpy(p, &nr, 4);
    p += 4;
    *p++ = 0xcd;
    *p++ = 0x80;
}

static int setup_frame(uint32_t sig, const struct k_sigaction *ka, uint64_t oldmask,
                       struct pt_regs *regs)
{
    static struct sigframe f;  /* one task runs kernel code at a time */
    uint32_t at = frame_address(regs, ka, sizeof(f));

    memset(&f, 0, sizeof(f));
    f.pretcode = restorer(ka, 0);
    f.sig = (int32_t)sig;
    fill_sigcontext(&f.sc, regs, 0, oldmask);
    f.sc.fpstate = save_fpu(&f.fpstate, at + __builtin_offsetof(struct sigframe, fpstate));
    f.extramask[0] = (uint32_t)(oldmask >> 32);
    retcode(f.retcode, SYS_sigreturn, 1);
    if (copy_to_user(at, &f, sizeof(f)) != 0)
        return -EFAULT;
    regs->esp = at;
    regs->eax = sig;
    regs->edx = regs->ecx = 0;
    return 0;
}

static int setup_rt_frame(uint32_t sig, const struct k_sigaction *ka,
                          const struct sig_info *info, uint64_t oldmask,
                          struct pt_regs *regs)
{
    static struct rt_sigframe f;
    struct stack32 *alt = &current->sighand->altstack;
    uint32_t at = frame_address(regs, ka, sizeof(f));

    memset(&f, 0, sizeof(f));
    f.pretcode = restorer(ka, 1);
    f.sig = (int32_t)sig;
    f.pinfo = at + __builtin_offsetof(struct rt_sigframe, info);
    f.puc = at + __builtin_offsetof(struct rt_sigframe, uc);
    fill_siginfo(&f.info, sig, info);
    f.uc.stack = *alt;
    if (alt->flags != SS_DISABLE && regs->esp - alt->sp <= alt->size)
        f.uc.stack.flags = SS_ONSTACK;
    fill_sigcontext(&f.uc.mcontext, regs, 0, oldmask);
    f.uc.mcontext.fpstate = save_fpu(&f.fpstate,
                                     at + __builtin_offsetof(struct rt_sigframe, fpstate));
    f.uc.sigmask = oldmask;
    retcode(f.retcode, SYS_rt_sigreturn, 0);
    if (copy_to_user(at, &f, sizeof(f)) != 0)
        return -EFAULT;
    regs->esp = at;
    regs->eax = sig;
    regs->edx = f.pinfo;
    regs->ecx = f.puc;
    return 0;
}

/* The frame could not be written (the stack is gone or full): the task
 * dies of SIGSEGV, reported like the fault it is. */
static __attribute__((noreturn)) void frame_fault(const struct pt_regs *regs, uint32_t sig)
{
    struct trap_frame tf = {
        .vector = X86_VEC_PF, .error_code = X86_PF_USER | X86_PF_WRITE,
        .eip = regs->eip, .xcs = regs->xcs, .eflags = regs->eflags,
        .esp = regs->esp, .xss = regs->xss,
    };
    static char note[64];

    snprintf(note, sizeof(note), "no room for the frame of signal %u", sig);
    kill_user_why(&tf, regs->esp, SIGSEGV, note);
}

static void handle_signal(uint32_t sig, const struct sig_info *info, struct pt_regs *regs)
{
    struct task_struct *me = current;
    struct k_sigaction *ka = sig_action(me, sig);
    struct k_sigaction act = *ka;
    uint64_t oldmask = me->restore_blocked ? me->saved_blocked : me->sig_blocked;
    int err;

    err = (act.flags & SA_SIGINFO) ? setup_rt_frame(sig, &act, info, oldmask, regs)
                                   : setup_frame(sig, &act, oldmask, regs);
    if (err)
        frame_fault(regs, sig);
    me->restore_blocked = 0;
    regs->eip = act.handler;
    regs->xcs = __USER_CS;
    regs->xss = regs->xds = regs->xes = __USER_DS;
    regs->eflags &= ~(X86_EFLAGS_TF | X86_EFLAGS_DF);
    if (act.flags & SA_RESETHAND)
        ka->handler = SIG_DFL;
    me->sig_blocked |= ((uint64_t)act.mask[1] << 32) | act.mask[0];
    if (!(act.flags & SA_NODEFER))
        me->sig_blocked |= sigbit(sig);
    me->sig_blocked &= ~(sigbit(SIGKILL) | sigbit(SIGSTOP));
    recalc_sigpending(me);
}

/* A system call that a signal interrupted: restarted (EIP back on the
 * instruction that made it: int $0x80, or the sysenter stub's
 * "movl %esp, %ebp", which sets up what sysenter needs again) or EINTR. */
static void syscall_restart(struct pt_regs *regs, const struct k_sigaction *ka)
{
    int32_t err = (int32_t)regs->eax;
    int restart;

    if ((int32_t)regs->orig_eax < 0)
        return;
    switch (err) {
    case -ERESTARTNOHAND:
    case -ERESTART_RESTARTBLOCK:
        restart = !ka;
        break;
    case -ERESTARTSYS:
        restart = !ka || (ka->flags & SA_RESTART);
        break;
    case -ERESTARTNOINTR:
        restart = 1;
        break;
    default:
        return;
    }
    if (!restart) {
        regs->eax = (uint32_t)-EINTR;
        return;
    }
    regs->eax = err == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall : regs->orig_eax;
    regs->eip -= regs->eip == SYSENTER_RETURN ? SYSENTER_RESTART_BACK : 2;
}

/*
 * The lowest-numbered pending signal not blocked, by its action: a handler
 * gets a frame (one per return to user mode; the next waits for the next
 * return, as in 2.5); a default action terminates or is ignored. 1 if a
 * frame was built.
 */
int do_signal(struct pt_regs *regs)
{
    struct task_struct *me = current;
    uint64_t ready;

    if (!user_mode(regs->xcs))
        return 0;
    while ((ready = me->sig_pending & ~me->sig_blocked) != 0) {
        uint32_t sig = (uint32_t)__builtin_ctzll(ready) + 1;
        struct k_sigaction *ka = sig_action(me, sig);
        struct sig_info info = me->siginfo[sig];

        me->sig_pending &= ~sigbit(sig);
        if (sig != SIGKILL && ka->handler == SIG_IGN)
            continue;
        if (sig == SIGKILL || ka->handler == SIG_DFL) {
            if (sig != SIGKILL && sig_default_ignored(sig))
                continue;
            do_exit((int)sig);   /* killed by the signal */
        }
        syscall_restart(regs, ka);
        handle_signal(sig, &info, regs);
        return 1;
    }
    syscall_restart(regs, NULL_PTR);
    if (me->restore_blocked) {
        me->restore_blocked = 0;
        me->sig_blocked = me->saved_blocked;
    }
    recalc_sigpending(me);
    return 0;
}

/* ---- sigreturn ---- */

static int good_user_eip(uint32_t eip)
{
    return eip < USER_SPACE_TOP || eip >= VSYSCALL_BASE;
}

static int restore_sigcontext(struct pt_regs *regs, const struct sigcontext *sc,
                              uint32_t *eax)
{
    struct task_struct *me = current;

    if (!good_user_eip(sc->eip))
        return -1;
    loadsegment(gs, (uint32_t)(sc->gs | 3));
    loadsegment(fs, (uint32_t)(sc->fs | 3));
    regs->xes = (uint32_t)(sc->es | 3);
    regs->xds = (uint32_t)(sc->ds | 3);
    regs->edi = sc->edi;
    regs->esi = sc->esi;
    regs->ebp = sc->ebp;
    regs->esp = sc->esp;
    regs->ebx = sc->ebx;
    regs->edx = sc->edx;
    regs->ecx = sc->ecx;
    regs->eip = sc->eip;
    regs->xcs = (uint32_t)(sc->cs | 3);
    regs->xss = (uint32_t)(sc->ss | 3);
    regs->eflags = (regs->eflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS);
    regs->orig_eax = (uint32_t)-1;   /* no restart of the call that sigreturn is */
    if (sc->fpstate) {
        struct fpstate fp;
        if (copy_from_user(&fp, sc->fpstate, sizeof(fp)) != 0)
            return -1;
        fpu_load_from(me, fp.fnsave);
    }
    *eax = sc->eax;
    me->ti->flags |= _TIF_IRET;
    return 0;
}

static void set_blocked(uint64_t mask)
{
    current->sig_blocked = mask & ~(sigbit(SIGKILL) | sigbit(SIGSTOP));
    recalc_sigpending(current);
}

/* A frame that cannot be read or is refused: SIGSEGV, as Linux's badframe. */
static __attribute__((noreturn)) void bad_frame(const struct pt_regs *regs, uint32_t at)
{
    struct trap_frame tf = {
        .vector = X86_VEC_GP, .eip = regs->eip, .xcs = regs->xcs,
        .eflags = regs->eflags, .esp = regs->esp, .xss = regs->xss,
    };

    kill_user_why(&tf, at, SIGSEGV, "sigreturn with a bad frame");
}

/* The handler returned into the restorer, which popped the signal number:
 * the frame began 8 bytes below. */
long sys_sigreturn(uint32_t a1, uint32_t a2, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct pt_regs *regs = task_pt_regs(current);
    static struct sigframe f;
    uint32_t at = regs->esp - 8, eax;

    if (copy_from_user(&f, at, sizeof(f)) != 0)
        bad_frame(regs, at);
    set_blocked(((uint64_t)f.extramask[0] << 32) | f.sc.oldmask);
    if (restore_sigcontext(regs, &f.sc, &eax) != 0)
        bad_frame(regs, at);
    return (long)eax;
}

long sys_rt_sigreturn(uint32_t a1, uint32_t a2, uint32_t a3,
                      uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct pt_regs *regs = task_pt_regs(current);
    static struct rt_sigframe f;
    uint32_t at = regs->esp - 4, eax;

    if (copy_from_user(&f, at, sizeof(f)) != 0)
        bad_frame(regs, at);
    set_blocked(f.uc.sigmask);
    if (restore_sigcontext(regs, &f.uc.mcontext, &eax) != 0)
        bad_frame(regs, at);
    return (long)eax;
}
