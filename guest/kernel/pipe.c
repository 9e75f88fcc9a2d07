/*
 * Pipes in the shape of 2.5.53's fs/pipe.c: a ring buffer with a start and
 * a length, readers and writers counted, the pipe's semaphore held while
 * the ring changes, and one wait queue where readers wait for bytes and
 * writers for room. Its size is today's Linux's (64 KiB, which the native
 * runs the tests compare with use), not 2.5.53's one page. A read returns
 * what there is, waiting only while the pipe is empty and has a writer;
 * with no writer left it is the end of the file. A write of at most
 * PIPE_BUF bytes goes in whole or waits; a longer one goes in as room
 * appears. With no reader left a write is EPIPE, and SIGPIPE. O_NONBLOCK
 * makes the waits EAGAIN.
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "semaphore.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define PIPE_PAGES 16
#define PIPE_SIZE  (PIPE_PAGES * PAGE_SIZE)
#define PIPE_BUF   4096
#define PIPE_DEV   0xc       /* the st_dev of pipefs */
#define POLLIN     0x0001
#define POLLOUT    0x0004
#define POLLERR    0x0008
#define POLLHUP    0x0010
#define POLLRDNORM 0x0040
#define POLLWRNORM 0x0100
#define POLL_IN    1         /* si_band codes for SIGIO */
#define POLL_OUT   2

struct fasync_struct;

/* 2.5.53 keeps the semaphore in the inode (i_sem); this kernel has no
 * inodes for pipes, so it lives here with the rest. */
struct pipe_inode_info {
    wait_queue_head_t wait;
    uint8_t *base;
    uint32_t start, len;       /* the bytes are [start, start + len) mod PIPE_SIZE */
    uint32_t readers, writers;
    uint32_t waiting_writers;
    struct fasync_struct *fasync_readers, *fasync_writers;
    struct semaphore sem;
    uint32_t ino;
    struct hc_time ctime;
};

#define PIPE_SEM(p)             (&(p)->sem)
#define PIPE_WAIT(p)            (&(p)->wait)
#define PIPE_BASE(p)            ((p)->base)
#define PIPE_START(p)           ((p)->start)
#define PIPE_LEN(p)             ((p)->len)
#define PIPE_READERS(p)         ((p)->readers)
#define PIPE_WRITERS(p)         ((p)->writers)
#define PIPE_WAITING_WRITERS(p) ((p)->waiting_writers)
#define PIPE_FASYNC_READERS(p)  (&(p)->fasync_readers)
#define PIPE_FASYNC_WRITERS(p)  (&(p)->fasync_writers)
#define PIPE_FREE(p)            (PIPE_SIZE - PIPE_LEN(p))
#define PIPE_END(p)             ((PIPE_START(p) + PIPE_LEN(p)) & (PIPE_SIZE - 1))
#define PIPE_MAX_RCHUNK(p)      (PIPE_SIZE - PIPE_START(p))
#define PIPE_MAX_WCHUNK(p)      (PIPE_SIZE - PIPE_END(p))

static uint32_t next_ino = 1;

static void now(struct hc_time *t)
{
    struct timeval tv;

    do_gettimeofday(&tv);
    t->sec = tv.tv_sec;
    t->nsec = tv.tv_usec * 1000;
    t->pad = 0;
}

uint32_t pipe_poll(struct file *f)
{
    struct pipe_inode_info *p = f->pipe;
    uint32_t ev = 0;

    if (file_readable(f)) {
        if (PIPE_LEN(p))
            ev |= POLLIN | POLLRDNORM;
        if (!PIPE_WRITERS(p))
            ev |= POLLHUP;
    }
    if (file_writable(f)) {
        if (!PIPE_READERS(p))
            ev |= POLLERR;
        else if (PIPE_FREE(p) >= PIPE_BUF)
            ev |= POLLOUT | POLLWRNORM;
    }
    return ev;
}

/* poll and select sleep on one queue of their own (select.c), where 2.5.53
 * puts a poller on each pipe's: wake it too when anyone waits there. */
static void wake_pollers(void)
{
    if (waitqueue_active(&poll_wait))
        wake_up_interruptible(&poll_wait);
}

static void pipe_wake(struct pipe_inode_info *p, struct fasync_struct **fa, int band)
{
    wake_up_interruptible(PIPE_WAIT(p));
    kill_fasync(fa, SIGIO, band);
    wake_pollers();
}

