/*
 * lmbench_validate OP N: lmbench 2.0's processor and process latencies,
 * measured its way (docs/validation.md): a timed loop of N operations and
 * the loops lmbench subtracts from it, each between a pair of rdtsc reads,
 * so that emu compare --validate can recompute every span from its
 * instruction counts. The spans of each OP, in order:
 *
 *   null   getppid()                            | empty loop
 *   io     1-byte read of /dev/zero | 1-byte write of /dev/null | empty loop
 *   stat   stat of /usr/tmp/lat_fs/lmbench      | empty loop
 *   open   open + close of that file            | empty loop
 *   sigi   sigaction(SIGUSR1), the old one read back | empty loop
 *   sigc   kill(self, SIGUSR1), caught          | kill(self, 0)
 *   prot   sigc's two | N write faults on a read-only shared file mapping,
 *          each caught by a SIGSEGV handler that returns (the last one
 *          reads the TSC and puts a writable page in its place)
 *   pipe   a 1-byte round trip to a child over two pipes | empty loop
 *          (the child passes the byte back until it is killed)
 *   ctx    a 4-byte token through one pipe in this process (write, read) |
 *          its round trip in the same ring as pipe's | empty loop
 *   fork   fork, the child exits, wait          | empty loop
 *   exec   fork, the child closes fd 1 and execs this program's "hello",
 *          wait                                 | empty loop
 *
 * lmbench was linked dynamically: each call goes through a PLT slot
 * ("jmp *GOT") to a wrapper shaped like the C library's system-call
 * template (the callee-saved argument registers saved, the arguments loaded
 * from the stack, the trap, the error check). The wrapper is the one of the
 * published runs, an inline int $0x80, on a CPU without SEP; on one with
 * SEP, a sysenter library's call through AT_SYSINFO (the figures printed
 * beside, not compared).
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define SA_RESTORER 0x04000000
#define DIR_PATH "/usr/tmp/lat_fs"
#define STAT_PATH DIR_PATH "/lmbench"
#define PROT_PATH "/tmp/lat_sig"

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

static long n_ops;
static int fd_a, fd_b;
static int ring[2][2];
static long me;
static volatile long faults;
static char *prot_page;

static inline void tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
}

/* glibc's sigaction installs its own restorer, which makes an inline
 * sigreturn: the same here. */
__asm__(".text\n"
        "restore:\n"
        "	popl %eax\n"
        "	movl $" STR(SYS_sigreturn) ", %eax\n"
        "	int $0x80\n");
void restore(void);

/* NAME_int80 and NAME_sysinfo, and the PLT slot lib_NAME whose GOT entry
 * names the first; the entry is followed by the second's address, which
 * use_sysinfo() moves into it. */
__asm__(".macro wrapper name, nr, nargs, trap:vararg\n"
        "\\name:\n"
        "	.set pushed, 0\n"
        "	.if \\nargs >= 1\n"
        "	pushl %ebx\n"
        "	.set pushed, 4\n"
        "	.endif\n"
        "	.if \\nargs >= 4\n"
        "	pushl %esi\n"
        "	.set pushed, 8\n"
        "	.endif\n"
        "	.if \\nargs >= 1\n"
        "	movl 4+pushed(%esp), %ebx\n"
        "	.endif\n"
        "	.if \\nargs >= 2\n"
        "	movl 8+pushed(%esp), %ecx\n"
        "	.endif\n"
        "	.if \\nargs >= 3\n"
        "	movl 12+pushed(%esp), %edx\n"
        "	.endif\n"
        "	.if \\nargs >= 4\n"
        "	movl 16+pushed(%esp), %esi\n"
        "	.endif\n"
        "	movl $\\nr, %eax\n"
        "	\\trap\n"
        "	.if \\nargs >= 4\n"
        "	popl %esi\n"
        "	.endif\n"
        "	.if \\nargs >= 1\n"
        "	popl %ebx\n"
        "	.endif\n"
        "	cmpl $-4095, %eax\n"
        "	jae 1f\n"
        "	ret\n"
        "1:	ret\n"
        ".endm\n"
        ".macro libcall name, nr, nargs\n"
        "	.text\n"
        "	wrapper \\name\\()_int80, \\nr, \\nargs, int $0x80\n"
        "	wrapper \\name\\()_sysinfo, \\nr, \\nargs, call *mini_sysinfo\n"
        "	.globl lib_\\name\n"
        "lib_\\name:\n"
        "	jmp *got_\\name\n"
        "	.section lmb_got, \"aw\"\n"
        "got_\\name:\n"
        "	.long \\name\\()_int80, \\name\\()_sysinfo\n"
        "	.text\n"
        ".endm\n"
        "	libcall getppid, " STR(SYS_getppid) ", 0\n"
        "	libcall getpid, " STR(SYS_getpid) ", 0\n"
        "	libcall read, " STR(SYS_read) ", 3\n"
        "	libcall write, " STR(SYS_write) ", 3\n"
        "	libcall stat64, " STR(SYS_stat64) ", 2\n"
        "	libcall open, " STR(SYS_open) ", 2\n"
        "	libcall close, " STR(SYS_close) ", 1\n"
        "	libcall rt_sigaction, " STR(SYS_rt_sigaction) ", 4\n"
        "	libcall kill, " STR(SYS_kill) ", 2\n"
        "	libcall fork, " STR(SYS_fork) ", 0\n"
        "	libcall wait4, " STR(SYS_wait4) ", 4\n"
        "	libcall execve, " STR(SYS_execve) ", 3\n"
        "	libcall exit_group, " STR(SYS_exit_group) ", 1\n");

