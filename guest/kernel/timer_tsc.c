/*
 * Time of day from the TSC, the way Linux 2.5 did it: a timer tick every
 * 1/HZ s advances xtime and notes the TSC; gettimeofday adds the cycles
 * since the last tick, scaled to microseconds by one 32x32 multiply.
 *
 * There is no timer interrupt in this machine, so the ticks that would
 * have happened are applied when the clock is next read. The emulator's
 * TSC counts modeled cycles, so guest time is modeled time.
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
static void run_missed_ticks(uint64_t now)
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

