#include "cost/cost_model.h"
#include <stdio.h>
#include <string.h>
#include "cost/published.h"
#include "cost/cost_tables.h"
#include "cost/calibration_data.h"

#define CALIB_RUNS(config) \
    { "linus_loop", "getppid 1000000 reg", "pentium4", 2, config }, \
    { "linus_loop", "getppid 1000000 mem", "pentium4", 2, config }, \
    { "lmbench_null", "1000000", "pentium3,-sep", 1, config },
const struct calib_run calib_runs[] = { CALIB_RUNS(KCONFIG_UP) CALIB_RUNS(KCONFIG_SMP) };
#undef CALIB_RUNS
const int ncalib_runs = sizeof calib_runs / sizeof calib_runs[0];
_Static_assert(sizeof calib_runs / sizeof calib_runs[0] == NKCONFIGS * NCALIB_KINDS,
               "one set of replays per kernel configuration");

int calib_run_of(int kconfig, int kind)
{
    return kconfig * NCALIB_KINDS + kind;
}

static const struct cost_row *const tables[NTABLES] = { rows_pentium4, rows_p6, rows_k7,
                                                        rows_pm };
static const char *const class_names[NCLASSES] = {
#define X(id, name, what) name,
    COST_CLASSES(X)
#undef X
};

const char *cost_table_name(int table)
{
    static const char *const names[NTABLES] = { "P4", "P6", "K7", "PM" };
    return table >= 0 && table < NTABLES ? names[table] : "?";
}

const char *cost_row_source(int table, int cls)
{
    return tables[table][cls].src;
}

int cost_row_kind(int table, int cls)
{
    return tables[table][cls].kind;
}

double cost_row_low(int table, int cls)
{
    return tables[table][cls].low;
}

double cost_row_high(int table, int cls)
{
    return tables[table][cls].high;
}

const char *cost_kind_name(int kind)
{
    static const char *const names[] = { "table", "measured", "uops", "estimate",
                                         "calibrated", "tied" };
    return kind >= 0 && kind <= ROW_TIED ? names[kind] : "?";
}

static bool is_input_row(const struct cost_row *r)
{
    return r->kind != ROW_CALIBRATED && r->kind != ROW_TIED;
}

void cost_inputs(struct cost_input in[NINPUTS])
{
    memset(in, 0, sizeof(struct cost_input) * NINPUTS);
    for (int t = 0; t < NTABLES; t++)
        for (int c = 0; c < NCLASSES; c++) {
            struct cost_input *i = &in[INPUT_ROW(t, c)];
            const struct cost_row *r = &tables[t][c];
            snprintf(i->name, sizeof i->name, "%s %s", cost_table_name(t), class_names[c]);
            if (is_input_row(r)) {
                i->central = r->cost;
                i->low = r->low;
                i->high = r->high;
            }
        }
    static const char *const pubs[] = { "LT-P4 getppid sysenter", "LT-P4 getppid int80",
                                        "lmbench P6 null call int80" };
    for (int p = 0; p < 3; p++) {
        const struct published *f = published_find(pubs[p]);
        struct cost_input *i = &in[INPUT_PUB_P4_SYSENTER + p];
        snprintf(i->name, sizeof i->name, "%s %s", f->id, f->as_printed);
        i->central = f->value;
        i->low = f->low;
        i->high = f->high;
    }
    in[INPUT_LOOP_SHAPE] = (struct cost_input){ "Linus's loop counter (register..memory)",
                                                0, 0, 1 };
    in[INPUT_P6_PAIR_FACTOR] = (struct cost_input){ "P6 sysenter+sysexit estimate factor",
                                                    1, 0.5, 2 };
}

void cost_central(double x[NINPUTS])
{
    struct cost_input in[NINPUTS];
    cost_inputs(in);
    for (int i = 0; i < NINPUTS; i++)
        x[i] = in[i].central;
}

/* ---- the replayed experiments ---- */

static int class_index(const char *name)
{
    for (int c = 0; c < NCLASSES; c++)
        if (!strcmp(class_names[c], name))
            return c;
    return -1;
}

static const struct calib_span *data = calib_spans;
static int ndata = sizeof calib_spans / sizeof calib_spans[0];

void cost_model_use_data(const struct calib_span *spans, int n)
{
    data = spans ? spans : calib_spans;
    ndata = spans ? n : (int)(sizeof calib_spans / sizeof calib_spans[0]);
}

const struct calib_span *calib_data(int *n)
{
    *n = ndata;
    return data;
}

bool calib_counts(int run, int span, double out[NCLASSES])
{
    memset(out, 0, sizeof(double) * NCLASSES);
    for (int s = 0; s < ndata; s++) {
        const struct calib_span *d = &data[s];
        if (d->run != run || d->span != span || d->iterations == 0)
            continue;
        for (int k = 0; k < NCLASSES && d->counts[k].cls; k++) {
            int c = class_index(d->counts[k].cls);
            if (c >= 0)
                out[c] = (double)d->counts[k].n / (double)d->iterations;
        }
        return true;
    }
    return false;
}

void loop_shape_delta(int kconfig, double out[NCLASSES])
{
    double reg[NCLASSES], mem[NCLASSES];
    calib_counts(calib_run_of(kconfig, CALIB_LINUS_REG), 1, reg);
    calib_counts(calib_run_of(kconfig, CALIB_LINUS_MEM), 1, mem);
    for (int c = 0; c < NCLASSES; c++)
        out[c] = mem[c] - reg[c];
}

