/*
 * Numbers a guest program reports about itself: lines
 *   @metric NAME VALUE UNIT
 * on its stdout (guest/programs/lat.c prints lmbench's latencies so).
 * emu compare gathers them from each model's run into one table.
 */
#ifndef EMU_METRICS_H
#define EMU_METRICS_H

#include <stdio.h>

#define METRICS_MAX     16
#define METRIC_NAME_MAX 32

struct metric {
    char name[METRIC_NAME_MAX];
    char unit[METRIC_NAME_MAX];
    double value;
};

/* The metrics of text, in order; how many (at most max). */
int metrics_parse(const char *text, struct metric *out, int max);
/* One row per metric name (in the order of first appearance), one column
 * per run, headed by its model; "-" where a run did not report it.
 * Nothing if no run reported any. */
void metrics_print(FILE *f, const char *const *models, const struct metric *const *runs,
                   const int *counts, int nruns);

#endif
