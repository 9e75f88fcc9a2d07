/*
 * emu compare (emu/compare/compare.c): the same program on several models, a row
 * per way its calls went, and a ratio of sysenter to int $0x80 only
 * between calls that went different ways.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "../emu/observe/metrics.h"

static const char *const models[] = { "pentium4", "pentium3", "pentium4,-sep", "pentium3,-sep" };
#define NMODELS 4

static bool has_sep(int model)
{
    return model < 2;
}

START_TEST(compare_prints_the_table_and_sysenter_is_faster)
{
    const char *name = _i ? "gettimeofday_loop-musl" : "gettimeofday_loop-glibc";
    struct emu_result r;
    emu(&r, "compare", fixture(name), NULL);
    ck_assert_msg(r.status == 0, "compare %s: exit %d, %s", name, r.status, r.err);
    char *header = line_with(r.out, "cycles/call");
    ck_assert_msg(header && strstr(header, "SEP") && strstr(header, "path"), "%s", r.out);
    free(header);
    for (int m = 0; m < NMODELS; m++) {
        char want[64];
        snprintf(want, sizeof want, "%-16s %-6s %-9s %-7s    10000", models[m],
                 has_sep(m) ? "on" : "off", has_sep(m) ? "sysenter" : "int80", "page");
        ck_assert_msg(strstr(r.out, want), "compare %s: no row \"%s\" in:\n%s", name, want,
                      r.out);
    }
    for (int m = 0; m < 2; m++) {
        char prefix[64];
        double fast, slow, ratio;
        snprintf(prefix, sizeof prefix, "%s clock_gettime64: sysenter ", models[m]);
        char *line = line_with(r.out, prefix);
        ck_assert_msg(line, "compare %s: no ratio line for %s:\n%s", name, models[m], r.out);
        double low, high;
        ck_assert_int_eq(sscanf(line + strlen(prefix),
                                "%lf / int80 %lf cycles = %lf of the time [%lf, %lf]",
                                &fast, &slow, &ratio, &low, &high), 5);
        ck_assert_msg(fast < slow && ratio < 1.0, "%s", line);
        ck_assert_msg(low <= ratio && ratio <= high, "%s", line);
        free(line);
    }
    emu_result_free(&r);
}
END_TEST

/* A row's figure is the model at its central inputs, so it lies inside the
 * interval the inputs' ranges give, on every model: the run charges each
 * class's cost in whole centicycles, and the interval is worked out with
 * the same costs. */
START_TEST(every_rows_figure_lies_inside_its_interval)
{
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentium4;pentium3;pentiumpro;athlon;pentium-m;athlon,-sep",
        program("linus_loop"), "gettimeofday", "500", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    int rows = 0;
    for (const char *p = r.out; (p = strstr(p, "      500 ")); p++) {
        double v, low, high;
        ck_assert_msg(sscanf(p, " 500 %lf [%lf, %lf]", &v, &low, &high) == 3, "%.80s", p);
        ck_assert_msg(low <= v && v <= high, "outside: %.80s", p);
        rows++;
    }
    ck_assert_int_eq(rows, 12);
    emu_result_free(&r);
}
END_TEST

START_TEST(two_models_give_two_rows_and_one_ratio)
{
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentium4;pentium4,-sep", program("syscall_loop"), "getppid",
        "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4         on     sysenter  page         200"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4,-sep    off    int80     page         200"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4 getppid: sysenter "), 1);
    ck_assert_ptr_null(strstr(r.out, "published:"));    /* only with --article */
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(the_article_note_names_what_the_model_used)
{
    struct emu_result r;
    emu(&r, "compare", "--article", "--cpus", "pentium4", program("linus_loop"), "getppid",
        "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "LT-P4 getppid sysenter: 641 cycles"));
    ck_assert_ptr_nonnull(strstr(r.out, "(calibration point): inside"));
    ck_assert_ptr_nonnull(strstr(r.out, "Pine.LNX.4.44.0212162140500.1644-100000"));
    emu_result_free(&r);
    emu(&r, "compare", "--article", "--cpus", "pentium3", program("linus_loop"),
        "gettimeofday", "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "article: \"a factor of 1.2\""));
    ck_assert_ptr_nonnull(strstr(r.out, "(predicted, not used by the model)"));
    emu_result_free(&r);
    /* a program that replays nothing published says so */
    emu(&r, "compare", "--article", "--cpus", "pentium4", program("syscall_loop"), "getpid",
        "20", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "no published figure for this program"));
    emu_result_free(&r);
}
END_TEST

