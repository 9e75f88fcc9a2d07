/*
 * Signals, per process: actions, the blocked and pending sets, the
 * alternate stack, and sending. A pending signal takes effect on the way
 * back to user mode (signal_frame.c, from the exit-work path of entry.S):
 * by a handler, or by its default action. Stopping and continuing are
 * ignored (there is no job control). A non-real-time signal pending twice
 * is pending once, as in Linux; real-time signals are not queued either
 * (a documented simplification): each keeps the siginfo of its last send.
 */
#include "kernel.h"
#include "sched.h"
#include "mm.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

static const uint64_t unblockable = ((uint64_t)1 << (SIGKILL - 1)) |
                                    ((uint64_t)1 << (SIGSTOP - 1));

/* The default action ignores it (IGN), or stops or continues, which without
 * job control is ignoring too. */
int sig_default_ignored(uint32_t sig)
{
    switch (sig) {
#define SIGNAL(nr, name, action) case nr: return SIGACT_##action;
#define SIGACT_TERM 0
#define SIGACT_CORE 0
#define SIGACT_IGN  1
#define SIGACT_STOP 1
#define SIGACT_CONT 1
#include "../signals.def"
#undef SIGNAL
#undef SIGACT_TERM
#undef SIGACT_CORE
#undef SIGACT_IGN
#undef SIGACT_STOP
#undef SIGACT_CONT
    default:
        return 0;   /* real-time signals terminate */
    }
}

struct k_sigaction *sig_action(struct task_struct *t, uint32_t sig)
{
    return &t->sighand->action[sig];
}

static int ignored(struct task_struct *t, uint32_t sig)
{
    uint32_t h = sig_action(t, sig)->handler;

    if (sig == SIGKILL)
        return 0;
    return h == SIG_IGN || (h == SIG_DFL && sig_default_ignored(sig));
}

struct sighand *sighand_alloc(const struct sighand *from)
{
    struct sighand *s = kzalloc(sizeof(*s));

    if (s && from)
        *s = *from;
    if (s && !from)
        s->altstack.flags = SS_DISABLE;
    return s;
}

void sighand_free(struct sighand *s)
{
    kfree_obj(s);
}

/* exec: caught signals go back to their default; ignored ones stay. */
void flush_signal_handlers(struct task_struct *t)
{
    for (uint32_t sig = 1; sig <= NSIG; sig++)
        if (t->sighand->action[sig].handler != SIG_IGN)
            t->sighand->action[sig] = (struct k_sigaction){ 0 };
    t->sighand->altstack = (struct stack32){ 0, SS_DISABLE, 0 };
}

void recalc_sigpending(struct task_struct *t)
{
    if (signal_pending(t))
        t->ti->flags |= _TIF_SIGPENDING;
    else
        t->ti->flags &= ~_TIF_SIGPENDING;
}

/* A signal that will be acted on wakes a sleeper; an ignored one is
 * dropped at once and so interrupts nothing (Linux's sig_ignored). */
void send_signal_info(struct task_struct *t, uint32_t sig, const struct sig_info *info)
{
    if (sig == 0 || sig > NSIG || t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
        return;
    if (ignored(t, sig) && !(t->sig_blocked & sigbit(sig)))
        return;
    t->sig_pending |= sigbit(sig);
    t->siginfo[sig] = *info;
    if (!(t->sig_blocked & sigbit(sig))) {
        t->ti->flags |= _TIF_SIGPENDING;
        if (t->state == TASK_INTERRUPTIBLE ||
            (sig == SIGKILL && t->state == TASK_UNINTERRUPTIBLE))
            wake_up_process(t);
    }
}

/* From the kernel or another process: SI_USER with the sender's pid. */
void send_signal(struct task_struct *t, uint32_t sig)
{
    struct sig_info info = { SI_USER, { current ? current->pid : 0, 0, 0 } };

    send_signal_info(t, sig, &info);
}

/*
 * A fault's signal (Linux's force_sig_info): caught and not blocked, it is
 * queued for the handler; otherwise the fault kills, which the caller
 * reports with the fault (the one-line report, 128 + N).
 */
int force_sig_fault(uint32_t sig, int32_t code, uint32_t addr)
{
    struct task_struct *me = current;
    struct sig_info info = { code, { addr, 0, 0 } };
    uint32_t h = sig_action(me, sig)->handler;

    if (h == SIG_DFL || h == SIG_IGN || (me->sig_blocked & sigbit(sig)))
        return -1;
    send_signal_info(me, sig, &info);
    return 0;
}

long sys_rt_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact,
                      uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    struct sighand *sh = current->sighand;
    struct k_sigaction act, old;

    if (sigsetsize != 8 || sig < 1 || sig > NSIG)
        return -EINVAL;
    if (uact) {
        if (sig == SIGKILL || sig == SIGSTOP)
            return -EINVAL;
        if (copy_from_user(&act, uact, sizeof(act)) != 0)
            return -EFAULT;
    }
    old = sh->action[sig];
    if (uact) {
        act.mask[0] &= ~(uint32_t)unblockable;
        sh->action[sig] = act;
        if (ignored(current, sig)) {
            current->sig_pending &= ~sigbit(sig);
            recalc_sigpending(current);
        }
    }
    if (uoact && copy_to_user(uoact, &old, sizeof(old)) != 0)
        return -EFAULT;
    return 0;
}

