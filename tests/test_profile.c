/*
 * --profile (emu/observe/profile.c, call_tree.c): the callgrind file loads with
 * Debian's callgrind_annotate (valgrind), whose totals are the run's
 * cycles, function by function too; inclusive costs follow the shadow
 * stack across the ring; the folded stacks add up to the same total.
 * With line tables (the kernel's, a program built with -g) its
 * --auto=yes annotates the sources, entry.S and the program's C, line by
 * line; a program without one, stripped or with a corrupt one, is
 * profiled by function.
 */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

/* The run's cycles and boot cycles, from --report. */
static void run_cycles(const char *err, long *cycles, long *boot)
{
    char *cpu = line_with(err, "emu: report: cpu ");
    ck_assert_msg(cpu != NULL, "%s", err);
    ck_assert_int_eq(sscanf(cpu, "emu: report: cpu %*s %*d instructions, %ld cycles (boot %ld)",
                            cycles, boot), 2);
    free(cpu);
}

static long number(const char *s)
{
    long v = 0;
    for (; *s == ' '; s++)
        ;
    for (; (*s >= '0' && *s <= '9') || *s == ','; s++)
        if (*s != ',')
            v = v * 10 + (*s - '0');
    return v;
}

/* Does callgrind_annotate's "file:function [object]" name fn? */
static bool names_fn(const char *text, const char *fn)
{
    const char *colon = strchr(text, ':');
    size_t n = strlen(fn);
    return colon && !strncmp(colon + 1, fn, n) && (!colon[1 + n] || colon[1 + n] == ' ');
}

/* callgrind_annotate's PROGRAM TOTALS, the sum of its function lines, and
 * the cost of one function (by name, in any file; -1 if it has none). */
static long annotate(const char *path, bool inclusive, long *sum, const char *fn, long *cost)
{
    const char *argv[] = { "callgrind_annotate", "--auto=no", "--threshold=100",
                           inclusive ? "--inclusive=yes" : "--inclusive=no", path, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "callgrind_annotate %s: %d %s", path, r.status, r.err);
    long total = -1;
    *sum = 0;
    *cost = -1;
    bool functions = false;
    for (char *save = NULL, *line = strtok_r(r.out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "PROGRAM TOTALS"))
            total = number(line);
        else if (strstr(line, "file:function"))
            functions = true;
        else if (functions && strstr(line, "%)  ")) {
            *sum += number(line);
            if (names_fn(strstr(line, "%)  ") + 4, fn))
                *cost = number(line);
        }
    }
    ck_assert_msg(total >= 0 && functions, "no totals from callgrind_annotate: %s", r.out);
    emu_result_free(&r);
    return total;
}

static const char *const runs[][5] = {
    { "pentium4", "syscall_loop", "gettimeofday", "100", NULL },
    { "pentium4,-sep", "syscall_loop", "gettimeofday", "100", NULL },
    { "pentium3", "syscall_loop", "getpid", "50", "int80" },
    { "pentium4", "hello-glibc", NULL, NULL, NULL },
    { "pentiumpro", "busybox", "uname", "-m", NULL },
};

static void run_profiled(int i, const char *profile, const char *format, struct emu_result *r)
{
    const char *prog = !strcmp(runs[i][1], "syscall_loop") ? program(runs[i][1])
                                                          : fixture(runs[i][1]);
    const char *args[16] = { "run", "--report", "--cpu", runs[i][0], "--profile", profile,
                             "--profile-format", format, prog };
    int n = 9;
    for (int k = 2; k < 5 && runs[i][k]; k++)
        args[n++] = runs[i][k];
    args[n] = NULL;
    run_emu(r, args);
    ck_assert_msg(r->status == 0, "%s: %s", runs[i][1], r->err);
}

START_TEST(callgrind_profile_loads_and_its_totals_are_the_runs_cycles)
{
    const char *path = scratch("callgrind.out");
    struct emu_result r;
    run_profiled(_i, path, "callgrind", &r);
    long cycles, boot, sum, start;
    run_cycles(r.err, &cycles, &boot);
    long total = annotate(path, false, &sum, "_start", &start);
    ck_assert_int_eq(total, cycles);
    ck_assert_int_eq(sum, cycles);
    /* inclusive: the program's entry holds everything after the boot (busybox
     * is stripped: its entry has no name) */
    total = annotate(path, true, &sum, "_start", &start);
    ck_assert_int_eq(total, cycles);
    if (strcmp(runs[_i][1], "busybox"))
        ck_assert_msg(start == cycles - boot, "_start %ld, run %ld - boot %ld", start, cycles,
                      boot);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* The folded file's stacks, and the count of those that contain frames. */
static long folded_total(const char *text, const char *frames, int *with)
{
    long total = 0;
    *with = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        const char *space = end;
        while (space > line && space[-1] != ' ')
            space--;
        ck_assert_msg(space > line, "no count: %.*s", (int)(end - line), line);
        total += strtol(space, NULL, 10);
        char *stack = strndup(line, (size_t)(space - line));
        *with += strstr(stack, frames) != NULL;
        free(stack);
        line = end + 1;
    }
    return total;
}

