/* Checked copies between kernel and user memory. */
#include "kernel.h"

int __get_user_1(uint8_t *val, uint32_t addr);
int __get_user_4(uint32_t *val, uint32_t addr);
int __put_user_4(uint32_t val, uint32_t addr);

struct exception_table_entry { uint32_t insn, fixup; };
extern const struct exception_table_entry __start___ex_table[], __stop___ex_table[];

/* A user range must lie wholly below PAGE_OFFSET; the length check first
 * keeps addr + len from wrapping. */
int access_ok(uint32_t addr, uint32_t len)
{
    return len <= USER_SPACE_TOP && addr <= USER_SPACE_TOP - len;
}

long copy_to_user(uint32_t to, const void *from, uint32_t n)
{
    if (!access_ok(to, n))
        return -EFAULT;
    return __copy_user((void *)to, from, n) ? -EFAULT : 0;
}

long copy_from_user(void *to, uint32_t from, uint32_t n)
{
    if (!access_ok(from, n))
        return -EFAULT;
    return __copy_user(to, (const void *)from, n) ? -EFAULT : 0;
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
