/*
 * The scheduler: a run queue served round-robin, switch_to, wait queues.
 * A task runs until it sleeps, yields or exits, or until the timer tick
 * ends its time slice (timer.c): the tick sets TIF_NEED_RESCHED, and the
 * task is switched out on its way back to user mode (the exit-work path
 * of entry.S), never in the middle of kernel code.
 */
#include "sched.h"
#include "mm.h"
#include "smp.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

extern union thread_union init_thread_union;

static struct task_struct init_task_struct;
static struct task_struct idle_task;   /* pid 0: init's parent, never run */
struct task_struct *init_task = &init_task_struct;
LIST_HEAD_DEF(task_list);
static LIST_HEAD_DEF(run_queue);
uint32_t nr_tasks;
static uint32_t last_pid;
#ifdef CONFIG_SMP
/* Each CPU has its FPU registers and its own switch in progress; the run
 * queue is shared, under the big kernel lock (smp.c). */
static struct task_struct *fpu_owner_cpu[NR_CPUS];
static struct task_struct *last_task_cpu[NR_CPUS];
#define fpu_owner fpu_owner_cpu[smp_processor_id()]
#define last_task last_task_cpu[smp_processor_id()]
static uint32_t idle_cpus;             /* bit c: CPU c waits in idle() */
#else
static struct task_struct *fpu_owner; /* whose state is in the FPU registers */
static struct task_struct *last_task;  /* the task switch_to just left */
#endif

