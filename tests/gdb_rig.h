/*
 * A GDB client for the stub's tests: the stub runs over the fake machine
 * (gdb_fake.h) in a thread, the test talks to it over a socket. Frames
 * sent are built here by hand; replies are checked by gdb_rx.
 */
#ifndef TESTS_GDB_RIG_H
#define TESTS_GDB_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include "gdb_fake.h"

struct rig {
    struct fake f;
    struct gdb_stub *g;
    int fd;              /* the client's socket */
    bool wait;           /* stop before the first instruction */
    pthread_t machine;
    int result;          /* fake_machine's */
    bool joined;
    struct gdb_rx rx;
    char reply[GDB_PACKET_MAX + 1];
    size_t reply_len;
};

extern struct rig *rig;

/* The stub over a socketpair; spin_at: see struct fake. */
void rig_start(int spin_at, int timeout_ms);
/* The stub listening on spec; the client connects later (rig_connect). */
unsigned rig_listen(const char *spec, bool wait, int spin_at);
int rig_connect(unsigned port);   /* a TCP client socket to 127.0.0.1 */
/* Close the client and wait for the machine; fake_machine's result. */
int rig_finish(void);
void rig_teardown(void);

void send_raw(const void *bytes, size_t n);
void send_packet_n(const char *data, size_t n);
void send_packet(const char *data);
int next_byte(void);   /* -1 at EOF */
void expect_ack(void);
/* The next packet from the stub, acked if ack; NULL at EOF. */
const char *get_packet(bool ack);
/* Send, expect the ack, return the reply (acked). */
const char *ask(const char *data);
/* qRcmd: the output text of "monitor line" (or the raw reply if not hex). */
const char *monitor(const char *line);

#endif
