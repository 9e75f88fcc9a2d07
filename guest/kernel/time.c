/*
 * The time system calls: gettimeofday, time, clock_gettime. Every clock
 * reads the TSC clock of timer_tsc.c.
 */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_gettimeofday(uint32_t utv, uint32_t utz, uint32_t a3,
                      uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t tv[2], tz[2] = { 0, 0 };

    if (utv) {
        do_gettimeofday(&tv[0], &tv[1]);
        if (copy_to_user(utv, tv, sizeof(tv)) != 0)
            return -EFAULT;
    }
    if (utz && copy_to_user(utz, tz, sizeof(tz)) != 0)
        return -EFAULT;
    return 0;
}

long sys_time(uint32_t ut, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t sec, usec;

    do_gettimeofday(&sec, &usec);
    if (ut && put_user_u32(sec, ut) != 0)
        return -EFAULT;
    return sec;
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
    uint32_t usec;

    if (id > CLOCK_TAI || id == CLOCK_SGI_CYCLE)
        return -EINVAL;
    do_gettimeofday(sec, &usec);
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
