/*
 * Each path of the guest kernel that the model measures, once, for the
 * reference traces traces/paths-*.txt (tests/test_traces.c pins their
 * instruction shape): getppid, gettimeofday, a 1-byte write to /dev/null,
 * rt_sigaction installing a handler, kill of itself with the handler run
 * and returned from through the vsyscall page's rt_sigreturn, and a byte
 * written into a pipe and read back.
 */
#include "mini/mini.h"
#include "linux_abi.h"


static volatile int caught;

static void on_usr1(int sig)
{
    caught += sig == SIGUSR1;
}

/* the kernel's struct sigaction, no SA_RESTORER: its frame returns
 * through the vsyscall page */
static struct { uint32_t handler, flags, restorer; uint64_t mask; } act;

int main(int argc, char **argv)
{
    struct timeval tv;
    (void)argc;
    (void)argv;
    int fds[2];
    char c = 'x';

    if (syscall0(SYS_getppid) < 0 || syscall2(SYS_gettimeofday, &tv, 0) != 0)
        return 1;
    long null = syscall2(SYS_open, "/dev/null", O_WRONLY);
    if (null < 0 || syscall3(SYS_write, null, &c, 1) != 1)
        return 2;
    act.handler = (uint32_t)on_usr1;
    if (syscall6(SYS_rt_sigaction, SIGUSR1, (long)&act, 0, 8, 0, 0) != 0)
        return 3;
    if (syscall2(SYS_kill, syscall0(SYS_getpid), SIGUSR1) != 0 || caught != 1)
        return 4;
    if (syscall1(SYS_pipe, fds) != 0 || syscall3(SYS_write, fds[1], &c, 1) != 1 ||
        syscall3(SYS_read, fds[0], &c, 1) != 1 || c != 'x')
        return 5;
    return 0;
}
