/*
 * proc CASE [ARGS]: processes under the guest kernel, case by case
 * (tests/test_fork.c). Each case prints what it saw, one fact a line.
 *   fork          children get their own memory, their parent's pid, exit codes
 *   vfork         the child shares memory; the parent waits for it
 *   exec          fork + execve of /proc/self/exe with new argv and envp
 *   args ...      print argc, argv and the variable WHO (exec's target)
 *   script PATH   fork + execve of a "#!" script
 *   orphan        a grandchild outlives its parent and goes to pid 1
 *   zombie        an exited child stays until waited for
 *   waitid        waitid's siginfo, WNOHANG, ECHILD
 *   kill          a child blocked in read dies of SIGTERM
 *   segv          a child's NULL dereference is its SIGSEGV, not ours
 *   bomb          fork until EAGAIN; every child is reaped
 *   pgid          setpgid, getpgid, setsid, getsid
 *   shared        MAP_SHARED memory is shared across fork; MAP_PRIVATE is not
 *   exec-errors P...  execve each path and print the errno
 *   clone-thread  clone with CLONE_VM but no CLONE_VFORK: EINVAL
 *   spin          the parent reads a MAP_SHARED word until its child sets
 *                 it, with no system call: prints how often it looked
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define CLONE_VM 0x100

#define syscall4(nr, a, b, c, d) syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define syscall5(nr, a, b, c, d, e) \
    syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

static long sys_fork(void) { return syscall0(SYS_fork); }
static long getpid_(void) { return syscall0(SYS_getpid); }
static long getppid_(void) { return syscall0(SYS_getppid); }
static __attribute__((noreturn)) void exit_(int code)
{
    for (;;)
        syscall1(SYS_exit, code);
}

static long wait_for(long pid, int *status)
{
    return syscall4(SYS_wait4, pid, status, 0, 0);
}

static const char *decode(int status, char *buf)
{
    /* "exit N" or "signal N" */
    int n = (status & 0x7f) ? status & 0x7f : (status >> 8) & 0xff;
    const char *what = (status & 0x7f) ? "signal " : "exit ";
    char *o = buf;
    while (*what)
        *o++ = *what++;
    if (n >= 100)
        *o++ = (char)('0' + n / 100);
    if (n >= 10)
        *o++ = (char)('0' + n / 10 % 10);
    *o++ = (char)('0' + n % 10);
    *o = 0;
    return buf;
}

static int global = 1;

static int case_fork(void)
{
    char b[32];
    long parent = getpid_();
    for (int i = 0; i < 3; i++) {
        long pid = sys_fork();
        if (pid == 0) {
            global = 100 + i;
            exit_(getppid_() == parent ? 10 + i : 99);
        }
        if (pid < 0) {
            printf("fork: %ld\n", -pid);
            return 1;
        }
        int status = 0;
        long got = wait_for(pid, &status);
        printf("child %d: %s, waited %s\n", i, decode(status, b),
               got == pid ? "the right pid" : "another");
    }
    printf("parent still sees %d\n", global);
    int status;
    printf("no children left: %ld\n", wait_for(-1, &status));
    return 0;
}

/* vfork's child runs on the parent's stack until it exits: no call may
 * return in the child, so both system calls are made in line. */
static int case_vfork(void)
{
    char b[32];
    volatile int shared = 1;
    long pid;
    __asm__ volatile("int $0x80" : "=a"(pid) : "a"(SYS_vfork) : "memory");
    if (pid == 0) {
        shared = 2;
        __asm__ volatile("int $0x80" : : "a"(SYS_exit), "b"(7) : "memory");
    }
    int status;
    wait_for(pid, &status);
    printf("after vfork: %d, child %s\n", shared, decode(status, b));
    return 0;
}

static int case_exec(const char *self)
{
    char b[32];
    long pid = sys_fork();
    if (pid == 0) {
        char *argv[] = { "renamed", "args", "one", "two", NULL };
        char *envp[] = { "WHO=exec'd", NULL };
        long r = syscall3(SYS_execve, "/proc/self/exe", argv, envp);
        printf("execve: %ld\n", r);
        exit_(1);
    }
    int status;
    wait_for(pid, &status);
    printf("exec'd child: %s\n", decode(status, b));
    (void)self;
    return 0;
}

static int case_args(int argc, char **argv)
{
    printf("argc %d:", argc);
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    for (char **e = mini_environ; *e; e++)
        if (!strcmp(*e, "WHO=exec'd"))
            printf("env: %s\n", *e);
    return 3;
}

