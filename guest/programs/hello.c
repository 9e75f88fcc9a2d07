/* Writes "hello" and exits with the status given as its first argument. */
#include "mini/mini.h"

int main(int argc, char **argv)
{
    puts_fd(1, "hello\n");
    return argc > 1 ? (int)atol(argv[1]) : 0;
}
