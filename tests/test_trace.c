/*
 * Trace files (emu/observe/trace.c): CSV rows match their header, JSON is valid,
 * the text trace has one line per system call, each leaving the way it
 * came in.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chrome_trace.h"
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

static char *first_line(const char *text)
{
    return strndup(text, strcspn(text, "\n"));
}

START_TEST(csv_trace_has_one_schema_with_or_without_instructions)
{
    const char *path = scratch("trace.csv");
    struct emu_result r;
    long s = 0, i = 0, x = 0, ir = 0;
    emu(&r, "run", "--report", "--trace", path, "--trace-format", "csv",
        program("syscall_loop"), "getpid", "3", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *plain = read_file(path);
    ck_assert_ptr_nonnull(plain);
    check_csv(plain, (int)(s + i));
    emu_result_free(&r);

    emu(&r, "run", "--report", "--trace", path, "--trace-format", "csv", "--trace-insns",
        program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *insns = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(insns);
    check_csv(insns, (int)(s + i));
    ck_assert_int_gt(count_lines_containing(insns, "insn,"), 100);
    char *h1 = first_line(plain), *h2 = first_line(insns);
    ck_assert_str_eq(h1, h2);
    free(h1);
    free(h2);
    free(plain);
    free(insns);
    emu_result_free(&r);
}
END_TEST

static void check_chrome_trace(const char *path, bool insns)
{
    char *text = read_file(path);
    ck_assert_msg(text && json_valid(text), "invalid JSON: %.300s", text);
    free(text);
    /* every event has the fields its phase requires */
    char *missing = jq("[.traceEvents[] | select((has(\"name\") and has(\"ph\") and has(\"pid\") "
                       "and has(\"tid\") and (.ph != \"X\" or (has(\"ts\") and has(\"dur\") "
                       "and (.ts|type) == \"number\" and (.dur|type) == \"number\" and .dur >= 0))"
                       " and (.ph != \"i\" or (has(\"ts\") and has(\"s\")))"
                       " and (.ph != \"M\" or (.args.name|type) == \"string\")) | not)] | length",
                       path);
    ck_assert_str_eq(missing, "0\n");
    free(missing);
    struct event *ev;
    int n = chrome_events(path, &ev);
    int meta = 0, boot = 0, calls = 0, user = 0, insn = 0, phases = 0;
    long pid = -1;              /* the program's: one process */
    for (int i = 0; i < n; i++) {
        ck_assert_msg(strchr("XMi", ev[i].ph), "phase %c", ev[i].ph);
        ck_assert_int_eq(ev[i].pid, ev[i].tid);
        meta += ev[i].ph == 'M' && (!strcmp(ev[i].name, "process_name") ||
                                    !strcmp(ev[i].name, "thread_name"));
        /* pid 0's track has the boot and nothing else */
        bool is_boot = ev[i].ph == 'X' && !strcmp(ev[i].name, "boot");
        boot += is_boot && ev[i].ts == 0 && ev[i].pid == 0;
        if (ev[i].ph != 'M' && !is_boot) {
            ck_assert_int_ne(ev[i].pid, 0);
            ck_assert(pid == -1 || ev[i].pid == pid);
            pid = ev[i].pid;
        }
        calls += !strcmp(ev[i].cat, "syscall");
        user += !strcmp(ev[i].cat, "user");
        insn += !strcmp(ev[i].cat, "insn");
        phases += !strcmp(ev[i].cat, "phase");
    }
    ck_assert_int_eq(meta, 4);  /* the boot's track and the program's, each named */
    ck_assert_int_eq(boot, 1);
    ck_assert_int_ge(calls, 2);
    ck_assert_int_ge(user, 2);
    ck_assert_int_ge(phases, 2 * calls);
    ck_assert(insns ? insn > 100 : insn == 0);
    ck_assert_int_gt(chrome_check_nesting(ev, n, path), calls + user);
    free(ev);
}

