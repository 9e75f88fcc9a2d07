/*
 * The credential calls as root, then giving root up: setgroups and
 * getgroups, setresuid/setresgid and their get forms, setreuid, setuid
 * back through the saved id, and what an unprivileged process may no
 * longer do; the 16-bit calls (glibc makes the 32-bit ones) by number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void ids(const char *when)
{
    uid_t r, e, s;
    gid_t gr, ge, gs, list[8];
    int n = getgroups(8, list);

    getresuid(&r, &e, &s);
    getresgid(&gr, &ge, &gs);
    printf("%s: uid %u %u %u gid %u %u %u groups", when, r, e, s, gr, ge, gs);
    for (int i = 0; i < n; i++)
        printf(" %u", list[i]);
    printf("\n");
}

static void result(const char *what, long r)
{
    printf("%s: %s\n", what, r < 0 ? strerror(errno) : "ok");
}

int main(void)
{
    gid_t groups[2] = { 10, 20 };
    gid_t one;

    ids("start");
    printf("getgroups(0): %d\n", getgroups(0, NULL));
    result("setgroups", setgroups(2, groups));
    result("getgroups(1, ...) of 2", getgroups(1, &one));
    result("setresgid 100 100 100", setresgid(100, 100, 100));
    result("setresuid 1000 1000 0", setresuid(1000, 1000, 0));
    ids("saved root");
    result("setreuid -1 0", setreuid(-1, 0));
    ids("effective root again");
    result("setuid 1000", setuid(1000));
    ids("root given up");
    result("setuid 0", setuid(0));
    result("setgroups", setgroups(2, groups));
    result("setresuid 1000 1000 1000", setresuid(1000, 1000, 1000));
    printf("16-bit getuid %ld geteuid %ld getgid %ld\n", syscall(24), syscall(49), syscall(47));
    printf("setfsuid 0 gives the old %d\n", (int)syscall(SYS_setfsuid32, 0));
    return 0;
}
