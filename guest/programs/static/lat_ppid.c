/*
 * A benchmark harness in lmbench's manner (its benchmp and lat_pipe): the
 * harness forks workers, each worker forks the partner it bounces a word
 * with through two pipes, and reports its figure to the harness through a
 * pipe. Workers and partners take getppid() == 1 to mean that their
 * parent died and quit quietly, as lmbench's do: a harness that is pid 1
 * itself then prints nothing.
 *
 *   lat_ppid pipe N   N round trips per worker: "Pipe latency: X microseconds"
 *   lat_ppid pipe     the same, timed as lmbench 3 times lat_pipe (below)
 *   lat_ppid ppid     who is whose parent, in lines that hold on any system
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 2

/* lmbench 3's default timing (the lmbench3 tree, read at
 * github.com/revyos/lmbench3: src/bench.h's TRIES 11 and SHORT 1000000,
 * src/lat_pipe.c, src/lib_timing.c's benchmp_interval and get_enough), in
 * this harness's words: a run of n round trips is timed, n starting at 1.
 * A run of at least 0.95 of "enough" is kept; until one lasts 0.99 to 1.2
 * of enough, n is multiplied by 8 after a run under 150 us, else scaled to
 * 1.1 times enough, and the worker gives up past 2^27. TRIES runs kept,
 * the median of their round trips is the worker's figure. lat_pipe asks
 * for SHORT, 1 s; lmbench's own ENOUGH variable can only lengthen that, so
 * LAT_PPID_ENOUGH (us) is this harness's own, to shorten it. Not done:
 * lmbench's subtraction of the timer's and the loop's overheads (well
 * under the fourth decimal at 1 s). */
#define SHORT 1000000
#define TRIES 11
#define MAX_N (1L << 27)

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

/* n round trips with the partner; how long they took, in us. */
static double round_trips(int to, int from, long n)
{
    int word = 0;
    double start = now_us();

    for (long i = 0; i < n; i++) {
        if (parent_died())
            _exit(0);
        if (write(to, &word, sizeof word) != sizeof word ||
            read(from, &word, sizeof word) != sizeof word)
            _exit(1);
    }
    return now_us() - start;
}

static double enough_us(void)
{
    const char *e = getenv("LAT_PPID_ENOUGH");
    return e && atol(e) > 0 ? (double)atol(e) : SHORT;
}

static int before(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median round trip of TRIES runs that each last enough; -1 if the
 * runs never grow long enough. */
static double default_timing(int to, int from)
{
    double per[TRIES], enough = enough_us(), us;
    long n = 1;
    int kept = 0;

    while (kept < TRIES) {
        us = round_trips(to, from, n);
        if (us > 0.95 * enough)
            per[kept++] = us / n;
        if (us >= 0.99 * enough && us <= 1.2 * enough)
            continue;
        if (us > 150)
            n = (long)(n / us * 1.1 * enough) + 1;
        else if ((n <<= 3) > MAX_N)
            return -1;
    }
    qsort(per, TRIES, sizeof per[0], before);
    return per[TRIES / 2];
}

/* One worker: n round trips with its partner (0: lmbench's default
 * timing); the mean to the harness. */
static void worker(int report, long n)
{
    int to[2], from[2];
    double us;
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
    us = n ? round_trips(to[1], from[0], n) / (double)n : default_timing(to[1], from[0]);
    close(to[1]);
    waitpid(pid, NULL, 0);
    if (us < 0 || write(report, &us, sizeof us) != sizeof us)
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
    if (argc == 3 && argv[1][0] == 'p' && argv[1][1] == 'i' && atol(argv[2]) > 0)
        return pipe_latency(atol(argv[2]));
    if (argc == 2 && argv[1][0] == 'p' && argv[1][1] == 'i')
        return pipe_latency(0);
    if (argc == 2 && argv[1][0] == 'p' && argv[1][1] == 'p')
        return parents();
    fprintf(stderr, "usage: lat_ppid pipe [N] | lat_ppid ppid\n");
    return 2;
}