START_TEST(json_trace_is_a_valid_chrome_trace)
{
    const char *path = scratch("trace.json");
    struct emu_result r;
    emu(&r, "run", "--trace", path, "--trace-format", "json", program("syscall_loop"),
        "getpid", "3", NULL);
    ck_assert_int_eq(r.status, 0);
    check_chrome_trace(path, false);
    char *names = jq("[.traceEvents[] | select(.cat == \"syscall\") | .name] | join(\" \")", path);
    ck_assert_str_eq(names, "getpid getpid getpid write exit_group\n");
    free(names);
    emu_result_free(&r);

    static const char *const cpus[] = { "pentium4", "pentium3,-sep", "pentiumpro" };
    for (int c = 0; c < 3; c++) {
        emu(&r, "run", "--cpu", cpus[c], "--trace", path, "--trace-format", "json",
            "--trace-insns", fixture("hello-musl"), NULL);
        ck_assert_int_eq(r.status, 0);
        check_chrome_trace(path, true);
        emu_result_free(&r);
    }
    unlink(path);
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
    int lines = count_lines_containing(text, " syscall ");
    ck_assert_msg(lines == s + i, "%s %s: %d trace lines, %ld system calls:\n%s", cpu, mode,
                  lines, s + i, text);
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
        if (!strstr(l, " syscall ")) {
            free(l);
            line = end ? end + 1 : line + strlen(line);
            continue;
        }
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

/* The mode column of the text trace's instruction lines: "  addr M ...". */
static void count_modes(const char *text, int *user, int *kernel)
{
    *user = *kernel = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, "  ", 2) && end - line > 12) {
            *user += line[11] == 'u';
            *kernel += line[11] == 'k';
        }
        line = end + 1;
    }
}

