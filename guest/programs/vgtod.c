/*
 * The user-space gettimeofday of --vgettimeofday (guest/vsyscall/
 * vgettimeofday.S), from a program's side.
 *   vgtod compare N   N gettimeofday calls each way: inline int $0x80,
 *                     through AT_SYSINFO, and the vDSO's __vdso_gettimeofday
 *                     (emu compare --syscall gettimeofday: a row per way)
 *   vgtod check N     N samples, each just before a timer tick (check()):
 *                     user-space call, then the system call, each
 *                     between two rdtsc; both must be the time
 *                     the published base gives for a TSC between those two
 *                     reads (the exact value when both reads give the same
 *                     microsecond), and never go backwards
 *   vgtod loop N      N calls of libc-style gettimeofday (the vDSO's when
 *                     it has one, else the system call), checking order
 *   vgtod sym         which vDSO symbols there are, and where
 *   vgtod tz          __vdso_gettimeofday with a time zone (the system call)
 *   vgtod write       store into the time-base page (must be SIGSEGV)
 */
#include "mini/mini.h"

/* the page below the vsyscall page (guest/kernel/variant.h's KV_VGTOD_DATA),
 * wherever the kernel variant has that */
#define VGTOD_DATA ((mini_sysinfo & ~0xfffu) - 0x1000u)
struct base { uint32_t seq, sec, usec, tsc_lo, tsc_hi, quotient, cycles_per_tick, usec_per_tick; };

typedef int (*gtod_fn)(struct timeval *, void *);

static long gtod_int80(struct timeval *tv)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "0"(SYS_gettimeofday), "b"(tv), "c"(0)
                     : "memory", "cc");
    return ret;
}

static long gtod_page(struct timeval *tv)
{
    long ret;
    __asm__ volatile("call *%[entry]" : "=a"(ret)
                     : "0"(SYS_gettimeofday), "b"(tv), "c"(0), [entry] "m"(mini_sysinfo)
                     : "memory", "cc");
    return ret;
}

/* A consistent copy of the page. */
static void read_base(struct base *b)
{
    volatile struct base *d = (volatile struct base *)VGTOD_DATA;
    uint32_t seq;

    do {
        seq = d->seq;
        b->sec = d->sec;
        b->usec = d->usec;
        b->tsc_lo = d->tsc_lo;
        b->tsc_hi = d->tsc_hi;
        b->quotient = d->quotient;
        b->cycles_per_tick = d->cycles_per_tick;
        b->usec_per_tick = d->usec_per_tick;
    } while ((seq & 1) || seq != d->seq);
}

/* The time the kernel's do_gettimeofday gives at TSC t from base b (the
 * tick the last timer interrupt applied): in microseconds. */
static uint64_t time_at(const struct base *b, uint64_t t)
{
    uint64_t delta = t - (((uint64_t)b->tsc_hi << 32) | b->tsc_lo);
    uint64_t usec = (uint64_t)b->sec * 1000000 + b->usec;

    return usec + (((uint64_t)(uint32_t)delta * b->quotient) >> 32);
}

static uint64_t usec_of(const struct timeval *tv)
{
    return (uint64_t)(uint32_t)tv->tv_sec * 1000000 + (uint32_t)tv->tv_usec;
}

/* Wait for the next timer tick (the kernel bumps the sequence count at
 * every one): a TSC at most two turns of the loop before it (the last read
 * of the turn before the one that saw the count change: the tick came after
 * it, and the handler's own time is not in it). */
static uint64_t next_tick(void)
{
    volatile uint32_t *seq = (volatile uint32_t *)VGTOD_DATA;
    uint32_t s0 = *seq;
    uint64_t t = rdtsc(), before;

    do {
        before = t;
        t = rdtsc();
    } while (*seq == s0);
    return before;
}

/*
 * Each sample starts a little before a tick is due: the tick period is
 * measured over 8 ticks, and sample i waits from one tick until
 * (i * 6) % 1200 cycles before the next, so over the samples the tick
 * lands at every point of the user-space call, the reads of the sequence
 * lock included.
 */
