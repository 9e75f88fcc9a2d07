/*
 * alarm, setitimer and getitimer (ITIMER_REAL is a TSC deadline that the
 * tick's run_timers checks; ITIMER_VIRTUAL and ITIMER_PROF count the ticks
 * that find the task in user mode, or in user or kernel mode), and times
 * and getrusage from the user and system time the tick samples, as Linux
 * 2.5 did.
 */
#include "kernel.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define ITIMER_REAL    0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF    2
#define RUSAGE_SELF     0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD   1

struct timeval32 { int32_t sec, usec; };
struct itimerval32 { struct timeval32 interval, value; };

static uint64_t tv_to_cycles(const struct timeval32 *tv)
{
    return ns_to_cycles((uint32_t)tv->sec, (uint32_t)tv->usec * 1000);
}

static struct timeval32 cycles_to_tv(uint64_t cycles)
{
    uint32_t sec, nsec;

    cycles_to_ns(cycles, &sec, &nsec);
    return (struct timeval32){ (int32_t)sec, (int32_t)(nsec / 1000) };
}

static void get_itimer(uint32_t which, struct itimerval32 *v)
{
    struct task_struct *me = current;
    uint64_t now = rdtsc();

    switch (which) {
    case ITIMER_REAL:
        v->value = cycles_to_tv(me->it_real_value > now ? me->it_real_value - now : 0);
        v->interval = cycles_to_tv(me->it_real_incr);
        break;
    case ITIMER_VIRTUAL:
        v->value = cycles_to_tv(me->it_virt_value);
        v->interval = cycles_to_tv(me->it_virt_incr);
        break;
    default:
        v->value = cycles_to_tv(me->it_prof_value);
        v->interval = cycles_to_tv(me->it_prof_incr);
        break;
    }
}

static void set_itimer(uint32_t which, const struct itimerval32 *v)
{
    struct task_struct *me = current;
    uint64_t value = tv_to_cycles(&v->value), incr = tv_to_cycles(&v->interval);

    switch (which) {
    case ITIMER_REAL:
        me->it_real_value = value ? rdtsc() + value : 0;
        me->it_real_incr = incr;
        if (value)
            arm_timer(me->it_real_value);
        break;
    case ITIMER_VIRTUAL:
        me->it_virt_value = value;
        me->it_virt_incr = incr;
        break;
    default:
        me->it_prof_value = value;
        me->it_prof_incr = incr;
        break;
    }
}

static int valid_tv(const struct timeval32 *tv)
{
    return tv->sec >= 0 && tv->usec >= 0 && tv->usec < 1000000;
}

long sys_setitimer(uint32_t which, uint32_t unew, uint32_t uold,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct itimerval32 v, old;

    if (which > ITIMER_PROF)
        return -EINVAL;
    if (unew) {
        if (copy_from_user(&v, unew, sizeof(v)))
            return -EFAULT;
        if (!valid_tv(&v.value) || !valid_tv(&v.interval))
            return -EINVAL;
    } else {
        memset(&v, 0, sizeof(v));
    }
    get_itimer(which, &old);
    set_itimer(which, &v);
    if (uold && copy_to_user(uold, &old, sizeof(old)))
        return -EFAULT;
    return 0;
}

long sys_getitimer(uint32_t which, uint32_t uval, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct itimerval32 v;

    if (which > ITIMER_PROF)
        return -EINVAL;
    get_itimer(which, &v);
    return copy_to_user(uval, &v, sizeof(v));
}

/* Seconds left of the old alarm, rounded as Linux rounds them. */
long sys_alarm(uint32_t seconds, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct itimerval32 v = { { 0, 0 }, { (int32_t)(seconds > 0x7fffffff ? 0x7fffffff : seconds),
                                         0 } }, old;

    get_itimer(ITIMER_REAL, &old);
    set_itimer(ITIMER_REAL, &v);
    if ((old.value.sec == 0 && old.value.usec) || old.value.usec >= 500000)
        old.value.sec++;
    return old.value.sec;
}

long sys_times(uint32_t ubuf, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *me = current;
    uint32_t tms[4] = {
        (uint32_t)clock_ticks(me->utime), (uint32_t)clock_ticks(me->stime),
        (uint32_t)clock_ticks(me->cutime), (uint32_t)clock_ticks(me->cstime),
    };

    if (ubuf && copy_to_user(ubuf, tms, sizeof(tms)))
        return -EFAULT;
    return (long)(uint32_t)clock_ticks(rdtsc());
}

/* struct rusage: utime, stime, then 14 counters (zero here). */
long sys_getrusage(uint32_t who, uint32_t uru, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *me = current;
    struct { struct timeval32 utime, stime; int32_t rest[14]; } ru;

    memset(&ru, 0, sizeof(ru));
    if ((int32_t)who == RUSAGE_SELF || (int32_t)who == RUSAGE_THREAD) {
        ru.utime = cycles_to_tv(me->utime);
        ru.stime = cycles_to_tv(me->stime);
    } else if ((int32_t)who == RUSAGE_CHILDREN) {
        ru.utime = cycles_to_tv(me->cutime);
        ru.stime = cycles_to_tv(me->cstime);
    } else {
        return -EINVAL;
    }
    return copy_to_user(uru, &ru, sizeof(ru));
}
