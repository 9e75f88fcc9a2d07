/*
 * Prints, on one line, the segment registers and EFLAGS the program runs
 * with, AT_SYSINFO, and the first 11 bytes of the vsyscall page's stub
 * there (mapped user-readable, wherever the kernel variant has it), e.g.
 *   cs=0073 ss=007b ds=007b es=007b sysinfo=fffff000 eflags=00000202
 *   vsyscall=51 52 55 89 e5 0f 34 5d 5a 59 c3
 * (all on one line; the stub shown is the sysenter one).
 */
#include "mini/mini.h"

#define STUB_BYTES 11

static uint32_t read_seg_cs(void) { uint32_t v; __asm__ volatile("movl %%cs, %0" : "=r"(v)); return v & 0xffff; }
static uint32_t read_seg_ss(void) { uint32_t v; __asm__ volatile("movl %%ss, %0" : "=r"(v)); return v & 0xffff; }
static uint32_t read_seg_ds(void) { uint32_t v; __asm__ volatile("movl %%ds, %0" : "=r"(v)); return v & 0xffff; }
static uint32_t read_seg_es(void) { uint32_t v; __asm__ volatile("movl %%es, %0" : "=r"(v)); return v & 0xffff; }

static uint32_t read_eflags(void)
{
    uint32_t v;
    __asm__ volatile("pushfl\n\tpopl %0" : "=r"(v));
    return v;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const volatile uint8_t *page = (const volatile uint8_t *)mini_sysinfo;
    char hex[3 * STUB_BYTES + 1], *o = hex;

    for (int i = 0; i < STUB_BYTES; i++) {
        uint8_t b = page[i];
        if (i)
            *o++ = ' ';
        *o++ = "0123456789abcdef"[b >> 4];
        *o++ = "0123456789abcdef"[b & 15];
    }
    *o = 0;
    printf("cs=%04x ss=%04x ds=%04x es=%04x sysinfo=%08x eflags=%08x vsyscall=%s\n",
           (unsigned long)read_seg_cs(), (unsigned long)read_seg_ss(),
           (unsigned long)read_seg_ds(), (unsigned long)read_seg_es(),
           (unsigned long)mini_sysinfo, (unsigned long)read_eflags(), hex);
    return 0;
}
