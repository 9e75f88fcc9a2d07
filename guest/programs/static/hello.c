/*
 * Hello world against a real libc (glibc or musl, static i386): stdio,
 * the environment and the exit status. "hello N" exits with status N.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *home = getenv("HOME");

    printf("hello, world (argc=%d, HOME=%s)\n", argc, home ? home : "(unset)");
    return argc > 1 ? atoi(argv[1]) : 0;
}
