/*
 * --report (emu/observe/report.c): the system calls by entry path and return,
 * the unknown ones, and the same numbers on every run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const char *const models[] = {
    "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep", "pentiumpro",
};
#define NMODELS 5
static bool model_has_working_sep(int m)
{
    return m == 0 || m == 2;
}

START_TEST(report_counts_sysenter_only_where_it_is_used)
{
    const char *cpu = models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    bool sysenter = model_has_working_sep(_i / 2) && _i % 2;
    long n_sysenter = -1, n_int80 = -1, n_sysexit = -1, n_iret = -1;
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, program("check_syscalls"), mode, NULL);
    ck_assert_msg(report_paths(r.err, &n_sysenter, &n_int80, &n_sysexit, &n_iret),
                  "no report line in: %s", r.err);
    if (sysenter) {
        ck_assert_msg(n_sysenter > 20 && n_int80 == 0 && n_sysexit > 20,
                      "%s on %s: %ld sysenter, %ld int80, %ld sysexit", mode, cpu,
                      n_sysenter, n_int80, n_sysexit);
    } else {
        ck_assert_msg(n_sysenter == 0 && n_int80 > 20 && n_sysexit == 0 && n_iret > 20,
                      "%s on %s: %ld sysenter, %ld int80, %ld sysexit, %ld iret", mode, cpu,
                      n_sysenter, n_int80, n_sysexit, n_iret);
    }
    char *cpu_line = line_with(r.err, "emu: report: cpu ");
    ck_assert_ptr_nonnull(cpu_line);
    ck_assert_msg(strstr(cpu_line, cpu), "report names %s for --cpu %s", cpu_line, cpu);
    free(cpu_line);
    emu_result_free(&r);
}
END_TEST

START_TEST(report_counts_only_unknown_calls_as_enosys)
{
    /* glibc calls rseq, which the kernel answers -ENOSYS on purpose: a
     * known call, so not counted. */
    struct emu_result r;
    struct report rep;
    emu(&r, "run", "--strace", "--report", fixture("hello-glibc"), NULL);
    ck_assert_int_eq(r.status, 0);
    char *rseq = line_with(r.err, "] rseq(");
    ck_assert_msg(rseq && strstr(rseq, "= -1 ENOSYS (Function not implemented) <"), "%s", r.err);
    free(rseq);
    ck_assert(parse_report(r.err, &rep));
    ck_assert_msg(rep.unknown == 0, "%ld unknown: %s", rep.unknown, r.err);
    emu_result_free(&r);

    emu(&r, "run", "--report", program("check_syscalls"), "vsyscall", NULL);
    ck_assert(parse_report(r.err, &rep));
    ck_assert_msg(rep.unknown == 3, "check_syscalls makes 3 unknown calls, report says %ld",
                  rep.unknown);
    /* each by its name, or the count of those the table has no row for */
    char *names = line_with(r.err, "emu: report: unknown to the kernel: ");
    ck_assert_msg(names && !strcmp(names, "emu: report: unknown to the kernel: acct x1, "
                                          "2 with numbers past 1023"), "%s", r.err);
    free(names);
    emu_result_free(&r);
}
END_TEST