long lib_getppid(void);
long lib_getpid(void);
long lib_read(long fd, void *buf, long n);
long lib_write(long fd, const void *buf, long n);
long lib_stat64(const char *path, void *st);
long lib_open(const char *path, long flags);
long lib_close(long fd);
long lib_rt_sigaction(long sig, const void *act, void *old, long size);
long lib_kill(long pid, long sig);
long lib_fork(void);
long lib_wait4(long pid, int *status, long options, void *ru);
long lib_execve(const char *path, char **argv, char **envp);
long lib_exit_group(long code);
extern uint32_t __start_lmb_got[], __stop_lmb_got[];

static void use_sysinfo(void)
{
    for (uint32_t *e = __start_lmb_got; e < __stop_lmb_got; e += 2)
        e[0] = e[1];
}

static __attribute__((noreturn)) void lib_exit(int code)
{
    for (;;)
        lib_exit_group(code);
}

/* Like lmbench's BENCH, once untimed first: what only the first call
 * does (a fresh stack page for the first signal frame) is not timed. */
static __attribute__((noinline)) void timed(long (*op)(void))
{
    op();
    tsc();
    for (long i = n_ops; i > 0; i--)
        op();
    tsc();
}

static __attribute__((noinline)) void timed_empty(void)
{
    tsc();
    for (long i = n_ops; i > 0; i--)
        __asm__ volatile("");
    tsc();
}

static void fail(const char *what)
{
    printf("lmbench_validate: %s failed\n", what);
    exit(1);
}

static void set_handler(int sig, void (*fn)(int))
{
    struct k_sigaction ka = { (uint32_t)fn, SA_RESTORER, (uint32_t)restore, { 0, 0 } };
    if (syscall6(SYS_rt_sigaction, sig, (long)&ka, 0, 8, 0, 0))
        fail("rt_sigaction");
}

static void nothing(int sig)
{
    (void)sig;
}

static long op_read(void)
{
    char c;
    if (lib_read(fd_a, &c, 1) != 1)
        fail("read of /dev/zero");
    return 0;
}

static long op_write(void)
{
    char c = 0;
    if (lib_write(fd_b, &c, 1) != 1)
        fail("write to /dev/null");
    return 0;
}

static long op_stat(void)
{
    char st[128];
    if (lib_stat64(STAT_PATH, st))
        fail("stat");
    return 0;
}

static long op_open(void)
{
    long fd = lib_open(STAT_PATH, O_RDONLY);
    if (fd < 0)
        fail("open");
    lib_close(fd);
    return 0;
}

static long op_sigaction(void)
{
    struct k_sigaction ka = { (uint32_t)nothing, SA_RESTORER, (uint32_t)restore, { 0, 0 } },
                       old;
    lib_rt_sigaction(SIGUSR1, &ka, &old, 8);
    return 0;
}

static long op_kill(void)
{
    return lib_kill(me, SIGUSR1);
}

static long op_kill0(void)
{
    return lib_kill(me, 0);
}

static void put_token(int fd, int len)
{
    int msg = 1;
    if (lib_write(fd, &msg, len) != len)
        fail("write on a pipe");
}

static void get_token(int fd, int len)
{
    int msg;
    if (lib_read(fd, &msg, len) != len)
        fail("read on a pipe");
}

static int token_len = 1;

static long op_round_trip(void)
{
    put_token(ring[0][1], token_len);
    get_token(ring[1][0], token_len);
    return 0;
}

static long op_one_pipe(void)
{
    put_token(ring[0][1], token_len);
    get_token(ring[0][0], token_len);
    return 0;
}

static void wait_child(long pid)
{
    int status;
    lib_wait4(pid, &status, 0, 0);
}

static long op_fork(void)
{
    long pid = lib_fork();
    if (pid == 0)
        lib_exit(1);
    wait_child(pid);
    return 0;
}

static long op_exec(void)
{
    char *argv[] = { "lmbench_validate", "hello", NULL };
    char *envp[] = { NULL };
    long pid = lib_fork();
    if (pid == 0) {
        lib_close(1);
        lib_execve("/proc/self/exe", argv, envp);
        lib_exit(1);
    }
    wait_child(pid);
    return 0;
}

static long open_or_fail(const char *path, long flags)
{
    long fd = syscall3(SYS_open, path, flags, 0644);
    if (fd < 0)
        fail(path);
    return fd;
}