/* The old sigaction: handler, a 32-bit mask, flags, restorer. */
struct old_sigaction {
    uint32_t handler, mask, flags, restorer;
};

long sys_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct sighand *sh = current->sighand;
    struct old_sigaction o;
    struct k_sigaction old;

    if (sig < 1 || sig > NSIG)
        return -EINVAL;
    if (uact && (sig == SIGKILL || sig == SIGSTOP))
        return -EINVAL;
    if (uact && copy_from_user(&o, uact, sizeof(o)) != 0)
        return -EFAULT;
    old = sh->action[sig];
    if (uact) {
        sh->action[sig] = (struct k_sigaction){ o.handler, o.flags, o.restorer,
                                                { o.mask & ~(uint32_t)unblockable, 0 } };
        if (ignored(current, sig)) {
            current->sig_pending &= ~sigbit(sig);
            recalc_sigpending(current);
        }
    }
    if (uoact) {
        o = (struct old_sigaction){ old.handler, old.mask[0], old.flags, old.restorer };
        if (copy_to_user(uoact, &o, sizeof(o)) != 0)
            return -EFAULT;
    }
    return 0;
}

/* signal(): SA_ONESHOT | SA_NOMASK, as Linux's sys_signal. */
long sys_signal(uint32_t sig, uint32_t handler, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct k_sigaction *ka;
    uint32_t old;

    if (sig < 1 || sig > NSIG || sig == SIGKILL || sig == SIGSTOP)
        return -EINVAL;
    ka = sig_action(current, sig);
    old = ka->handler;
    *ka = (struct k_sigaction){ handler, SA_RESETHAND | SA_NODEFER, 0, { 0, 0 } };
    if (ignored(current, sig)) {
        current->sig_pending &= ~sigbit(sig);
        recalc_sigpending(current);
    }
    return (long)old;
}

static long change_blocked(int how, uint64_t set)
{
    struct task_struct *me = current;

    if (how == SIG_BLOCK)
        me->sig_blocked |= set;
    else if (how == SIG_UNBLOCK)
        me->sig_blocked &= ~set;
    else if (how == SIG_SETMASK)
        me->sig_blocked = set;
    else
        return -EINVAL;
    me->sig_blocked &= ~unblockable;
    recalc_sigpending(me);
    return 0;
}

long sys_rt_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset,
                        uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    uint64_t set, old = current->sig_blocked;

    if (sigsetsize != 8)
        return -EINVAL;
    if (uset) {
        if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
            return -EINVAL;
        if (copy_from_user(&set, uset, sizeof(set)) != 0)
            return -EFAULT;
    }
    if (uoset && copy_to_user(uoset, &old, sizeof(old)) != 0)
        return -EFAULT;
    return uset ? change_blocked((int)how, set) : 0;
}

long sys_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t set, old = (uint32_t)current->sig_blocked;
    uint64_t high = current->sig_blocked & ~(uint64_t)0xffffffffu;

    if (uset) {
        if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
            return -EINVAL;
        if (copy_from_user(&set, uset, sizeof(set)) != 0)
            return -EFAULT;
    }
    if (uoset && copy_to_user(uoset, &old, sizeof(old)) != 0)
        return -EFAULT;
    if (!uset)
        return 0;
    return change_blocked((int)how, how == SIG_SETMASK ? (high | set) : set);
}

long sys_rt_sigpending(uint32_t uset, uint32_t sigsetsize, uint32_t a3,
                       uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint64_t set = current->sig_pending & current->sig_blocked;

    if (sigsetsize > 8)
        return -EINVAL;
    return copy_to_user(uset, &set, sigsetsize);
}

