#include "gdb_rig.h"
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct rig *rig;

static void *run_machine(void *arg)
{
    struct rig *r = arg;
    r->result = fake_machine(&r->f, r->g, r->wait);
    return NULL;
}

static void rig_new(int spin_at)
{
    rig = calloc(1, sizeof *rig);
    ck_assert_ptr_nonnull(rig);
    fake_init(&rig->f);
    rig->f.spin_at = spin_at;
    rig->fd = -1;
    gdb_rx_init(&rig->rx);
}

void rig_start(int spin_at, int timeout_ms)
{
    int sv[2];
    rig_new(spin_at);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rig->fd = sv[0];
    rig->g = gdb_attach_fd(sv[1], &rig->f.target);
    ck_assert_ptr_nonnull(rig->g);
    if (timeout_ms)
        gdb_set_timeout(rig->g, timeout_ms);
    rig->wait = true;
    ck_assert_int_eq(pthread_create(&rig->machine, NULL, run_machine, rig), 0);
}

unsigned rig_listen(const char *spec, bool wait, int spin_at)
{
    char err[256];
    rig_new(spin_at);
    rig->g = gdb_listen(spec, &rig->f.target, err, sizeof err);
    ck_assert_msg(rig->g != NULL, "%s", err);
    rig->wait = wait;
    ck_assert_int_eq(pthread_create(&rig->machine, NULL, run_machine, rig), 0);
    return gdb_port(rig->g);
}

int rig_connect(unsigned port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

int rig_finish(void)
{
    if (rig->fd >= 0)
        close(rig->fd);
    rig->fd = -1;
    if (!rig->joined)
        pthread_join(rig->machine, NULL);
    rig->joined = true;
    return rig->result;
}

void rig_teardown(void)
{
    if (!rig)
        return;
    rig_finish();
    gdb_close(rig->g);
    free(rig);
    rig = NULL;
}

void send_raw(const void *bytes, size_t n)
{
    ck_assert_int_eq(send(rig->fd, bytes, n, MSG_NOSIGNAL), (ssize_t)n);
}

void send_packet_n(const char *data, size_t n)
{
    char tail[4];
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (unsigned char)data[i];
    snprintf(tail, sizeof tail, "#%02x", sum & 0xff);
    send_raw("$", 1);
    send_raw(data, n);
    send_raw(tail, 3);
}

void send_packet(const char *data)
{
    send_packet_n(data, strlen(data));
}

/* A stub that never answers fails the test instead of hanging it. */
int next_byte(void)
{
    struct pollfd p = { .fd = rig->fd, .events = POLLIN };
    uint8_t c;
    ck_assert_msg(poll(&p, 1, 30000) == 1, "the stub did not answer");
    return read(rig->fd, &c, 1) == 1 ? c : -1;
}

void expect_ack(void)
{
    ck_assert_int_eq(next_byte(), '+');
}

const char *get_packet(bool ack)
{
    for (;;) {
        int c = next_byte();
        if (c < 0)
            return NULL;
        enum gdb_rx_event e = gdb_rx_byte(&rig->rx, (uint8_t)c);
        ck_assert_msg(e != GDB_RX_BAD, "the stub sent a bad frame");
        if (e == GDB_RX_PACKET) {
            memcpy(rig->reply, rig->rx.data, rig->rx.len + 1);
            rig->reply_len = rig->rx.len;
            /* after D or vKill the stub may have hung up already */
            if (ack)
                send(rig->fd, "+", 1, MSG_NOSIGNAL);
            return rig->reply;
        }
    }
}

const char *ask(const char *data)
{
    send_packet(data);
    expect_ack();
    const char *r = get_packet(true);
    ck_assert_msg(r != NULL, "no reply to %s", data);
    return r;
}

const char *monitor(const char *line)
{
    static char text[GDB_PACKET_MAX];
    char pkt[GDB_PACKET_MAX] = "qRcmd,";
    size_t n = strlen(line);
    for (size_t i = 0; i < n; i++)
        sprintf(pkt + 6 + 2 * i, "%02x", (unsigned char)line[i]);
    const char *r = ask(pkt);
    size_t len = strlen(r);
    if (len % 2 || !gdb_hex_decode((uint8_t *)text, r, len / 2))
        return r;
    text[len / 2] = 0;
    return text;
}
