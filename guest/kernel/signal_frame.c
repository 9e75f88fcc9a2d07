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
 *
 * The frames are written and read as 2.5.53's arch/i386/kernel/signal.c
 * does it: one access_ok for the frame, then a __put_user or __get_user
 * per field (uaccess.h), and __copy_to_user/__copy_from_user for the arrays; the blocked set
 * changes under the siglock.
 */
#include "kernel.h"
#include "variant.h"
#include "sched.h"
#include "mm.h"
#include "uaccess.h"

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

/* The alternate stack's flags as the frame's ucontext and sigaltstack
 * report them (2.5.53's sas_ss_flags). */
static uint32_t sas_ss_flags(uint32_t sp)
{
    const struct stack32 *alt = &current->sighand->altstack;

    if (alt->flags == SS_DISABLE)
        return SS_DISABLE;
    return sp - alt->sp <= alt->size ? SS_ONSTACK : 0;
}

/* The frame goes below the interrupted stack, or at the top of the
 * alternate stack for SA_ONSTACK when not already on it; the handler
 * starts with (ESP + 4) 16-byte aligned, as the i386 ABI expects (2.5.53
 * aligned to 8). */
static void *get_sigframe(const struct k_sigaction *ka, const struct pt_regs *regs,
                          uint32_t size)
{
    const struct stack32 *alt = &current->sighand->altstack;
    uint32_t sp = regs->esp;

    if ((ka->flags & SA_ONSTACK) && alt->size && sas_ss_flags(sp) == 0)
        sp = alt->sp + alt->size;
    sp -= size;
    return (void *)(((sp + 4) & ~15u) - 4);
}

/* The x87 state into the frame: 1 if saved, 0 if the task never used it,
 * -1 on a fault. The image is fnsave's 108 bytes, then status 0 and magic
 * 0xffff ("no fxsave data follows"): 2.5.53 on an FXSR CPU saved with
 * fxsave and converted. */
static int save_i387(struct fpstate *buf)
{
    struct task_struct *me = current;
    uint8_t image[sizeof(buf->fnsave)];
    long err = 0;

    if (!me->thread.used_math)
        return 0;
    me->thread.used_math = 0;
    fpu_save_to(me, image);
    if (__copy_to_user((uint32_t)buf->fnsave, image, sizeof(image)))
        return -1;
    err |= __put_user(0, &buf->status);
    err |= __put_user(0xffff, &buf->magic);
    return err ? -1 : 1;
}

/* A selector and the pad above it, stored as one 32-bit word */
typedef uint32_t __attribute__((may_alias)) seg_word;

static long setup_sigcontext(struct sigcontext *sc, struct fpstate *fpstate,
                             const struct pt_regs *regs, uint32_t mask)
{
    struct task_struct *me = current;
    long err = 0;
    uint32_t tmp;
    int saved;

    savesegment(gs, tmp);
    err |= __put_user(tmp, (seg_word *)&sc->gs);
    savesegment(fs, tmp);
    err |= __put_user(tmp, (seg_word *)&sc->fs);
    err |= __put_user(regs->xes, (seg_word *)&sc->es);
    err |= __put_user(regs->xds, (seg_word *)&sc->ds);
    err |= __put_user(regs->edi, &sc->edi);
    err |= __put_user(regs->esi, &sc->esi);
    err |= __put_user(regs->ebp, &sc->ebp);
    err |= __put_user(regs->esp, &sc->esp);
    err |= __put_user(regs->ebx, &sc->ebx);
    err |= __put_user(regs->edx, &sc->edx);
    err |= __put_user(regs->ecx, &sc->ecx);
    err |= __put_user(regs->eax, &sc->eax);
    err |= __put_user(me->thread.trap_no, &sc->trapno);
    err |= __put_user(me->thread.error_code, &sc->err);
    err |= __put_user(regs->eip, &sc->eip);
    err |= __put_user(regs->xcs, (seg_word *)&sc->cs);
    err |= __put_user(regs->eflags, &sc->eflags);
    err |= __put_user(regs->esp, &sc->esp_at_signal);
    err |= __put_user(regs->xss, (seg_word *)&sc->ss);
    saved = save_i387(fpstate);
    if (saved < 0)
        err = -EFAULT;
    else
        err |= __put_user(saved ? (uint32_t)fpstate : 0, &sc->fpstate);
    err |= __put_user(mask, &sc->oldmask);
    err |= __put_user(me->thread.cr2, &sc->cr2);
    return err;
}

/* Where the handler returns: SA_RESTORER's, else the vsyscall page's
 * (2.5.53: the retcode on the stack). */
static uint32_t restorer(const struct k_sigaction *ka, int rt)
{
    if (ka->flags & SA_RESTORER)
        return ka->restorer;
    return KV_VSYSCALL_BASE + (rt ? KV_RT_SIGRETURN_OFFSET : KV_SIGRETURN_OFFSET);
}