/* "cycles/call C [L, H]" of the row that starts with prefix */
static void row_cycles(const char *out, const char *prefix, double *c, double *lo, double *hi)
{
    char *line = line_with(out, prefix);
    ck_assert_msg(line != NULL, "no row \"%s\" in:\n%s", prefix, out);
    ck_assert_int_eq(sscanf(line + strlen(prefix), " %lf [%lf, %lf]", c, lo, hi), 3);
    ck_assert_msg(*lo <= *c && *c <= *hi, "%s", line);
    free(line);
}

START_TEST(a_program_that_takes_both_paths_gets_a_row_for_each)
{
    /* 100000 inline int $0x80 calls, then one through AT_SYSINFO */
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentium4;pentium4,-sep", program("syscall_loop"), "getppid",
        "100000", "mixed", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    double sysenter, int80_inline, int80_page, other, lo, hi;
    row_cycles(r.out, "pentium4         on     sysenter  page           1", &sysenter, &lo, &hi);
    row_cycles(r.out, "pentium4         on     int80     inline    100000", &int80_inline, &lo,
               &hi);
    row_cycles(r.out, "pentium4,-sep    off    int80     page           1", &int80_page, &lo, &hi);
    row_cycles(r.out, "pentium4,-sep    off    int80     inline    100000", &other, &lo, &hi);
    /* each row its own calls: the inline calls cost the same in both runs,
     * the one call through the page differs */
    ck_assert_double_eq_tol(int80_inline, other, 0.05);
    ck_assert_msg(sysenter < int80_page / 2, "%.1f vs %.1f", sysenter, int80_page);
    /* two ratios: Linus's shape within the SEP run, and the page call of
     * each run; the inline calls went the same way in both: no ratio */
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4 getppid: sysenter "), 2);
    ck_assert_int_eq(count_lines_containing(r.out, "sysenter: 1 page calls on pentium4; "
                                                   "int80: 100000 inline calls on pentium4"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "sysenter: 1 page calls on pentium4; "
                                                   "int80: 1 page calls on pentium4,-sep"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "on pentium4,-sep; int80"), 0);
    char want[96];
    snprintf(want, sizeof want, "sysenter %.1f / int80 %.1f cycles", sysenter, int80_page);
    ck_assert_msg(strstr(r.out, want), "no \"%s\" in:\n%s", want, r.out);
    emu_result_free(&r);
}
END_TEST

