/* Checked copies between kernel and user memory. */
#include "kernel.h"
#include "variant.h"

int __get_user_1(uint8_t *val, uint32_t addr);
int __get_user_4(uint32_t *val, uint32_t addr);
int __put_user_4(uint32_t val, uint32_t addr);

struct exception_table_entry { uint32_t insn, fixup; };
extern const struct exception_table_entry __start___ex_table[], __stop___ex_table[];

/*
 * The copies between kernel and user memory, in the shape of 2.5.53's
 * arch/i386/lib/usercopy.c and include/asm-i386/uaccess.h: copy_to_user
 * prefetches the source (a PIII or K7 kernel), checks the range, and calls
 * the out-of-line __copy_to_user, which picks the string copy unless a
 * long copy's two addresses are misaligned to each other (Intel's
 * usercopy option, a P4 or PIII kernel), and the string copy runs three
 * string instructions. They return the bytes left; copy_to_user here
 * turns that into -EFAULT, which is what every caller of this kernel wants
 * (2.5.53's callers made that test themselves).
 */

/* 2.5.54 prefetches on the P4 too (CONFIG_X86_PREFETCH, e17f572d4d). */
#if defined(CONFIG_MPENTIUMIII) || (KHIST >= KHIST_2554 && defined(CONFIG_MPENTIUM4))
static inline void prefetch(const void *x)
{
    __asm__ volatile("prefetchnta (%0)" : : "r"(x));
}
#elif defined(CONFIG_MK7)
/* 2.5.53's processor.h: CONFIG_X86_USE_3DNOW (an MK7 kernel) has 3DNow!'s
 * prefetch and prefetchw. */
static inline void prefetch(const void *x)
{
    __asm__ volatile("prefetch (%0)" : : "r"(x));
}
#else
static inline void prefetch(const void *x) { (void)x; }
#endif
#ifdef CONFIG_MK7
static inline void prefetchw(const void *x)
{
    __asm__ volatile("prefetchw (%0)" : : "r"(x));
}
#else
static inline void prefetchw(const void *x) { (void)x; }   /* a K7 kernel's only */
#endif

/* 2.5.53 set the mask to 7 on the PIII and the P4 (cpu/intel.c). */
static inline int movsl_is_ok(uint32_t a1, uint32_t a2, unsigned long n)
{
#if defined(CONFIG_MPENTIUM4) || defined(CONFIG_MPENTIUMIII)
    if (n >= 64 && ((a1 ^ a2) & 7))
        return 0;
#else
    (void)a1;
    (void)a2;
    (void)n;
#endif
    return 1;
}

/*
 * The string copy. Over 7 bytes, single bytes first until the destination
 * is 8-byte aligned, then words, then the odd bytes; under 8, the bytes
 * alone. Every string op runs, a zero count included: each pays its
 * start-up. Labels 1, 2, 3 are the three string ops, 4 the end. A fault
 * leaves in ECX what is not done: the head's bytes plus the rest (fixup 5),
 * the words times four plus the tail (6), or the tail's bytes.
 */
#define STRING_COPY                 \
    "	cmpl $7,%0\n"               \
    "	jbe 3f\n"                   \
    "	movl %1,%0\n"               \
    "	negl %0\n"                  \
    "	andl $7,%0\n"               \
    "	subl %0,%3\n"               \
    "1:	rep; movsb\n"               \
    "	movl %3,%0\n"               \
    "	shrl $2,%0\n"               \
    "	andl $3,%3\n"               \
    "	.align 2,0x90\n"            \
    "2:	rep; movsl\n"               \
    "	movl %3,%0\n"               \
    "3:	rep; movsb\n"               \
    "4:\n"
#define STRING_COPY_OPERANDS(n, to, from, edi, esi, rest)         \
    : "=&c"(n), "=&D"(edi), "=&S"(esi), "=r"(rest)                 \
    : "3"(n), "0"(n), "1"(to), "2"(from)                           \
    : "memory"

