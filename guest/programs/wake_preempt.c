/*
 * wake_preempt: a woken task of better priority takes the CPU from a CPU
 * hog (2.5.53's try_to_wake_up: resched_task when p->prio < curr->prio).
 * The parent spins in user mode for 800 modeled ms. The child sleeps
 * 300 ms, which earns it a priority bonus the spinning parent lacks, then
 * sleeps 1 ms five times and prints how late the latest wake-up ran. With
 * the preemption that is within a tick or two; a scheduler that lets the
 * hog finish its time slice first makes it tens of milliseconds.
 */
#include "mini/mini.h"

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

struct itimerval {
    struct timeval interval, value;
};

struct timespec32 {
    int32_t tv_sec, tv_nsec;
};

static volatile int expired;

static void on_alarm(int sig)
{
    (void)sig;
    expired = 1;
}

static void hog(long ms)
{
    struct k_sigaction ka = { (uint32_t)on_alarm, 0, 0, { 0, 0 } };
    struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

    syscall6(SYS_rt_sigaction, SIGALRM, (long)&ka, 0, 8, 0, 0);
    syscall3(SYS_setitimer, 0 /* ITIMER_REAL */, &it, 0);
    while (!expired)
        ;
}

static long usec_since(const struct timeval *t0)
{
    struct timeval t;
    gettimeofday(&t, 0);
    return (long)(t.tv_sec - t0->tv_sec) * 1000000 + (long)(t.tv_usec - t0->tv_usec);
}

static void sleep_ms(long ms)
{
    struct timespec32 ts = { (int32_t)(ms / 1000), (int32_t)(ms % 1000) * 1000000 };
    syscall2(SYS_nanosleep, &ts, 0);
}

static int sleeper(void)
{
    long worst = 0;

    sleep_ms(300);
    for (int i = 0; i < 5; i++) {
        struct timeval t0;
        gettimeofday(&t0, 0);
        sleep_ms(1);
        long late = usec_since(&t0) - 1000;
        if (late > worst)
            worst = late;
    }
    printf("wake_preempt: latest wake-up %ld us late\n", worst);
    return 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int status;
    long pid = syscall0(SYS_fork);

    if (pid < 0) {
        printf("wake_preempt: fork failed: %ld\n", pid);
        return 1;
    }
    if (pid == 0)
        return sleeper();
    hog(800);
    syscall6(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);
    printf("wake_preempt: the hog ended\n");
    return 0;
}
