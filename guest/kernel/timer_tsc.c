/*
 * The time of day, in the shape Linux 2.5.53 gave it on a TSC machine:
 * arch/i386/kernel/timers/timer_tsc.c (the timer's mark_offset and
 * get_offset) and arch/i386/kernel/time.c (do_gettimeofday). The timer
 * interrupt notes the TSC of the tick and advances xtime; do_gettimeofday
 * takes xtime_lock for reading with interrupts off, asks the timer through
 * the timer_opts pointer for the microseconds since that tick, adds the
 * ticks the wall clock has not taken in yet (jiffies - wall_jiffies) and
 * xtime's nanoseconds as microseconds, and carries into the seconds.
 *
 * Where this clock differs: its ticks lie on a fixed lattice of TSC
 * values, every 1/HZ s from boot, and the interrupt (timer.c, or the
 * --vgettimeofday one) applies the ones due whenever it runs, noting the
 * lattice point's TSC rather than its own: 2.5.53 noted the interrupt's
 * TSC and read from the PIT how late it ran (delay_at_last_interrupt); a
 * lattice point is never late, so that delay is 0 here, read and added all
 * the same. The time read then depends on the TSC and on which lattice
 * point the last interrupt applied, never on when the interrupt came. The
 * wall clock takes in every tick at once (2.5.53 left that to the timer
 * bottom half), so `lost` is 0 whenever gettimeofday looks. The emulator's
 * TSC counts modeled cycles, so guest time is modeled time.
 */
#include "kernel.h"
#include "spinlock.h"
#include "variant.h"

#define HZ 1000
#define USEC_PER_SEC 1000000u
#define NSEC_PER_USEC 1000u
#define USEC_PER_TICK (USEC_PER_SEC / HZ)

struct timespec32 { uint32_t tv_sec, tv_nsec; };

struct timer_opts {
    const char *name;
    void (*mark_offset)(uint64_t now);
    uint32_t (*get_offset)(void);
};

rwlock_t xtime_lock = RW_LOCK_UNLOCKED;
static struct timespec32 xtime;
static uint32_t jiffies_tsc, wall_jiffies;   /* ticks of this clock */
static uint64_t last_tick_tsc;               /* the lattice point last applied */
static uint32_t cycles_per_tick;
static uint32_t last_tsc_low;
static uint32_t delay_at_last_interrupt;
/* 2^32 / (cycles per microsecond): usec = (cycles * quotient) >> 32. Rounded
 * down, so a tick's cycles give at most its microseconds: the time never
 * steps back when a tick is applied. */
static uint32_t fast_gettimeoffset_quotient;

static void mark_offset_tsc(uint64_t now)
{
#ifdef SMP_BIG_LOCK
    if (now < last_tick_tsc)   /* another CPU's TSC behind CPU 0's (--tsc-skew) */
        now = last_tick_tsc;
#endif
    while (now - last_tick_tsc >= cycles_per_tick) {
        last_tick_tsc += cycles_per_tick;
        jiffies_tsc++;
    }
    last_tsc_low = (uint32_t)last_tick_tsc;
    delay_at_last_interrupt = 0;
}

/* The microseconds since the last tick: one 32x32 multiply (a divide would
 * cost tens of cycles more, as 2.5.53's comment says). */
static uint32_t get_offset_tsc(void)
{
    uint32_t eax, edx;

    __asm__ volatile("rdtsc" : "=a"(eax), "=d"(edx));
#ifdef SMP_BIG_LOCK
    if ((int32_t)(eax - last_tsc_low) < 0)   /* this CPU's TSC behind CPU 0's */
        eax = last_tsc_low;
#endif
    eax -= last_tsc_low;
    __asm__("mull %2" : "=a"(eax), "=d"(edx) : "rm"(fast_gettimeoffset_quotient), "0"(eax));
    return delay_at_last_interrupt + edx;
}

static struct timer_opts timer_tsc = {
    .name = "tsc",
    .mark_offset = mark_offset_tsc,
    .get_offset = get_offset_tsc,
};
/* not const, not static: the calls through it stay indirect, as 2.5.53's
 * select_timer() left them */
struct timer_opts *timer = &timer_tsc;

/* update_wall_time: the ticks not yet in xtime */
static void update_wall_time(void)
{
    uint32_t ticks = jiffies_tsc - wall_jiffies;

    wall_jiffies += ticks;
    xtime.tv_nsec += ticks * USEC_PER_TICK * NSEC_PER_USEC;
    while (xtime.tv_nsec >= USEC_PER_SEC * NSEC_PER_USEC) {
        xtime.tv_nsec -= USEC_PER_SEC * NSEC_PER_USEC;
        xtime.tv_sec++;
    }
}

void time_init(void)
{
    uint32_t khz = boot->cpu_khz;
    if (khz <= 1000)
        panic("cpu_khz %u too low for the TSC clock", khz);
    cycles_per_tick = khz * (1000 / HZ);
    /* (1000 << 32) / khz, as one divide of EDX:EAX = 1000:0 */
    uint32_t remainder;
    __asm__("divl %4" : "=a"(fast_gettimeoffset_quotient), "=d"(remainder)
            : "0"(0u), "1"(1000u), "rm"(khz));
    (void)remainder;
    xtime.tv_sec = boot->epoch_sec;
    xtime.tv_nsec = boot->epoch_usec % USEC_PER_SEC * NSEC_PER_USEC;
    last_tick_tsc = rdtsc();
    last_tsc_low = (uint32_t)last_tick_tsc;
}

