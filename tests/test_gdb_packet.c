/*
 * The GDB wire layer (emu/gdb/gdb_packet.c). The frames with known checksums
 * are ones Debian's gdb 13 sent to the stub ("set debug remote 1").
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "../emu/gdb/gdb_packet.h"
#include "support.h"

static struct gdb_rx rx;

/* Feed text; the events of the last byte, and how many packets/bad ones. */
struct fed {
    enum gdb_rx_event last;
    int packets, bad, interrupts;
};

static struct fed feed_n(const char *bytes, size_t n)
{
    struct fed f = { GDB_RX_NONE, 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        f.last = gdb_rx_byte(&rx, (uint8_t)bytes[i]);
        f.packets += f.last == GDB_RX_PACKET;
        f.bad += f.last == GDB_RX_BAD;
        f.interrupts += f.last == GDB_RX_INTERRUPT;
        ck_assert_uint_le(rx.len, GDB_PACKET_MAX);
    }
    return f;
}

static struct fed feed(const char *text)
{
    return feed_n(text, strlen(text));
}

static void setup(void)
{
    gdb_rx_init(&rx);
}

START_TEST(frames_from_gdb_are_packets)
{
    static const char *const frames[][2] = {
        { "$vMustReplyEmpty#3a", "vMustReplyEmpty" }, { "$QStartNoAckMode#b0", "QStartNoAckMode" },
        { "$Hg0#df", "Hg0" }, { "$g#67", "g" }, { "$?#3f", "?" }, { "$Hc-1#09", "Hc-1" },
        { "$m8048000,40#61", "m8048000,40" }, { "$Z0,804800a,1#a8", "Z0,804800a,1" },
        { "$vCont;s:1;c#c1", "vCont;s:1;c" },
    };
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        struct fed f = feed(frames[i][0]);
        ck_assert_int_eq(f.last, GDB_RX_PACKET);
        ck_assert_str_eq(rx.data, frames[i][1]);
        ck_assert_uint_eq(rx.len, strlen(frames[i][1]));
    }
}
END_TEST

START_TEST(checksum_digits_may_be_upper_case)
{
    ck_assert_int_eq(feed("$QStartNoAckMode#B0").last, GDB_RX_PACKET);
}
END_TEST

START_TEST(wrong_checksum_is_bad)
{
    ck_assert_int_eq(feed("$g#68").last, GDB_RX_BAD);
    ck_assert_int_eq(feed("$g#6").last, GDB_RX_NONE);
    ck_assert_int_eq(feed("z").last, GDB_RX_BAD);   /* not a hex digit */
    ck_assert_int_eq(feed("$g#x7").last, GDB_RX_BAD);
    /* and the receiver is ready for the next one */
    ck_assert_int_eq(feed("$g#67").last, GDB_RX_PACKET);
}
END_TEST

START_TEST(split_delivery_byte_by_byte_gives_the_same_packets)
{
    const char *stream = "+$qTStatus#49+$?#3f$m8048000,40#61";
    int packets = 0;
    const char *want[] = { "qTStatus", "?", "m8048000,40" };
    for (const char *p = stream; *p; p++) {
        if (gdb_rx_byte(&rx, (uint8_t)*p) == GDB_RX_PACKET)
            ck_assert_str_eq(rx.data, want[packets++]);
    }
    ck_assert_int_eq(packets, 3);
    ck_assert(!gdb_rx_partial(&rx));
}
END_TEST

START_TEST(a_truncated_packet_is_partial)
{
    feed("$m80");
    ck_assert(gdb_rx_partial(&rx));
    feed("48000,4#");
    ck_assert(gdb_rx_partial(&rx));
    feed("c6");
    ck_assert(!gdb_rx_partial(&rx));
}
END_TEST

