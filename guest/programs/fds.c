/*
 * fds CASE: descriptors and pipes under the guest kernel
 * (tests/test_pipe.c). Each case prints what it saw.
 *   lowest      closing 0 really closes it; a new descriptor is the lowest free
 *   dup         dup, dup2, dup3 share the offset; dup2 replaces; dup3's errors
 *   fcntl       F_DUPFD(_CLOEXEC), F_GETFD/F_SETFD, F_GETFL/F_SETFL
 *   cloexec     close-on-exec descriptors are gone in the exec'd image
 *   check N...  (after exec) which of the descriptors N are open
 *   pipe        parent and child talk both ways; EOF when the writers close
 *   atomic      two writers of 4096-byte records never interleave one
 *   epipe       no reader: SIGPIPE kills; ignored, write is EPIPE
 *   nonblock    O_NONBLOCK: EAGAIN on empty and on full (after 65536 bytes)
 *   stdout      close 1, open a file: it becomes 1 and output goes there
 *   devices     /dev/null swallows writes and reads as empty, /dev/zero
 *               reads as zeros; a write to a read-only one is EBADF
 *   positioned  pread/pwrite on a pipe: ESPIPE, a negative offset EINVAL
 *               first; an empty write to a pipe without reader is 0
 *   deadlock    a child writes to a pipe nobody reads, its parent waits for
 *               it: no process can run (the emulator stops with a report)
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define SIG_IGN 1

#define syscall4(nr, a, b, c, d) syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static long sys_open(const char *path, int flags, int mode)
{
    return syscall3(SYS_open, path, flags, mode);
}

static __attribute__((noreturn)) void exit_(int code)
{
    for (;;)
        syscall1(SYS_exit, code);
}

static long wait_for(long pid)
{
    int status = 0;
    syscall4(SYS_wait4, pid, &status, 0, 0);
    return status;
}

static int case_lowest(void)
{
    printf("close 0: %ld\n", syscall1(SYS_close, 0));
    printf("close 0 again: %ld\n", syscall1(SYS_close, 0));
    long fd = sys_open("a", O_CREAT | O_RDWR, 0644);
    printf("open gives %ld\n", fd);
    printf("dup gives %ld\n", syscall1(SYS_dup, fd));
    syscall1(SYS_close, 2);
    printf("after closing 2, open gives %ld\n", sys_open("a", O_RDONLY, 0));
    return 0;
}

static int case_dup(void)
{
    char c[4] = { 0 };
    long fd = sys_open("d", O_CREAT | O_RDWR | O_TRUNC, 0644);
    syscall3(SYS_write, fd, "abcdef", 6);
    syscall3(SYS_lseek, fd, 0, SEEK_SET);
    long d = syscall1(SYS_dup, fd);
    syscall3(SYS_read, fd, c, 2);
    syscall3(SYS_read, d, c + 2, 1);
    printf("dup shares the offset: %s\n", c);
    long other = sys_open("e", O_CREAT | O_RDWR | O_TRUNC, 0644);
    printf("dup2 onto an open descriptor: %ld\n", syscall2(SYS_dup2, fd, other));
    syscall3(SYS_read, other, c, 1);
    c[1] = 0;
    printf("it reads the same file: %s\n", c);
    long self = syscall2(SYS_dup2, fd, fd), closed = syscall2(SYS_dup2, 77, 78);
    printf("dup2 to itself: %ld, of a closed one: %ld\n", self, closed);
    self = syscall3(SYS_dup3, fd, fd, 0);
    printf("dup3 to itself: %ld, bad flags: %ld\n", self, syscall3(SYS_dup3, fd, 20, 1));
    long d3 = syscall3(SYS_dup3, fd, 20, O_CLOEXEC);
    printf("dup3 O_CLOEXEC: %ld, FD_CLOEXEC %ld\n", d3, syscall2(SYS_fcntl64, 20, F_GETFD));
    return 0;
}

static int case_fcntl(void)
{
    long fd = sys_open("f", O_CREAT | O_WRONLY, 0644);
    printf("F_DUPFD 10: %ld\n", syscall3(SYS_fcntl64, fd, F_DUPFD, 10));
    printf("F_DUPFD 10 again: %ld\n", syscall3(SYS_fcntl64, fd, F_DUPFD, 10));
    long c = syscall3(SYS_fcntl64, fd, F_DUPFD_CLOEXEC, 0);
    printf("F_DUPFD_CLOEXEC: %ld, F_GETFD %ld; the original's %ld\n", c,
           syscall2(SYS_fcntl64, c, F_GETFD), syscall2(SYS_fcntl64, fd, F_GETFD));
    syscall3(SYS_fcntl64, c, F_SETFD, 0);
    printf("F_SETFD 0: F_GETFD %ld\n", syscall2(SYS_fcntl64, c, F_GETFD));
    printf("F_GETFL: %lo\n", syscall2(SYS_fcntl64, fd, F_GETFL));
    syscall3(SYS_fcntl64, fd, F_SETFL, O_APPEND | O_NONBLOCK);
    printf("after F_SETFL: %lo, and on the dup: %lo\n", syscall2(SYS_fcntl64, fd, F_GETFL),
           syscall2(SYS_fcntl64, c, F_GETFL));
    printf("F_DUPFD past the limit: %ld\n", syscall3(SYS_fcntl64, fd, F_DUPFD, 1024));
    printf("on a closed descriptor: %ld\n", syscall2(SYS_fcntl64, 999, F_GETFD));
    return 0;
}

static int case_cloexec(void)
{
    long a = sys_open("c", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    long b = sys_open("c", O_RDONLY, 0);
    long c = syscall1(SYS_dup, b);
    syscall3(SYS_fcntl64, c, F_SETFD, 1);
    printf("open: %ld %ld %ld\n", a, b, c);
    char *argv[] = { "fds", "check", "3", "4", "5", NULL };
    char *envp[] = { NULL };
    syscall3(SYS_execve, "/proc/self/exe", argv, envp);
    printf("execve failed\n");
    return 1;
}

static int case_check(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        printf("fd %s: %s\n", argv[i],
               syscall2(SYS_fcntl64, atol(argv[i]), F_GETFD) < 0 ? "closed" : "open");
    return 0;
}

static int case_pipe(void)
{
    int up[2], down[2];
    char buf[64];
    syscall1(SYS_pipe, up);
    syscall2(SYS_pipe2, down, 0);
    long pid = syscall0(SYS_fork);
    if (pid == 0) {
        syscall1(SYS_close, up[0]);
        syscall1(SYS_close, down[1]);
        long n = syscall3(SYS_read, down[0], buf, sizeof buf);
        for (long i = 0; i < n; i++)
            if (buf[i] >= 'a' && buf[i] <= 'z')
                buf[i] = (char)(buf[i] - 32);
        syscall3(SYS_write, up[1], buf, n);
        exit_(0);
    }
    syscall1(SYS_close, up[1]);
    syscall1(SYS_close, down[0]);
    syscall3(SYS_write, down[1], "ping", 4);
    long n = syscall3(SYS_read, up[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    printf("child answered %s\n", buf);
    wait_for(pid);
    printf("after the child exits, read gives %ld\n", syscall3(SYS_read, up[0], buf, 8));
    return 0;
}

#define RECORDS 40

static int case_atomic(void)
{
    static char rec[4096];
    int p[2];
    long pids[2];
    syscall1(SYS_pipe, p);
    for (int w = 0; w < 2; w++) {
        pids[w] = syscall0(SYS_fork);
        if (pids[w] == 0) {
            memset(rec, w ? 'b' : 'a', sizeof rec);
            for (int i = 0; i < RECORDS; i++)
                syscall3(SYS_write, p[1], rec, sizeof rec);
            exit_(0);
        }
    }
    syscall1(SYS_close, p[1]);
    long total = 0, mixed = 0, n;
    int count[2] = { 0, 0 };
    /* reassemble 4096-byte records: each must be one writer's */
    while ((n = syscall3(SYS_read, p[0], rec + total % 4096, 4096 - total % 4096)) > 0) {
        total += n;
        if (total % 4096 == 0) {
            for (int i = 1; i < 4096; i++)
                mixed += rec[i] != rec[0];
            count[rec[0] == 'b']++;
        }
    }
    wait_for(pids[0]);
    wait_for(pids[1]);
    printf("%ld bytes: %d records of a, %d of b, %ld bytes out of place\n", total, count[0],
           count[1], mixed);
    return 0;
}

