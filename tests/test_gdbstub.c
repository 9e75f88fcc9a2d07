/*
 * The GDB stub (emu/gdb/gdbstub.c, gdb_session.c, gdb_commands.c,
 * gdb_query.c) driven over a socket against the fake machine
 * (tests/gdb_fake.h): every command, the stop replies, and hostile
 * clients. Debian's gdb itself drives it in test_gdb_client.c.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "gdb_rig.h"
#include "support.h"

static void setup(void)
{
    rig_start(-1, 0);
}

static uint32_t reg(int regno)
{
    char pkt[8];
    uint8_t b[4];
    snprintf(pkt, sizeof pkt, "p%x", regno);
    const char *r = ask(pkt);
    ck_assert_msg(strlen(r) == 8 && gdb_hex_decode(b, r, 4), "p%x: %s", regno, r);
    return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/* ---- registers ---- */

START_TEST(stop_reason_at_start_is_sigtrap)
{
    ck_assert_str_eq(ask("?"), "T05thread:01;");
}
END_TEST

/* The g block in target.xml's order: 16 x 4 bytes, 8 x 10, 8 x 4. */
START_TEST(g_returns_every_register_in_tdesc_order)
{
    const char *r = ask("g");
    ck_assert_uint_eq(strlen(r), 2 * 176);
    ck_assert(!strncmp(r, "00000000" "11000000" "22000000" "33000000" "f0bf0408", 40));
    ck_assert(!strncmp(r + 8 * 8, "00800408" "46020000" "73000000" "7b000000", 32));
    ck_assert_uint_eq(strspn(r + 16 * 8, "0"), 2 * (8 * 10 + 8 * 4));
}
END_TEST

START_TEST(G_writes_the_registers_that_change)
{
    char g[2 * 176 + 2] = "G";
    strcpy(g + 1, ask("g"));
    memcpy(g + 1, "78563412", 8);              /* eax */
    ck_assert_str_eq(ask(g), "OK");             /* CS unchanged: accepted */
    ck_assert_uint_eq(reg(GDB_EAX), 0x12345678);
    memcpy(g + 1 + 10 * 8, "74000000", 8);     /* cs: the target refuses */
    ck_assert_str_eq(ask(g), "E0e");
    memcpy(g + 1 + 10 * 8, "73000000", 8);
    g[1 + 16 * 8] = '1';                        /* st0: x87 stays zero */
    ck_assert_str_eq(ask(g), "E0e");
    ck_assert_str_eq(ask("G0"), "E16");         /* odd length */
    ck_assert_str_eq(ask("G0z"), "E16");        /* not hex */
}
END_TEST

/* A register the target cannot read goes as 'x' digits: unavailable. */
START_TEST(unreadable_register_is_reported_unavailable)
{
    rig->f.unreadable = GDB_FS;
    const char *r = ask("g");
    ck_assert(!strncmp(r + 14 * 8, "xxxxxxxx00000000", 16));
    ck_assert_str_eq(ask("pe"), "xxxxxxxx");
    ck_assert_str_eq(ask("P0=01000000"), "OK");   /* the others still work */
}
END_TEST

START_TEST(p_and_P_read_and_write_one_register)
{
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048000);
    ck_assert_str_eq(ask("P0=efbeadde"), "OK");
    ck_assert_uint_eq(reg(GDB_EAX), 0xdeadbeef);
    ck_assert_str_eq(ask("p10"), "00000000000000000000");   /* st0 */
    ck_assert_str_eq(ask("p1f"), "00000000");               /* fop */
    ck_assert_str_eq(ask("Pa=74000000"), "E0e");            /* cs */
    ck_assert_str_eq(ask("P10=00000000000000000000"), "OK");
    ck_assert_str_eq(ask("P10=01000000000000000000"), "E0e");
    ck_assert_str_eq(ask("P0=1234"), "E16");
    ck_assert_str_eq(ask("p20"), "xxxxxxxx");               /* cr0: the fake has none */
    ck_assert_str_eq(ask("P20=00000000"), "E0e");           /* the system ones: read-only */
    ck_assert_str_eq(ask("p2d"), "E16");
    ck_assert_str_eq(ask("p8x"), "E16");
    ck_assert_str_eq(ask("pxyz"), "E16");
}
END_TEST

/* ---- memory ---- */

