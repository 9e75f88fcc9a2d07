/* One system call through AT_SYSINFO, then exit: for the reference traces.
 *   one_call gettimeofday|getpid */
#include "mini/mini.h"

int main(int argc, char **argv)
{
    struct timeval tv;
    if (argc > 1 && !strcmp(argv[1], "getpid"))
        return syscall0(SYS_getpid) == 1 ? 0 : 1;
    return syscall2(SYS_gettimeofday, &tv, 0) == 0 ? 0 : 1;
}
