/*
 * What the standard descriptors are: a regular file redirected to stdin is
 * seekable with one offset that every process inheriting it shares; a pipe
 * is not seekable; a terminal says so to isatty. The fork case is POSIX's
 * rule for input streams at exit(): the child's exit() moves the shared
 * offset back to what its stdio stream consumed, so the parent reads on
 * from the end of the first line, as a shell reading a script from stdin
 * does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *kind(int fd)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return "none";
    if (S_ISREG(st.st_mode))
        return "a regular file";
    if (S_ISFIFO(st.st_mode))
        return "a pipe";
    if (S_ISCHR(st.st_mode))
        return "a character device";
    return "other";
}

static void describe(int fd)
{
    off_t at = lseek(fd, 0, SEEK_CUR);
    int err = errno;

    printf("fd %d: %s, isatty %d, lseek %s\n", fd, kind(fd), isatty(fd),
           at < 0 ? strerror(err) : "works");
}

int main(void)
{
    char line[256], rest[256];
    ssize_t n;
    pid_t pid;

    describe(0);
    describe(1);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin))
        return 1;
    printf("first line: %s", line);
    fflush(stdout);
    pid = fork();
    if (pid == 0)
        exit(0);   /* not _exit: stdio's exit rule repositions fd 0 */
    waitpid(pid, NULL, 0);
    n = read(0, rest, sizeof rest - 1);
    rest[n > 0 ? n : 0] = 0;
    printf("the parent reads on at %ld: %s", (long)lseek(0, 0, SEEK_CUR),
           n > 0 ? rest : "(nothing)\n");
    if (lseek(0, 0, SEEK_SET) == 0 && read(0, rest, 5) == 5)
        printf("back at 0: %.5s\n", rest);
    n = pread(0, rest, 3, 5);
    if (n < 0)
        printf("pread at 5: %s\n", strerror(errno));
    else
        printf("pread at 5: %.*s, then at %ld\n", (int)n, rest, (long)lseek(0, 0, SEEK_CUR));
    return 0;
}