START_TEST(m_reads_memory_and_stops_at_its_end)
{
    ck_assert_str_eq(ask("m8048000,4"), "00010203");
    ck_assert_str_eq(ask("m804cffe,4"), "cccc");   /* the rest is unbacked */
    ck_assert_str_eq(ask("m804d000,4"), "E0e");
    ck_assert_str_eq(ask("m0,4"), "E0e");
    ck_assert_str_eq(ask("mffffffff,10"), "E0e");   /* no wrap-around */
    ck_assert_str_eq(ask("m8048000"), "E16");
    ck_assert_str_eq(ask("m,4"), "E16");
    ck_assert_str_eq(ask("m8048000,4x"), "E16");
    ck_assert_str_eq(ask("m100000000,4"), "E16");
}
END_TEST

/* A huge length is cut to what one reply holds: 2048 bytes of hex. */
START_TEST(huge_m_length_is_capped_to_the_packet_size)
{
    const char *r = ask("m8048000,ffffffff");
    ck_assert_uint_eq(rig->reply_len, GDB_PACKET_MAX);
    ck_assert(!strncmp(r, "000102", 6));
    /* run-length encoded on the wire, the same bytes after decoding */
    r = ask("m804c000,ffffffff");
    ck_assert_uint_eq(strspn(r, "c"), GDB_PACKET_MAX);
}
END_TEST

START_TEST(M_writes_memory_where_the_target_allows)
{
    ck_assert_str_eq(ask("M804a000,4:deadbeef"), "OK");
    ck_assert_str_eq(ask("m804a000,4"), "deadbeef");
    ck_assert_str_eq(ask("M804c000,1:00"), "E0e");         /* read-only */
    ck_assert_str_eq(ask("M804bffe,4:00000000"), "E0e");   /* runs into it */
    ck_assert_str_eq(ask("M804a000,2:abc"), "E16");
    ck_assert_str_eq(ask("M804a000,1:zz"), "E16");
    ck_assert_str_eq(ask("M804a000,1"), "E16");
}
END_TEST

/* X carries binary: '#', '$', '}' and '*' escaped, NUL and 0x03 raw. */
START_TEST(X_writes_binary_data_with_escapes)
{
    static const char pkt[] = "X804a000,6:}\x03}\x04}]}\x0a\x00\x03";
    send_packet_n(pkt, sizeof pkt - 1);
    expect_ack();
    ck_assert_str_eq(get_packet(true), "OK");
    ck_assert_str_eq(ask("m804a000,6"), "23247d2a0003");
    ck_assert_str_eq(ask("X804a000,0:"), "OK");   /* GDB's probe */
    ck_assert_str_eq(ask("X804a000,2:a"), "E16");
    ck_assert_str_eq(ask("X804a000,1:}"), "E16");
    ck_assert_str_eq(ask("X804c000,1:a"), "E0e");
}
END_TEST

/* ---- breakpoints, watchpoints, resuming ---- */

START_TEST(Z0_breakpoint_stops_continue_before_its_instruction)
{
    ck_assert_str_eq(ask("Z0,804800f,1"), "OK");
    ck_assert_str_eq(ask("c"), "T05thread:01;");   /* no swbreak+ from us */
    ck_assert_uint_eq(reg(GDB_EIP), 0x0804800f);
    ck_assert_uint_eq(reg(GDB_EAX), 3);
    ck_assert_str_eq(ask("z0,804800f,1"), "OK");
    ck_assert_str_eq(ask("c"), "W07");
    ck_assert_int_eq(rig->f.npoints, 0);
}
END_TEST

