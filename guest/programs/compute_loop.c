/* A compute-bound loop for make bench: arithmetic, loads and stores. */
#include "mini/mini.h"

static uint32_t table[256];

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    uint32_t x = 12345;
    for (long i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        table[x >> 24] += x;
    }
    uint32_t sum = 0;
    for (int i = 0; i < 256; i++)
        sum ^= table[i];
    printf("compute_loop %ld: %x\n", n, sum);
    return 0;
}
