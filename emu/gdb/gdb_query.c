/*
 * The general queries and settings (q, Q), the v packets, thread
 * selection (H, T) and monitor commands (qRcmd). One thread, id 1.
 */
#include "gdb/gdb_commands.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char supported[] =
    "PacketSize=%x;qXfer:features:read+;vContSupported+;swbreak+;hwbreak+;"
    "QStartNoAckMode+";

void gdb_printf(struct gdb_text *t, const char *fmt, ...)
{
    size_t room = sizeof t->buf - t->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= room) {
        t->truncated = true;
        n = (int)room - 1;
    }
    t->len += (size_t)n;
}

/* Does the packet start with word? Then c is what follows it. */
static bool starts(const char *pkt, size_t len, const char *word, struct gdb_cursor *c)
{
    size_t n = strlen(word);
    if (len < n || memcmp(pkt, word, n))
        return false;
    *c = (struct gdb_cursor){ pkt + n, pkt + len };
    return true;
}

static bool is(const char *pkt, size_t len, const char *word)
{
    return len == strlen(word) && !memcmp(pkt, word, len);
}

/* -1 (all) or a hex id */
static bool parse_id(struct gdb_cursor *c, long *v)
{
    uint32_t x;
    if (c->end - c->p >= 2 && c->p[0] == '-' && c->p[1] == '1') {
        c->p += 2;
        *v = -1;
        return true;
    }
    if (!gdb_parse_hex(&c->p, c->end, &x))
        return false;
    *v = x;
    return true;
}

/* A thread id, also in the multiprocess form pPID.TID (pPID: all of PID). */
static bool parse_tid(struct gdb_cursor *c, long *tid)
{
    long pid;
    if (c->p < c->end && *c->p == 'p') {
        c->p++;
        if (!parse_id(c, &pid))
            return false;
        if (c->p == c->end || *c->p != '.') {
            *tid = -1;
            return true;
        }
        c->p++;
    }
    return parse_id(c, tid);
}

/* Hg/Hc select a thread for later operations; T asks if one is alive. */
void gdb_thread_packet(struct gdb_session *s, char op, struct gdb_cursor c)
{
    long tid;
    if (op == 'H') {
        if (gdb_at_end(&c))
            goto bad;
        c.p++;   /* g, c: which operations; one thread serves them all */
    }
    if (!parse_tid(&c, &tid) || !gdb_at_end(&c))
        goto bad;
    if (tid == GDB_THREAD || (op == 'H' && (tid == 0 || tid == -1))) {
        gdb_reply(s, "OK");
        return;
    }
bad:
    gdb_reply_error(s, GDB_EINVAL);
}

static void client_features(struct gdb_session *s, struct gdb_cursor c)
{
    s->swbreak = s->hwbreak = false;
    if (gdb_at_end(&c) || *c.p++ != ':')
        return;
    while (!gdb_at_end(&c)) {
        const char *semi = memchr(c.p, ';', (size_t)(c.end - c.p));
        size_t n = (size_t)((semi ? semi : c.end) - c.p);
        if (n == 8 && !memcmp(c.p, "swbreak+", 8))
            s->swbreak = true;
        if (n == 8 && !memcmp(c.p, "hwbreak+", 8))
            s->hwbreak = true;
        c.p += n + (semi != NULL);
    }
}

/* qXfer:features:read:ANNEX:OFF,LEN; c is at ANNEX. */
static void read_features(struct gdb_session *s, struct gdb_cursor c)
{
    static const char annex[] = "target.xml:";
    uint32_t off, len;
    size_t total, used;
    const char *xml = gdb_i386_target_xml(&total);

    if ((size_t)(c.end - c.p) < sizeof annex - 1 || memcmp(c.p, annex, sizeof annex - 1))
        goto bad;
    c.p += sizeof annex - 1;
    if (!gdb_parse_field(&c, &off, ',') || !gdb_parse_field(&c, &len, 0) || !gdb_at_end(&c) ||
        len == 0)
        goto bad;
    if (off >= total) {
        gdb_reply(s, "l");
        return;
    }
    /* The escaped chunk never exceeds len, so unescaped it fits too. */
    size_t cap = len < GDB_PACKET_MAX - 1 ? len : GDB_PACKET_MAX - 1;
    size_t n = gdb_escape(s->reply + 1, cap, (const uint8_t *)xml + off, total - off, &used);
    s->reply[0] = off + used == total ? 'l' : 'm';
    s->reply_len = 1 + n;
    return;
bad:
    gdb_reply(s, "E00");
}

static void monitor_help(const struct gdb_target *t, struct gdb_text *out)
{
    gdb_printf(out, "monitor commands:\n  %-10s %s\n", "help", "this list");
    for (int i = 0; i < t->nmonitor; i++)
        gdb_printf(out, "  %-10s %s\n", t->monitor[i].name, t->monitor[i].help);
}

