/*
 * Single loads and stores to user memory, as Linux 2.5.53's __get_user
 * and __put_user are: one mov each, inline, listed in __ex_table, so a
 * fault on it lands on a stub in .fixup that sets the error and goes on
 * after it. No range check: the caller has made one with access_ok for
 * the whole structure first. The size comes from the pointer's type.
 *
 * err is or-ed into the caller's error (0 or -EFAULT), as 2.5.53's
 * frame code does `err |= __put_user(...)`; the fixup of a load also
 * clears the destination.
 */
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include "errno.h"

#define __uaccess_fixup(insn, fix)                  \
    "1:\t" insn "\n"                                \
    "2:\n"                                          \
    ".section .fixup, \"ax\"\n"                     \
    "3:\tmovl %[efault], %[fail]\n"                  \
    fix                                             \
    "\tjmp 2b\n"                                    \
    ".previous\n"                                   \
    ".section __ex_table, \"a\"\n"                  \
    "\t.align 4\n"                                  \
    "\t.long 1b, 3b\n"                              \
    ".previous"

/* suffix: the mov's size; reg: the operand modifier naming the register
 * of that size; how: the value's constraint (a byte needs a register
 * with a byte half) */
#define __put_user_asm(x, ptr, err, suffix, reg, how)                            \
    __asm__ volatile(__uaccess_fixup("mov" suffix " %" reg "[v], %[dst]", "") \
                     : [fail] "+r"(err), [dst] "=m"(*(ptr))                       \
                     : [v] how(x), [efault] "i"(-EFAULT))

#define __get_user_asm(x, ptr, err, suffix, reg, how)                               \
    __asm__ volatile(__uaccess_fixup("mov" suffix " %[src], %" reg "[v]",          \
                                     "\txor" suffix " %" reg "[v], %" reg "[v]\n") \
                     : [fail] "+r"(err), [v] how(x)                                \
                     : [src] "m"(*(ptr)), [efault] "i"(-EFAULT))

/* 0 or -EFAULT */
#define __put_user(x, ptr)                                                       \
    ({                                                                           \
        long __pu_err = 0;                                                       \
        __typeof__(*(ptr)) __pu_val = (x);                                       \
        switch (sizeof(*(ptr))) {                                                \
        case 1: __put_user_asm(__pu_val, (ptr), __pu_err, "b", "b", "iq"); break; \
        case 2: __put_user_asm(__pu_val, (ptr), __pu_err, "w", "w", "ir"); break; \
        case 4: __put_user_asm(__pu_val, (ptr), __pu_err, "l", "", "ir"); break;  \
        default: __put_user_bad(); break;                                        \
        }                                                                        \
        __pu_err;                                                                \
    })

#define __get_user(x, ptr)                                                       \
    ({                                                                           \
        long __gu_err = 0;                                                       \
        __typeof__(*(ptr)) __gu_val;                                             \
        switch (sizeof(*(ptr))) {                                                \
        case 1: __get_user_asm(__gu_val, (ptr), __gu_err, "b", "b", "=q"); break; \
        case 2: __get_user_asm(__gu_val, (ptr), __gu_err, "w", "w", "=r"); break; \
        case 4: __get_user_asm(__gu_val, (ptr), __gu_err, "l", "", "=r"); break;  \
        default: __gu_val = 0; __get_user_bad(); break;                          \
        }                                                                        \
        (x) = __gu_val;                                                          \
        __gu_err;                                                                \
    })

/* Never defined: a size other than 1, 2 or 4 fails at the link. */
void __put_user_bad(void);
void __get_user_bad(void);

#endif