START_TEST(runs_are_deterministic)
{
    struct emu_result a, b;
    emu(&a, "run", "--report", program("syscall_loop"), "gettimeofday", "100", NULL);
    emu(&b, "run", "--report", program("syscall_loop"), "gettimeofday", "100", NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    ck_assert_msg(count_lines_containing(a.err, "emu: report:") >= 2, "%s", a.err);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_str_eq(a.err, b.err);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

/* The table's rows: "% cycles, cycles, cycles/call, calls, errors, entry,
 * body, exit, path, syscall"; the total row has no path. */
struct table_row {
    double share, cycles, per_call;
    long calls, errors;
    double entry, body, exit;
    char path[16], name[64];
};

static int table_rows(const char *text, struct table_row *rows, int max, struct table_row *total)
{
    const char *p = strstr(text, "\n-------- ");
    ck_assert_msg(p != NULL, "no table: %s", text);
    p = strchr(p + 1, '\n') + 1;
    int n = 0;
    bool have_total = false;
    while (*p && strncmp(p, "--------", 8)) {
        struct table_row *row = &rows[n];
        char errors[16];
        /* an empty errors column: no errors */
        char line[256];
        const char *end = strchr(p, '\n');
        snprintf(line, sizeof line, "%.*s", (int)(end - p), p);
        memset(row, 0, sizeof *row);
        int got = sscanf(line, "%lf %lf %lf %ld", &row->share, &row->cycles, &row->per_call,
                         &row->calls);
        ck_assert_int_eq(got, 4);
        /* the errors column ends at character 55 */
        snprintf(errors, sizeof errors, "%.9s", line + 46);
        row->errors = strtol(errors, NULL, 10);
        ck_assert_int_eq(sscanf(line + 56, "%lf %lf %lf %15s %63s", &row->entry, &row->body,
                                &row->exit, row->path, row->name), 5);
        ck_assert_int_lt(++n, max);
        p = end + 1;
    }
    p = strchr(p, '\n') + 1;
    ck_assert_int_eq(sscanf(p, "%lf %lf %lf %ld", &total->share, &total->cycles,
                            &total->per_call, &total->calls), 4);
    char errors[16];
    snprintf(errors, sizeof errors, "%.9s", p + 46);
    total->errors = strtol(errors, NULL, 10);
    have_total = strstr(p, " total\n") != NULL;
    ck_assert(have_total);
    return n;
}

START_TEST(report_table_rows_add_up_to_the_totals)
{
    static const char *const runs[][4] = {
        { "busybox", "uname", "-m", NULL },
        { "check_syscalls", "vsyscall", NULL, NULL },
        { "check_syscalls", "int80", NULL, NULL },
    };
    const char *prog = !strcmp(runs[_i][0], "busybox") ? fixture("busybox") : program(runs[_i][0]);
    struct emu_result r;
    emu(&r, "run", "--report", prog, runs[_i][1], runs[_i][2], NULL);
    ck_assert_int_eq(r.status, 0);
    struct table_row rows[128], total;
    int n = table_rows(r.err, rows, 128, &total);
    double cycles = 0, share = 0;
    long calls = 0, errors = 0;
    for (int i = 0; i < n; i++) {
        cycles += rows[i].cycles;
        share += rows[i].share;
        calls += rows[i].calls;
        errors += rows[i].errors;
        /* mean entry + body + exit is the round trip */
        ck_assert_double_eq_tol(rows[i].entry + rows[i].body + rows[i].exit, rows[i].per_call,
                                0.2);
        ck_assert_double_eq_tol(rows[i].cycles / rows[i].calls, rows[i].per_call, 0.06);
        if (i)
            ck_assert(rows[i].cycles <= rows[i - 1].cycles);
    }
    ck_assert_int_eq(calls, total.calls);
    ck_assert_int_eq(errors, total.errors);
    ck_assert_double_eq_tol(cycles, total.cycles, 0.01 * n);
    ck_assert_double_eq_tol(share, 100.0, 0.01 * n);
    struct report rep;
    ck_assert(parse_report(r.err, &rep));
    ck_assert_int_eq(total.calls, rep.sysenter + rep.int80);
    long run_cycles = 0, boot = 0;
    char *cpu = line_with(r.err, "emu: report: cpu ");
    ck_assert_int_eq(sscanf(cpu, "emu: report: cpu %*s %*d instructions, %ld cycles (boot %ld)",
                            &run_cycles, &boot), 2);
    free(cpu);
    ck_assert_msg(boot > 0 && boot + total.cycles < run_cycles, "boot %ld + calls %.2f, run %ld",
                  boot, total.cycles, run_cycles);
    emu_result_free(&r);
}
END_TEST

/* The sum of the total_cycles column of the trace's syscall rows for one
 * call and path, and how many there are. */
static double trace_cycles(const char *csv, const char *name, const char *path, long *rows)
{
    int col_name = -1, col_path = -1, col_total = -1, col = 0;
    for (const char *h = csv; *h != '\n'; col++) {
        size_t len = strcspn(h, ",\n");
        if (len == 4 && !strncmp(h, "name", 4))
            col_name = col;
        else if (len == 4 && !strncmp(h, "path", 4))
            col_path = col;
        else if (len == 12 && !strncmp(h, "total_cycles", 12))
            col_total = col;
        h += len + (h[len] == ',');
    }
    ck_assert(col_name >= 0 && col_path >= 0 && col_total >= 0);
    double sum = 0;
    *rows = 0;
    for (const char *line = strchr(csv, '\n') + 1; *line;) {
        const char *end = strchr(line, '\n');
        char *copy = strndup(line, (size_t)(end - line)), *l = copy;
        char *field[64];
        int nf = 0;
        for (char *t = strsep(&l, ","); t && nf < 64; t = strsep(&l, ","))
            field[nf++] = t;
        if (nf > col_total && !strcmp(field[0], "syscall") && !strcmp(field[col_name], name) &&
            !strcmp(field[col_path], path)) {
            sum += strtod(field[col_total], NULL);
            (*rows)++;
        }
        free(copy);
        line = end + 1;
    }
    return sum;
}

/* A number jq reads from a JSON report (cycles floored, as the text
 * report prints them whole). */
static unsigned long json_number(const char *path, const char *filter)
{
    char *v = jq(filter, path);
    unsigned long n = strtoul(v, NULL, 10);
    free(v);
    return n;
}

/* The text report's line that starts with head, parsed with fmt into
 * want values; the line must be there. */
static void text_line(const char *err, const char *head, const char *fmt, int want,
                      unsigned long *v)
{
    char *line = line_with(err, head);
    ck_assert_msg(line, "no \"%s\" in:\n%s", head, err);
    ck_assert_int_eq(sscanf(line, fmt, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), want);
    free(line);
}

/* A text line of two figures and the JSON report's two for it. */
static void same_two(const char *err, const char *head, const char *fmt, const char *json,
                     const char *filter0, const char *filter1, unsigned long *v)
{
    text_line(err, head, fmt, 2, v);
    ck_assert_uint_eq(v[0], json_number(json, filter0));
    ck_assert_uint_eq(v[1], json_number(json, filter1));
}

/* --report=json carries every figure of the text report's lines: the
 * sysenter calls that left through iret, time, address spaces, the
 * user-space clock and, with --smp, each CPU's line and the machine's. */
START_TEST(json_report_has_the_figures_of_every_text_line)
{
    const char *json = scratch("figures.json");
    struct emu_result text, r;
    const char *smp_run[] = { "--smp", "2", fixture("busybox"), "sh", "-c",
                              "echo a | cat; sleep 1", NULL };
    const char *clock_run[] = { "--vgettimeofday", program("vgtod"), "compare", "100", NULL };
    const char *const *runs[] = { smp_run, clock_run };
    for (int k = 0; k < 2; k++) {
        const char *args[16] = { "run", "--report" }, *jargs[16] = { "run", "--report=json",
                                                                    "--report-file", json };
        int n = 2, jn = 4;
        for (int i = 0; runs[k][i]; i++)
            args[n++] = jargs[jn++] = runs[k][i];
        run_emu(&text, args);
        run_emu(&r, jargs);
        ck_assert_int_eq(text.status, 0);
        ck_assert_int_eq(r.status, 0);
        unsigned long v[6];
        text_line(text.err, "emu: report: sysenter calls that left",
                  "emu: report: sysenter calls that left through iret (work pending): %lu", 1, v);
        ck_assert_uint_eq(v[0], json_number(json, ".sysenter_left_through_iret"));
        same_two(text.err, "emu: report: time: ",
                 "emu: report: time: %lu timer interrupts; %lu cycles idle", json,
                 ".time.timer_interrupts", ".time.idle_cycles | floor", v);
        if (k == 1) {
            same_two(text.err, "emu: report: 100 user-space clock calls",
                     "emu: report: %lu user-space clock calls (--vgettimeofday, no system "
                     "call), %*f cycles per call; %lu sequence-lock", json, ".user_clock.calls",
                     ".user_clock.retries", v);
            emu_result_free(&text);
            emu_result_free(&r);
            continue;
        }
        ck_assert_uint_gt(v[0], 0);   /* the sleep: ticks, and each CPU idle */
        unsigned long idle = v[1], idle_sum = 0;
        text_line(text.err, "emu: report: address spaces: ",
                  "emu: report: address spaces: %lu switches, %lu TLB refills charged, %lu "
                  "code pages' translations dropped and %lu kept; %lu forks copied %lu pages",
                  6, v);
        static const char *const as_keys[] = { "switches", "tlb_refills", "code_pages_dropped",
                                               "code_pages_kept", "forks", "pages_copied" };
        for (int i = 0; i < 6; i++) {
            char filter[64];
            snprintf(filter, sizeof filter, ".address_spaces.%s", as_keys[i]);
            ck_assert_uint_eq(v[i], json_number(json, filter));
        }
        for (int c = 0; c < 2; c++) {
            char head[32], filter[160];
            snprintf(head, sizeof head, "emu: report: cpu %d: ", c);
            text_line(text.err, head,
                      "emu: report: cpu %*d: %lu busy cycles, %lu idle in hlt, %lu instructions "
                      "(%lu in user mode), %lu IPIs and %lu local timer interrupts taken",
                      6, v);
            ck_assert_uint_gt(v[1], 0);
            idle_sum += v[1];
            snprintf(filter, sizeof filter,
                     ".cpus[%d] | \"\\(.busy_cycles | floor) \\(.idle_cycles | floor) "
                     "\\(.instructions) \\(.user_instructions) \\(.ipis) "
                     "\\(.local_timer_interrupts)\"", c);
            char *got = jq(filter, json), want[160];
            snprintf(want, sizeof want, "%lu %lu %lu %lu %lu %lu\n", v[0], v[1], v[2], v[3],
                     v[4], v[5]);
            ck_assert_str_eq(got, want);
            free(got);
        }
        /* the time line's idle is the CPUs' (each floored to whole cycles) */
        ck_assert_msg(idle >= idle_sum && idle <= idle_sum + 2, "idle %lu, CPUs' %lu", idle,
                      idle_sum);
        same_two(text.err, "emu: report: 2 CPUs: ",
                 "emu: report: 2 CPUs: %lu cycles of machine time (the latest CPU's clock), "
                 "%lu busy cycles summed", json, ".machine_cycles | floor",
                 ".busy_cycles_summed | floor", v);
        emu_result_free(&text);
        emu_result_free(&r);
    }
    unlink(json);
}
END_TEST

START_TEST(json_report_agrees_with_strace_and_the_trace)
{
    const char *json = scratch("report.json"), *st = scratch("strace.txt"),
               *csv = scratch("trace.csv");
    struct emu_result r;
    emu(&r, "run", "--report=json", "--report-file", json, "-o", st, "--trace", csv,
        "--trace-format", "csv", fixture("hello-glibc"), NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(json), *strace = read_file(st), *trace = read_file(csv);
    ck_assert_msg(text && json_valid(text), "%s", text);
    char *rows = jq(".syscalls[] | \"\\(.name) \\(.path) \\(.calls) \\(.errors) \\(.cycles)\"",
                    json);
    long total_calls = 0, total_errors = 0, n = 0;
    for (char *save = NULL, *line = strtok_r(rows, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), n++) {
        char name[64], path[16];
        long calls, errors;
        double cycles;
        ck_assert_int_eq(sscanf(line, "%63s %15s %ld %ld %lf", name, path, &calls, &errors,
                                &cycles), 5);
        /* the strace lines of this call on this path, and the failed ones */
        char head[32], call[80];
        snprintf(head, sizeof head, "[%s/", path);
        snprintf(call, sizeof call, "%s(", name);
        long lines = 0, failed = 0;
        for (char *p = strace; *p;) {
            char *eol = strchr(p, '\n');
            char *l = strndup(p, (size_t)(eol - p));
            /* the call's name follows the 19-character path column */
            if (!strncmp(l, head, strlen(head)) && strlen(l) > 19 &&
                !strncmp(l + 19, call, strlen(call))) {
                lines++;
                failed += strstr(l, " = -1 E") != NULL;
            }
            free(l);
            p = eol + 1;
        }
        ck_assert_msg(lines == calls, "%s via %s: %ld calls in the report, %ld strace lines",
                      name, path, calls, lines);
        ck_assert_msg(failed == errors, "%s: %ld errors, %ld failed lines", name, errors, failed);
        long traced;
        double sum = trace_cycles(trace, name, path, &traced);
        ck_assert_int_eq(traced, calls);
        ck_assert_msg(sum > cycles - 0.005 * calls && sum < cycles + 0.005 * calls,
                      "%s: %.2f cycles in the report, %.2f in the trace", name, cycles, sum);
        total_calls += calls;
        total_errors += errors;
    }
    ck_assert_int_gt(n, 5);
    char *totals = jq("\"\\(.total.calls) \\(.total.errors) \\(.entries.sysenter + "
                      ".entries.int80)\"", json);
    long tc, te, entries;
    ck_assert_int_eq(sscanf(totals, "%ld %ld %ld", &tc, &te, &entries), 3);
    ck_assert_int_eq(tc, total_calls);
    ck_assert_int_eq(te, total_errors);
    ck_assert_int_eq(entries, total_calls);
    free(totals);
    free(rows);
    free(text);
    free(strace);
    free(trace);
    unlink(json);
    unlink(st);
    unlink(csv);
    emu_result_free(&r);
}
END_TEST

/* The entry, body and exit of --report's row of path and name. */
static void report_phases(const char *err, const char *row, double v[3])
{
    char *line = line_with(err, row);
    ck_assert_msg(line && sscanf(line, "%*f %*f %*f %*u %lf %lf %lf", &v[0], &v[1], &v[2]) == 3,
                  "no row %s in:\n%s", row, err);
    free(line);
}

/* One rule for a call's cycles (docs/cost-model.md): its own, whatever
 * else ran while it was switched out. Under busy's two-process load the
 * time slice ends inside some getppid calls, which go back to user mode
 * only when the other process has had its slice; their phases are still
 * those of getppid alone. */
START_TEST(a_call_switched_out_is_charged_only_its_own_cycles)
{
    struct emu_result load, alone;
    emu(&load, "run", "--report", program("busy"), "250", NULL);
    emu(&alone, "run", "--report", program("syscall_loop"), "getppid", "1000", NULL);
    ck_assert_msg(load.status == 0 && alone.status == 0, "%s%s", load.err, alone.err);
    double a[3], b[3];
    report_phases(load.err, "sysenter getppid", a);
    report_phases(alone.err, "sysenter getppid", b);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(a[k] == b[k], "phase %d: %.1f under load, %.1f alone", k, a[k], b[k]);
    emu_result_free(&load);
    emu_result_free(&alone);
}
END_TEST

START_TEST(a_bad_report_format_is_a_usage_error)
{
    struct emu_result r;
    emu(&r, "run", "--report=xml", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("counts");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, report_counts_sysenter_only_where_it_is_used, 0, 2 * NMODELS);
    tcase_add_test(tc, report_counts_only_unknown_calls_as_enosys);
    tcase_add_test(tc, runs_are_deterministic);
    tcase_add_loop_test(tc, report_table_rows_add_up_to_the_totals, 0, 3);
    tcase_add_test(tc, json_report_agrees_with_strace_and_the_trace);
    tcase_add_test(tc, json_report_has_the_figures_of_every_text_line);
    tcase_add_test(tc, a_bad_report_format_is_a_usage_error);
    tcase_add_test(tc, a_call_switched_out_is_charged_only_its_own_cycles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(report_suite());
}
