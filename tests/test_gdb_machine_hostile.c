/*
 * "emu run --gdb" against a client that misbehaves, over a raw socket:
 * bad checksums, overlong packets, unknown commands, huge memory reads, a
 * second client, Ctrl-C, a disconnect mid-packet or while the guest runs.
 * emu answers or drops the client and never crashes or hangs; a client
 * that leaves is a detach, and the program runs to its own end. And the
 * command line's --gdb errors.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "emu_gdb.h"
#include "support.h"
#include "../emu/gdb/gdb_packet.h"

#define REPLY_WAIT_MS 20000

static void send_all(int fd, const void *bytes, size_t n)
{
    ck_assert_int_eq(send(fd, bytes, n, MSG_NOSIGNAL), (ssize_t)n);
}

static void send_packet(int fd, const char *data)
{
    unsigned sum = 0;
    for (const char *p = data; *p; p++)
        sum += (unsigned char)*p;
    char tail[4];
    snprintf(tail, sizeof tail, "#%02x", sum & 0xff);
    send_all(fd, "$", 1);
    send_all(fd, data, strlen(data));
    send_all(fd, tail, 3);
}

/* The next byte from emu; -1 at EOF. */
static int next_byte(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ck_assert_msg(poll(&p, 1, REPLY_WAIT_MS) == 1, "emu did not answer");
    unsigned char c;
    return recv(fd, &c, 1, 0) == 1 ? c : -1;
}

/* The data of the next packet from emu (acks before it skipped), acked. */
static char *next_packet(int fd)
{
    static char data[GDB_PACKET_MAX + 1];
    int c;
    while ((c = next_byte(fd)) != '$')
        ck_assert_msg(c == '+', "expected a packet, got byte %d", c);
    size_t n = 0;
    while ((c = next_byte(fd)) != '#') {
        ck_assert_int_ge(c, 0);
        ck_assert_uint_lt(n, GDB_PACKET_MAX);
        data[n++] = (char)c;
    }
    data[n] = 0;
    next_byte(fd);
    next_byte(fd);
    send_all(fd, "+", 1);
    return data;
}

static char *ask(int fd, const char *data)
{
    send_packet(fd, data);
    return next_packet(fd);
}

static void start(struct emu_gdb *e, const char *prog, const char *arg)
{
    emu_gdb_start(e, "--gdb", "127.0.0.1:0", "-S", program(prog), arg, NULL);
}

START_TEST(bad_packets_are_answered_and_serving_goes_on)
{
    struct emu_gdb e;
    start(&e, "one_call", "getpid");
    int fd = emu_gdb_connect(&e);
    ck_assert_int_ge(fd, 0);
    send_all(fd, "$g#00", 5);                       /* a bad checksum */
    ck_assert_int_eq(next_byte(fd), '-');
    char *big = malloc(3 * GDB_PACKET_MAX);         /* longer than a packet may be */
    memset(big, 'm', 3 * GDB_PACKET_MAX);
    send_all(fd, "$", 1);
    send_all(fd, big, 3 * GDB_PACKET_MAX);
    send_all(fd, "#00", 3);
    free(big);
    ck_assert_int_eq(next_byte(fd), '-');
    send_all(fd, "\x7f\xffgarbage#zz\r\n", 13);      /* noise between packets */
    ck_assert_str_eq(ask(fd, "vNoSuchThing;1"), "");  /* unknown: the empty reply */
    ck_assert_str_eq(ask(fd, "Q\x01\x02"), "");
    /* a huge read gets what one reply holds, from the kernel's text */
    const char *r = ask(fd, "mc0100000,ffffffff");
    ck_assert_uint_gt(strlen(r), 1000);
    ck_assert_uint_le(strlen(r), GDB_PACKET_MAX);
    ck_assert_int_eq(strncmp(r, "fc", 2), 0);       /* cld, startup_32's first byte */
    ck_assert_str_eq(ask(fd, "m0,0"), "");
    ck_assert_str_eq(ask(fd, "?"), "T05thread:01;");
    /* once paging is on, at main: what no page table maps is an error */
    char z[64];
    snprintf(z, sizeof z, "Z0,%x,1", program_symbol("one_call", "main"));
    ck_assert_str_eq(ask(fd, z), "OK");
    send_packet(fd, "c");
    ck_assert_str_eq(next_packet(fd), "T05thread:01;");
    ck_assert_str_eq(ask(fd, "m0,4"), "E0e");
    ck_assert_str_eq(ask(fd, "m40000000,4"), "E0e");
    ck_assert_str_eq(ask(fd, "Mfffff000,1:90"), "E0e");   /* the vsyscall page */
    close(fd);
    char *out;
    ck_assert_int_eq(emu_gdb_finish(&e, &out, NULL), 0);
    free(out);
}
END_TEST

