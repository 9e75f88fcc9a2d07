/*
 * Is stdin ready? poll with no wait, select with no wait, then poll until
 * it is: a pipe whose writer has not written yet is not ready; once it has
 * written (or closed), it is.
 */
#include <poll.h>
#include <stdio.h>
#include <sys/select.h>
#include <unistd.h>

int main(void)
{
    struct pollfd p = { 0, POLLIN, 0 };
    struct timeval zero = { 0, 0 };
    fd_set set;
    char buf[64];
    int n;

    n = poll(&p, 1, 0);
    printf("poll, no wait: %d\n", n);
    FD_ZERO(&set);
    FD_SET(0, &set);
    printf("select, no wait: %d\n", select(1, &set, NULL, NULL, &zero));
    n = poll(&p, 1, -1);
    printf("poll, waiting: %d%s\n", n, p.revents & POLLIN ? " POLLIN" : "");
    n = (int)read(0, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    printf("read: %s", buf);
    return 0;
}
