/*
 * The packets that touch the machine: registers, memory, breakpoints and
 * watchpoints, resuming, kill and detach. Queries (q, Q, v) are in
 * gdb_query.c. Every handler leaves its reply in s->reply; malformed
 * arguments get "E16" (EINVAL), an access the target refuses "E0e"
 * (EFAULT), anything unknown the empty reply.
 */
#include "gdb/gdb_commands.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The widest memory transfer: the hex of a read must fit one reply. */
#define MEM_MAX (GDB_PACKET_MAX / 2)

void gdb_reply(struct gdb_session *s, const char *fmt, ...)
{
    size_t room = sizeof s->reply - s->reply_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->reply + s->reply_len, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->reply_len += (size_t)n < room ? (size_t)n : room - 1;
}

void gdb_reply_error(struct gdb_session *s, int code)
{
    s->reply_len = 0;
    gdb_reply(s, "E%02x", code & 0xff);
}

void gdb_reply_hex(struct gdb_session *s, const uint8_t *bytes, size_t n)
{
    if (2 * n > GDB_PACKET_MAX - s->reply_len)
        n = (GDB_PACKET_MAX - s->reply_len) / 2;
    gdb_hex_encode(s->reply + s->reply_len, bytes, n);
    s->reply_len += 2 * n;
    s->reply[s->reply_len] = 0;
}

void gdb_stop_reply(struct gdb_session *s, const struct gdb_stop *why)
{
    switch (why->kind) {
    case GDB_STOP_EXITED:
        gdb_reply(s, "W%02x", why->status & 0xff);
        return;
    case GDB_STOP_KILLED:
        gdb_reply(s, "X%02x", why->signo & 0xff);
        return;
    case GDB_STOP_SIGNAL:
        break;
    }
    gdb_reply(s, "T%02x", why->signo & 0xff);
    if (why->signo == GDB_SIGTRAP) {
        switch (why->cause) {
        case GDB_CAUSE_SWBREAK:
            if (s->swbreak)
                gdb_reply(s, "swbreak:;");
            break;
        case GDB_CAUSE_HWBREAK:
            if (s->hwbreak)
                gdb_reply(s, "hwbreak:;");
            break;
        case GDB_CAUSE_WATCH:
            gdb_reply(s, "watch:%x;", why->addr);
            break;
        case GDB_CAUSE_RWATCH:
            gdb_reply(s, "rwatch:%x;", why->addr);
            break;
        case GDB_CAUSE_AWATCH:
            gdb_reply(s, "awatch:%x;", why->addr);
            break;
        case GDB_CAUSE_NONE:
            break;
        }
    }
    gdb_reply(s, "thread:%02x;", GDB_THREAD);
}

/* ---- registers ---- */

/* One register's bytes (little-endian, as in the 'g' packet); false if
 * the target cannot read it. The x87 registers are zeros (gdb_i386.h);
 * the system registers are the target's, read-only. */
static bool read_reg(struct gdb_session *s, int regno, uint8_t *out)
{
    uint32_t v;
    memset(out, 0, gdb_i386_reg_size(regno));
    if (regno >= GDB_NCORE && regno < GDB_SYS)
        return true;
    if (s->target->get_reg(s->target->ctx, regno, &v) != 0)
        return false;
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(v >> 8 * i);
    return true;
}

static void reply_reg(struct gdb_session *s, int regno)
{
    uint8_t bytes[10];
    size_t n = gdb_i386_reg_size(regno);
    if (read_reg(s, regno, bytes)) {
        gdb_reply_hex(s, bytes, n);
    } else {
        /* 'x' digits: the register is unavailable. */
        memset(s->reply + s->reply_len, 'x', 2 * n);
        s->reply_len += 2 * n;
        s->reply[s->reply_len] = 0;
    }
}

/* Writing the value a register already has changes nothing, so it
 * succeeds even where the target refuses writes (a G packet carries
 * every register, CS too). The x87 registers are always zero. */
static int write_reg(struct gdb_session *s, int regno, const uint8_t *bytes)
{
    uint8_t now[10];
    size_t n = gdb_i386_reg_size(regno);
    if (read_reg(s, regno, now) && !memcmp(now, bytes, n))
        return 0;
    if (regno >= GDB_NCORE)
        return -1;
    uint32_t v = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    return s->target->set_reg(s->target->ctx, regno, v);
}

static void read_all_regs(struct gdb_session *s)
{
    for (int r = 0; r < GDB_SYS; r++)
        reply_reg(s, r);
}