START_TEST(trace_insns_takes_user_kernel_or_all)
{
    static const char *const which[] = { "--trace-insns=user", "--trace-insns=kernel",
                                         "--trace-insns=all", "--trace-insns" };
    const char *path = scratch("insns.txt");
    struct emu_result r;
    emu(&r, "run", "--trace", path, which[_i], program("one_call"), "gettimeofday", NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(path);
    unlink(path);
    int user, kernel;
    count_modes(text, &user, &kernel);
    ck_assert_msg(_i == 1 ? user == 0 : user > 100, "%s: %d user", which[_i], user);
    ck_assert_msg(_i == 0 ? kernel == 0 : kernel > 100, "%s: %d kernel", which[_i], kernel);
    /* the system calls are there whichever instructions are */
    ck_assert_int_eq(count_lines_containing(text, " syscall "), 2);
    free(text);
    emu_result_free(&r);
}
END_TEST

/* Under --smp the kernel's instructions are named with the symbols of the
 * SMP image that runs: the entry's big kernel lock, lock_kernel, which the
 * one-CPU image has not (there other functions are at those addresses). */
START_TEST(smp_trace_names_the_smp_images_functions)
{
    const char *path = scratch("smp.txt");
    struct emu_result r;
    emu(&r, "run", "--smp", "2", "--trace", path, "--trace-insns=kernel", program("syscall_loop"),
        "getpid", "2", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *text = read_file(path);
    unlink(path);
    ck_assert_int_gt(count_lines_containing(text, " lock_kernel"), 10);
    free(text);
    emu_result_free(&r);
    emu(&r, "run", "--trace", path, "--trace-insns=kernel", program("syscall_loop"), "getpid",
        "2", NULL);
    text = read_file(path);
    unlink(path);
    ck_assert_int_eq(count_lines_containing(text, " lock_kernel"), 0);
    free(text);
    emu_result_free(&r);
}
END_TEST

/* A call during which a signal was delivered has its own result in the
 * JSON trace: kill's 0 (not the signal number the handler starts with),
 * pause's -ERESTARTNOHAND; the delivered signal is an instant event. */
START_TEST(json_results_are_the_calls_own_across_a_signal)
{
    const char *path = scratch("signals.json");
    struct emu_result r;
    emu(&r, "run", "--trace", path, "--trace-format", "json", program("strace_signals"),
        "handled", NULL);
    ck_assert_int_eq(r.status, 4);
    char *kill = jq("[.traceEvents[] | select(.name == \"kill\") | .args.result] | tostring",
                    path);
    char *pause = jq("[.traceEvents[] | select(.name == \"pause\") | .args.result] | tostring",
                     path);
    char *sig = jq("[.traceEvents[] | select(.name == \"SIGUSR1\")] | length", path);
    ck_assert_str_eq(kill, "[0]\n");
    ck_assert_str_eq(pause, "[-514]\n");
    ck_assert_str_eq(sig, "1\n");
    free(kill);
    free(pause);
    free(sig);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* The CSV fields of a row, up to total_cycles: start 13, end 14, total 15. */
static bool csv_cycles(const char *line, char *kind, size_t kindlen, char *name, size_t namelen,
                       double *start, double *end, double *total)
{
    const char *f = line;
    for (int i = 0; i < 16; i++) {
        size_t len = strcspn(f, ",\n");
        if (i == 0)
            snprintf(kind, kindlen, "%.*s", (int)len, f);
        else if (i == 2)
            snprintf(name, namelen, "%.*s", (int)len, f);
        else if (i >= 13)
            *(i == 13 ? start : i == 14 ? end : total) = atof(f);
        if (f[len] != ',')
            return false;
        f += len + 1;
    }
    return true;
}

/* With every instruction traced, a call's instructions take exactly the
 * call's cycles: one after another, each with what it was charged. The
 * sysenter path charges each instruction in it (the int of the other path
 * is charged at its delivery, after the instruction is seen). A rep string
 * op appears once per run, as it is charged: the start-up and an element
 * on the first run, an element on each further run, nothing on the last
 * one, which finds ECX = 0. */
START_TEST(instructions_take_the_cycles_of_the_call_they_are_in)
{
    const char *path = scratch("each.csv");
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium4", "--trace", path, "--trace-format", "csv",
        "--trace-insns=all", program("one_call"), "gettimeofday", NULL);
    ck_assert_int_eq(r.status, 0);
    emu_result_free(&r);
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    double call_start = -1, call_end = -1, call_total = -1;
    char kind[16], name[64];
    double a, b, t;
    /* one string per row */
    char *after = text + strlen(text);
    for (char *c = text; (c = strchr(c, '\n')); c++)
        *c = 0;
    for (char *line = text; line < after; line += strlen(line) + 1)
        if (csv_cycles(line, kind, sizeof kind, name, sizeof name, &a, &b, &t) &&
            !strcmp(kind, "syscall") && !strcmp(name, "gettimeofday")) {
            call_start = a;
            call_end = b;
            call_total = t;
        }
    ck_assert_double_gt(call_total, 0);
    double sum = 0, prev_end = call_start, rep[8];
    int n = 0, reps = 0;
    for (char *line = text; line < after; line += strlen(line) + 1) {
        if (!csv_cycles(line, kind, sizeof kind, name, sizeof name, &a, &b, &t) ||
            strcmp(kind, "insn") || a < call_start || a >= call_end)
            continue;
        ck_assert_msg(a > prev_end - 0.005 && a < prev_end + 0.005,
                      "an instruction starts at %.2f, the one before ended at %.2f", a, prev_end);
        sum += b - a;
        prev_end = b;
        n++;
        if (strstr(line, "\"rep movsd") && reps < 8)
            rep[reps++] = b - a;
    }
    ck_assert_int_gt(n, 100);
    ck_assert_msg(sum > call_total - 0.005 * n && sum < call_total + 0.005 * n,
                  "the instructions take %.2f cycles, the call %.2f", sum, call_total);
    ck_assert_double_eq_tol(prev_end, call_end, 0.005);
    /* copy_to_user's rep movsd of the 8-byte timeval: two elements */
    ck_assert_int_eq(reps, 3);
    ck_assert_double_gt(rep[0], rep[1]);
    ck_assert_double_gt(rep[1], 0);
    ck_assert_double_eq_tol(rep[2], 0, 0.001);
    free(text);
}
END_TEST

START_TEST(a_cycle_window_keeps_what_overlaps_it)
{
    const char *path = scratch("window.csv");
    struct emu_result r;
    /* the whole run, to find the gettimeofday call */
    emu(&r, "run", "--trace", path, "--trace-format", "csv", program("one_call"),
        "gettimeofday", NULL);
    ck_assert_int_eq(r.status, 0);
    char *all = read_file(path);
    /* (after the traps that page the program in) */
    char *call = line_with(all, ",gettimeofday,sysenter,");
    ck_assert_msg(call && !strncmp(call, "syscall,", 8), "%s", all);
    /* start_cycle and end_cycle are fields 14 and 15 */
    char *f = call;
    for (int k = 0; k < 13; k++)
        f = strchr(f, ',') + 1;
    double start = strtod(f, &f), end = strtod(f + 1, NULL);
    free(call);
    free(all);
    emu_result_free(&r);

    char window[64];
    snprintf(window, sizeof window, "%.0f:%.0f", start + 1, end - 1);
    emu(&r, "run", "--trace", path, "--trace-format", "csv", "--trace-insns", "--trace-window",
        window, program("one_call"), "gettimeofday", NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(path);
    unlink(path);
    ck_assert_int_eq(count_lines_containing(text, "syscall,"), 1);
    ck_assert_int_eq(count_lines_containing(text, "boot,"), 0);
    ck_assert_int_eq(count_lines_containing(text, "user,,"), 0);
    int insns = count_lines_containing(text, "insn,");
    ck_assert_msg(insns > 50 && insns < 200, "%d instructions in %s", insns, window);
    /* each row overlaps the window */
    for (const char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        const char *g = line;
        for (int k = 0; k < 13; k++)
            g = strchr(g, ',') + 1;
        char *e;
        double s0 = strtod(g, &e), e0 = strtod(e + 1, NULL);
        ck_assert_msg(e0 >= start + 1 && s0 < end - 1, "outside %s: %.80s", window, line);
    }
    free(text);
    emu_result_free(&r);
}
END_TEST

/* The trace at path (then removed) has the bytes of piped's output less
 * plain's (the program's own, there once); the file's text, to be freed. */
static char *same_as_piped(const char *what, const char *path, struct emu_result *piped,
                           const struct emu_result *plain)
{
    char *said = strstr(piped->out, plain->out);
    ck_assert_msg(plain->out[0] && said, "the program's output is not in the piped trace");
    memmove(said, said + strlen(plain->out), strlen(said + strlen(plain->out)) + 1);
    ck_assert_ptr_null(strstr(piped->out, plain->out));
    char *file = read_file(path);
    ck_assert_msg(!strcmp(file, piped->out), "%s: the file (%zu bytes) differs from the pipe "
                  "(%zu bytes)", what, strlen(file), strlen(piped->out));
    unlink(path);
    return file;
}

/*
 * A trace to a regular file (written by emu from its own buffer) has the
 * bytes of the same trace through a pipe (written through stdio, between
 * the program's own output, which is then there once): text, CSV and
 * JSON, each more than the file's buffer of a megabyte.
 */
START_TEST(a_trace_to_a_file_has_the_bytes_of_one_through_a_pipe)
{
    static const char *const formats[] = { "text", "csv", "json" };
    const char *path = scratch("trace-file");
    struct emu_result plain, piped, filed;
    emu(&plain, "run", program("compute_loop"), "3000", NULL);
    emu(&piped, "run", "--trace", "/dev/stdout", "--trace-format", formats[_i], "--trace-insns",
        program("compute_loop"), "3000", NULL);
    emu(&filed, "run", "--trace", path, "--trace-format", formats[_i], "--trace-insns",
        program("compute_loop"), "3000", NULL);
    ck_assert_int_eq(plain.status, 0);
    ck_assert_int_eq(piped.status, 0);
    ck_assert_int_eq(filed.status, 0);
    ck_assert_str_eq(filed.out, plain.out);
    char *file = same_as_piped(formats[_i], path, &piped, &plain);
    ck_assert_uint_gt(strlen(file), 1 << 20);
    free(file);
    emu_result_free(&plain);
    emu_result_free(&piped);
    emu_result_free(&filed);
}
END_TEST

/*
 * A trace to a file writes the last instruction a block told at once, as
 * if it ran whole, and takes it back when a fault or an interrupt cuts it
 * short; through a pipe it waits for the next event. The two are the
 * same bytes for programs whose instructions fault (int3's is cut to no
 * time at all, which the file must show too).
 */
START_TEST(an_instruction_written_ahead_is_taken_back_when_cut_short)
{
    static const char *const cases[] = { "int3", "div0", "ud2", "null" };
    const char *path = scratch("trace-ahead");
    struct emu_result plain, piped, filed;
    emu(&plain, "run", program("faults"), cases[_i], NULL);
    emu(&piped, "run", "--trace", "/dev/stdout", "--trace-insns=all", program("faults"), cases[_i],
        NULL);
    emu(&filed, "run", "--trace", path, "--trace-insns=all", program("faults"), cases[_i], NULL);
    ck_assert_int_ne(plain.status, 0);
    ck_assert_int_eq(piped.status, plain.status);
    ck_assert_int_eq(filed.status, plain.status);
    char *file = same_as_piped(cases[_i], path, &piped, &plain);
    if (_i == 0)
        ck_assert_ptr_nonnull(strstr(file, " u at_int3                      int3"
                                           "                                     +0.00 "));
    free(file);
    emu_result_free(&plain);
    emu_result_free(&piped);
    emu_result_free(&filed);
}
END_TEST

START_TEST(trace_options_that_cannot_work_are_usage_errors)
{
    static const char *const bad[][4] = {
        { "--trace", "-", NULL, NULL },
        { "--trace-insns", NULL, NULL, NULL },
        { "--trace", "/tmp/sysemu-x", "--trace-insns=both", NULL },
        { "--trace", "/tmp/sysemu-x", "--trace-window", "9:3" },
        { "--trace", "/tmp/sysemu-x", "--trace-window", "nine" },
        { "--trace", "/tmp/sysemu-x", "--trace-format", "xml" },
        { "--trace", "/nonexistent/dir/t", NULL, NULL },
    };
    const char *args[8] = { "run" };
    int n = 1;
    for (int k = 0; k < 4 && bad[_i][k]; k++)
        args[n++] = bad[_i][k];
    args[n++] = program("hello");
    args[n] = NULL;
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_msg(r.status == 2, "%s: %d", bad[_i][0], r.status);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_str_eq(r.out, "");
    unlink("/tmp/sysemu-x");
    emu_result_free(&r);
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, csv_trace_has_one_schema_with_or_without_instructions);
    tcase_add_test(tc, json_trace_is_a_valid_chrome_trace);
    tcase_add_loop_test(tc, trace_insns_takes_user_kernel_or_all, 0, 4);
    tcase_add_test(tc, smp_trace_names_the_smp_images_functions);
    tcase_add_test(tc, json_results_are_the_calls_own_across_a_signal);
    tcase_add_test(tc, a_cycle_window_keeps_what_overlaps_it);
    tcase_add_test(tc, instructions_take_the_cycles_of_the_call_they_are_in);
    tcase_add_loop_test(tc, trace_options_that_cannot_work_are_usage_errors, 0, 7);
    tcase_add_loop_test(tc, a_trace_to_a_file_has_the_bytes_of_one_through_a_pipe, 0, 3);
    tcase_add_loop_test(tc, an_instruction_written_ahead_is_taken_back_when_cut_short, 0, 4);
    tcase_add_loop_test(tc, text_trace_has_one_line_per_system_call, 0,
                        sizeof text_trace_cases / sizeof text_trace_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(trace_suite());
}
