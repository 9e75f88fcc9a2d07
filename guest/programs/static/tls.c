/*
 * Thread-local storage through %gs, as libc sets it up with
 * set_thread_area: __thread variables, errno (itself thread-local), the
 * TCB's self pointer at %gs:0, and the AT_SYSINFO copy at %gs:0x10 that
 * both glibc and musl call through for every system call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

static __thread int counter = 42;
static __thread char name[32] = "tls";

static uint32_t gs_word(uint32_t off)
{
    uint32_t v;
    __asm__ volatile("movl %%gs:(%1), %0" : "=r"(v) : "r"(off));
    return v;
}

static uint32_t gs_selector(void)
{
    uint32_t v;
    __asm__ volatile("movl %%gs, %0" : "=r"(v));
    return v & 0xffff;
}

int main(void)
{
    int bad = 0;

    counter++;
    name[3] = '!';
    printf("counter=%d name=%s\n", counter, name);
    bad |= counter != 43;

    errno = 0;
    if (read(-1, NULL, 0) != -1 || errno != EBADF) {
        printf("errno: %d, want EBADF\n", errno);
        bad = 1;
    } else {
        printf("errno: EBADF\n");
    }

    uint32_t self = gs_word(0);
    printf("gs selector %s, self pointer %s\n",
           (gs_selector() & 7) == 3 && gs_selector() >= 0x30 && gs_selector() <= 0x43
               ? "is a TLS entry" : "is wrong",
           self == (uint32_t)(uintptr_t)pthread_self() ? "matches pthread_self" : "differs");
    bad |= self != (uint32_t)(uintptr_t)pthread_self();

    uint32_t sysinfo = (uint32_t)getauxval(AT_SYSINFO);
    printf("%%gs:0x10 %s AT_SYSINFO (%08x)\n", gs_word(0x10) == sysinfo ? "is" : "is not",
           (unsigned)sysinfo);
    bad |= gs_word(0x10) != sysinfo || sysinfo == 0;
    return bad;
}
