/*
 * slices: two CPU hogs share the CPU a time slice at a time. Parent and
 * child each read the clock in a loop for MS modeled milliseconds of
 * their own running (default 500) and print the longest time the other
 * held the CPU: a nice-0 task's whole slice, 151 ms in 2.5.53 (10 ms plus
 * 290 ms * 19/39), after which it waits in the expired array until the
 * other's slice ends too.
 */
#include "mini/mini.h"

static long usec(void)
{
    struct timeval t;
    gettimeofday(&t, 0);
    return (long)t.tv_sec * 1000000 + (long)t.tv_usec;
}

/* Run for ms of this process's own time; the longest gap, in us. */
static long hog(long ms)
{
    long last = usec(), ran = 0, longest = 0;

    while (ran < ms * 1000) {
        long now = usec(), step = now - last;
        if (step > 1000) {
            if (step > longest)
                longest = step;
        } else {
            ran += step;
        }
        last = now;
    }
    return longest;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 500;
    int status;
    long pid = syscall0(SYS_fork);

    if (pid < 0) {
        printf("slices: fork failed: %ld\n", pid);
        return 1;
    }
    long longest = hog(ms);
    if (pid == 0) {
        printf("slices: the child waited at most %ld ms\n", (longest + 500) / 1000);
        return 0;
    }
    syscall6(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);
    printf("slices: the parent waited at most %ld ms\n", (longest + 500) / 1000);
    return 0;
}
