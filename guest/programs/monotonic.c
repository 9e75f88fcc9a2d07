/*
 * Is time monotonic while the program moves between CPUs?
 *   monotonic N [CPUS]
 * N times: pin itself to the next CPU (round robin over CPUS, default 2)
 * with sched_setaffinity, then read the clock twice, through the system
 * call (the kernel's do_gettimeofday) and through the vDSO's
 * __vdso_gettimeofday when there is one (--vgettimeofday). Each clock is
 * compared with its own previous reading, taken on the CPU before; prints
 * the largest backward step of each, in microseconds. With TSCs in step
 * neither goes back; with --tsc-skew the user-space clock goes back by
 * about the skew. Exit 3 if the kernel cannot migrate the program.
 */
#include "mini/mini.h"

typedef int (*gtod_fn)(struct timeval *, void *);

static int64_t usec_of(const struct timeval *tv)
{
    return (int64_t)(uint32_t)tv->tv_sec * 1000000 + (uint32_t)tv->tv_usec;
}

struct clock_check {
    const char *name;
    int64_t prev, worst;      /* the last reading; the largest step back */
    long steps;               /* readings earlier than the one before */
};

static void observe(struct clock_check *c, int64_t now)
{
    if (c->prev && now < c->prev) {
        c->steps++;
        if (c->prev - now > c->worst)
            c->worst = c->prev - now;
    }
    c->prev = now;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long cpus = argc > 2 ? atol(argv[2]) : 2;
    gtod_fn user = (gtod_fn)mini_vdso_sym("__vdso_gettimeofday");
    struct clock_check kernel = { "kernel gettimeofday", 0, 0, 0 };
    struct clock_check vdso = { "user-space gettimeofday", 0, 0, 0 };
    struct timeval tv;

    if (n <= 0 || cpus <= 0 || cpus > 32) {
        puts_fd(2, "usage: monotonic N [CPUS]\n");
        return 2;
    }
    for (long i = 0; i < n; i++) {
        uint32_t mask = 1u << (i % cpus);
        long r = syscall3(SYS_sched_setaffinity, 0, sizeof mask, &mask);
        if (r != 0) {
            printf("monotonic: sched_setaffinity to CPU %ld returned %ld: cannot migrate\n",
                   i % cpus, r);
            return 3;
        }
        if (syscall2(SYS_gettimeofday, &tv, 0) != 0)
            return 1;
        observe(&kernel, usec_of(&tv));
        if (user) {
            if (user(&tv, 0) != 0)
                return 1;
            observe(&vdso, usec_of(&tv));
        }
    }
    printf("monotonic: %ld migrations over %ld CPUs\n", n, cpus);
    printf("%s: largest backward step %lld us (%ld steps back)\n", kernel.name, kernel.worst,
           kernel.steps);
    if (user)
        printf("%s: largest backward step %lld us (%ld steps back)\n", vdso.name, vdso.worst,
               vdso.steps);
    else
        printf("%s: none (boot with --vgettimeofday)\n", vdso.name);
    return 0;
}
