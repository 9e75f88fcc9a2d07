/*
 * The fuzz targets' memcmp, for every caller: Unicorn's, the emulator's
 * and libFuzzer's. The sanitizer's memcmp is a weak interceptor, so this
 * definition takes its place at link time; Unicorn's archive is linked
 * as Debian built it. Unicorn's translator keeps its constant pool sorted
 * by comparing each new entry with those before it, a few hundred 8-byte
 * memcmps a block; through the interceptor each call also went to
 * libFuzzer's comparison hook, which copied and hashed the two host
 * pointers into its table of recent compares: a quarter of an input's
 * time, for values no input can steer. What is given up: ASan's range
 * checks on the emulator's own memcmp calls (its loads are still
 * checked), and libFuzzer's guidance from them.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

__attribute__((no_sanitize("address", "undefined", "coverage"), no_builtin("memcmp")))
int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (uint64_t u, v; n >= 8; n -= 8, x += 8, y += 8) {
        __builtin_memcpy(&u, x, 8);
        __builtin_memcpy(&v, y, 8);
        if (u != v)
            break;
    }
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}
