/*
 * emu compare: one program on several CPU models, side by side. A row per
 * way the program's most frequent system call went (path: sysenter or
 * int80, or user: the user-space clock of --vgettimeofday, no kernel entry;
 * via: the vsyscall page or an inline trap), each with its cycles
 * per call and their interval; a ratio only between rows whose calls went
 * different ways (within a run, a sysenter row against an inline int80 row,
 * as Linus's test did; across a model's SEP and no-SEP runs, rows of the
 * same via). --article adds the published figures the program replays
 * (compare_article.c).
 */
#ifndef EMU_COMPARE_H
#define EMU_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "cost/centi.h"
#include "compare/interval.h"
#include "cost/published.h"
#include "machine/run_options.h"
#include "observe/metrics.h"
#include "account/spans.h"
#include "account/syscalls.h"

#define DEFAULT_COMPARE_CPUS "pentium4;pentium4,-sep;pentium3;pentium3,-sep"
#define COMPARE_MAX_RUNS 8
#define COMPARE_MAX_ROWS 5
#define COMPARE_MAX_SPANS 8
#define COMPARE_MAX_RATIOS 16

struct compare_options {
    const char *cpus;             /* ';'-separated models; NULL: the default */
    bool article;                 /* the published figures beside the model's */
    bool validate;                /* only lmbench_validate's rows (compare_validate.c) */
    const char *svg;              /* also draw the table here; NULL: no chart */
    int syscall;                  /* the call compared; -1: the most frequent */
    const char *kconfigs;         /* ';'-separated kernel configurations, each
                                     model run under each; NULL: the run
                                     options' one, or with article every one
                                     the rule leaves open (cpu_kconfig_rule) */
};

struct compare_row {
    int path, via;
    uint64_t calls;
    double per_call;              /* cycles, as the caller sees a call */
    struct syscall_stat stat;     /* the kernel's phases, all calls of the path */
    struct measure measure;       /* the counts behind per_call */
    uint64_t ext_ticks, ext_cycles; /* timer interrupts inside, not counted */
};

struct compare_run {
    char spec[64];                /* the model, "/smp" when not only up runs */
    char cpu_spec[64];            /* the model as --cpus gave it */
    struct cpu_config cpu;        /* with its kconfig */
    struct model_point point;
    int status;
    char message[512];
    bool sep_used;                /* the kernel enabled SEP (SYSENTER_CS set) */
    bool modified;                /* a --cost override applies to this model */
    uint64_t cycles;
    uint32_t nr;                  /* the program's most frequent system call */
    uint64_t sysenter_calls;      /* every number's, and of those, the ones */
    uint64_t sysenter_irets;      /* that left through iret (work pending) */
    bool several_processes;       /* more than one process made calls */
    int nrows;
    struct compare_row rows[COMPARE_MAX_ROWS];
    int nspans;
    struct span spans[COMPARE_MAX_SPANS];
    double loop_shape;            /* linus_loop: 0 reg, 1 mem */
    struct metric metrics[METRICS_MAX];   /* what the program reported */
    int nmetrics;
};

int compare_main(const struct run_options *base, const struct compare_options *co);

/* compare_svg.c: the table as a bar chart, with the ratios printed */
int compare_svg(const char *path, const struct compare_run *rs, int n,
                const struct run_options *base, char ratios[][160], int nratios);

/* Mean cycles of a sum of centicycles over n calls. */
static inline double compare_mean(uint64_t sum, uint64_t n)
{
    return n ? centi_to_cycles(sum) / (double)n : 0.0;
}

/* compare_article.c: the published figures beside the model's */
void compare_article(const struct compare_run *rs, int n, const struct run_options *base,
                     FILE *f);
/* compare_validate.c: lmbench_validate OP N's operation on each run beside
 * the PUB_CHECK figures; 2 if the program is not that */
int compare_validate(const struct compare_run *rs, int n, const struct run_options *base,
                     FILE *f);
/* The published figure that row of r replays (same model, program, path
 * and via), unless r's model is modified; NULL if none. */
const struct published *compare_published_for(const struct compare_run *r,
                                              const struct compare_row *row,
                                              const struct run_options *base);
/* "0.486 [0.470, 0.520]" style, with the given precision */
void print_interval(FILE *f, const struct interval *iv, int decimals);
void print_movers(FILE *f, const struct mover movers[NMOVERS], int decimals);

#endif