START_TEST(interrupt_byte_outside_a_packet_is_an_event)
{
    ck_assert_int_eq(gdb_rx_byte(&rx, 0x03), GDB_RX_INTERRUPT);
    /* inside a packet it is data (binary X packets carry any byte) */
    struct fed f = feed_n("$X0,1:\x03#", 8);
    ck_assert_int_eq(f.interrupts, 0);
    char sum[3];
    unsigned s = 0;
    for (const char *p = "X0,1:\x03"; *p; p++)
        s += (unsigned char)*p;
    snprintf(sum, sizeof sum, "%02x", s & 0xff);
    ck_assert_int_eq(feed(sum).last, GDB_RX_PACKET);
    ck_assert_uint_eq(rx.len, 6);
    ck_assert_int_eq(rx.data[5], 0x03);
}
END_TEST

START_TEST(acks_between_packets_are_events_inside_are_data)
{
    ck_assert_int_eq(feed("+").last, GDB_RX_ACK);
    ck_assert_int_eq(feed("-").last, GDB_RX_NAK);
    ck_assert_int_eq(feed("$Hc-1#09").last, GDB_RX_PACKET);
    ck_assert_str_eq(rx.data, "Hc-1");
}
END_TEST

START_TEST(noise_between_packets_is_ignored)
{
    struct fed f = feed("hello\r\n#00$g#67");
    ck_assert_int_eq(f.packets, 1);
    ck_assert_int_eq(f.bad, 0);
    ck_assert_str_eq(rx.data, "g");
}
END_TEST

START_TEST(dollar_inside_a_packet_starts_a_new_one)
{
    struct fed f = feed("$m8048000$?#3f");
    ck_assert_int_eq(f.packets, 1);
    ck_assert_str_eq(rx.data, "?");
}
END_TEST

/* GDB_PACKET_MAX bytes fit; one more is discarded, and the next packet
 * is read normally. 'a' * 4096 and 'a' * 4097 sum to 0x00 and 0x61. */
START_TEST(overlong_packet_is_bad_and_never_buffered)
{
    char *big = malloc(GDB_PACKET_MAX + 16);
    memset(big, 'a', GDB_PACKET_MAX + 16);
    feed("$");
    feed_n(big, GDB_PACKET_MAX);
    ck_assert_int_eq(feed("#00").last, GDB_RX_PACKET);
    ck_assert_uint_eq(rx.len, GDB_PACKET_MAX);

    feed("$");
    feed_n(big, GDB_PACKET_MAX + 1);
    ck_assert_int_eq(feed("#61").last, GDB_RX_BAD);
    ck_assert_int_eq(feed("$g#67").last, GDB_RX_PACKET);

    /* a megabyte without a '#' still holds at most the maximum */
    feed("$");
    for (int i = 0; i < 256; i++)
        feed_n(big, GDB_PACKET_MAX);
    ck_assert(gdb_rx_partial(&rx));
    free(big);
}
END_TEST

/* "0* " is '0' and three more (count ' ' = 3 + 29). */
START_TEST(run_length_encoded_input_is_expanded)
{
    ck_assert_int_eq(feed("$0* #7a").last, GDB_RX_PACKET);
    ck_assert_str_eq(rx.data, "0000");
}
END_TEST

START_TEST(malformed_run_length_is_bad_never_misread)
{
    ck_assert_int_eq(feed("$*  #6a").last, GDB_RX_BAD);   /* nothing to repeat */
    ck_assert_int_eq(feed("$0*#5a").last, GDB_RX_BAD);    /* no count */
    ck_assert_int_eq(feed_n("$0*\x01#5b", 7).last, GDB_RX_BAD); /* count below ' ' */
    /* a count that reaches the maximum, and one that would pass it
     * (the checksums are right: 48 * 4093 + 74 and 48 * 4094 + 74) */
    char *big = malloc(GDB_PACKET_MAX);
    memset(big, '0', GDB_PACKET_MAX);
    feed("$");
    feed_n(big, GDB_PACKET_MAX - 3);
    ck_assert_int_eq(feed("* #ba").last, GDB_RX_PACKET);
    ck_assert_uint_eq(rx.len, GDB_PACKET_MAX);
    feed("$");
    feed_n(big, GDB_PACKET_MAX - 2);
    ck_assert_int_eq(feed("* #ea").last, GDB_RX_BAD);
    free(big);
    ck_assert_int_eq(feed("$g#67").last, GDB_RX_PACKET);
}
END_TEST

