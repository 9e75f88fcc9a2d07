/* Freestanding string and formatting helpers for the guest kernel. */
#include <stdarg.h>
#include "kernel.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/*
 * The copies use string instructions rather than C loops: GCC would turn a
 * byte loop in memset/memcpy back into a call to itself. Like all kernel C
 * code they rely on the entry paths having cleared EFLAGS.DF.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
    void *d = dst;
    size_t words = n / 4, bytes = n % 4;

    __asm__ volatile("rep movsl\n\t"
                     "movl %3, %%ecx\n\t"
                     "rep movsb"
                     : "+D"(d), "+S"(src), "+c"(words)
                     : "r"(bytes)
                     : "memory");
    return dst;
}

/* For overlapping copies. */
void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if (d <= s || d >= s + n)
        return memcpy(dst, src, n);
    /* Overlapping with dst above src: copy backwards. */
    d += n - 1;
    s += n - 1;
    __asm__ volatile("std\n\t"
                     "rep movsb\n\t"
                     "cld"
                     : "+D"(d), "+S"(s), "+c"(n)
                     :
                     : "memory");
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    void *d = dst;

    __asm__ volatile("rep stosb"
                     : "+D"(d), "+c"(n)
                     : "a"(c)
                     : "memory");
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;

    for (; n > 0; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

/* ---- formatting ---- */

struct outbuf {
    char *buf;
    size_t size;
    size_t n;   /* characters produced, even those that did not fit */
};

static void put(struct outbuf *o, char c)
{
    if (o->n + 1 < o->size)
        o->buf[o->n] = c;
    o->n++;
}

static void pad(struct outbuf *o, char c, int count)
{
    while (count-- > 0)
        put(o, c);
}

/*
 * Divide v by 10 in 16-bit steps so that no 64-bit division (a libgcc call,
 * which we do not link) is needed.
 */
static unsigned divmod10(uint64_t *v)
{
    uint32_t r = 0;
    uint64_t q = 0;

    for (int shift = 48; shift >= 0; shift -= 16) {
        uint32_t cur = (r << 16) | (uint32_t)((*v >> shift) & 0xffff);
        q |= (uint64_t)(cur / 10) << shift;
        r = cur % 10;
    }
    *v = q;
    return r;
}

struct spec {
    int left;       /* '-' */
    int zero;       /* '0' */
    int alt;        /* '#' */
    int width;
    int prec;       /* -1 when absent */
};

static void put_number(struct outbuf *o, uint64_t v, unsigned base, int neg,
                       int upper, const struct spec *sp)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[24];
    int len = 0, prefix = 0, zeros = 0, fill;

    do {
        if (base == 16) {
            tmp[len++] = digits[v & 15];
            v >>= 4;
        } else {
            tmp[len++] = digits[divmod10(&v)];
        }
    } while (v != 0);

    if (sp->prec >= 0) {
        if (sp->prec > len)
            zeros = sp->prec - len;
    }
    if (neg)
        prefix = 1;
    else if (sp->alt && base == 16)
        prefix = 2;
    fill = sp->width - len - zeros - prefix;
    if (fill > 0 && sp->zero && !sp->left && sp->prec < 0) {
        zeros += fill;
        fill = 0;
    }

    if (!sp->left)
        pad(o, ' ', fill);
    if (neg)
        put(o, '-');
    else if (prefix == 2) {
        put(o, '0');
        put(o, upper ? 'X' : 'x');
    }
    pad(o, '0', zeros);
    while (len > 0)
        put(o, tmp[--len]);
    if (sp->left)
        pad(o, ' ', fill);
}

static void put_string(struct outbuf *o, const char *s, const struct spec *sp)
{
    int len;

    if (s == NULL_PTR)
        s = "(null)";
    len = sp->prec >= 0 ? (int)strnlen(s, sp->prec) : (int)strlen(s);
    if (!sp->left)
        pad(o, ' ', sp->width - len);
    for (int i = 0; i < len; i++)
        put(o, s[i]);
    if (sp->left)
        pad(o, ' ', sp->width - len);
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
    sp->left = sp->zero = sp->alt = sp->width = 0;
    sp->prec = -1;

    for (;; f++) {
        if (*f == '-')
            sp->left = 1;
        else if (*f == '0')
            sp->zero = 1;
        else if (*f == '#')
            sp->alt = 1;
        else
            break;
    }
    if (*f == '*') {
        sp->width = va_arg(*ap, int);
        if (sp->width < 0) {
            sp->left = 1;
            sp->width = -sp->width;
        }
        f++;
    } else {
        while (*f >= '0' && *f <= '9')
            sp->width = sp->width * 10 + (*f++ - '0');
    }
    if (*f == '.') {
        f++;
        sp->prec = 0;
        if (*f == '*') {
            sp->prec = va_arg(*ap, int);
            f++;
        } else {
            while (*f >= '0' && *f <= '9')
                sp->prec = sp->prec * 10 + (*f++ - '0');
        }
    }
    return f;
}

/*
 * Supports %d %i %u %x %X %p %s %c %% with flags "-0#", width, precision
 * and the length modifiers h, hh, l, z (all 32-bit here) and ll.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct outbuf o = { buf, size, 0 };
    struct spec sp;
    va_list args;

    va_copy(args, ap);
    for (const char *f = fmt; *f; f++) {
        int longlong = 0;
        uint64_t v;

        if (*f != '%') {
            put(&o, *f);
            continue;
        }
        f = parse_spec(f + 1, &sp, &args);
        while (*f == 'l' || *f == 'h' || *f == 'z') {
            if (f[0] == 'l' && f[1] == 'l') {
                longlong = 1;
                f++;
            }
            f++;
        }

        switch (*f) {
        case 'd':
        case 'i': {
            int64_t s = longlong ? va_arg(args, int64_t) : va_arg(args, int32_t);
            v = s < 0 ? -(uint64_t)s : (uint64_t)s;
            put_number(&o, v, 10, s < 0, 0, &sp);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
            v = longlong ? va_arg(args, uint64_t) : va_arg(args, uint32_t);
            put_number(&o, v, *f == 'u' ? 10 : 16, 0, *f == 'X', &sp);
            break;
        case 'p':
            sp.alt = 1;
            sp.prec = 8;
            put_number(&o, (uint32_t)va_arg(args, void *), 16, 0, 0, &sp);
            break;
        case 's':
            put_string(&o, va_arg(args, const char *), &sp);
            break;
        case 'c': {
            char c[2] = { (char)va_arg(args, int), 0 };
            sp.prec = 1;
            put_string(&o, c, &sp);
            break;
        }
        case '%':
            put(&o, '%');
            break;
        case '\0':
            f--;    /* stray '%' at the end: let the loop stop */
            break;
        default:
            put(&o, '%');
            put(&o, *f);
            break;
        }
    }
    va_end(args);

    if (size > 0)
        buf[o.n < size ? o.n : size - 1] = '\0';
    return (int)o.n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
