/*
 * A fixed list of system calls for the --strace tests (tests/test_strace.c):
 *   strace_calls portable    calls whose arguments and results are the same
 *                            under emu and natively on Linux (buffers are
 *                            static, so their addresses are too), for
 *                            comparing the lines with Debian's strace
 *   strace_calls all         those, then calls whose results only the
 *                            emulator makes deterministic (clocks, uname,
 *                            a file of the --root tree given as argv[2])
 * Exits with status 3.
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define SIG_SETMASK_HOW 2
#define MAPPED 0x20000000
#define TCGETS 0x5401
#define NOT_A_CALL 5000

static char buf[512];   /* uname writes 390 bytes */
static uint64_t sigs;
static uint64_t oldsigs;
static struct { uint32_t handler, flags, restorer; uint64_t mask; } act, oldact;
static struct { const char *base; uint32_t len; } iov[2] = { { "ab", 2 }, { "c\n", 2 } };

static void portable(void)
{
    syscall3(SYS_write, 1, "hello, strace\n", 14);
    syscall3(SYS_write, 1, "\0\x01" "2\t\"\\\x7f\xff", 8);
    syscall2(SYS_open, "/nonexistent/file", 0);
    syscall3(SYS_openat, AT_FDCWD, "/nonexistent", O_DIRECTORY);
    syscall1(SYS_close, 99);
    syscall3(SYS_read, 99, buf, 16);
    syscall3(SYS_lseek, 99, 10, SEEK_END);
    syscall6(SYS__llseek, 99, 0, 0, (long)buf, SEEK_CUR, 0);
    syscall2(SYS_access, "/nonexistent", R_OK | W_OK);
    syscall3(SYS_readlink, "/nonexistent", buf, 64);
    syscall6(SYS_mmap2, MAPPED, 8192, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
    syscall3(SYS_mprotect, MAPPED, 4096, PROT_READ);
    syscall2(SYS_munmap, MAPPED, 8192);
    syscall2(SYS_clock_gettime, 123, buf);
    syscall3(SYS_writev, 1, iov, 2);
    sigs = (1ull << (10 - 1)) | (1ull << (15 - 1));   /* SIGUSR1, SIGTERM */
    syscall6(SYS_rt_sigprocmask, SIG_SETMASK_HOW, (long)&sigs, 0, 8, 0, 0);
    sigs = 0;
    syscall6(SYS_rt_sigprocmask, SIG_SETMASK_HOW, (long)&sigs, (long)&oldsigs, 8, 0, 0);
    act.handler = 1;                                   /* SIG_IGN */
    syscall6(SYS_rt_sigaction, 10, (long)&act, 0, 8, 0, 0);
    syscall6(SYS_rt_sigaction, 10, 0, (long)&oldact, 8, 0, 0);
    syscall3(SYS_ioctl, 99, TCGETS, buf);
    syscall0(SYS_sched_yield);
    syscall6(NOT_A_CALL, 1, 2, 3, 4, 5, 6);
}

static void emulated(const char *file)
{
    syscall2(SYS_stat64, file, buf);
    syscall6(SYS_openat, AT_FDCWD, (long)"/new-file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644,
             0, 0);
    syscall2(SYS_clock_gettime, 1, buf);
    syscall2(SYS_gettimeofday, buf, 0);
    syscall1(SYS_time, 0);
    syscall1(SYS_uname, buf);
    syscall2(SYS_fcntl64, 1, F_GETFD);
    syscall1(SYS_brk, 0);
}

int main(int argc, char **argv)
{
    portable();
    if (argc > 2 && !strcmp(argv[1], "all"))
        emulated(argv[2]);
    return 3;
}
