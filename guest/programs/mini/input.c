/*
 * The fuzz programs' input (cpu_fuzz, syscall_fuzz): raw bytes from a file
 * descriptor (what the fuzz harness feeds on stdin), or hex from the
 * command line (to replay one input by hand).
 */
#include "mini.h"

uint32_t read_input(int fd, uint8_t *buf, uint32_t max)
{
    uint32_t len = 0;
    for (long n; len < max; len += (uint32_t)n)
        if ((n = syscall3(SYS_read, fd, buf + len, max - len)) <= 0)
            break;
    return len;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

uint32_t decode_hex(const char *hex, uint8_t *buf, uint32_t max)
{
    uint32_t len = 0;
    while (len < max) {
        int hi = hexval(hex[0]), lo = hi < 0 ? -1 : hexval(hex[1]);
        if (lo < 0)
            break;
        buf[len++] = (uint8_t)(hi << 4 | lo);
        hex += 2;
    }
    return len;
}
