/*
 * Where a trace's bytes go. A regular file of its own is written with
 * write(2) from one large buffer the lines are built in (no second copy
 * into a FILE's buffer, and large writes); anything else (a terminal, a
 * pipe, a device, or the file standard output or error already is, which
 * the program's own output goes to) stays on stdio, each byte handed to
 * the FILE by the same calls as before, so that the two interleave as
 * they always did.
 */
#ifndef EMU_TRACE_OUT_H
#define EMU_TRACE_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TRACE_OUT_DIRECT_SIZE (1 << 20)   /* write(2)s this large */
#define TRACE_OUT_STDIO_SIZE (1 << 16)    /* lines handed to the FILE together */

struct trace_out {
    FILE *f;            /* stdio; NULL: direct */
    int fd;             /* direct */
    int err;            /* direct: the first write's errno, 0 if none failed */
    char *buf;          /* lines not yet written (direct) or in the FILE (stdio) */
    size_t len, cap;
};

/* Create or truncate path. 0, or -1 with errno set. */
int trace_out_open(struct trace_out *o, const char *path);
/* Write what is buffered and close; -1 with errno if any write failed. */
int trace_out_close(struct trace_out *o);

/* Write out (direct) or hand to the FILE (stdio) what is buffered. */
void trace_out_drain(struct trace_out *o);

/* (Inline: a traced instruction's every line goes through these.) */
/* Room for n bytes at the end of the buffer (writing it out first if it
 * has not), or NULL if n is more than it can ever hold. */
static inline char *trace_out_room(struct trace_out *o, size_t n)
{
    if (o->cap - o->len < n)
        trace_out_drain(o);
    return o->cap - o->len < n ? NULL : o->buf + o->len;
}
static inline void trace_out_commit(struct trace_out *o, size_t n)
{
    o->len += n;
}
/* stdio: hand the buffer to the FILE, as the next byte written may be
 * the program's (no-op when direct). */
static inline void trace_out_sync(struct trace_out *o)
{
    if (o->f && o->len)
        trace_out_drain(o);
}

/* As fwrite, fputs, fputc and fprintf; stdio: after a sync. */
void trace_out_write(struct trace_out *o, const void *p, size_t n);
void trace_out_puts(struct trace_out *o, const char *s);
void trace_out_putc(struct trace_out *o, char c);
void trace_out_printf(struct trace_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
