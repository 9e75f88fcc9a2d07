/*
 * Programs that can never go on (issue 26, item 8): stuck pipes (two
 * processes each reading the other's empty pipe), stuck poll
 * (poll(NULL, 0, -1)), stuck pause (pause() with no signal to come).
 * Natively each waits for ever; under emu the run ends with 124 and a
 * report of who waits on what.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int crossed_pipes(void)
{
    int a[2], b[2];
    char c;
    if (pipe(a) || pipe(b))
        return 1;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        _exit(read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1 ? 0 : 1);
    }
    close(a[0]);
    close(b[1]);
    if (read(b[0], &c, 1) != 1)
        return 1;
    write(a[1], &c, 1);
    return waitpid(pid, NULL, 0) == pid ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("stuck: %s\n", mode);
    if (!strcmp(mode, "pipes"))
        return crossed_pipes();
    if (!strcmp(mode, "poll"))
        return poll(NULL, 0, -1) < 0;
    if (!strcmp(mode, "pause"))
        return pause() < 0;
    fprintf(stderr, "usage: stuck pipes|poll|pause\n");
    return 2;
}
