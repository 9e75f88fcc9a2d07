/*
 * gettimeofday() N times (default 10 000) through libc, as the 2002
 * benchmark did, checking that time never goes backwards. The system call
 * libc makes for it is its own choice (glibc 2.36 and musl 1.2 both call
 * clock_gettime64). Prints one line that is the same on every CPU model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    struct timeval prev = { 0, 0 }, tv;

    for (long i = 0; i < n; i++) {
        if (gettimeofday(&tv, NULL) != 0) {
            perror("gettimeofday");
            return 1;
        }
        if (tv.tv_sec < prev.tv_sec ||
            (tv.tv_sec == prev.tv_sec && tv.tv_usec < prev.tv_usec)) {
            printf("time went backwards at call %ld\n", i);
            return 1;
        }
        prev = tv;
    }
    printf("gettimeofday: %ld calls, time never went backwards\n", n);
    return 0;
}
