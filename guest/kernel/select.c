/*
 * poll, ppoll, select and pselect6 (busybox's read builtin polls its
 * descriptor before reading; timeout uses select). Readiness is known for every kind
 * of file: a file of the tree, /dev/null and /dev/zero are always ready;
 * the emulator's stdin is ready when the host says a read would not wait
 * (bytes, or the end), its stdout and stderr always; a pipe is ready to
 * read when it holds bytes or has no writer, to write when PIPE_BUF bytes
 * fit or it has no reader. With nothing ready, the caller sleeps until
 * some pipe changes or its timeout, in modeled time, passes; while it
 * waits for stdin it asks the host again at every tick, as nothing in the
 * machine can wake it. select and pselect6 are poll over the fd sets.
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

/* Set by scan when the emulator's stdin was not ready. */
static int stdin_pending;

static uint32_t console_events(struct file *f)
{
    struct hc_console c = { 0 };

    if (!boot_console(f) || f->stream != 0 || console_call(CONSOLE_POLL, f, &c) != 0) {
        return POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
    }
    stdin_pending = 1;
    return POLLOUT | POLLWRNORM;
}

static uint32_t file_events(struct file *f)
{
    if (f->type == FT_PIPE)
        return pipe_poll(f);
    if (f->type == FT_CONSOLE)
        return console_events(f);
    return POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
}

/* Fill each revents; the number of entries with any. */
static long scan(struct pollfd *fds, uint32_t n)
{
    long ready = 0;

    stdin_pending = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct file *f = fds[i].fd >= 0 ? fcheck((uint32_t)fds[i].fd) : NULL_PTR;
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

/*
 * The waiting loop of poll and select: scan, then sleep until a pipe
 * changes, the deadline (a TSC value; 0: do not wait; UINT64_MAX: no
 * limit) passes, or a signal comes (-ERESTARTNOHAND: restarted when no
 * handler runs, else EINTR).
 */
static long poll_wait_loop(struct pollfd *fds, uint32_t n, uint64_t deadline)
{
    long ready;

    for (;;) {
        int r;
        uint64_t until = deadline;
        ready = scan(fds, n);
        if (ready || deadline == 0)
            return ready;
        if (stdin_pending) {
            uint64_t tick = rdtsc() + ns_to_cycles(0, 1000000);
            until = tick < deadline ? tick : deadline;
        }
        if (until == UINT64_MAX)
            r = sleep_on(&poll_wait, TASK_INTERRUPTIBLE);
        else
            r = sleep_until(&poll_wait, until);
        if (r < 0)
            return -ERESTARTNOHAND;
        if (r == 0 && until == deadline && deadline != UINT64_MAX)
            return scan(fds, n);
    }
}

static long do_poll(uint32_t ufds, uint32_t n, uint64_t deadline)
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
    ready = poll_wait_loop(fds, n, deadline);
    if (ready >= 0 && copy_to_user(ufds, fds, bytes) != 0)
        ready = -EFAULT;
    free_pages(fds, pages);
    return ready;
}

static uint64_t ms_deadline(int32_t ms)
{
    if (ms < 0)
        return UINT64_MAX;
    if (ms == 0)
        return 0;
    return rdtsc() + ns_to_cycles((uint32_t)ms / 1000, ((uint32_t)ms % 1000) * 1000000);
}

long sys_poll(uint32_t ufds, uint32_t n, uint32_t timeout, uint32_t a4, uint32_t a5,
              uint32_t a6)
{
    return do_poll(ufds, n, ms_deadline((int32_t)timeout));
}

