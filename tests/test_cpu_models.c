/* CPU model names, flags, identity and cost tables, and emu --list-cpus. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static int parse(const char *spec, bool no_sep, struct cpu_config *c, char *err)
{
    return cpu_config_parse(spec, no_sep, c, err, 256);
}

START_TEST(models_parse_with_and_without_sep)
{
    struct cpu_config c;
    char err[256];
    ck_assert_int_eq(parse("pentium4", false, &c, err), 0);
    ck_assert(c.sep_reported && c.sep_works);
    ck_assert_int_eq(parse("pentium4,-sep", false, &c, err), 0);
    ck_assert(!c.sep_reported && !c.sep_works);
    ck_assert_int_eq(parse("pentium3", true, &c, err), 0);
    ck_assert(!c.sep_reported && !c.sep_works);
    ck_assert_uint_eq(cpu_features(&c) & CPUID_FEATURE_SEP, 0);
    ck_assert_int_eq(parse("pentiumpro", false, &c, err), 0);
    ck_assert(c.sep_reported && !c.sep_works && c.sep_unsupported);
    ck_assert_uint_eq(c.model->family, 6);
    ck_assert_uint_eq(c.model->model, 1);
    ck_assert_int_eq(parse("pentiumpro,-sep", false, &c, err), 0);
    ck_assert(!c.sep_reported && !c.sep_unsupported);
}
END_TEST

START_TEST(unknown_models_and_flags_are_errors)
{
    struct cpu_config c;
    char err[256];
    ck_assert_int_eq(parse("pentium5", false, &c, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "pentium5"));
    ck_assert_int_eq(parse("pentium4,+avx", false, &c, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "+avx"));
    ck_assert_int_eq(parse("", false, &c, err), -1);
    ck_assert_int_eq(parse("pentiumpro,stepping=16", false, &c, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "stepping=16"));
    ck_assert_int_eq(parse("pentiumpro,stepping=", false, &c, err), -1);
    ck_assert_int_eq(parse("pentiumpro,stepping=9x", false, &c, err), -1);
}
END_TEST

START_TEST(signatures_are_the_real_parts)
{
    struct cpu_config c;
    char err[256];
    parse("pentium4", false, &c, err);
    ck_assert_uint_eq(cpu_signature(&c), 0xf27);  /* Northwood */
    parse("pentium3", false, &c, err);
    ck_assert_uint_eq(cpu_signature(&c), 0x686);  /* Coppermine */
    parse("pentiumpro", false, &c, err);
    ck_assert_uint_eq(cpu_signature(&c), 0x611);  /* the SEP erratum range */
    parse("athlon", false, &c, err);
    ck_assert_uint_eq(cpu_signature(&c), 0x662);  /* Palomino, AF-K7's part */
    ck_assert(c.sep_reported && c.sep_works);
    parse("pentium-m", false, &c, err);
    ck_assert_uint_eq(cpu_signature(&c), 0x695);  /* Banias B1 */
    ck_assert(c.sep_reported && c.sep_works);
    /* Jim Houston's part, which passed Linux 2.5.53's check */
    ck_assert_int_eq(parse("pentiumpro,stepping=9", false, &c, err), 0);
    ck_assert_uint_eq(cpu_signature(&c), 0x619);
    ck_assert(c.sep_reported && c.sep_unsupported && !c.sep_works);
    ck_assert_int_eq(parse("pentiumpro,stepping=9,-sep", false, &c, err), 0);
    ck_assert_uint_eq(cpu_signature(&c), 0x619);
    ck_assert(!c.sep_reported);
}
END_TEST

START_TEST(every_row_has_an_interval_around_its_cost)
{
    struct cost_input in[NINPUTS];
    cost_inputs(in);
    for (int t = 0; t < NTABLES; t++)
        for (int c = 0; c < NCLASSES; c++) {
            int kind = cost_row_kind(t, c);
            const struct cost_input *i = &in[INPUT_ROW(t, c)];
            if (kind == ROW_CALIBRATED || kind == ROW_TIED)
                continue;
            ck_assert_msg(i->low <= i->central && i->central <= i->high && i->high > 0,
                          "%s: %g not in [%g, %g]", i->name, i->central, i->low, i->high);
        }
}
END_TEST

START_TEST(the_ring_crossings_are_calibrated_to_positive_costs)
{
    static const int crossings[] = { CLASS_INT, CLASS_IRET, CLASS_SYSENTER, CLASS_SYSEXIT,
                                     CLASS_EXCEPTION };
    for (int m = 0; m < cpu_model_count; m++) {
        struct cpu_config c;
        char err[128];
        parse(cpu_models[m].name, false, &c, err);
        for (size_t k = 0; k < sizeof crossings / sizeof crossings[0]; k++)
            ck_assert_msg(c.cost[crossings[k]] > 0, "%s: class %s costs nothing",
                          cpu_models[m].name, class_name(crossings[k]));
    }
}
END_TEST

