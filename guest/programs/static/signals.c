/*
 * signals: what a libc program sees of signal delivery, printed so that a
 * run under emu can be compared line for line with the same binary run
 * natively (tests/test_signals.c). No addresses are printed, only whether
 * each one is what it must be.
 *
 *   segv      SIGSEGV from a bad pointer, SA_SIGINFO, siglongjmp out
 *   fpe       SIGFPE from a divide by zero, siglongjmp out
 *   ill       SIGILL from ud2; the handler moves EIP past it in the ucontext
 *   kill      SIGUSR1 from kill(): si_code SI_USER, si_pid the sender
 *   mask      a blocked signal stays pending until unblocked
 *   resethand SA_RESETHAND: the second SIGUSR2 takes the default (ignored here: SIG_IGN)
 *   altstack  SA_ONSTACK runs the handler on the sigaltstack
 *   chld      SIGCHLD with the child's pid and status
 *   suspend   sigsuspend returns -1 EINTR after the handler ran
 *   restart   SA_RESTART: a read on a pipe interrupted by SIGALRM from a
 *             child goes on; without it, EINTR
 *   nested    a handler interrupted by another signal
 *   fpu       the x87 control word survives a handler that uses the FPU
 *   queue     a real-time signal sent three times while blocked is caught
 *             three times; SIGUSR2 sent twice, once
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf jb;
static volatile sig_atomic_t hits;
static volatile int last_code;
static volatile uintptr_t last_addr;
static volatile pid_t last_pid;
static volatile int last_status;
static volatile int on_alt;
static char *alt_base;
static size_t alt_size = 65536;

static void jump_out(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    hits++;
    last_code = si->si_code;
    last_addr = (uintptr_t)si->si_addr;
    siglongjmp(jb, sig);
}

static void catch_one(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static volatile uintptr_t bad_address = 0x10;

static void t_segv(void)
{
    volatile int *bad = (volatile int *)bad_address;
    catch_one(SIGSEGV, jump_out, 0);
    hits = 0;
    int r = sigsetjmp(jb, 1);
    if (r == 0) {
        *bad = 1;
        printf("segv: no fault\n");
        return;
    }
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("segv: sig %d hits %d code %s addr %s, SIGSEGV unblocked after siglongjmp %s\n",
           r, (int)hits, last_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other",
           last_addr == 0x10 ? "ok" : "wrong", sigismember(&now, SIGSEGV) ? "no" : "yes");
}

static volatile int zero;

static void t_fpe(void)
{
    catch_one(SIGFPE, jump_out, 0);
    int r = sigsetjmp(jb, 1);
    if (r == 0) {
        volatile int x = 7 / zero;
        (void)x;
        printf("fpe: no fault\n");
        return;
    }
    printf("fpe: sig %d code %s addr %s\n", r, last_code == FPE_INTDIV ? "FPE_INTDIV" : "other",
           last_addr != 0 ? "set" : "zero");
}

extern char ud2_at[], ud2_after[];
static void skip_ud2(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    (void)sig;
    hits++;
    last_code = si->si_code;
    last_addr = (uintptr_t)si->si_addr;
    uc->uc_mcontext.gregs[REG_EIP] += 2;
}

static void t_ill(void)
{
    hits = 0;
    catch_one(SIGILL, skip_ud2, 0);
    __asm__ volatile(".globl ud2_at, ud2_after\nud2_at: ud2\nud2_after:");
    printf("ill: hits %d code %s addr %s, resumed after it\n", (int)hits,
           last_code == ILL_ILLOPN ? "ILL_ILLOPN" : "other",
           last_addr == (uintptr_t)ud2_at ? "ok" : "wrong");
}

static void note_info(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    hits++;
    last_code = si->si_code;
    last_pid = si->si_pid;
}

static void t_kill(void)
{
    hits = 0;
    catch_one(SIGUSR1, note_info, 0);
    kill(getpid(), SIGUSR1);
    printf("kill: hits %d code %s pid %s\n", (int)hits, last_code == SI_USER ? "SI_USER" : "other",
           last_pid == getpid() ? "self" : "other");
}

static void t_mask(void)
{
    sigset_t s, pend;
    hits = 0;
    catch_one(SIGUSR1, note_info, 0);
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigprocmask(SIG_BLOCK, &s, NULL);
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGUSR1);
    sigpending(&pend);
    printf("mask: while blocked hits %d pending %d\n", (int)hits, sigismember(&pend, SIGUSR1));
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    printf("mask: after unblock hits %d\n", (int)hits);
}

static void plain(int sig)
{
    (void)sig;
    hits++;
}

static void t_resethand(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = plain;
    sa.sa_flags = SA_RESETHAND;
    hits = 0;
    sigaction(SIGURG, &sa, NULL);
    raise(SIGURG);
    sigaction(SIGURG, NULL, &old);
    raise(SIGURG);   /* default: ignored */
    printf("resethand: hits %d handler now %s\n", (int)hits,
           old.sa_handler == SIG_DFL ? "SIG_DFL" : "other");
}

static void where_am_i(int sig)
{
    char here;
    (void)sig;
    on_alt = &here >= alt_base && &here < alt_base + alt_size;
}

static void t_altstack(void)
{
    stack_t ss = { 0 }, old;
    struct sigaction sa;
    alt_base = malloc(alt_size);
    ss.ss_sp = alt_base;
    ss.ss_size = alt_size;
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = where_am_i;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, NULL);
    raise(SIGUSR2);
    sigaltstack(NULL, &old);
    printf("altstack: handler on it %s; after, flags %d\n", on_alt ? "yes" : "no", old.ss_flags);
}

