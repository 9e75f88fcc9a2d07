/*
 * emu compare: one program on several CPU models, side by side. A row per
 * way the program's most frequent system call went (path: sysenter or
 * int80; via: the vsyscall page or an inline trap), each with its cycles
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
#include "interval.h"
#include "machine.h"
#include "spans.h"
#include "syscalls.h"

#define DEFAULT_COMPARE_CPUS "pentium4;pentium4,-sep;pentium3;pentium3,-sep"
#define COMPARE_MAX_RUNS 8
#define COMPARE_MAX_ROWS 4
#define COMPARE_MAX_SPANS 8

struct compare_row {
    int path, via;
    uint64_t calls;
    double per_call;              /* cycles, as the caller sees a call */
    struct syscall_stat stat;     /* the kernel's phases, all calls of the path */
    struct measure measure;       /* the counts behind per_call */
};

struct compare_run {
    char spec[64];
    struct cpu_config cpu;
    struct model_point point;
    int status;
    char message[512];
    uint64_t cycles;
    uint32_t nr;                  /* the program's most frequent system call */
    int nrows;
    struct compare_row rows[COMPARE_MAX_ROWS];
    int nspans;
    struct span spans[COMPARE_MAX_SPANS];
    double loop_shape;            /* linus_loop: 0 reg, 1 mem */
};

int compare_main(const struct run_options *base, const char *cpus, bool article,
                 const char *svg_path);

/* compare_article.c: the published figures beside the model's */
void compare_article(const struct compare_run *rs, int n, const struct run_options *base,
                     FILE *f);
/* "0.486 [0.470, 0.520]" style, with the given precision */
void print_interval(FILE *f, const struct interval *iv, int decimals);
void print_movers(FILE *f, const struct mover movers[NMOVERS], int decimals);

#endif