void sched_init(void)
{
    struct task_struct *t = init_task;

    t->ti = &init_thread_union.info;
    t->ti->task = t;
    t->ti->addr_limit = USER_SPACE_TOP;
    t->group_leader = t;
    t->ti->pid = t->pid = t->pgid = t->sid = 1;
    t->state = TASK_RUNNING;
    t->exit_signal = SIGCHLD;
    t->parent = &idle_task;
    INIT_LIST_HEAD(&t->children);
    INIT_LIST_HEAD(&t->sibling);
    INIT_LIST_HEAD(&t->wait_list);
    init_waitqueue(&t->wait_chldexit, "a child to exit (wait)");
    init_waitqueue(&t->wait_vfork, "a vfork child to exec or exit");
    init_waitqueue(&t->wait_signal, "a signal (pause)");
    list_add_tail(&t->tasks, &task_list);
    list_add_tail(&t->run_list, &run_queue);
    t->umask = 022;
    memcpy(t->comm, "init", 5);
    t->slice = TIME_SLICE_TICKS;
#ifdef CONFIG_SMP
    t->on_cpu = 1;
    t->cpus_allowed = (1u << NR_CPUS) - 1;
#endif
    last_pid = 1;
    nr_tasks = 1;
    /* The boot task owns the FPU from the start: a program that never
     * shares the CPU never takes a device-not-available trap. */
    fpu_owner = t;
    t->thread.used_math = 1;
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
    t->group_leader = t;
    INIT_LIST_HEAD(&t->children);
    INIT_LIST_HEAD(&t->sibling);
    INIT_LIST_HEAD(&t->tasks);
    INIT_LIST_HEAD(&t->run_list);
    INIT_LIST_HEAD(&t->wait_list);
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
 * and has not been woken yet. A CPU that is not idle finds t at its next
 * schedule().
 */
static void kick_for(struct task_struct *t)
{
    uint32_t cand = idle_cpus & t->cpus_allowed;
    int c;

    if (!cand)
        return;
    c = __builtin_ctz(cand);
    if (c == smp_processor_id())
        return;
    /* it is on its way: the next task to wake goes to another */
    idle_cpus &= ~(1u << c);
    send_IPI(c, RESCHEDULE_VECTOR);
}
#endif

void wake_up_process(struct task_struct *t)
{
    if (t->state != TASK_INTERRUPTIBLE && t->state != TASK_UNINTERRUPTIBLE)
        return;
    if (t->waiting_on) {
        list_del(&t->wait_list);
        t->waiting_on = NULL_PTR;
    }
    t->state = TASK_RUNNING;
    list_add_tail(&t->run_list, &run_queue);
#ifdef CONFIG_SMP
    kick_for(t);
#endif
}

void wake_up(struct wait_queue *wq)
{
    while (!list_empty(&wq->waiters))
        wake_up_process(list_entry(wq->waiters.next, struct task_struct, wait_list));
}

int sleep_on(struct wait_queue *wq, int state)
{
    struct task_struct *me = current;

    if (state == TASK_INTERRUPTIBLE && signal_pending(me))
        return -ERESTARTSYS;
    me->state = state;
    me->waiting_on = wq;
    list_add_tail(&me->wait_list, &wq->waiters);
    schedule();
    /* Woken by wake_up (which took us off the queue) or by a signal. */
    if (me->waiting_on) {
        list_del(&me->wait_list);
        me->waiting_on = NULL_PTR;
    }
    if (state == TASK_INTERRUPTIBLE && signal_pending(me))
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
 * Lazy FPU switching, as Linux 2.5: the outgoing task's x87 state is saved
 * only if it is in the registers, and CR0.TS makes the next task's first
 * FPU instruction trap (#NM), where math_state_restore gives it its own.
 */
void fpu_switch_out(struct task_struct *prev)
{
    if (fpu_owner == prev) {
        __asm__ volatile("fnsave %0; fwait" : "=m"(prev->thread.fpu));
        prev->thread.fpu_saved = 1;
        fpu_owner = NULL_PTR;
    }
    set_ts();
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

/* After a switch, in the task switched to: what the one left behind
 * could not do on its own stack. */
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
    if (prev && prev->state == TASK_ZOMBIE)
        exit_mm_late(prev);
}

void schedule_tail(void)
{
#ifdef CONFIG_SMP
    set_kernel_lock_depth(1);   /* it leaves for user mode, unlocking once */
#endif
    finish_task_switch();
    fork_child_start();
}

static void switch_to(struct task_struct *prev, struct task_struct *next)
{
#ifdef CONFIG_SMP
    /* the lock's depth is the task's: each resumes with its own */
    uint32_t depth = kernel_lock_depth();
#endif
    savesegment(fs, prev->thread.fs);
    savesegment(gs, prev->thread.gs);
    fpu_switch_out(prev);
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
#else
    if (prev->active_mm != next->active_mm)
        switch_mm(prev->active_mm, next->active_mm);
#endif
    load_TLS(next);
    /* The TLS descriptors changed under the selectors: reload them. */
    loadsegment(fs, next->thread.fs);
    loadsegment(gs, next->thread.gs);
    *tss_esp0_slot() = (uint32_t)next->ti + THREAD_SIZE;
#ifdef CONFIG_SMP
    next->ti->cpu = prev->ti->cpu;
    next->on_cpu = prev->ti->cpu + 1;
#endif
    last_task = prev;
    switch_to_asm(&prev->thread.esp, next->thread.esp);
#ifdef CONFIG_SMP
    set_kernel_lock_depth(depth);
#endif
    finish_task_switch();
}

int nr_running(void)
{
    struct list_head *p;
    int n = 0;

    list_for_each(p, &run_queue)
        n++;
    return n;
}

/* The start of every schedule(): timers due run, and prev goes to the back
 * of the run queue if it can still run. */
static void put_prev(struct task_struct *prev)
{
    current_thread_info()->flags &= ~_TIF_NEED_RESCHED;
    if (timers_pending())
        run_timers();
    list_del(&prev->run_list);
    if (prev->state == TASK_RUNNING)
        list_add_tail(&prev->run_list, &run_queue);
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
    set_kernel_lock_depth(1);
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
    INIT_LIST_HEAD(&t->run_list);
    snprintf(t->comm, sizeof(t->comm), "swapper/%d", cpu);
    /* what switch_to_asm pops: EDI, ESI, EBX, EBP, the return address */
    *--sp = 0;
    *--sp = (uint32_t)idle_task_entry;
    for (int i = 0; i < 4; i++)
        *--sp = 0;
    t->thread.esp = (uint32_t)sp;
    return (uint32_t)stack + THREAD_SIZE;
}

/* The first task on the run queue this CPU may switch to: not running on
 * another CPU (prev, this CPU's own, may be), allowed here. */
static struct task_struct *pick_next(struct task_struct *prev)
{
    uint32_t me = 1u << smp_processor_id();
    struct list_head *p;

    list_for_each(p, &run_queue) {
        struct task_struct *t = list_entry(p, struct task_struct, run_list);
        if ((t == prev || !t->on_cpu) && (t->cpus_allowed & me))
            return t;
    }
    return NULL_PTR;
}

/* Nothing this CPU may run: it switches to its idle task (smp.c), which
 * waits in cpu_idle_loop. */
void schedule(void)
{
    struct task_struct *prev = current, *next;

    put_prev(prev);
    next = pick_next(prev);
    if (!next)
        next = idle_task_of(smp_processor_id());
    if (next != prev)
        switch_to(prev, next);
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
    struct task_struct *next;

    for (;;) {
        __asm__ volatile("cli" : : : "memory");
        while (!(next = pick_next(NULL_PTR))) {
            idle_cpus |= me;
            if (idle_cpus == cpu_online_map && list_empty(&run_queue) && !timers_armed())
                deadlock();
            in_idle = 1;
            uint32_t depth = release_kernel_lock();
            __asm__ volatile("sti; hlt; cli" : : : "memory");
            reacquire_kernel_lock(depth);
            in_idle = 0;
            idle_cpus &= ~me;
            run_timers();
        }
        switch_to(current, next);
    }
}
#else
/*
 * Nothing can run: wait for the timer that will wake someone, with hlt
 * (the emulator moves modeled time to the next interrupt, as idle). With
 * no timer set, no one ever will: a deadlock.
 */
static void idle(void)
{
    uint32_t flags;

    __asm__ volatile("pushfl; popl %0" : "=r"(flags));
    while (list_empty(&run_queue)) {
        if (!timers_armed())
            deadlock();
        in_idle = 1;
        tick_nohz_idle();
        __asm__ volatile("sti; hlt; cli" : : : "memory");
        in_idle = 0;
        run_timers();
    }
    __asm__ volatile("pushl %0; popfl" : : "r"(flags) : "memory", "cc");
}

void schedule(void)
{
    struct task_struct *prev = current, *next;

    put_prev(prev);
    if (list_empty(&run_queue))
        idle();
    next = list_entry(run_queue.next, struct task_struct, run_list);
    if (next != prev)
        switch_to(prev, next);
}
#endif

/*
 * No task can run, and nothing can wake one: every process waits for
 * another, and no timer is set. The machine stops
 * with one line naming each process and what it waits for.
 */
void deadlock(void)
{
    char line[512];
    size_t n = 0;
    struct list_head *p;

    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (t->state != TASK_INTERRUPTIBLE && t->state != TASK_UNINTERRUPTIBLE)
            continue;
        if (n < sizeof(line))
            n += snprintf(line + n, sizeof(line) - n, "%spid %u (%s) waits for %s",
                          n ? "; " : "", t->pid, t->comm,
                          t->waiting_on ? t->waiting_on->what : "nothing");
    }
    report_deadlock(line);
}

long sys_sched_yield(uint32_t a1, uint32_t a2, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    current_thread_info()->flags |= _TIF_NEED_RESCHED;
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
