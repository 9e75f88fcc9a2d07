/*
 * The progress line on a terminal (emu/observe/progress.c): util-linux's script
 * runs emu on a pty, where the line is on by default, and its capture is
 * what the terminal received: the line, cleared ("\r" and "erase to end
 * of line") before the program's own output, never run into it. And the
 * unit in this process: into a file, the last line says the run is done,
 * with the machine's counts.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "../emu/observe/progress.h"

#define CLEAR "\r\033[K"

START_TEST(the_line_is_cleared_before_the_programs_output)
{
    /* long enough for a redraw (every half second) on the faster engine
     * (Unicorn 2.1: 15 million turns took under half a second), then one
     * line */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run %s 150000000", EMU_PATH, program("compute_loop"));
    const char *argv[] = { "script", "-q", "-e", "-c", cmd, "/dev/null", NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "script: %d %s", r.status, r.err);
    const char *line = strstr(r.out, "emu: ");
    ck_assert_msg(line, "no progress line on the terminal: %s", r.out);
    const char *output = strstr(r.out, "compute_loop 150000000: ");
    ck_assert_msg(output && output > line, "%s", r.out);
    ck_assert_msg(output - r.out >= 4 && !strncmp(output - 4, CLEAR, 4),
                  "the program's output follows the line uncleared: %s", r.out);
    /* and nothing of the line is left after the run */
    const char *last = strstr(output, "emu: ");
    ck_assert_msg(!last || strstr(last, CLEAR), "%s", r.out);
    emu_result_free(&r);
}
END_TEST

/* Run syscall_loop getppid 300 with the progress line into a file. */
static char *progress_of(bool tty, struct guest **out)
{
    const char *path = scratch(tty ? "progress-tty" : "progress");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    struct guest *g = guest_new("pentium4", "syscall_loop", "getppid", "300", NULL);
    struct progress *p = progress_open(f, tty);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(progress_attach(p, &g->m, &g->sys), 0);
    ck_assert_int_eq(guest_run(g), 0);
    progress_finish(p, &g->m);
    progress_close(p);
    ck_assert_int_eq(fclose(f), 0);
    *out = g;
    char *text = read_file(path);
    unlink(path);
    return text;
}

START_TEST(into_a_file_the_last_line_is_the_runs_counts)
{
    struct guest *g;
    char *text = progress_of(false, &g);
    ck_assert_msg(!strchr(text, '\r') && !strchr(text, '\033'), "%s", text);
    char *last = strstr(text, "emu: done: ");
    ck_assert_msg(last && strchr(last, '\n') == last + strlen(last) - 1, "%s", text);
    double insns, cycles;
    unsigned long long calls;
    ck_assert_int_eq(sscanf(last, "emu: done: %lfM instructions, %lfM cycles, %llu system calls",
                            &insns, &cycles, &calls), 3);
    ck_assert_double_eq_tol(insns, g->m.insns / 1e6, 0.051);
    ck_assert_double_eq_tol(cycles, centi_to_cycles(g->m.cycles) / 1e6, 0.051);
    ck_assert_uint_eq(calls, g->sys.by_path[PATH_INT80] + g->sys.by_path[PATH_SYSENTER]);
    ck_assert_uint_ge(calls, 300);
    free(text);
    guest_free(g);
}
END_TEST

START_TEST(on_a_terminal_a_short_run_leaves_nothing)
{
    /* under 2^22 instructions the clock is never read, so no line is
     * drawn, and the end clears none */
    struct guest *g;
    char *text = progress_of(true, &g);
    ck_assert_uint_lt(g->m.insns, 1u << 22);
    ck_assert_str_eq(text, "");
    free(text);
    guest_free(g);
}
END_TEST

Suite *progress_suite(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("terminal");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, the_line_is_cleared_before_the_programs_output);
    suite_add_tcase(s, tc);
    tc = tcase_create("unit");
    tcase_add_test(tc, into_a_file_the_last_line_is_the_runs_counts);
    tcase_add_test(tc, on_a_terminal_a_short_run_leaves_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(progress_suite());
}
