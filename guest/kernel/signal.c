/*
 * Signals, per process: actions, the blocked and pending sets, the
 * alternate stack, sending (kill and the kernel's own), and taking the
 * next one off the pending set for delivery (signal_frame.c, on the way
 * back to user mode). The calls and locks are 2.5.53's kernel/signal.c:
 * the task list is searched under tasklist_lock (read), and the actions,
 * masks and pending set change under the process's siglock, interrupts
 * off. A stop signal's default action stops the process until SIGCONT
 * or SIGKILL, and its parent hears of it (SIGCHLD, wait4's WUNTRACED), as
 * in 2.5.53; SIGCONT's continuing is also reported as later Linux does
 * (WCONTINUED, CLD_CONTINUED).
 * A non-real-time signal pending twice is pending once with its first
 * siginfo; real-time signals queue, each with its own, as in Linux.
 */
#include "kernel.h"
#include "sched.h"
#include "mm.h"
#include "uaccess.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

static const uint64_t unblockable = ((uint64_t)1 << (SIGKILL - 1)) |
                                    ((uint64_t)1 << (SIGSTOP - 1));

/* The default action ignores it (IGN), or continues, which is all SIGCONT
 * does once sent (handle_stop_signal). */
int sig_default_ignored(uint32_t sig)
{
    switch (sig) {
#define SIGNAL(nr, name, action) case nr: return SIGACT_##action;
#define SIGACT_TERM 0
#define SIGACT_CORE 0
#define SIGACT_IGN  1
#define SIGACT_STOP 0
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

/* The default action stops the process (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU). */
static int sig_default_stops(uint32_t sig)
{
    switch (sig) {
#define SIGNAL(nr, name, action) case nr: return SIGACT_##action;
#define SIGACT_TERM 0
#define SIGACT_CORE 0
#define SIGACT_IGN  0
#define SIGACT_STOP 1
#define SIGACT_CONT 0
#include "../signals.def"
#undef SIGNAL
#undef SIGACT_TERM
#undef SIGACT_CORE
#undef SIGACT_IGN
#undef SIGACT_STOP
#undef SIGACT_CONT
    default:
        return 0;
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

/* ---- the pending queue: 2.5.53's struct sigqueue and its slab cache ---- */

struct sigqueue {
    struct sigqueue *next;
    uint32_t signo;
    struct sig_info info;
};

/*
 * The cache: each CPU's free objects, taken and given back with interrupts
 * off (the timer's signals are sent from its interrupt), as the per-CPU
 * arrays of 2.5.53's kmem_cache_alloc; an empty one takes a never-used
 * object from a static pool of max_queued_signals (the bound 2.5.53 put
 * on its sigqueue slab) under the pool's lock, as the slab's refill does.
 */
#define max_queued_signals 1024
static struct sigqueue sigqueue_pool[max_queued_signals];
static int sigqueue_pool_used;
static spinlock_t sigqueue_pool_lock = SPIN_LOCK_UNLOCKED("the sigqueue pool");
static struct sigqueue *sigqueue_cache[NR_CPUS];
static atomic_t nr_queued_signals = ATOMIC_INIT(0);

/* Called with interrupts off. */
static struct sigqueue *sigqueue_refill(void)
{
    struct sigqueue *q = NULL_PTR;

    spin_lock(&sigqueue_pool_lock);
    if (sigqueue_pool_used < max_queued_signals)
        q = &sigqueue_pool[sigqueue_pool_used++];
    spin_unlock(&sigqueue_pool_lock);
    return q;
}

static struct sigqueue *sigqueue_alloc(void)
{
    struct sigqueue **cache, *q;
    uint32_t flags;

    local_irq_save(flags);
    cache = &sigqueue_cache[smp_processor_id()];
    q = *cache;
    if (q)
        *cache = q->next;
    else
        q = sigqueue_refill();
    local_irq_restore(flags);
    return q;
}

static void sigqueue_free(struct sigqueue *q)
{
    struct sigqueue **cache;
    uint32_t flags;

    local_irq_save(flags);
    cache = &sigqueue_cache[smp_processor_id()];
    q->next = *cache;
    *cache = q;
    local_irq_restore(flags);
    atomic_dec(&nr_queued_signals);
}

static void init_sigpending(struct sigpending *sig)
{
    sig->head = NULL_PTR;
    sig->tail = &sig->head;
}

static void flush_sigqueue(struct sigpending *queue)
{
    struct sigqueue *q = queue->head;

    while (q) {
        struct sigqueue *next = q->next;
        sigqueue_free(q);
        q = next;
    }
    init_sigpending(queue);
}

/* Every queued siginfo of sig goes, and its pending bit. Called with the
 * siglock held. */
static int rm_sig_from_queue(uint32_t sig, struct task_struct *t)
{
    struct sigpending *s = &t->sighand->pending;
    struct sigqueue *q, **pp = &s->head;

    if (!(t->sig_pending & sigbit(sig)))
        return 0;
    t->sig_pending &= ~sigbit(sig);
    while ((q = *pp) != NULL_PTR) {
        if (q->signo == sig) {
            if ((*pp = q->next) == NULL_PTR)
                s->tail = pp;
            sigqueue_free(q);
            continue;
        }
        pp = &q->next;
    }
    return 1;
}

/* A new process has nothing pending (fork copies the actions only). */
struct sighand *sighand_alloc(const struct sighand *from)
{
    struct sighand *s = kzalloc(sizeof(*s));

    if (s && from)
        *s = *from;
    if (s && !from)
        s->altstack.flags = SS_DISABLE;
    if (s) {
        s->siglock = (spinlock_t)SPIN_LOCK_UNLOCKED("a process's siglock");
        init_sigpending(&s->pending);
    }
    return s;
}

void sighand_free(struct sighand *s)
{
    flush_sigqueue(&s->pending);
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

/* 2.5.53's set_bit and clear_bit on a thread flag: btsl and btrl, locked
 * under CONFIG_SMP. */
static inline void set_tsk_thread_flag(struct task_struct *t, int flag)
{
    __asm__ volatile(LOCK_PREFIX "btsl %1, %0" : "+m"(t->ti->flags) : "Ir"(flag) : "memory");
}

static inline void clear_tsk_thread_flag(struct task_struct *t, int flag)
{
    __asm__ volatile(LOCK_PREFIX "btrl %1, %0" : "+m"(t->ti->flags) : "Ir"(flag) : "memory");
}

/* Called with the siglock held (2.5.53 names the current task's form
 * recalc_sigpending() and this one recalc_sigpending_tsk()). */
void recalc_sigpending(struct task_struct *t)
{
    if (signal_pending(t))
        set_tsk_thread_flag(t, TIF_SIGPENDING);
    else
        clear_tsk_thread_flag(t, TIF_SIGPENDING);
}

/* ---- taking a signal off the pending set (delivery) ---- */

/* The lowest-numbered pending signal the mask lets through, word by word
 * as 2.5.53's next_signal: a bsf on the first word with one set. */
static uint32_t next_signal(const struct task_struct *t, const uint64_t *mask)
{
    uint32_t x = (uint32_t)t->sig_pending & ~(uint32_t)*mask;

    if (x)
        return (uint32_t)__builtin_ctz(x) + 1;
    x = (uint32_t)(t->sig_pending >> 32) & ~(uint32_t)(*mask >> 32);
    if (x)
        return (uint32_t)__builtin_ctz(x) + 33;
    return 0;
}

/* The first queued siginfo of sig (zeroes if none was queued: the pool
 * was full); the pending bit stays while another real-time one is
 * queued. */
static int collect_signal(uint32_t sig, struct task_struct *t, struct sig_info *info)
{
    struct sigpending *list = &t->sighand->pending;
    struct sigqueue *q, **pp = &list->head;

    if (!(t->sig_pending & sigbit(sig)))
        return 0;
    while ((q = *pp) != NULL_PTR && q->signo != sig)
        pp = &q->next;
    if (q) {
        if ((*pp = q->next) == NULL_PTR)
            list->tail = pp;
        *info = q->info;
        sigqueue_free(q);
        if (sig >= SIGRTMIN)
            for (q = *pp; q; q = q->next)
                if (q->signo == sig)
                    return 1;
    } else {
        *info = (struct sig_info){ 0 };
    }
    t->sig_pending &= ~sigbit(sig);
    return 1;
}

/* Called with the siglock held. */
static uint32_t dequeue_signal(const uint64_t *mask, struct sig_info *info)
{
    struct task_struct *me = current;
    uint32_t sig = next_signal(me, mask);

    if (sig && !collect_signal(sig, me, info))
        sig = 0;
    recalc_sigpending(me);
    return sig;
}

/* ---- stopping and continuing ---- */

/*
 * The parent hears that t stopped (CLD_STOPPED, with the signal) or was
 * continued (CLD_CONTINUED, with SIGCONT): SIGCHLD unless its action has
 * SA_NOCLDSTOP, and its waits wake (2.5.53's notify_parent; init, which
 * reaps only zombies, is not told).
 */
static void notify_parent_cldstop(struct task_struct *t, int32_t why, uint32_t sig)
{
    struct sig_info info = { why, { t->pid, 0, sig } };
    struct task_struct *parent;

    read_lock(&tasklist_lock);
    parent = t->parent;
    if (parent != child_reaper) {
        if (!(sig_action(parent, SIGCHLD)->flags & SA_NOCLDSTOP))
            send_sig_info(SIGCHLD, &info, parent);
        wake_up(&parent->wait_chldexit);
    }
    read_unlock(&tasklist_lock);
}

/* A stop signal's default action: stopped until SIGCONT or SIGKILL wakes
 * the task (handle_stop_signal); a wait4 with WUNTRACED reports the
 * signal once (exit_code). */
static void do_signal_stop(uint32_t signr)
{
    struct task_struct *me = current;

    spin_lock_irq(&me->sighand->siglock);
    me->state = TASK_STOPPED;
    me->exit_code = (int)signr;
    me->continued = 0;
    spin_unlock_irq(&me->sighand->siglock);
    notify_parent_cldstop(me, CLD_STOPPED, signr);
    schedule();
}

/* The terminal's stop signals are dropped in an orphaned process group;
 * SIGSTOP always stops. */
static int stop_is_dropped(uint32_t signr)
{
    return signr != SIGSTOP && is_orphaned_pgrp(current->pgid);
}

/* Resumed by SIGCONT: the parent is told now that the task runs (later
 * Linux's SIGNAL_CLD_CONTINUED; 2.5.53 told it nothing). */
static void report_continued(struct task_struct *me)
{
    if (!(me->continued & CONT_NOTIFY))
        return;
    me->continued &= ~CONT_NOTIFY;
    notify_parent_cldstop(me, CLD_CONTINUED, SIGCONT);
}

/*
 * The next signal to act on, for do_signal: ignored ones are dropped, a
 * stop signal's default action stops the task here, any other default
 * action that is not ignoring ends it (killed by the signal); 0 when none
 * is left. No init exemption: the program under test may be pid 1, and
 * it dies of a signal as it would natively.
 */
uint32_t get_signal_to_deliver(struct sig_info *info)
{
    struct task_struct *me = current;

    for (;;) {
        struct k_sigaction *ka;
        uint32_t signr;

        report_continued(me);
        spin_lock_irq(&me->sighand->siglock);
        signr = dequeue_signal(&me->sig_blocked, info);
        spin_unlock_irq(&me->sighand->siglock);
        if (!signr)
            return 0;
        ka = &me->sighand->action[signr];
        if (ka->handler == SIG_IGN)
            continue;
        if (ka->handler == SIG_DFL) {
            if (sig_default_ignored(signr))
                continue;
            if (sig_default_stops(signr)) {
                if (!stop_is_dropped(signr))
                    do_signal_stop(signr);
                continue;
            }
            do_exit((int)signr);
        }
        return signr;
    }
}

/* ---- sending ---- */

/* 2.5.53's send_signal (later Linux's __send_signal): the siginfo queued
 * when the pool has room, and the pending bit. Without room a real-time
 * signal that is not kill()'s fails, as in 2.5.53; any other is pending
 * without its siginfo. */
static int __send_signal(uint32_t sig, const struct sig_info *info, struct task_struct *t)
{
    struct sigpending *signals = &t->sighand->pending;
    struct sigqueue *q = NULL_PTR;

    if (atomic_read(&nr_queued_signals) < max_queued_signals)
        q = sigqueue_alloc();
    if (q) {
        atomic_inc(&nr_queued_signals);
        q->next = NULL_PTR;
        *signals->tail = q;
        signals->tail = &q->next;
        q->signo = sig;
        q->info = *info;
    } else if (sig >= SIGRTMIN && info->code != SI_USER) {
        return -EAGAIN;
    }
    t->sig_pending |= sigbit(sig);
    return 0;
}

/* SIGKILL also wakes an uninterruptible sleeper (a vfork parent). */
static void signal_wake_up(struct task_struct *t, uint32_t sig)
{
    set_tsk_thread_flag(t, TIF_SIGPENDING);
    if (t->state == TASK_INTERRUPTIBLE ||
        (sig == SIGKILL && t->state == TASK_UNINTERRUPTIBLE))
        wake_up_process(t);
}

/*
 * What a signal does to the stopped state as soon as it is sent, whether
 * caught, blocked or ignored (2.5.53's handle_stop_signal): SIGKILL and
 * SIGCONT wake a stopped task and take back its pending stop signals (a
 * SIGCONT marks it continued, for WCONTINUED and its parent); a stop
 * signal takes back a pending SIGCONT. Called with t's siglock held.
 */
static void handle_stop_signal(uint32_t sig, struct task_struct *t)
{
    if (sig == SIGKILL || sig == SIGCONT) {
        if (t->state == TASK_STOPPED) {
            wake_up_stopped(t);
            if (sig == SIGCONT) {
                t->continued = CONT_WAIT | CONT_NOTIFY;
                wake_up(&t->parent->wait_chldexit);
            }
        }
        t->exit_code = 0;
        for (uint32_t s = 1; s < SIGRTMIN; s++)
            if (sig_default_stops(s))
                rm_sig_from_queue(s, t);
        recalc_sigpending(t);
    } else if (sig_default_stops(sig)) {
        if (rm_sig_from_queue(SIGCONT, t))
            recalc_sigpending(t);
    }
}

static int deliver_signal(uint32_t sig, const struct sig_info *info, struct task_struct *t)
{
    int ret = __send_signal(sig, info, t);

    if (!ret && !(t->sig_blocked & sigbit(sig)))
        signal_wake_up(t, sig);
    return ret;
}

/* A signal acted on at once and ignored is dropped when sent, and so
 * interrupts nothing; a blocked one waits, and so does one that
 * rt_sigtimedwait waits for (later Linux's real_blocked; 2.5.53 dropped
 * it, and a sigwaitinfo for SIGCHLD at its default never returned). */
static int ignored_signal(uint32_t sig, struct task_struct *t)
{
    if ((t->sig_blocked | t->real_blocked) & sigbit(sig))
        return 0;
    return ignored(t, sig);
}

static inline int irqs_disabled(void)
{
    uint32_t flags;

    __asm__ volatile("pushfl; popl %0" : "=g"(flags) : : "memory");
    return !(flags & X86_EFLAGS_IF);
}

/* Called with t's siglock held, interrupts off, which it checks as 2.5.53
 * does. */
static int specific_send_sig_info(uint32_t sig, const struct sig_info *info,
                                  struct task_struct *t)
{
    if (!irqs_disabled())
        panic("specific_send_sig_info with interrupts on");
#ifdef CONFIG_SMP
    if (t->sighand->siglock.lock > 0)
        panic("specific_send_sig_info without the siglock");
#endif
    if (sig > NSIG)
        return -EINVAL;
    if (!sig || t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
        return 0;
    handle_stop_signal(sig, t);
    if (ignored_signal(sig, t))
        return 0;
    if (sig < SIGRTMIN && (t->sig_pending & sigbit(sig)))
        return 0;
    return deliver_signal(sig, info, t);
}

int send_sig_info(uint32_t sig, const struct sig_info *info, struct task_struct *p)
{
    uint32_t flags;
    int ret;

    spin_lock_irqsave(&p->sighand->siglock, flags);
    ret = specific_send_sig_info(sig, info, p);
    spin_unlock_irqrestore(&p->sighand->siglock, flags);
    return ret;
}

/* From the kernel or another process: SI_USER with the sender's pid. */
void send_signal(struct task_struct *t, uint32_t sig)
{
    struct sig_info info = { SI_USER, { current ? current->pid : 0, 0, 0 } };

    send_sig_info(sig, &info, t);
}

/*
 * A fault's signal (2.5.53's force_sig_info): caught and not blocked, it
 * is made pending for the handler; otherwise the fault kills, which the
 * caller reports with the fault (the one-line report, 128 + N), where
 * 2.5.53 would unblock it and set SIG_DFL for the same end.
 */
int force_sig_fault(uint32_t sig, int32_t code, uint32_t addr)
{
    struct task_struct *me = current;
    struct sig_info info = { code, { addr, 0, 0 } };
    uint32_t flags, h;
    int ret = -1;

    spin_lock_irqsave(&me->sighand->siglock, flags);
    h = me->sighand->action[sig].handler;
    if (h != SIG_DFL && h != SIG_IGN && !(me->sig_blocked & sigbit(sig)))
        ret = specific_send_sig_info(sig, &info, me);
    spin_unlock_irqrestore(&me->sighand->siglock, flags);
    return ret;
}

/* kill(pid > 0) */
static int kill_proc_info(uint32_t sig, const struct sig_info *info, int32_t pid)
{
    struct task_struct *p;
    int error = -ESRCH;

    read_lock(&tasklist_lock);
    p = find_task((uint32_t)pid);
    if (p)
        error = send_sig_info(sig, info, p);
    read_unlock(&tasklist_lock);
    return error;
}

/* Every process of the group: 0 if one of them took it, else the last
 * error (-ESRCH for none). */
static int kill_pg_info(uint32_t sig, const struct sig_info *info, uint32_t pgrp)
{
    struct list_head *l;
    int retval = -ESRCH;

    read_lock(&tasklist_lock);
    list_for_each(l, &task_list) {
        struct task_struct *p = list_entry(l, struct task_struct, tasks);
        if (p->pgid == pgrp && p->state != TASK_DEAD) {
            int err = send_sig_info(sig, info, p);
            if (retval)
                retval = err;
        }
    }
    read_unlock(&tasklist_lock);
    return retval;
}

/* From the kernel to a process group (exit.c: an orphaned group with a
 * stopped member gets SIGHUP and SIGCONT): SI_KERNEL. */
int kill_pg(uint32_t pgrp, uint32_t sig)
{
    struct sig_info info = { SI_KERNEL, { 0, 0, 0 } };

    return kill_pg_info(sig, &info, pgrp);
}

/* kill(-1): every process but init and the caller */
static int kill_every_info(uint32_t sig, const struct sig_info *info)
{
    struct list_head *l;
    int retval = 0, count = 0;

    read_lock(&tasklist_lock);
    list_for_each(l, &task_list) {
        struct task_struct *p = list_entry(l, struct task_struct, tasks);
        if (p->pid > 1 && p != current && p->state != TASK_DEAD) {
            int err = send_sig_info(sig, info, p);
            count++;
            if (err != -EPERM)
                retval = err;
        }
    }
    read_unlock(&tasklist_lock);
    return count ? retval : -ESRCH;
}

/* pid > 0 that process, 0 the caller's group, -1 every process but init
 * and the caller, < -1 the group -pid; INT_MIN, whose -pid does not
 * exist, is ESRCH as in Linux since 4.x. */
static int kill_something_info(uint32_t sig, const struct sig_info *info, int32_t pid)
{
    if (!pid)
        return kill_pg_info(sig, info, current->pgid);
    if (pid == -1)
        return kill_every_info(sig, info);
    if (pid == INT32_MIN)
        return -ESRCH;
    if (pid < 0)
        return kill_pg_info(sig, info, (uint32_t)-pid);
    return kill_proc_info(sig, info, pid);
}

long sys_kill(uint32_t pid, uint32_t sig, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct sig_info info = { SI_USER, { current->pid, 0, 0 } };

    return kill_something_info(sig, &info, (int32_t)pid);
}

long sys_tkill(uint32_t tid, uint32_t sig, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct sig_info info = { SI_TKILL, { current->pid, 0, 0 } };
    struct task_struct *p;
    long error = -ESRCH;

    if ((int32_t)tid <= 0)
        return -EINVAL;
    read_lock(&tasklist_lock);
    p = find_task(tid);
    if (p) {
        spin_lock_irq(&p->sighand->siglock);
        error = specific_send_sig_info(sig, &info, p);
        spin_unlock_irq(&p->sighand->siglock);
    }
    read_unlock(&tasklist_lock);
    return error;
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

/* ---- actions ---- */

static int do_sigaction(uint32_t sig, const struct k_sigaction *act, struct k_sigaction *oact)
{
    struct task_struct *me = current;
    struct k_sigaction *k;

    if (sig < 1 || sig > NSIG || (act && (sig == SIGKILL || sig == SIGSTOP)))
        return -EINVAL;
    k = &me->sighand->action[sig];
    spin_lock_irq(&me->sighand->siglock);
    if (oact)
        *oact = *k;
    if (act) {
        *k = *act;
        k->mask[0] &= ~(uint32_t)unblockable;
        if (ignored(me, sig) && rm_sig_from_queue(sig, me))
            recalc_sigpending(me);
    }
    spin_unlock_irq(&me->sighand->siglock);
    return 0;
}

long sys_rt_sigaction(uint32_t sig, uint32_t act, uint32_t oact,
                      uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    struct k_sigaction new_sa, old_sa;
    long ret;

    if (sigsetsize != sizeof(uint64_t))
        return -EINVAL;
    if (act && copy_from_user(&new_sa, act, sizeof(new_sa)))
        return -EFAULT;
    ret = do_sigaction(sig, act ? &new_sa : NULL_PTR, oact ? &old_sa : NULL_PTR);
    if (!ret && oact && copy_to_user(oact, &old_sa, sizeof(old_sa)))
        return -EFAULT;
    return ret;
}

/* The old sigaction: handler, a 32-bit mask, flags, restorer. */
struct old_sigaction {
    uint32_t handler, mask, flags, restorer;
};

/* Field by field, as 2.5.53's arch sys_sigaction; each load and store is
 * checked (2.5.53 ignored the last two's errors). */
long sys_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct old_sigaction *act = (struct old_sigaction *)uact;
    struct old_sigaction *oact = (struct old_sigaction *)uoact;
    struct k_sigaction new_ka = { 0 }, old_ka;
    long ret;

    if (act && (!access_ok(uact, sizeof(*act)) ||
                __get_user(new_ka.handler, &act->handler) ||
                __get_user(new_ka.restorer, &act->restorer) ||
                __get_user(new_ka.flags, &act->flags) ||
                __get_user(new_ka.mask[0], &act->mask)))
        return -EFAULT;
    ret = do_sigaction(sig, act ? &new_ka : NULL_PTR, oact ? &old_ka : NULL_PTR);
    if (!ret && oact && (!access_ok(uoact, sizeof(*oact)) ||
                         __put_user(old_ka.handler, &oact->handler) ||
                         __put_user(old_ka.restorer, &oact->restorer) ||
                         __put_user(old_ka.flags, &oact->flags) ||
                         __put_user(old_ka.mask[0], &oact->mask)))
        return -EFAULT;
    return ret;
}

/* signal(): SA_ONESHOT | SA_NOMASK, as Linux's sys_signal. */
long sys_signal(uint32_t sig, uint32_t handler, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct k_sigaction new_sa = { handler, SA_RESETHAND | SA_NODEFER, 0, { 0, 0 } }, old_sa;
    long ret = do_sigaction(sig, &new_sa, &old_sa);

    return ret ? ret : (long)old_sa.handler;
}

/* ---- masks ---- */

static long change_blocked(int how, uint64_t set)
{
    struct task_struct *me = current;
    long error = 0;

    spin_lock_irq(&me->sighand->siglock);
    if (how == SIG_BLOCK)
        me->sig_blocked |= set;
    else if (how == SIG_UNBLOCK)
        me->sig_blocked &= ~set;
    else if (how == SIG_SETMASK)
        me->sig_blocked = set;
    else
        error = -EINVAL;
    me->sig_blocked &= ~unblockable;
    recalc_sigpending(me);
    spin_unlock_irq(&me->sighand->siglock);
    return error;
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
    struct task_struct *me = current;
    uint64_t set;

    if (sigsetsize > 8)
        return -EINVAL;
    spin_lock_irq(&me->sighand->siglock);
    set = me->sig_pending & me->sig_blocked;
    spin_unlock_irq(&me->sighand->siglock);
    return copy_to_user(uset, &set, sigsetsize) ? -EFAULT : 0;
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
 * (its frame saves the old one) or, with no handler, on the way out
 * (do_signal): 2.5.53's sigsuspend ran do_signal itself with the saved
 * set, this kernel delivers on the common exit path. */
void set_temporary_mask(uint64_t mask)
{
    struct task_struct *me = current;

    spin_lock_irq(&me->sighand->siglock);
    if (!me->restore_blocked)
        me->saved_blocked = me->sig_blocked;
    me->restore_blocked = 1;
    me->sig_blocked = mask & ~unblockable;
    recalc_sigpending(me);
    spin_unlock_irq(&me->sighand->siglock);
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

/*
 * Wait for one of the signals in uset, taken off the pending set without
 * running its action (2.5.53's sys_rt_sigtimedwait): they are unblocked
 * for the sleep only, the mask put back after. -EAGAIN when the timeout
 * passes, -EINTR when another signal came.
 */
static long do_sigtimedwait(uint32_t uset, uint32_t uinfo, uint32_t uts,
                            uint32_t sigsetsize, int wide)
{
    struct task_struct *me = current;
    uint64_t these, saved, deadline = 0;
    struct sig_info info;
    uint32_t sig, si[32];
    long err;

    if (sigsetsize != sizeof(uint64_t))
        return -EINVAL;
    if (copy_from_user(&these, uset, sizeof(these)))
        return -EFAULT;
    these = ~(these & ~unblockable);
    if (uts) {
        uint64_t sec;
        uint32_t nsec;
        if ((err = read_timespec(uts, wide, &sec, &nsec)) != 0)
            return err;
        deadline = rdtsc() + ns_to_cycles(sec, nsec);
    }
    spin_lock_irq(&me->sighand->siglock);
    sig = dequeue_signal(&these, &info);
    if (!sig && !(uts && rdtsc() >= deadline)) {
        saved = me->real_blocked = me->sig_blocked;
        me->sig_blocked &= these;
        recalc_sigpending(me);
        spin_unlock_irq(&me->sighand->siglock);
        if (uts)
            sleep_until(&me->wait_signal, deadline);
        else
            sleep_on(&me->wait_signal, TASK_INTERRUPTIBLE);
        spin_lock_irq(&me->sighand->siglock);
        sig = dequeue_signal(&these, &info);
        me->sig_blocked = saved;
        me->real_blocked = 0;
        recalc_sigpending(me);
    }
    spin_unlock_irq(&me->sighand->siglock);
    if (!sig)
        return (uts && rdtsc() >= deadline) ? -EAGAIN : -EINTR;
    memset(si, 0, sizeof(si));   /* signo, errno, code, then the union */
    si[0] = sig;
    si[2] = (uint32_t)info.code;
    si[3] = info.w[0];
    si[4] = info.w[1];
    si[5] = info.w[2];
    if (uinfo && copy_to_user(uinfo, si, sizeof(si)))
        return -EFAULT;
    return sig;
}

long sys_rt_sigtimedwait(uint32_t uset, uint32_t uinfo, uint32_t uts,
                         uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    return do_sigtimedwait(uset, uinfo, uts, sigsetsize, 0);
}

long sys_rt_sigtimedwait_time64(uint32_t uset, uint32_t uinfo, uint32_t uts,
                                uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    return do_sigtimedwait(uset, uinfo, uts, sigsetsize, 1);
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