static int case_script(const char *path)
{
    char b[32];
    long pid = sys_fork();
    if (pid == 0) {
        char *argv[] = { "the-script", "x", NULL };
        char *envp[] = { NULL };
        long r = syscall3(SYS_execve, path, argv, envp);
        printf("execve: %ld\n", r);
        exit_(1);
    }
    int status;
    wait_for(pid, &status);
    printf("script: %s\n", decode(status, b));
    return 0;
}

static int case_orphan(void)
{
    int gone[2], report[2];
    long ppid = 0;
    char c;
    syscall1(SYS_pipe, gone);
    syscall1(SYS_pipe, report);
    long pid = sys_fork();
    if (pid == 0) {
        long grand = sys_fork();
        if (grand == 0) {
            /* wait until our parent is gone: the last writer of gone closes */
            syscall1(SYS_close, gone[1]);
            syscall3(SYS_read, gone[0], &c, 1);
            ppid = getppid_();
            syscall3(SYS_write, report[1], &ppid, sizeof ppid);
            exit_(0);
        }
        exit_(0);
    }
    int status;
    wait_for(pid, &status);
    syscall1(SYS_close, gone[1]);
    syscall3(SYS_read, report[0], &ppid, sizeof ppid);
    printf("the grandchild's parent is now %ld\n", ppid);
    return 0;
}

static int case_zombie(void)
{
    char b[32];
    long pid = sys_fork();
    if (pid == 0)
        exit_(5);
    syscall0(SYS_sched_yield);
    printf("kill 0 while a zombie: %ld\n", syscall2(SYS_kill, pid, 0));
    int status;
    printf("waited: %s\n", wait_for(pid, &status) == pid ? decode(status, b) : "no");
    printf("kill 0 after: %ld\n", syscall2(SYS_kill, pid, 0));
    return 0;
}

struct siginfo {
    int signo, err, code, pid, uid, status;
    int pad[26];
};

static int case_waitid(void)
{
    struct siginfo si;
    printf("no children: %ld\n", syscall5(SYS_waitid, P_ALL, 0, &si, WEXITED, 0));
    int fds[2];
    syscall1(SYS_pipe, fds);
    long pid = sys_fork();
    if (pid == 0) {
        char c;
        syscall3(SYS_read, fds[0], &c, 1);
        exit_(42);
    }
    memset(&si, 0x55, sizeof si);
    long r = syscall5(SYS_waitid, P_PID, pid, &si, WEXITED | WNOHANG, 0);
    printf("not yet: %ld, si_pid %d\n", r, si.pid);
    syscall3(SYS_write, fds[1], "x", 1);
    r = syscall5(SYS_waitid, P_PID, pid, &si, WEXITED, 0);
    printf("waitid: %ld signo %d code %d pid %s status %d\n", r, si.signo, si.code,
           si.pid == pid ? "right" : "wrong", si.status);
    return 0;
}

static int case_kill(void)
{
    char b[32];
    int fds[2];
    syscall1(SYS_pipe, fds);
    long pid = sys_fork();
    if (pid == 0) {
        char c;
        syscall3(SYS_read, fds[0], &c, 1);   /* never comes */
        exit_(0);
    }
    syscall0(SYS_sched_yield);                 /* let it block */
    printf("kill: %ld\n", syscall2(SYS_kill, pid, SIGTERM));
    int status;
    wait_for(pid, &status);
    printf("child: %s\n", decode(status, b));
    return 0;
}

static int case_segv(void)
{
    char b[32];
    long pid = sys_fork();
    if (pid == 0) {
        volatile int *p = 0;
        return *p;
    }
    int status;
    wait_for(pid, &status);
    printf("child: %s; parent goes on\n", decode(status, b));
    return 0;
}

static int case_bomb(void)
{
    int fds[2], n = 0, reaped = 0, status;
    long pid;
    syscall1(SYS_pipe, fds);
    for (;;) {
        pid = sys_fork();
        if (pid == 0) {
            char c;
            syscall1(SYS_close, fds[1]);
            syscall3(SYS_read, fds[0], &c, 1);  /* until the parent lets go */
            exit_(0);
        }
        if (pid < 0)
            break;
        n++;
    }
    printf("forked %d, then errno %ld\n", n, -pid);
    syscall1(SYS_close, fds[1]);
    while (wait_for(-1, &status) > 0)
        reaped++;
    printf("reaped %d\n", reaped);
    pid = sys_fork();
    if (pid == 0)
        exit_(0);
    printf("fork works again: %s\n", pid > 0 && wait_for(pid, &status) == pid ? "yes" : "no");
    return 0;
}

