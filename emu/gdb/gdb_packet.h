/*
 * The GDB remote serial protocol on the wire: "$data#cs" frames with a
 * modulo-256 checksum in two hex digits, '+'/'-' acknowledgements, a
 * bare 0x03 byte for Ctrl-C, run-length encoding ("X*n" repeats X n-29
 * more times) and the "}" escape (next byte XOR 0x20) for binary data.
 *
 * Pure and bounded: the receiver takes one byte at a time, holds at most
 * GDB_PACKET_MAX decoded bytes, and never needs more than the next byte
 * to decide, so a peer may split or abandon a packet anywhere.
 */
#ifndef EMU_GDB_PACKET_H
#define EMU_GDB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Data bytes in one packet either way (after run-length expansion, before
 * unescaping); advertised to the client as qSupported PacketSize. */
#define GDB_PACKET_MAX 4096
/* A framed reply: '$', the data, '#', two checksum digits. */
#define GDB_FRAME_MAX (GDB_PACKET_MAX + 4)

#define GDB_INTERRUPT 0x03

enum gdb_rx_event {
    GDB_RX_NONE,      /* byte taken, nothing complete yet */
    GDB_RX_PACKET,    /* a packet with a good checksum is in rx->data */
    GDB_RX_BAD,       /* a packet ended bad: checksum, overlong, malformed */
    GDB_RX_INTERRUPT, /* 0x03 between packets */
    GDB_RX_ACK,       /* '+' between packets */
    GDB_RX_NAK,       /* '-' between packets */
};

struct gdb_rx {
    int state;
    bool bad;          /* this packet will be discarded and nak'ed */
    uint8_t sum;       /* checksum of the raw bytes so far */
    uint8_t got;       /* the first checksum digit's value */
    size_t len;
    /* The packet's data, NUL-terminated; binary packets may hold NULs. */
    char data[GDB_PACKET_MAX + 1];
};

void gdb_rx_init(struct gdb_rx *rx);
/* Take one byte; after GDB_RX_PACKET, data and len are valid until the
 * next call. */
enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c);
/* In the middle of a packet (a disconnect now truncates it)? */
bool gdb_rx_partial(const struct gdb_rx *rx);

/* Frame len bytes of data (already hex or escaped) as $data#cs into out,
 * run-length encoding runs; the framed length, or 0 if it does not fit
 * or len exceeds GDB_PACKET_MAX. */
size_t gdb_frame(char *out, size_t cap, const char *data, size_t len);

int gdb_hex_digit(int c);   /* 0..15, or -1 if c is not a hex digit */
/* Two lower-case hex digits per byte into out (2n chars, no NUL). */
void gdb_hex_encode(char *out, const uint8_t *in, size_t n);
/* 2n hex chars into n bytes; false if any is not a hex digit. */
bool gdb_hex_decode(uint8_t *out, const char *in, size_t n);
/* A hex number of at most 32 bits at *p (p < end); advances *p past the
 * digits. False if there is no digit or the value overflows. */
bool gdb_parse_hex(const char **p, const char *end, uint32_t *v);

/* The unparsed rest of a packet; packets may hold NULs (X). */
struct gdb_cursor {
    const char *p, *end;
};
/* A hex number, then (if sep) the separator sep. */
bool gdb_parse_field(struct gdb_cursor *c, uint32_t *v, char sep);
bool gdb_at_end(const struct gdb_cursor *c);

/* Escape in[0..n) for a binary reply ('$', '#', '}' and '*' become '}'
 * and the byte XOR 0x20) into out, stopping before out would exceed cap;
 * returns the bytes written and sets *used to the input bytes taken. */
size_t gdb_escape(char *out, size_t cap, const uint8_t *in, size_t n, size_t *used);
/* Undo gdb_escape over in[0..n) into out (at most n bytes); the decoded
 * length, or -1 if the input ends inside an escape. */
long gdb_unescape(uint8_t *out, const char *in, size_t n);

#endif
