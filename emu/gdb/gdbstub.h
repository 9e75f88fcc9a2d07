/*
 * A GDB remote stub over TCP: one client at a time, all-stop, one thread.
 * The machine owns the run loop and implements struct gdb_target
 * (gdb_target.h); the stub only moves packets. The protocol for the
 * machine:
 *
 *   g = gdb_listen("127.0.0.1:1234", &target, err, sizeof err);
 *   stop = --gdb-wait ? SIGTRAP : none;
 *   for (;;) {
 *       if (stopped) {
 *           r = gdb_stopped(g, &stop);   // report, then serve packets
 *           KILL: end the program;  DETACH: run on, never stop again
 *           CONTINUE: run until a point hits, a fault, or the exit
 *           STEP: run exactly one instruction, stop with SIGTRAP
 *       }
 *       run guest instructions; every few thousand of them:
 *           if ((sig = gdb_poll(g))) stop with sig (SIGINT: Ctrl-C,
 *           SIGTRAP: a client has just attached)
 *       at a Z0/Z1 address (before executing it): stop, cause SW/HWBREAK
 *       after an instruction that touched a watched range: stop, WATCH..
 *       on exit: gdb_stopped(g, EXITED status), then gdb_close(g)
 *   }
 *
 * Points exist only while a client is connected, so the machine stops
 * for them (and for faults it reports) only while gdb_connected(g);
 * gdb_stopped with no client waits for one, which only --gdb-wait wants.
 * A resume at a breakpoint's address executes that instruction first
 * (GDB steps over its own breakpoints; other clients expect this too).
 *
 * gdb_stopped blocks while the client thinks: the machine is stopped, so
 * nothing is lost, and the cycle model does not count host time. Writes
 * to the client time out (gdb_set_timeout); a client that stops reading,
 * disconnects, or sends garbage is dropped and treated as a detach: its
 * points are removed through target->remove_point first.
 */
#ifndef EMU_GDBSTUB_H
#define EMU_GDBSTUB_H

#include <stdbool.h>
#include <stddef.h>
#include "gdb/gdb_target.h"

#define GDB_DEFAULT_PORT "1234"
#define GDB_DEFAULT_TIMEOUT_MS 10000

struct gdb_stub;

/* Listen on "[HOST:]PORT" ("1234", ":1234", "0.0.0.0:1234", "[::1]:1234");
 * HOST defaults to 127.0.0.1, PORT 0 picks a free port. NULL and a
 * one-line message in err if that cannot be done. The target is copied;
 * its ctx must outlive the stub. */
struct gdb_stub *gdb_listen(const char *spec, const struct gdb_target *t, char *err,
                            size_t errlen);
/* A stub over one connected socket and no listener (tests). */
struct gdb_stub *gdb_attach_fd(int fd, const struct gdb_target *t);
/* The port listened on (0 without a listener). */
unsigned gdb_port(const struct gdb_stub *g);
/* How long a write to the client, or (after the exit report) its
 * silence, may last before it is dropped. */
void gdb_set_timeout(struct gdb_stub *g, int ms);
bool gdb_connected(const struct gdb_stub *g);

/*
 * The machine has stopped: report why to the client if it is waiting for
 * a stop reply, then serve its packets until it resumes, kills or leaves.
 * With no client connected, first wait for one (--gdb-wait). After an
 * EXITED or KILLED report, serve until the client leaves (or is silent
 * for the timeout) and return DETACH.
 */
struct gdb_resume gdb_stopped(struct gdb_stub *g, const struct gdb_stop *why);

/*
 * While the guest runs: never blocks. 0 to go on, or the signal to stop
 * with: GDB_SIGINT if the client sent Ctrl-C, GDB_SIGTRAP if a client
 * has just connected (the machine then calls gdb_stopped). A client that
 * disconnects here is detached and the machine runs on.
 */
int gdb_poll(struct gdb_stub *g);

void gdb_close(struct gdb_stub *g);

#endif