START_TEST(the_svg_has_a_bar_per_row_an_axis_and_the_ratio)
{
    const char *path = scratch("compare.svg");
    struct emu_result r;
    emu(&r, "compare", "--svg", path, "--cpus", "pentium3;pentium3,-sep;pentiumpro",
        program("syscall_loop"), "getpid", "100", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *svg = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(svg);
    ck_assert(!strncmp(svg, "<svg ", 5));
    ck_assert_ptr_nonnull(strstr(svg, "</svg>\n"));
    /* a label per row: model, path and via */
    ck_assert_int_eq(count_lines_containing(svg, ">pentium3 sysenter/page</text>"), 1);
    ck_assert_int_eq(count_lines_containing(svg, ">pentium3,-sep int80/page</text>"), 1);
    ck_assert_int_eq(count_lines_containing(svg, ">pentiumpro int80/page</text>"), 1);
    /* four parts (entry, body, exit, user) per row, and the legend's four */
    ck_assert_int_eq(count_lines_containing(svg, "<rect "), 3 * 4 + 4);
    ck_assert_int_eq(count_lines_containing(svg, "class=\"interval\""), 3);
    ck_assert_int_eq(count_lines_containing(svg, "class=\"axis\""), 1);
    ck_assert_int_ge(count_lines_containing(svg, "class=\"tick\""), 3);
    /* the ratio the text printed, in the chart */
    char *ratio = line_with(r.out, "pentium3 getpid: sysenter ");
    ck_assert_ptr_nonnull(ratio);
    ratio[strcspn(ratio, "\n")] = 0;
    char want[256];
    snprintf(want, sizeof want, "class=\"ratio\" x=\"10\"");
    ck_assert_int_eq(count_lines_containing(svg, want), 1);
    ck_assert_msg(strstr(svg, ratio), "the chart lacks \"%s\"", ratio);
    ck_assert_ptr_null(strstr(svg, "class=\"published\""));   /* syscall_loop replays nothing */
    free(ratio);
    free(svg);
    emu_result_free(&r);
}
END_TEST

START_TEST(the_svg_marks_the_published_figure_a_row_replays)
{
    const char *path = scratch("linus.svg");
    struct emu_result r;
    emu(&r, "compare", "--svg", path, "--cpus", "pentium4;pentium4,-sep", program("linus_loop"),
        "gettimeofday", "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *svg = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(svg);
    /* pentium4's sysenter and int80 rows replay Linus's two figures; the
     * model without SEP replays only the int80 one (its span 1 is int80) */
    ck_assert_int_eq(count_lines_containing(svg, "(LT-P4 gettimeofday sysenter)</text>"), 1);
    ck_assert_int_eq(count_lines_containing(svg, "(LT-P4 gettimeofday int80)</text>"), 2);
    ck_assert_int_eq(count_lines_containing(svg, "class=\"published\""), 3);
    free(svg);
    emu_result_free(&r);
}
END_TEST

START_TEST(a_cost_override_prints_a_banner_and_compares_no_published_figure)
{
    struct emu_result r;
    emu(&r, "compare", "--article", "--cost", "pentium4:sysenter=100", "--cpus",
        "pentium4;pentium3", program("linus_loop"), "gettimeofday", "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "costs overridden: pentium4:sysenter=100"), 1);
    /* --article runs both kernel configurations of each model (the rule
     * leaves them open): neither pentium4 run is compared */
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4/up: not compared: --cost modifies"),
                     1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4/smp: not compared: --cost "
                                                   "modifies"), 1);
    ck_assert_ptr_null(strstr(r.out, "LT-P4 gettimeofday"));
    /* the unmodified model is still compared: under up, smp and both */
    ck_assert_int_eq(count_lines_containing(r.out, "    LT-PIII gettimeofday sysenter: "), 3);
    emu_result_free(&r);
    emu(&r, "compare", "--cpus", "pentium4", program("syscall_loop"), "getpid", "10", NULL);
    ck_assert_ptr_null(strstr(r.out, "costs overridden"));
    emu_result_free(&r);
}
END_TEST

START_TEST(sep_reported_but_not_enabled_by_the_kernel_says_unused)
{
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentiumpro;pentiumpro,-sep;pentium3", program("syscall_loop"),
        "getpid", "10", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "pentiumpro       unused int80     page"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentiumpro,-sep  off    int80     page"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium3         on     sysenter  page"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "SEP unused: CPUID reports SEP, but the kernel"),
                     1);
    emu_result_free(&r);
}
END_TEST

START_TEST(syscall_chooses_the_call_compared)
{
    struct emu_result r;
    /* syscall_loop makes 50 getpid calls and a few writes of its report */
    emu(&r, "compare", "--syscall", "write", "--cpus", "pentium4;pentium4,-sep",
        program("syscall_loop"), "getpid", "50", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4 write: sysenter "), 1);
    ck_assert_ptr_null(strstr(r.out, " getpid: sysenter "));
    emu_result_free(&r);
    emu(&r, "compare", "--syscall", "nosuchcall", program("syscall_loop"), "getpid", "5", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "--syscall 'nosuchcall' names no system call"));
    emu_result_free(&r);
    /* a call the program never makes: a row that says so */
    emu(&r, "compare", "--syscall", "fork", "--cpus", "pentium4", program("syscall_loop"),
        "getpid", "5", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "(no fork call returned)"), 1);
    emu_result_free(&r);
}
END_TEST

START_TEST(one_model_and_one_way_says_why_there_is_no_ratio)
{
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentium4", program("syscall_loop"), "getpid", "10", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "no ratio: on each model the getpid calls"),
                     1);
    ck_assert_int_eq(count_lines_containing(r.out, "--cpus 'pentium4;pentium4,-sep'"), 1);
    emu_result_free(&r);
}
END_TEST

/* The process latencies of guest/programs/lat.c: one row each, a column per
 * model, the same numbers on every run. */
