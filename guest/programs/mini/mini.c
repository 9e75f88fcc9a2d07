#include "mini.h"
#include <stdarg.h>

#define AT_NULL 0
#define AT_SYSINFO 32

uint32_t mini_sysinfo;
int mini_use_int80;
char **mini_environ;

long syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
    if (mini_use_int80 || !mini_sysinfo)
        return mini_int80(nr, a, b, c, d, e, f);
    return mini_vsyscall(nr, a, b, c, d, e, f);
}

void exit(int status)
{
    for (;;)
        syscall1(SYS_exit_group, status);
}

void mini_start(uint32_t *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    char **envp = argv + argc + 1;
    char **p = envp;
    while (*p)
        p++;
    for (uint32_t *aux = (uint32_t *)(p + 1); aux[0] != AT_NULL; aux += 2)
        if (aux[0] == AT_SYSINFO)
            mini_sysinfo = aux[1];
    mini_environ = envp;
    exit(main(argc, argv));
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

void *memset(void *d, int c, size_t n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

long atol(const char *s)
{
    long v = 0;
    int neg = *s == '-';
    if (neg)
        s++;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (*s++ - '0');
    return neg ? -v : v;
}

void puts_fd(int fd, const char *s)
{
    syscall3(SYS_write, fd, s, strlen(s));
}

uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static void put_unsigned(char **o, char *end, unsigned long long v, int base, int width, char pad)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % (unsigned)base];
        v /= (unsigned)base;
    } while (v);
    while (n < width && n < 24)
        tmp[n++] = pad;
    while (n && *o < end)
        *(*o)++ = tmp[--n];
}

int printf(const char *fmt, ...)
{
    char buf[512], *o = buf, *end = buf + sizeof buf - 1;
    va_list ap;
    va_start(ap, fmt);
    for (; *fmt && o < end; fmt++) {
        if (*fmt != '%') {
            *o++ = *fmt;
            continue;
        }
        fmt++;
        char pad = ' ';
        int width = 0, longlong = 0;
        if (*fmt == '0')
            pad = '0', fmt++;
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        while (*fmt == 'l')
            longlong++, fmt++;
        switch (*fmt) {
        case 'd': {
            long long v = longlong >= 2 ? va_arg(ap, long long) : va_arg(ap, long);
            if (v < 0 && o < end) {
                *o++ = '-';
                v = -v;
            }
            put_unsigned(&o, end, (unsigned long long)v, 10, width, pad);
            break;
        }
        case 'u':
            put_unsigned(&o, end, longlong >= 2 ? va_arg(ap, unsigned long long)
                                                : va_arg(ap, unsigned long), 10, width, pad);
            break;
        case 'x':
            put_unsigned(&o, end, longlong >= 2 ? va_arg(ap, unsigned long long)
                                                : va_arg(ap, unsigned long), 16, width, pad);
            break;
        case 'o':
            put_unsigned(&o, end, longlong >= 2 ? va_arg(ap, unsigned long long)
                                                : va_arg(ap, unsigned long), 8, width, pad);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            while (*s && o < end)
                *o++ = *s++;
            break;
        }
        case 'c':
            *o++ = (char)va_arg(ap, int);
            break;
        default:
            *o++ = *fmt;
        }
    }
    va_end(ap);
    *o = 0;
    puts_fd(1, buf);
    return (int)(o - buf);
}
