/*
 * The scheduler, in the shape of 2.5.53's kernel/sched.c: a run queue of
 * two priority arrays (active and expired), each a list per priority and
 * a bitmap of the non-empty ones, so the next task is the first set bit.
 * A task whose time slice ends (the tick: scheduler_tick) gets a new one
 * and waits in the expired array until the active one is empty, unless
 * its sleeping made it interactive. A woken task of better priority than
 * the running one asks for a reschedule. The kernel is not preemptible:
 * the switch happens when the task sleeps, yields or exits, or on its way
 * back to user mode (the exit-work path of entry.S).
 *
 * With --smp N the CPUs share one run queue under the big kernel lock
 * (smp.c), where 2.5.53 has one per CPU and balances them.
 */
#include "sched.h"
#include "variant.h"
#include "mm.h"
#include "smp.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

extern union thread_union init_thread_union;

/* Where a task's comm lies in its task_struct, for the emulator, which
 * names each process by it (--trace's tracks): an absolute symbol of the
 * image, task_comm_offset. The offset depends on the configuration (a
 * spinlock holds its owner with SMP_BIG_LOCK); the function that sets it
 * is discarded at link time (kernel.ld), so the image's code and data are
 * those without it. */
__attribute__((used, section(".discard.emu"))) void emu_task_offsets(void)
{
    __asm__(".globl task_comm_offset\n\t.set task_comm_offset, %c0"
            : : "i"(__builtin_offsetof(struct task_struct, comm)));
}

static struct task_struct init_task_struct;
static struct task_struct idle_task;   /* pid 0: init's parent, never run */
static struct thread_info idle_thread_info;
static struct task_struct init_struct; /* pid 1: never run (exit.c reaps for it) */
struct task_struct *init_task = &init_task_struct;
struct task_struct *child_reaper = &init_struct;
LIST_HEAD_DEF(task_list);
uint32_t nr_tasks;
static uint32_t last_pid;
#ifdef CONFIG_SMP
/* Each CPU has its FPU registers and its own switch in progress. */
static struct task_struct *fpu_owner_cpu[NR_CPUS];
static struct task_struct *last_task_cpu[NR_CPUS];
#define fpu_owner fpu_owner_cpu[smp_processor_id()]
#define last_task last_task_cpu[smp_processor_id()]
static uint32_t idle_cpus;             /* bit c: CPU c waits in idle() */
#else
static struct task_struct *fpu_owner; /* whose state is in the FPU registers */
static struct task_struct *last_task;  /* the task switch_to just left */
#endif

/* ---- the run queue ---- */

#define MAX_USER_PRIO (MAX_PRIO - MAX_RT_PRIO)
#define TASK_NICE(p) ((p)->static_prio - MAX_RT_PRIO - 20)
#define MIN_TIMESLICE (10 * HZ / 1000)
#define MAX_TIMESLICE (300 * HZ / 1000)
#define CHILD_PENALTY 95
#define PARENT_PENALTY 100
#define EXIT_WEIGHT 3
#define PRIO_BONUS_RATIO 25
#define INTERACTIVE_DELTA 2
#define MAX_SLEEP_AVG (2 * HZ)
#define STARVATION_LIMIT (2 * HZ)

/* One bit per priority, and one past the last that is always set. */
#define BITMAP_SIZE ((MAX_PRIO + 1 + 31) / 32)

typedef struct task_struct task_t;
typedef struct prio_array prio_array_t;
typedef struct runqueue runqueue_t;

struct prio_array {
    int nr_active;
    unsigned long bitmap[BITMAP_SIZE];
    struct list_head queue[MAX_PRIO];
};

struct runqueue {
    spinlock_t lock;
    unsigned long nr_running, nr_switches, expired_timestamp, nr_uninterruptible;
    task_t *curr, *idle;
    prio_array_t *active, *expired, arrays[2];
};

static struct runqueue runqueue;

#define this_rq() (&runqueue)
#define task_rq(p) (&runqueue)
#ifdef CONFIG_SMP
#define rq_idle(rq) idle_task_of(smp_processor_id())
#else
#define rq_idle(rq) ((rq)->idle)
#endif

static inline void __set_bit(int nr, unsigned long *addr)
{
    __asm__ volatile("btsl %1, %0" : "+m"(*addr) : "Ir"(nr));
}

static inline void __clear_bit(int nr, unsigned long *addr)
{
    __asm__ volatile("btrl %1, %0" : "+m"(*addr) : "Ir"(nr));
}

static inline unsigned long __ffs(unsigned long word)
{
    __asm__("bsfl %1, %0" : "=r"(word) : "rm"(word));
    return word;
}

/* The first priority with a task: the delimiter bit ends the search. */
static inline int sched_find_first_bit(const unsigned long *b)
{
    if (__builtin_expect(b[0] != 0, 0))
        return (int)__ffs(b[0]);
    if (__builtin_expect(b[1] != 0, 0))
        return (int)__ffs(b[1]) + 32;
    if (__builtin_expect(b[2] != 0, 0))
        return (int)__ffs(b[2]) + 64;
    if (b[3])
        return (int)__ffs(b[3]) + 96;
    return (int)__ffs(b[4]) + 128;
}