/* A timespec (32- or 64-bit) as a deadline; none: no limit. */
static long ts_deadline(uint32_t uts, int wide, uint64_t *deadline)
{
    uint32_t ts32[2];
    int64_t ts64[2];
    uint64_t sec;
    uint32_t nsec;

    *deadline = UINT64_MAX;
    if (!uts)
        return 0;
    if (wide) {
        if (copy_from_user(ts64, uts, sizeof(ts64)))
            return -EFAULT;
        if (ts64[0] < 0 || ts64[1] < 0 || ts64[1] >= 1000000000)
            return -EINVAL;
        sec = (uint64_t)ts64[0];
        nsec = (uint32_t)ts64[1];
    } else {
        if (copy_from_user(ts32, uts, sizeof(ts32)))
            return -EFAULT;
        if ((int32_t)ts32[0] < 0 || ts32[1] >= 1000000000u)
            return -EINVAL;
        sec = ts32[0];
        nsec = ts32[1];
    }
    *deadline = sec || nsec ? rdtsc() + ns_to_cycles(sec, nsec) : 0;
    return 0;
}

/* ppoll and pselect6: the mask for the wait; the old one back now unless a
 * signal's handler will run (its frame restores it). */
static long with_mask(uint32_t umask, uint32_t size, uint64_t *mask)
{
    if (!umask)
        return 0;
    if (size != 8)
        return -EINVAL;
    if (copy_from_user(mask, umask, sizeof(*mask)))
        return -EFAULT;
    set_temporary_mask(*mask);
    return 0;
}

static long mask_done(long r)
{
    struct task_struct *me = current;

    if (me->restore_blocked && !(r == -ERESTARTNOHAND && signal_pending(me))) {
        me->restore_blocked = 0;
        me->sig_blocked = me->saved_blocked;
        recalc_sigpending(me);
    }
    return r;
}

static long do_ppoll(uint32_t ufds, uint32_t n, uint32_t uts, uint32_t umask, uint32_t size,
                     int wide)
{
    uint64_t deadline, mask;
    long err = ts_deadline(uts, wide, &deadline);

    if (!err)
        err = with_mask(umask, size, &mask);
    if (err)
        return err;
    return mask_done(do_poll(ufds, n, deadline));
}

long sys_ppoll(uint32_t ufds, uint32_t n, uint32_t uts, uint32_t umask, uint32_t size,
               uint32_t a6)
{
    return do_ppoll(ufds, n, uts, umask, size, 0);
}

long sys_ppoll_time64(uint32_t ufds, uint32_t n, uint32_t uts, uint32_t umask,
                      uint32_t size, uint32_t a6)
{
    return do_ppoll(ufds, n, uts, umask, size, 1);
}

/* ---- select: the fd sets become pollfds and back ---- */

#define FD_SETSIZE 1024

static long do_select(uint32_t n, uint32_t uin, uint32_t uout, uint32_t uex,
                      uint64_t deadline)
{
    static uint32_t in[FD_SETSIZE / 32], out[FD_SETSIZE / 32], ex[FD_SETSIZE / 32];
    uint32_t words, bytes, pages, count = 0;
    struct pollfd *fds;
    long ready;

    if ((int32_t)n < 0)
        return -EINVAL;
    if (n > FD_SETSIZE)
        n = FD_SETSIZE;
    words = (n + 31) / 32;
    memset(in, 0, sizeof(in));
    memset(out, 0, sizeof(out));
    memset(ex, 0, sizeof(ex));
    if ((uin && copy_from_user(in, uin, words * 4)) ||
        (uout && copy_from_user(out, uout, words * 4)) ||
        (uex && copy_from_user(ex, uex, words * 4)))
        return -EFAULT;
    bytes = n * sizeof(struct pollfd);
    pages = PAGE_ALIGN(bytes ? bytes : 1) / PAGE_SIZE;
    fds = alloc_pages(pages);
    if (!fds)
        return -ENOMEM;
    for (uint32_t fd = 0; fd < n; fd++) {
        uint32_t bit = 1u << (fd % 32), w = fd / 32;
        int16_t ev = (int16_t)(((in[w] & bit) ? POLLIN : 0) | ((out[w] & bit) ? POLLOUT : 0) |
                               ((ex[w] & bit) ? POLLPRI : 0));
        fds[count].fd = ev ? (int32_t)fd : -1;
        fds[count].events = ev;
        if (ev && !fcheck(fd)) {
            free_pages(fds, pages);
            return -EBADF;
        }
        count++;
    }
    ready = poll_wait_loop(fds, count, deadline);
    if (ready >= 0) {
        memset(in, 0, sizeof(in));
        memset(out, 0, sizeof(out));
        memset(ex, 0, sizeof(ex));
        ready = 0;
        for (uint32_t fd = 0; fd < n; fd++) {
            uint32_t bit = 1u << (fd % 32), w = fd / 32, re = (uint16_t)fds[fd].revents;
            uint32_t ev = (uint16_t)fds[fd].events;
            if ((ev & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR)))
                in[w] |= bit, ready++;
            if ((ev & POLLOUT) && (re & (POLLOUT | POLLERR)))
                out[w] |= bit, ready++;
            if ((ev & POLLPRI) && (re & POLLPRI))
                ex[w] |= bit, ready++;
        }
        if ((uin && copy_to_user(uin, in, words * 4)) ||
            (uout && copy_to_user(uout, out, words * 4)) ||
            (uex && copy_to_user(uex, ex, words * 4)))
            ready = -EFAULT;
    }
    free_pages(fds, pages);
    return ready;
}