/* G: every register wholly present in the data, in 'g' order. */
static void write_all_regs(struct gdb_session *s, struct gdb_cursor c)
{
    uint8_t bytes[GDB_G_BYTES];
    size_t len = (size_t)(c.end - c.p);
    if (len % 2 || len > 2 * GDB_G_BYTES || !gdb_hex_decode(bytes, c.p, len / 2)) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    for (int r = 0; r < GDB_SYS; r++) {
        size_t off = gdb_i386_reg_offset(r);
        if (off + gdb_i386_reg_size(r) > len / 2)
            break;
        if (write_reg(s, r, bytes + off) != 0) {
            gdb_reply_error(s, GDB_EFAULT);
            return;
        }
    }
    gdb_reply(s, "OK");
}

static void one_reg(struct gdb_session *s, struct gdb_cursor c, bool write)
{
    uint32_t regno;
    uint8_t bytes[10];
    if (!gdb_parse_field(&c, &regno, write ? '=' : 0) || regno >= GDB_NREGS) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    size_t n = gdb_i386_reg_size((int)regno);
    if (!write) {
        if (!gdb_at_end(&c))
            gdb_reply_error(s, GDB_EINVAL);
        else
            reply_reg(s, (int)regno);
        return;
    }
    if ((size_t)(c.end - c.p) != 2 * n || !gdb_hex_decode(bytes, c.p, n))
        gdb_reply_error(s, GDB_EINVAL);
    else if (write_reg(s, (int)regno, bytes) != 0)
        gdb_reply_error(s, GDB_EFAULT);
    else
        gdb_reply(s, "OK");
}

/* ---- memory ---- */

/* Never past the top of the address space. */
static uint32_t clamp_len(uint32_t addr, uint32_t len)
{
    uint64_t room = (uint64_t)UINT32_MAX - addr + 1;
    return len > room ? (uint32_t)room : len;
}

static void read_mem(struct gdb_session *s, struct gdb_cursor c)
{
    uint32_t addr, len;
    uint8_t buf[MEM_MAX];
    if (!gdb_parse_field(&c, &addr, ',') || !gdb_parse_field(&c, &len, 0) || !gdb_at_end(&c)) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    /* A short reply is allowed; GDB asks again for the rest. */
    len = clamp_len(addr, len < MEM_MAX ? len : MEM_MAX);
    if (len == 0)
        return;
    size_t n = s->target->read_mem(s->target->ctx, addr, buf, len);
    if (n == 0 || n > len)
        gdb_reply_error(s, GDB_EFAULT);
    else
        gdb_reply_hex(s, buf, n);
}

/* M addr,len:hex and X addr,len:binary */
static void write_mem(struct gdb_session *s, struct gdb_cursor c, bool binary)
{
    uint32_t addr, len;
    uint8_t buf[GDB_PACKET_MAX];
    if (!gdb_parse_field(&c, &addr, ',') || !gdb_parse_field(&c, &len, ':')) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    size_t have = (size_t)(c.end - c.p);
    bool ok;
    if (binary) {
        long n = gdb_unescape(buf, c.p, have);
        ok = n >= 0 && (uint32_t)n == len;
    } else {
        ok = have == 2 * (size_t)len && gdb_hex_decode(buf, c.p, len);
    }
    if (!ok || clamp_len(addr, len) != len) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    /* "X addr,0:" is GDB's probe for X support. */
    if (len > 0 && s->target->write_mem(s->target->ctx, addr, buf, len) != len)
        gdb_reply_error(s, GDB_EFAULT);
    else
        gdb_reply(s, "OK");
}

/* ---- breakpoints and watchpoints ---- */

static void forget_point(struct gdb_session *s, const struct gdb_point *p)
{
    for (int i = 0; i < s->npoints; i++) {
        struct gdb_point *q = &s->points[i];
        if (q->type == p->type && q->addr == p->addr && q->kind == p->kind) {
            *q = s->points[--s->npoints];
            return;
        }
    }
}