/* Nice 0 gets 151 ticks; nice -20 would get MAX_TIMESLICE, +19 MIN. */
static inline unsigned task_timeslice(const task_t *p)
{
    return MIN_TIMESLICE + (MAX_TIMESLICE - MIN_TIMESLICE) *
                               (MAX_PRIO - 1 - p->static_prio) / (MAX_USER_PRIO - 1);
}

/* Whether a task that used up its slice goes back to the active array:
 * its bonus is at least INTERACTIVE_DELTA (more for a higher nice). */
static inline int task_interactive(const task_t *p)
{
    int delta = TASK_NICE(p) * (MAX_USER_PRIO * PRIO_BONUS_RATIO / 100) / 40 +
                INTERACTIVE_DELTA;
    return p->prio <= p->static_prio - delta;
}

/* Tasks have waited in the expired array for too long: no more
 * reinsertion into the active one until it empties. */
static inline int expired_starving(const runqueue_t *rq)
{
    return rq->expired_timestamp &&
           (uint32_t)jiffies - rq->expired_timestamp >=
               STARVATION_LIMIT * rq->nr_running + 1;
}

static inline runqueue_t *task_rq_lock(task_t *p, uint32_t *flags)
{
    runqueue_t *rq;

    local_irq_save(*flags);
    rq = task_rq(p);
    spin_lock(&rq->lock);
    return rq;
}

static inline void task_rq_unlock(runqueue_t *rq, uint32_t *flags)
{
    spin_unlock_irqrestore(&rq->lock, *flags);
}

static inline runqueue_t *this_rq_lock(void)
{
    runqueue_t *rq;

    local_irq_disable();
    rq = this_rq();
    spin_lock(&rq->lock);
    return rq;
}

static inline void rq_unlock(runqueue_t *rq)
{
    spin_unlock_irq(&rq->lock);
}

static inline void dequeue_task(task_t *p, prio_array_t *array)
{
    array->nr_active--;
    list_del(&p->run_list);
    if (list_empty(array->queue + p->prio))
        __clear_bit(p->prio, array->bitmap);
}

static inline void enqueue_task(task_t *p, prio_array_t *array)
{
    list_add_tail(&p->run_list, array->queue + p->prio);
    __set_bit(p->prio, array->bitmap);
    array->nr_active++;
    p->array = array;
}

/* The static priority less a bonus of up to 5 for a task that sleeps
 * much, plus up to 5 for one that never does. */
static inline int effective_prio(const task_t *p)
{
    int bonus = MAX_USER_PRIO * PRIO_BONUS_RATIO * (int)p->sleep_avg / MAX_SLEEP_AVG / 100 -
                MAX_USER_PRIO * PRIO_BONUS_RATIO / 100 / 2;
    int prio = p->static_prio - bonus;

    if (prio < MAX_RT_PRIO)
        prio = MAX_RT_PRIO;
    if (prio > MAX_PRIO - 1)
        prio = MAX_PRIO - 1;
    return prio;
}

/* Onto the active array, crediting the time it slept to its average. */
static inline void activate_task(task_t *p, runqueue_t *rq)
{
    uint32_t sleep_time = (uint32_t)jiffies - p->sleep_timestamp;

    if (sleep_time) {
        p->sleep_avg += sleep_time;
        if (p->sleep_avg > MAX_SLEEP_AVG)
            p->sleep_avg = MAX_SLEEP_AVG;
        p->prio = effective_prio(p);
    }
    enqueue_task(p, rq->active);
    rq->nr_running++;
}

static inline void deactivate_task(task_t *p, runqueue_t *rq)
{
    rq->nr_running--;
    if (p->state == TASK_UNINTERRUPTIBLE)
        rq->nr_uninterruptible++;
    dequeue_task(p, p->array);
    p->array = NULL_PTR;
}

/* set_bit and clear_bit on the thread's flags, as 2.5.53's */
static inline void set_tsk_need_resched(task_t *p)
{
    __asm__ volatile(LOCK_PREFIX "btsl %1, %0"
                     : "+m"(p->ti->flags) : "Ir"(TIF_NEED_RESCHED) : "memory");
}

static inline void clear_tsk_need_resched(task_t *p)
{
    __asm__ volatile(LOCK_PREFIX "btrl %1, %0"
                     : "+m"(p->ti->flags) : "Ir"(TIF_NEED_RESCHED) : "memory");
}

static inline int need_resched(void)
{
    return (current_thread_info()->flags & _TIF_NEED_RESCHED) != 0;
}

/* The task on the CPU goes through schedule() on its way to user mode. */
static inline void resched_task(task_t *p)
{
    set_tsk_need_resched(p);
}

static void prio_array_init(prio_array_t *array)
{
    for (int k = 0; k < MAX_PRIO; k++)
        INIT_LIST_HEAD(array->queue + k);
    memset(array->bitmap, 0, sizeof(array->bitmap));
    __set_bit(MAX_PRIO, array->bitmap);
    array->nr_active = 0;
}

static void runqueue_init(task_t *first)
{
    runqueue_t *rq = this_rq();

    rq->lock = (spinlock_t)SPIN_LOCK_UNLOCKED("the run queue");
    rq->active = rq->arrays;
    rq->expired = rq->arrays + 1;
    prio_array_init(rq->arrays);
    prio_array_init(rq->arrays + 1);
    idle_task.ti = &idle_thread_info;
    idle_thread_info.task = &idle_task;
    idle_task.prio = idle_task.static_prio = MAX_PRIO;
    rq->idle = &idle_task;
    rq->curr = first;
    first->prio = first->static_prio = NICE_TO_PRIO(0);
    first->time_slice = task_timeslice(first);
    activate_task(first, rq);
}

