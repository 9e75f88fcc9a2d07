/*
 * One translated block that stores to a fresh page (a #PF the kernel
 * answers with a zeroed page) and then runs into a code page not yet
 * loaded (a fetch fault at the block's start): issue 26, item 5. crosser
 * starts 15 bytes before a page boundary; its third instruction spans it.
 */
#include <stdio.h>

static int big[1 << 20];
int crosser(int *p);

__asm__(".text\n"
        ".p2align 12\n"
        ".skip 4081, 0x90\n"
        ".globl crosser\n"
        "crosser:\n"
        "    mov 4(%esp), %ecx\n"
        "    movl $1, (%ecx)\n"
        "    movl $0x55667788, 0(%ecx)\n"
        "    mov (%ecx), %eax\n"
        "    ret\n"
        ".skip 8192, 0x90\n");

int main(void)
{
    int v = crosser(&big[600000]);
    printf("crosser: %08x\n", (unsigned)v);
    return v == 0x55667788 ? 0 : 1;
}
