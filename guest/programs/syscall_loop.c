/*
 * The benchmark of the December 2002 thread: read the TSC, make N
 * back-to-back system calls, read it again, print cycles per iteration.
 *   syscall_loop getpid|getppid|gettimeofday N [vsyscall|int80|libc|mixed]
 * "vsyscall" (the default) calls through AT_SYSINFO, so the kernel's choice
 * of int $0x80 or sysenter applies; "int80" traps inline, as Linus's test
 * program did for the old path; "libc" calls an out-of-line int $0x80
 * wrapper shaped like glibc's, as lmbench's lat_syscall does; "mixed" makes
 * N inline int $0x80 calls and then one through AT_SYSINFO.
 * Only EAX changes across any of these calls.
 */
#include "mini/mini.h"

static inline long call_vsyscall(long nr, long a, long b)
{
    long ret;
    __asm__ volatile("call *%[entry]"
                     : "=a"(ret)
                     : "0"(nr), "b"(a), "c"(b), [entry] "m"(mini_sysinfo)
                     : "memory", "cc");
    return ret;
}

static inline long call_int80(long nr, long a, long b)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "0"(nr), "b"(a), "c"(b) : "memory", "cc");
    return ret;
}

/* glibc's i386 syscall template: load, trap, check for -errno, return. */
__attribute__((noinline)) static long libc_style(long nr, long a, long b)
{
    long ret;
    __asm__ volatile("int $0x80\n\t"
                     "cmpl $-4095, %%eax\n\t"
                     "jae 1f\n\t"
                     "1:"
                     : "=a"(ret) : "0"(nr), "b"(a), "c"(b) : "memory", "cc");
    return ret;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        puts_fd(2, "usage: syscall_loop getpid|getppid|gettimeofday N [vsyscall|int80|libc|mixed]\n");
        return 2;
    }
    long nr = !strcmp(argv[1], "getpid") ? SYS_getpid
            : !strcmp(argv[1], "getppid") ? SYS_getppid
            : !strcmp(argv[1], "gettimeofday") ? SYS_gettimeofday : -1;
    long n = atol(argv[2]);
    int inline_int80 = argc > 3 && !strcmp(argv[3], "int80");
    int libc = argc > 3 && !strcmp(argv[3], "libc");
    int mixed = argc > 3 && !strcmp(argv[3], "mixed");
    if (nr < 0 || n <= 0 ||
        (argc > 3 && !inline_int80 && !libc && !mixed && strcmp(argv[3], "vsyscall"))) {
        puts_fd(2, "syscall_loop: bad arguments\n");
        return 2;
    }
    if (!mini_sysinfo)
        inline_int80 = 1;
    struct timeval tv;
    long result = 0;
    uint64_t start = rdtsc();
    if (libc)
        for (long i = 0; i < n; i++)
            result = libc_style(nr, (long)&tv, 0);
    else if (inline_int80 || mixed)
        for (long i = 0; i < n; i++)
            result = call_int80(nr, (long)&tv, 0);
    else
        for (long i = 0; i < n; i++)
            result = call_vsyscall(nr, (long)&tv, 0);
    uint64_t cycles = rdtsc() - start;
    if (mixed && mini_sysinfo)
        result = call_vsyscall(nr, (long)&tv, 0);
    uint64_t per_call_x100 = cycles * 100 / (uint64_t)n;
    /* per iteration: the call and the loop around it (README, "Cycles per call") */
    printf("%s x %ld via %s: %lu.%02lu cycles per iteration, by rdtsc around the loop "
           "(last result %ld)\n", argv[1], n,
           libc ? "a libc-style int $0x80 wrapper" : mixed ? "int $0x80, then AT_SYSINFO once"
           : inline_int80 ? "int $0x80" : "AT_SYSINFO",
           (unsigned long)(per_call_x100 / 100), (unsigned long)(per_call_x100 % 100), result);
    return 0;
}
