/* Signals: accepted and remembered, never delivered. */
#include "kernel.h"
#include "sched.h"

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

static struct k_sigaction sigactions[NSIG + 1];
static uint64_t sig_blocked, sig_pending;
static struct stack32 altstack = { 0, SS_DISABLE, 0 };

static uint64_t sigbit(uint32_t sig)
{
    return (uint64_t)1 << (sig - 1);
}

/* Signals whose default action is to ignore them, or to stop: there is no
 * job control here, so stopping is ignoring too. */
static int default_ignored(uint32_t sig)
{
    return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH ||
           (sig >= SIGCONT && sig <= SIGTTOU);
}

static int ignored(uint32_t sig)
{
    uint32_t h = sigactions[sig].handler;

    if (sig == SIGKILL)
        return 0;
    return h == SIG_IGN || (h == SIG_DFL && default_ignored(sig));
}

/*
 * A signal to ourselves. With no delivery, a handler cannot run: a signal
 * that is not ignored kills the program, reported like kill_user does, as
 * exit status 128 + signal. A blocked one waits until it is unblocked.
 */
static void signal_self(uint32_t sig)
{
    if (sig == 0 || ignored(sig))
        return;
    if (sig != SIGKILL && sig != SIGSTOP && (sig_blocked & sigbit(sig))) {
        sig_pending |= sigbit(sig);
        return;
    }
    do_exit(128 + sig);
}

static void deliver_unblocked(void)
{
    uint64_t ready = sig_pending & ~sig_blocked;

    for (uint32_t sig = 1; sig <= NSIG; sig++) {
        if (ready & sigbit(sig)) {
            sig_pending &= ~sigbit(sig);
            signal_self(sig);
        }
    }
}

long sys_rt_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact,
                      uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    struct k_sigaction act;

    if (sigsetsize != 8 || sig < 1 || sig > NSIG)
        return -EINVAL;
    if (uact) {
        if (sig == SIGKILL || sig == SIGSTOP)
            return -EINVAL;
        if (copy_from_user(&act, uact, sizeof(act)) != 0)
            return -EFAULT;
    }
    if (uoact && copy_to_user(uoact, &sigactions[sig], sizeof(act)) != 0)
        return -EFAULT;
    if (uact) {
        sigactions[sig] = act;
        if (ignored(sig))
            sig_pending &= ~sigbit(sig);
    }
    return 0;
}

long sys_rt_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset,
                        uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    const uint64_t unblockable = sigbit(SIGKILL) | sigbit(SIGSTOP);
    uint64_t set, old = sig_blocked;

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
            sig_blocked |= set;
        else if (how == SIG_UNBLOCK)
            sig_blocked &= ~set;
        else
            sig_blocked = set;
        sig_blocked &= ~unblockable;
        deliver_unblocked();
    }
    return 0;
}

long sys_sigaltstack(uint32_t uss, uint32_t uoss, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct stack32 ss, old = altstack;

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
        altstack = ss;
    return 0;
}


long sys_kill(uint32_t pid, uint32_t sig, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    /* 0: our process group, -1: everyone we may signal; both are just us. */
    if (pid != 0 && pid != current->pid && pid != 0xffffffffu)
        return -ESRCH;
    if (sig > NSIG)
        return -EINVAL;
    signal_self(sig);
    return 0;
}

long sys_tkill(uint32_t tid, uint32_t sig, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    if ((int32_t)tid <= 0)
        return -EINVAL;
    if (tid != current->pid)
        return -ESRCH;
    if (sig > NSIG)
        return -EINVAL;
    signal_self(sig);
    return 0;
}

long sys_tgkill(uint32_t tgid, uint32_t tid, uint32_t sig,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    if ((int32_t)tgid <= 0 || (int32_t)tid <= 0)
        return -EINVAL;
    if (tgid != current->pid || tid != current->pid)
        return -ESRCH;
    if (sig > NSIG)
        return -EINVAL;
    signal_self(sig);
    return 0;
}
