/*
 * The reference traces in traces/: one gettimeofday call through the
 * vsyscall page on each model, every instruction with its cost. Any change
 * to the cycle model, the kernel or the stubs shows up here as a diff;
 * if the change is intended, regenerate them with `make traces`.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const struct { const char *cpu, *file; } refs[] = {
    { "pentium4", "traces/pentium4.txt" },
    { "pentium4,-sep", "traces/pentium4-nosep.txt" },
    { "pentium3", "traces/pentium3.txt" },
    { "pentium3,-sep", "traces/pentium3-nosep.txt" },
    { "pentiumpro", "traces/pentiumpro.txt" },
};

static int first_difference(const char *a, const char *b)
{
    int line = 1;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n')
            line++;
    return *a == *b ? 0 : line;
}

/* The instruction lines at symbol, in mode, that start with text. */
static int insn_lines(const char *trace, char mode, const char *symbol, const char *text)
{
    char needle[128];
    snprintf(needle, sizeof needle, " %c %-28s %s", mode, symbol, text);
    return count_lines_containing(trace, needle);
}

START_TEST(reference_trace_matches)
{
    char path[] = "/tmp/sysemu-trace-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    /* a fixed argv[0]: the program's path would change the stack it copies */
    const char *args[] = { "run", "--cpu", refs[_i].cpu, "--argv0", "one_call", "--trace",
                           path, "--trace-insns",
                           program("one_call"), "gettimeofday", NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    char *got = read_file(path), *want = read_file(refs[_i].file);
    unlink(path);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(want != NULL, "%s is missing (make traces)", refs[_i].file);
    int line = first_difference(got, want);
    ck_assert_msg(line == 0, "%s differs from the model at line %d; if the change is "
                  "intended, run make traces", refs[_i].file, line);
    /* the trace shows the path the model took */
    bool sysenter = strstr(refs[_i].cpu, "-sep") == NULL && strcmp(refs[_i].cpu, "pentiumpro");
    ck_assert_int_eq(count_lines_containing(got, "syscall  sysenter  gettimeofday"), sysenter);
    ck_assert_int_eq(count_lines_containing(got, "syscall  int80     gettimeofday"), !sysenter);
    /* the instructions, with their symbols */
    ck_assert_int_eq(insn_lines(got, 'u', "__kernel_vsyscall+0x5", "sysenter"), sysenter ? 2 : 0);
    ck_assert_int_eq(insn_lines(got, 'k', "sysenter_exit", "sysexit"), sysenter ? 1 : 0);
    ck_assert_int_eq(insn_lines(got, 'k', "system_call", "push eax"), sysenter ? 0 : 2);
    ck_assert_int_eq(insn_lines(got, 'u', "_start", "xor ebp, ebp"), 1);
    free(got);
    free(want);
    emu_result_free(&r);
}
END_TEST

Suite *traces_suite(void)
{
    Suite *s = suite_create("traces");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, reference_trace_matches, 0, sizeof refs / sizeof refs[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(traces_suite());
}