int nr_running(void)
{
    return (int)this_rq()->nr_running;
}

void sched_init(void)
{
    struct task_struct *t = init_task;

    t->ti = &init_thread_union.info;
    t->ti->task = t;
    t->ti->addr_limit = USER_SPACE_TOP;
    t->group_leader = t;
    t->ti->pid = t->pid = t->pgid = t->sid = BOOT_PID;
    t->state = TASK_RUNNING;
    t->exit_signal = SIGCHLD;
    INIT_LIST_HEAD(&t->children);
    reaper_init(&idle_task);
    t->parent = child_reaper;
    list_add_tail(&t->sibling, &child_reaper->children);
    init_waitqueue(&t->wait_chldexit, "a child to exit (wait)");
    init_waitqueue(&t->wait_vfork, "a vfork child to exec or exit");
    init_waitqueue(&t->wait_signal, "a signal (pause)");
    list_add_tail(&t->tasks, &task_list);
    t->umask = 022;
    memcpy(t->comm, "init", 5);
#ifdef CONFIG_SMP
    t->on_cpu = 1;
    t->cpus_allowed = (1u << NR_CPUS) - 1;
#endif
    last_pid = BOOT_PID;
    nr_tasks = 1;
    /* The boot task owns the FPU from the start: a program that never
     * shares the CPU never takes a device-not-available trap. */
    fpu_owner = t;
    t->thread.used_math = 1;
    t->thread.esp0 = (uint32_t)t->ti + THREAD_SIZE;
    runqueue_init(t);
}

struct task_struct *find_task(uint32_t pid)
{
    struct list_head *p;

    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (t->pid == pid && t->state != TASK_DEAD)
            return t;
    }
    return NULL_PTR;
}

/* The next unused pid, wrapping at PID_MAX as Linux does. */
uint32_t alloc_pid(void)
{
    for (;;) {
        if (++last_pid >= PID_MAX)
            last_pid = 2;
        if (!find_task(last_pid))
            return last_pid;
    }
}

/* A task and its kernel stack, zeroed; NULL when memory is short. */
struct task_struct *alloc_task(void)
{
    struct task_struct *t = kzalloc(sizeof(*t));
    union thread_union *stack;

    if (!t)
        return NULL_PTR;
    stack = alloc_pages_aligned(THREAD_SIZE / PAGE_SIZE, THREAD_SIZE / PAGE_SIZE);
    if (!stack) {
        kfree_obj(t);
        return NULL_PTR;
    }
    memset(&stack->info, 0, sizeof(stack->info));
    t->ti = &stack->info;
    t->ti->task = t;
    t->ti->addr_limit = USER_SPACE_TOP;
    t->thread.esp0 = (uint32_t)stack + THREAD_SIZE;
    t->group_leader = t;
    INIT_LIST_HEAD(&t->children);
    INIT_LIST_HEAD(&t->sibling);
    INIT_LIST_HEAD(&t->tasks);
    INIT_LIST_HEAD(&t->run_list);
    init_waitqueue(&t->wait_chldexit, "a child to exit (wait)");
    init_waitqueue(&t->wait_vfork, "a vfork child to exec or exit");
    init_waitqueue(&t->wait_signal, "a signal (pause)");
    return t;
}

void free_task(struct task_struct *t)
{
#ifdef CONFIG_SMP
    for (int c = 0; c < NR_CPUS; c++)
        if (fpu_owner_cpu[c] == t)
            fpu_owner_cpu[c] = NULL_PTR;
#else
    if (fpu_owner == t)
        fpu_owner = NULL_PTR;
#endif
    free_pages(t->ti, THREAD_SIZE / PAGE_SIZE);
    kfree_obj(t);
}

/* ---- wait queues ---- */

#ifdef CONFIG_SMP
/*
 * t can run: wake the lowest CPU t may run on that waits in its idle loop
 * and has not been woken yet; 0 if there is none. A CPU that is not idle
 * finds t at its next schedule().
 */
static int kick_for(struct task_struct *t)
{
    uint32_t cand = idle_cpus & t->cpus_allowed;
    int c;

    if (!cand)
        return 0;
    c = __builtin_ctz(cand);
    if (c == smp_processor_id())
        return 1;
    /* it is on its way: the next task to wake goes to another */
    idle_cpus &= ~(1u << c);
    send_IPI(c, RESCHEDULE_VECTOR);
    return 1;
}

/* The run queue is shared: a woken task goes to an idle CPU, or takes
 * this one if it has the better priority and may run here. */
static inline void wake_up_preempt(runqueue_t *rq, task_t *p)
{
    if (!kick_for(p) && p->prio < current->prio &&
        (p->cpus_allowed & (1u << smp_processor_id())))
        resched_task(current);
}
#else
static inline void wake_up_preempt(runqueue_t *rq, task_t *p)
{
    if (p->prio < rq->curr->prio)
        resched_task(rq->curr);
}
#endif

/*
 * Make p runnable: onto the active array unless it is on the run queue
 * already (it set its state to sleep but has not switched out yet). 1 if
 * it slept. Only a sleeping task wakes: wake_up_process is called on
 * tasks in any state here.
 */
