/*
 * Debian's gdb (/usr/bin/gdb, batch mode) against the stub: the helper
 * build/tests/gdb_fake_server serves the fake machine (gdb_fake.h) on an
 * ephemeral loopback port, gdb attaches with "target remote", and the
 * test reads what gdb printed and how the server's program ended.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "support.h"

#define SERVER BUILD_DIR "/tests/gdb_fake_server"
#define GDB "/usr/bin/gdb"
#define CHILD_SECONDS 60   /* a hung child dies instead of the test hanging */

struct server {
    pid_t pid;
    int out;
    unsigned port;
};

static char *drain_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (ssize_t n; (n = read(fd, buf + len, cap - len - 1)) > 0;) {
        len += (size_t)n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    return buf;
}

/* Run path with argv, stdout and stderr into the returned pipe. */
static pid_t spawn(const char *path, char *const argv[], int *out)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        setenv("DEBUGINFOD_URLS", "", 1);
        alarm(CHILD_SECONDS);   /* survives exec */
        execv(path, argv);
        _exit(127);
    }
    close(p[1]);
    *out = p[0];
    return pid;
}

static void server_start(struct server *s, const char *opt)
{
    char *argv[] = { (char *)SERVER, (char *)opt, NULL };
    char line[64];
    size_t n = 0;
    s->pid = spawn(SERVER, argv, &s->out);
    while (n < sizeof line - 1 && read(s->out, line + n, 1) == 1 && line[n] != '\n')
        n++;
    line[n] = 0;
    ck_assert_msg(sscanf(line, "port %u", &s->port) == 1, "server said: %s", line);
}

/* What the server printed after "port N", once it has ended. */
static char *server_finish(struct server *s)
{
    int st;
    char *out = drain_fd(s->out);
    close(s->out);
    waitpid(s->pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "server: %s", out);
    return out;
}

/* gdb -batch: target remote, then each command; all it printed. */
static char *gdb(const struct server *s, ...)
{
    char *argv[64] = { (char *)GDB, (char *)"-nx", (char *)"-batch" };
    char target[64];
    int n = 3, out, st;
    va_list ap;

    snprintf(target, sizeof target, "target remote 127.0.0.1:%u", s->port);
    argv[n++] = (char *)"-ex";
    argv[n++] = target;
    va_start(ap, s);
    for (char *c; (c = va_arg(ap, char *)) && n < 62;) {
        argv[n++] = (char *)"-ex";
        argv[n++] = c;
    }
    va_end(ap);
    argv[n] = NULL;
    pid_t pid = spawn(GDB, argv, &out);
    char *text = drain_fd(out);
    close(out);
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st), "gdb died: %s", text);
    return text;
}

static void assert_has(const char *text, const char *needle)
{
    ck_assert_msg(strstr(text, needle), "\"%s\" not in:\n%s", needle, text);
}

/* A register line of "info registers": name, then the value in hex. */
static void assert_reg(const char *text, const char *name, const char *hex)
{
    char want[64];
    snprintf(want, sizeof want, "%-15s%s ", name, hex);
    assert_has(text, want);
}

START_TEST(gdb_reads_registers_and_memory)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "info registers", "x/4x 0x08048000", "info all-registers", NULL);
    assert_has(out, "0x08048000 in ?? ()");
    assert_reg(out, "eax", "0x0");
    assert_reg(out, "ecx", "0x11");
    assert_reg(out, "esp", "0x804bff0");
    assert_reg(out, "eip", "0x8048000");
    assert_has(out, "[ PF ZF IF ]");
    assert_reg(out, "cs", "0x73");
    assert_reg(out, "ss", "0x7b");
    assert_reg(out, "gs", "0x0");
    assert_has(out, "0x8048000:\t0x03020100\t0x07060504\t0x0b0a0908\t0x0f0e0d0c");
    /* the x87 registers gdb insists on, served as zeros */
    assert_has(out, "(raw 0x00000000000000000000)");
    assert_reg(out, "fop", "0x0");
    ck_assert(!strstr(out, "Remote 'g' packet reply is too"));
    free(out);
    /* batch mode ends by detaching (qAttached is 1): the program runs on */
    out = server_finish(&s);
    assert_has(out, "exit 7\ninsns 7\n");
    free(out);
}
END_TEST

