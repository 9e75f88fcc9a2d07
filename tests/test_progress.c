/*
 * The progress line on a terminal (emu/observe/progress.c): util-linux's script
 * runs emu on a pty, where the line is on by default, and its capture is
 * what the terminal received: the line, cleared ("\r" and "erase to end
 * of line") before the program's own output, never run into it.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

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

Suite *progress_suite(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("terminal");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, the_line_is_cleared_before_the_programs_output);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(progress_suite());
}