/* The timer interrupt's part (timer_interrupt's, with interrupts off):
 * the ticks due, into xtime. */
void timer_tsc_tick(void)
{
    write_lock(&xtime_lock);
    timer->mark_offset(rdtsc());
    update_wall_time();
    write_unlock(&xtime_lock);
}

static void vgtod_publish_ticks(uint32_t ticks);

uint64_t timer_tsc_last_tick(void)
{
    return last_tick_tsc;
}

/*
 * What ticks ticks of the timer interrupt, the last of which read the TSC
 * now, do to this clock (mark_offset, update_wall_time and, with
 * --vgettimeofday, the base's publication), in one step: they found
 * nothing else to do (timer.c, tick_nohz_idle). 64-bit arithmetic, as
 * the ticks can be many.
 */
void timer_tsc_skip(uint64_t now, uint32_t ticks)
{
    uint64_t steps = (now - last_tick_tsc) / cycles_per_tick;
    uint64_t ns;

    write_lock(&xtime_lock);
    last_tick_tsc += steps * cycles_per_tick;
    jiffies_tsc += (uint32_t)steps;
    last_tsc_low = (uint32_t)last_tick_tsc;
    delay_at_last_interrupt = 0;
    ns = (uint64_t)(uint32_t)(jiffies_tsc - wall_jiffies) * USEC_PER_TICK * NSEC_PER_USEC +
         xtime.tv_nsec;
    wall_jiffies = jiffies_tsc;
    xtime.tv_sec += (uint32_t)(ns / (USEC_PER_SEC * NSEC_PER_USEC));
    xtime.tv_nsec = (uint32_t)(ns % (USEC_PER_SEC * NSEC_PER_USEC));
    write_unlock(&xtime_lock);
    if (boot->flags & BOOT_FLAG_VGETTIMEOFDAY)
        vgtod_publish_ticks(ticks);
}

void do_gettimeofday(struct timeval *tv)
{
    unsigned long flags, usec, sec, lost;

    read_lock_irqsave(&xtime_lock, flags);
    usec = timer->get_offset();
    lost = jiffies_tsc - wall_jiffies;
    if (lost)
        usec += lost * USEC_PER_TICK;
    sec = xtime.tv_sec;
    usec += xtime.tv_nsec / NSEC_PER_USEC;
    read_unlock_irqrestore(&xtime_lock, flags);

    while (usec >= USEC_PER_SEC) {
        usec -= USEC_PER_SEC;
        sec++;
    }
    tv->tv_sec = sec;
    tv->tv_usec = usec;
}

/*
 * --vgettimeofday: the base at KV_VGTOD_DATA, read-only to user mode. With
 * CR0.WP set the kernel cannot write it either, and it cannot be given a
 * second, writable mapping (abi.h: a page is mapped only at itself), so the
 * writer clears WP for the few stores, with interrupts off. The sequence
 * count is odd while they happen.
 */
static void vgtod_publish(void)
{
    volatile struct vgtod_data *d = (volatile struct vgtod_data *)KV_VGTOD_DATA;
    uint32_t cr0;

    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 & ~X86_CR0_WP) : "memory");
    d->seq++;
    __asm__ volatile("" : : : "memory");
    d->sec = xtime.tv_sec;
    d->usec = xtime.tv_nsec / NSEC_PER_USEC;
    d->tsc_lo = (uint32_t)last_tick_tsc;
    d->tsc_hi = (uint32_t)(last_tick_tsc >> 32);
    __asm__ volatile("" : : : "memory");
    d->seq++;
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0) : "memory");
}

/* Ticks ticks published as one (tickless idle): their sequence steps. */
static void vgtod_publish_ticks(uint32_t ticks)
{
    volatile struct vgtod_data *d = (volatile struct vgtod_data *)KV_VGTOD_DATA;
    uint32_t cr0;

    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 & ~X86_CR0_WP) : "memory");
    d->seq += 2 * (ticks - 1);
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0) : "memory");
    vgtod_publish();
}

/* Boot: map the page, give it the clock's constants and its first base. */
void vgtod_init(void)
{
    volatile struct vgtod_data *d = (volatile struct vgtod_data *)KV_VGTOD_DATA;

    set_fixmap(KV_VGTOD_DATA, X86_PTE_PRESENT | X86_PTE_RW);
    d->quotient = fast_gettimeoffset_quotient;
    d->cycles_per_tick = cycles_per_tick;
    d->usec_per_tick = USEC_PER_TICK;
    set_fixmap(KV_VGTOD_DATA, PAGE_READONLY);
    vgtod_publish();
}

/* The timer interrupt (irq0_interrupt_vgtod): the ticks due, published. */
void vgtod_tick(void)
{
    timer_tsc_tick();
    vgtod_publish();
}
