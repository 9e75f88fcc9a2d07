/*
 * The GDB stub against clients that misbehave: bad checksums, overlong
 * packets, garbage, naks, disconnects mid-packet, clients that stop
 * reading, a second client; and the listener's address handling. In
 * every case the stub answers, drops the client, or detaches; the
 * machine never hangs or dies.
 */
#include <check.h>
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

START_TEST(bad_checksum_is_nakked_and_serving_goes_on)
{
    send_raw("$g#00", 5);
    ck_assert_int_eq(next_byte(), '-');
    ck_assert_str_eq(ask("qC"), "QC1");
}
END_TEST

START_TEST(overlong_packet_is_nakked_and_serving_goes_on)
{
    char *big = malloc(3 * GDB_PACKET_MAX);
    memset(big, 'm', 3 * GDB_PACKET_MAX);
    send_raw("$", 1);
    send_raw(big, 3 * GDB_PACKET_MAX);
    send_raw("#00", 3);
    free(big);
    ck_assert_int_eq(next_byte(), '-');
    ck_assert_str_eq(ask("qC"), "QC1");
}
END_TEST

START_TEST(garbage_between_packets_is_ignored)
{
    send_raw("hello\r\n\x7f\xff#zz", 13);
    ck_assert_str_eq(ask("qC"), "QC1");
}
END_TEST

START_TEST(non_hex_arguments_are_errors)
{
    const char *bad[] = { "mzz,4", "m8048000,zz", "M8048000,1:gg", "Pzz=00000000",
                          "Zq,8048000,1", "qRcmd,xy", "Hgq", "c8048000z", "C0g" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *r = ask(bad[i]);
        ck_assert_msg(r[0] == 'E', "%s: %s", bad[i], r);
    }
}
END_TEST

/* A '-' asks for the last reply again; only a few times. */
START_TEST(nak_resends_the_last_reply_a_bounded_number_of_times)
{
    ck_assert_str_eq(ask("qC"), "QC1");
    for (int i = 0; i < GDB_MAX_RESENDS; i++) {
        send_raw("-", 1);
        ck_assert_str_eq(get_packet(false), "QC1");
    }
    send_raw("-", 1);
    send_packet("qfThreadInfo");
    expect_ack();   /* and no resend before it */
    ck_assert_str_eq(get_packet(true), "m1");
}
END_TEST

START_TEST(no_ack_mode_sends_no_acks_and_no_naks)
{
    ck_assert_str_eq(ask("QStartNoAckMode"), "OK");
    send_packet("qC");
    ck_assert_int_eq(next_byte(), '$');
    gdb_rx_byte(&rig->rx, '$');
    ck_assert_str_eq(get_packet(false), "QC1");
    send_raw("$g#00", 5);   /* dropped silently */
    send_packet("qfThreadInfo");
    ck_assert_int_eq(next_byte(), '$');
    gdb_rx_byte(&rig->rx, '$');
    ck_assert_str_eq(get_packet(false), "m1");
}
END_TEST

/* A disconnect is a detach: the points go, the program runs to its end. */
START_TEST(disconnect_mid_packet_detaches)
{
    ck_assert_str_eq(ask("Z0,804800f,1"), "OK");
    ck_assert_str_eq(ask("Z2,804a010,4"), "OK");
    send_raw("$m8048", 6);
    ck_assert_int_eq(rig_finish(), FAKE_EXIT_STATUS);
    ck_assert_int_eq(rig->f.npoints, 0);
    ck_assert_uint_eq(rig->f.insns, FAKE_NINSNS);
}
END_TEST

/* All-stop: while the program runs only Ctrl-C counts; a packet is
 * acked and dropped. The fake program spins, so only Ctrl-C stops it. */
START_TEST(ctrl_c_interrupts_a_running_program)
{
    rig_teardown();
    rig_start(FAKE_NINSNS - 1, 0);
    send_packet("c");
    expect_ack();
    send_packet("?");
    expect_ack();
    send_raw("\x03", 1);
    ck_assert_str_eq(get_packet(true), "T02thread:01;");
    ck_assert_uint_gt(rig->f.insns, FAKE_NINSNS);
    ck_assert_str_eq(ask("p8"), "24800408");
    send_packet("k");
    expect_ack();
    ck_assert_int_eq(rig_finish(), FAKE_KILLED);
}
END_TEST

