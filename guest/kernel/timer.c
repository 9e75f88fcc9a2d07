/*
 * The timer interrupt and what hangs off it, on modeled time: the PIT
 * programmed for HZ = 1000 on IRQ 0 of the 8259A (vectors from
 * FIRST_EXTERNAL_VECTOR = 0x20, as Linux 2.5's i8259.c), the tick that
 * samples user and system time and ends time slices, and the timers of
 * each task: a sleep's deadline and the three interval timers. Deadlines
 * are TSC values, and the emulator's TSC counts modeled cycles.
 *
 * The tick runs with interrupts off. When it interrupts user mode it runs
 * the due timers itself (no kernel code is half way through a list); when
 * it interrupts the kernel it only notes them and asks for a reschedule,
 * and schedule() runs them.
 */
#include "kernel.h"
#include "sched.h"

#define HZ 1000
#define LATCH ((PIT_HZ + HZ / 2) / HZ)
#define USER_HZ 100                /* times() and AT_CLKTCK */

uint64_t jiffies;
static uint64_t cycles_per_tick;
static uint64_t next_timer = UINT64_MAX; /* the earliest deadline of any task */
static int timers_due;
#ifdef CONFIG_SMP
int in_idle_cpu[NR_CPUS];          /* the tick found the CPU idle */
#else
int in_idle;                       /* the tick found the CPU idle */
#endif

static inline void outb(uint8_t v, uint16_t port)
{
    __asm__ volatile("outb %0, %w1" : : "a"(v), "Nd"(port));
}

extern void irq0_interrupt(void);
void set_intr_gate(int n, void (*handler)(void));

/* The 8259A as init_8259A sets it up, IRQ 0 alone unmasked; the PIT as a
 * rate generator at HZ. */
void timer_init(void)
{
    cycles_per_tick = (uint64_t)boot->cpu_khz * 1000 / HZ;
    set_intr_gate(FIRST_EXTERNAL_VECTOR + IRQ_TIMER, irq0_interrupt);
    outb(PIC_ICW1 | PIC_ICW1_ICW4, PIC_MASTER_CMD);
    outb(FIRST_EXTERNAL_VECTOR, PIC_MASTER_DATA);
    outb(1u << 2, PIC_MASTER_DATA);            /* the slave on IRQ 2 */
    outb(0x01, PIC_MASTER_DATA);               /* 8086 mode */
    outb(PIC_ICW1 | PIC_ICW1_ICW4, PIC_SLAVE_CMD);
    outb(FIRST_EXTERNAL_VECTOR + 8, PIC_SLAVE_DATA);
    outb(2, PIC_SLAVE_DATA);
    outb(0x01, PIC_SLAVE_DATA);
    outb((uint8_t)~(1u << IRQ_TIMER), PIC_MASTER_DATA);
    outb(0xff, PIC_SLAVE_DATA);
    outb(PIT_CMD_CH0_LOHI | (2 << PIT_MODE_SHIFT), PIT_CMD_PORT);
    outb(LATCH & 0xff, PIT_CH0_PORT);
    outb(LATCH >> 8, PIT_CH0_PORT);
}

uint64_t ns_to_cycles(uint64_t sec, uint32_t nsec)
{
    uint64_t khz = boot->cpu_khz;

    if (sec > (UINT64_MAX / 2) / (khz * 1000))
        return UINT64_MAX / 2;
    return sec * khz * 1000 + (uint64_t)nsec * khz / 1000000;
}

void cycles_to_ns(uint64_t cycles, uint32_t *sec, uint32_t *nsec)
{
    uint64_t hz = (uint64_t)boot->cpu_khz * 1000;
    uint64_t s = cycles / hz;

    *sec = s > 0x7fffffff ? 0x7fffffff : (uint32_t)s;
    *nsec = (uint32_t)((cycles % hz) * 1000000 / boot->cpu_khz);
}

void arm_timer(uint64_t deadline)
{
    if (deadline < next_timer)
        next_timer = deadline;
}

/* Is any deadline set? (If not, and nothing can run, nothing ever will.) */
int timers_armed(void)
{
    return next_timer != UINT64_MAX;
}

static void itimer_real_due(struct task_struct *t, uint64_t now)
{
    struct sig_info info = { SI_KERNEL, { 0, 0, 0 } };

    send_signal_info(t, SIGALRM, &info);
    if (!t->it_real_incr) {
        t->it_real_value = 0;
        return;
    }
    while (t->it_real_value <= now)
        t->it_real_value += t->it_real_incr;
}

