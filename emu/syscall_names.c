/* Names of the i386 Linux system calls, for traces and --strace. */
#include <stdio.h>
#include "syscalls.h"

struct name { uint32_t nr; const char *name; };

static const struct name names[] = {
    { 1, "exit" }, { 2, "fork" }, { 3, "read" }, { 4, "write" }, { 5, "open" },
    { 6, "close" }, { 7, "waitpid" }, { 11, "execve" }, { 12, "chdir" },
    { 13, "time" }, { 19, "lseek" }, { 20, "getpid" }, { 24, "getuid" },
    { 33, "access" }, { 37, "kill" }, { 41, "dup" }, { 42, "pipe" }, { 45, "brk" },
    { 47, "getgid" }, { 49, "geteuid" }, { 50, "getegid" }, { 54, "ioctl" },
    { 55, "fcntl" }, { 60, "umask" }, { 63, "dup2" }, { 64, "getppid" },
    { 78, "gettimeofday" }, { 85, "readlink" }, { 90, "mmap" }, { 91, "munmap" },
    { 106, "stat" }, { 107, "lstat" }, { 108, "fstat" }, { 122, "uname" }, { 125, "mprotect" },
    { 140, "_llseek" }, { 141, "getdents" }, { 146, "writev" }, { 145, "readv" },
    { 158, "sched_yield" }, { 162, "nanosleep" }, { 172, "prctl" }, { 174, "rt_sigaction" },
    { 175, "rt_sigprocmask" }, { 183, "getcwd" }, { 186, "sigaltstack" },
    { 191, "ugetrlimit" }, { 192, "mmap2" }, { 195, "stat64" }, { 196, "lstat64" },
    { 197, "fstat64" }, { 199, "getuid32" }, { 200, "getgid32" },
    { 201, "geteuid32" }, { 202, "getegid32" }, { 219, "madvise" },
    { 220, "getdents64" }, { 221, "fcntl64" }, { 224, "gettid" }, { 240, "futex" },
    { 243, "set_thread_area" }, { 244, "get_thread_area" }, { 252, "exit_group" },
    { 258, "set_tid_address" }, { 265, "clock_gettime" }, { 270, "tgkill" },
    { 295, "openat" }, { 300, "fstatat64" }, { 305, "readlinkat" }, { 307, "faccessat" },
    { 311, "set_robust_list" }, { 340, "prlimit64" }, { 355, "getrandom" }, { 383, "statx" },
    { 384, "arch_prctl" }, { 386, "rseq" }, { 403, "clock_gettime64" }, { 439, "faccessat2" },
    { 999, "sysemu_args6" },
};

const char *syscall_name(uint32_t nr)
{
    static char buf[32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].nr == nr)
            return names[i].name;
    snprintf(buf, sizeof buf, "syscall_%u", nr);
    return buf;
}
