/*
 * A program that rewrites its own code over and over (as a JIT does):
 * argv[1] times it writes "mov $i, %eax; ret" into one of 64 slots of an
 * executable page and calls it. Each rewrite makes the engine translate
 * the slot again (issue 26, item 7: translations the engine never
 * reclaims). Prints the sum of what the calls returned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned sum = 0;
    if (page == MAP_FAILED)
        return 1;
    for (long i = 0; i < n; i++) {
        unsigned char *slot = page + (i % 64) * 64;
        unsigned v = (unsigned)i;
        slot[0] = 0xb8;
        memcpy(slot + 1, &v, sizeof v);
        slot[5] = 0xc3;
        sum += ((unsigned (*)(void))slot)();
    }
    printf("sum %u\n", sum);
    return 0;
}