/* Mid-packet, the client goes: a detach, and the program runs to its end. */
START_TEST(a_disconnect_mid_packet_detaches_and_the_program_finishes)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", "127.0.0.1:0", "-S", "--report", program("watched"), NULL);
    int fd = emu_gdb_connect(&e);
    ck_assert_int_ge(fd, 0);
    char z[64];   /* a breakpoint that goes with it */
    snprintf(z, sizeof z, "Z0,%x,1", program_symbol("watched", "main"));
    ck_assert_str_eq(ask(fd, z), "OK");
    send_all(fd, "$mc01", 5);
    close(fd);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 42);
    assert_has(err, "emu: report: ");
    free(err);
}
END_TEST

START_TEST(a_disconnect_while_the_guest_runs_detaches)
{
    struct emu_gdb e;
    start(&e, "watched", NULL);
    int fd = emu_gdb_connect(&e);
    ck_assert_int_ge(fd, 0);
    char z[64];
    snprintf(z, sizeof z, "Z0,%x,1", program_symbol("watched", "after_load"));
    ck_assert_str_eq(ask(fd, z), "OK");
    send_packet(fd, "c");
    ck_assert_int_eq(next_byte(fd), '+');
    close(fd);
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, NULL), 42);
}
END_TEST

/* A second client while the first is attached is turned away. */
START_TEST(one_client_at_a_time)
{
    struct emu_gdb e;
    start(&e, "one_call", "getpid");
    int first = emu_gdb_connect(&e);
    ck_assert_int_ge(first, 0);
    ck_assert_str_eq(ask(first, "?"), "T05thread:01;");
    int second = emu_gdb_connect(&e);   /* the listen backlog takes it */
    ck_assert_int_ge(second, 0);
    ck_assert_str_eq(ask(first, "qAttached"), "1");
    ck_assert_int_eq(next_byte(second), -1);   /* closed */
    close(second);
    ck_assert_str_eq(ask(first, "?"), "T05thread:01;");
    send_packet(first, "D");
    ck_assert_str_eq(next_packet(first), "OK");
    close(first);
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, NULL), 0);
}
END_TEST

START_TEST(ctrl_c_interrupts_a_running_guest_and_k_kills_it)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", "127.0.0.1:0", "-S", "--max-insns", "4000000000",
                  program("faults"), "loop", NULL);
    int fd = emu_gdb_connect(&e);
    ck_assert_int_ge(fd, 0);
    send_packet(fd, "c");
    ck_assert_int_eq(next_byte(fd), '+');
    send_all(fd, "\x03", 1);
    ck_assert_str_eq(next_packet(fd), "T02thread:01;");
    /* stopped in the program's endless loop */
    char *r = ask(fd, "p8");
    ck_assert_uint_eq(strlen(r), 8);
    send_packet(fd, "k");
    ck_assert_int_eq(next_byte(fd), '+');
    close(fd);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 128 + 9);
    assert_has(err, "killed by the debugger");
    free(err);
}
END_TEST

/* ---- the command line ---- */

static void refused(const char *what, const char *const *args)
{
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_msg(r.status == 2, "%s: status %d", what, r.status);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
}

START_TEST(bad_gdb_options_are_one_line_errors)
{
    const char *prog = program("one_call");
    const char *no_port[] = { "run", "--gdb", "localhost:", prog, NULL };
    const char *big_port[] = { "run", "--gdb", "127.0.0.1:70000", prog, NULL };
    const char *bad_host[] = { "run", "--gdb", "[::1:0", prog, NULL };
    const char *wait_only[] = { "run", "-S", prog, NULL };
    const char *no_model[] = { "run", "-s", "--no-cycle-model", prog, NULL };
    refused("no port", no_port);
    refused("port out of range", big_port);
    refused("malformed host", bad_host);
    refused("-S without --gdb", wait_only);
    refused("--gdb without the cycle model", no_model);

    /* a port that is taken */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 1), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    char spec[32];
    snprintf(spec, sizeof spec, "127.0.0.1:%u", ntohs(a.sin_port));
    const char *taken[] = { "run", "--gdb", spec, prog, NULL };
    struct emu_result r;
    run_emu(&r, taken);
    ck_assert_int_eq(r.status, 2);
    assert_has(r.err, "cannot listen on 127.0.0.1:");
    emu_result_free(&r);
    close(fd);
}
END_TEST

Suite *gdb_machine_hostile_suite(void)
{
    Suite *s = suite_create("gdb_machine_hostile");
    TCase *tc = tcase_create("raw_client");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bad_packets_are_answered_and_serving_goes_on);
    tcase_add_test(tc, a_disconnect_mid_packet_detaches_and_the_program_finishes);
    tcase_add_test(tc, a_disconnect_while_the_guest_runs_detaches);
    tcase_add_test(tc, one_client_at_a_time);
    tcase_add_test(tc, ctrl_c_interrupts_a_running_guest_and_k_kills_it);
    tcase_add_test(tc, bad_gdb_options_are_one_line_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    return run_suite(gdb_machine_hostile_suite());
}