static int check(gtod_fn user, long n)
{
    volatile uint32_t *seq = (volatile uint32_t *)VGTOD_DATA;
    long samples = 0, exact = 0, ticks = 0;
    uint64_t prev = 0;
    struct base b, after;
    uint64_t first = next_tick(), period;

    for (int k = 0; k < 8; k++)
        period = next_tick();
    period = (period - first) / 8;

    for (long i = 0; i < n; i++) {
        struct timeval u, s;
        read_base(&b);
        uint64_t due = next_tick() + period - (uint64_t)(i * 6 % 1200);
        while (rdtsc() < due)
            ;
        uint64_t t0 = rdtsc();
        uint32_t seq0 = *seq;
        int ru = user(&u, 0);
        uint32_t seq1 = *seq;
        uint64_t t1 = rdtsc();
        long rs = gtod_page(&s);
        uint64_t t2 = rdtsc();
        /* a tick between the reads of the base moves the base forward:
         * the time it gives is never less than the older base's */
        read_base(&after);
        uint64_t lo_u = time_at(&b, t0), hi_u = time_at(&after, t1);
        uint64_t lo_s = time_at(&b, t1), hi_s = time_at(&after, t2);
        uint64_t tu = usec_of(&u), ts = usec_of(&s);

        if (ru != 0 || rs != 0 || tu < lo_u || tu > hi_u || ts < lo_s || ts > hi_s ||
            tu < prev || ts < tu) {
            printf("check: sample %ld: user %llu in [%llu, %llu] (ret %d), system call %llu "
                   "in [%llu, %llu] (ret %ld), previous %llu\n", i, tu, lo_u, hi_u, ru, ts,
                   lo_s, hi_s, rs, prev);
            return 1;
        }
        prev = ts;
        samples++;
        exact += (lo_u == hi_u) + (lo_s == hi_s);
        ticks += seq0 != seq1;
    }
    printf("check: %ld samples, %ld reads exact to the microsecond, %ld ticks inside "
           "user-space calls, no disagreement\n", samples, exact, ticks);
    printf("check: tick period %llu cycles\n", period);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long n = argc > 2 ? atol(argv[2]) : 1000;
    gtod_fn user = (gtod_fn)mini_vdso_sym("__vdso_gettimeofday");
    struct timeval tv;

    if (!strcmp(mode, "sym")) {
        static const char *const names[] = { "__kernel_vsyscall", "__kernel_sigreturn",
            "__kernel_rt_sigreturn", "__vdso_gettimeofday", "__vdso_clock_gettime" };
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
            void *p = mini_vdso_sym(names[i]);
            if (p)
                printf("%s at 0x%x\n", names[i], (unsigned)(uint32_t)p);
            else
                printf("%s absent\n", names[i]);
        }
        return 0;
    }
    if (!strcmp(mode, "write")) {
        *(volatile uint32_t *)VGTOD_DATA = 1;
        printf("write: the time base took a store from user mode\n");
        return 1;
    }
    if (!strcmp(mode, "tz") && user) {
        struct { int minuteswest, dsttime; } tz = { 99, 99 };
        int r = user(&tv, &tz);
        printf("tz: ret %d minuteswest %d dsttime %d\n", r, tz.minuteswest, tz.dsttime);
        return r != 0;
    }
    if (!strcmp(mode, "check")) {
        if (!user) {
            printf("check: no __vdso_gettimeofday (boot with --vgettimeofday)\n");
            return 2;
        }
        return check(user, n);
    }
    if (!strcmp(mode, "loop")) {
        uint64_t prev = 0;
        for (long i = 0; i < n; i++) {
            if (gettimeofday(&tv, 0) != 0 || usec_of(&tv) < prev) {
                printf("loop: call %ld failed or went backwards\n", i);
                return 1;
            }
            prev = usec_of(&tv);
        }
        printf("loop: %ld calls through %s, time never went backwards\n", n,
               user ? "__vdso_gettimeofday" : "the system call");
        return 0;
    }
    if (!strcmp(mode, "compare") && n > 0) {
        for (long i = 0; i < n; i++)
            gtod_int80(&tv);
        for (long i = 0; i < n; i++)
            gtod_page(&tv);
        for (long i = 0; user && i < n; i++)
            user(&tv, 0);
        return 0;
    }
    puts_fd(2, "usage: vgtod compare|check|loop N | sym | tz | write\n");
    return 2;
}
