/*
 * Time of day from the TSC, the way Linux 2.5 did it: a tick every 1/HZ s
 * advances xtime and notes the TSC; gettimeofday adds the cycles since the
 * last tick, scaled to microseconds by one 32x32 multiply.
 *
 * The ticks of this clock are not the timer interrupt's (timer.c, HZ 1000):
 * they lie on a fixed lattice of TSC values, every 1/HZ s from boot, and
 * the ones due are applied when the clock is next read (run_missed_ticks),
 * so the time read depends only on the TSC, never on when interrupts came.
 * With --vgettimeofday the timer interrupt also applies them and publishes
 * the result for the vsyscall page's user-space clock (vgtod_tick). The
 * emulator's TSC counts modeled cycles, so guest time is modeled time.
 */
#include "kernel.h"

#define HZ 100
#define USEC_PER_SEC 1000000u
#define USEC_PER_TICK (USEC_PER_SEC / HZ)

static struct { uint32_t sec, usec; } xtime;
static uint64_t last_tick_tsc;
static uint32_t cycles_per_tick;
/* 2^32 / (cycles per microsecond): usec = (cycles * quotient) >> 32 */
static uint32_t fast_gettimeoffset_quotient;

static inline uint32_t local_irq_save(void)
{
    uint32_t flags;
    __asm__ volatile("pushfl; popl %0; cli" : "=r"(flags) : : "memory");
    return flags;
}

static inline void local_irq_restore(uint32_t flags)
{
    __asm__ volatile("pushl %0; popfl" : : "r"(flags) : "memory", "cc");
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
    xtime.sec = boot->epoch_sec;
    xtime.usec = boot->epoch_usec % USEC_PER_SEC;
    last_tick_tsc = rdtsc();
}

/* The timer interrupts that would have run by now. */
static inline __attribute__((always_inline)) void run_missed_ticks(uint64_t now)
{
    while (now - last_tick_tsc >= cycles_per_tick) {
        last_tick_tsc += cycles_per_tick;
        xtime.usec += USEC_PER_TICK;
        if (xtime.usec >= USEC_PER_SEC) {
            xtime.usec -= USEC_PER_SEC;
            xtime.sec++;
        }
    }
}

/*
 * --vgettimeofday: the base at VGTOD_DATA, read-only to user mode. With
 * CR0.WP set the kernel cannot write it either, and it cannot be given a
 * second, writable mapping (abi.h: a page is mapped only at itself), so the
 * writer clears WP for the few stores, with interrupts off. The sequence
 * count is odd while they happen.
 */
static void vgtod_publish(void)
{
    volatile struct vgtod_data *d = (volatile struct vgtod_data *)VGTOD_DATA;
    uint32_t cr0;

    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 & ~X86_CR0_WP) : "memory");
    d->seq++;
    __asm__ volatile("" : : : "memory");
    d->sec = xtime.sec;
    d->usec = xtime.usec;
    d->tsc_lo = (uint32_t)last_tick_tsc;
    d->tsc_hi = (uint32_t)(last_tick_tsc >> 32);
    __asm__ volatile("" : : : "memory");
    d->seq++;
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0) : "memory");
}

/* Boot: map the page, give it the clock's constants and its first base. */
void vgtod_init(void)
{
    volatile struct vgtod_data *d = (volatile struct vgtod_data *)VGTOD_DATA;

    set_fixmap(VGTOD_DATA, X86_PTE_PRESENT | X86_PTE_RW);
    d->quotient = fast_gettimeoffset_quotient;
    d->cycles_per_tick = cycles_per_tick;
    d->usec_per_tick = USEC_PER_TICK;
    set_fixmap(VGTOD_DATA, PAGE_READONLY);
    vgtod_publish();
}

/* The timer interrupt (irq0_interrupt_vgtod): the ticks due, published. */
void vgtod_tick(void)
{
    uint64_t now = rdtsc();
#ifdef CONFIG_SMP
    if (now < last_tick_tsc)   /* another CPU's TSC ahead moved it (do_gettimeofday) */
        now = last_tick_tsc;
#endif
    run_missed_ticks(now);
    vgtod_publish();
}

static uint32_t do_fast_gettimeoffset(uint64_t now)
{
    uint32_t delta = (uint32_t)now - (uint32_t)last_tick_tsc;
    uint32_t usec, lo;
    __asm__("mull %3" : "=a"(lo), "=d"(usec)
            : "0"(delta), "rm"(fast_gettimeoffset_quotient));
    (void)lo;
    return usec;
}

void do_gettimeofday(uint32_t *sec, uint32_t *usec)
{
    uint32_t flags = local_irq_save();
    uint64_t now = rdtsc();
#ifdef CONFIG_SMP
    /* The ticks noted CPU 0's TSC. This CPU's may be behind it (TSCs out of
     * step, --tsc-skew): that counts as no cycles since the last tick, as
     * in the user-space clock, not as 2^64 of them. */
    if (now < last_tick_tsc)
        now = last_tick_tsc;
#endif
    run_missed_ticks(now);
    uint32_t u = do_fast_gettimeoffset(now) + xtime.usec;
    uint32_t s = xtime.sec;
    local_irq_restore(flags);

    while (u >= USEC_PER_SEC) {
        u -= USEC_PER_SEC;
        s++;
    }
    *sec = s;
    *usec = u;
}