START_TEST(a_programs_own_metrics_are_a_table)
{
    struct emu_result a, b;
    emu(&a, "compare", program("lat"), "all", "20", NULL);
    ck_assert_msg(a.status == 0, "%s", a.err);
    char *head = line_with(a.out, "metric ");
    ck_assert_msg(head && strstr(head, "pentium4") && strstr(head, "pentium4,-sep") &&
                  strstr(head, "pentium3") && strstr(head, "pentium3,-sep"), "%s", a.out);
    static const char *const names[] = { "lat_pipe ", "lat_fork ", "lat_exec ", "lat_ctx ",
                                         "lat_sig_install ", "lat_sig_catch " };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *row = line_with(a.out, names[i]);
        double v[4];
        ck_assert_msg(row && sscanf(row + strlen(names[i]), " cycles %lf %lf %lf %lf", &v[0],
                                    &v[1], &v[2], &v[3]) == 4, "%s", a.out);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(v[k] > 0, "%s", row);
        free(row);
    }
    free(head);
    /* deterministic: the same program, arguments and models, the same cycles */
    emu(&b, "compare", program("lat"), "all", "20", NULL);
    ck_assert_str_eq(a.out, b.out);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

START_TEST(metric_lines_are_parsed_and_others_ignored)
{
    struct metric m[METRICS_MAX];
    int n = metrics_parse("hello\n@metric lat_x 12.5 cycles\n@metric bad 12x cycles\n"
                          "@metricnot 1 2\n@metric lat_y 7 us\n", m, METRICS_MAX);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(m[0].name, "lat_x");
    ck_assert_str_eq(m[0].unit, "cycles");
    ck_assert(m[0].value == 12.5);
    ck_assert_str_eq(m[1].name, "lat_y");
    ck_assert_str_eq(m[1].unit, "us");
    ck_assert_int_eq(metrics_parse("@metric a 1 x\n@metric b 2 x\n", m, 1), 1);
}
END_TEST

/* The row's figures of model's path/via row: cycles/call, entry, body, exit. */
static void row_figures(const char *out, const char *model, const char *path, const char *via,
                        double v[4])
{
    char prefix[64];
    unsigned long long calls;
    snprintf(prefix, sizeof prefix, "%-16s %-6s %-9s %-7s ", model, "on", path, via);
    char *line = line_with(out, prefix);
    ck_assert_msg(line && sscanf(line + strlen(prefix), "%llu %lf [%*f, %*f] %lf %lf %lf", &calls,
                                 &v[0], &v[1], &v[2], &v[3]) == 5, "no row %s in:\n%s", prefix, out);
    free(line);
}

/* Rule X: the timer's work inside the calls is counted apart, so a run
 * long enough for ticks to land in its calls gives the rows of one too
 * short for any. */
START_TEST(timer_interrupts_inside_calls_are_left_out_of_the_rows)
{
    struct emu_result shortrun, longrun;
    emu(&shortrun, "compare", "--cpus", "pentium4", program("linus_loop"), "getppid", "300",
        NULL);
    emu(&longrun, "compare", "--cpus", "pentium4", program("linus_loop"), "getppid", "20000",
        NULL);
    ck_assert_msg(shortrun.status == 0 && longrun.status == 0, "%s%s", shortrun.err,
                  longrun.err);
    ck_assert_ptr_null(strstr(shortrun.out, "timer interrupts inside"));
    static const char *const ways[][2] = { { "sysenter", "page" }, { "int80", "inline" } };
    for (int w = 0; w < 2; w++) {
        char prefix[96];
        unsigned long long ticks;
        double cycles, a[4], b[4];
        snprintf(prefix, sizeof prefix, "pentium4         on     %-9s %-7s timer interrupts "
                 "inside: ", ways[w][0], ways[w][1]);
        char *line = line_with(longrun.out, prefix);
        ck_assert_msg(line && sscanf(line + strlen(prefix), "%llu, %lf cycles, not counted",
                                     &ticks, &cycles) == 2, "%s", longrun.out);
        ck_assert_msg(ticks > 0 && cycles > 100.0 * (double)ticks, "%s", line);
        free(line);
        row_figures(shortrun.out, "pentium4", ways[w][0], ways[w][1], a);
        row_figures(longrun.out, "pentium4", ways[w][0], ways[w][1], b);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(a[k] == b[k], "%s %s column %d: %.1f with no tick, %.1f with %llu",
                          ways[w][0], ways[w][1], k, a[k], b[k], ticks);
    }
    emu_result_free(&shortrun);
    emu_result_free(&longrun);
}
END_TEST