static int try_to_wake_up(task_t *p, int sync)
{
    uint32_t flags;
    int success = 0;
    runqueue_t *rq;

    if (!(p->state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
        return 0;
    rq = task_rq_lock(p, &flags);
    if (!p->array) {
        if (p->state == TASK_UNINTERRUPTIBLE)
            rq->nr_uninterruptible--;
        activate_task(p, rq);
        wake_up_preempt(rq, p);
        success = 1;
    }
    p->state = TASK_RUNNING;
    task_rq_unlock(rq, &flags);
    return success;
}

int wake_up_process(struct task_struct *t)
{
    return try_to_wake_up(t, 0);
}

/* A new child's first time on the run queue; forking costs parent and
 * child some of their sleep average, so that forking keeps no task
 * interactive. */
void wake_up_forked_process(task_t *p)
{
    runqueue_t *rq = this_rq_lock();

    p->state = TASK_RUNNING;
    current->sleep_avg = current->sleep_avg * PARENT_PENALTY / 100;
    p->sleep_avg = p->sleep_avg * CHILD_PENALTY / 100;
    p->prio = effective_prio(p);
    activate_task(p, rq);
#ifdef CONFIG_SMP
    kick_for(p);
#endif
    rq_unlock(rq);
}

/* A child reaped: the part of the first slice it did not use goes back
 * to the parent, and a child that ran more than it slept lowers the
 * parent's sleep average. */
void sched_exit(task_t *p)
{
    uint32_t flags;

    local_irq_save(flags);
    if (p->first_time_slice) {
        p->parent->time_slice += p->time_slice;
        if (p->parent->time_slice > MAX_TIMESLICE)
            p->parent->time_slice = MAX_TIMESLICE;
    }
    local_irq_restore(flags);
    if (p->sleep_avg < p->parent->sleep_avg)
        p->parent->sleep_avg = (p->parent->sleep_avg * EXIT_WEIGHT + p->sleep_avg) /
                               (EXIT_WEIGHT + 1);
}

/* The tick's work for the task it interrupted: count down its slice.
 * When it ends, the task gets a new priority and slice and goes to the
 * expired array, or back to the active one if it is interactive and the
 * expired ones have not waited too long. */
void scheduler_tick(int user_ticks, int sys_ticks)
{
    runqueue_t *rq = this_rq();
    task_t *p = current;

    if (p == rq_idle(rq))
        return;
    if (p->array != rq->active) {
        set_tsk_need_resched(p);
        return;
    }
    spin_lock(&rq->lock);
    if (p->sleep_avg)
        p->sleep_avg--;
    if (!--p->time_slice) {
        dequeue_task(p, rq->active);
        set_tsk_need_resched(p);
        p->prio = effective_prio(p);
        p->time_slice = task_timeslice(p);
        p->first_time_slice = 0;
        if (!task_interactive(p) || expired_starving(rq)) {
            if (!rq->expired_timestamp)
                rq->expired_timestamp = (uint32_t)jiffies;
            enqueue_task(p, rq->expired);
        } else {
            enqueue_task(p, rq->active);
        }
    }
    spin_unlock(&rq->lock);
}

int default_wake_function(wait_queue_t *wait, unsigned mode, int sync)
{
    struct task_struct *p = wait->task;

    return (p->state & mode) && try_to_wake_up(p, sync);
}

int autoremove_wake_function(wait_queue_t *wait, unsigned mode, int sync)
{
    int ret = default_wake_function(wait, mode, sync);

    if (ret)
        list_del(&wait->task_list);
    return ret;
}

/* Every entry that is not exclusive, and nr_exclusive of those that are. */
static __attribute__((noclone)) void __wake_up_common(wait_queue_head_t *q, unsigned mode,
                                                      int nr_exclusive, int sync)
{
    struct list_head *tmp, *next;

    list_for_each_safe(tmp, next, &q->task_list) {
        wait_queue_t *curr = list_entry(tmp, wait_queue_t, task_list);
        unsigned flags = curr->flags;

        if (curr->func(curr, mode, sync) && (flags & WQ_FLAG_EXCLUSIVE) &&
            !--nr_exclusive)
            break;
    }
}

fastcall void __wake_up(wait_queue_head_t *q, unsigned mode, int nr_exclusive)
{
    uint32_t flags;

    if (!q)
        return;
    spin_lock_irqsave(&q->lock, flags);
    __wake_up_common(q, mode, nr_exclusive, 0);
    spin_unlock_irqrestore(&q->lock, flags);
}

/* With q's lock held: one exclusive sleeper (a semaphore's). */
fastcall void __wake_up_locked(wait_queue_head_t *q, unsigned mode)
{
    __wake_up_common(q, mode, 1, 0);
}

#ifdef CONFIG_SMP
/* The waker is about to sleep: the woken task needs no other CPU. */
fastcall void __wake_up_sync(wait_queue_head_t *q, unsigned mode, int nr_exclusive)
{
    uint32_t flags;

    if (!q)
        return;
    spin_lock_irqsave(&q->lock, flags);
    __wake_up_common(q, mode, nr_exclusive, nr_exclusive != 0);
    spin_unlock_irqrestore(&q->lock, flags);
}
#endif

fastcall void prepare_to_wait(wait_queue_head_t *q, wait_queue_t *wait, int state)
{
    uint32_t flags;

    current->state = state;
    current->waiting_on = q;
    wait->flags &= ~WQ_FLAG_EXCLUSIVE;
    spin_lock_irqsave(&q->lock, flags);
    if (list_empty(&wait->task_list))
        list_add(&wait->task_list, &q->task_list);
    spin_unlock_irqrestore(&q->lock, flags);
}

fastcall void prepare_to_wait_exclusive(wait_queue_head_t *q, wait_queue_t *wait, int state)
{
    uint32_t flags;

    current->state = state;
    current->waiting_on = q;
    wait->flags |= WQ_FLAG_EXCLUSIVE;
    spin_lock_irqsave(&q->lock, flags);
    if (list_empty(&wait->task_list))
        list_add_tail(&wait->task_list, &q->task_list);
    spin_unlock_irqrestore(&q->lock, flags);
}

fastcall void finish_wait(wait_queue_head_t *q, wait_queue_t *wait)
{
    uint32_t flags;

    current->state = TASK_RUNNING;
    current->waiting_on = NULL_PTR;
    if (!list_empty(&wait->task_list)) {
        spin_lock_irqsave(&q->lock, flags);
        list_del(&wait->task_list);
        spin_unlock_irqrestore(&q->lock, flags);
    }
}

int sleep_on(struct wait_queue *wq, int state)
{
    DEFINE_WAIT(wait);

    if (state == TASK_INTERRUPTIBLE && signal_pending(current))
        return -ERESTARTSYS;
    prepare_to_wait(wq, &wait, state);
    schedule();
    finish_wait(wq, &wait);
    if (state == TASK_INTERRUPTIBLE && signal_pending(current))
        return -ERESTARTSYS;
    return 0;
}

/* ---- switching ---- */

static inline void set_ts(void)
{
    uint32_t cr0;
    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 | X86_CR0_TS));
}

