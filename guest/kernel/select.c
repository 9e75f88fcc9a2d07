/*
 * poll and ppoll, as far as issue 11 needs them (busybox's read builtin
 * polls its descriptor before reading). Readiness is known for every kind
 * of file: a file of the tree, /dev/null and /dev/zero are always ready;
 * the console is taken as ready (a read then waits for the emulator's
 * stdin); a pipe is ready to read when it holds bytes or has no writer,
 * to write when PIPE_BUF bytes fit or it has no reader. With nothing
 * ready, an infinite timeout sleeps until some pipe changes; there are no
 * timers yet (issue 12 models time), so a finite timeout expires at once,
 * after the other runnable processes have had their turn.
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define POLLIN   0x0001
#define POLLPRI  0x0002
#define POLLOUT  0x0004
#define POLLERR  0x0008
#define POLLHUP  0x0010
#define POLLNVAL 0x0020
#define POLLRDNORM 0x0040
#define POLLWRNORM 0x0100
#define POLL_MAX OPEN_MAX

struct pollfd {
    int32_t fd;
    int16_t events, revents;
};

/* Every pipe's change wakes the pollers, who look again. */
struct wait_queue poll_wait = WAIT_QUEUE_INIT(poll_wait, "a descriptor to be ready (poll)");

static uint32_t file_events(struct file *f)
{
    if (f->type == FT_PIPE)
        return pipe_poll(f);
    return POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
}

/* Fill each revents; the number of entries with any. */
static long scan(struct pollfd *fds, uint32_t n)
{
    long ready = 0;

    for (uint32_t i = 0; i < n; i++) {
        struct file *f = fds[i].fd >= 0 ? fget((uint32_t)fds[i].fd) : NULL_PTR;
        uint32_t want = (uint16_t)fds[i].events | POLLERR | POLLHUP;
        if (fds[i].fd < 0)
            fds[i].revents = 0;
        else if (!f)
            fds[i].revents = POLLNVAL;
        else
            fds[i].revents = (int16_t)(file_events(f) & want);
        ready += fds[i].revents != 0;
    }
    return ready;
}

/* timeout_ms < 0: no limit. */
static long do_poll(uint32_t ufds, uint32_t n, int32_t timeout_ms)
{
    struct pollfd *fds;
    uint32_t bytes = n * sizeof(struct pollfd), pages;
    long ready;

    if (n > POLL_MAX)
        return -EINVAL;
    pages = PAGE_ALIGN(bytes ? bytes : 1) / PAGE_SIZE;
    fds = alloc_pages(pages);
    if (!fds)
        return -ENOMEM;
    if (copy_from_user(fds, ufds, bytes) != 0) {
        free_pages(fds, pages);
        return -EFAULT;
    }
    for (;;) {
        ready = scan(fds, n);
        if (ready || timeout_ms == 0)
            break;
        if (timeout_ms > 0) {
            current_thread_info()->flags |= _TIF_NEED_RESCHED;
            break;
        }
        if ((ready = sleep_on(&poll_wait, TASK_INTERRUPTIBLE)) != 0)
            break;
    }
    if (ready >= 0 && copy_to_user(ufds, fds, bytes) != 0)
        ready = -EFAULT;
    free_pages(fds, pages);
    return ready;
}

long sys_poll(uint32_t ufds, uint32_t n, uint32_t timeout, uint32_t a4, uint32_t a5,
              uint32_t a6)
{
    return do_poll(ufds, n, (int32_t)timeout);
}

static long ppoll_timeout(uint32_t uts, int wide, int32_t *ms)
{
    uint32_t ts32[2];
    int64_t ts64[2];

    *ms = -1;
    if (!uts)
        return 0;
    if (wide) {
        if (copy_from_user(ts64, uts, sizeof(ts64)))
            return -EFAULT;
        if (ts64[0] < 0 || ts64[1] < 0 || ts64[1] >= 1000000000)
            return -EINVAL;
        *ms = ts64[0] || ts64[1] ? 1 : 0;
    } else {
        if (copy_from_user(ts32, uts, sizeof(ts32)))
            return -EFAULT;
        if ((int32_t)ts32[0] < 0 || ts32[1] >= 1000000000u)
            return -EINVAL;
        *ms = ts32[0] || ts32[1] ? 1 : 0;
    }
    return 0;
}

/* The signal mask of ppoll is not applied: no signal is delivered to a
 * handler yet (issue 12). */
long sys_ppoll(uint32_t ufds, uint32_t n, uint32_t uts, uint32_t umask, uint32_t size,
               uint32_t a6)
{
    int32_t ms;
    long err = ppoll_timeout(uts, 0, &ms);

    return err ? err : do_poll(ufds, n, ms);
}

long sys_ppoll_time64(uint32_t ufds, uint32_t n, uint32_t uts, uint32_t umask,
                      uint32_t size, uint32_t a6)
{
    int32_t ms;
    long err = ppoll_timeout(uts, 1, &ms);

    return err ? err : do_poll(ufds, n, ms);
}
