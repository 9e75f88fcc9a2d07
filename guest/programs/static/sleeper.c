/*
 * One long sleep (issue 26, item 9): nanosleep of argv[1] seconds, and
 * what the clock and the TSC say it took. Under emu both are modeled
 * time; with tickless idle its host time does not grow with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static unsigned long long tsc(void)
{
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (unsigned long long)hi << 32 | lo;
}

int main(int argc, char **argv)
{
    struct timespec ts = { argc > 1 ? atol(argv[1]) : 1, 0 };
    struct timeval a, b;
    gettimeofday(&a, NULL);
    unsigned long long t0 = tsc();
    if (nanosleep(&ts, NULL) != 0)
        return 1;
    unsigned long long t1 = tsc();
    gettimeofday(&b, NULL);
    long long us = (long long)(b.tv_sec - a.tv_sec) * 1000000 + (b.tv_usec - a.tv_usec);
    printf("slept %lld us, %llu cycles\n", us, t1 - t0);
    return 0;
}
