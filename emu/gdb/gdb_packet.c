#include "gdb/gdb_packet.h"
#include <string.h>

enum { RX_IDLE, RX_DATA, RX_REPEAT, RX_SUM1, RX_SUM2 };

/* Run-length counts are printable: ' ' (3 more) to '~' (97 more). */
#define RLE_MIN 3
#define RLE_MAX ('~' - 29)

static void start(struct gdb_rx *rx)
{
    rx->state = RX_DATA;
    rx->bad = false;
    rx->sum = 0;
    rx->len = 0;
}

void gdb_rx_init(struct gdb_rx *rx)
{
    memset(rx, 0, sizeof *rx);
    rx->state = RX_IDLE;
}

bool gdb_rx_partial(const struct gdb_rx *rx)
{
    return rx->state != RX_IDLE;
}

static void put(struct gdb_rx *rx, char c, unsigned n)
{
    if (rx->bad || n > GDB_PACKET_MAX - rx->len) {
        rx->bad = true;   /* overlong: keep reading to '#', store nothing */
        return;
    }
    memset(rx->data + rx->len, c, n);
    rx->len += n;
}

static enum gdb_rx_event idle(struct gdb_rx *rx, uint8_t c)
{
    switch (c) {
    case '$':
        start(rx);
        return GDB_RX_NONE;
    case '+':
        return GDB_RX_ACK;
    case '-':
        return GDB_RX_NAK;
    case GDB_INTERRUPT:
        return GDB_RX_INTERRUPT;
    default:
        return GDB_RX_NONE;   /* line noise between packets */
    }
}

/*
 * '#' always ends the data and '$' always starts a new packet, even right
 * after '*': a sender never uses them as a repeat count (the protocol
 * forbids it), so reading them as framing is the only safe choice.
 */
enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c)
{
    int v;

    switch (rx->state) {
    case RX_IDLE:
        return idle(rx, c);
    case RX_DATA:
    case RX_REPEAT:
        if (c == '$') {
            start(rx);   /* the previous packet was abandoned */
            return GDB_RX_NONE;
        }
        if (c == '#') {
            if (rx->state == RX_REPEAT)
                rx->bad = true;   /* '*' without a count */
            rx->state = RX_SUM1;
            return GDB_RX_NONE;
        }
        rx->sum += c;
        if (rx->state == RX_REPEAT) {
            rx->state = RX_DATA;
            if (c < ' ' || c > '~' || rx->len == 0)
                rx->bad = true;   /* no count, or nothing to repeat */
            else
                put(rx, rx->data[rx->len - 1], (unsigned)c - 29);
        } else if (c == '*') {
            rx->state = RX_REPEAT;
        } else {
            put(rx, (char)c, 1);
        }
        return GDB_RX_NONE;
    case RX_SUM1:
        v = gdb_hex_digit(c);
        if (v < 0)
            rx->bad = true;
        rx->got = (uint8_t)(v < 0 ? 0 : v << 4);
        rx->state = RX_SUM2;
        return GDB_RX_NONE;
    default:
        v = gdb_hex_digit(c);
        rx->state = RX_IDLE;
        if (v < 0 || rx->bad || (uint8_t)(rx->got | v) != rx->sum)
            return GDB_RX_BAD;
        rx->data[rx->len] = 0;
        return GDB_RX_PACKET;
    }
}

/* The length of the run of data[i] starting at i, at most limit. */
static size_t run_at(const char *data, size_t len, size_t i, size_t limit)
{
    size_t n = 1;
    while (i + n < len && n < limit && data[i + n] == data[i])
        n++;
    return n;
}

size_t gdb_frame(char *out, size_t cap, const char *data, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    size_t o = 0;
    uint8_t sum = 0;

    if (len > GDB_PACKET_MAX || cap < 4)
        return 0;
    out[o++] = '$';
    for (size_t i = 0; i < len;) {
        char c = data[i];
        if (c == '$' || c == '#' || c == '*')
            return 0;   /* would break the framing: the caller's bug */
        size_t extra = run_at(data, len, i, RLE_MAX + 1) - 1;
        /* A count of 6 or 7 would be '#' or '$'. */
        if (extra == 6 || extra == 7)
            extra = 5;
        size_t need = extra >= RLE_MIN ? 3 : 1;
        if (o + need + 3 > cap)
            return 0;
        out[o++] = c;
        sum += (uint8_t)c;
        if (extra >= RLE_MIN) {
            out[o++] = '*';
            out[o++] = (char)(extra + 29);
            sum += (uint8_t)('*' + extra + 29);
            i += extra + 1;
        } else {
            i++;
        }
    }
    out[o++] = '#';
    out[o++] = digits[sum >> 4];
    out[o++] = digits[sum & 15];
    return o;
}

int gdb_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void gdb_hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
}

bool gdb_hex_decode(uint8_t *out, const char *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = gdb_hex_digit((unsigned char)in[2 * i]);
        int lo = gdb_hex_digit((unsigned char)in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

bool gdb_parse_hex(const char **p, const char *end, uint32_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int d;

    while (s < end && (d = gdb_hex_digit((unsigned char)*s)) >= 0) {
        x = x << 4 | (uint64_t)d;
        if (x > UINT32_MAX)
            return false;
        s++;
    }
    if (s == *p)
        return false;
    *p = s;
    *v = (uint32_t)x;
    return true;
}

bool gdb_parse_field(struct gdb_cursor *c, uint32_t *v, char sep)
{
    if (!gdb_parse_hex(&c->p, c->end, v))
        return false;
    if (sep) {
        if (c->p == c->end || *c->p != sep)
            return false;
        c->p++;
    }
    return true;
}

bool gdb_at_end(const struct gdb_cursor *c)
{
    return c->p == c->end;
}

static bool must_escape(uint8_t c)
{
    return c == '$' || c == '#' || c == '}' || c == '*';
}

size_t gdb_escape(char *out, size_t cap, const uint8_t *in, size_t n, size_t *used)
{
    size_t o = 0, i = 0;
    for (; i < n; i++) {
        if (must_escape(in[i])) {
            if (o + 2 > cap)
                break;
            out[o++] = '}';
            out[o++] = (char)(in[i] ^ 0x20);
        } else {
            if (o + 1 > cap)
                break;
            out[o++] = (char)in[i];
        }
    }
    *used = i;
    return o;
}

long gdb_unescape(uint8_t *out, const char *in, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '}') {
            if (++i == n)
                return -1;
            out[o++] = (uint8_t)in[i] ^ 0x20;
        } else {
            out[o++] = (uint8_t)in[i];
        }
    }
    return (long)o;
}
