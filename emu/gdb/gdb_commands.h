/* Shared by the packet handlers (gdb_commands.c, gdb_query.c). */
#ifndef EMU_GDB_COMMANDS_H
#define EMU_GDB_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gdb/gdb_session.h"

/* errno values in "Exx" replies; GDB only looks at the 'E'. */
#define GDB_EINVAL 0x16
#define GDB_EFAULT 0x0e
#define GDB_ENOSPC 0x1c

#define GDB_THREAD 1   /* the one thread's id */

/* Append to s->reply, bounded by GDB_PACKET_MAX. */
void gdb_reply(struct gdb_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gdb_reply_error(struct gdb_session *s, int code);
void gdb_reply_hex(struct gdb_session *s, const uint8_t *bytes, size_t n);

/* Resume with action a (the reply is the later stop reply). */
enum gdb_action gdb_resume_as(struct gdb_session *s, enum gdb_action a, int signo,
                              struct gdb_resume *r);
/* The client kills or detaches: its points go with it. */
enum gdb_action gdb_leave(struct gdb_session *s, enum gdb_action a);

void gdb_thread_packet(struct gdb_session *s, char op, struct gdb_cursor c);
enum gdb_action gdb_query(struct gdb_session *s, const char *pkt, size_t len,
                          struct gdb_resume *r);

#endif