static void pipe_wake_sync(struct pipe_inode_info *p, struct fasync_struct **fa, int band)
{
    wake_up_interruptible_sync(PIPE_WAIT(p));
    kill_fasync(fa, SIGIO, band);
    wake_pollers();
}

/* Let go of the semaphore and wait for the pipe to change. */
static void pipe_wait(struct pipe_inode_info *p)
{
    DEFINE_WAIT(wait);

    /* for the deadlock report: one queue serves both ends */
    PIPE_WAIT(p)->what = PIPE_LEN(p) ? "write to a full pipe" : "read from an empty pipe";
    prepare_to_wait(PIPE_WAIT(p), &wait, TASK_INTERRUPTIBLE);
    up(PIPE_SEM(p));
    schedule();
    finish_wait(PIPE_WAIT(p), &wait);
    down(PIPE_SEM(p));
}

/* What is in the ring, up to count, in at most two copies. */
static long pipe_read(struct file *filp, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    struct pipe_inode_info *p = filp->pipe;
    int do_wakeup = 0;
    long ret = 0;

    if (ppos != &filp->pos)
        return -ESPIPE;
    if (count == 0)
        return 0;
    down(PIPE_SEM(p));
    for (;;) {
        uint32_t size = PIPE_LEN(p);

        if (size) {
            uint32_t chars = PIPE_MAX_RCHUNK(p);

            if (chars > count)
                chars = count;
            if (chars > size)
                chars = size;
            if (copy_to_user(buf, PIPE_BASE(p) + PIPE_START(p), chars)) {
                if (!ret)
                    ret = -EFAULT;
                break;
            }
            ret += chars;
            PIPE_START(p) = (PIPE_START(p) + chars) & (PIPE_SIZE - 1);
            PIPE_LEN(p) -= chars;
            count -= chars;
            buf += chars;
            do_wakeup = 1;
        }
        if (!count)
            break;
        if (PIPE_LEN(p))        /* the ring wrapped: the rest is at its start */
            continue;
        if (!PIPE_WRITERS(p))
            break;
        /* 2.5.53 waits on here for a writer that sleeps; today's Linux
         * returns what it has, and the tests compare with it */
        if (ret)
            break;
        if (filp->flags & O_NONBLOCK) {
            ret = -EAGAIN;
            break;
        }
        if (signal_pending(current)) {
            ret = -ERESTARTSYS;
            break;
        }
        if (do_wakeup)
            pipe_wake_sync(p, PIPE_FASYNC_WRITERS(p), POLL_OUT);
        pipe_wait(p);
    }
    up(PIPE_SEM(p));
    if (do_wakeup)
        pipe_wake(p, PIPE_FASYNC_WRITERS(p), POLL_OUT);
    return ret;
}

static long pipe_write(struct file *filp, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    struct pipe_inode_info *p = filp->pipe;
    int do_wakeup = 0;
    long ret = 0;
    uint32_t min;

    if (ppos != &filp->pos)
        return -ESPIPE;
    if (count == 0)
        return 0;
    min = count > PIPE_BUF ? 1 : count;
    down(PIPE_SEM(p));
    for (;;) {
        uint32_t free;

        if (!PIPE_READERS(p)) {
            send_signal(current, SIGPIPE);
            if (!ret)
                ret = -EPIPE;
            break;
        }
        free = PIPE_FREE(p);
        if (free >= min) {
            uint32_t chars = PIPE_MAX_WCHUNK(p);

            /* even if the copy fails: a reader may wait for this */
            do_wakeup = 1;
            if (chars > count)
                chars = count;
            if (chars > free)
                chars = free;
            if (copy_from_user(PIPE_BASE(p) + PIPE_END(p), buf, chars)) {
                if (!ret)
                    ret = -EFAULT;
                break;
            }
            ret += chars;
            PIPE_LEN(p) += chars;
            count -= chars;
            buf += chars;
        }
        if (!count)
            break;
        if (PIPE_FREE(p) && ret) {   /* the ring wrapped: go on at its start */
            min = 1;
            continue;
        }
        if (filp->flags & O_NONBLOCK) {
            if (!ret)
                ret = -EAGAIN;
            break;
        }
        if (signal_pending(current)) {
            if (!ret)
                ret = -ERESTARTSYS;
            break;
        }
        if (do_wakeup) {
            pipe_wake_sync(p, PIPE_FASYNC_READERS(p), POLL_IN);
            do_wakeup = 0;
        }
        PIPE_WAITING_WRITERS(p)++;
        pipe_wait(p);
        PIPE_WAITING_WRITERS(p)--;
    }
    up(PIPE_SEM(p));
    if (do_wakeup)
        pipe_wake(p, PIPE_FASYNC_READERS(p), POLL_IN);
    return ret;
}