/*
 * Lazy FPU switching, as Linux 2.5: CR0.TS is clear only while the task
 * whose x87 state is in the registers runs. The outgoing task's state is
 * saved only if it is there, and TS then makes the next task's first FPU
 * instruction trap (#NM), where math_state_restore gives it its own.
 */
void fpu_switch_out(struct task_struct *prev)
{
    if (fpu_owner == prev) {
        __asm__ volatile("fnsave %0; fwait" : "=m"(prev->thread.fpu));
        prev->thread.fpu_saved = 1;
        fpu_owner = NULL_PTR;
        set_ts();
    }
}

void math_state_restore(void)
{
    struct task_struct *me = current;

    __asm__ volatile("clts");
    if (fpu_owner == me)
        return;
    if (me->thread.fpu_saved)
        __asm__ volatile("frstor %0" : : "m"(me->thread.fpu));
    else
        __asm__ volatile("fninit");
    me->thread.used_math = 1;
    fpu_owner = me;
}

/* A signal frame takes the task's x87 state (108 bytes of fnsave); the
 * handler then starts with a fresh FPU, as Linux's save_i387. */
void fpu_save_to(struct task_struct *t, void *image108)
{
    if (fpu_owner == t) {
        __asm__ volatile("fnsave %0; fwait" : "=m"(t->thread.fpu));
        fpu_owner = NULL_PTR;
        set_ts();
    }
    memcpy(image108, t->thread.fpu, sizeof(t->thread.fpu));
    t->thread.fpu_saved = 0;
}

/* sigreturn: the frame's state is the task's again, loaded at its next
 * FPU instruction. */
void fpu_load_from(struct task_struct *t, const void *image108)
{
    if (fpu_owner == t) {
        fpu_owner = NULL_PTR;
        set_ts();
    }
    memcpy(t->thread.fpu, image108, sizeof(t->thread.fpu));
    t->thread.fpu_saved = 1;
    t->thread.used_math = 1;
}

/* exec: the old program's FPU state is nobody's. */
void fpu_forget(struct task_struct *t)
{
    if (fpu_owner == t)
        __asm__ volatile("fninit");
    t->thread.fpu_saved = 0;
}

void load_TLS(const struct task_struct *t)
{
    for (int i = 0; i < GDT_ENTRY_TLS_ENTRIES; i++)
        cpu_gdt(smp_processor_id())[GDT_ENTRY_TLS_MIN + i] = t->tls_array[i];
}

/*
 * The next task's kernel stack for the TSS, after the seed (whose
 * trampoline reads esp0 there, and __switch_to stores it itself). 2.5.53 as released and 2.5.54 also give it to sysenter, with
 * SYSENTER_CS, on every switch: two wrmsr where the CPU has SEP
 * (0bd0ed9719). 2.6.0 only checks that SYSENTER_CS is still set, in the
 * TSS's ss1 (f3abf939b9): it changes only around vm86, which this kernel
 * has not.
 */
#if KHIST != KHIST_SEED
static inline void load_esp0(uint32_t esp0)
{
    *tss_esp0_slot() = esp0;
#if KHIST == KHIST_2553 || KHIST == KHIST_2554
    if (cpu_has(CPUID_FEATURE_SEP)) {
        wrmsr(MSR_IA32_SYSENTER_CS, __KERNEL_CS, 0);
        wrmsr(MSR_IA32_SYSENTER_ESP, esp0, 0);
    }
#elif KHIST >= KHIST_260
    uint16_t *ss1 = tss_ss1_slot();
    if (__builtin_expect(*ss1 != __KERNEL_CS, 0)) {
        *ss1 = __KERNEL_CS;
        wrmsr(MSR_IA32_SYSENTER_CS, __KERNEL_CS, 0);
    }
#endif
}
#endif

