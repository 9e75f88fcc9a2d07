/*
 * execve's argument limits: "arg_limits N SIZE" execs itself with N more
 * arguments of SIZE bytes each and prints what execve said; the new image
 * prints how many arguments and bytes it got.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "got")) {
        size_t bytes = 0;
        for (int i = 2; i < argc; i++)
            bytes += strlen(argv[i]) + 1;
        printf("got %d arguments, %zu bytes\n", argc - 2, bytes);
        return 0;
    }
    if (argc != 3)
        return 2;
    long n = atol(argv[1]), size = atol(argv[2]);
    char **args = calloc((size_t)n + 3, sizeof *args);
    char *text = malloc((size_t)size + 1);
    if (!args || !text)
        return 1;
    memset(text, 'x', (size_t)size);
    text[size] = 0;
    args[0] = argv[0];
    args[1] = "got";
    for (long i = 0; i < n; i++)
        args[i + 2] = text;
    execv("/proc/self/exe", args);
    printf("execve: %s\n", strerror(errno));
    return 0;
}
