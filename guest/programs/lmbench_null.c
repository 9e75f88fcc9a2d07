/*
 * lmbench 2.0's "null call" (lat_syscall null: getppid() through the C
 * library, in a dynamically linked program), replayed twice: N calls
 * through a PLT-shaped stub ("jmp *GOT") to a getppid shaped like glibc's
 * system-call template, then the same loop without the call, whose cost
 * lmbench subtracts as loop overhead. The first pair of spans uses an
 * int $0x80 wrapper (the distributions' glibc of 2003), the second a
 * wrapper that calls AT_SYSINFO (glibc 2.3's "call *%gs:0x10", here
 * through a plain memory operand). lmbench times with gettimeofday and
 * takes a median of 11 runs; with a deterministic model one run is the
 * median, and the rdtsc spans stand in for its clock.
 *   lmbench_null [N]      four rdtsc spans: int80 body, loop, sysinfo body, loop
 */
#include "mini/mini.h"

__asm__(
    "	.text\n"
    "getppid_int80:\n"
    "	movl $" STR(SYS_getppid) ", %eax\n"
    "	int $0x80\n"
    "	cmpl $-4095, %eax\n"
    "	jae 1f\n"
    "	ret\n"
    "1:	ret\n"
    "getppid_sysinfo:\n"
    "	movl $" STR(SYS_getppid) ", %eax\n"
    "	call *mini_sysinfo\n"
    "	cmpl $-4095, %eax\n"
    "	jae 1f\n"
    "	ret\n"
    "1:	ret\n"
    "plt_int80:\n"
    "	jmp *got_int80\n"
    "plt_sysinfo:\n"
    "	jmp *got_sysinfo\n"
    "	.data\n"
    "got_int80: .long getppid_int80\n"
    "got_sysinfo: .long getppid_sysinfo\n"
    "	.text\n"
    /* unsigned long NAME(long n): end - start of the TSC's low 32 bits */
    ".macro timed name, body:vararg\n"
    "	.globl \\name\n"
    "\\name:\n"
    "	push %ebp; push %esi\n"
    "	movl 12(%esp), %esi\n"
    "	rdtsc\n"
    "	movl %eax, %ebp\n"
    "1:	\\body\n"
    "	subl $1, %esi\n"
    "	jne 1b\n"
    "	rdtsc\n"
    "	subl %ebp, %eax\n"
    "	pop %esi; pop %ebp\n"
    "	ret\n"
    ".endm\n"
    "	timed loop_int80, call plt_int80\n"
    "	timed loop_sysinfo, call plt_sysinfo\n"
    "	timed loop_empty\n");

unsigned long loop_int80(long n);
unsigned long loop_sysinfo(long n);
unsigned long loop_empty(long n);

static void report(const char *how, unsigned long body, unsigned long loop, long n)
{
    uint64_t x100 = ((uint64_t)body - (uint64_t)loop) * 100 / (uint64_t)n;
    printf("null call, %s: %lu.%02lu cycles\n", how, (unsigned long)(x100 / 100),
           (unsigned long)(x100 % 100));
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (n <= 0 || argc > 2) {
        puts_fd(2, "usage: lmbench_null [N]\n");
        return 2;
    }
    unsigned long body = loop_int80(n), loop = loop_empty(n);
    report("int $0x80 library", body, loop, n);
    if (!mini_sysinfo) {
        puts_fd(2, "lmbench_null: no AT_SYSINFO\n");
        return 1;
    }
    body = loop_sysinfo(n);
    loop = loop_empty(n);
    report("AT_SYSINFO library", body, loop, n);
    return 0;
}
