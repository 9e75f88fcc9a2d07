/*
 * getcwd in a directory whose path is longer than a page: Linux's system
 * call says ENAMETOOLONG (a buffer that is only too small: ERANGE).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *result(long r)
{
    return r < 0 ? strerror(errno) : "ok";
}

int main(void)
{
    static char buf[8192], name[201];

    memset(name, 'd', 200);
    if (mkdir("start", 0755) != 0 || chdir("start") != 0)
        return 1;
    printf("short path, 2-byte buffer: %s\n", result(syscall(SYS_getcwd, buf, 2)));
    for (int i = 0; i < 22; i++)
        if (mkdir(name, 0755) != 0 || chdir(name) != 0)
            return 1;
    printf("path over 4096 bytes: %s\n", result(syscall(SYS_getcwd, buf, sizeof buf)));
    return 0;
}
