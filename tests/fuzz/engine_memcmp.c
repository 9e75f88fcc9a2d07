/*
 * The fuzz targets' Unicorn calls this for memcmp (the Makefile renames
 * the symbol in a copy of its archive). Its translator's constant pool
 * compares each new entry with those before it, a few hundred 8-byte
 * memcmps a block; through the sanitizer's interceptor each also went
 * to libFuzzer's comparison hook, which copied and hashed the two host
 * pointers into its table of recent compares: a quarter of an input's
 * time, for values no input can steer.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int fuzz_engine_memcmp(const void *a, const void *b, size_t n);

/* Unicorn itself is not instrumented: neither is this. */
__attribute__((no_sanitize("address", "coverage")))
int fuzz_engine_memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (uint64_t u, v; n >= 8; n -= 8, x += 8, y += 8) {
        memcpy(&u, x, 8);
        memcpy(&v, y, 8);
        if (u != v)
            break;
    }
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}
