/*
 * The benchmark of the 2002 thread: time N back-to-back system calls with
 * the TSC and print cycles per call.
 *   syscall_loop getpid|getppid|gettimeofday N [vsyscall|int80]
 * "vsyscall" (the default) calls through AT_SYSINFO, so the kernel's choice
 * of int $0x80 or sysenter applies; "int80" uses the inline trap.
 */
#include "mini/mini.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        puts_fd(2, "usage: syscall_loop getpid|getppid|gettimeofday N [vsyscall|int80]\n");
        return 2;
    }
    long nr = !strcmp(argv[1], "getpid") ? SYS_getpid
            : !strcmp(argv[1], "getppid") ? SYS_getppid
            : !strcmp(argv[1], "gettimeofday") ? SYS_gettimeofday : -1;
    long n = atol(argv[2]);
    if (nr < 0 || n <= 0) {
        puts_fd(2, "syscall_loop: bad arguments\n");
        return 2;
    }
    mini_use_int80 = argc > 3 && !strcmp(argv[3], "int80");
    struct timeval tv;
    long first = syscall2(nr, &tv, 0), last = first;
    uint64_t start = rdtsc();
    for (long i = 0; i < n; i++)
        last = syscall2(nr, &tv, 0);
    uint64_t cycles = rdtsc() - start;
    uint64_t per_call_x100 = cycles * 100 / (uint64_t)n;
    printf("%s x %ld via %s: %lu.%02lu cycles/call (result %ld)\n", argv[1], n,
           mini_use_int80 || !mini_sysinfo ? "int $0x80" : "AT_SYSINFO",
           (unsigned long)(per_call_x100 / 100), (unsigned long)(per_call_x100 % 100),
           nr == SYS_gettimeofday ? (long)(last == 0) : last);
    (void)first;
    return 0;
}