/* It sends requests and never reads the replies: once its socket is
 * full the stub's write times out and it is dropped, as a detach. */
START_TEST(client_that_stops_reading_is_dropped)
{
    rig_teardown();
    rig_start(-1, 100);
    int small = 4096;
    setsockopt(rig->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    static const char req[] = "$m8048000,800#95";
    int sent = 0;
    for (int i = 0; i < 2000; i++)
        if (send(rig->fd, req, sizeof req - 1, MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
            sent++;
    ck_assert_int_gt(sent, 200);
    pthread_join(rig->machine, NULL);   /* the machine ran on */
    rig->joined = true;
    ck_assert_int_eq(rig->result, FAKE_EXIT_STATUS);
}
END_TEST

/* After the exit report a client that says nothing more does not hold
 * the machine: it is dropped after the timeout. */
START_TEST(silent_client_after_exit_is_dropped)
{
    rig_teardown();
    rig_start(-1, 100);
    ck_assert_str_eq(ask("c"), "W07");
    pthread_join(rig->machine, NULL);
    rig->joined = true;
    ck_assert_int_eq(rig->result, FAKE_EXIT_STATUS);
}
END_TEST

/* ---- the listener ---- */

static void teardown_listener(void)
{
    rig_teardown();
}

/* Is a TCP socket on port listening at this IPv4 address (hex, as
 * /proc/net/tcp writes it)? */
static bool listening_at(const char *addr_hex, unsigned port)
{
    char *tcp = read_file("/proc/net/tcp");
    char want[32];
    snprintf(want, sizeof want, "%s:%04X", addr_hex, port);
    bool found = false;
    for (char *line = tcp; line && *line && !found;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        char local[32], remote[32];
        unsigned state;
        if (sscanf(line, "%*d: %31s %31s %x", local, remote, &state) == 3)
            found = !strcmp(local, want) && state == 0x0a;
        line = end ? end + 1 : NULL;
    }
    free(tcp);
    return found;
}

START_TEST(listener_binds_loopback_unless_told)
{
    unsigned port = rig_listen("0", true, -1);
    ck_assert_uint_gt(port, 0);
    ck_assert(listening_at("0100007F", port));
    struct gdb_target t = rig->f.target;
    char err[256];
    struct gdb_stub *any = gdb_listen("0.0.0.0:0", &t, err, sizeof err);
    ck_assert_ptr_nonnull(any);
    ck_assert(listening_at("00000000", gdb_port(any)));
    gdb_close(any);
    rig->fd = rig_connect(port);
    ck_assert_str_eq(ask("D"), "OK");
    ck_assert_int_eq(rig_finish(), FAKE_EXIT_STATUS);
}
END_TEST

START_TEST(listener_refuses_bad_addresses_with_a_message)
{
    struct fake f;
    char err[256];
    fake_init(&f);
    const char *bad[] = { "", "abc", "12x4", ":99999", "127.0.0.1:", "[::1:0", "::1]:0" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_msg(gdb_listen(bad[i], &f.target, err, sizeof err) == NULL, "%s", bad[i]);
        ck_assert_msg(!strncmp(err, "gdb: ", 5) && !strchr(err, '\n'), "%s", err);
    }
    struct gdb_stub *g = gdb_listen("127.0.0.1:0", &f.target, err, sizeof err);
    ck_assert_ptr_nonnull(g);
    char spec[32];
    snprintf(spec, sizeof spec, "127.0.0.1:%u", gdb_port(g));
    ck_assert_ptr_null(gdb_listen(spec, &f.target, err, sizeof err));
    ck_assert_msg(strstr(err, "Address already in use"), "%s", err);
    gdb_close(g);
}
END_TEST

START_TEST(second_client_is_turned_away)
{
    unsigned port = rig_listen("127.0.0.1:0", true, -1);
    rig->fd = rig_connect(port);
    ck_assert_str_eq(ask("?"), "T05thread:01;");
    int first = rig->fd;
    rig->fd = rig_connect(port);
    ck_assert_int_eq(next_byte(), -1);   /* closed at once */
    close(rig->fd);
    rig->fd = first;
    ck_assert_str_eq(ask("qC"), "QC1");
    ck_assert_str_eq(ask("D"), "OK");
    ck_assert_int_eq(rig_finish(), FAKE_EXIT_STATUS);
}
END_TEST

/* Without --gdb-wait the program runs; a client connecting stops it. */
START_TEST(client_attaching_to_a_running_program_stops_it)
{
    unsigned port = rig_listen("127.0.0.1:0", false, FAKE_NINSNS - 1);
    rig->fd = rig_connect(port);
    ck_assert_str_eq(ask("?"), "T05thread:01;");
    ck_assert_str_eq(ask("p8"), "24800408");
    ck_assert_str_eq(ask("vKill;1"), "OK");
    ck_assert_int_eq(rig_finish(), FAKE_KILLED);
}
END_TEST

/* A client hanging up while the program runs is a detach (its points
 * go); the next client to connect stops the program. */
START_TEST(client_hanging_up_while_running_detaches)
{
    unsigned port = rig_listen("127.0.0.1:0", true, FAKE_NINSNS - 1);
    rig->fd = rig_connect(port);
    ck_assert_str_eq(ask("Z2,804a100,4"), "OK");
    send_packet("c");
    expect_ack();
    close(rig->fd);
    /* Until the stub has seen the hang-up, a new client is turned away. */
    int c = -1;
    for (int tries = 0; tries < 1000 && c != '+'; tries++) {
        rig->fd = rig_connect(port);
        send(rig->fd, "$?#3f", 5, MSG_NOSIGNAL);   /* may meet a closed socket */
        if ((c = next_byte()) != '+')
            close(rig->fd);
    }
    ck_assert_int_eq(c, '+');
    ck_assert_str_eq(get_packet(true), "T05thread:01;");
    ck_assert_str_eq(monitor("points"), "points: 0\n");
    send_packet("k");
    expect_ack();
    ck_assert_int_eq(rig_finish(), FAKE_KILLED);
}
END_TEST

/* After a detach the listener takes a new client. */
START_TEST(a_new_client_can_attach_after_a_detach)
{
    unsigned port = rig_listen("127.0.0.1:0", true, FAKE_NINSNS - 1);
    rig->fd = rig_connect(port);
    ck_assert_str_eq(ask("D"), "OK");
    close(rig->fd);
    rig->fd = rig_connect(port);
    ck_assert_str_eq(ask("?"), "T05thread:01;");
    ck_assert_str_eq(ask("p8"), "24800408");
    send_packet("k");
    expect_ack();
    ck_assert_int_eq(rig_finish(), FAKE_KILLED);
}
END_TEST

Suite *gdbstub_hostile_suite(void)
{
    Suite *s = suite_create("gdbstub_hostile");
    TCase *tc = tcase_create("client");
    tcase_add_checked_fixture(tc, setup, rig_teardown);
    tcase_add_test(tc, bad_checksum_is_nakked_and_serving_goes_on);
    tcase_add_test(tc, overlong_packet_is_nakked_and_serving_goes_on);
    tcase_add_test(tc, garbage_between_packets_is_ignored);
    tcase_add_test(tc, non_hex_arguments_are_errors);
    tcase_add_test(tc, nak_resends_the_last_reply_a_bounded_number_of_times);
    tcase_add_test(tc, no_ack_mode_sends_no_acks_and_no_naks);
    tcase_add_test(tc, disconnect_mid_packet_detaches);
    tcase_add_test(tc, ctrl_c_interrupts_a_running_program);
    tcase_add_test(tc, client_that_stops_reading_is_dropped);
    tcase_add_test(tc, silent_client_after_exit_is_dropped);
    suite_add_tcase(s, tc);

    tc = tcase_create("listener");
    tcase_add_checked_fixture(tc, NULL, teardown_listener);
    tcase_add_test(tc, listener_binds_loopback_unless_told);
    tcase_add_test(tc, listener_refuses_bad_addresses_with_a_message);
    tcase_add_test(tc, second_client_is_turned_away);
    tcase_add_test(tc, client_attaching_to_a_running_program_stops_it);
    tcase_add_test(tc, client_hanging_up_while_running_detaches);
    tcase_add_test(tc, a_new_client_can_attach_after_a_detach);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(gdbstub_hostile_suite());
}
