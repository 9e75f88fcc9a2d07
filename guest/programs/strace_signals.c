/*
 * Signals for the --strace tests (tests/test_strace.c), compared with
 * Debian's strace of the same binary (traces/strace/strace_signals-handled.txt):
 *   a SIGUSR1 the program sends itself, handled (kill's own result, the
 *   signal's line, the handler's call, rt_sigreturn);
 *   a pause() that SIGALRM interrupts (ERESTARTNOHAND, then EINTR);
 *   a read of an empty pipe that SIGALRM interrupts under SA_RESTART
 *   (ERESTARTSYS, restarted; the handler writes the byte it then reads);
 *   a child made by clone that exits with status 5, waited for with
 *   SIGCHLD blocked, whose SIGCHLD comes when it is unblocked.
 * Exits with status 4.
 */
#include "mini/mini.h"

#define SA_SIGINFO 4
#define SA_RESTORER 0x04000000
#define SA_RESTART 0x10000000
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1

static int out_fd = 1;
static int fds[2];
static char byte;
static int status;
static uint64_t chld = 1ull << (SIGCHLD - 1);
static struct { uint32_t handler, flags, restorer; uint64_t mask; } act;

void restore_rt(void);
__asm__(".text\n"
        "restore_rt:\n"
        "    movl $173, %eax\n"
        "    int $0x80\n");

static void handler(int sig)
{
    (void)sig;
    mini_int80(SYS_write, out_fd, (long)"x", 1, 0, 0, 0);
}

static void handle(int sig, uint32_t flags)
{
    act.handler = (uint32_t)handler;
    act.flags = flags | SA_SIGINFO | SA_RESTORER;
    act.restorer = (uint32_t)restore_rt;
    syscall6(SYS_rt_sigaction, sig, (long)&act, 0, 8, 0, 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    handle(SIGUSR1, 0);
    long pid = syscall0(SYS_getpid);
    syscall2(SYS_kill, pid, SIGUSR1);
    handle(SIGALRM, 0);
    syscall1(SYS_alarm, 1);
    syscall0(SYS_pause);
    syscall2(SYS_pipe2, fds, 0);
    out_fd = fds[1];
    handle(SIGALRM, SA_RESTART);
    syscall1(SYS_alarm, 1);
    syscall3(SYS_read, fds[0], &byte, 1);
    out_fd = 1;
    handle(SIGCHLD, 0);
    syscall6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&chld, 0, 8, 0, 0);
    if (syscall6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0) == 0)
        syscall1(SYS_exit_group, 5);
    syscall6(SYS_wait4, -1, (long)&status, 0, 0, 0, 0);
    syscall6(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&chld, 0, 8, 0, 0);
    return 4;
}