static void on_chld(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    hits++;
    last_code = si->si_code;
    last_pid = si->si_pid;
    last_status = si->si_status;
}

static void t_chld(void)
{
    hits = 0;
    catch_one(SIGCHLD, on_chld, SA_RESTART);
    pid_t c = fork();
    if (c == 0)
        _exit(7);
    int st;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR)
        ;
    printf("chld: hits %d code %s pid %s status %d exit %d\n", (int)hits,
           last_code == CLD_EXITED ? "CLD_EXITED" : "other", last_pid == c ? "child" : "other",
           (int)last_status, WEXITSTATUS(st));
    signal(SIGCHLD, SIG_DFL);
}

static void t_suspend(void)
{
    sigset_t block, wait_mask;
    hits = 0;
    signal(SIGUSR1, plain);
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, NULL);
    pid_t c = fork();
    if (c == 0) {
        kill(getppid(), SIGUSR1);
        _exit(0);
    }
    sigemptyset(&wait_mask);
    int r = sigsuspend(&wait_mask);
    int e = errno;
    sigset_t now;
    sigprocmask(SIG_SETMASK, NULL, &now);
    printf("suspend: returned %d %s hits %d, mask restored %s\n", r, e == EINTR ? "EINTR" : "?",
           (int)hits, sigismember(&now, SIGUSR1) ? "yes" : "no");
    waitpid(c, NULL, 0);
    sigprocmask(SIG_UNBLOCK, &block, NULL);
}

/* A child sends SIGALRM to the parent blocked in read, then writes. */
static void t_restart_one(int flags)
{
    int p[2];
    char c = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = plain;
    sa.sa_flags = flags;
    sigaction(SIGALRM, &sa, NULL);
    hits = 0;
    if (pipe(p) != 0)
        return;
    pid_t k = fork();
    if (k == 0) {
        /* by then the parent sleeps in read() (modeled time under emu) */
        usleep(200000);
        kill(getppid(), SIGALRM);
        usleep(200000);
        write(p[1], "x", 1);
        _exit(0);
    }
    errno = 0;
    ssize_t n = read(p[0], &c, 1);
    int e = errno;
    if (n < 0 && e == EINTR)
        n = read(p[0], &c, 1);
    printf("restart(%s): first read %s, hits %d, byte %c\n",
           flags & SA_RESTART ? "SA_RESTART" : "none", e == EINTR && n == 1 ? "EINTR" : "went on",
           (int)hits, c);
    waitpid(k, NULL, 0);
    close(p[0]);
    close(p[1]);
}

static volatile int order[4], norder;
static void inner(int sig)
{
    order[norder++] = sig;
}

static void outer(int sig)
{
    order[norder++] = sig;
    raise(SIGUSR2);
    order[norder++] = -sig;
}

static void t_nested(void)
{
    signal(SIGUSR1, outer);
    signal(SIGUSR2, inner);
    norder = 0;
    raise(SIGUSR1);
    printf("nested: %d %d %d\n", order[0], order[1], order[2]);
}

static void fpu_handler(int sig)
{
    volatile double x = 3.0;
    (void)sig;
    for (int i = 0; i < 10; i++)
        x = x * 1.5 + 0.25;
    hits += x > 0;
}

/* The x87 control word (rounding toward +inf) survives a handler that
 * uses the FPU with its own. */
static void t_fpu(void)
{
    uint16_t cw, up, after;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    up = (uint16_t)((cw & ~0x0c00) | 0x0800);
    __asm__ volatile("fldcw %0" : : "m"(up));
    signal(SIGUSR1, fpu_handler);
    hits = 0;
    raise(SIGUSR1);
    __asm__ volatile("fnstcw %0" : "=m"(after));
    __asm__ volatile("fldcw %0" : : "m"(cw));
    printf("fpu: hits %d control word kept %s\n", (int)hits, after == up ? "yes" : "no");
}

static void t_queue(void)
{
    sigset_t s;
    struct sigaction sa;
    int rt;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = plain;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGRTMIN, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    sigemptyset(&s);
    sigaddset(&s, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &s, NULL);
    for (int i = 0; i < 3; i++)
        kill(getpid(), SIGRTMIN);
    hits = 0;
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    rt = hits;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    sigprocmask(SIG_BLOCK, &s, NULL);
    kill(getpid(), SIGUSR2);
    kill(getpid(), SIGUSR2);
    hits = 0;
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    printf("queue: SIGRTMIN caught %d of 3, SIGUSR2 %d of 2\n", rt, (int)hits);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *only = argc > 1 ? argv[1] : NULL;
#define RUN(name, call) if (!only || !strcmp(only, name)) call
    RUN("segv", t_segv());
    RUN("fpe", t_fpe());
    RUN("ill", t_ill());
    RUN("kill", t_kill());
    RUN("mask", t_mask());
    RUN("resethand", t_resethand());
    RUN("altstack", t_altstack());
    RUN("chld", t_chld());
    RUN("suspend", t_suspend());
    RUN("restart", (t_restart_one(SA_RESTART), t_restart_one(0)));
    RUN("nested", t_nested());
    RUN("fpu", t_fpu());
    RUN("queue", t_queue());
    return 0;
}