/* The frame could not be written (the stack is gone or full): the task
 * dies of SIGSEGV, reported like the fault it is, with the frame's
 * address as cr2 (2.5.53: force_sig, whose siginfo, never seen since the
 * task dies, is SI_KERNEL with si_addr 0). */
static __attribute__((noreturn)) void give_sigsegv(const struct pt_regs *regs, uint32_t sig,
                                                   const void *frame)
{
    struct trap_frame tf = {
        .vector = X86_VEC_PF, .error_code = X86_PF_USER | X86_PF_WRITE,
        .eip = regs->eip, .xcs = regs->xcs, .eflags = regs->eflags,
        .esp = regs->esp, .xss = regs->xss,
    };
    static char note[64];

    snprintf(note, sizeof(note), "no room for the frame of signal %u", sig);
    kill_user_why(&tf, (uint32_t)frame, SIGSEGV, note);
}

/* The registers the handler starts with; EAX, EDX and ECX carry its
 * arguments for a regparm(3) handler, as Linux since 2.6 sets them. */
static void start_handler(struct pt_regs *regs, const struct k_sigaction *ka, void *frame,
                          uint32_t sig, uint32_t edx, uint32_t ecx)
{
    regs->esp = (uint32_t)frame;
    regs->eip = ka->handler;
    regs->xds = regs->xes = regs->xss = __USER_DS;
    regs->xcs = __USER_CS;
    regs->eflags &= ~(X86_EFLAGS_TF | X86_EFLAGS_DF);
    regs->eax = sig;
    regs->edx = edx;
    regs->ecx = ecx;
}

/* The retcode "popl %eax; movl $nr, %eax; int $0x80" (or without the pop
 * for rt) is written even when the handler returns elsewhere: never run,
 * but gdb recognises a frame by it, as on Linux. */
static void setup_frame(uint32_t sig, const struct k_sigaction *ka, const uint64_t *set,
                        struct pt_regs *regs)
{
    struct sigframe *frame = get_sigframe(ka, regs, sizeof(*frame));
    long err = 0;

    if (!access_ok((uint32_t)frame, sizeof(*frame)))
        give_sigsegv(regs, sig, frame);
    err |= __put_user(sig, &frame->sig);
    if (err)
        give_sigsegv(regs, sig, frame);
    err |= setup_sigcontext(&frame->sc, &frame->fpstate, regs, (uint32_t)*set);
    if (err)
        give_sigsegv(regs, sig, frame);
    if (__copy_to_user((uint32_t)frame->extramask, (const uint32_t *)set + 1,
                       sizeof(frame->extramask)))
        give_sigsegv(regs, sig, frame);
    err |= __put_user(restorer(ka, 0), &frame->pretcode);
    err |= __put_user(0xb858, (uint16_t *)(frame->retcode + 0));
    err |= __put_user(SYS_sigreturn, (uint32_t *)(frame->retcode + 2));
    err |= __put_user(0x80cd, (uint16_t *)(frame->retcode + 6));
    if (err)
        give_sigsegv(regs, sig, frame);
    start_handler(regs, ka, frame, sig, 0, 0);
}

/* The whole siginfo from a zeroed copy (2.5.53 copied it whole only for
 * a negative si_code, field by field otherwise, leaving the rest of the
 * frame's bytes as they were). */
static long copy_siginfo_to_user(struct siginfo *to, uint32_t sig, const struct sig_info *from)
{
    struct siginfo si;

    memset(&si, 0, sizeof(si));
    si.signo = (int32_t)sig;
    si.code = from->code;
    si.fields[0] = from->w[0];
    si.fields[1] = from->w[1];
    si.fields[2] = from->w[2];
    return __copy_to_user((uint32_t)to, &si, sizeof(si)) ? -EFAULT : 0;
}

static void setup_rt_frame(uint32_t sig, const struct k_sigaction *ka,
                           const struct sig_info *info, const uint64_t *set,
                           struct pt_regs *regs)
{
    struct rt_sigframe *frame = get_sigframe(ka, regs, sizeof(*frame));
    const struct stack32 *alt = &current->sighand->altstack;
    long err = 0;

