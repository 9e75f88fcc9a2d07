#include "observe/trace_out.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool same_file(const struct stat *st, int fd)
{
    struct stat other;
    return !fstat(fd, &other) && other.st_dev == st->st_dev && other.st_ino == st->st_ino;
}

/* A regular file that neither standard output nor error writes to. */
static bool own_regular_file(int fd)
{
    struct stat st;
    return !fstat(fd, &st) && S_ISREG(st.st_mode) && !same_file(&st, STDOUT_FILENO) &&
           !same_file(&st, STDERR_FILENO);
}

int trace_out_open(struct trace_out *o, const char *path)
{
    *o = (struct trace_out){ .fd = -1 };
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);   /* fopen's "w" */
    if (fd < 0)
        return -1;
    bool direct = own_regular_file(fd);
    o->cap = direct ? TRACE_OUT_DIRECT_SIZE : TRACE_OUT_STDIO_SIZE;
    o->buf = malloc(o->cap);
    if (!direct && o->buf)
        o->f = fdopen(fd, "w");
    if (!o->buf || (!direct && !o->f)) {
        int why = o->buf ? errno : ENOMEM;
        free(o->buf);
        close(fd);
        errno = why;
        return -1;
    }
    /* Fully buffered even on a terminal. glibc takes a size only with a
     * buffer of the caller's, so this one is its own (st_blksize): the
     * pieces, and so the interleaving with the guest's output, that such
     * traces have always had. */
    if (o->f)
        setvbuf(o->f, NULL, _IOFBF, 0);
    else
        o->fd = fd;
    return 0;
}

/* direct: all of p, unless a write fails (then it and what follows are
 * lost, and the error is kept for the close) */
static void write_all(struct trace_out *o, const char *p, size_t n)
{
    while (n && !o->err) {
        ssize_t k = write(o->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            o->err = k < 0 ? errno : EIO;
            break;
        }
        p += k;
        n -= (size_t)k;
    }
}

void trace_out_drain(struct trace_out *o)
{
    if (o->f)
        fwrite(o->buf, 1, o->len, o->f);
    else
        write_all(o, o->buf, o->len);
    o->len = 0;
}

void trace_out_write(struct trace_out *o, const void *p, size_t n)
{
    if (o->f) {
        trace_out_sync(o);
        fwrite(p, 1, n, o->f);
        return;
    }
    char *room = trace_out_room(o, n);
    if (!room) {
        write_all(o, p, n);
        return;
    }
    memcpy(room, p, n);
    o->len += n;
}

void trace_out_puts(struct trace_out *o, const char *s)
{
    if (o->f) {
        trace_out_sync(o);
        fputs(s, o->f);
        return;
    }
    trace_out_write(o, s, strlen(s));
}

void trace_out_putc(struct trace_out *o, char c)
{
    if (o->f) {
        trace_out_sync(o);
        fputc(c, o->f);
        return;
    }
    if (o->len == o->cap)
        trace_out_drain(o);
    o->buf[o->len++] = c;
}

/* direct: formatted straight into the buffer, which is written out first
 * if the text does not fit what is left of it. */
static void direct_printf(struct trace_out *o, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    if (n >= 0 && (size_t)n >= o->cap - o->len) {
        trace_out_drain(o);
        if ((size_t)n < o->cap) {
            vsnprintf(o->buf, o->cap, fmt, again);
        } else {
            char *s = malloc((size_t)n + 1);
            if (s && vsnprintf(s, (size_t)n + 1, fmt, again) == n)
                write_all(o, s, (size_t)n);
            free(s);
            n = 0;
        }
    }
    if (n > 0)
        o->len += (size_t)n;
    va_end(again);
}

void trace_out_printf(struct trace_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (o->f) {
        trace_out_sync(o);
        vfprintf(o->f, fmt, ap);
    } else {
        direct_printf(o, fmt, ap);
    }
    va_end(ap);
}

int trace_out_close(struct trace_out *o)
{
    int rc, why;
    if (o->f) {
        trace_out_sync(o);
        /* a write that failed on the way (the buffer went out and was
         * lost) leaves only the error indicator: fclose alone may not tell */
        rc = ferror(o->f);
        rc |= fclose(o->f);
        why = errno;
    } else {
        trace_out_drain(o);
        why = o->err;
        rc = close(o->fd) || why;
        if (!why)
            why = errno;
    }
    free(o->buf);
    *o = (struct trace_out){ .fd = -1 };
    errno = why;
    return rc ? -1 : 0;
}