/* Linus's loop, span 1 (sysenter) or 2 (int80), in the shape of x. */
static void linus_counts(const double x[NINPUTS], int kconfig, int span, double out[NCLASSES])
{
    double reg[NCLASSES], mem[NCLASSES];
    calib_counts(calib_run_of(kconfig, CALIB_LINUS_REG), span, reg);
    calib_counts(calib_run_of(kconfig, CALIB_LINUS_MEM), span, mem);
    double s = x[INPUT_LOOP_SHAPE];
    for (int c = 0; c < NCLASSES; c++)
        out[c] = (1 - s) * reg[c] + s * mem[c];
}

/* What the model charges for counts n except the classes in skip. */
static double rest(const double n[NCLASSES], const double v[NCLASSES], const bool skip[NCLASSES])
{
    double sum = 0;
    for (int c = 0; c < NCLASSES; c++)
        if (!skip[c])
            sum += n[c] * v[c];
    return sum;
}

static double solve_share(double published, double rest, double n)
{
    return n > 0 ? (published - rest) / n : 0;
}

/* The rows of table t at x, the tied ones from what they name. */
static void rows_at(const double x[NINPUTS], int t, double v[NCLASSES])
{
    for (int c = 0; c < NCLASSES; c++)
        v[c] = is_input_row(&tables[t][c]) ? x[INPUT_ROW(t, c)] : 0;
}

static void tie(int t, double v[NCLASSES], const bool *pinned)
{
    for (int c = 0; c < NCLASSES; c++)
        if (tables[t][c].kind == ROW_TIED && !(pinned && pinned[c]))
            v[c] = v[tables[t][c].tie];
}

/*
 * P4: Linus's getppid through the vsyscall page (sysenter, split half and
 * half with sysexit) and with an inline int $0x80 (iret, INT being a
 * table row).
 */
static void solve_p4(const double x[NINPUTS], int kconfig, double v[NCLASSES],
                     const bool *pinned)
{
    double n[NCLASSES];
    bool skip[NCLASSES] = { false };
    rows_at(x, TABLE_P4, v);
    tie(TABLE_P4, v, pinned);
    linus_counts(x, kconfig, 1, n);
    skip[CLASS_SYSENTER] = skip[CLASS_SYSEXIT] = true;
    double share = solve_share(x[INPUT_PUB_P4_SYSENTER], rest(n, v, skip),
                               n[CLASS_SYSENTER] + n[CLASS_SYSEXIT]);
    linus_counts(x, kconfig, 2, n);
    memset(skip, 0, sizeof skip);
    skip[CLASS_IRET] = true;
    double iret = solve_share(x[INPUT_PUB_P4_INT80], rest(n, v, skip), n[CLASS_IRET]);
    if (!(pinned && pinned[CLASS_SYSENTER]))
        v[CLASS_SYSENTER] = share;
    if (!(pinned && pinned[CLASS_SYSEXIT]))
        v[CLASS_SYSEXIT] = share;
    if (!(pinned && pinned[CLASS_IRET]))
        v[CLASS_IRET] = iret;
    tie(TABLE_P4, v, pinned);
}

/*
 * P6: lmbench's null call (int + iret, split in the P4's proportion), and
 * the sysenter pair by the estimate rule: the P4's pair scaled by the ratio
 * of the two cores' int + iret pairs.
 */
static void solve_p6(const double x[NINPUTS], int kconfig, double v[NCLASSES],
                     const bool *pinned)
{
    double p4[NCLASSES], body[NCLASSES], loop[NCLASSES], n[NCLASSES];
    bool skip[NCLASSES] = { false };
    solve_p4(x, kconfig, p4, NULL);
    rows_at(x, TABLE_P6, v);
    calib_counts(calib_run_of(kconfig, CALIB_LMBENCH), 1, body);
    calib_counts(calib_run_of(kconfig, CALIB_LMBENCH), 2, loop);
    for (int c = 0; c < NCLASSES; c++)
        n[c] = body[c] - loop[c];
    skip[CLASS_INT] = skip[CLASS_IRET] = skip[CLASS_INT_SAME] = skip[CLASS_EXCEPTION] = true;
    double p4_gate = p4[CLASS_INT] + p4[CLASS_IRET];
    double share = p4_gate > 0 ? p4[CLASS_INT] / p4_gate : 0.5;
    double gate = solve_share(x[INPUT_PUB_P6_INT80], rest(n, v, skip),
                              n[CLASS_INT] * share + n[CLASS_IRET] * (1 - share));
    double pair = p4_gate > 0 ? x[INPUT_P6_PAIR_FACTOR] *
                  (p4[CLASS_SYSENTER] + p4[CLASS_SYSEXIT]) * gate / p4_gate : 0;
    if (!(pinned && pinned[CLASS_INT]))
        v[CLASS_INT] = gate * share;
    if (!(pinned && pinned[CLASS_IRET]))
        v[CLASS_IRET] = gate * (1 - share);
    if (!(pinned && pinned[CLASS_SYSENTER]))
        v[CLASS_SYSENTER] = pair / 2;
    if (!(pinned && pinned[CLASS_SYSEXIT]))
        v[CLASS_SYSEXIT] = pair / 2;
    tie(TABLE_P6, v, pinned);
}

/* A table with nothing calibrated: its rows at x, the tied ones from what
 * they name. */
static void rows_only(const double x[NINPUTS], int t, double v[NCLASSES], const bool *pinned)
{
    rows_at(x, t, v);
    tie(t, v, pinned);
}

void cost_eval(const double x[NINPUTS], int table, int kconfig, const bool *pinned,
               double out[NCLASSES])
{
    if (table == TABLE_P4)
        solve_p4(x, kconfig, out, pinned);
    else if (table == TABLE_P6)
        solve_p6(x, kconfig, out, pinned);
    else
        rows_only(x, table, out, pinned);
    if (pinned)
        for (int c = 0; c < NCLASSES; c++)
            if (pinned[c] && !is_input_row(&tables[table][c]))
                out[c] = x[INPUT_ROW(table, c)];
}