static int case_epipe(void)
{
    int p[2];
    syscall1(SYS_pipe, p);
    syscall1(SYS_close, p[0]);
    long pid = syscall0(SYS_fork);
    if (pid == 0) {
        syscall3(SYS_write, p[1], "x", 1);
        exit_(0);
    }
    long st = wait_for(pid);
    printf("writer with SIGPIPE's default: signal %ld\n", st & 0x7f);
    uint32_t act[5] = { SIG_IGN, 0, 0, 0, 0 };
    syscall4(SYS_rt_sigaction, SIGPIPE, act, 0, 8);
    printf("with SIGPIPE ignored: write gives %ld\n", syscall3(SYS_write, p[1], "x", 1));
    return 0;
}

static int case_nonblock(void)
{
    static char block[4096];
    int p[2];
    char c;
    syscall2(SYS_pipe2, p, O_NONBLOCK);
    printf("read of an empty pipe: %ld\n", syscall3(SYS_read, p[0], &c, 1));
    long total = 0, n;
    while ((n = syscall3(SYS_write, p[1], block, sizeof block)) > 0)
        total += n;
    printf("it holds %ld bytes, then write gives %ld\n", total, n);
    printf("a 1-byte write into the full pipe: %ld\n", syscall3(SYS_write, p[1], &c, 1));
    return 0;
}