START_TEST(gdb_stepi_executes_one_instruction)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "stepi", "p/x $eip", "p $eax", "stepi", "p/x $pc", NULL);
    assert_has(out, "0x08048005 in ?? ()");
    assert_has(out, "$1 = 0x8048005");
    assert_has(out, "$2 = 1");
    assert_has(out, "$3 = 0x804800a");
    free(out);
    free(server_finish(&s));
}
END_TEST

START_TEST(gdb_break_watch_monitor_and_kill)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "break *0x0804800a", "continue", "watch *(int*)0x0804a010", "continue",
                    "p/x $eip", "monitor cycles", "kill", NULL);
    assert_has(out, "Breakpoint 1, 0x0804800a in ?? ()");
    assert_has(out, "Hardware watchpoint 2: *(int*)0x0804a010");
    assert_has(out, "Old value = 0\nNew value = 42\n");
    assert_has(out, "$1 = 0x8048019");   /* after the writing instruction */
    assert_has(out, "cycles: 12\n");     /* 4 instructions */
    assert_has(out, "[Inferior 1 (Remote target) killed]");
    free(out);
    out = server_finish(&s);
    assert_has(out, "killed\ninsns 4\n");
    free(out);
}
END_TEST

START_TEST(gdb_read_watchpoint_sees_the_read)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "rwatch *(int*)0x0804a010", "continue", "p $ebx", "kill", NULL);
    assert_has(out, "Hardware read watchpoint 1: *(int*)0x0804a010\n\nValue = 42\n");
    assert_has(out, "$1 = 42");
    free(out);
    free(server_finish(&s));
}
END_TEST

START_TEST(gdb_writes_registers_and_memory_where_allowed)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "set var *(int*)0x0804a000 = 0x1234", "x/x 0x0804a000",
                    "set var $eax = 99", "p $eax", "set var *(int*)0x0804c000 = 1",
                    "x/x 0x0804d000", "set var $cs = 1", "kill", NULL);
    assert_has(out, "0x804a000:\t0x00001234");
    assert_has(out, "$1 = 99");
    assert_has(out, "Cannot access memory at address 0x804c000");
    assert_has(out, "Cannot access memory at address 0x804d000");
    assert_has(out, "Could not write register \"cs\"");
    free(out);
    free(server_finish(&s));
}
END_TEST

START_TEST(gdb_continue_to_the_end_gets_the_exit_code)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "continue", NULL);
    assert_has(out, "[Inferior 1 (Remote target) exited with code 07]");
    free(out);
    out = server_finish(&s);
    assert_has(out, "exit 7\n");
    free(out);
}
END_TEST

/* detach removes the breakpoint: the program runs past it to the end. */
START_TEST(gdb_detach_lets_the_program_finish)
{
    struct server s;
    server_start(&s, "--wait");
    char *out = gdb(&s, "break *0x0804801e", "continue", "monitor help", "detach", NULL);
    assert_has(out, "Breakpoint 1, 0x0804801e in ?? ()");
    assert_has(out, "cycles     modeled cycles so far");
    assert_has(out, "[Inferior 1 (Remote target) detached]");
    free(out);
    out = server_finish(&s);
    assert_has(out, "exit 7\ninsns 7\n");
    free(out);
}
END_TEST

/* Without --wait the program spins; gdb attaching stops it there. */
START_TEST(gdb_attaches_to_a_running_program)
{
    struct server s;
    server_start(&s, "--spin");
    char *out = gdb(&s, "p/x $eip", "kill", NULL);
    assert_has(out, "$1 = 0x8048024");
    free(out);
    out = server_finish(&s);
    assert_has(out, "killed\n");
    free(out);
}
END_TEST

Suite *gdb_client_suite(void)
{
    Suite *s = suite_create("gdb_client");
    TCase *tc = tcase_create("debian_gdb");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gdb_reads_registers_and_memory);
    tcase_add_test(tc, gdb_stepi_executes_one_instruction);
    tcase_add_test(tc, gdb_break_watch_monitor_and_kill);
    tcase_add_test(tc, gdb_read_watchpoint_sees_the_read);
    tcase_add_test(tc, gdb_writes_registers_and_memory_where_allowed);
    tcase_add_test(tc, gdb_continue_to_the_end_gets_the_exit_code);
    tcase_add_test(tc, gdb_detach_lets_the_program_finish);
    tcase_add_test(tc, gdb_attaches_to_a_running_program);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    return run_suite(gdb_client_suite());
}