/*
 * The second half of a switch, on the next task's stack: its kernel stack
 * for the TSS (the sysenter trampoline reads esp0 there), its TLS
 * descriptors, its %fs and %gs when either task has one, and the FPU
 * given up by prev. Reached by jmp from switch_to; its ret goes where
 * next stopped. No debug registers or I/O bitmaps here: this kernel has
 * neither ptrace's nor ioperm.
 */
fastcall void __switch_to(task_t *prev_p, task_t *next_p)
{
    struct thread_struct *prev = &prev_p->thread, *next = &next_p->thread;

    fpu_switch_out(prev_p);
#if KHIST == KHIST_SEED
    *tss_esp0_slot() = next->esp0;
#else
    load_esp0(next->esp0);
#endif
    load_TLS(next_p);
    savesegment(fs, prev->fs);
    savesegment(gs, prev->gs);
    if (__builtin_expect((prev->fs | prev->gs | next->fs | next->gs) != 0, 0)) {
        loadsegment(fs, next->fs);
        loadsegment(gs, next->gs);
    }
}

/*
 * Save prev's ESI, EDI and EBP on its stack, its stack pointer and where
 * it resumes (label 1) in its thread; take next's stack, push where next
 * resumes and jump to __switch_to, which returns there. EBX, ECX and EDX
 * are clobbered: the compiler keeps nothing in them across the switch.
 */
#define switch_to(prev, next)                                               \
    do {                                                                    \
        uint32_t __a, __d;                                                  \
        __asm__ volatile("pushl %%esi\n\t"                                  \
                         "pushl %%edi\n\t"                                  \
                         "pushl %%ebp\n\t"                                  \
                         "movl %%esp, %0\n\t"                               \
                         "movl %4, %%esp\n\t"                               \
                         "movl $1f, %1\n\t"                                 \
                         "pushl %5\n\t"                                     \
                         "jmp __switch_to\n"                                \
                         "1:\t"                                             \
                         "popl %%ebp\n\t"                                   \
                         "popl %%edi\n\t"                                   \
                         "popl %%esi"                                       \
                         : "=m"((prev)->thread.esp), "=m"((prev)->thread.eip), \
                           "=a"(__a), "=d"(__d)                             \
                         : "m"((next)->thread.esp), "m"((next)->thread.eip), \
                           "2"(prev), "3"(next)                             \
                         : "ebx", "ecx", "memory", "cc");                   \
    } while (0)

/* After a switch, in the task switched to: what the one left behind
 * could not do on its own stack, and the run queue's lock, taken in
 * schedule() by the task that switched here. */
static void finish_task_switch(void)
{
    struct task_struct *prev = last_task;

    last_task = NULL_PTR;
#ifdef CONFIG_SMP
    /* prev's stack is free: another CPU may run it now, or reap it */
    if (prev) {
        prev->on_cpu = 0;
        if (is_idle_task(prev) && prev->active_mm) {
            mmput(prev->active_mm);
            prev->active_mm = NULL_PTR;
        } else if (prev->state == TASK_RUNNING) {
            kick_for(prev);
        } else if (prev->state == TASK_ZOMBIE && prev->parent) {
            wake_up(&prev->parent->wait_chldexit);
        }
    }
#endif
    spin_unlock_irq(&this_rq()->lock);
    if (prev && prev->state == TASK_ZOMBIE)
        exit_mm_late(prev);
}

void schedule_tail(void)
{
#ifdef SMP_BIG_LOCK
    set_kernel_lock_depth(1);   /* it leaves for user mode, unlocking once */
#endif
    finish_task_switch();
    fork_child_start();
}

/* The address space, then the registers and the stack. */
static inline void context_switch(task_t *prev, task_t *next)
{
#ifdef SMP_BIG_LOCK
    /* the lock's depth is the task's: each resumes with its own */
    uint32_t depth = kernel_lock_depth();
#endif
#ifdef CONFIG_SMP
    /* an idle task borrows the address space that is loaded (Linux's lazy
     * TLB), with a reference, dropped when it leaves (finish_task_switch) */
    if (is_idle_task(next)) {
        next->active_mm = prev->active_mm;
        if (next->active_mm)
            next->active_mm->users++;
    } else if (prev->active_mm != next->active_mm) {
        switch_mm(prev->active_mm, next->active_mm);
    }
    next->ti->cpu = prev->ti->cpu;
    next->on_cpu = prev->ti->cpu + 1;
#else
    if (prev->active_mm != next->active_mm)
        switch_mm(prev->active_mm, next->active_mm);
#endif
    last_task = prev;
    switch_to(prev, next);
#ifdef SMP_BIG_LOCK
    set_kernel_lock_depth(depth);
#endif
    finish_task_switch();
}

/* prev leaves the run queue unless it can still run; a pending signal
 * keeps a task that was going to sleep interruptibly. */
static inline void deactivate_prev(task_t *prev, runqueue_t *rq)
{
    switch (prev->state) {
    case TASK_INTERRUPTIBLE:
        if (signal_pending(prev)) {
            prev->state = TASK_RUNNING;
            break;
        }
        /* fall through */
    default:
        deactivate_task(prev, rq);
        /* fall through */
    case TASK_RUNNING:
        break;
    }
}