static void make_file(const char *path)
{
    static char page[4096];
    long fd = open_or_fail(path, O_RDWR | O_CREAT);
    syscall3(SYS_write, fd, page, sizeof page);
    syscall1(SYS_close, fd);
}

static void run_null(void)
{
    timed(lib_getppid);   /* lmbench's loop calls getppid() itself */
    timed_empty();
}

static void run_io(void)
{
    fd_a = (int)open_or_fail("/dev/zero", O_RDONLY);
    fd_b = (int)open_or_fail("/dev/null", 1);
    timed(op_read);
    timed(op_write);
    timed_empty();
}

static void run_file(long (*op)(void))
{
    syscall2(SYS_mkdir, "/usr", 0755);
    syscall2(SYS_mkdir, "/usr/tmp", 0755);
    syscall2(SYS_mkdir, DIR_PATH, 0755);
    make_file(STAT_PATH);
    timed(op);
    timed_empty();
}

static void run_sig_install(void)
{
    timed(op_sigaction);
    timed_empty();
}

static void run_sig_catch(void)
{
    set_handler(SIGUSR1, nothing);
    timed(op_kill);
    timed(op_kill0);
}

static void on_segv(int sig)
{
    (void)sig;
    if (++faults < n_ops)
        return;
    tsc();
    /* the guest's shared file mappings never become writable (no
     * writeback): a private page in its place lets the write through */
    if (syscall6(SYS_mmap2, (long)prot_page, 4096, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != (long)prot_page)
        fail("mmap2 of a private page");
}

static void run_prot(void)
{
    run_sig_catch();
    make_file(PROT_PATH);
    long fd = open_or_fail(PROT_PATH, O_RDONLY);
    prot_page = (char *)syscall6(SYS_mmap2, 0, 4096, PROT_READ, MAP_SHARED, fd, 0);
    if ((unsigned long)prot_page > 0xfffff000ul)
        fail("mmap2");
    set_handler(SIGSEGV, on_segv);
    tsc();
    *(volatile char *)prot_page = 1;
    if (faults != n_ops)
        fail("counting the faults");
}

/* A child that passes the token on until it is killed; one trip before
 * the clock starts. */
static long start_echo(void)
{
    if (syscall1(SYS_pipe, ring[0]) || syscall1(SYS_pipe, ring[1]))
        fail("pipe");
    long pid = lib_fork();
    if (pid == 0)
        for (;;) {
            get_token(ring[0][0], token_len);
            put_token(ring[1][1], token_len);
        }
    op_round_trip();
    return pid;
}

static void stop_echo(long pid)
{
    lib_kill(pid, SIGTERM);
    wait_child(pid);
}

static void run_pipe(void)
{
    long pid = start_echo();
    timed(op_round_trip);
    timed_empty();
    stop_echo(pid);
}

/* lat_ctx measures the token's trip through one pipe before it starts
 * the other process. */
static void run_ctx(void)
{
    token_len = sizeof(int);
    if (syscall1(SYS_pipe, ring[0]))
        fail("pipe");
    timed(op_one_pipe);
    syscall1(SYS_close, ring[0][0]);
    syscall1(SYS_close, ring[0][1]);
    long pid = start_echo();
    timed(op_round_trip);
    timed_empty();
    stop_echo(pid);
}

static void run_proc(long (*op)(void))
{
    timed(op);
    timed_empty();
}

static int run(const char *what)
{
    if (!strcmp(what, "null"))
        run_null();
    else if (!strcmp(what, "io"))
        run_io();
    else if (!strcmp(what, "stat"))
        run_file(op_stat);
    else if (!strcmp(what, "open"))
        run_file(op_open);
    else if (!strcmp(what, "sigi"))
        run_sig_install();
    else if (!strcmp(what, "sigc"))
        run_sig_catch();
    else if (!strcmp(what, "prot"))
        run_prot();
    else if (!strcmp(what, "pipe"))
        run_pipe();
    else if (!strcmp(what, "ctx"))
        run_ctx();
    else if (!strcmp(what, "fork"))
        run_proc(op_fork);
    else if (!strcmp(what, "exec"))
        run_proc(op_exec);
    else
        return 2;
    return 0;
}

static int cpu_has_sep(void)
{
    uint32_t a = 1, b, c, d;
    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    return (d >> 11) & 1;
}

int main(int argc, char **argv)
{
    mini_use_int80 = !cpu_has_sep();
    if (!mini_use_int80 && mini_sysinfo)
        use_sysinfo();
    /* lmbench's hello: its one write goes to the closed fd 1 */
    if (argc == 2 && !strcmp(argv[1], "hello")) {
        lib_write(1, "Hello world\n", 12);
        return 0;
    }
    n_ops = argc == 3 ? atol(argv[2]) : 0;
    me = lib_getpid();
    if (n_ops <= 0 || run(argv[1])) {
        puts_fd(2, "usage: lmbench_validate null|io|stat|open|sigi|sigc|prot|pipe|ctx|"
                   "fork|exec N\n");
        return 2;
    }
    return 0;
}