/* "OK" framed is "$OK#9a", the reply gdbserver sends. */
START_TEST(frame_adds_checksum)
{
    char out[GDB_FRAME_MAX];
    size_t n = gdb_frame(out, sizeof out, "OK", 2);
    ck_assert_uint_eq(n, 6);
    ck_assert(!memcmp(out, "$OK#9a", 6));
}
END_TEST

/* Every run length round-trips, and no count is ever '#' or '$'. */
START_TEST(frame_run_length_encodes_and_decodes_back)
{
    char data[300], out[GDB_FRAME_MAX];
    for (size_t run = 1; run <= 250; run++) {
        memset(data, '0', run);
        data[run] = 'x';
        size_t n = gdb_frame(out, sizeof out, data, run + 1);
        ck_assert_uint_gt(n, 0);
        ck_assert(run < 4 || n < run + 5);   /* it did compress */
        for (size_t i = 1; i < n - 3; i++)
            ck_assert_msg(out[i] != '#' && out[i] != '$', "run %zu: %.*s", run, (int)n, out);
        gdb_rx_init(&rx);
        ck_assert_int_eq(feed_n(out, n).last, GDB_RX_PACKET);
        ck_assert_uint_eq(rx.len, run + 1);
        ck_assert(!memcmp(rx.data, data, run + 1));
    }
}
END_TEST

START_TEST(frame_refuses_what_would_break_framing)
{
    char out[GDB_FRAME_MAX];
    ck_assert_uint_eq(gdb_frame(out, sizeof out, "a#b", 3), 0);
    ck_assert_uint_eq(gdb_frame(out, sizeof out, "a$b", 3), 0);
    ck_assert_uint_eq(gdb_frame(out, sizeof out, "a*b", 3), 0);
    ck_assert_uint_eq(gdb_frame(out, 5, "OK", 2), 0);   /* no room */
    char *big = malloc(GDB_PACKET_MAX + 1);
    for (int i = 0; i <= GDB_PACKET_MAX; i++)
        big[i] = "0123456789abcdef"[i % 16];
    ck_assert_uint_eq(gdb_frame(out, sizeof out, big, GDB_PACKET_MAX + 1), 0);
    ck_assert_uint_eq(gdb_frame(out, sizeof out, big, GDB_PACKET_MAX), GDB_PACKET_MAX + 4);
    free(big);
}
END_TEST

/* The protocol's own examples: 0x7d goes as "}]"; '#' '$' '*' likewise. */
START_TEST(escape_covers_the_four_special_bytes)
{
    const uint8_t in[] = { 0x7d, '#', '$', '*', 'a' };
    char out[16];
    size_t used;
    size_t n = gdb_escape(out, sizeof out, in, sizeof in, &used);
    ck_assert_uint_eq(used, 5);
    ck_assert_uint_eq(n, 9);
    ck_assert(!memcmp(out, "}]}\x03}\x04}\x0a" "a", 9));
}
END_TEST

START_TEST(escape_round_trips_every_byte)
{
    uint8_t in[256], back[256];
    char out[512];
    size_t used;
    for (int i = 0; i < 256; i++)
        in[i] = (uint8_t)i;
    size_t n = gdb_escape(out, sizeof out, in, 256, &used);
    ck_assert_uint_eq(used, 256);
    ck_assert_uint_eq(n, 260);
    ck_assert_int_eq(gdb_unescape(back, out, n), 256);
    ck_assert(!memcmp(in, back, 256));
    /* stops before an escape that would not fit */
    n = gdb_escape(out, 3, (const uint8_t *)"ab}", 3, &used);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(used, 2);
}
END_TEST

START_TEST(unescape_rejects_a_dangling_escape)
{
    uint8_t out[4];
    ck_assert_int_eq(gdb_unescape(out, "ab}", 3), -1);
}
END_TEST