/* The timers the tick found due while the kernel ran: before the run
 * queue's lock, since they wake tasks. */
static inline void run_timers_due(void)
{
    if (timers_pending())
        run_timers();
}

#ifdef CONFIG_SMP
/* ---- each CPU's idle task (pid 0, on no list) ---- */

static union thread_union idle_stacks[NR_CPUS] __attribute__((aligned(THREAD_SIZE)));
static struct task_struct idle_tasks[NR_CPUS];

struct task_struct *idle_task_of(int cpu)
{
    return &idle_tasks[cpu];
}

int is_idle_task(const struct task_struct *t)
{
    return t >= idle_tasks && t < idle_tasks + NR_CPUS;
}

/* The first switch to an idle task that has never run (CPU 0's) lands
 * here, as a new task's lands in ret_from_fork. */
static __attribute__((noreturn)) void idle_task_entry(void)
{
#ifdef SMP_BIG_LOCK
    set_kernel_lock_depth(1);
#endif
    finish_task_switch();
    cpu_idle_loop();
}

uint32_t init_idle(int cpu)
{
    union thread_union *stack = &idle_stacks[cpu];
    struct task_struct *t = &idle_tasks[cpu];
    uint32_t *sp = (uint32_t *)((uint32_t)stack + THREAD_SIZE);

    t->ti = &stack->info;
    stack->info.task = t;
    stack->info.cpu = (uint32_t)cpu;
    t->state = TASK_UNINTERRUPTIBLE;
    t->prio = t->static_prio = MAX_PRIO;
    INIT_LIST_HEAD(&t->run_list);
    snprintf(t->comm, sizeof(t->comm), "swapper/%d", cpu);
    t->thread.esp0 = (uint32_t)sp;
    *--sp = 0;                  /* idle_task_entry's return address */
    t->thread.esp = (uint32_t)sp;
    t->thread.eip = (uint32_t)idle_task_entry;
    return (uint32_t)stack + THREAD_SIZE;
}

/* The first task of an array this CPU may switch to: not running on
 * another CPU (prev, this CPU's own, may be), allowed here; by priority. */
static task_t *pick_from(prio_array_t *array, task_t *prev)
{
    uint32_t me = 1u << smp_processor_id();
    int idx = sched_find_first_bit(array->bitmap);

    for (; idx < MAX_PRIO; idx++) {
        struct list_head *p;
        list_for_each(p, array->queue + idx) {
            task_t *t = list_entry(p, task_t, run_list);
            if ((t == prev || !t->on_cpu) && (t->cpus_allowed & me))
                return t;
        }
    }
    return NULL_PTR;
}

/* The active array first; when it is empty the arrays swap. A CPU that
 * finds nothing it may run there takes an expired task rather than idle
 * (2.5.53's other CPUs have run queues of their own). */
static task_t *pick_next(runqueue_t *rq, task_t *prev)
{
    task_t *next;

    if (!rq->active->nr_active) {
        prio_array_t *array = rq->active;
        rq->active = rq->expired;
        rq->expired = array;
        rq->expired_timestamp = 0;
    }
    next = pick_from(rq->active, prev);
    return next ? next : pick_from(rq->expired, prev);
}

/* Nothing this CPU may run: it switches to its idle task, which waits in
 * cpu_idle_loop. */
static inline __attribute__((always_inline)) void __schedule(void)
{
    task_t *prev = current, *next;
    runqueue_t *rq = this_rq();

    run_timers_due();
    prev->sleep_timestamp = (uint32_t)jiffies;
    spin_lock_irq(&rq->lock);
    deactivate_prev(prev, rq);
    next = pick_next(rq, prev);
    if (!next)
        next = idle_task_of(smp_processor_id());
    clear_tsk_need_resched(prev);
    if (next != prev) {
        rq->nr_switches++;
        context_switch(prev, next);
    } else {
        spin_unlock_irq(&rq->lock);
    }
}

/*
 * A CPU's idle task, with the big kernel lock: drop it and wait in hlt for
 * an interrupt (a reschedule IPI, a timer) until a task can run here.
 * When every CPU waits, the run queue is empty and no timer is set, no
 * one ever will run: a deadlock.
 */
__attribute__((noreturn)) void cpu_idle_loop(void)
{
    uint32_t me = 1u << smp_processor_id();
    runqueue_t *rq = this_rq();
    task_t *next;

    for (;;) {
        spin_lock_irq(&rq->lock);
        while (!(next = pick_next(rq, NULL_PTR))) {
            idle_cpus |= me;
            if (idle_cpus == cpu_online_map && !rq->nr_running && !timers_armed())
                deadlock();
            spin_unlock(&rq->lock);
            in_idle = 1;
#ifdef SMP_BIG_LOCK
            uint32_t depth = release_kernel_lock();
#endif
            __asm__ volatile("sti; hlt; cli" : : : "memory");
#ifdef SMP_BIG_LOCK
            reacquire_kernel_lock(depth);
#endif
            in_idle = 0;
            idle_cpus &= ~me;
            run_timers();
            spin_lock(&rq->lock);
        }
        rq->nr_switches++;
        context_switch(current, next);
    }
}
#else
/*
 * Nothing can run: wait for the timer that will wake someone, with hlt
 * (the emulator moves modeled time to the next interrupt, as idle). With
 * no timer set, no one ever will: a deadlock. Called and left with the
 * run queue locked and interrupts off.
 */