static int case_stdout(void)
{
    char buf[64];
    syscall1(SYS_close, 1);
    long fd = sys_open("out", O_CREAT | O_RDWR | O_TRUNC, 0644);
    printf("to the file through fd %ld\n", fd);
    syscall3(SYS_lseek, fd, 0, SEEK_SET);
    long n = syscall3(SYS_read, fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    syscall3(SYS_write, 2, buf, strlen(buf));
    return 0;
}

/* How many of buf's n bytes are not zero. */
static int nonzero(const char *buf, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += buf[i] != 0;
    return k;
}

static int case_devices(void)
{
    char buf[3000];
    long null_w = sys_open("/dev/null", O_WRONLY, 0), null_r = sys_open("/dev/null", O_RDONLY, 0);
    long zero = sys_open("/dev/zero", O_RDONLY, 0);
    printf("write 1 byte to /dev/null: %ld\n", syscall3(SYS_write, null_w, "x", 1));
    printf("write 0 bytes: %ld\n", syscall3(SYS_write, null_w, "x", 0));
    printf("write 3000 bytes: %ld\n", syscall3(SYS_write, null_w, buf, sizeof buf));
    printf("read /dev/null: %ld\n", syscall3(SYS_read, null_r, buf, 10));
    printf("write to a read-only /dev/null: %ld\n", syscall3(SYS_write, null_r, "x", 1));
    printf("read a write-only one: %ld\n", syscall3(SYS_read, null_w, buf, 1));
    memset(buf, 0xaa, sizeof buf);
    long n = syscall3(SYS_read, zero, buf, 1);
    printf("read 1 byte of /dev/zero: %ld, %d not zero, %d of the rest untouched\n", n,
           nonzero(buf, 1), nonzero(buf + 1, sizeof buf - 1));
    memset(buf, 0xaa, sizeof buf);
    n = syscall3(SYS_read, zero, buf, sizeof buf);
    printf("read 3000 bytes of /dev/zero: %ld, %d not zero\n", n, nonzero(buf, sizeof buf));
    printf("write to /dev/zero: %ld\n", syscall3(SYS_write, sys_open("/dev/zero", O_RDWR, 0), "x", 1));
    return 0;
}

static int case_positioned(void)
{
    int p[2];
    char c = 'x';
    syscall1(SYS_pipe, p);
    printf("pwrite to a pipe: %ld\n", syscall6(SYS_pwrite64, p[1], (long)&c, 1, 0, 0, 0));
    printf("pread of a pipe: %ld\n", syscall6(SYS_pread64, p[0], (long)&c, 1, 0, 0, 0));
    printf("pread at -1: %ld\n", syscall6(SYS_pread64, p[0], (long)&c, 1, -1, -1, 0));
    printf("pread of fd 99 at -1: %ld\n", syscall6(SYS_pread64, 99, (long)&c, 1, -1, -1, 0));
    syscall1(SYS_close, p[0]);
    printf("empty write without a reader: %ld\n", syscall3(SYS_write, p[1], &c, 0));
    return 0;
}

static int case_deadlock(void)
{
    static char block[100000];
    int p[2];
    syscall1(SYS_pipe, p);
    long pid = syscall0(SYS_fork);
    if (pid == 0) {
        syscall3(SYS_write, p[1], block, sizeof block);
        exit_(0);
    }
    wait_for(pid);
    printf("not reached\n");
    return 1;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (!strcmp(c, "lowest"))
        return case_lowest();
    if (!strcmp(c, "dup"))
        return case_dup();
    if (!strcmp(c, "fcntl"))
        return case_fcntl();
    if (!strcmp(c, "cloexec"))
        return case_cloexec();
    if (!strcmp(c, "check"))
        return case_check(argc, argv);
    if (!strcmp(c, "pipe"))
        return case_pipe();
    if (!strcmp(c, "atomic"))
        return case_atomic();
    if (!strcmp(c, "epipe"))
        return case_epipe();
    if (!strcmp(c, "nonblock"))
        return case_nonblock();
    if (!strcmp(c, "stdout"))
        return case_stdout();
    if (!strcmp(c, "devices"))
        return case_devices();
    if (!strcmp(c, "positioned"))
        return case_positioned();
    if (!strcmp(c, "deadlock"))
        return case_deadlock();
    printf("fds: unknown case %s\n", c);
    return 2;
}
