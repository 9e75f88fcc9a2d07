/*
 * Stopping and continuing (job control's signals), one line per fact, in
 * an order that holds on any system: each step waits for the one before
 * (wait4, sigwaitinfo, a pipe), so no line depends on who runs first.
 *
 *   self     a child stops itself: WUNTRACED reports it once, SIGCHLD says
 *            CLD_STOPPED; SIGCONT: WCONTINUED reports it once, SIGCHLD
 *            says CLD_CONTINUED; then its exit
 *   sleeper  kill(SIGSTOP) stops a child asleep in read; a SIGTERM waits
 *            while it is stopped and kills it once SIGCONT resumes it
 *   kill     SIGKILL ends a stopped child
 *   pending  SIGCONT takes back a stop signal pending (blocked) in a child
 *   blocked  SIGCONT resumes a child that blocks it; its handler runs
 *            when the child unblocks it
 *   nocldstop with SA_NOCLDSTOP the parent hears only of the exit
 *   tstp     SIGTSTP stops a child in a group of its own (not orphaned)
 *   orphan   SIGTSTP is dropped in an orphaned group: a grandchild whose
 *            parent has gone, in a group of its own, runs on
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, pid_t r, int st)
{
    printf("%s: ", what);
    if (r <= 0)
        printf("returned %d\n", (int)r);
    else if (WIFSTOPPED(st))
        printf("stopped by %d\n", WSTOPSIG(st));
    else if (WIFCONTINUED(st))
        printf("continued\n");
    else if (WIFEXITED(st))
        printf("exited %d\n", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("killed by %d\n", WTERMSIG(st));
    fflush(stdout);
}

static void wait_show(const char *what, pid_t pid, int options)
{
    int st = 0;
    pid_t r = waitpid(pid, &st, options);

    show(what, r, st);
}

static void chld_info(const char *what)
{
    sigset_t set;
    siginfo_t si;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    if (sigwaitinfo(&set, &si) != SIGCHLD)
        printf("%s: sigwaitinfo failed\n", what);
    else
        printf("%s: SIGCHLD code %d status %d\n", what, si.si_code, si.si_status);
    fflush(stdout);
}

static void block(int sig, int how)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(how, &set, NULL);
}

static void wait_byte(int fd)
{
    char c;

    if (read(fd, &c, 1) != 1)
        _exit(90);
}

static void t_self(void)
{
    int go[2];
    pid_t pid;

    if (pipe(go))
        exit(2);
    block(SIGCHLD, SIG_BLOCK);
    if ((pid = fork()) == 0) {
        raise(SIGSTOP);
        wait_byte(go[0]);
        _exit(3);
    }
    wait_show("self stop", pid, WUNTRACED);
    wait_show("self again", pid, WUNTRACED | WNOHANG);
    chld_info("self stop");
    kill(pid, SIGCONT);
    wait_show("self cont", pid, WCONTINUED);
    wait_show("self cont again", pid, WCONTINUED | WNOHANG);
    chld_info("self cont");
    if (write(go[1], "g", 1) != 1)
        exit(2);
    wait_show("self exit", pid, WUNTRACED | WCONTINUED);
    chld_info("self exit");
    block(SIGCHLD, SIG_UNBLOCK);
    close(go[0]);
    close(go[1]);
}

static void t_sleeper(void)
{
    int p[2];
    pid_t pid;

    if (pipe(p))
        exit(2);
    if ((pid = fork()) == 0) {
        char c;
        close(p[1]);
        (void)!read(p[0], &c, 1);
        _exit(4);
    }
    kill(pid, SIGSTOP);
    wait_show("sleeper stop", pid, WUNTRACED);
    kill(pid, SIGTERM);
    wait_show("sleeper term while stopped", pid, WUNTRACED | WNOHANG);
    kill(pid, SIGCONT);
    wait_show("sleeper cont", pid, 0);
    close(p[0]);
    close(p[1]);
}

static void t_kill(void)
{
    pid_t pid;

    if ((pid = fork()) == 0) {
        for (;;)
            pause();
    }
    kill(pid, SIGSTOP);
    wait_show("kill stop", pid, WUNTRACED);
    kill(pid, SIGKILL);
    wait_show("kill", pid, WUNTRACED);
}

static void t_pending(void)
{
    int ready[2], go[2];
    pid_t pid;

    if (pipe(ready) || pipe(go))
        exit(2);
    if ((pid = fork()) == 0) {
        sigset_t set;
        setpgid(0, 0);
        block(SIGTSTP, SIG_BLOCK);
        if (write(ready[1], "r", 1) != 1)
            _exit(91);
        wait_byte(go[0]);
        sigpending(&set);
        printf("pending: SIGTSTP pending in the child: %s\n",
               sigismember(&set, SIGTSTP) ? "yes" : "no");
        fflush(stdout);
        block(SIGTSTP, SIG_UNBLOCK);
        _exit(5);
    }
    wait_byte(ready[0]);
    kill(pid, SIGTSTP);
    kill(pid, SIGCONT);
    if (write(go[1], "g", 1) != 1)
        exit(2);
    wait_show("pending", pid, WUNTRACED);
}

static volatile sig_atomic_t got_cont;

static void on_cont(int sig)
{
    (void)sig;
    got_cont++;
}

static void t_blocked(void)
{
    pid_t pid;

    if ((pid = fork()) == 0) {
        signal(SIGCONT, on_cont);
        block(SIGCONT, SIG_BLOCK);
        raise(SIGSTOP);
        printf("blocked: resumed, handler ran %d times\n", (int)got_cont);
        block(SIGCONT, SIG_UNBLOCK);
        printf("blocked: unblocked, handler ran %d times\n", (int)got_cont);
        fflush(stdout);
        _exit(6);
    }
    wait_show("blocked stop", pid, WUNTRACED);
    kill(pid, SIGCONT);
    wait_show("blocked", pid, 0);
}

static volatile sig_atomic_t chld_count;

static void on_chld(int sig)
{
    (void)sig;
    chld_count++;
}

static void t_nocldstop(void)
{
    struct sigaction sa;
    pid_t pid;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
    sigaction(SIGCHLD, &sa, NULL);
    if ((pid = fork()) == 0) {
        raise(SIGSTOP);
        _exit(7);
    }
    wait_show("nocldstop stop", pid, WUNTRACED);
    kill(pid, SIGCONT);
    wait_show("nocldstop", pid, 0);
    printf("nocldstop: SIGCHLD %d times\n", (int)chld_count);
    fflush(stdout);
    signal(SIGCHLD, SIG_DFL);
}

static void t_tstp(void)
{
    pid_t pid;

    if ((pid = fork()) == 0) {
        setpgid(0, 0);
        raise(SIGTSTP);
        _exit(8);
    }
    wait_show("tstp stop", pid, WUNTRACED);
    kill(pid, SIGCONT);
    wait_show("tstp", pid, 0);
}

static void t_orphan(void)
{
    int p[2];
    pid_t pid;

    if (pipe(p))
        exit(2);
    if ((pid = fork()) == 0) {
        int q[2];
        if (pipe(q))
            _exit(92);
        pid_t parent = getpid();
        if (fork() == 0) {
            setpgid(0, 0);
            close(q[1]);
            (void)!read(q[0], &(char){ 0 }, 1);   /* its parent is exiting */
            while (getppid() == parent)           /* ... and has gone */
                usleep(1000);
            raise(SIGTSTP);
            (void)!write(p[1], "o", 1);
            _exit(0);
        }
        _exit(9);                      /* closes q[1]: the read ends */
    }
    close(p[1]);
    wait_show("orphan parent", pid, 0);
    printf("orphan: the grandchild %s\n",
           read(p[0], &(char){ 0 }, 1) == 1 ? "ran on" : "did not run on");
    fflush(stdout);
    close(p[0]);
}

int main(void)
{
    alarm(60);   /* a stop that should not have been ends the run */
    t_self();
    t_sleeper();
    t_kill();
    t_pending();
    t_blocked();
    t_nocldstop();
    t_tstp();
    t_orphan();
    return 0;
}
