/*
 * The cycle model as a function of its inputs. Every cost vector the
 * machine charges is computed here from a vector of inputs: the value of
 * each sourced row of each table (cost_tables.h), the published round trips
 * the ring crossings are calibrated on, the shape of Linus's loop (his
 * compiler flags are unknown) and the factor on the P6 sysenter estimate.
 * The calibrated classes are solved for every input vector (published
 * figure minus the modeled rest of the same replayed path), so a row moved
 * to the end of its interval moves the calibrated classes with it.
 * docs/cost-model.md states the rules and the calibration.
 */
#ifndef EMU_COST_MODEL_H
#define EMU_COST_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "cost/cost_classes.h"
#include "image/kconfig.h"

/* P4 and P6 have calibrated crossings; K7 and PM none (every row a
 * table's cell or a declared rule's). */
enum cost_table { TABLE_P4, TABLE_P6, TABLE_K7, TABLE_PM, NTABLES };

/* Where a row's number comes from (docs/cost-model.md, "Kinds"). */
enum row_kind {
    ROW_TABLE,       /* a cell of an instruction table (rules A and B) */
    ROW_MEASURED,    /* a published measurement of the instruction */
    ROW_UOPS,        /* derived from a µop count (rule U) */
    ROW_ESTIMATE,    /* nothing published: an estimate by a stated rule */
    ROW_CALIBRATED,  /* solved from a published round trip */
    ROW_TIED,        /* the value of another class of the table (an assumption) */
};

#define INPUT_ROW(table, cls) ((table) * NCLASSES + (cls))
enum {
    INPUT_PUB_P4_SYSENTER = NTABLES * NCLASSES, /* Linus's 641 */
    INPUT_PUB_P4_INT80,                         /* Linus's 1761 */
    INPUT_PUB_P6_INT80,                         /* lmbench's 0.32 us */
    INPUT_LOOP_SHAPE,       /* 0: Linus's counter in a register, 1: in memory */
    INPUT_P6_PAIR_FACTOR,   /* the P6 sysenter estimate's factor */
    NINPUTS
};

struct cost_input {
    char name[64];
    double central, low, high;
};

/* The inputs with their intervals; an input with low == high is fixed. */
void cost_inputs(struct cost_input in[NINPUTS]);
void cost_central(double x[NINPUTS]);
/*
 * The cost, in cycles, of each class of table t at inputs x. pinned, if
 * not NULL, marks calibrated or tied classes given their value by an
 * override: x's row value is used instead of solving. kconfig (enum
 * kernel_config): the calibration replayed on that kernel's image.
 */
void cost_eval(const double x[NINPUTS], int table, int kconfig, const bool *pinned,
               double out[NCLASSES]);

/* "P4", "P6", "K7", "PM". */
const char *cost_table_name(int table);
/* The source of a row in short (NULL where docs/cost-model.md alone has it). */
const char *cost_row_source(int table, int cls);
/* The row behind a class of a table: its kind, and its interval (a
 * calibrated or tied row has none of its own). */
int cost_row_kind(int table, int cls);
double cost_row_low(int table, int cls);
double cost_row_high(int table, int cls);
/* "table", "measured", "uops", "estimate", "calibrated", "tied". */
const char *cost_kind_name(int kind);

/*
 * The replayed experiments the calibration uses: the instruction counts of
 * a span of a run, per call, from emu/cost/calibration_data.h (written by
 * scripts/calibrate.sh). NULL-safe: without the data, 0.
 */
struct calib_run {
    const char *program;         /* the replay, in build/guest/programs */
    const char *args;            /* its arguments */
    const char *cpu;
    int n_arg;                   /* which of them is the iteration count (from 1) */
    int kconfig;                 /* enum kernel_config: the image it runs on */
};
/* The replays of each configuration, in this order; calib_runs[] is
 * every configuration's, one after the other (calib_run_of). */
enum { CALIB_LINUS_REG, CALIB_LINUS_MEM, CALIB_LMBENCH, NCALIB_KINDS };
extern const struct calib_run calib_runs[];
extern const int ncalib_runs;
/* The index in calib_runs of replay kind under configuration kconfig. */
int calib_run_of(int kconfig, int kind);
/* One span of a calibration run, as emu/cost/calibration_data.h holds it. */
struct calib_span {
    int run, span;
    uint64_t iterations;
    struct { const char *cls; uint64_t n; } counts[NCLASSES];
};
/* Use these spans instead of the compiled-in ones (emu calibrate, to show
 * what new data gives); NULL goes back to the compiled-in data. */
void cost_model_use_data(const struct calib_span *spans, int n);
/* The spans in use (compiled in, or given to cost_model_use_data). */
const struct calib_span *calib_data(int *n);
/* Per-call counts of span (from 1) of calib_runs[run]; false if absent. */
bool calib_counts(int run, int span, double out[NCLASSES]);
/* Per call: Linus's loop with its counter in memory minus in a register
 * (the loop-shape input moves every replay of his loop by this much). */
void loop_shape_delta(int kconfig, double out[NCLASSES]);

#endif