START_TEST(folded_stacks_sum_to_the_runs_cycles)
{
    /* where the kernel is entered from, on each path */
    static const char *const entered[] = {
        "main;__kernel_vsyscall;sysenter_entry_[k]",
        "main;__kernel_vsyscall;system_call_[k]",
        "main;system_call_[k]",
        "__kernel_vsyscall;sysenter_entry_[k]",
        "__kernel_vsyscall;system_call_[k]",
    };
    const char *path = scratch("folded.txt");
    struct emu_result r;
    run_profiled(_i, path, "folded", &r);
    long cycles, boot;
    run_cycles(r.err, &cycles, &boot);
    char *text = read_file(path);
    int with, kernel;
    ck_assert_int_eq(folded_total(text, entered[_i], &with), cycles);
    ck_assert_msg(with > 0, "no stack with %s:\n%.2000s", entered[_i], text);
    folded_total(text, "start_kernel_[k]", &kernel);
    ck_assert_int_gt(kernel, 0);
    free(text);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* ---- source lines ---- */

/* The lines callgrind_annotate --auto=yes annotates of the source file
 * whose name ends in suffix (a copy), or NULL. */
static char *annotated_source(const char *profile, const char *suffix)
{
    const char *argv[] = { "callgrind_annotate", "--auto=yes", "--threshold=100", profile, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "callgrind_annotate %s: %d %s", profile, r.status, r.err);
    char *found = NULL;
    for (char *at = strstr(r.out, "-- Auto-annotated source: "); at && !found;
         at = strstr(at + 1, "-- Auto-annotated source: ")) {
        char *eol = strchr(at, '\n');
        size_t n = strlen(suffix);
        if (!eol || (size_t)(eol - at) < n || strncmp(eol - n, suffix, n))
            continue;
        char *end = strstr(eol, "\n-- Auto-annotated source: ");
        found = strndup(eol, end ? (size_t)(end - eol) : strlen(eol));
    }
    emu_result_free(&r);
    return found;
}

/* The most cycles annotated on a line whose source text ends with text;
 * -1 if there is no such line. */
static long line_cost(const char *section, const char *text)
{
    long best = -1;
    size_t n = strlen(text);
    for (const char *line = section; line && *line; line = strchr(line, '\n'), line += !!line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *arrow = strstr(line, "=>");   /* a call's line, not the source's */
        if (len < n || strncmp(line + len - n, text, n) || (arrow && arrow < line + len))
            continue;
        /* the cost column: "1,234 (0.31%)  " or ".  " */
        long cost = line[strspn(line, " ")] == '.' ? 0 : number(line);
        if (cost > best)
            best = cost;
    }
    return best;
}

static void profile_program(const char *cpu, const char *prog, const char *path,
                            struct emu_result *r)
{
    run_emu(r, (const char *[]){ "run", "--report", "--cpu", cpu, "--profile", path, prog,
                                 "gettimeofday", "100", NULL });
    ck_assert_msg(r->status == 0, "%s: %s", prog, r->err);
}

START_TEST(callgrind_annotate_shows_entry_S_and_the_programs_C_by_line)
{
    /* sysenter where the CPU has SEP, int $0x80 where it does not */
    static const char *const kernel_lines[][2] = {
        { "pentium4", "sysexit" },
        { "pentium4,-sep", "RESTORE_ALL" },
    };
    const char *path = scratch("lines.out");
    struct emu_result r;
    profile_program(kernel_lines[_i][0], program("syscall_loop"), path, &r);
    char *entry = annotated_source(path, "guest/kernel/entry.S");
    ck_assert_msg(entry != NULL, "entry.S is not annotated");
    ck_assert_msg(line_cost(entry, kernel_lines[_i][1]) > 0, "%s: %.3000s",
                  kernel_lines[_i][1], entry);
    ck_assert_msg(line_cost(entry, "call *sys_call_table(, %eax, 4)") > 0, "%.3000s", entry);
    /* a line that never runs has no cost */
    ck_assert_int_eq(line_cost(entry, "movl $(-EFAULT), PT_EAX(%esp)"), 0);
    char *c = annotated_source(path, "guest/programs/syscall_loop.c");
    ck_assert_msg(c != NULL, "syscall_loop.c is not annotated");
    ck_assert_msg(line_cost(c, "long n = atol(argv[2]);") > 0, "%.3000s", c);
    ck_assert_msg(line_cost(c, "__asm__ volatile(\"call *%[entry]\"") > 0, "%.3000s", c);
    free(entry);
    free(c);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* A copy of a built program, changed by objcopy's option (or as it is). */
static const char *objcopy_program(const char *name, const char *option, const char *tag)
{
    const char *copy = scratch(tag);
    const char *argv[] = { "objcopy", option ? option : "--preserve-dates", program(name), copy,
                           NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "objcopy %s: %s", option, r.err);
    emu_result_free(&r);
    return copy;
}

/* The profile's own totals hold; the kernel still has its lines; the
 * program's main is a function of file "???". */
static void check_function_level(const char *path, const struct emu_result *r, bool named)
{
    long cycles, boot, sum, main_cost;
    run_cycles(r->err, &cycles, &boot);
    ck_assert_int_eq(annotate(path, false, &sum, "main", &main_cost), cycles);
    ck_assert_int_eq(sum, cycles);
    char *text = read_file(path);
    ck_assert_ptr_null(strstr(text, "syscall_loop.c"));
    ck_assert_ptr_nonnull(strstr(text, "guest/kernel/entry.S\n"));
    if (named)
        ck_assert_msg(strstr(text, "\nfl=???\nfn=main\n") && main_cost > 0, "%.2000s", text);
    free(text);
}

START_TEST(a_program_without_line_tables_is_profiled_by_function)
{
    /* the symbols without the debug information; nothing at all */
    static const char *const how[] = { "--strip-debug", "--strip-all" };
    const char *prog = objcopy_program("syscall_loop", how[_i], "stripped");
    const char *path = scratch("stripped.out");
    struct emu_result r;
    profile_program("pentium4", prog, path, &r);
    ck_assert_ptr_null(strstr(r.err, "emu: profile:"));
    check_function_level(path, &r, _i == 0);
    unlink(path);
    unlink(prog);
    emu_result_free(&r);
}
END_TEST

/* The file offset of a program's .debug_line. */
static long debug_line_offset(const char *file)
{
    char *image = read_file(file);
    Elf32_Ehdr eh;
    memcpy(&eh, image, sizeof eh);
    Elf32_Shdr names, sh;
    memcpy(&names, image + eh.e_shoff + eh.e_shstrndx * sizeof sh, sizeof sh);
    long off = -1;
    for (int i = 0; i < eh.e_shnum && off < 0; i++) {
        memcpy(&sh, image + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (!strcmp(image + names.sh_offset + sh.sh_name, ".debug_line"))
            off = (long)sh.sh_offset;
    }
    free(image);
    return off;
}

START_TEST(a_corrupt_line_table_is_noted_and_profiled_by_function)
{
    /* the first unit's unit_length: past the section; its line_range: 0 */
    static const struct { long at; uint32_t value; size_t size; } bad[] = {
        { 0, 0xfffffff0u, 4 },
        { 4 + 2 + 2 + 4 + 4, 0, 1 },
    };
    const char *prog = objcopy_program("syscall_loop", NULL, "corrupt");
    long off = debug_line_offset(prog);
    ck_assert_int_gt(off, 0);
    FILE *f = fopen(prog, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, off + bad[_i].at, SEEK_SET), 0);
    ck_assert_int_eq(fwrite(&bad[_i].value, bad[_i].size, 1, f), 1);
    ck_assert_int_eq(fclose(f), 0);
    const char *path = scratch("corrupt.out");
    struct emu_result r;
    profile_program("pentium4", prog, path, &r);
    char *note = line_with(r.err, "emu: profile: ");
    ck_assert_msg(note && strstr(note, "malformed .debug_line") &&
                  strstr(note, "named by function only"), "%s", r.err);
    check_function_level(path, &r, true);
    free(note);
    unlink(path);
    unlink(prog);
    emu_result_free(&r);
}
END_TEST

START_TEST(a_bad_profile_is_a_usage_error)
{
    struct emu_result r;
    emu(&r, "run", "--profile", scratch("p"), "--profile-format", "pprof", program("hello"),
        NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
    emu(&r, "run", "--profile", "/nonexistent/dir/p", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
}
END_TEST

Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, callgrind_profile_loads_and_its_totals_are_the_runs_cycles, 0,
                        sizeof runs / sizeof runs[0]);
    tcase_add_loop_test(tc, folded_stacks_sum_to_the_runs_cycles, 0,
                        sizeof runs / sizeof runs[0]);
    tcase_add_loop_test(tc, callgrind_annotate_shows_entry_S_and_the_programs_C_by_line, 0, 2);
    tcase_add_loop_test(tc, a_program_without_line_tables_is_profiled_by_function, 0, 2);
    tcase_add_loop_test(tc, a_corrupt_line_table_is_noted_and_profiled_by_function, 0, 2);
    tcase_add_test(tc, a_bad_profile_is_a_usage_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(profile_suite());
}
