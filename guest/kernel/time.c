/*
 * The time system calls: gettimeofday, time, clock_gettime. Every clock
 * reads the TSC clock of timer_tsc.c.
 */
#include "kernel.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The time zone the kernel keeps: minutes west of Greenwich and the DST
 * kind, never set here. */
static const struct { int32_t minuteswest, dsttime; } sys_tz;

long sys_gettimeofday(uint32_t utv, uint32_t utz, uint32_t a3,
                      uint32_t a4, uint32_t a5, uint32_t a6)
{
    if (utv) {
        struct timeval ktv;
        do_gettimeofday(&ktv);
        if (copy_to_user(utv, &ktv, sizeof(ktv)))
            return -EFAULT;
    }
    if (utz) {
        if (copy_to_user(utz, &sys_tz, sizeof(sys_tz)))
            return -EFAULT;
    }
    return 0;
}

long sys_time(uint32_t ut, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct timeval tv;

    do_gettimeofday(&tv);
    if (ut && put_user_u32(tv.tv_sec, ut) != 0)
        return -EFAULT;
    return tv.tv_sec;
}

#define CLOCK_REALTIME          0
#define CLOCK_REALTIME_COARSE   5
#define CLOCK_REALTIME_ALARM    8
#define CLOCK_SGI_CYCLE         10
#define CLOCK_TAI               11

/* Every clock is derived from gettimeofday; the non-wall clocks count from
 * TSC zero, i.e. from the start of the machine. */
static int read_clock(uint32_t id, uint32_t *sec, uint32_t *nsec)
{
    struct timeval tv;
    uint32_t usec;

    if (id > CLOCK_TAI || id == CLOCK_SGI_CYCLE)
        return -EINVAL;
    do_gettimeofday(&tv);
    *sec = tv.tv_sec;
    usec = tv.tv_usec;
    if (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE &&
        id != CLOCK_REALTIME_ALARM && id != CLOCK_TAI) {
        if (usec < boot->epoch_usec) {
            usec += 1000000;
            *sec -= 1;
        }
        usec -= boot->epoch_usec;
        *sec -= boot->epoch_sec;
    }
    *nsec = usec * 1000;
    return 0;
}

long sys_clock_gettime(uint32_t id, uint32_t uts, uint32_t a3,
                       uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t ts[2];
    int err = read_clock(id, &ts[0], &ts[1]);

    if (err)
        return err;
    return copy_to_user(uts, ts, sizeof(ts));
}

long sys_clock_gettime64(uint32_t id, uint32_t uts, uint32_t a3,
                         uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t sec, nsec;
    int64_t ts[2];
    int err = read_clock(id, &sec, &nsec);

    if (err)
        return err;
    ts[0] = sec;
    ts[1] = nsec;
    return copy_to_user(uts, ts, sizeof(ts));
}

/* ---- sleeping ---- */

#define TIMER_ABSTIME 1
#define CLOCK_MONOTONIC 1
#define CLOCK_BOOTTIME  7
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID  3

static struct wait_queue sleepers = WAIT_QUEUE_INIT(sleepers, "the clock (a sleep)");

/* A user timespec (wide: the 64-bit one of the _time64 calls). */
int read_timespec(uint32_t uts, int wide, uint64_t *sec, uint32_t *nsec)
{
    if (wide) {
        int64_t ts[2];
        if (copy_from_user(ts, uts, sizeof(ts)))
            return -EFAULT;
        if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
            return -EINVAL;
        *sec = (uint64_t)ts[0];
        *nsec = (uint32_t)ts[1];
    } else {
        int32_t ts[2];
        if (copy_from_user(ts, uts, sizeof(ts)))
            return -EFAULT;
        if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
            return -EINVAL;
        *sec = (uint32_t)ts[0];
        *nsec = (uint32_t)ts[1];
    }
    return 0;
}

static int write_timespec(uint32_t uts, int wide, uint64_t cycles)
{
    uint32_t sec, nsec;

    cycles_to_ns(cycles, &sec, &nsec);
    if (wide) {
        int64_t ts[2] = { sec, nsec };
        return copy_to_user(uts, ts, sizeof(ts));
    }
    int32_t ts[2] = { (int32_t)sec, (int32_t)nsec };
    return copy_to_user(uts, ts, sizeof(ts));
}

