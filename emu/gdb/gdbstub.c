/*
 * The stub's sockets: listening, one client at a time, reads that wait
 * only while the machine is stopped, writes that time out. The protocol
 * itself is gdb_session.c.
 */
#define _GNU_SOURCE   /* accept4 */
#include "gdb/gdbstub.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "gdb/gdb_session.h"

#define IN_MAX 4096   /* bytes read at once */

struct gdb_stub {
    int listen_fd;
    int fd;              /* the client, or -1 */
    unsigned port;
    int timeout_ms;
    struct gdb_target target;
    struct gdb_session s;
    uint8_t in[IN_MAX];
    size_t in_pos, in_len;
};

static struct gdb_stub *stub_new(const struct gdb_target *t)
{
    struct gdb_stub *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->listen_fd = g->fd = -1;
    g->timeout_ms = GDB_DEFAULT_TIMEOUT_MS;
    g->target = *t;
    gdb_session_init(&g->s, &g->target);
    return g;
}

static void set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void take_client(struct gdb_stub *g, int fd)
{
    int one = 1;
    set_nonblocking(fd);
    /* One small packet each way per command: Nagle would add 40 ms each. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    g->fd = fd;
    g->in_pos = g->in_len = 0;
    gdb_session_init(&g->s, &g->target);
}

/* "[HOST:]PORT" into host and port; false if malformed. */
static bool split_spec(const char *spec, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *colon = strrchr(spec, ':');
    const char *p = colon ? colon + 1 : spec;
    size_t hl = colon ? (size_t)(colon - spec) : 0;

    if (!*p || strlen(p) >= portlen || strspn(p, "0123456789") != strlen(p) || atol(p) > 65535)
        return false;
    if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
        spec++;
        hl -= 2;
    }
    if (hl >= hostlen || memchr(spec, '[', hl) || memchr(spec, ']', hl))
        return false;
    if (hl)
        snprintf(host, hostlen, "%.*s", (int)hl, spec);
    else
        snprintf(host, hostlen, "127.0.0.1");   /* loopback unless asked */
    snprintf(port, portlen, "%s", p);
    return true;
}

static int listen_on(const char *host, const char *port, char *err, size_t errlen)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
    struct addrinfo *res;
    int fd = -1, e = 0, one = 1;

    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "gdb: cannot listen on %s:%s: %s", host, port, gai_strerror(rc));
        return -1;
    }
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 1) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(err, errlen, "gdb: cannot listen on %s:%s: %s", host, port, strerror(e));
    return fd;
}

static unsigned bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
        return 0;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return 0;
}

struct gdb_stub *gdb_listen(const char *spec, const struct gdb_target *t, char *err,
                            size_t errlen)
{
    char host[256], port[8];
    if (!spec || !split_spec(spec, host, sizeof host, port, sizeof port)) {
        snprintf(err, errlen, "gdb: bad address \"%s\" (want [HOST:]PORT)", spec ? spec : "");
        return NULL;
    }
    int fd = listen_on(host, port, err, errlen);
    if (fd < 0)
        return NULL;
    struct gdb_stub *g = stub_new(t);
    if (!g) {
        close(fd);
        snprintf(err, errlen, "gdb: out of memory");
        return NULL;
    }
    set_nonblocking(fd);
    g->listen_fd = fd;
    g->port = bound_port(fd);
    return g;
}

struct gdb_stub *gdb_attach_fd(int fd, const struct gdb_target *t)
{
    struct gdb_stub *g = stub_new(t);
    if (g)
        take_client(g, fd);
    return g;
}

unsigned gdb_port(const struct gdb_stub *g)
{
    return g->port;
}

void gdb_set_timeout(struct gdb_stub *g, int ms)
{
    g->timeout_ms = ms;
}

bool gdb_connected(const struct gdb_stub *g)
{
    return g->fd >= 0;
}

/* The client is gone or misbehaved: a detach. */
static void drop(struct gdb_stub *g)
{
    if (g->fd < 0)
        return;
    gdb_session_end(&g->s);
    close(g->fd);
    g->fd = -1;
    g->in_pos = g->in_len = 0;
}

/* A connection waiting on the listener: the client if there is none,
 * else turned away (one client at a time). True if a client was taken. */
