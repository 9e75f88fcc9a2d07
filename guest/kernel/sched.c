/*
 * The scheduler: a run queue served round-robin, switch_to, wait queues.
 * A task runs until it sleeps, yields or exits, or until the timer tick
 * ends its time slice (timer.c): the tick sets TIF_NEED_RESCHED, and the
 * task is switched out on its way back to user mode (the exit-work path
 * of entry.S), never in the middle of kernel code.
 */
#include "sched.h"
#include "mm.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

extern union thread_union init_thread_union;

static struct task_struct init_task_struct;
static struct task_struct idle_task;   /* pid 0: init's parent, never run */
struct task_struct *init_task = &init_task_struct;
LIST_HEAD_DEF(task_list);
static LIST_HEAD_DEF(run_queue);
uint32_t nr_tasks;
static uint32_t last_pid;
static struct task_struct *fpu_owner; /* whose state is in the FPU registers */
static struct task_struct *last_task;  /* the task switch_to just left */

void sched_init(void)
{
    struct task_struct *t = init_task;

    t->ti = &init_thread_union.info;
    t->ti->task = t;
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
    if (fpu_owner == t)
        fpu_owner = NULL_PTR;
    free_pages(t->ti, THREAD_SIZE / PAGE_SIZE);
    kfree_obj(t);
}

/* ---- wait queues ---- */

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
    if (prev && prev->state == TASK_ZOMBIE)
        exit_mm_late(prev);
}

void schedule_tail(void)
{
    finish_task_switch();
    fork_child_start();
}

static void switch_to(struct task_struct *prev, struct task_struct *next)
{
    savesegment(fs, prev->thread.fs);
    savesegment(gs, prev->thread.gs);
    fpu_switch_out(prev);
    if (prev->active_mm != next->active_mm)
        switch_mm(prev->active_mm, next->active_mm);
    load_TLS(next);
    /* The TLS descriptors changed under the selectors: reload them. */
    loadsegment(fs, next->thread.fs);
    loadsegment(gs, next->thread.gs);
    *tss_esp0_slot() = (uint32_t)next->ti + THREAD_SIZE;
    last_task = prev;
    switch_to_asm(&prev->thread.esp, next->thread.esp);
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
        __asm__ volatile("sti; hlt; cli" : : : "memory");
        in_idle = 0;
        run_timers();
    }
    __asm__ volatile("pushl %0; popfl" : : "r"(flags) : "memory", "cc");
}

void schedule(void)
{
    struct task_struct *prev = current, *next;

    current_thread_info()->flags &= ~_TIF_NEED_RESCHED;
    if (timers_pending())
        run_timers();
    list_del(&prev->run_list);
    if (prev->state == TASK_RUNNING)
        list_add_tail(&prev->run_list, &run_queue);
    if (list_empty(&run_queue))
        idle();
    next = list_entry(run_queue.next, struct task_struct, run_list);
    if (next != prev)
        switch_to(prev, next);
}

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
