/*
 * The program's own measurements: what ran between each pair of its
 * rdtsc reads (the first and second, the third and fourth, ...), as the
 * 2002 test programs measured themselves. Each span has the instructions
 * executed in it by cost class (so its cycles can be recomputed for any
 * cost vector) and the system calls begun in it, by path and via. Only
 * user-mode reads count (the kernel reads the TSC for gettimeofday). The
 * work of external interrupts (the timer) inside a span is taken out of its
 * cycles and counts and kept apart (rule X of docs/cost-model.md).
 */
#ifndef EMU_SPANS_H
#define EMU_SPANS_H

#include "account/syscalls.h"

#define MAX_TSC_READS 16

struct tsc_read {
    uint64_t cycles;                   /* centicycles before the rdtsc */
    uint64_t counts[NCLASSES];
    uint64_t begun[NPATHS][NVIAS];
    struct ext_work ext;               /* the reading task's, at the read */
};

struct tsc_spans {
    const struct syscall_tracker *sys;
    int nreads;                        /* at most MAX_TSC_READS kept */
    uint64_t reads_seen;
    struct tsc_read reads[MAX_TSC_READS];
};

struct span {
    uint64_t cycles;                   /* centicycles */
    uint64_t counts[NCLASSES];
    uint64_t calls[NPATHS][NVIAS];
    uint64_t ext_ticks, ext_cycles;    /* timer interrupts inside, not counted */
};

int spans_attach(struct tsc_spans *s, struct machine *m, const struct syscall_tracker *t);
/* The number of complete spans. */
int spans_count(const struct tsc_spans *s);
/* Span k (from 1); false if there is none. */
bool span_get(const struct tsc_spans *s, int k, struct span *out);
/* The one way all of a span's calls went: true with path and via set,
 * false if it has none or calls that went different ways. */
bool span_way(const struct span *sp, int *path, int *via, uint64_t *calls);

#endif