/* compare --smp N runs each model on N CPUs, as run --smp N does: the row's
 * entry, body and exit are the ones --report gives for that run, and the
 * SMP kernel's entry (it takes the big kernel lock) is not the UP kernel's. */
START_TEST(compare_with_smp_runs_each_model_on_that_many_cpus)
{
    struct emu_result smp, up, rep;
    emu(&smp, "compare", "--smp", "2", "--cpus", "pentium4", program("syscall_loop"), "getpid",
        "1000", NULL);
    emu(&up, "compare", "--cpus", "pentium4", program("syscall_loop"), "getpid", "1000", NULL);
    emu(&rep, "run", "--smp", "2", "--report", "--cpu", "pentium4", program("syscall_loop"),
        "getpid", "1000", NULL);
    ck_assert_msg(smp.status == 0 && up.status == 0 && rep.status == 0, "%s%s%s", smp.err,
                  up.err, rep.err);
    ck_assert_ptr_nonnull(strstr(rep.err, "emu: report: 2 CPUs: "));
    double s[4], u[4], r[3];
    row_figures(smp.out, "pentium4/smp", "sysenter", "page", s);
    row_figures(up.out, "pentium4", "sysenter", "page", u);
    ck_assert_msg(s[1] > u[1], "SMP entry %.1f, UP entry %.1f", s[1], u[1]);
    char *line = line_with(rep.err, "sysenter getpid");
    ck_assert_msg(line && sscanf(line, "%*f %*f %*f %*u %lf %lf %lf", &r[0], &r[1], &r[2]) == 3,
                  "%s", rep.err);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(s[k + 1] == r[k], "column %d: compare %.1f, --report %.1f", k, s[k + 1],
                      r[k]);
    free(line);
    emu_result_free(&smp);
    emu_result_free(&up);
    emu_result_free(&rep);
}
END_TEST

/* Every "[lo, hi]" in text is finite and ordered, and no larger than a
 * call could be. */
static void intervals_are_sane(const char *text)
{
    int n = 0;
    for (const char *p = strchr(text, '['); p; p = strchr(p + 1, '[')) {
        double lo, hi;
        if (sscanf(p, "[%lf, %lf]", &lo, &hi) != 2)
            continue;
        n++;
        ck_assert_msg(isfinite(lo) && isfinite(hi) && lo >= 0 && lo <= hi && hi < 1e6,
                      "interval [%g, %g] in:\n%s", lo, hi, text);
    }
    ck_assert_int_ge(n, 3);
}

/* compare --smp 2: each call's counts are its own CPU's (the idle CPU's
 * timer ticks are no part of them), so the intervals are finite and the
 * ratio is the ratio of the rows it prints. */
