/*
 * lat WHAT [N]: lmbench's process latencies (lat_pipe, lat_proc, lat_ctx;
 * cost-research §5.1), measured as they do it, in the guest's own TSC,
 * which counts modeled cycles. Each result is one line
 *   @metric NAME CYCLES cycles
 * that `emu compare` gathers into a table (and a reader can read).
 *
 *   pipe  a one-byte round trip between two processes over two pipes
 *   fork  fork, the child exits at once, the parent waits (lat_proc fork)
 *   exec  fork, the child execs /proc/self/exe, which exits (lat_proc exec)
 *   ctx   a context switch: a token passed around two processes through
 *         pipes, less the pipes' own cost measured in one process
 *         (lat_ctx 2p/0K)
 *   sig   lmbench's lat_sig: installing a handler (rt_sigaction of SIGUSR1,
 *         the old action read back: lat_sig install), and catching a
 *         signal sent to oneself (kill(self, SIGUSR1), an empty handler
 *         and its sigreturn: lat_sig catch)
 *   null  lmbench's lat_syscall write and read ("null I/O"): a 1-byte
 *         write to /dev/null, a 1-byte read of /dev/zero, and their mean
 *   all   each of the above
 *   exit  exit at once (the image exec runs)
 */
#include "mini/mini.h"

#define syscall4(nr, a, b, c, d) syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static __attribute__((noreturn)) void exit_(int code)
{
    for (;;)
        syscall1(SYS_exit, code);
}

static void wait_child(long pid)
{
    int status;
    syscall4(SYS_wait4, pid, &status, 0, 0);
}

static void report(const char *name, uint64_t cycles, long n)
{
    /* one decimal of cycles per operation, in integers */
    uint64_t tenths = (cycles * 10 + (uint64_t)n / 2) / (uint64_t)n;
    printf("@metric %s %llu.%llu cycles\n", name, (unsigned long long)(tenths / 10),
           (unsigned long long)(tenths % 10));
}

static uint64_t pipe_round_trips(long n)
{
    int there[2], back[2];
    char c = 'x';
    syscall1(SYS_pipe, there);
    syscall1(SYS_pipe, back);
    long pid = syscall0(SYS_fork);
    if (pid == 0) {
        for (long i = 0; i <= n; i++) {
            syscall3(SYS_read, there[0], &c, 1);
            syscall3(SYS_write, back[1], &c, 1);
        }
        exit_(0);
    }
    /* one trip first, so that both are running before the clock starts */
    syscall3(SYS_write, there[1], &c, 1);
    syscall3(SYS_read, back[0], &c, 1);
    uint64_t t0 = rdtsc();
    for (long i = 0; i < n; i++) {
        syscall3(SYS_write, there[1], &c, 1);
        syscall3(SYS_read, back[0], &c, 1);
    }
    uint64_t t1 = rdtsc();
    wait_child(pid);
    syscall1(SYS_close, there[0]);
    syscall1(SYS_close, there[1]);
    syscall1(SYS_close, back[0]);
    syscall1(SYS_close, back[1]);
    return t1 - t0;
}

static void lat_pipe(long n)
{
    report("lat_pipe", pipe_round_trips(n), n);
}

static void lat_fork(long n)
{
    uint64_t t0 = rdtsc();
    for (long i = 0; i < n; i++) {
        long pid = syscall0(SYS_fork);
        if (pid == 0)
            exit_(0);
        wait_child(pid);
    }
    report("lat_fork", rdtsc() - t0, n);
}

static void lat_exec(long n)
{
    char *argv[] = { "lat", "exit", NULL };
    char *envp[] = { NULL };
    uint64_t t0 = rdtsc();
    for (long i = 0; i < n; i++) {
        long pid = syscall0(SYS_fork);
        if (pid == 0) {
            syscall3(SYS_execve, "/proc/self/exe", argv, envp);
            exit_(1);
        }
        wait_child(pid);
    }
    report("lat_exec", rdtsc() - t0, n);
}

/* The token's trip through one pipe in one process: write, then read. */
static uint64_t pipe_overhead(long n)
{
    int p[2];
    char c = 'x';
    syscall1(SYS_pipe, p);
    uint64_t t0 = rdtsc();
    for (long i = 0; i < n; i++) {
        syscall3(SYS_write, p[1], &c, 1);
        syscall3(SYS_read, p[0], &c, 1);
    }
    uint64_t t1 = rdtsc();
    syscall1(SYS_close, p[0]);
    syscall1(SYS_close, p[1]);
    return t1 - t0;
}

/* A round trip is two switches and two token passes. */
static void lat_ctx(long n)
{
    uint64_t trips = pipe_round_trips(n), overhead = pipe_overhead(n);
    uint64_t per_switch = trips > 2 * overhead ? (trips - 2 * overhead) / 2 : 0;
    report("lat_ctx", per_switch, n);
}

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

static volatile long caught;

static void on_usr1(int sig)
{
    (void)sig;
    caught++;
}

static void lat_sig(long n)
{
    struct k_sigaction ka = { (uint32_t)on_usr1, 0, 0, { 0, 0 } }, old;
    long me = syscall0(SYS_getpid);

    uint64_t t0 = rdtsc();
    for (long i = 0; i < n; i++)
        syscall6(SYS_rt_sigaction, SIGUSR1, (long)&ka, (long)&old, 8, 0, 0);
    report("lat_sig_install", rdtsc() - t0, n);

    caught = 0;
    t0 = rdtsc();
    for (long i = 0; i < n; i++)
        syscall2(SYS_kill, me, SIGUSR1);
    uint64_t t1 = rdtsc();
    if (caught != n)
        printf("lat: %ld of %ld signals caught\n", caught, n);
    else
        report("lat_sig_catch", t1 - t0, n);
}

/* n 1-byte transfers on fd: write(2) or read(2), as lat_syscall's loops */
static uint64_t one_byte_loop(const char *path, int flags, long nr, long n)
{
    char c = 0;
    long fd = syscall2(SYS_open, path, flags);
    if (fd < 0) {
        printf("lat: %s: error %ld\n", path, -fd);
        return 0;
    }
    uint64_t t0 = rdtsc();
    for (long i = 0; i < n; i++)
        syscall3(nr, fd, &c, 1);
    uint64_t t1 = rdtsc();
    syscall1(SYS_close, fd);
    return t1 - t0;
}

static void lat_null_io(long n)
{
    uint64_t w = one_byte_loop("/dev/null", 1, SYS_write, n);
    uint64_t r = one_byte_loop("/dev/zero", 0, SYS_read, n);
    if (!w || !r)
        return;
    report("lat_null_write", w, n);
    report("lat_null_read", r, n);
    report("lat_null_io", (w + r) / 2, n);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    long n = argc > 2 ? atol(argv[2]) : 100;
    int all = !strcmp(what, "all");

    if (!strcmp(what, "exit"))
        return 0;
    if (n <= 0)
        n = 1;
    if (all || !strcmp(what, "pipe"))
        lat_pipe(n);
    if (all || !strcmp(what, "fork"))
        lat_fork(n);
    if (all || !strcmp(what, "exec"))
        lat_exec(n);
    if (all || !strcmp(what, "ctx"))
        lat_ctx(n);
    if (all || !strcmp(what, "sig"))
        lat_sig(n);
    if (all || !strcmp(what, "null"))
        lat_null_io(n);
    return 0;
}
