/*
 * Pipes: a 64 KiB ring in kernel pages (today's Linux size, which the
 * native runs the tests compare with use), readers and writers counted,
 * and a wait queue each way. A read blocks while the pipe is empty and has
 * a writer, and returns what there is; with no writer left, it is the end
 * of the file. A write of at most PIPE_BUF bytes goes in whole or waits; a
 * longer one goes in as room appears. With no reader left a write is
 * EPIPE, and SIGPIPE, whose default action ends the writer. O_NONBLOCK
 * makes the waits EAGAIN.
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define PIPE_PAGES 16
#define PIPE_SIZE  (PIPE_PAGES * PAGE_SIZE)
#define PIPE_BUF   4096
#define PIPE_DEV   0xc       /* the st_dev of pipefs */
#define O_DIRECT   00040000
#define POLLIN     0x0001
#define POLLOUT    0x0004
#define POLLERR    0x0008
#define POLLHUP    0x0010
#define POLLRDNORM 0x0040
#define POLLWRNORM 0x0100

struct pipe_inode {
    uint8_t *buf;
    uint32_t head, len;      /* the bytes are [head, head + len) mod PIPE_SIZE */
    uint32_t readers, writers;
    uint32_t ino;
    struct hc_time ctime;
    struct wait_queue rd_wait, wr_wait;
};

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
    struct pipe_inode *p = f->pipe;
    uint32_t ev = 0;

    if (file_readable(f)) {
        if (p->len)
            ev |= POLLIN | POLLRDNORM;
        if (!p->writers)
            ev |= POLLHUP;
    }
    if (file_writable(f)) {
        if (!p->readers)
            ev |= POLLERR;
        else if (PIPE_SIZE - p->len >= PIPE_BUF)
            ev |= POLLOUT | POLLWRNORM;
    }
    return ev;
}

/* A pipe changed: wake its readers or writers, and the pollers. */
static void pipe_changed(struct wait_queue *wq)
{
    wake_up(wq);
    wake_up(&poll_wait);
}

long pipe_read(struct file *f, uint32_t buf, uint32_t count)
{
    struct pipe_inode *p = f->pipe;
    uint32_t done = 0;
    int err;

    if (count == 0)
        return 0;
    while (p->len == 0) {
        if (p->writers == 0)
            return 0;
        if (f->flags & O_NONBLOCK)
            return -EAGAIN;
        if ((err = sleep_on(&p->rd_wait, TASK_INTERRUPTIBLE)) != 0)
            return err;
    }
    while (done < count && p->len) {
        uint32_t n = PIPE_SIZE - p->head;
        if (n > p->len)
            n = p->len;
        if (n > count - done)
            n = count - done;
        if (copy_to_user(buf + done, p->buf + p->head, n) != 0) {
            if (!done)
                return -EFAULT;
            break;
        }
        p->head = (p->head + n) % PIPE_SIZE;
        p->len -= n;
        done += n;
    }
    pipe_changed(&p->wr_wait);
    return done;
}

/* No reader: SIGPIPE for the writer (its default action ends it), EPIPE. */
static long broken(uint32_t done)
{
    send_signal(current, SIGPIPE);
    return done ? (long)done : -EPIPE;
}

long pipe_write(struct file *f, uint32_t buf, uint32_t count)
{
    struct pipe_inode *p = f->pipe;
    uint32_t done = 0;
    int atomic = count <= PIPE_BUF, err;

    if (p->readers == 0)
        return broken(0);
    while (done < count) {
        uint32_t room = PIPE_SIZE - p->len, tail, n;

        if (p->readers == 0)
            return broken(done);
        if (room == 0 || (atomic && room < count)) {
            if (f->flags & O_NONBLOCK)
                return done ? (long)done : -EAGAIN;
            pipe_changed(&p->rd_wait);
            if ((err = sleep_on(&p->wr_wait, TASK_INTERRUPTIBLE)) != 0)
                return done ? (long)done : err;
            continue;
        }
        tail = (p->head + p->len) % PIPE_SIZE;
        n = PIPE_SIZE - tail;
        if (n > room)
            n = room;
        if (n > count - done)
            n = count - done;
        if (copy_from_user(p->buf + tail, buf + done, n) != 0)
            return done ? (long)done : -EFAULT;
        p->len += n;
        done += n;
    }
    pipe_changed(&p->rd_wait);
    return done;
}

void pipe_release(struct file *f)
{
    struct pipe_inode *p = f->pipe;

    if (file_readable(f))
        p->readers--;
    if (file_writable(f))
        p->writers--;
    pipe_changed(&p->rd_wait);
    pipe_changed(&p->wr_wait);
    if (p->readers == 0 && p->writers == 0) {
        free_pages(p->buf, PIPE_PAGES);
        kfree_obj(p);
    }
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
    struct pipe_inode *p;
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
    p->buf = alloc_pages(PIPE_PAGES);
    rf = file_alloc(FT_PIPE, O_RDONLY | (flags & O_NONBLOCK));
    wf = file_alloc(FT_PIPE, O_WRONLY | (flags & O_NONBLOCK));
    if (!p->buf || !rf || !wf) {
        if (p->buf)
            free_pages(p->buf, PIPE_PAGES);
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
    init_waitqueue(&p->rd_wait, "read from an empty pipe");
    init_waitqueue(&p->wr_wait, "write to a full pipe");
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