/* select's timeval: what is left of it is written back, as Linux does. */
long sys_select(uint32_t n, uint32_t uin, uint32_t uout, uint32_t uex, uint32_t utv,
                uint32_t a6)
{
    int32_t tv[2];
    uint64_t deadline = UINT64_MAX;
    long r;

    if (utv) {
        if (copy_from_user(tv, utv, sizeof(tv)))
            return -EFAULT;
        if (tv[0] < 0 || tv[1] < 0)
            return -EINVAL;
        deadline = tv[0] || tv[1] ? rdtsc() + ns_to_cycles((uint32_t)tv[0] +
                                                            (uint32_t)tv[1] / 1000000,
                                                            ((uint32_t)tv[1] % 1000000) * 1000)
                                  : 0;
    }
    r = do_select(n, uin, uout, uex, deadline);
    if (utv && deadline && deadline != UINT64_MAX) {
        uint64_t now = rdtsc();
        uint32_t sec, nsec;
        cycles_to_ns(deadline > now ? deadline - now : 0, &sec, &nsec);
        tv[0] = (int32_t)sec;
        tv[1] = (int32_t)(nsec / 1000);
        copy_to_user(utv, tv, sizeof(tv));
    }
    return r;
}

/* The old select: one pointer to its five arguments. */
long sys_old_select(uint32_t uargs, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5,
                    uint32_t a6)
{
    uint32_t a[5];

    if (copy_from_user(a, uargs, sizeof(a)))
        return -EFAULT;
    return sys_select(a[0], a[1], a[2], a[3], a[4], 0);
}

static long do_pselect6(uint32_t n, uint32_t uin, uint32_t uout, uint32_t uex,
                        uint32_t uts, uint32_t usig, int wide)
{
    uint32_t sig[2] = { 0, 0 };
    uint64_t deadline, mask;
    long err = ts_deadline(uts, wide, &deadline);

    if (!err && usig && copy_from_user(sig, usig, sizeof(sig)))
        err = -EFAULT;
    if (!err)
        err = with_mask(sig[0], sig[1], &mask);
    if (err)
        return err;
    return mask_done(do_select(n, uin, uout, uex, deadline));
}

long sys_pselect6(uint32_t n, uint32_t uin, uint32_t uout, uint32_t uex, uint32_t uts,
                  uint32_t usig)
{
    return do_pselect6(n, uin, uout, uex, uts, usig, 0);
}

long sys_pselect6_time64(uint32_t n, uint32_t uin, uint32_t uout, uint32_t uex, uint32_t uts,
                         uint32_t usig)
{
    return do_pselect6(n, uin, uout, uex, uts, usig, 1);
}