    if (!access_ok((uint32_t)frame, sizeof(*frame)))
        give_sigsegv(regs, sig, frame);
    err |= __put_user(sig, &frame->sig);
    err |= __put_user((uint32_t)&frame->info, &frame->pinfo);
    err |= __put_user((uint32_t)&frame->uc, &frame->puc);
    err |= copy_siginfo_to_user(&frame->info, sig, info);
    if (err)
        give_sigsegv(regs, sig, frame);
    err |= __put_user(0, &frame->uc.flags);
    err |= __put_user(0, &frame->uc.link);
    err |= __put_user(alt->sp, &frame->uc.stack.sp);
    err |= __put_user(sas_ss_flags(regs->esp), &frame->uc.stack.flags);
    err |= __put_user(alt->size, &frame->uc.stack.size);
    err |= setup_sigcontext(&frame->uc.mcontext, &frame->fpstate, regs, (uint32_t)*set);
    err |= __copy_to_user((uint32_t)&frame->uc.sigmask, set, sizeof(*set)) ? -EFAULT : 0;
    if (err)
        give_sigsegv(regs, sig, frame);
    err |= __put_user(restorer(ka, 1), &frame->pretcode);
    err |= __put_user(0xb8, (uint8_t *)(frame->retcode + 0));
    err |= __put_user(SYS_rt_sigreturn, (uint32_t *)(frame->retcode + 1));
    err |= __put_user(0x80cd, (uint16_t *)(frame->retcode + 5));
    if (err)
        give_sigsegv(regs, sig, frame);
    start_handler(regs, ka, frame, sig, (uint32_t)&frame->info, (uint32_t)&frame->uc);
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
    regs->eip -= regs->eip == KV_SYSENTER_RETURN ? KV_STUB_RESTART_BACK : 2;
}

/*
 * The handler's frame, then its mask. sa_mask is added even with
 * SA_NODEFER, as Linux does since 2.6 (2.5.53 skipped the whole update
 * under SA_NODEFER); the tests compare with today's Linux.
 */
static void handle_signal(uint32_t sig, const struct sig_info *info, const uint64_t *oldset,
                          struct pt_regs *regs)
{
    struct task_struct *me = current;
    struct k_sigaction *ka = &me->sighand->action[sig];

    syscall_restart(regs, ka);
    if (ka->flags & SA_SIGINFO)
        setup_rt_frame(sig, ka, info, oldset, regs);
    else
        setup_frame(sig, ka, oldset, regs);
    me->restore_blocked = 0;
    if (ka->flags & SA_RESETHAND)
        ka->handler = SIG_DFL;
    spin_lock_irq(&me->sighand->siglock);
    me->sig_blocked |= ((uint64_t)ka->mask[1] << 32) | ka->mask[0];
    if (!(ka->flags & SA_NODEFER))
        me->sig_blocked |= sigbit(sig);
    recalc_sigpending(me);
    spin_unlock_irq(&me->sighand->siglock);
}

/*
 * On the way back to user mode with a signal pending (do_exit_work): the
 * next one to act on gets its handler's frame (one per return to user
 * mode; the next waits for the next return, as in 2.5); with none, an
 * interrupted call is restarted and a sigsuspend's mask put back. 1 if a
 * frame was built.
 */
int do_signal(struct pt_regs *regs)
{
    struct task_struct *me = current;
    const uint64_t *oldset;
    struct sig_info info;
    uint32_t signr;

    if (!user_mode(regs->xcs))
        return 1;
    oldset = me->restore_blocked ? &me->saved_blocked : &me->sig_blocked;
    signr = get_signal_to_deliver(&info);
    if (signr) {
        /* The watchpoints back on before user mode, as 2.5.53 reloads the
         * task's DR7 here: this kernel keeps none, so 0. */
        __asm__ volatile("movl %0, %%db7" : : "r"(0u));
        handle_signal(signr, &info, oldset, regs);
        return 1;
    }
    syscall_restart(regs, NULL_PTR);
    if (me->restore_blocked) {
        spin_lock_irq(&me->sighand->siglock);
        me->restore_blocked = 0;
        me->sig_blocked = me->saved_blocked;
        recalc_sigpending(me);
        spin_unlock_irq(&me->sighand->siglock);
    }
    return 0;
}

/* ---- sigreturn ---- */

static int good_user_eip(uint32_t eip)
{
    return eip < USER_SPACE_TOP || eip >= KV_VSYSCALL_BASE;
}

/* The x87 state back from the frame, loaded at the task's next FPU
 * instruction. */
static long restore_i387(const struct fpstate *buf)
{
    struct fpstate fp;

    if (__copy_from_user(&fp, (uint32_t)buf, sizeof(fp)))
        return -EFAULT;
    fpu_load_from(current, fp.fnsave);
    return 0;
}

/* A selector from the frame, with RPL 3: a kernel one then fails at the
 * load or the iret, in the task's name. */
#define COPY_SEG_CPL3(seg, into)                    \
    do {                                            \
        uint16_t tmp;                               \
        err |= __get_user(tmp, &sc->seg);           \
        into = (uint32_t)(tmp | 3);                 \
    } while (0)