/* Sleep until the TSC reaches deadline. A signal ends it early: the time
 * left goes to urem, and without a handler the call goes on through
 * restart_syscall (ERESTART_RESTARTBLOCK) to the same deadline. */
static long nanosleep_restart(struct restart_block *rb)
{
    int r;

    while ((r = sleep_until(&sleepers, rb->deadline)) == 1)
        ;
    if (r == 0)
        return 0;
    if (rb->urem) {
        uint64_t now = rdtsc();
        if (write_timespec(rb->urem, rb->wide, rb->deadline > now ? rb->deadline - now : 0))
            return -EFAULT;
    }
    rb->fn = nanosleep_restart;
    return -ERESTART_RESTARTBLOCK;
}

static long do_nanosleep(uint64_t deadline, uint32_t urem, int wide)
{
    struct restart_block *rb = &current->restart;

    rb->fn = nanosleep_restart;
    rb->deadline = deadline;
    rb->urem = urem;
    rb->wide = wide;
    return nanosleep_restart(rb);
}

static long interrupted(struct restart_block *rb)
{
    (void)rb;
    return -EINTR;
}

long sys_restart_syscall(uint32_t a1, uint32_t a2, uint32_t a3,
                         uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct restart_block *rb = &current->restart;
    long (*fn)(struct restart_block *) = rb->fn ? rb->fn : interrupted;

    rb->fn = interrupted;   /* a call restarts once, unless it asks again */
    return fn(rb);
}

long sys_nanosleep(uint32_t ureq, uint32_t urem, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint64_t sec;
    uint32_t nsec;
    long err = read_timespec(ureq, 0, &sec, &nsec);

    if (err)
        return err;
    return do_nanosleep(rdtsc() + ns_to_cycles(sec, nsec), urem, 0);
}

/* The TSC value at which the clock reads sec.nsec. */
static uint64_t clock_to_tsc(uint32_t id, uint64_t sec, uint32_t nsec)
{
    if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI ||
        id == CLOCK_REALTIME_ALARM) {
        uint64_t epoch_ns = (uint64_t)boot->epoch_usec * 1000;
        uint64_t t = sec * 1000000000ull + nsec;
        uint64_t e = (uint64_t)boot->epoch_sec * 1000000000ull + epoch_ns;
        if (t <= e)
            return 0;
        t -= e;
        return ns_to_cycles(t / 1000000000ull, (uint32_t)(t % 1000000000ull));
    }
    return ns_to_cycles(sec, nsec);
}

static long do_clock_nanosleep(uint32_t id, uint32_t flags, uint32_t ureq, uint32_t urem,
                               int wide)
{
    uint64_t sec, deadline;
    uint32_t nsec;
    long err;

    if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID)
        return -EOPNOTSUPP;
    if (id > CLOCK_TAI || id == CLOCK_SGI_CYCLE || (id > CLOCK_BOOTTIME && id != 8 &&
        id != CLOCK_TAI))
        return -EINVAL;
    if ((err = read_timespec(ureq, wide, &sec, &nsec)) != 0)
        return err;
    if (flags & TIMER_ABSTIME) {
        deadline = clock_to_tsc(id, sec, nsec);
        urem = 0;
    } else {
        deadline = rdtsc() + ns_to_cycles(sec, nsec);
    }
    err = do_nanosleep(deadline, urem, wide);
    /* an absolute sleep is restarted as it was */
    if (err == -ERESTART_RESTARTBLOCK && (flags & TIMER_ABSTIME))
        err = -ERESTARTNOHAND;
    return err;
}

long sys_clock_nanosleep(uint32_t id, uint32_t flags, uint32_t ureq, uint32_t urem,
                         uint32_t a5, uint32_t a6)
{
    return do_clock_nanosleep(id, flags, ureq, urem, 0);
}

long sys_clock_nanosleep_time64(uint32_t id, uint32_t flags, uint32_t ureq, uint32_t urem,
                                uint32_t a5, uint32_t a6)
{
    return do_clock_nanosleep(id, flags, ureq, urem, 1);
}