static long bad_pipe_r(struct file *filp, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    return -EBADF;
}

static long bad_pipe_w(struct file *filp, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    return -EBADF;
}

const struct file_operations read_pipe_fops = { .read = pipe_read, .write = bad_pipe_w };
const struct file_operations write_pipe_fops = { .read = bad_pipe_r, .write = pipe_write };

/* The semaphore is the pipe's own here, not an inode's: let go of it
 * before the pipe goes. */
void pipe_release(struct file *f)
{
    struct pipe_inode_info *p = f->pipe;

    down(PIPE_SEM(p));
    if (file_readable(f))
        PIPE_READERS(p)--;
    if (file_writable(f))
        PIPE_WRITERS(p)--;
    if (!PIPE_READERS(p) && !PIPE_WRITERS(p)) {
        up(PIPE_SEM(p));
        free_pages(PIPE_BASE(p), PIPE_PAGES);
        kfree_obj(p);
        return;
    }
    wake_up_interruptible(PIPE_WAIT(p));
    kill_fasync(PIPE_FASYNC_READERS(p), SIGIO, POLL_IN);
    kill_fasync(PIPE_FASYNC_WRITERS(p), SIGIO, POLL_OUT);
    wake_pollers();
    up(PIPE_SEM(p));
}

void pipe_stat(const struct file *f, struct hc_stat *st)
{
    memset(st, 0, sizeof(*st));
    st->dev = PIPE_DEV;
    st->ino = f->pipe->ino;
    st->mode = S_IFIFO | 0600;
    st->nlink = 1;
    st->blksize = PAGE_SIZE;
    st->atime = st->mtime = st->ctime = f->pipe->ctime;
}

static long do_pipe2(uint32_t ufds, uint32_t flags)
{
    struct pipe_inode_info *p;
    struct file *rf, *wf;
    int fds[2];

    if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
        return -EINVAL;
    if (flags & O_DIRECT)
        return -EINVAL;   /* packet mode: not here */
    if (!access_ok(ufds, sizeof(fds)))
        return -EFAULT;
    p = kzalloc(sizeof(*p));
    if (!p)
        return -ENFILE;
    p->base = alloc_pages(PIPE_PAGES);
    rf = file_alloc(FT_PIPE, O_RDONLY | (flags & O_NONBLOCK));
    wf = file_alloc(FT_PIPE, O_WRONLY | (flags & O_NONBLOCK));
    if (!p->base || !rf || !wf) {
        if (p->base)
            free_pages(p->base, PIPE_PAGES);
        kfree_obj(p);
        if (rf)
            kfree_obj(rf);
        if (wf)
            kfree_obj(wf);
        return -ENFILE;
    }
    p->readers = p->writers = 1;
    p->ino = next_ino++;
    now(&p->ctime);
    init_waitqueue(PIPE_WAIT(p), "a pipe");
    init_MUTEX(PIPE_SEM(p), "a pipe's semaphore");
    rf->pipe = wf->pipe = p;
    rf->mode = wf->mode = S_IFIFO | 0600;
    fds[0] = fd_alloc(rf, 0, (flags & O_CLOEXEC) != 0);
    fds[1] = fds[0] < 0 ? fds[0] : fd_alloc(wf, 0, (flags & O_CLOEXEC) != 0);
    if (fds[1] < 0) {
        if (fds[0] >= 0)
            fd_close((uint32_t)fds[0]);
        else
            fput(rf);
        fput(wf);
        return -EMFILE;
    }
    if (copy_to_user(ufds, fds, sizeof(fds)) != 0) {
        fd_close((uint32_t)fds[0]);
        fd_close((uint32_t)fds[1]);
        return -EFAULT;
    }
    return 0;
}

long sys_pipe(uint32_t ufds, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_pipe2(ufds, 0);
}

long sys_pipe2(uint32_t ufds, uint32_t flags, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_pipe2(ufds, flags);
}
