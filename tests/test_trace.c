/*
 * Trace files (emu/trace.c): CSV rows match their header, JSON is valid,
 * the text trace has one line per system call, each leaving the way it
 * came in.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

/* Commas outside double quotes. */
static int csv_commas(const char *line, size_t len)
{
    int n = 0;
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == ',' && !quoted)
            n++;
    }
    return n;
}

static void check_csv(const char *text, int want_syscalls)
{
    const char *nl = strchr(text, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_msg(!strncmp(text, "kind,", 5), "no header: %.80s", text);
    int header = csv_commas(text, (size_t)(nl - text));
    int rows = 0, syscalls = 0;
    for (const char *line = nl + 1; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        ck_assert_msg(csv_commas(line, len) == header,
                      "row %d has %d commas, the header %d: %.*s", rows + 1,
                      csv_commas(line, len), header, (int)len, line);
        rows++;
        syscalls += !strncmp(line, "syscall,", 8);
        line = end ? end + 1 : line + len;
    }
    ck_assert_int_gt(rows, 0);
    ck_assert_int_eq(syscalls, want_syscalls);
}

START_TEST(csv_trace_rows_match_the_header)
{
    const char *path = scratch("trace.csv");
    struct emu_result r;
    emu(&r, "run", "--report", "--trace", path, "--trace-format", "csv",
        program("syscall_loop"), "getpid", "3", NULL);
    ck_assert_int_eq(r.status, 0);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    check_csv(text, (int)(s + i));
    free(text);
    emu_result_free(&r);
}
END_TEST

START_TEST(csv_trace_with_instructions_rows_match_the_header)
{
    const char *path = scratch("trace_insns.csv");
    struct emu_result r;
    emu(&r, "run", "--report", "--trace", path, "--trace-format", "csv", "--trace-insns",
        program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    check_csv(text, (int)(s + i));
    free(text);
    emu_result_free(&r);
}
END_TEST

START_TEST(json_trace_is_valid)
{
    const char *path = scratch("trace.json");
    struct emu_result r;
    emu(&r, "run", "--trace", path, "--trace-format", "json", program("syscall_loop"),
        "getpid", "3", NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(json_valid(text), "invalid JSON: %.300s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"traceEvents\""));
    ck_assert_ptr_nonnull(strstr(text, "kernel: getpid"));
    free(text);
    emu_result_free(&r);

    emu(&r, "run", "--trace", path, "--trace-format", "json", "--trace-insns",
        program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(json_valid(text), "invalid JSON with --trace-insns: %.300s", text);
    free(text);
    emu_result_free(&r);
}
END_TEST

static const struct {
    const char *cpu, *mode;
    const char *loop_in;   /* how the N calls of the loop enter */
    bool sep;              /* does the vsyscall page use sysenter? */
} text_trace_cases[] = {
    { "pentium4", "vsyscall", "in=sysenter", true },
    { "pentium4", "int80", "in=int80", true },
    { "pentium3", "vsyscall", "in=sysenter", true },
    { "pentium4,-sep", "vsyscall", "in=int80", false },
    { "pentium3,-sep", "vsyscall", "in=int80", false },
    { "pentiumpro", "vsyscall", "in=int80", false },
    { "pentiumpro", "int80", "in=int80", false },
};

START_TEST(text_trace_has_one_line_per_system_call)
{
    const char *cpu = text_trace_cases[_i].cpu, *mode = text_trace_cases[_i].mode;
    const char *path = scratch("trace.txt");
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, "--trace", path, program("syscall_loop"), "getpid",
        "3", mode, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    /* one line per system call, and one per trap (demand paging) */
    int lines = count_char(text, '\n'), calls = count_lines_containing(text, " syscall ");
    ck_assert_msg(calls == s + i, "%s %s: %d system-call lines, %ld system calls:\n%s", cpu,
                  mode, calls, s + i, text);
    ck_assert_int_eq(count_lines_containing(text, " trap     trap "), lines - calls);
    ck_assert_msg(count_lines_containing(text, text_trace_cases[_i].loop_in) >= 3,
                  "%s %s: the loop's calls are not %s:\n%s", cpu, mode,
                  text_trace_cases[_i].loop_in, text);
    ck_assert_int_eq(count_lines_containing(text, "out=exited"), 1);
    if (!text_trace_cases[_i].sep) {
        ck_assert_int_eq(count_lines_containing(text, "sysenter"), 0);
        ck_assert_int_eq(count_lines_containing(text, "sysexit"), 0);
    } else if (!strcmp(mode, "vsyscall")) {
        ck_assert_int_ge(count_lines_containing(text, "out=sysexit"), 3);
    }
    /* each call leaves the way it came in (exit_group does not leave) */
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        char *l = strndup(line, end ? (size_t)(end - line) : strlen(line));
        bool exited = strstr(l, "out=exited") != NULL;
        if (strstr(l, "in=sysenter"))
            ck_assert_msg(exited || strstr(l, "out=sysexit"), "%s %s: %s", cpu, mode, l);
        else if (strstr(l, "in=trap"))
            ck_assert_msg(exited || strstr(l, "out=iret"), "%s %s: %s", cpu, mode, l);
        else
            ck_assert_msg(strstr(l, "in=int80") && (exited || strstr(l, "out=iret")),
                          "%s %s: %s", cpu, mode, l);
        free(l);
        line = end ? end + 1 : line + strlen(line);
    }
    free(text);
    emu_result_free(&r);
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, csv_trace_rows_match_the_header);
    tcase_add_test(tc, csv_trace_with_instructions_rows_match_the_header);
    tcase_add_test(tc, json_trace_is_valid);
    tcase_add_loop_test(tc, text_trace_has_one_line_per_system_call, 0,
                        sizeof text_trace_cases / sizeof text_trace_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(trace_suite());
}