START_TEST(compare_with_smp_gives_the_ratio_of_its_own_rows)
{
    struct emu_result r;
    emu(&r, "compare", "--smp", "2", "--cpus", "pentium4;pentium4,-sep", program("syscall_loop"),
        "gettimeofday", "100000", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    intervals_are_sane(r.out);
    double sep[4], nosep[4], ratio, lo, hi;
    row_figures(r.out, "pentium4/smp", "sysenter", "page", sep);
    char prefix[64];
    unsigned long long calls;
    snprintf(prefix, sizeof prefix, "%-16s %-6s %-9s %-7s ", "pentium4,-sep/smp", "off", "int80",
             "page");
    char *line = line_with(r.out, prefix);
    ck_assert_msg(line && sscanf(line + strlen(prefix), "%llu %lf", &calls, &nosep[0]) == 2,
                  "%s", r.out);
    free(line);
    line = line_with(r.out, " of the time [");
    ck_assert_msg(line && sscanf(strstr(line, "= ") + 2, "%lf of the time [%lf, %lf]", &ratio,
                                 &lo, &hi) == 3, "%s", r.out);
    free(line);
    ck_assert_msg(fabs(ratio - sep[0] / nosep[0]) < 0.0006 && lo <= ratio && ratio <= hi,
                  "ratio %.3f [%.3f, %.3f], rows %.1f / %.1f", ratio, lo, hi, sep[0], nosep[0]);
    emu_result_free(&r);
}
END_TEST

/* Under busy's two-process load some getppid calls are switched out at
 * their time slice's end: the row is still getppid's alone, that time
 * summed apart. */
START_TEST(compare_leaves_time_switched_out_apart)
{
    struct emu_result load, alone;
    emu(&load, "compare", "--cpus", "pentium4", program("busy"), "100", NULL);
    emu(&alone, "compare", "--cpus", "pentium4", program("syscall_loop"), "getppid", "1000",
        NULL);
    ck_assert_msg(load.status == 0 && alone.status == 0, "%s%s", load.err, alone.err);
    double a[4], b[4];
    row_figures(load.out, "pentium4", "sysenter", "page", a);
    row_figures(alone.out, "pentium4", "sysenter", "page", b);
    for (int k = 1; k < 4; k++)
        ck_assert_msg(a[k] == b[k], "column %d: %.1f under load, %.1f alone", k, a[k], b[k]);
    ck_assert_ptr_nonnull(strstr(load.out, "switched out inside: "));
    ck_assert_ptr_null(strstr(alone.out, "switched out inside: "));
    emu_result_free(&load);
    emu_result_free(&alone);
}
END_TEST

/* Which image ran, as --report=json names it: the model's -march family
 * under the configuration asked for; --smp 2 the big-lock image. Each runs
 * Linus's loop to its end and prints both figures. */
START_TEST(the_report_names_the_kernel_image_that_ran)
{
    static const char *const cases[][5] = {
        { "pentium4", "up", "1", "pentium4-up", "false" },
        { "pentium4", "smp", "1", "pentium4-smp", "false" },
        { "pentium3", "up", "1", "pentium3-up", "false" },
        { "pentium3", "smp", "1", "pentium3-smp", "false" },
        { "pentiumpro", "up", "1", "i686-up", "false" },
        { "pentiumpro", "smp", "1", "i686-smp", "false" },
        { "pentium4", "smp", "2", "smp-bkl", "true" },
        { "athlon", "up", "1", "athlon-up", "false" },       /* CONFIG_MK7 */
        { "pentium-m", "up", "1", "pentium3-up", "false" },  /* no MPENTIUMM in 2.5.53 */
    };
    const char *const *c = cases[_i];
    const char *json = scratch("kconfig.json");
    struct emu_result r;
    emu(&r, "run", "--cpu", c[0], "--kernel-config", c[1], "--smp", c[2], "--report=json",
        "--report-file", json, program("linus_loop"), "getppid", "1000", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "int $0x80: ") && (strstr(r.out, "call 0xfffff000: ") ||
                                                  !strcmp(c[0], "pentiumpro")), "%s", r.out);
    char *image = jq(".kernel.image", json), *config = jq(".kernel.config", json),
         *lock = jq(".kernel.big_lock", json);
    image[strcspn(image, "\n")] = config[strcspn(config, "\n")] = lock[strcspn(lock, "\n")] = 0;
    ck_assert_str_eq(image, c[3]);
    ck_assert_str_eq(config, c[1]);
    ck_assert_str_eq(lock, c[4]);
    free(image);
    free(config);
    free(lock);
    unlink(json);
    emu_result_free(&r);
}
END_TEST

/* --kernel-configs runs each model under each configuration, labelled;
 * a ratio is between calls of one configuration only. */