#define LOAD_SEG_CPL3(seg)                          \
    do {                                            \
        uint16_t tmp;                               \
        err |= __get_user(tmp, &sc->seg);           \
        loadsegment(seg, (uint32_t)(tmp | 3));      \
    } while (0)

/* Nonzero for a frame that cannot be read or is refused: an EIP in the
 * kernel's half, which 2.5.53 left to the return to fault on. */
static long restore_sigcontext(struct pt_regs *regs, struct sigcontext *sc, uint32_t *peax)
{
    uint32_t eflags, fpstate;
    long err = 0;

    LOAD_SEG_CPL3(gs);
    LOAD_SEG_CPL3(fs);
    COPY_SEG_CPL3(es, regs->xes);
    COPY_SEG_CPL3(ds, regs->xds);
    err |= __get_user(regs->edi, &sc->edi);
    err |= __get_user(regs->esi, &sc->esi);
    err |= __get_user(regs->ebp, &sc->ebp);
    err |= __get_user(regs->esp, &sc->esp);
    err |= __get_user(regs->ebx, &sc->ebx);
    err |= __get_user(regs->edx, &sc->edx);
    err |= __get_user(regs->ecx, &sc->ecx);
    err |= __get_user(regs->eip, &sc->eip);
    COPY_SEG_CPL3(cs, regs->xcs);
    COPY_SEG_CPL3(ss, regs->xss);
    err |= __get_user(eflags, &sc->eflags);
    regs->eflags = (regs->eflags & ~FIX_EFLAGS) | (eflags & FIX_EFLAGS);
    regs->orig_eax = (uint32_t)-1;   /* no restart of the call that sigreturn is */
    err |= __get_user(fpstate, &sc->fpstate);
    if (fpstate) {
        if (!access_ok(fpstate, sizeof(struct fpstate)))
            return -EFAULT;
        err |= restore_i387((const struct fpstate *)fpstate);
    }
    err |= __get_user(*peax, &sc->eax);
    if (!good_user_eip(regs->eip))
        return -EFAULT;
    current->ti->flags |= _TIF_IRET;
    return err;
}

/* A frame that cannot be read or is refused: SIGSEGV, as Linux's badframe,
 * reported at the sigreturn call. */
static __attribute__((noreturn)) void badframe(uint32_t eip, uint32_t at)
{
    struct trap_frame tf = { .vector = X86_VEC_GP, .eip = eip };

    kill_user_why(&tf, at, SIGSEGV, "sigreturn with a bad frame");
}

static void set_blocked(uint64_t set)
{
    struct task_struct *me = current;

    set &= ~(sigbit(SIGKILL) | sigbit(SIGSTOP));
    spin_lock_irq(&me->sighand->siglock);
    me->sig_blocked = set;
    recalc_sigpending(me);
    spin_unlock_irq(&me->sighand->siglock);
}

/* The handler returned into the restorer, which popped the signal number:
 * the frame began 8 bytes below. */
long sys_sigreturn(uint32_t a1, uint32_t a2, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct pt_regs *regs = task_pt_regs(current);
    struct sigframe *frame = (struct sigframe *)(regs->esp - 8);
    uint32_t call = regs->eip, eax, set[2];

    if (!access_ok((uint32_t)frame, sizeof(*frame)))
        badframe(call, (uint32_t)frame);
    if (__get_user(set[0], &frame->sc.oldmask) ||
        __copy_from_user(&set[1], (uint32_t)frame->extramask, sizeof(frame->extramask)))
        badframe(call, (uint32_t)frame);
    set_blocked(((uint64_t)set[1] << 32) | set[0]);
    if (restore_sigcontext(regs, &frame->sc, &eax))
        badframe(call, (uint32_t)frame);
    return (long)eax;
}

/* The frame's uc_stack is read as 2.5.53 reads it, but not applied: its
 * do_sigaltstack call was given a kernel address and so always failed. */
long sys_rt_sigreturn(uint32_t a1, uint32_t a2, uint32_t a3,
                      uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct pt_regs *regs = task_pt_regs(current);
    struct rt_sigframe *frame = (struct rt_sigframe *)(regs->esp - 4);
    uint32_t call = regs->eip, eax;
    struct stack32 st;
    uint64_t set;

    if (!access_ok((uint32_t)frame, sizeof(*frame)))
        badframe(call, (uint32_t)frame);
    if (__copy_from_user(&set, (uint32_t)&frame->uc.sigmask, sizeof(set)))
        badframe(call, (uint32_t)frame);
    set_blocked(set);
    if (restore_sigcontext(regs, &frame->uc.mcontext, &eax))
        badframe(call, (uint32_t)frame);
    if (__copy_from_user(&st, (uint32_t)&frame->uc.stack, sizeof(st)))
        badframe(call, (uint32_t)frame);
    return (long)eax;
}