long sys_sigpending(uint32_t uset, uint32_t a2, uint32_t a3,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_rt_sigpending(uset, 4, 0, 0, 0, 0);
}

/* Sleep until a signal is to be acted on; the exit path delivers it. */
static long wait_for_signal(void)
{
    struct task_struct *me = current;

    while (!signal_pending(me))
        sleep_on(&me->wait_signal, TASK_INTERRUPTIBLE);
    return -ERESTARTNOHAND;
}

long sys_pause(uint32_t a1, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return wait_for_signal();
}

/* The mask for the sleep, and the old one back once a handler has run
 * (its frame saves the old one) or, with no handler, on the way out. */
void set_temporary_mask(uint64_t mask)
{
    struct task_struct *me = current;

    if (!me->restore_blocked)
        me->saved_blocked = me->sig_blocked;
    me->restore_blocked = 1;
    me->sig_blocked = mask & ~unblockable;
    recalc_sigpending(me);
}

long sys_rt_sigsuspend(uint32_t umask, uint32_t sigsetsize, uint32_t a3,
                       uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint64_t mask;

    if (sigsetsize != 8)
        return -EINVAL;
    if (copy_from_user(&mask, umask, sizeof(mask)) != 0)
        return -EFAULT;
    set_temporary_mask(mask);
    return wait_for_signal();
}

/* The old sigsuspend(history0, history1, mask). */
long sys_sigsuspend(uint32_t h0, uint32_t h1, uint32_t mask,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    set_temporary_mask((current->sig_blocked & ~(uint64_t)0xffffffffu) | mask);
    return wait_for_signal();
}

long sys_sigaltstack(uint32_t uss, uint32_t uoss, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct sighand *sh = current->sighand;
    struct stack32 ss, old = sh->altstack;
    uint32_t sp = task_pt_regs(current)->esp;

    if (old.flags != SS_DISABLE && sp - old.sp <= old.size)
        old.flags = SS_ONSTACK;
    if (uss) {
        uint32_t mode;

        if (copy_from_user(&ss, uss, sizeof(ss)) != 0)
            return -EFAULT;
        if (old.flags == SS_ONSTACK)
            return -EPERM;
        mode = ss.flags & ~SS_AUTODISARM;
        if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
            return -EINVAL;
        if (mode == SS_DISABLE) {
            ss.sp = ss.size = 0;
            ss.flags = SS_DISABLE;
        } else if (ss.size < MINSIGSTKSZ) {
            return -ENOMEM;
        } else {
            ss.flags = 0;
        }
    }
    if (uoss && copy_to_user(uoss, &old, sizeof(old)) != 0)
        return -EFAULT;
    if (uss)
        sh->altstack = ss;
    return 0;
}

/* ---- sending ---- */

/* kill's targets: pid > 0 that process, 0 the caller's group, -1 every
 * process but init and the caller, < -1 the group -pid. */
static int is_target(const struct task_struct *t, int32_t pid)
{
    if (t->state == TASK_DEAD)
        return 0;
    if (pid > 0)
        return t->pid == (uint32_t)pid;
    if (pid == 0)
        return t->pgid == current->pgid;
    if (pid == -1)
        return t->pid != 1 && t != current;
    return t->pgid == (uint32_t)-pid;
}

long sys_kill(uint32_t upid, uint32_t sig, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    int32_t pid = (int32_t)upid;
    struct list_head *p;
    int found = 0;

    if (sig > NSIG)
        return -EINVAL;
    if (pid == INT32_MIN)
        return -ESRCH;
    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (is_target(t, pid)) {
            found++;
            if (t != current)
                send_signal(t, sig);
        }
    }
    /* The caller last: its own death must not cut the others off. */
    if (found && is_target(current, pid))
        send_signal(current, sig);
    return found ? 0 : -ESRCH;
}

long sys_tkill(uint32_t tid, uint32_t sig, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct sig_info info = { SI_TKILL, { current->pid, 0, 0 } };
    struct task_struct *t;

    if ((int32_t)tid <= 0 || sig > NSIG)
        return -EINVAL;
    t = find_task(tid);
    if (!t)
        return -ESRCH;
    send_signal_info(t, sig, &info);
    return 0;
}

long sys_tgkill(uint32_t tgid, uint32_t tid, uint32_t sig,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    if ((int32_t)tgid <= 0 || (int32_t)tid <= 0)
        return -EINVAL;
    if (tgid != tid)
        return -ESRCH;   /* one thread per process */
    return sys_tkill(tid, sig, 0, 0, 0, 0);
}
