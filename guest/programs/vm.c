/*
 * vm CASE [N]: one process's address space, case by case (tests/test_vm.c).
 * Each case prints what it saw; a case that should be killed prints its
 * address first as "cr2=XXXXXXXX".
 *   stack N       recurse through N KiB of stack, touching every page: "ok"
 *   stack-over    recurse past the 8 MiB stack limit: killed, cr2 below it
 *   touch N       mmap N MiB and touch every page: "ok", or killed (--mem)
 *   mmap-huge     one mmap larger than --mem: "ENOMEM"
 *   fork-after N  touch N MiB, then fork: "fork: child exited 0", or
 *                 "fork: ENOMEM" when the copy would not fit in --mem
 *   brk           grow, touch, shrink and grow the heap: fresh pages are zero
 *   mremap        grow in place, move, shrink: the bytes follow
 *   mprotect      read-only pages read; PROT_NONE ones kill (cr2=)
 *   munmap        an unmapped page kills (cr2=)
 *   maps          mmap, munmap a hole in the middle, mmap into the hole
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define PAGE 4096

static long map(unsigned long addr, unsigned long len, int prot, int flags)
{
    return syscall6(SYS_mmap2, (long)addr, (long)len, prot, flags | MAP_ANONYMOUS, -1, 0);
}

static int failed(long r)
{
    return (unsigned long)r > -4096ul;
}

static long depth_kib(long kib)
{
    volatile char frame[1024];
    frame[0] = (char)kib;
    frame[1023] = 1;
    if (kib <= 1)
        return frame[0];
    return depth_kib(kib - 1) + frame[1023];
}

static int case_touch(long mib)
{
    long p = map(0, (unsigned long)mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    if (failed(p)) {
        printf("mmap: %ld\n", -p);
        return 1;
    }
    for (long off = 0; off < mib << 20; off += PAGE)
        ((volatile char *)p)[off] = 1;
    printf("ok\n");
    return 0;
}

static int case_fork_after(long mib)
{
    int status = -1;
    if (case_touch(mib))
        return 1;
    long pid = syscall0(SYS_fork);
    if (pid == 0)
        syscall1(SYS_exit, 0);
    if (pid == -ENOMEM) {
        printf("fork: ENOMEM\n");
        return 0;
    }
    if (failed(pid) || syscall3(SYS_wait4, pid, &status, 0) != pid) {
        printf("fork: %ld\n", pid);
        return 1;
    }
    printf("fork: child exited %d\n", (status >> 8) & 0xff);
    return 0;
}

static int case_brk(void)
{
    long base = syscall1(SYS_brk, 0);
    long top = syscall1(SYS_brk, base + (1 << 20));
    char *p = (char *)base;
    if (top != base + (1 << 20)) {
        printf("brk did not grow\n");
        return 1;
    }
    for (long i = 0; i < (1 << 20); i += PAGE)
        p[i] = 'x';
    syscall1(SYS_brk, base);
    syscall1(SYS_brk, base + (1 << 20));
    long nonzero = 0;
    for (long i = 0; i < (1 << 20); i += PAGE)
        nonzero += p[i] != 0;
    printf("brk: grew 1 MiB, %ld of 256 pages nonzero after shrink and grow\n", nonzero);
    return 0;
}

static int case_mremap(void)
{
    char *p = (char *)map(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    for (int i = 0; i < 3; i++)
        p[i * PAGE] = (char)('a' + i);
    /* Something right after it: growing must move. */
    long block = map((unsigned long)p + 3 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_FIXED);
    char *q = (char *)syscall6(SYS_mremap, (long)p, 3 * PAGE, 64 * PAGE, MREMAP_MAYMOVE, 0, 0);
    if (failed((long)q) || failed(block)) {
        printf("mremap: %ld\n", -(long)q);
        return 1;
    }
    printf("moved %s; bytes %c%c%c; new tail %d\n", q != p ? "yes" : "no", q[0], q[PAGE],
           q[2 * PAGE], q[63 * PAGE]);
    long r = syscall6(SYS_mremap, (long)q, 64 * PAGE, PAGE, 0, 0, 0);
    printf("shrunk to %s; byte %c\n", r == (long)q ? "the same place" : "elsewhere", q[0]);
    /* the rest is gone: growing in place works again */
    r = syscall6(SYS_mremap, (long)q, PAGE, 8 * PAGE, 0, 0, 0);
    printf("grew in place: %s, byte %c, new page %d\n", r == (long)q ? "yes" : "no", q[0],
           q[7 * PAGE]);
    return 0;
}

static int case_mprotect(void)
{
    char *p = (char *)map(0, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    p[0] = 'r';
    p[PAGE] = 'n';
    syscall3(SYS_mprotect, (long)p, PAGE, PROT_READ);
    syscall3(SYS_mprotect, (long)p + PAGE, PAGE, PROT_NONE);
    printf("read-only page reads %c\n", p[0]);
    syscall3(SYS_mprotect, (long)p + PAGE, PAGE, PROT_READ);
    printf("PROT_NONE then PROT_READ keeps %c\n", p[PAGE]);
    syscall3(SYS_mprotect, (long)p + PAGE, PAGE, PROT_NONE);
    printf("cr2=%08lx\n", (unsigned long)(p + PAGE));
    return ((volatile char *)p)[PAGE];
}

static int case_munmap(void)
{
    char *p = (char *)map(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    p[PAGE] = 1;
    syscall2(SYS_munmap, (long)p + PAGE, PAGE);
    printf("cr2=%08lx\n", (unsigned long)(p + PAGE));
    return ((volatile char *)p)[PAGE];
}

static int case_maps(void)
{
    char *p = (char *)map(0, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    for (int i = 0; i < 8; i++)
        p[i * PAGE] = (char)('0' + i);
    syscall2(SYS_munmap, (long)p + 2 * PAGE, 3 * PAGE);
    long q = map((unsigned long)p + 2 * PAGE, 3 * PAGE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_FIXED);
    printf("refilled the hole: %s; ", q == (long)(p + 2 * PAGE) ? "yes" : "no");
    for (int i = 0; i < 8; i++)
        printf("%c", p[i * PAGE] ? p[i * PAGE] : '.');
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    long n = argc > 2 ? atol(argv[2]) : 0;

    if (!strcmp(c, "stack")) {
        printf("ok %ld\n", depth_kib(n) >= 0 ? n : -1);
        return 0;
    }
    if (!strcmp(c, "stack-over")) {
        printf("cr2=%08lx\n", (unsigned long)0xbf800000);
        return (int)depth_kib(9 * 1024);
    }
    if (!strcmp(c, "touch"))
        return case_touch(n);
    if (!strcmp(c, "mmap-huge")) {
        long r = map(0, 0xb0000000ul, PROT_READ | PROT_WRITE, MAP_PRIVATE);
        printf("%s\n", r == -ENOMEM ? "ENOMEM" : "mapped");
        return 0;
    }
    if (!strcmp(c, "fork-after"))
        return case_fork_after(n);
    if (!strcmp(c, "brk"))
        return case_brk();
    if (!strcmp(c, "mremap"))
        return case_mremap();
    if (!strcmp(c, "mprotect"))
        return case_mprotect();
    if (!strcmp(c, "munmap"))
        return case_munmap();
    if (!strcmp(c, "maps"))
        return case_maps();
    printf("vm: unknown case %s\n", c);
    return 2;
}