static void idle(runqueue_t *rq)
{
    task_t *prev = rq->curr;

    rq->curr = rq->idle;
    while (!rq->nr_running) {
        if (!timers_armed())
            deadlock();
        spin_unlock(&rq->lock);
        in_idle = 1;
        tick_nohz_idle();
        __asm__ volatile("sti; hlt; cli" : : : "memory");
        in_idle = 0;
        run_timers();
        spin_lock(&rq->lock);
    }
    rq->curr = prev;
    rq->expired_timestamp = 0;
}

static inline __attribute__((always_inline)) void __schedule(void)
{
    task_t *prev = current, *next;
    runqueue_t *rq = this_rq();
    prio_array_t *array;
    int idx;

    run_timers_due();
    prev->sleep_timestamp = (uint32_t)jiffies;
    spin_lock_irq(&rq->lock);
    deactivate_prev(prev, rq);
    if (!rq->nr_running)
        idle(rq);
    array = rq->active;
    if (!array->nr_active) {
        rq->active = rq->expired;
        rq->expired = array;
        array = rq->active;
        rq->expired_timestamp = 0;
    }
    idx = sched_find_first_bit(array->bitmap);
    next = list_entry(array->queue[idx].next, task_t, run_list);
    clear_tsk_need_resched(prev);
    if (next != prev) {
        rq->nr_switches++;
        rq->curr = next;
        context_switch(prev, next);
    } else {
        spin_unlock_irq(&rq->lock);
    }
}
#endif

/* Again if a reschedule was asked for while this task was away. */
void schedule(void)
{
    do
        __schedule();
    while (need_resched());
}

/*
 * No task can run, and nothing can wake one: every process waits for
 * another or is stopped, and no timer is set. The machine stops
 * with one line naming each process and what it waits for.
 */
void deadlock(void)
{
    char line[512];
    size_t n = 0;
    struct list_head *p;

    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (n >= sizeof(line))
            break;
        if (t->state == TASK_STOPPED)
            n += snprintf(line + n, sizeof(line) - n, "%spid %u (%s) is stopped",
                          n ? "; " : "", t->pid, t->comm);
        else if (t->state == TASK_INTERRUPTIBLE || t->state == TASK_UNINTERRUPTIBLE)
            n += snprintf(line + n, sizeof(line) - n, "%spid %u (%s) waits for %s",
                          n ? "; " : "", t->pid, t->comm,
                          t->waiting_on ? t->waiting_on->what : "nothing");
    }
    report_deadlock(line);
}

/* The caller goes to the expired array: every task in the active one
 * runs before it again. */
long sys_sched_yield(uint32_t a1, uint32_t a2, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    runqueue_t *rq = this_rq_lock();
    task_t *me = current;

    dequeue_task(me, me->array);
    enqueue_task(me, rq->expired);
    spin_unlock(&rq->lock);
    schedule();
    return 0;
}

/*
 * sched_setaffinity and sched_getaffinity, as 2.5.53's: the mask is one
 * unsigned long, of which only online CPUs count. A task moved off the CPU
 * it runs on leaves it at its next schedule(); the caller itself at its
 * return to user mode.
 */
static struct task_struct *affinity_task(uint32_t pid)
{
    return pid ? find_task(pid) : current;
}

long sys_sched_setaffinity(uint32_t pid, uint32_t len, uint32_t umask,
                           uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *t;
    uint32_t mask;

    if (len < sizeof(uint32_t))
        return -EINVAL;
    if (get_user_u32(&mask, umask))
        return -EFAULT;
    if (!(t = affinity_task(pid)))
        return -ESRCH;
#ifdef CONFIG_SMP
    mask &= cpu_online_map;
    if (!mask)
        return -EINVAL;
    t->cpus_allowed = mask;
    if (t == current && !(mask & (1u << smp_processor_id())))
        current_thread_info()->flags |= _TIF_NEED_RESCHED;
    else if (t->state == TASK_RUNNING && !t->on_cpu)
        kick_for(t);
#else
    if (!(mask & 1))
        return -EINVAL;
#endif
    return 0;
}

long sys_sched_getaffinity(uint32_t pid, uint32_t len, uint32_t umask,
                           uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *t;
    uint32_t mask = 1;

    if (len < sizeof(uint32_t))
        return -EINVAL;
    if (!(t = affinity_task(pid)))
        return -ESRCH;
#ifdef CONFIG_SMP
    mask = t->cpus_allowed & cpu_online_map;
#endif
    if (put_user_u32(mask, umask))
        return -EFAULT;
    return sizeof(uint32_t);
}

/* SIGCONT or SIGKILL for a stopped task (signal.c): runnable again, as
 * 2.5.53's wake_up_process, which woke a task in any state. A task that
 * set TASK_STOPPED but has not switched out yet is still on the queue. */
int wake_up_stopped(struct task_struct *p)
{
    uint32_t flags;
    runqueue_t *rq;
    int success = 0;

    if (p->state != TASK_STOPPED)
        return 0;
    rq = task_rq_lock(p, &flags);
    if (!p->array) {
        activate_task(p, rq);
        wake_up_preempt(rq, p);
        success = 1;
    }
    p->state = TASK_RUNNING;
    task_rq_unlock(rq, &flags);
    return success;
}
