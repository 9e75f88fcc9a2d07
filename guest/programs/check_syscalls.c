/*
 * Exercises the system-call ABI and prints one line per check, "ok NAME" or
 * "FAIL NAME (detail)"; exits 0 only if every check passed.
 *   check_syscalls int80|vsyscall
 * "int80" makes every call an inline int $0x80; "vsyscall" calls through
 * AT_SYSINFO, so the kernel's choice (sysenter or int $0x80) applies. The
 * "ok" lines do not depend on the path or the CPU model.
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define PAGE 4096u

struct iovec32 { uint32_t base, len; };
struct utsname { char sysname[65], nodename[65], release[65], version[65],
                 machine[65], domainname[65]; };

static int failures, checks;

static void check(int ok, const char *name, const char *fmt, long a, long b)
{
    checks++;
    if (ok) {
        printf("ok %s\n", name);
        return;
    }
    failures++;
    printf("FAIL %s (", name);
    printf(fmt, a, b);
    printf(")\n");
}

/*
 * Load known values into EBX, ECX, EDX, ESI, EDI and EBP, make getpid
 * (EAX = 20) through the chosen path, and store the six registers, EAX and
 * ESP (before and after) into out[0..8].
 */
void regs_probe(uint32_t *out, int use_int80);
__asm__(
    "	.text\n"
    "	.globl regs_probe\n"
    "	.type regs_probe, @function\n"
    "regs_probe:\n"
    "	pushl %ebp\n"
    "	pushl %edi\n"
    "	pushl %esi\n"
    "	pushl %ebx\n"
    "	movl 20(%esp), %eax\n"          /* out */
    "	pushl %eax\n"                   /* keep it on the stack */
    "	movl %esp, 28(%eax)\n"          /* out[7]: ESP before */
    "	movl 28(%esp), %eax\n"          /* use_int80 */
    "	testl %eax, %eax\n"
    "	movl $0x11111111, %ebx\n"
    "	movl $0x22222222, %ecx\n"
    "	movl $0x33333333, %edx\n"
    "	movl $0x44444444, %esi\n"
    "	movl $0x55555555, %edi\n"
    "	movl $0x66666666, %ebp\n"
    "	movl $" STR(SYS_getpid) ", %eax\n" /* mov leaves the flags */
    "	jnz 1f\n"
    "	call *mini_sysinfo\n"
    "	jmp 2f\n"
    "1:	int $0x80\n"
    "2:	pushl %eax\n"
    "	movl 4(%esp), %eax\n"
    "	movl %ebx, 0(%eax)\n"
    "	movl %ecx, 4(%eax)\n"
    "	movl %edx, 8(%eax)\n"
    "	movl %esi, 12(%eax)\n"
    "	movl %edi, 16(%eax)\n"
    "	movl %ebp, 20(%eax)\n"
    "	popl %edx\n"
    "	movl %edx, 24(%eax)\n"          /* out[6]: EAX, the result */
    "	movl %esp, 32(%eax)\n"          /* out[8]: ESP after */
    "	addl $4, %esp\n"
    "	popl %ebx\n"
    "	popl %esi\n"
    "	popl %edi\n"
    "	popl %ebp\n"
    "	ret\n"
    "	.size regs_probe, . - regs_probe\n");