static bool accept_one(struct gdb_stub *g)
{
    int fd = accept4(g->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return false;
    if (g->fd >= 0) {
        close(fd);
        return false;
    }
    take_client(g, fd);
    return true;
}

/* Send everything queued for the client; false if it cannot take it. */
static bool flush(struct gdb_stub *g)
{
    struct gdb_session *s = &g->s;
    size_t done = 0;
    while (done < s->out_len) {
        ssize_t n = send(g->fd, s->out + done, s->out_len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            break;
        struct pollfd p = { .fd = g->fd, .events = POLLOUT };
        if (poll(&p, 1, g->timeout_ms) <= 0)
            break;
    }
    bool ok = done == s->out_len;
    s->out_len = 0;
    return ok;
}

/* Feed the buffered input to the session until it asks for something. */
static struct gdb_resume pump(struct gdb_stub *g)
{
    struct gdb_resume r = { .action = GDB_ACT_NONE };
    while (g->fd >= 0 && g->in_pos < g->in_len && r.action == GDB_ACT_NONE &&
           !g->s.interrupted) {
        g->in_pos += gdb_session_input(&g->s, g->in + g->in_pos, g->in_len - g->in_pos, &r);
        if (!flush(g))
            drop(g);
    }
    return r;
}

/* Read what the client sent; false if it has gone. */
static bool receive(struct gdb_stub *g)
{
    for (;;) {
        ssize_t n = recv(g->fd, g->in, sizeof g->in, MSG_DONTWAIT);
        if (n > 0) {
            g->in_pos = 0;
            g->in_len = (size_t)n;
            return true;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

/* Wait up to timeout_ms (-1: for ever) for client bytes, turning away
 * other connections meanwhile; false on disconnect or silence. */
static bool wait_input(struct gdb_stub *g, int timeout_ms)
{
    for (;;) {
        struct pollfd p[2] = { { .fd = g->fd, .events = POLLIN },
                               { .fd = g->listen_fd, .events = POLLIN } };
        int n = poll(p, g->listen_fd >= 0 ? 2 : 1, timeout_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        if (g->listen_fd >= 0 && (p[1].revents & POLLIN))
            accept_one(g);
        if (p[0].revents) {
            g->in_pos = g->in_len = 0;
            if (!receive(g))
                return false;
            if (g->in_len > 0)
                return true;
        }
    }
}

/* Wait for a client to connect (the machine is stopped meanwhile). */
static bool wait_client(struct gdb_stub *g)
{
    while (g->fd < 0) {
        struct pollfd p = { .fd = g->listen_fd, .events = POLLIN };
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return false;
        accept_one(g);
    }
    return true;
}

struct gdb_resume gdb_stopped(struct gdb_stub *g, const struct gdb_stop *why)
{
    const struct gdb_resume detach = { .action = GDB_ACT_DETACH };
    bool over = why->kind != GDB_STOP_SIGNAL;

    if (g->fd < 0 && (over || g->listen_fd < 0 || !wait_client(g)))
        return detach;
    gdb_session_stop(&g->s, why);
    if (!flush(g))
        drop(g);
    while (g->fd >= 0) {
        struct gdb_resume r = pump(g);
        if (r.action == GDB_ACT_KILL || r.action == GDB_ACT_DETACH) {
            drop(g);
            return r;
        }
        if (r.action != GDB_ACT_NONE)
            return r;
        if (g->fd >= 0 && g->in_pos == g->in_len && !wait_input(g, over ? g->timeout_ms : -1))
            drop(g);
    }
    return detach;
}

/* The client first: if it has hung up, a new one may take its place. */
int gdb_poll(struct gdb_stub *g)
{
    int sig = 0;
    if (g->fd >= 0 && g->in_pos == g->in_len) {
        g->in_pos = g->in_len = 0;
        if (!receive(g))
            drop(g);
    }
    pump(g);
    if (g->fd >= 0 && g->s.interrupted) {
        g->s.interrupted = false;
        sig = GDB_SIGINT;
    }
    bool had_client = g->fd >= 0;
    if (g->listen_fd >= 0 && accept_one(g) && !had_client)
        sig = GDB_SIGTRAP;
    return sig;
}

void gdb_close(struct gdb_stub *g)
{
    if (!g)
        return;
    if (g->fd >= 0)
        close(g->fd);
    if (g->listen_fd >= 0)
        close(g->listen_fd);
    free(g);
}