/* Wake the sleepers whose deadline passed, send the SIGALRMs due. */
void run_timers(void)
{
    uint64_t now = rdtsc(), next = UINT64_MAX;
    struct list_head *p;

    timers_due = 0;
    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
            continue;
        if (t->timeout && now >= t->timeout) {
            t->timeout = 0;
            wake_up_process(t);
        }
        if (t->it_real_value && now >= t->it_real_value)
            itimer_real_due(t, now);
        if (t->timeout && t->timeout < next)
            next = t->timeout;
        if (t->it_real_value && t->it_real_value < next)
            next = t->it_real_value;
    }
    next_timer = next;
}

int timers_pending(void)
{
    return timers_due;
}

/* The virtual and profiling timers count the ticks they sample. */
static void itimer_tick(struct task_struct *me, int user)
{
    struct sig_info info = { SI_KERNEL, { 0, 0, 0 } };

    if (user && me->it_virt_value) {
        if (me->it_virt_value <= cycles_per_tick) {
            me->it_virt_value = me->it_virt_incr;
            send_signal_info(me, SIGVTALRM, &info);
        } else {
            me->it_virt_value -= cycles_per_tick;
        }
    }
    if (me->it_prof_value) {
        if (me->it_prof_value <= cycles_per_tick) {
            me->it_prof_value = me->it_prof_incr;
            send_signal_info(me, SIGPROF, &info);
        } else {
            me->it_prof_value -= cycles_per_tick;
        }
    }
}

/* The tick's work for the task it interrupted: its user or system time,
 * its virtual and profiling itimers, its time slice. */
static inline void update_process_times(struct task_struct *me, int user)
{
    if (!in_idle) {
        if (user)
            me->utime += cycles_per_tick;
        else
            me->stime += cycles_per_tick;
        itimer_tick(me, user);
        scheduler_tick(user, !user);
    }
}

void do_timer_interrupt(struct pt_regs *regs)
{
    struct task_struct *me = current;
    int user = user_mode(regs->xcs);

    outb(PIC_EOI, PIC_MASTER_CMD);
    jiffies++;
    timer_tsc_tick();
    update_process_times(me, user);
    if (rdtsc() >= next_timer) {
        if (user) {
            run_timers();
        } else {
            timers_due = 1;
            me->ti->flags |= _TIF_NEED_RESCHED;
        }
    }
}

#ifdef CONFIG_SMP
/* An AP's local APIC timer (smp.c starts it): the same tick for the task
 * it interrupted; the timers and jiffies stay CPU 0's. */
void smp_apic_timer_interrupt(struct pt_regs *regs)
{
    update_process_times(current, user_mode(regs->xcs));
}

uint32_t tick_cycles(void)
{
    return (uint32_t)cycles_per_tick;
}
#endif

#ifndef CONFIG_SMP
/*
 * Tickless idle, as Linux's NO_HZ idle stops the tick (issue 26, item 9):
 * with nothing to run until the earliest timer, the ticks before it only
 * count jiffies and move the clock. The emulator drops them (abi.h,
 * HC_PORT_NOHZ) and the kernel takes their effect here, before hlt, so
 * that the tick that wakes it finds the state those ticks left. Called
 * with interrupts off, in_idle set.
 */
void tick_nohz_idle(void)
{
    uint64_t base = timer_tsc_last_tick();
    struct hc_nohz h = { (uint32_t)next_timer, (uint32_t)(next_timer >> 32), (uint32_t)base,
                         (uint32_t)(base >> 32), (uint32_t)cycles_per_tick, 0, 0, 0 };

    uint64_t now = rdtsc();

    if (next_timer <= now || next_timer - now < 3 * cycles_per_tick)
        return;
    hypercall(HC_PORT_NOHZ, &h);
    if (!h.ticks)
        return;
    jiffies += h.ticks;
    timer_tsc_skip((uint64_t)h.last_hi << 32 | h.last_lo, h.ticks);
}
#endif

/* Sleep on wq until woken or the deadline: 0 when the deadline passed,
 * 1 when woken before it, -ERESTARTSYS for a signal. */
int sleep_until(struct wait_queue *wq, uint64_t deadline)
{
    struct task_struct *me = current;
    int err;

    if (rdtsc() >= deadline)
        return 0;
    me->timeout = deadline;
    arm_timer(deadline);
    err = sleep_on(wq, TASK_INTERRUPTIBLE);
    if (err) {
        me->timeout = 0;
        return err;
    }
    if (me->timeout == 0 || rdtsc() >= deadline) {
        me->timeout = 0;
        return 0;
    }
    me->timeout = 0;
    return 1;
}

uint64_t clock_ticks(uint64_t cycles)
{
    return cycles / (cycles_per_tick * (HZ / USER_HZ));
}