static int streq(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

static void check_args6(const char *name, uint32_t a, uint32_t b, uint32_t c,
                        uint32_t d, uint32_t e, uint32_t f)
{
    uint32_t want = a * 1 + b * 3 + c * 5 + d * 7 + e * 11 + f * 13;
    uint32_t got = (uint32_t)syscall6(SYS_sysemu_args6, (long)a, (long)b, (long)c,
                                      (long)d, (long)e, (long)f);
    check(got == want, name, "got %x, want %x", (long)got, (long)want);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (!streq(argv[1], "int80") && !streq(argv[1], "vsyscall"))) {
        puts_fd(2, "usage: check_syscalls int80|vsyscall\n");
        return 2;
    }
    mini_use_int80 = streq(argv[1], "int80");
    long r;

    check(mini_sysinfo != 0, "sysinfo", "AT_SYSINFO %x%x", (long)mini_sysinfo, 0);
    if (!mini_use_int80 && !mini_sysinfo) {
        printf("FAIL vsyscall (no AT_SYSINFO: cannot test this path)\n");
        return 1;
    }

    /* getpid */
    r = syscall0(SYS_getpid);
    check(r == 2, "getpid", "got %ld%.0ld", r, 0);   /* the boot program: init is 1 */

    /* gettimeofday */
    struct timeval tv1 = { -1, -1 }, tv2 = { -1, -1 };
    r = syscall2(SYS_gettimeofday, &tv1, 0);
    check(r == 0 && tv1.tv_sec > 1000000000 && tv1.tv_usec >= 0 && tv1.tv_usec < 1000000,
          "gettimeofday", "ret %ld sec %ld", r, tv1.tv_sec);
    r = syscall2(SYS_gettimeofday, &tv2, 0);
    check(r == 0 && (tv2.tv_sec > tv1.tv_sec ||
                     (tv2.tv_sec == tv1.tv_sec && tv2.tv_usec >= tv1.tv_usec)),
          "gettimeofday_monotonic", "second call ret %ld sec %ld", r, tv2.tv_sec);
    r = syscall2(SYS_gettimeofday, 0, 0);
    check(r == 0, "gettimeofday_tz_null", "tv=NULL ret %ld%.0ld", r, 0);
    struct { int minuteswest, dsttime; } tz = { 77, 77 };
    r = syscall2(SYS_gettimeofday, &tv2, &tz);
    check(r == 0 && tz.minuteswest == 0 && tz.dsttime == 0, "gettimeofday_tz",
          "ret %ld minuteswest %ld", r, tz.minuteswest);
    r = syscall2(SYS_gettimeofday, 0xc0000000u, 0);
    check(r == -EFAULT, "gettimeofday_efault", "ret %ld%.0ld", r, 0);

    /* time */
    r = syscall1(SYS_time, 0);
    check(r >= tv1.tv_sec && r - tv1.tv_sec <= 2, "time_null", "time %ld, tv_sec %ld",
          r, tv1.tv_sec);
    long t = 0;
    r = syscall1(SYS_time, &t);
    check(r == t && r >= tv1.tv_sec && r - tv1.tv_sec <= 2, "time_store",
          "returned %ld, stored %ld", r, t);
    r = syscall1(SYS_time, 0xc0000000u);
    check(r == -EFAULT, "time_efault", "ret %ld%.0ld", r, 0);

    /* brk */
    long cur = syscall1(SYS_brk, 0);
    check(cur > 0 && (uint32_t)cur < 0xc0000000u, "brk_query", "brk(0) = %lx%.0ld", cur, 0);
    long again = syscall1(SYS_brk, 0);
    check(again == cur, "brk_query_stable", "brk(0) %lx then %lx", cur, again);
    long grown = syscall1(SYS_brk, cur + 3 * PAGE);
    check(grown == cur + 3 * (long)PAGE, "brk_grow", "brk(+3 pages) = %lx from %lx",
          grown, cur);
    if (grown == cur + 3 * (long)PAGE) {
        volatile uint8_t *p = (volatile uint8_t *)cur;
        long nonzero = -1;
        for (uint32_t i = 0; i < 3 * PAGE; i++)
            if (p[i] != 0) {
                nonzero = (long)i;
                break;
            }
        check(nonzero < 0, "brk_zeroed", "byte %ld of %lx not zero", nonzero, cur);
        for (uint32_t i = 0; i < 3 * PAGE; i++)
            p[i] = (uint8_t)(i * 7 + 1);
        long bad = -1;
        for (uint32_t i = 0; i < 3 * PAGE; i++)
            if (p[i] != (uint8_t)(i * 7 + 1)) {
                bad = (long)i;
                break;
            }
        check(bad < 0, "brk_writable", "byte %ld of %lx did not keep its value", bad, cur);
    } else {
        check(0, "brk_zeroed", "no memory%.0ld%.0ld", 0, 0);
        check(0, "brk_writable", "no memory%.0ld%.0ld", 0, 0);
    }
    long shrunk = syscall1(SYS_brk, cur);
    long now = syscall1(SYS_brk, 0);
    check(shrunk == cur && now == cur, "brk_shrink", "brk(old) = %lx, now %lx", shrunk, now);

    /* uname */
    struct utsname u;
    memset(&u, 0x55, sizeof u);
    r = syscall1(SYS_uname, &u);
    check(r == 0 && streq(u.sysname, "Linux"), "uname_sysname", "ret %ld, first byte %ld",
          r, (long)u.sysname[0]);
    check(r == 0 && streq(u.machine, "i686"), "uname_machine", "ret %ld, first byte %ld",
          r, (long)u.machine[0]);

    /* writev and write */
    static const char a[] = "a", b[] = "b", c[] = "c\n";
    struct iovec32 iov[3] = {
        { (uint32_t)a, 1 }, { (uint32_t)b, 1 }, { (uint32_t)c, 2 },
    };
    r = syscall3(SYS_writev, 1, iov, 3);
    check(r == 4, "writev", "ret %ld%.0ld", r, 0);
    static const char line[] = "write to fd 1\n";
    r = syscall3(SYS_write, 1, line, sizeof line - 1);
    check(r == (long)sizeof line - 1, "write", "ret %ld, want %ld", r, (long)sizeof line - 1);
    r = syscall3(SYS_write, 1, 0x10000000u, 10);   /* user, not mapped */
    check(r == -EFAULT, "write_efault_unmapped", "ret %ld%.0ld", r, 0);
    r = syscall3(SYS_write, 1, 0xc0001000u, 10);
    check(r == -EFAULT, "write_efault_kernel", "ret %ld%.0ld", r, 0);
    r = syscall3(SYS_write, 1, 0xfffff000u + 4090, 100);
    check(r == -EFAULT, "write_efault_wrap", "ret %ld%.0ld", r, 0);
    r = syscall3(SYS_write, 99, line, 1);
    check(r == -9, "write_ebadf", "ret %ld%.0ld", r, 0);

    /* read from stdin (/dev/null under the tests) */
    char buf[16];
    r = syscall3(SYS_read, 0, buf, sizeof buf);
    check(r == 0, "read_eof", "ret %ld%.0ld", r, 0);

    /* system calls the kernel has no handler for: one in the table, two
     * past its end */
    r = syscall0(SYS_acct);
    check(r == -ENOSYS, "enosys_acct", "ret %ld%.0ld", r, 0);
    r = syscall0(5000);
    check(r == -ENOSYS, "enosys_5000", "ret %ld%.0ld", r, 0);
    r = syscall0(-1);
    check(r == -ENOSYS, "enosys_minus1", "ret %ld%.0ld", r, 0);

    /* six arguments: the sixth (EBP) must reach the kernel on both paths */
    r = syscall6(SYS_sysemu_args6, 1, 2, 3, 4, 5, 6);
    check(r == 183, "args6_small", "ret %ld, want %ld", r, 183);
    check_args6("args6_distinct", 0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u,
                0x55555555u, 0x66666666u);
    check_args6("args6_wrapping", 0x01020304u, 0x10203040u, 0xdeadbeefu, 0xcafebabeu,
                0x8badf00du, 0xfeedfaceu);
    check_args6("args6_sixth_only", 0, 0, 0, 0, 0, 0x01000001u);

    /* register preservation across one system call */
    uint32_t out[9] = { 0 };
    static const uint32_t want[6] = { 0x11111111u, 0x22222222u, 0x33333333u,
                                      0x44444444u, 0x55555555u, 0x66666666u };
    static const char *const names[6] = { "regs_ebx", "regs_ecx", "regs_edx",
                                          "regs_esi", "regs_edi", "regs_ebp" };
    regs_probe(out, mini_use_int80);
    check(out[6] == 2, "regs_eax_result", "eax %lx%.0ld", (long)out[6], 0);
    for (int i = 0; i < 6; i++)
        check(out[i] == want[i], names[i], "%lx, want %lx", (long)out[i], (long)want[i]);
    check(out[7] == out[8], "regs_esp", "esp %lx before, %lx after", (long)out[7],
          (long)out[8]);

    /* Last: a pointer into the unmapped page at 0 (below the lowest user
     * page). If the machine mishandles the kernel's fault there, every
     * other check has been reported already. */
    r = syscall3(SYS_write, 1, 0x1, 10);
    check(r == -EFAULT, "write_efault_low", "ret %ld%.0ld", r, 0);

    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
