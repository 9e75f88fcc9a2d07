/*
 * What the kernel gives a program of its vsyscall page (tests/test_variants.c):
 * AT_SYSINFO and AT_SYSINFO_EHDR from the auxiliary vector, the first four
 * bytes at AT_SYSINFO_EHDR, the ELF header's entry, the page's
 * __kernel_vsyscall symbol when the image names one, and a getpid made
 * through AT_SYSINFO.
 */
#include "mini/mini.h"
#include "syscall_nr.h"

#define AT_NULL         0
#define AT_SYSINFO      32
#define AT_SYSINFO_EHDR 33

static uint32_t aux(uint32_t type)
{
    char **p = mini_environ;

    while (*p)
        p++;
    for (uint32_t *a = (uint32_t *)(p + 1); a[0] != AT_NULL; a += 2)
        if (a[0] == type)
            return a[1];
    return 0;
}

int main(int argc, char **argv)
{
    uint32_t entry = aux(AT_SYSINFO), ehdr = aux(AT_SYSINFO_EHDR);

    (void)argc;
    (void)argv;
    long pid;

    printf("AT_SYSINFO %08x AT_SYSINFO_EHDR %08x\n", entry, ehdr);
    if (!ehdr)
        return 1;
    const uint8_t *h = (const uint8_t *)ehdr;
    printf("ehdr bytes %02x %c%c%c, e_entry %08x\n", h[0], h[1], h[2], h[3],
           *(const uint32_t *)(h + 24));
    void *sym = mini_vdso_sym("__kernel_vsyscall");
    printf("__kernel_vsyscall %08x\n", (uint32_t)sym);
    __asm__ volatile("call *%2" : "=a"(pid) : "a"(SYS_getpid), "r"(entry) : "ecx", "edx", "memory");
    printf("getpid through AT_SYSINFO: %ld\n", pid);
    return 0;
}