START_TEST(hex_helpers_reject_what_is_not_hex)
{
    const char *s = "8048000,4";
    uint32_t v;
    ck_assert(gdb_parse_hex(&s, s + 9, &v));
    ck_assert_uint_eq(v, 0x8048000);
    ck_assert_int_eq(*s, ',');
    s = "ffffffff";
    ck_assert(gdb_parse_hex(&s, s + 8, &v) && v == 0xffffffffu);
    s = "00000000ffffffff";   /* leading zeros are fine */
    ck_assert(gdb_parse_hex(&s, s + 16, &v) && v == 0xffffffffu);
    s = "100000000";
    ck_assert(!gdb_parse_hex(&s, s + 9, &v));
    s = "xyz";
    ck_assert(!gdb_parse_hex(&s, s + 3, &v));

    uint8_t b[2];
    ck_assert(gdb_hex_decode(b, "7dFF", 2) && b[0] == 0x7d && b[1] == 0xff);
    ck_assert(!gdb_hex_decode(b, "7g00", 2));
    char h[4];
    gdb_hex_encode(h, b, 2);
    ck_assert(!memcmp(h, "7dff", 4));
    ck_assert_int_eq(gdb_hex_digit('G'), -1);
}
END_TEST

START_TEST(cursor_takes_fields_and_their_separators)
{
    const char pkt[] = "Z0,8048000,1";   /* an 'X' packet may hold a NUL: bounded by end */
    struct gdb_cursor c = { pkt + 1, pkt + sizeof pkt - 1 };
    uint32_t type, addr, kind;
    ck_assert(gdb_parse_field(&c, &type, ',') && type == 0);
    ck_assert(gdb_parse_field(&c, &addr, ',') && addr == 0x8048000);
    ck_assert(!gdb_at_end(&c));
    ck_assert(gdb_parse_field(&c, &kind, 0) && kind == 1);
    ck_assert(gdb_at_end(&c));
    ck_assert(!gdb_parse_field(&c, &kind, 0));   /* nothing left */

    const char bad[] = "10;20";
    c = (struct gdb_cursor){ bad, bad + 2 };
    ck_assert(!gdb_parse_field(&c, &addr, ','));   /* the separator is past end */
    c = (struct gdb_cursor){ bad, bad + sizeof bad - 1 };
    ck_assert(!gdb_parse_field(&c, &addr, ','));   /* ';' is not ',' */
}
END_TEST

Suite *gdb_packet_suite(void)
{
    Suite *s = suite_create("gdb_packet");
    TCase *tc = tcase_create("receive");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, frames_from_gdb_are_packets);
    tcase_add_test(tc, checksum_digits_may_be_upper_case);
    tcase_add_test(tc, wrong_checksum_is_bad);
    tcase_add_test(tc, split_delivery_byte_by_byte_gives_the_same_packets);
    tcase_add_test(tc, a_truncated_packet_is_partial);
    tcase_add_test(tc, interrupt_byte_outside_a_packet_is_an_event);
    tcase_add_test(tc, acks_between_packets_are_events_inside_are_data);
    tcase_add_test(tc, noise_between_packets_is_ignored);
    tcase_add_test(tc, dollar_inside_a_packet_starts_a_new_one);
    tcase_add_test(tc, overlong_packet_is_bad_and_never_buffered);
    tcase_add_test(tc, run_length_encoded_input_is_expanded);
    tcase_add_test(tc, malformed_run_length_is_bad_never_misread);
    suite_add_tcase(s, tc);

    tc = tcase_create("send");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, frame_adds_checksum);
    tcase_add_test(tc, frame_run_length_encodes_and_decodes_back);
    tcase_add_test(tc, frame_refuses_what_would_break_framing);
    tcase_add_test(tc, escape_covers_the_four_special_bytes);
    tcase_add_test(tc, escape_round_trips_every_byte);
    tcase_add_test(tc, unescape_rejects_a_dangling_escape);
    tcase_add_test(tc, hex_helpers_reject_what_is_not_hex);
    tcase_add_test(tc, cursor_takes_fields_and_their_separators);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(gdb_packet_suite());
}
