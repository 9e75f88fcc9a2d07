/*
 * busy [MS [PROF_US]]: a busy two-process load. The program forks; parent
 * and child each make getppid calls as fast as they can (through the
 * vsyscall page where the kernel offers it) until their own ITIMER_REAL of
 * MS modeled milliseconds (default 250) fires. Nothing blocks, so only the
 * timer tick takes the CPU from one to give it to the other, at the end of
 * a time slice (guest/kernel/timer.c): a tick that lands inside a sysenter
 * call leaves it with work pending, and the call returns through iret
 * instead of sysexit. With PROF_US, each process also has a profiling timer
 * of that period (ITIMER_PROF, an empty SIGPROF handler, as a sampling
 * profiler has): every tick that fires it inside a call leaves a signal
 * pending there too. emu compare prints how many of the sysenter calls left
 * through iret; each process prints how many calls it made (both make
 * progress).
 */
#include "mini/mini.h"

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

struct itimerval {
    struct timeval interval, value;
};

static volatile int expired;

static void on_alarm(int sig)
{
    (void)sig;
    expired = 1;
}

static void on_prof(int sig)
{
    (void)sig;
}

static long spin(long ms, long prof_us)
{
    struct k_sigaction ka = { (uint32_t)on_alarm, 0, 0, { 0, 0 } };
    struct k_sigaction kp = { (uint32_t)on_prof, 0, 0, { 0, 0 } };
    struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };
    struct itimerval prof = { { prof_us / 1000000, prof_us % 1000000 },
                              { prof_us / 1000000, prof_us % 1000000 } };
    long calls = 0;

    syscall6(SYS_rt_sigaction, SIGALRM, (long)&ka, 0, 8, 0, 0);
    if (prof_us > 0) {
        syscall6(SYS_rt_sigaction, SIGPROF, (long)&kp, 0, 8, 0, 0);
        syscall3(SYS_setitimer, 2 /* ITIMER_PROF */, &prof, 0);
    }
    syscall3(SYS_setitimer, 0 /* ITIMER_REAL */, &it, 0);
    while (!expired) {
        syscall0(SYS_getppid);
        calls++;
    }
    return calls;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 250;
    long prof_us = argc > 2 ? atol(argv[2]) : 0;
    int status;

    if (ms <= 0)
        ms = 1;
    long pid = syscall0(SYS_fork);
    if (pid < 0) {
        printf("busy: fork failed: %ld\n", pid);
        return 1;
    }
    long calls = spin(ms, prof_us);
    if (pid == 0) {
        printf("busy: child made %ld calls\n", calls);
        return 0;
    }
    syscall6(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);
    printf("busy: parent made %ld calls\n", calls);
    return 0;
}
