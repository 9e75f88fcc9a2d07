/*
 * A benchmark harness in lmbench's manner (its benchmp and lat_pipe): the
 * harness forks workers, each worker forks the partner it bounces a word
 * with through two pipes, and reports its figure to the harness through a
 * pipe. Workers and partners take getppid() == 1 to mean that their
 * parent died and quit quietly, as lmbench's do: a harness that is pid 1
 * itself then prints nothing.
 *
 *   lat_ppid pipe N   N round trips per worker: "Pipe latency: X microseconds"
 *   lat_ppid ppid     who is whose parent, in lines that hold on any system
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 2

static int parent_died(void)
{
    return getppid() == 1;
}

static void partner(int in, int out)
{
    int word;

    while (read(in, &word, sizeof word) == sizeof word) {
        if (parent_died())
            _exit(0);
        if (write(out, &word, sizeof word) != sizeof word)
            _exit(1);
    }
    _exit(0);
}

static double now_us(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e6 + tv.tv_usec;
}

/* One worker: N round trips with its partner; the mean to the harness. */
static void worker(int report, long n)
{
    int to[2], from[2], word = 0;
    double start, us;
    pid_t pid;

    if (pipe(to) || pipe(from) || (pid = fork()) < 0)
        _exit(1);
    if (pid == 0) {
        close(report);
        close(to[1]);
        close(from[0]);
        partner(to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    start = now_us();
    for (long i = 0; i < n; i++) {
        if (parent_died())
            _exit(0);
        if (write(to[1], &word, sizeof word) != sizeof word ||
            read(from[0], &word, sizeof word) != sizeof word)
            _exit(1);
    }
    us = (now_us() - start) / (double)n;
    close(to[1]);
    waitpid(pid, NULL, 0);
    if (write(report, &us, sizeof us) != sizeof us)
        _exit(1);
    _exit(0);
}

static int pipe_latency(long n)
{
    int results[2], got = 0;
    double us, sum = 0;

    if (pipe(results))
        return 1;
    for (int w = 0; w < WORKERS; w++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            close(results[0]);
            worker(results[1], n);
        }
    }
    close(results[1]);
    while (read(results[0], &us, sizeof us) == sizeof us) {
        sum += us;
        got++;
    }
    while (wait(NULL) > 0)
        ;
    if (got)
        printf("Pipe latency: %.4f microseconds\n", sum / got);
    return 0;
}

/* The child's parent is the harness; a grandchild whose parent exits is
 * given to another process (init, or a subreaper), which reaps it. */
static int parents(void)
{
    int p[2];
    pid_t me = getpid(), child, middle;
    int status;

    child = fork();
    if (child == 0)
        _exit(getppid() == me ? 0 : 1);
    waitpid(child, &status, 0);
    printf("child's parent is the harness: %s\n", status == 0 ? "yes" : "no");
    if (pipe(p))
        return 1;
    middle = fork();
    if (middle == 0) {
        pid_t mine = getpid();
        if (fork() == 0) {
            while (getppid() == mine)
                usleep(1000);
            char c = getppid() != mine ? 'y' : 'n';
            _exit(write(p[1], &c, 1) == 1 ? 0 : 1);
        }
        _exit(0);
    }
    close(p[1]);
    waitpid(middle, NULL, 0);
    char c = 'n';
    if (read(p[0], &c, 1) != 1)
        c = '?';
    printf("orphan given to another parent: %s\n", c == 'y' ? "yes" : "no");
    printf("no child left to wait for: %s\n", wait(NULL) < 0 ? "yes" : "no");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && argv[1][0] == 'p' && argv[1][1] == 'i')
        return pipe_latency(atol(argv[2]));
    if (argc == 2 && argv[1][0] == 'p' && argv[1][1] == 'p')
        return parents();
    fprintf(stderr, "usage: lat_ppid pipe N | lat_ppid ppid\n");
    return 2;
}