START_TEST(kernel_configs_run_each_model_under_each)
{
    struct emu_result r;
    emu(&r, "compare", "--kernel-configs", "up;smp", "--cpus", "pentium4", program("linus_loop"),
        "getppid", "300", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4/up      on     sysenter  page"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4/smp     on     sysenter  page"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4 getppid: sysenter "), 2);
    ck_assert_int_eq(count_lines_containing(r.out, "page calls on pentium4/up; int80: 300 "
                                                   "inline calls on pentium4/up"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "page calls on pentium4/smp; int80: 300 "
                                                   "inline calls on pentium4/smp"), 1);
    emu_result_free(&r);
    /* one configuration alone: labelled unless it is up */
    emu(&r, "compare", "--kernel-config", "smp", "--cpus", "pentium4", program("linus_loop"),
        "getppid", "300", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4/smp     on     sysenter  page"), 1);
    ck_assert_ptr_null(strstr(r.out, "pentium4/up"));
    emu_result_free(&r);
}
END_TEST

/* The body of NAME's calls through sysenter, per call, of a run with the
 * locked class at `locked` cycles. */
static double body_with_locked(const char *kconfig, const char *locked, const char *name)
{
    const char *json = scratch("locked.json");
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium4", "--kernel-config", kconfig, "--cost", locked,
        "--report=json", "--report-file", json, program("linus_loop"), name, "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char filter[160];
    snprintf(filter, sizeof filter, ".syscalls[] | select(.name == \"%s\" and .path == "
             "\"sysenter\") | .body_cycles / .calls", name);
    char *v = jq(filter, json);
    double body = atof(v);
    free(v);
    unlink(json);
    emu_result_free(&r);
    return body;
}

/* CONFIG_SMP puts 2.5.53's locked instructions on the measured paths: the
 * rmb() in getppid (one per call), read_lock's lock subl and read_unlock's
 * lock incl on xtime_lock in gettimeofday (two); the UP kernel has none.
 * Counted by what one more cycle of the locked class adds to a call. */
START_TEST(the_smp_kernel_runs_2_5_53s_locked_instructions_on_the_measured_paths)
{
    static const struct { const char *name; int locked; } calls[] = {
        { "getppid", 1 }, { "gettimeofday", 2 },
    };
    for (int i = 0; i < 2; i++) {
        double smp = body_with_locked("smp", "locked=300", calls[i].name) -
                     body_with_locked("smp", "locked=100", calls[i].name);
        double up = body_with_locked("up", "locked=300", calls[i].name) -
                    body_with_locked("up", "locked=100", calls[i].name);
        ck_assert_msg(smp > 200.0 * calls[i].locked - 0.01 && smp < 200.0 * calls[i].locked + 0.01,
                      "%s: smp %.2f", calls[i].name, smp);
        ck_assert_msg(up > -0.01 && up < 0.01, "%s: up %.2f", calls[i].name, up);
    }
}
END_TEST

/* "V [L, H]" after the first occurrence of key in out */
static void interval_after(const char *out, const char *key, double v[3])
{
    const char *p = strstr(out, key);
    ck_assert_msg(p && sscanf(p + strlen(key), " %lf [%lf, %lf]", &v[0], &v[1], &v[2]) == 3,
                  "no \"%s V [L, H]\" in:\n%s", key, out);
}

/* --article on a model whose configuration the sources leave open: each
 * configuration's figure, then one interval holding both, its value the
 * central configuration's (up until the rule says otherwise). */
START_TEST(the_article_interval_spans_both_configurations)
{
    struct emu_result r;
    emu(&r, "compare", "--article", "--cpus", "pentium4", program("linus_loop"), "gettimeofday",
        "2000", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    static const char *const keys[][3] = {
        { "pentium4/up, span 1 (sysenter, page, 2000 calls):",
          "pentium4/smp, span 1 (sysenter, page, 2000 calls):",
          "pentium4 over the kernel configurations up, smp (central: up), span 1:" },
        { "pentium4/up LT-P4 gettimeofday sysenter / LT-P4 gettimeofday int80:",
          "pentium4/smp LT-P4 gettimeofday sysenter / LT-P4 gettimeofday int80:",
          "pentium4 over the kernel configurations up, smp (central: up) LT-P4 gettimeofday "
          "sysenter / LT-P4 gettimeofday int80:" },
    };
    for (int k = 0; k < 2; k++) {
        double up[3], smp[3], both[3];
        interval_after(r.out, keys[k][0], up);
        interval_after(r.out, keys[k][1], smp);
        interval_after(r.out, keys[k][2], both);
        ck_assert_double_eq(both[0], up[0]);
        ck_assert_msg(both[1] <= up[1] && both[1] <= smp[1] && both[2] >= up[2] &&
                      both[2] >= smp[2], "[%g, %g] does not hold [%g, %g] and [%g, %g]",
                      both[1], both[2], up[1], up[2], smp[1], smp[2]);
    }
    emu_result_free(&r);
}
END_TEST

/* A busy two-process load with a profiling timer: the tick preempts or
 * fires SIGPROF, and a sysenter call it lands in leaves through iret.
 * compare's count is the machine's (--report's); without SEP there are no
 * sysenter calls to count. */
START_TEST(compare_counts_the_sysenter_calls_a_busy_load_sends_through_iret)
{
    struct emu_result c, run;
    /* the time slice's end alone comes once or twice in 150 ms, and whether
     * its tick lands in a call depends on the kernel's code; a 1 ms
     * profiling timer makes every tick a chance */
    emu(&c, "compare", "--cpus", "pentium3;pentium3,-sep", program("busy"), "150", "1000",
        NULL);
    ck_assert_msg(c.status == 0, "%s", c.err);
    ck_assert_ptr_nonnull(strstr(c.out, "sysenter calls (every number) that left through iret"));
    unsigned long long irets = 0, calls = 0;
    const char *p = strstr(strstr(c.out, "left through iret"), "\npentium3         on     ");
    ck_assert_msg(p && sscanf(p + 25, "%llu of %llu (", &irets, &calls) == 2, "%s", c.out);
    ck_assert_ptr_nonnull(strstr(p, "pentium3,-sep    off    no sysenter calls"));

    emu(&run, "run", "--cpu", "pentium3", "--report", program("busy"), "150", "1000", NULL);
    ck_assert_msg(run.status == 0, "%s", run.err);
    char want[96];
    snprintf(want, sizeof want, "sysenter calls that left through iret (work pending): %llu of "
             "%llu\n", irets, calls);
    ck_assert_msg(strstr(run.err, want), "want \"%s\" in:\n%s", want, run.err);
    ck_assert_msg(irets > 0 && irets < calls, "%llu of %llu", irets, calls);
    /* both processes made progress */
    long parent = -1, child = -1;
    char *pl = line_with(run.out, "busy: parent made "), *cl = line_with(run.out, "busy: child made ");
    ck_assert_msg(pl && cl && sscanf(pl, "busy: parent made %ld", &parent) == 1 &&
                  sscanf(cl, "busy: child made %ld", &child) == 1, "%s", run.out);
    ck_assert_msg(parent > 1000 && child > 1000, "%s", run.out);
    free(pl);
    free(cl);
    emu_result_free(&c);
    emu_result_free(&run);
}
END_TEST

START_TEST(a_bad_model_fails_with_its_name)
{
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentium4;pentium9", program("syscall_loop"), "getpid", "10",
        NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "on pentium9: unknown CPU model 'pentium9'"));
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
}
END_TEST

Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("table");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, compare_prints_the_table_and_sysenter_is_faster, 0, 2);
    tcase_add_test(tc, two_models_give_two_rows_and_one_ratio);
    tcase_add_test(tc, the_article_note_names_what_the_model_used);
    tcase_add_test(tc, every_rows_figure_lies_inside_its_interval);
    tcase_add_test(tc, a_program_that_takes_both_paths_gets_a_row_for_each);
    tcase_add_test(tc, the_svg_has_a_bar_per_row_an_axis_and_the_ratio);
    tcase_add_test(tc, the_svg_marks_the_published_figure_a_row_replays);
    tcase_add_test(tc, a_cost_override_prints_a_banner_and_compares_no_published_figure);
    tcase_add_test(tc, sep_reported_but_not_enabled_by_the_kernel_says_unused);
    tcase_add_test(tc, syscall_chooses_the_call_compared);
    tcase_add_test(tc, one_model_and_one_way_says_why_there_is_no_ratio);
    tcase_add_test(tc, a_bad_model_fails_with_its_name);
    tcase_add_test(tc, timer_interrupts_inside_calls_are_left_out_of_the_rows);
    tcase_add_test(tc, compare_with_smp_runs_each_model_on_that_many_cpus);
    tcase_add_test(tc, compare_with_smp_gives_the_ratio_of_its_own_rows);
    tcase_add_test(tc, compare_leaves_time_switched_out_apart);
    tcase_add_loop_test(tc, the_report_names_the_kernel_image_that_ran, 0, 9);
    tcase_add_test(tc, kernel_configs_run_each_model_under_each);
    tcase_add_test(tc, the_smp_kernel_runs_2_5_53s_locked_instructions_on_the_measured_paths);
    tcase_add_test(tc, the_article_interval_spans_both_configurations);
    tcase_add_test(tc, a_programs_own_metrics_are_a_table);
    tcase_add_test(tc, metric_lines_are_parsed_and_others_ignored);
    suite_add_tcase(s, tc);
    /* a quarter of a modeled second of two busy processes, three times:
     * minutes under the sanitizers */
    TCase *load = tcase_create("load");
    tcase_set_timeout(load, 600);
    tcase_add_test(load, compare_counts_the_sysenter_calls_a_busy_load_sends_through_iret);
    suite_add_tcase(s, load);
    return s;
}

int main(void)
{
    return run_suite(compare_suite());
}
