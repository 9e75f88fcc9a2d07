/*
 * emu compare (emu/compare.c): the same program on several models, a row
 * per way its calls went, and a ratio of sysenter to int $0x80 only
 * between calls that went different ways.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

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
        snprintf(want, sizeof want, "%-16s %-4s %-9s %-7s    10000", models[m],
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

START_TEST(two_models_give_two_rows_and_one_ratio)
{
    struct emu_result r;
    emu(&r, "compare", "--cpus", "pentium4;pentium4,-sep", program("syscall_loop"), "getppid",
        "200", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4         on   sysenter  page         200"), 1);
    ck_assert_int_eq(count_lines_containing(r.out, "pentium4,-sep    off  int80     page         200"), 1);
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
    row_cycles(r.out, "pentium4         on   sysenter  page           1", &sysenter, &lo, &hi);
    row_cycles(r.out, "pentium4         on   int80     inline    100000", &int80_inline, &lo,
               &hi);
    row_cycles(r.out, "pentium4,-sep    off  int80     page           1", &int80_page, &lo, &hi);
    row_cycles(r.out, "pentium4,-sep    off  int80     inline    100000", &other, &lo, &hi);
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

START_TEST(the_svg_has_a_bar_per_model)
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
    ck_assert_int_eq(count_lines_containing(svg, ">pentium3,-sep</text>"), 1);
    ck_assert_int_eq(count_lines_containing(svg, ">pentiumpro</text>"), 1);
    /* four parts (entry, body, exit, user) per model, and the legend's four */
    ck_assert_int_eq(count_lines_containing(svg, "<rect "), 3 * 4 + 4);
    free(svg);
    emu_result_free(&r);
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
    tcase_add_test(tc, a_program_that_takes_both_paths_gets_a_row_for_each);
    tcase_add_test(tc, the_svg_has_a_bar_per_model);
    tcase_add_test(tc, a_bad_model_fails_with_its_name);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(compare_suite());
}