/* qRcmd,HEX: the command line hex-encoded; its output goes back the same. */
static void monitor(struct gdb_session *s, struct gdb_cursor c)
{
    const struct gdb_target *t = s->target;
    char line[GDB_PACKET_MAX / 2 + 1];
    struct gdb_text out = { .len = 0 };
    size_t n = (size_t)(c.end - c.p);

    if (n % 2 || !gdb_hex_decode((uint8_t *)line, c.p, n / 2)) {
        gdb_reply_error(s, GDB_EINVAL);
        return;
    }
    line[n / 2] = 0;
    char *name = line + strspn(line, " \t");
    char *args = name + strcspn(name, " \t");
    if (*args)
        *args++ = 0;
    args += strspn(args, " \t");

    const struct gdb_monitor_cmd *cmd = NULL;
    for (int i = 0; i < t->nmonitor && !cmd; i++)
        if (!strcmp(name, t->monitor[i].name))
            cmd = &t->monitor[i];
    if (cmd)
        cmd->run(t->ctx, args, &out);
    else if (!*name || !strcmp(name, "help"))
        monitor_help(t, &out);
    else
        gdb_printf(&out, "unknown monitor command \"%s\"; \"monitor help\" lists them\n", name);
    if (out.len == 0)
        gdb_reply(s, "OK");
    else
        gdb_reply_hex(s, (const uint8_t *)out.buf, out.len);
}

/* vCont;ACTION[:TID]...: the leftmost action for our thread applies. */
static enum gdb_action vcont(struct gdb_session *s, struct gdb_cursor c, struct gdb_resume *r)
{
    enum gdb_action chosen = GDB_ACT_NONE;
    uint32_t signo = 0;
    while (!gdb_at_end(&c)) {
        uint32_t sig = 0;
        long tid = -1;
        if (*c.p++ != ';' || gdb_at_end(&c))
            goto bad;
        char op = *c.p++;
        if ((op == 'C' || op == 'S') && (!gdb_parse_field(&c, &sig, 0) || sig > 0xff))
            goto bad;
        if (op != 'c' && op != 's' && op != 'C' && op != 'S')
            goto bad;
        if (!gdb_at_end(&c) && *c.p == ':' && (c.p++, !parse_tid(&c, &tid)))
            goto bad;
        if (chosen == GDB_ACT_NONE && (tid == -1 || tid == 0 || tid == GDB_THREAD)) {
            chosen = op == 'c' || op == 'C' ? GDB_ACT_CONTINUE : GDB_ACT_STEP;
            signo = sig;
        }
    }
    if (chosen != GDB_ACT_NONE)
        return gdb_resume_as(s, chosen, (int)signo, r);
bad:
    gdb_reply_error(s, GDB_EINVAL);
    return GDB_ACT_NONE;
}

enum gdb_action gdb_query(struct gdb_session *s, const char *pkt, size_t len,
                          struct gdb_resume *r)
{
    struct gdb_cursor c;
    if (starts(pkt, len, "qSupported", &c)) {
        client_features(s, c);
        gdb_reply(s, supported, GDB_PACKET_MAX);
    } else if (is(pkt, len, "qAttached") || starts(pkt, len, "qAttached:", &c)) {
        gdb_reply(s, "1");   /* quitting GDB detaches and lets the machine run on */
    } else if (is(pkt, len, "qC")) {
        gdb_reply(s, "QC%x", GDB_THREAD);
    } else if (is(pkt, len, "qfThreadInfo")) {
        gdb_reply(s, "m%x", GDB_THREAD);
    } else if (is(pkt, len, "qsThreadInfo")) {
        gdb_reply(s, "l");
    } else if (is(pkt, len, "qOffsets")) {
        gdb_reply(s, "Text=0;Data=0;Bss=0");   /* nothing is relocated */
    } else if (starts(pkt, len, "qSymbol:", &c)) {
        gdb_reply(s, "OK");   /* no symbols wanted */
    } else if (starts(pkt, len, "qXfer:features:read:", &c)) {
        read_features(s, c);
    } else if (starts(pkt, len, "qRcmd,", &c)) {
        monitor(s, c);
    } else if (is(pkt, len, "QStartNoAckMode")) {
        gdb_reply(s, "OK");   /* this packet was acked; none after it */
        s->no_ack = true;
    } else if (is(pkt, len, "vCont?")) {
        gdb_reply(s, "vCont;c;C;s;S");
    } else if (starts(pkt, len, "vCont;", &c)) {
        c.p--;
        return vcont(s, c, r);
    } else if (is(pkt, len, "vKill") || starts(pkt, len, "vKill;", &c)) {
        gdb_reply(s, "OK");
        return gdb_leave(s, GDB_ACT_KILL);
    }
    /* anything else (vMustReplyEmpty too): the empty reply */
    return GDB_ACT_NONE;
}