/* Returns the bytes not copied. */
static inline unsigned long string_copy(void *to, const void *from, unsigned long n)
{
    unsigned long edi, esi, rest;

    __asm__ volatile(
        STRING_COPY
        ".section .fixup,\"ax\"\n"
        "5:	addl %3,%0\n"
        "	jmp 4b\n"
        "6:	leal (%3,%0,4),%0\n"
        "	jmp 4b\n"
        ".previous\n"
        ".section __ex_table,\"a\"\n"
        "	.align 4\n"
        "	.long 1b,5b\n"
        "	.long 2b,6b\n"
        "	.long 3b,4b\n"
        ".previous"
        STRING_COPY_OPERANDS(n, to, from, edi, esi, rest));
    return n;
}

/* The same from user memory: what a fault leaves undone is zeroed in the
 * kernel's buffer, so a short copy never hands back stale kernel bytes. */
static inline unsigned long string_copy_zeroing(void *to, const void *from, unsigned long n)
{
    unsigned long edi, esi, rest;

    __asm__ volatile(
        STRING_COPY
        ".section .fixup,\"ax\"\n"
        "5:	addl %3,%0\n"
        "	jmp 7f\n"
        "6:	leal (%3,%0,4),%0\n"
        "7:	pushl %0\n"
        "	pushl %%eax\n"
        "	xorl %%eax,%%eax\n"
        "	rep; stosb\n"
        "	popl %%eax\n"
        "	popl %0\n"
        "	jmp 4b\n"
        ".previous\n"
        ".section __ex_table,\"a\"\n"
        "	.align 4\n"
        "	.long 1b,5b\n"
        "	.long 2b,6b\n"
        "	.long 3b,7b\n"
        ".previous"
        STRING_COPY_OPERANDS(n, to, from, edi, esi, rest));
    return n;
}

/* Out of line, as 2.5.53's. A misaligned long copy takes the string copy
 * too: Intel's unrolled copy for it is not built here (docs/fidelity.md). */
__attribute__((noinline)) unsigned long __copy_to_user(uint32_t to, const void *from,
                                                       unsigned long n)
{
    if (movsl_is_ok(to, (uint32_t)from, n))
        n = string_copy((void *)to, from, n);
    else
        n = string_copy((void *)to, from, n);
    return n;
}

__attribute__((noinline)) unsigned long __copy_from_user(void *to, uint32_t from,
                                                         unsigned long n)
{
    if (movsl_is_ok((uint32_t)to, from, n))
        n = string_copy_zeroing(to, (const void *)from, n);
    else
        n = string_copy_zeroing(to, (const void *)from, n);
    return n;
}

long copy_to_user(uint32_t to, const void *from, uint32_t n)
{
    prefetch(from);
    if (access_ok(to, n))
        n = __copy_to_user(to, from, n);
    return n ? -EFAULT : 0;
}

long copy_from_user(void *to, uint32_t from, uint32_t n)
{
    prefetchw(to);
    if (access_ok(from, n))
        n = __copy_from_user(to, from, n);
    return n ? -EFAULT : 0;
}

long strncpy_from_user(char *to, uint32_t from, long max)
{
    for (long i = 0; i < max; i++) {
        uint8_t c;
        if (!access_ok(from + i, 1) || __get_user_1(&c, from + i))
            return -EFAULT;
        to[i] = (char)c;
        if (c == 0)
            return i;
    }
    return max;
}

int get_user_u32(uint32_t *val, uint32_t addr)
{
    if (!access_ok(addr, 4))
        return -EFAULT;
    return __get_user_4(val, addr);
}

int put_user_u32(uint32_t val, uint32_t addr)
{
    if (!access_ok(addr, 4))
        return -EFAULT;
    return __put_user_4(val, addr);
}

uint32_t search_exception_table(uint32_t eip)
{
    for (const struct exception_table_entry *e = __start___ex_table;
         e < __stop___ex_table; e++)
        if (e->insn == eip)
            return e->fixup;
    return 0;
}
