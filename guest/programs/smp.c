/*
 * smp CASE [ARG]: processes on several CPUs (emu run --smp N; tests/test_smp.c).
 *   pin CPU      sched_setaffinity to CPU alone, then system calls through
 *                the vsyscall page (sysenter where the kernel offers it)
 *   spread N     N children each compute and make system calls; the parent
 *                waits for all of them
 *   ipi          a child writes an IPI to the APIC's port from ring 3
 *                (it cannot: #GP, SIGSEGV); the parent says how it died
 *   smc          code written on CPU 1 into a page CPU 0 already ran runs
 *                new on CPU 0 (engine quirk 25)
 *   utime CPU    compute on CPU for 40M TSC cycles, then print the user
 *                time times() reports (the CPU's tick charges it)
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define APIC_PORT_ICR 0xe8
#define syscall4(nr, a, b, c, d) syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static __attribute__((noreturn)) void exit_(int code)
{
    for (;;)
        syscall1(SYS_exit, code);
}

static long pin(unsigned cpu)
{
    uint32_t mask = 1u << cpu;
    return syscall3(SYS_sched_setaffinity, 0, sizeof mask, &mask);
}

static long affinity(void)
{
    uint32_t mask = 0;
    long r = syscall3(SYS_sched_getaffinity, 0, sizeof mask, &mask);
    return r < 0 ? r : (long)mask;
}

static int case_pin(unsigned cpu)
{
    long r = pin(cpu);
    printf("setaffinity %u: %ld\n", cpu, r);
    printf("getaffinity: 0x%lx\n", affinity());
    for (int i = 0; i < 3; i++)
        syscall0(SYS_getppid);
    printf("pid %ld ran its calls\n", syscall0(SYS_getpid));
    return r != 0;
}

static volatile uint32_t sink;

/* A child's work (a function of its own: tests/test_gdb_machine.c stops in it) */
static __attribute__((noinline, noreturn)) void spread_child(uint32_t x)
{
    for (int k = 0; k < 20000; k++) {
        x = x * 1103515245u + 12345u;
        if (k % 1000 == 0)
            syscall0(SYS_getppid);
    }
    sink = x;
    exit_(0);
}

static int case_spread(int n)
{
    for (int i = 0; i < n; i++) {
        long pid = syscall0(SYS_fork);
        if (pid < 0) {
            printf("fork: %ld\n", pid);
            return 1;
        }
        if (pid == 0)
            spread_child((uint32_t)i + 1);
    }
    int done = 0, status;
    while (syscall4(SYS_wait4, -1, &status, 0, 0) > 0)
        done += status == 0;
    printf("%d of %d children exited 0\n", done, n);
    return done != n;
}

static int case_ipi(void)
{
    long pid = syscall0(SYS_fork);
    if (pid == 0) {
        /* INIT to CPU 1: would reset it, if ring 3 could reach the APIC */
        uint32_t icr = (1u << 24) | 0x500;
        __asm__ volatile("outl %0, %1" : : "a"(icr), "Nd"((uint16_t)APIC_PORT_ICR));
        printf("the out went through\n");
        exit_(0);
    }
    int status = 0;
    syscall4(SYS_wait4, pid, &status, 0, 0);
    if (status & 0x7f)
        printf("child killed by signal %d\n", status & 0x7f);
    else
        printf("child exited %d\n", (status >> 8) & 0xff);
    return 0;
}

/* mov $imm, %eax; ret */
static void emit(volatile uint8_t *code, uint32_t imm)
{
    code[0] = 0xb8;
    for (int i = 0; i < 4; i++)
        code[1 + i] = (uint8_t)(imm >> (8 * i));
    code[5] = 0xc3;
}

static int case_smc(void)
{
    volatile uint8_t *code = (volatile uint8_t *)syscall6(SYS_mmap2, 0, 4096,
                                                          PROT_READ | PROT_WRITE | PROT_EXEC,
                                                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint32_t (*fn)(void) = (uint32_t (*)(void))(uintptr_t)code;
    uint32_t a, b, c;

    if ((long)code < 0 && (long)code > -4096) {
        printf("mmap: %ld\n", (long)code);
        return 1;
    }
    pin(0);
    emit(code, 1);
    a = fn();
    pin(1);
    emit(code, 2);
    b = fn();
    pin(0);
    c = fn();
    printf("CPU 0 ran %u, CPU 1 wrote and ran %u, CPU 0 then ran %u\n", a, b, c);
    return c != 2;
}

static int case_utime(unsigned cpu)
{
    struct { long utime, stime, cutime, cstime; } t;
    long r = pin(cpu);
    uint64_t start = rdtsc();
    uint32_t x = 1;
    while (rdtsc() - start < 40000000u)
        for (int i = 0; i < 1000; i++)
            x = x * 1103515245u + 12345u;
    sink = x;
    syscall1(SYS_times, &t);
    printf("setaffinity %u: %ld, utime %s\n", cpu, r, t.utime > 0 ? "> 0" : "0");
    return 0;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "pin") && argc > 2)
        return case_pin((unsigned)atol(argv[2]));
    if (!strcmp(c, "spread") && argc > 2)
        return case_spread((int)atol(argv[2]));
    if (!strcmp(c, "ipi"))
        return case_ipi();
    if (!strcmp(c, "smc"))
        return case_smc();
    if (!strcmp(c, "utime") && argc > 2)
        return case_utime((unsigned)atol(argv[2]));
    printf("smp: unknown case %s\n", c);
    return 2;
}