static void point(struct gdb_session *s, struct gdb_cursor c, bool insert)
{
    const struct gdb_target *t = s->target;
    uint32_t type;
    struct gdb_point p;
    if (!gdb_parse_field(&c, &type, ',') || !gdb_parse_field(&c, &p.addr, ',') ||
        !gdb_parse_field(&c, &p.kind, 0) || !gdb_at_end(&c)) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    if (type > GDB_WATCH_ACCESS || !(insert ? t->insert_point : t->remove_point))
        return;   /* unsupported */
    p.type = (enum gdb_point_type)type;
    if (insert && s->npoints == GDB_MAX_POINTS) {
        gdb_reply_error(s, GDB_ENOSPC);
        return;
    }
    int rc = insert ? t->insert_point(t->ctx, p.type, p.addr, p.kind)
                    : t->remove_point(t->ctx, p.type, p.addr, p.kind);
    if (rc == GDB_UNSUPPORTED)
        return;
    if (rc != 0) {
        gdb_reply_error(s, GDB_EFAULT);
        return;
    }
    if (insert)
        s->points[s->npoints++] = p;
    else
        forget_point(s, &p);
    gdb_reply(s, "OK");
}

void gdb_remove_all_points(struct gdb_session *s)
{
    const struct gdb_target *t = s->target;
    while (s->npoints > 0) {
        const struct gdb_point *p = &s->points[--s->npoints];
        t->remove_point(t->ctx, p->type, p->addr, p->kind);
    }
}

/* ---- resuming, kill, detach ---- */

enum gdb_action gdb_resume_as(struct gdb_session *s, enum gdb_action a, int signo,
                              struct gdb_resume *r)
{
    if (s->exited) {
        /* Nothing left to run: say so again. */
        gdb_stop_reply(s, &s->last);
        return GDB_ACT_NONE;
    }
    r->action = a;
    r->signo = signo;
    s->running = true;
    s->no_reply = true;   /* the stop reply answers it */
    return a;
}

/* c [addr], s [addr], C sig[;addr], S sig[;addr] */
static enum gdb_action resume_packet(struct gdb_session *s, char op, struct gdb_cursor c,
                                     struct gdb_resume *r)
{
    uint32_t sig = 0, addr;
    if ((op == 'C' || op == 'S') && (!gdb_parse_field(&c, &sig, 0) || sig > 0xff))
        goto bad;
    if ((op == 'C' || op == 'S') && !gdb_at_end(&c) && *c.p++ != ';')
        goto bad;
    if (!gdb_at_end(&c)) {
        if (!gdb_parse_field(&c, &addr, 0) || !gdb_at_end(&c))
            goto bad;
        if (!s->exited && s->target->set_reg(s->target->ctx, GDB_EIP, addr) != 0) {
            gdb_reply_error(s, GDB_EFAULT);
            return GDB_ACT_NONE;
        }
    }
    enum gdb_action a = op == 'c' || op == 'C' ? GDB_ACT_CONTINUE : GDB_ACT_STEP;
    return gdb_resume_as(s, a, (int)sig, r);
bad:
    gdb_reply_error(s, GDB_EINVAL);
    return GDB_ACT_NONE;
}

enum gdb_action gdb_leave(struct gdb_session *s, enum gdb_action a)
{
    gdb_remove_all_points(s);
    s->gone = true;
    return a;
}

/* ---- dispatch ---- */

enum gdb_action gdb_command(struct gdb_session *s, const char *pkt, size_t len,
                            struct gdb_resume *r)
{
    struct gdb_cursor c = { pkt + 1, pkt + len };
    s->reply[0] = 0;
    if (len == 0)
        return GDB_ACT_NONE;
    switch (pkt[0]) {
    case '?':
        gdb_stop_reply(s, &s->last);
        break;
    case 'g':
        read_all_regs(s);
        break;
    case 'G':
        write_all_regs(s, c);
        break;
    case 'p':
    case 'P':
        one_reg(s, c, pkt[0] == 'P');
        break;
    case 'm':
        read_mem(s, c);
        break;
    case 'M':
    case 'X':
        write_mem(s, c, pkt[0] == 'X');
        break;
    case 'Z':
    case 'z':
        point(s, c, pkt[0] == 'Z');
        break;
    case 'c':
    case 'C':
    case 's':
    case 'S':
        return resume_packet(s, pkt[0], c, r);
    case 'k':
        s->no_reply = true;   /* 'k' has no reply */
        return gdb_leave(s, GDB_ACT_KILL);
    case 'D':
        gdb_reply(s, "OK");
        return gdb_leave(s, GDB_ACT_DETACH);
    case 'H':
    case 'T':
        gdb_thread_packet(s, pkt[0], c);
        break;
    case 'q':
    case 'Q':
    case 'v':
        return gdb_query(s, pkt, len, r);
    default:
        break;   /* unknown: the empty reply */
    }
    return GDB_ACT_NONE;
}
