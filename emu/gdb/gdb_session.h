/*
 * One GDB client's session, without any I/O: bytes from the client go in,
 * bytes for the client come out in s->out, and what the client asks of
 * the machine comes back as a struct gdb_resume. gdbstub.c moves the
 * bytes over a socket; the fuzz harness moves them from memory.
 *
 * All-stop, one thread (id 1). The session is either stopped (serving
 * packets) or running (the client waits for a stop reply and may only
 * interrupt); once the program has exited, resuming just repeats the
 * exit report.
 */
#ifndef EMU_GDB_SESSION_H
#define EMU_GDB_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "gdb/gdb_packet.h"
#include "gdb/gdb_target.h"

#define GDB_MAX_POINTS 64   /* breakpoints and watchpoints inserted at once */
#define GDB_MAX_RESENDS 4   /* '-' resends of one reply before giving up */

struct gdb_point {
    enum gdb_point_type type;
    uint32_t addr, kind;
};

struct gdb_session {
    const struct gdb_target *target;
    struct gdb_rx rx;
    bool no_ack;          /* after QStartNoAckMode */
    bool running;         /* resumed; the client waits for a stop reply */
    bool interrupted;     /* Ctrl-C arrived while running */
    bool exited;          /* the program is gone (W or X reported) */
    bool gone;            /* the client killed or detached */
    bool swbreak, hwbreak; /* the client takes these stop reasons */
    struct gdb_stop last; /* what '?' reports */
    struct gdb_point points[GDB_MAX_POINTS];
    int npoints;
    int resends;
    char sent[GDB_FRAME_MAX];    /* the last reply, framed, for a '-' */
    size_t sent_len;
    char out[GDB_FRAME_MAX + 1]; /* to send: an ack and at most one reply */
    size_t out_len;
    char reply[GDB_PACKET_MAX + 1]; /* the reply being built */
    size_t reply_len;
    bool no_reply;        /* this packet has none ('k') */
};

void gdb_session_init(struct gdb_session *s, const struct gdb_target *t);

/*
 * Take bytes from in[0..n) up to the first that completes a packet or an
 * event, and return how many were taken. At most one reply is added to
 * s->out; send it and set out_len to 0 before the next call. *r says what
 * the client asked for (GDB_ACT_NONE: nothing for the machine yet).
 */
size_t gdb_session_input(struct gdb_session *s, const uint8_t *in, size_t n,
                         struct gdb_resume *r);

/* The machine stopped: remember why for '?', and if the client is
 * waiting for a stop reply, queue it in s->out. */
void gdb_session_stop(struct gdb_session *s, const struct gdb_stop *why);

/* The client is gone (disconnect, D, k): remove every point it left. */
void gdb_session_end(struct gdb_session *s);

/* gdb_commands.c: run one packet, leaving the reply in s->reply. */
enum gdb_action gdb_command(struct gdb_session *s, const char *pkt, size_t len,
                            struct gdb_resume *r);
void gdb_stop_reply(struct gdb_session *s, const struct gdb_stop *why);
void gdb_remove_all_points(struct gdb_session *s);

#endif