START_TEST(stop_replies_name_the_break_kind_when_the_client_asks)
{
    ck_assert(strstr(ask("qSupported:multiprocess+;swbreak+;hwbreak+"), "swbreak+"));
    ck_assert_str_eq(ask("Z0,804800a,1"), "OK");
    ck_assert_str_eq(ask("Z1,8048019,1"), "OK");
    ck_assert_str_eq(ask("c"), "T05swbreak:;thread:01;");
    ck_assert_str_eq(ask("c"), "T05hwbreak:;thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048019);
}
END_TEST

/* A watchpoint stops after the instruction that wrote (x86 data
 * breakpoints are traps), with the data address in the reply. */
START_TEST(watchpoints_report_kind_and_address)
{
    ck_assert_str_eq(ask("Z2,804a010,4"), "OK");
    ck_assert_str_eq(ask("c"), "T05watch:804a010;thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048019);
    ck_assert_str_eq(ask("m804a010,4"), "2a000000");
    ck_assert_str_eq(ask("Z3,804a010,4"), "OK");
    ck_assert_str_eq(ask("c"), "T05rwatch:804a010;thread:01;");
    ck_assert_uint_eq(reg(GDB_EBX), 42);
}
END_TEST

START_TEST(access_watchpoint_reports_the_address_inside_its_range)
{
    ck_assert_str_eq(ask("Z4,804a012,2"), "OK");
    ck_assert_str_eq(ask("c"), "T05awatch:804a012;thread:01;");
    ck_assert_str_eq(ask("c"), "T05awatch:804a012;thread:01;");   /* the read */
    ck_assert_str_eq(ask("z4,804a012,2"), "OK");
    ck_assert_str_eq(ask("c"), "W07");
}
END_TEST

START_TEST(bad_points_are_errors_unknown_types_unsupported)
{
    ck_assert_str_eq(ask("Z0,804800f,3"), "E0e");   /* the target's refusal */
    ck_assert_str_eq(ask("Z5,804800f,1"), "");
    ck_assert_str_eq(ask("Z0,804800f"), "E16");
    ck_assert_str_eq(ask("Z0,804800f,1;X2,0"), "E16");   /* no conditions offered */
    ck_assert_str_eq(ask("z0,8048000,1"), "E0e");   /* never inserted */
}
END_TEST

START_TEST(points_beyond_the_table_are_refused)
{
    char pkt[32];
    for (int i = 0; i < GDB_MAX_POINTS; i++) {
        snprintf(pkt, sizeof pkt, "Z1,%x,1", 0x08048000 + i);
        ck_assert_str_eq(ask(pkt), "OK");
    }
    ck_assert_str_eq(ask("Z1,9000000,1"), "E1c");
    ck_assert_int_eq(rig->f.npoints, GDB_MAX_POINTS);
}
END_TEST

START_TEST(s_executes_one_instruction)
{
    ck_assert_str_eq(ask("s"), "T05thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048005);
    ck_assert_uint_eq(reg(GDB_EAX), 1);
    ck_assert_str_eq(ask("S05"), "T05thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x0804800a);
}
END_TEST

START_TEST(resume_at_an_address_sets_eip_first)
{
    ck_assert_str_eq(ask("s804801e"), "T05thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048024);
    ck_assert_uint_eq(reg(GDB_EBX), 0);   /* the write never ran */
    ck_assert_str_eq(ask("C0b;8048000"), "W07");
    ck_assert_uint_eq(reg(GDB_EAX), 1 + FAKE_NINSNS);
    ck_assert_str_eq(ask("c12x"), "E16");
}
END_TEST

START_TEST(vcont_takes_the_leftmost_action_for_our_thread)
{
    ck_assert_str_eq(ask("vCont?"), "vCont;c;C;s;S");
    ck_assert_str_eq(ask("vCont;s:1"), "T05thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048005);
    ck_assert_str_eq(ask("vCont;s:p1.1;c:p1.-1"), "T05thread:01;");
    ck_assert_uint_eq(reg(GDB_EIP), 0x0804800a);
    ck_assert_str_eq(ask("Z0,8048019,1"), "OK");
    ck_assert_str_eq(ask("vCont;s:2;c"), "T05thread:01;");   /* s is not ours */
    ck_assert_uint_eq(reg(GDB_EIP), 0x08048019);
    ck_assert_str_eq(ask("vCont;S0b:1"), "T05thread:01;");
    ck_assert_str_eq(ask("vCont;x"), "E16");
    ck_assert_str_eq(ask("vCont;s:2"), "E16");
    ck_assert_str_eq(ask("vCont;C"), "E16");
    ck_assert_str_eq(ask("vCont;c:"), "E16");
}
END_TEST

START_TEST(exit_is_reported_and_repeated)
{
    ck_assert_str_eq(ask("c"), "W07");
    ck_assert_str_eq(ask("?"), "W07");
    ck_assert_str_eq(ask("s"), "W07");
    ck_assert_str_eq(ask("D"), "OK");
    ck_assert_int_eq(rig_finish(), FAKE_EXIT_STATUS);
}
END_TEST

/* 'k' has no reply; the stub hangs up and the machine ends the program. */
START_TEST(k_kills_without_a_reply)
{
    ck_assert_str_eq(ask("Z0,804800f,1"), "OK");
    send_packet("k");
    expect_ack();
    ck_assert_int_eq(next_byte(), -1);
    ck_assert_int_eq(rig_finish(), FAKE_KILLED);
    ck_assert_int_eq(rig->f.npoints, 0);
}
END_TEST

START_TEST(vkill_kills_with_OK)
{
    ck_assert_str_eq(ask("vKill;1"), "OK");
    ck_assert_int_eq(next_byte(), -1);
    ck_assert_int_eq(rig_finish(), FAKE_KILLED);
}
END_TEST

START_TEST(detach_removes_points_and_lets_the_program_run_on)
{
    ck_assert_str_eq(ask("Z0,804800f,1"), "OK");
    ck_assert_str_eq(ask("Z2,804a010,4"), "OK");
    ck_assert_str_eq(ask("D"), "OK");
    ck_assert_int_eq(next_byte(), -1);
    ck_assert_int_eq(rig_finish(), FAKE_EXIT_STATUS);
    ck_assert_int_eq(rig->f.npoints, 0);
    ck_assert_uint_eq(rig->f.insns, FAKE_NINSNS);
}
END_TEST

/* ---- queries ---- */

START_TEST(qsupported_offers_what_the_stub_does)
{
    const char *r = ask("qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386");
    const char *want[] = { "PacketSize=1000", "qXfer:features:read+", "vContSupported+",
                           "swbreak+", "hwbreak+", "QStartNoAckMode+" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(r, want[i]), "%s not in %s", want[i], r);
    ck_assert(!strstr(r, "multiprocess"));
}
END_TEST

START_TEST(one_thread_answers_the_thread_queries)
{
    ck_assert_str_eq(ask("qAttached"), "1");
    ck_assert_str_eq(ask("qAttached:1"), "1");
    ck_assert_str_eq(ask("qC"), "QC1");
    ck_assert_str_eq(ask("qfThreadInfo"), "m1");
    ck_assert_str_eq(ask("qsThreadInfo"), "l");
    ck_assert_str_eq(ask("Hg0"), "OK");
    ck_assert_str_eq(ask("Hc-1"), "OK");
    ck_assert_str_eq(ask("Hgp1.1"), "OK");
    ck_assert_str_eq(ask("Hgp1"), "OK");   /* all threads of process 1 */
    ck_assert_str_eq(ask("Hg2"), "E16");
    ck_assert_str_eq(ask("T1"), "OK");
    ck_assert_str_eq(ask("T2"), "E16");
    ck_assert_str_eq(ask("H"), "E16");
    ck_assert_str_eq(ask("qOffsets"), "Text=0;Data=0;Bss=0");
    ck_assert_str_eq(ask("qSymbol::"), "OK");
}
END_TEST

/* Read in small pieces, the chunks make up target.xml exactly. */
START_TEST(qxfer_features_chunks_reassemble_target_xml)
{
    size_t total;
    const char *xml = gdb_i386_target_xml(&total);
    char *got = calloc(1, total + 1);
    size_t off = 0;
    for (;;) {
        char pkt[64];
        snprintf(pkt, sizeof pkt, "qXfer:features:read:target.xml:%zx,100", off);
        const char *r = ask(pkt);
        ck_assert(r[0] == 'm' || r[0] == 'l');
        size_t n = rig->reply_len - 1;
        ck_assert_uint_le(n, 0x100);
        ck_assert_uint_le(off + n, total);
        memcpy(got + off, r + 1, n);
        off += n;
        if (r[0] == 'l')
            break;
        ck_assert_uint_eq(n, 0x100);
    }
    ck_assert_uint_eq(off, total);
    ck_assert(!memcmp(got, xml, total));
    free(got);
    ck_assert_str_eq(ask("qXfer:features:read:target.xml:ffff,100"), "l");
    ck_assert_str_eq(ask("qXfer:features:read:other.xml:0,100"), "E00");
    ck_assert_str_eq(ask("qXfer:features:read:target.xml:0"), "E00");
    ck_assert_str_eq(ask("qXfer:auxv:read::0,100"), "");
}
END_TEST

/* The register names GDB's i386_validate_tdesc_p requires, in order
 * (i386_register_names in gdb/i386-tdep.c), with the sizes of the 'g'
 * packet. */
START_TEST(target_xml_has_the_core_feature_gdb_validates)
{
    static const char *const names[] = {
        "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags", "cs",
        "ss", "ds", "es", "fs", "gs", "st0", "st1", "st2", "st3", "st4", "st5", "st6",
        "st7", "fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop",
    };
    size_t len, bits = 0;
    const char *p = gdb_i386_target_xml(&len);
    ck_assert(strstr(p, "<feature name=\"org.gnu.gdb.i386.core\">"));
    ck_assert(strstr(p, "<architecture>i386</architecture>"));
    for (size_t i = 0; i < 32; i++) {
        char want[32];
        snprintf(want, sizeof want, "<reg name=\"%s\" bitsize=\"", names[i]);
        p = strstr(p, want);
        ck_assert_msg(p != NULL, "%s missing or out of order", names[i]);
        p += strlen(want);
        bits += strtoul(p, NULL, 10);
        ck_assert_uint_eq(gdb_i386_reg_size((int)i) * 8, strtoul(p, NULL, 10));
    }
    ck_assert_uint_eq(bits, 176 * 8);
    /* then the 13 system registers, in a feature of their own */
    const char *sys = strstr(p, "<feature name=\"org.sysemu.i386.sys\">");
    ck_assert(sys && strstr(sys, "<reg name=\"cr0\" bitsize=\"32\"") &&
              strstr(sys, "<reg name=\"sysenter_eip\" bitsize=\"32\""));
    ck_assert_int_eq(count_lines_containing(gdb_i386_target_xml(&len), "<reg "), 45);
}
END_TEST

START_TEST(monitor_runs_the_targets_commands)
{
    ck_assert_str_eq(monitor("cycles"), "cycles: 0\n");
    ck_assert_str_eq(ask("s"), "T05thread:01;");
    ck_assert_str_eq(monitor("cycles"), "cycles: 3\n");
    ck_assert_str_eq(monitor("  echo  a b "), "[a b ]\n");
    const char *help = monitor("help");
    ck_assert(strstr(help, "help") && strstr(help, "cycles     modeled cycles so far"));
    ck_assert(strstr(monitor("frobnicate"), "unknown monitor command \"frobnicate\""));
    ck_assert_str_eq(ask("qRcmd,6"), "E16");
    ck_assert_str_eq(ask("qRcmd,zz"), "E16");
}
END_TEST

START_TEST(monitor_output_is_cut_to_one_reply)
{
    const char *text = monitor("flood");
    ck_assert_uint_eq(rig->reply_len, 2 * GDB_TEXT_MAX);
    ck_assert(!strncmp(text, "line 0000 of a long answer\n", 27));
}
END_TEST

START_TEST(unknown_packets_get_the_empty_reply)
{
    const char *unknown[] = { "vMustReplyEmpty", "qTStatus", "qFooBar", "!", "bc", "i",
                              "QFoo", "x8048000,4", "vFile:setfs:0", "\x7f" };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        ck_assert_msg(!strcmp(ask(unknown[i]), ""), "%s", unknown[i]);
    send_packet_n("", 0);
    expect_ack();
    ck_assert_str_eq(get_packet(true), "");
    ck_assert_str_eq(ask("?"), "T05thread:01;");
}
END_TEST

/* ---- stop replies, on a session without a socket ---- */

/* The reply to "c" when the machine stops for why; swbreak: whether the
 * client offered swbreak+/hwbreak+. */
static const char *stop_reply(const struct gdb_stop *why, bool swbreak)
{
    static struct gdb_session s;
    static struct fake f;
    static struct gdb_rx rx;
    static char text[64];
    struct gdb_resume r;
    fake_init(&f);
    gdb_session_init(&s, &f.target);
    s.swbreak = s.hwbreak = swbreak;
    gdb_session_input(&s, (const uint8_t *)"$c#63", 5, &r);
    ck_assert_int_eq(r.action, GDB_ACT_CONTINUE);
    ck_assert(s.out_len == 1 && s.out[0] == '+');   /* no reply yet */
    s.out_len = 0;
    gdb_session_stop(&s, why);
    gdb_rx_init(&rx);
    for (size_t i = 0; i < s.out_len; i++)
        if (gdb_rx_byte(&rx, (uint8_t)s.out[i]) == GDB_RX_PACKET)
            snprintf(text, sizeof text, "%.60s", rx.data);
    return text;
}

START_TEST(stop_replies_encode_each_kind_of_stop)
{
    struct gdb_stop w = { .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGTRAP };
    ck_assert_str_eq(stop_reply(&w, true), "T05thread:01;");
    w.cause = GDB_CAUSE_SWBREAK;
    ck_assert_str_eq(stop_reply(&w, true), "T05swbreak:;thread:01;");
    ck_assert_str_eq(stop_reply(&w, false), "T05thread:01;");
    w.cause = GDB_CAUSE_HWBREAK;
    ck_assert_str_eq(stop_reply(&w, true), "T05hwbreak:;thread:01;");
    w.cause = GDB_CAUSE_WATCH;
    w.addr = 0xbffff00c;
    ck_assert_str_eq(stop_reply(&w, false), "T05watch:bffff00c;thread:01;");
    w.cause = GDB_CAUSE_RWATCH;
    ck_assert_str_eq(stop_reply(&w, false), "T05rwatch:bffff00c;thread:01;");
    w.cause = GDB_CAUSE_AWATCH;
    ck_assert_str_eq(stop_reply(&w, false), "T05awatch:bffff00c;thread:01;");
    w = (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGSEGV };
    ck_assert_str_eq(stop_reply(&w, true), "T0bthread:01;");
    w.signo = GDB_SIGINT;
    ck_assert_str_eq(stop_reply(&w, true), "T02thread:01;");
    w = (struct gdb_stop){ .kind = GDB_STOP_EXITED, .status = 0 };
    ck_assert_str_eq(stop_reply(&w, true), "W00");
    w.status = 255;
    ck_assert_str_eq(stop_reply(&w, true), "Wff");
    w = (struct gdb_stop){ .kind = GDB_STOP_KILLED, .signo = GDB_SIGKILL };
    ck_assert_str_eq(stop_reply(&w, true), "X09");
}
END_TEST

Suite *gdbstub_suite(void)
{
    Suite *s = suite_create("gdbstub");
    TCase *tc = tcase_create("registers_and_memory");
    tcase_add_checked_fixture(tc, setup, rig_teardown);
    tcase_add_test(tc, stop_reason_at_start_is_sigtrap);
    tcase_add_test(tc, g_returns_every_register_in_tdesc_order);
    tcase_add_test(tc, G_writes_the_registers_that_change);
    tcase_add_test(tc, unreadable_register_is_reported_unavailable);
    tcase_add_test(tc, p_and_P_read_and_write_one_register);
    tcase_add_test(tc, m_reads_memory_and_stops_at_its_end);
    tcase_add_test(tc, huge_m_length_is_capped_to_the_packet_size);
    tcase_add_test(tc, M_writes_memory_where_the_target_allows);
    tcase_add_test(tc, X_writes_binary_data_with_escapes);
    suite_add_tcase(s, tc);

    tc = tcase_create("running");
    tcase_add_checked_fixture(tc, setup, rig_teardown);
    tcase_add_test(tc, Z0_breakpoint_stops_continue_before_its_instruction);
    tcase_add_test(tc, stop_replies_name_the_break_kind_when_the_client_asks);
    tcase_add_test(tc, watchpoints_report_kind_and_address);
    tcase_add_test(tc, access_watchpoint_reports_the_address_inside_its_range);
    tcase_add_test(tc, bad_points_are_errors_unknown_types_unsupported);
    tcase_add_test(tc, points_beyond_the_table_are_refused);
    tcase_add_test(tc, s_executes_one_instruction);
    tcase_add_test(tc, resume_at_an_address_sets_eip_first);
    tcase_add_test(tc, vcont_takes_the_leftmost_action_for_our_thread);
    tcase_add_test(tc, exit_is_reported_and_repeated);
    tcase_add_test(tc, k_kills_without_a_reply);
    tcase_add_test(tc, vkill_kills_with_OK);
    tcase_add_test(tc, detach_removes_points_and_lets_the_program_run_on);
    suite_add_tcase(s, tc);

    tc = tcase_create("queries");
    tcase_add_checked_fixture(tc, setup, rig_teardown);
    tcase_add_test(tc, qsupported_offers_what_the_stub_does);
    tcase_add_test(tc, one_thread_answers_the_thread_queries);
    tcase_add_test(tc, qxfer_features_chunks_reassemble_target_xml);
    tcase_add_test(tc, target_xml_has_the_core_feature_gdb_validates);
    tcase_add_test(tc, monitor_runs_the_targets_commands);
    tcase_add_test(tc, monitor_output_is_cut_to_one_reply);
    tcase_add_test(tc, unknown_packets_get_the_empty_reply);
    suite_add_tcase(s, tc);

    tc = tcase_create("stop_replies");
    tcase_add_test(tc, stop_replies_encode_each_kind_of_stop);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(gdbstub_suite());
}
