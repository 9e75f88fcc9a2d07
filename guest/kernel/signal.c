/*
 * Signals, per process: actions, the blocked and pending sets, the
 * alternate stack. Delivery to a handler is issue 12's: here a signal
 * takes effect on the way back to user mode (do_signal, from the exit-work
 * path) by its default action, ignore or terminate (stopping is ignoring:
 * there is no job control). A signal whose action is a handler is acted on
 * by its default too until handlers can run: one that would terminate
 * still terminates; one whose default is to ignore (SIGCHLD, which every
 * shell catches) is dropped.
 */
#include "kernel.h"
#include "sched.h"
#include "mm.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define SIG_DFL    0
#define SIG_IGN    1
#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define SS_ONSTACK  1
#define SS_DISABLE  2
#define SS_AUTODISARM (1u << 31)
#define MINSIGSTKSZ 2048

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

struct stack32 {
    uint32_t sp, flags, size;
};

struct sighand {
    struct k_sigaction action[NSIG + 1];
    struct stack32 altstack;
};

/* The default action ignores it (IGN), or stops or continues, which without
 * job control is ignoring too. */
static int default_ignored(uint32_t sig)
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

static uint64_t sigbit(uint32_t sig)
{
    return (uint64_t)1 << (sig - 1);
}

static int ignored(const struct task_struct *t, uint32_t sig)
{
    uint32_t h = t->sighand->action[sig].handler;

    if (sig == SIGKILL)
        return 0;
    return h == SIG_IGN || (h == SIG_DFL && default_ignored(sig));
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

static void recalc_sigpending(struct task_struct *t)
{
    if (signal_pending(t))
        t->ti->flags |= _TIF_SIGPENDING;
}

void send_signal(struct task_struct *t, uint32_t sig)
{
    if (sig == 0 || sig > NSIG || t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
        return;
    if (ignored(t, sig) && !(t->sig_blocked & sigbit(sig)))
        return;
    /* Caught, but handlers cannot run yet and its default is to ignore it:
     * dropped now, so that it interrupts nothing (see above). */
    if (sig != SIGKILL && default_ignored(sig))
        return;
    t->sig_pending |= sigbit(sig);
    if (!(t->sig_blocked & sigbit(sig))) {
        t->ti->flags |= _TIF_SIGPENDING;
        if (t->state == TASK_INTERRUPTIBLE ||
            (sig == SIGKILL && t->state == TASK_UNINTERRUPTIBLE))
            wake_up_process(t);
    }
}

/* On the way back to user mode: each pending signal by its action. */
void do_signal(void)
{
    struct task_struct *me = current;
    uint64_t ready;

    me->ti->flags &= ~_TIF_SIGPENDING;
    while ((ready = me->sig_pending & ~me->sig_blocked) != 0) {
        uint32_t sig = (uint32_t)__builtin_ctzll(ready) + 1;
        me->sig_pending &= ~sigbit(sig);
        if (ignored(me, sig) || (sig != SIGKILL && default_ignored(sig)))
            continue;
        do_exit(sig);   /* killed by the signal */
    }
}

long sys_rt_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact,
                      uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    struct sighand *sh = current->sighand;
    struct k_sigaction act;

    if (sigsetsize != 8 || sig < 1 || sig > NSIG)
        return -EINVAL;
    if (uact) {
        if (sig == SIGKILL || sig == SIGSTOP)
            return -EINVAL;
        if (copy_from_user(&act, uact, sizeof(act)) != 0)
            return -EFAULT;
    }
    if (uoact && copy_to_user(uoact, &sh->action[sig], sizeof(act)) != 0)
        return -EFAULT;
    if (uact) {
        sh->action[sig] = act;
        if (ignored(current, sig))
            current->sig_pending &= ~sigbit(sig);
    }
    return 0;
}

long sys_rt_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset,
                        uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    const uint64_t unblockable = sigbit(SIGKILL) | sigbit(SIGSTOP);
    struct task_struct *me = current;
    uint64_t set, old = me->sig_blocked;

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
    if (uset) {
        if (how == SIG_BLOCK)
            me->sig_blocked |= set;
        else if (how == SIG_UNBLOCK)
            me->sig_blocked &= ~set;
        else
            me->sig_blocked = set;
        me->sig_blocked &= ~unblockable;
        recalc_sigpending(me);
    }
    return 0;
}

long sys_sigaltstack(uint32_t uss, uint32_t uoss, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct sighand *sh = current->sighand;
    struct stack32 ss, old = sh->altstack;

    if (uss) {
        uint32_t mode;

        if (copy_from_user(&ss, uss, sizeof(ss)) != 0)
            return -EFAULT;
        mode = ss.flags & ~SS_AUTODISARM;
        if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
            return -EINVAL;
        if (mode == SS_DISABLE) {
            ss.sp = ss.size = 0;
        } else if (ss.size < MINSIGSTKSZ) {
            return -ENOMEM;
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
    struct task_struct *t;

    if ((int32_t)tid <= 0 || sig > NSIG)
        return -EINVAL;
    t = find_task(tid);
    if (!t)
        return -ESRCH;
    send_signal(t, sig);
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
