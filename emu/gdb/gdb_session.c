#include "gdb/gdb_session.h"
#include <string.h>

void gdb_session_init(struct gdb_session *s, const struct gdb_target *t)
{
    memset(s, 0, sizeof *s);
    s->target = t;
    gdb_rx_init(&s->rx);
    s->last = (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGTRAP };
}

static void queue(struct gdb_session *s, const char *bytes, size_t n)
{
    if (n <= sizeof s->out - s->out_len) {
        memcpy(s->out + s->out_len, bytes, n);
        s->out_len += n;
    }
}

static void send_reply(struct gdb_session *s)
{
    size_t n = gdb_frame(s->sent, sizeof s->sent, s->reply, s->reply_len);
    if (n == 0)   /* a reply that cannot be framed is a stub bug */
        n = gdb_frame(s->sent, sizeof s->sent, "E01", 3);
    s->sent_len = n;
    s->resends = 0;
    queue(s, s->sent, n);
}

static enum gdb_action packet(struct gdb_session *s, struct gdb_resume *r)
{
    if (!s->no_ack)
        queue(s, "+", 1);
    /* All-stop: a running machine only hears Ctrl-C. */
    if (s->running || s->gone)
        return GDB_ACT_NONE;
    s->reply_len = 0;
    s->no_reply = false;
    enum gdb_action a = gdb_command(s, s->rx.data, s->rx.len, r);
    if (!s->no_reply)
        send_reply(s);
    return a;
}

size_t gdb_session_input(struct gdb_session *s, const uint8_t *in, size_t n,
                         struct gdb_resume *r)
{
    *r = (struct gdb_resume){ .action = GDB_ACT_NONE };
    for (size_t i = 0; i < n; i++) {
        switch (gdb_rx_byte(&s->rx, in[i])) {
        case GDB_RX_PACKET:
            r->action = packet(s, r);
            return i + 1;
        case GDB_RX_BAD:
            /* Without acks nobody resends: drop it silently. */
            if (!s->no_ack)
                queue(s, "-", 1);
            return i + 1;
        case GDB_RX_NAK:
            if (!s->no_ack && s->sent_len && s->resends < GDB_MAX_RESENDS) {
                s->resends++;
                queue(s, s->sent, s->sent_len);
            }
            return i + 1;
        case GDB_RX_INTERRUPT:
            if (s->running) {
                s->interrupted = true;
                return i + 1;
            }
            break;   /* nothing to interrupt */
        default:
            break;
        }
    }
    return n;
}

void gdb_session_stop(struct gdb_session *s, const struct gdb_stop *why)
{
    s->last = *why;
    if (why->kind != GDB_STOP_SIGNAL)
        s->exited = true;
    s->interrupted = false;
    if (!s->running)
        return;
    s->running = false;
    s->reply_len = 0;
    gdb_stop_reply(s, why);
    send_reply(s);
}

void gdb_session_end(struct gdb_session *s)
{
    gdb_remove_all_points(s);
    s->gone = true;
    s->running = false;
}
