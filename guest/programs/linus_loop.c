/*
 * Linus Torvalds's system-call timing program of 16 December 2002
 * (linux-kernel, "Re: Intel P6 vs P7 system call performance"), replayed:
 * read the TSC, keeping its low 32 bits; make N back-to-back calls with a
 * direct "call 0xfffff000" into the vsyscall page, EAX = the call's
 * number and nothing else declared; read the TSC again and print
 * (end - start) / N, nothing subtracted. Then the same with an inline
 * "int $0x80". Two rdtsc spans, in that order.
 *   linus_loop getppid|gettimeofday [N [reg|mem]]
 * N is 1000000 by default, as in the post. The post does not say how the
 * program was compiled, so its loop comes in two shapes: "reg" (the
 * default) keeps the counter in a register, as an optimizing build does;
 * "mem" keeps it and the result in stack slots, as gcc -O0 does.
 * For gettimeofday (no program was posted for it) EBX points at a timeval
 * and ECX is 0.
 */
#include "mini/mini.h"

/* Where the loop calls: the vsyscall page's entry. The Makefile builds
 * linus_loop-2.6.0 with 2.6.0's (--kernel 2.6.0: past the page's ELF
 * header), as Linus's program built for 2.6 called 0xffffe400. */
#ifndef PAGE_ENTRY
#define PAGE_ENTRY 0xfffff000
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * unsigned long NAME(long nr, long n, long ebx, long ecx): the timed loop,
 * returning end - start of the low 32 bits of the TSC. The page stub keeps
 * ECX, EDX and EBP; the kernel keeps everything but EAX.
 */
__asm__(
    ".macro loop_reg name, insn:vararg\n"
    "	.globl \\name\n"
    "\\name:\n"
    "	push %ebp; push %edi; push %esi; push %ebx\n"
    "	movl 20(%esp), %edi\n"            /* nr */
    "	movl 24(%esp), %esi\n"            /* n */
    "	rdtsc\n"
    "	movl %eax, %ebp\n"                /* start, low 32 bits */
    "	movl 28(%esp), %ebx\n"
    "	movl 32(%esp), %ecx\n"
    "	xorl %edx, %edx\n"                /* i = 0 */
    "1:	movl %edi, %eax\n"
    "	\\insn\n"
    "	addl $1, %edx\n"
    "	cmpl %esi, %edx\n"
    "	jne 1b\n"
    "	rdtsc\n"
    "	subl %ebp, %eax\n"
    "	pop %ebx; pop %esi; pop %edi; pop %ebp\n"
    "	ret\n"
    ".endm\n"
    ".macro loop_mem name, insn:vararg\n"
    "	.globl \\name\n"
    "\\name:\n"
    "	push %ebp; movl %esp, %ebp\n"
    "	push %edi; push %ebx; subl $16, %esp\n"
    "	rdtsc\n"
    "	movl %eax, -20(%ebp)\n"           /* start */
    "	movl 16(%ebp), %ebx\n"
    "	movl 20(%ebp), %ecx\n"
    "	movl $0, -16(%ebp)\n"             /* i = 0 */
    "	jmp 2f\n"
    "1:	movl 8(%ebp), %eax\n"
    "	\\insn\n"
    "	movl %eax, -12(%ebp)\n"           /* ret = */
    "	addl $1, -16(%ebp)\n"             /* i++ */
    "2:	movl 12(%ebp), %edi\n"
    "	cmpl %edi, -16(%ebp)\n"
    "	jl 1b\n"
    "	rdtsc\n"
    "	subl -20(%ebp), %eax\n"
    "	addl $16, %esp; pop %ebx; pop %edi; pop %ebp\n"
    "	ret\n"
    ".endm\n"
    "	.text\n"
    "	loop_reg page_reg, call " STR(PAGE_ENTRY) "\n"
    "	loop_reg int80_reg, int $0x80\n"
    "	loop_mem page_mem, call " STR(PAGE_ENTRY) "\n"
    "	loop_mem int80_mem, int $0x80\n");

unsigned long page_reg(long nr, long n, long ebx, long ecx);
unsigned long int80_reg(long nr, long n, long ebx, long ecx);
unsigned long page_mem(long nr, long n, long ebx, long ecx);
unsigned long int80_mem(long nr, long n, long ebx, long ecx);

static void report(const char *how, unsigned long cycles, long n)
{
    uint64_t x100 = (uint64_t)cycles * 100 / (uint64_t)n;
    printf("%s: %lu.%02lu cycles\n", how, (unsigned long)(x100 / 100),
           (unsigned long)(x100 % 100));
}

int main(int argc, char **argv)
{
    long nr = argc > 1 && !strcmp(argv[1], "getppid") ? SYS_getppid
            : argc > 1 && !strcmp(argv[1], "gettimeofday") ? SYS_gettimeofday : -1;
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    int mem = argc > 3 && !strcmp(argv[3], "mem");
    if (nr < 0 || n <= 0 || (argc > 3 && !mem && strcmp(argv[3], "reg")) || argc > 4) {
        puts_fd(2, "usage: linus_loop getppid|gettimeofday [N [reg|mem]]\n");
        return 2;
    }
    struct timeval tv;
    report("call " STR(PAGE_ENTRY), (mem ? page_mem : page_reg)(nr, n, (long)&tv, 0), n);
    report("int $0x80", (mem ? int80_mem : int80_reg)(nr, n, (long)&tv, 0), n);
    return 0;
}