static int case_pgid(void)
{
    long me = getpid_();
    printf("pgrp %ld sid %ld (pid %ld)\n", syscall0(SYS_getpgrp), syscall1(SYS_getsid, 0),
           me);
    printf("setsid as group leader: %ld\n", syscall0(SYS_setsid));
    long pid = sys_fork();
    if (pid == 0) {
        long sid = syscall0(SYS_setsid);
        printf("child setsid: %s, pgid %s\n", sid == getpid_() ? "its pid" : "other",
               syscall1(SYS_getpgid, 0) == sid ? "the same" : "other");
        exit_(0);
    }
    int status;
    wait_for(pid, &status);
    pid = sys_fork();
    if (pid == 0) {
        char c;
        syscall3(SYS_read, 0, &c, 0);
        exit_(0);
    }
    printf("setpgid(child, child): %ld\n", syscall2(SYS_setpgid, pid, 0));
    printf("child's pgid is its pid: %s\n", syscall1(SYS_getpgid, pid) == pid ? "yes" : "no");
    printf("setpgid(0, 0) as session leader: %ld\n", syscall2(SYS_setpgid, 0, 0));
    printf("setpgid(1, 0), init: %ld\n", syscall2(SYS_setpgid, 1, 0));
    printf("kill(1, 0), init: %ld\n", syscall2(SYS_kill, 1, 0));
    wait_for(pid, &status);
    printf("getsid of a gone pid: %ld\n", syscall1(SYS_getsid, pid));
    return 0;
}

static int case_shared(void)
{
    char b[32];
    volatile int *shared = (volatile int *)syscall6(SYS_mmap2, 0, 8192, PROT_READ | PROT_WRITE,
                                                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile int *private = (volatile int *)syscall6(SYS_mmap2, 0, 4096,
                                                     PROT_READ | PROT_WRITE,
                                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    shared[0] = 1;
    private[0] = 1;
    long pid = sys_fork();
    if (pid == 0) {
        shared[0] = 2;
        shared[1024] = 3;     /* a page the parent never touched */
        private[0] = 2;
        exit_(0);
    }
    int status;
    wait_for(pid, &status);
    printf("shared %d %d, private %d, child %s\n", shared[0], shared[1024], private[0],
           decode(status, b));
    /* and back: the parent writes, a second child reads */
    shared[0] = 4;
    pid = sys_fork();
    if (pid == 0)
        exit_(shared[0]);
    wait_for(pid, &status);
    printf("second child saw %s\n", decode(status, b));
    return 0;
}

static int case_exec_errors(int n, char **paths)
{
    for (int i = 0; i < n; i++) {
        char *argv[] = { paths[i], NULL };
        char *envp[] = { NULL };
        printf("%s: %ld\n", paths[i], -syscall3(SYS_execve, paths[i], argv, envp));
    }
    return 0;
}

static int case_clone_thread(void)
{
    printf("clone(CLONE_VM|SIGCHLD): %ld\n",
           -syscall5(SYS_clone, CLONE_VM | SIGCHLD, 0, 0, 0, 0));
    return 0;
}

/* Only another CPU (--smp) or the timer's tick runs the child while the
 * parent looks. */
static int case_spin(void)
{
    volatile int *flag = (volatile int *)syscall6(SYS_mmap2, 0, 4096, PROT_READ | PROT_WRITE,
                                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    flag[0] = 0;
    long pid = sys_fork();
    if (pid == 0) {
        flag[0] = 1;
        exit_(0);
    }
    unsigned long looks = 0;
    while (!flag[0])
        looks++;
    int status;
    wait_for(pid, &status);
    printf("looked %lu times\n", looks);
    return 0;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (!strcmp(c, "fork"))
        return case_fork();
    if (!strcmp(c, "vfork"))
        return case_vfork();
    if (!strcmp(c, "exec"))
        return case_exec(argv[0]);
    if (!strcmp(c, "args"))
        return case_args(argc, argv);
    if (!strcmp(c, "script") && argc > 2)
        return case_script(argv[2]);
    if (!strcmp(c, "orphan"))
        return case_orphan();
    if (!strcmp(c, "zombie"))
        return case_zombie();
    if (!strcmp(c, "waitid"))
        return case_waitid();
    if (!strcmp(c, "kill"))
        return case_kill();
    if (!strcmp(c, "segv"))
        return case_segv();
    if (!strcmp(c, "bomb"))
        return case_bomb();
    if (!strcmp(c, "pgid"))
        return case_pgid();
    if (!strcmp(c, "shared"))
        return case_shared();
    if (!strcmp(c, "exec-errors"))
        return case_exec_errors(argc - 2, argv + 2);
    if (!strcmp(c, "clone-thread"))
        return case_clone_thread();
    if (!strcmp(c, "spin"))
        return case_spin();
    printf("proc: unknown case %s\n", c);
    return 2;
}