/* --cost TEXT parsed, then applied to c: 0, or -1 with the reason in err. */
static int override(struct cpu_config *c, const char *text, char *err)
{
    struct cost_override o;
    if (cost_override_parse(text, &o, err, 128))
        return -1;
    cpu_cost_override(c, &o);
    return 0;
}

/* --cost on a row: the calibrated crossings are solved again, so the
 * calibration points hold; --cost on a crossing: that one is pinned. */
START_TEST(an_override_recalibrates_unless_it_names_a_calibrated_class)
{
    struct cpu_config base, c;
    char err[128];
    parse("pentium4", false, &base, err);
    parse("pentium4", false, &c, err);
    ck_assert_int_eq(override(&c, "cli=0", err), 0);
    ck_assert_uint_eq(c.cost[CLASS_CLI], 0);
    /* cli is on both exit paths: the crossings absorb it */
    ck_assert_uint_gt(c.cost[CLASS_IRET], base.cost[CLASS_IRET]);
    ck_assert_uint_gt(c.cost[CLASS_SYSEXIT], base.cost[CLASS_SYSEXIT]);
    ck_assert_int_eq(override(&c, "sysexit=100", err), 0);
    ck_assert_uint_eq(c.cost[CLASS_SYSEXIT], 10000);
    ck_assert(c.pinned[CLASS_SYSEXIT] && !c.pinned[CLASS_CLI]);
    ck_assert_int_eq(override(&c, "nosuch=1", err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bad --cost 'nosuch=1'"));
    ck_assert_int_eq(override(&c, "cli=-1", err), -1);
}
END_TEST

/* One rule for --cost's MODEL: a ':' before the '=' ends it, and it must
 * name a model; without one the override is for every model. */
START_TEST(a_cost_override_names_its_model_before_the_class)
{
    static const struct { const char *text; const char *model; int cls; double cycles; } ok[] = {
        { "alu=2", NULL, CLASS_ALU, 2 },
        { "pentium3:sysenter=1181", "pentium3", CLASS_SYSENTER, 1181 },
        { "pentiumpro:cli=0.5", "pentiumpro", CLASS_CLI, 0.5 },
    };
    static const char *const bad[] = {
        "pentium9:alu=1", ":alu=1", "alu:pentium4=1", "alu", "alu=", "alu=1x", "alu=1e7",
        "pentium4:", "pentium4:alu", "=1", "pentium4:pentium3:alu=1",
    };
    char err[128];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct cost_override o;
        ck_assert_msg(!cost_override_parse(ok[i].text, &o, err, sizeof err), "%s", err);
        ck_assert_str_eq(o.text, ok[i].text);
        ck_assert_int_eq(o.cls, ok[i].cls);
        ck_assert_double_eq(o.cycles, ok[i].cycles);
        if (ok[i].model)
            ck_assert_str_eq(o.model->name, ok[i].model);
        else
            ck_assert_ptr_null(o.model);
        for (int m = 0; m < cpu_model_count; m++)
            ck_assert_int_eq(cost_override_applies(&o, &cpu_models[m]),
                             !ok[i].model || !strcmp(cpu_models[m].name, ok[i].model));
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cost_override o;
        ck_assert_msg(cost_override_parse(bad[i], &o, err, sizeof err) == -1, "%s", bad[i]);
        ck_assert_msg(strstr(err, "--cost '") && strchr(err, '\n') == NULL, "%s", err);
    }
}
END_TEST

/* docs/cost-model.md's rows ("| P4 alu | 0.5 | 0.5 | 0.5 | table | ...")
 * are the tables: every class once per table, with its cost, interval and
 * kind; a calibrated or tied row with the value the model solves. */
START_TEST(the_documented_rows_are_the_tables)
{
    char *doc = read_file("docs/cost-model.md");
    ck_assert_ptr_nonnull(doc);
    struct cost_input in[NINPUTS];
    double x[NINPUTS], v[NTABLES][NCLASSES];
    int seen[NTABLES][NCLASSES] = { { 0 } };
    cost_inputs(in);
    cost_central(x);
    for (int t = 0; t < NTABLES; t++)
        cost_eval(x, t, KCONFIG_UP, NULL, v[t]);
    for (char *line = doc; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char table[4], cls[32], cost[16], low[16], high[16], kind[16];
        int t = -1;
        for (int k = 0; k < NTABLES; k++)
            if (!strncmp(line + 2, cost_table_name(k), 2) && line[0] == '|' && line[4] == ' ')
                t = k;
        if (t < 0)
            continue;
        int n = sscanf(line, "| %3s %31s | %15[^ |] | %15[^ |] | %15[^ |] | %15[^ |] |", table,
                       cls, cost, low, high, kind);
        if (n < 4) {
            /* calibrated and tied rows have empty low and high cells */
            n = sscanf(line, "| %3s %31s | %15[^ |] | | | %15[^ |] |", table, cls, cost, kind);
            ck_assert_msg(n == 4, "cannot read: %.80s", line);
            low[0] = high[0] = 0;
        }
        int c = class_by_name(cls);
        ck_assert_msg(c >= 0, "docs: no class %s", cls);
        seen[t][c]++;
        int k = cost_row_kind(t, c);
        ck_assert_msg(!strcmp(kind, cost_kind_name(k)), "docs: %s %s is %s, the table says %s",
                      table, cls, kind, cost_kind_name(k));
        ck_assert_msg(fabs(atof(cost) - v[t][c]) < 0.006, "docs: %s %s costs %s, the model %.3f",
                      table, cls, cost, v[t][c]);
        const char *src = cost_row_source(t, c);
        if (src) {
            /* the source cell: the source as --list-costs prints it */
            const char *end = strchr(line, '\n');
            char *row = strndup(line, end ? (size_t)(end - line) : strlen(line));
            char *cell = strstr(row, src);
            ck_assert_msg(cell && !strcmp(cell + strlen(src), " |"),
                          "docs: %s %s: the source is not \"%s\"", table, cls, src);
            free(row);
        }
        if (k != ROW_CALIBRATED && k != ROW_TIED) {
            const struct cost_input *i = &in[INPUT_ROW(t, c)];
            ck_assert_msg(fabs(atof(low) - i->low) < 0.006 && fabs(atof(high) - i->high) < 0.006,
                          "docs: %s %s is [%s, %s], the table [%g, %g]", table, cls, low, high,
                          i->low, i->high);
        }
    }
    for (int t = 0; t < NTABLES; t++)
        for (int c = 0; c < NCLASSES; c++)
            ck_assert_msg(seen[t][c] == 1, "docs: %s %s appears %d times",
                          cost_table_name(t), class_name(c), seen[t][c]);
    free(doc);
}
END_TEST

START_TEST(list_cpus_gives_the_signatures)
{
    static const char *const want[5][2] = {
        { "pentium4 ", "0x00f27" }, { "pentium3 ", "0x00686" }, { "pentiumpro ", "0x00611" },
        { "athlon ", "0x00662" }, { "pentium-m ", "0x00695" },
    };
    struct emu_result r;
    emu(&r, "--list-cpus", NULL);
    ck_assert_int_eq(r.status, 0);
    for (int i = 0; i < 5; i++) {
        char *line = NULL;
        for (const char *p = r.out; p && *p;) {
            if (!strncmp(p, want[i][0], strlen(want[i][0]))) {
                const char *end = strchr(p, '\n');
                line = strndup(p, end ? (size_t)(end - p) : strlen(p));
                break;
            }
            p = strchr(p, '\n');
            p = p ? p + 1 : NULL;
        }
        ck_assert_msg(line, "no line for %s in: %s", want[i][0], r.out);
        ck_assert_msg(strstr(line, want[i][1]), "%s: want %s", line, want[i][1]);
        free(line);
    }
    emu_result_free(&r);
}
END_TEST

/* The new parts' tables, as --list-costs prints them: every class once,
 * with its kind and a source naming a sheet (AF-K7, AF-PM) or a rule. */
START_TEST(list_costs_gives_each_new_row_a_source)
{
    struct emu_result r;
    emu(&r, "--list-costs", NULL);
    ck_assert_int_eq(r.status, 0);
    for (int t = TABLE_K7; t <= TABLE_PM; t++) {
        char head[8];
        snprintf(head, sizeof head, "\n%s (", cost_table_name(t));
        const char *block = strstr(r.out, head);
        ck_assert_msg(block, "no %s block in: %s", cost_table_name(t), r.out);
        const char *next = strstr(block + 1, "\n\n");
        for (int c = 0; c < NCLASSES; c++) {
            char name[40];
            snprintf(name, sizeof name, "\n%-15s ", class_name(c));
            const char *row = strstr(block, name);
            ck_assert_msg(row && (!next || row < next), "%s: no row %s",
                          cost_table_name(t), class_name(c));
            const char *end = strchr(row + 1, '\n');
            char *line = strndup(row + 1, (size_t)(end - row - 1));
            ck_assert_msg(strstr(line, cost_kind_name(cost_row_kind(t, c))), "%s", line);
            ck_assert_msg(strstr(line, "AF-K7") || strstr(line, "AF-PM") ||
                          strstr(line, "rule "), "no source: %s", line);
            ck_assert_msg(!strstr(line, "calibrated"), "%s", line);
            free(line);
        }
    }
    emu_result_free(&r);
}
END_TEST

Suite *cpu_models_suite(void)
{
    Suite *s = suite_create("cpu_models");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, models_parse_with_and_without_sep);
    tcase_add_test(tc, unknown_models_and_flags_are_errors);
    tcase_add_test(tc, signatures_are_the_real_parts);
    tcase_add_test(tc, every_row_has_an_interval_around_its_cost);
    tcase_add_test(tc, the_ring_crossings_are_calibrated_to_positive_costs);
    tcase_add_test(tc, an_override_recalibrates_unless_it_names_a_calibrated_class);
    tcase_add_test(tc, a_cost_override_names_its_model_before_the_class);
    tcase_add_test(tc, the_documented_rows_are_the_tables);
    tcase_add_test(tc, list_cpus_gives_the_signatures);
    tcase_add_test(tc, list_costs_gives_each_new_row_a_source);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(cpu_models_suite());
}
