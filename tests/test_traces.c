/*
 * The reference traces in traces/: one gettimeofday call through the
 * vsyscall page on each model, and each measured path once (paths-*.txt)
 * under each kernel configuration, every instruction with its cost. Any change
 * to the cycle model, the kernel or the stubs shows up here as a diff;
 * if the change is intended, regenerate them with `make traces`.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
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

/* ---- each measured path once (guest/programs/paths.c) ---- */

static const struct { const char *cpu, *config, *file; } path_refs[] = {
    { "pentium4", "up", "traces/paths-pentium4-up.txt" },
    { "pentium4", "smp", "traces/paths-pentium4-smp.txt" },
    { "pentium3", "up", "traces/paths-pentium3-up.txt" },
    { "pentium3", "smp", "traces/paths-pentium3-smp.txt" },
};

/* How many different instructions of the kernel's function fn (its
 * symbol, and +0x...) start with text, wherever they ran. */
static int distinct_insns(const char *trace, const char *fn, const char *text)
{
    char seen[16][64];
    int n = 0;
    size_t fl = strlen(fn);
    for (const char *l = trace; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *k = strstr(l, " k ");
        const char *end = strchr(l, '\n');
        if (!k || (end && k > end) || strncmp(k + 3, fn, fl) || (k[3 + fl] != ' ' &&
                                                                   k[3 + fl] != '+'))
            continue;
        char sym[64];
        if (sscanf(k + 3, "%63s", sym) != 1)
            continue;
        const char *insn = k + 3 + strlen(sym);
        while (*insn == ' ')
            insn++;
        if (strncmp(insn, text, strlen(text)))
            continue;
        bool known = false;
        for (int i = 0; i < n; i++)
            known = known || !strcmp(seen[i], sym);
        if (!known && n < 16)
            snprintf(seen[n++], sizeof seen[0], "%s", sym);
    }
    return n;
}

/*
 * The paths' shape, as Linux 2.5.53 has it: __copy_user's three string ops
 * (a rep movsb for the head, rep movsl, a rep movsb for the tail); under
 * CONFIG_SMP getppid's rmb() and xtime_lock's lock subl and lock incl,
 * and no lock prefix anywhere in the UP kernel.
 */
START_TEST(paths_trace_matches_and_keeps_2_5_53s_shape)
{
    char path[] = "/tmp/sysemu-paths-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const char *args[] = { "run", "--cpu", path_refs[_i].cpu, "--kernel-config",
                           path_refs[_i].config, "--argv0", "paths", "--trace", path,
                           "--trace-insns", program("paths"), NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    char *got = read_file(path), *want = read_file(path_refs[_i].file);
    unlink(path);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(want != NULL, "%s is missing (make traces)", path_refs[_i].file);
    int line = first_difference(got, want);
    ck_assert_msg(line == 0, "%s differs from the model at line %d; if the change is "
                  "intended, run make traces", path_refs[_i].file, line);
    ck_assert_int_eq(distinct_insns(got, "__copy_to_user", "rep movsb"), 2);
    ck_assert_int_eq(distinct_insns(got, "__copy_to_user", "rep movsd"), 1);
    ck_assert_int_eq(distinct_insns(got, "__copy_from_user", "rep movsb"), 2);
    ck_assert_int_eq(distinct_insns(got, "__copy_from_user", "rep movsd"), 1);
    bool smp = !strcmp(path_refs[_i].config, "smp");
    ck_assert_int_eq(distinct_insns(got, "sys_getppid", "lock "), smp ? 1 : 0);
    ck_assert_int_eq(distinct_insns(got, "do_gettimeofday", "lock "), smp ? 2 : 0);
    if (!smp)
        ck_assert_int_eq(count_lines_containing(got, " lock "), 0);
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
    tcase_add_loop_test(tc, paths_trace_matches_and_keeps_2_5_53s_shape, 0,
                        sizeof path_refs / sizeof path_refs[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(traces_suite());
}
