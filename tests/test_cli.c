/*
 * The command line (emu/main.c): bad input is one line on stderr and its
 * exit status, never a crash; --list-cpus names the parts.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static void assert_one_line_error(const struct emu_result *r, int status)
{
    ck_assert_msg(r->status == status, "exit %d, want %d; stderr: %s", r->status, status,
                  r->err);
    ck_assert_msg(!strncmp(r->err, "emu:", 4), "stderr: %s", r->err);
    ck_assert_msg(count_char(r->err, '\n') == 1, "stderr is not one line: %s", r->err);
    ck_assert_str_eq(r->out, "");
}

START_TEST(missing_program_file_is_127)
{
    struct emu_result r;
    emu(&r, "run", "/nonexistent/sysemu/prog", NULL);
    assert_one_line_error(&r, 127);
    emu_result_free(&r);
}
END_TEST

START_TEST(non_elf_file_is_126)
{
    const char *path = scratch("notelf");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#!/bin/sh\necho this is not an ELF file\n", f);
    fclose(f);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    unlink(path);
    assert_one_line_error(&r, 126);
    ck_assert_msg(strstr(r.err, "ELF"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(truncated_elf_is_126)
{
    const char *path = scratch("truncated");
    char *hello = NULL;
    FILE *in = fopen(program("hello"), "rb");
    ck_assert_ptr_nonnull(in);
    hello = malloc(100);
    ck_assert_int_eq(fread(hello, 1, 100, in), 100);
    fclose(in);
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(fwrite(hello, 1, 100, out), 100);
    fclose(out);
    free(hello);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    unlink(path);
    assert_one_line_error(&r, 126);
    emu_result_free(&r);
}
END_TEST

START_TEST(x86_64_elf_is_126)
{
    struct emu_result r;
    emu(&r, "run", "/bin/true", NULL);
    assert_one_line_error(&r, 126);
    emu_result_free(&r);
}
END_TEST

START_TEST(unknown_option_is_2)
{
    struct emu_result r;
    emu(&r, "run", "--no-such-option", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

START_TEST(unknown_cpu_is_2_and_points_at_list_cpus)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium9", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    ck_assert_msg(strstr(r.err, "--list-cpus"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* A trace that cannot be written (a full device) is an error, not a
 * trace silently lost: one line, exit 125. */
START_TEST(trace_write_error_is_reported)
{
    struct emu_result r;
    if (_i)
        emu(&r, "run", "--trace", "/dev/full", "--trace-insns", program("hello"), NULL);
    else
        emu(&r, "run", "--trace", "/dev/full", program("hello"), NULL);
    ck_assert_msg(r.status == 125, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "emu: /dev/full: cannot write the trace: No space left on device\n");
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);
}
END_TEST

/* emu compare with no model in --cpus is a usage error, not an empty table. */
START_TEST(compare_without_a_cpu_model_is_2)
{
    static const char *const lists[] = { "", ";;;", "pentium4;", ";pentium3", "pentium4;;pentium3" };
    struct emu_result r;
    emu(&r, "compare", "--cpus", lists[_i], program("hello"), NULL);
    ck_assert_msg(r.status == 2, "--cpus '%s': exit %d: %s", lists[_i], r.status, r.err);
    ck_assert_msg(strstr(r.err, "--cpus") && count_char(r.err, '\n') == 1, "%s", r.err);
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(no_program_is_2)
{
    struct emu_result r;
    emu(&r, "run", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
    emu(&r, "run", "--cpu", "pentium4", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("command line");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, missing_program_file_is_127);
    tcase_add_test(tc, non_elf_file_is_126);
    tcase_add_test(tc, truncated_elf_is_126);
    tcase_add_test(tc, x86_64_elf_is_126);
    tcase_add_test(tc, unknown_option_is_2);
    tcase_add_test(tc, unknown_cpu_is_2_and_points_at_list_cpus);
    tcase_add_test(tc, no_program_is_2);
    tcase_add_loop_test(tc, trace_write_error_is_reported, 0, 2);
    tcase_add_loop_test(tc, compare_without_a_cpu_model_is_2, 0, 5);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(cli_suite());
}
