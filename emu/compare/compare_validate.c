/*
 * emu compare --validate: lmbench 2.0's latencies as lmbench_validate
 * measures them, beside the era's published lmbench summaries (the
 * PUB_CHECK figures of published.c), as a check of the model: never used
 * to set a cost. Each operation's figure is a weighted sum of the
 * program's rdtsc spans, per operation: the timed loop less what lmbench
 * subtracts from it. docs/validation.md gives the method and the sources.
 */
#include "compare/compare.h"
#include <stdlib.h>
#include <string.h>

struct term {
    int span;         /* from 1 */
    double weight;    /* per operation, of the span's counts over N */
};

struct check_op {
    const char *op, *name, *exercises;
    int nterms;
    struct term terms[3];
    const char *unlike;   /* how the replay differs from lmbench's run, or NULL */
};

#define RING "ring crossings and a small kernel body"
#define HOST_FS "ring crossings, and a file-system request the emulator answers: " \
    "the path walk is host work, not charged; its hypercall's out is"
#define SIGNALS "ring crossings, the signal frame and sigreturn (kernel code)"
#define FAULT "a fault's delivery (rule T: what int costs), the kernel's fault handler " \
    "and a signal"
#define SWITCH "ring crossings, the pipe code and the scheduler; the CR3 load and the " \
    "TLB refills after it, charged by the emulator as an estimate"
#define UNWALKED "the hypercall's out (the io class, an estimate) stands in for Linux's " \
    "path walk, which the model does not run"
#define SMALL_IMAGE "a static program of a few pages (no C library mapped), no " \
    "copy-on-write faults after fork"
#define MM_WORK "work the kernel asks the emulator to do, charged as an estimate: " \
    "clear_page per fresh page, TLB refills; fork's page copies are host work, not charged"

static const struct check_op ops[] = {
    { "null", "null call: getppid(), less the empty loop", RING, 2,
      { { 1, 1 }, { 2, -1 } }, NULL },
    { "io", "null I/O: the mean of a 1-byte read of /dev/zero and a 1-byte write of "
            "/dev/null, less the empty loop", RING, 3,
      { { 1, 0.5 }, { 2, 0.5 }, { 3, -1 } }, NULL },
    { "stat", "stat: stat() of /usr/tmp/lat_fs/lmbench, less the empty loop", HOST_FS,
      2, { { 1, 1 }, { 2, -1 } }, UNWALKED },
    { "open", "open/close: open() and close() of that file, less the empty loop", HOST_FS,
      2, { { 1, 1 }, { 2, -1 } }, UNWALKED },
    { "sigi", "sig inst: sigaction(SIGUSR1), less the empty loop", RING, 2,
      { { 1, 1 }, { 2, -1 } }, NULL },
    { "sigc", "sig hndl: kill(self, SIGUSR1) with a handler, less kill(self, 0)", SIGNALS, 2,
      { { 1, 1 }, { 2, -1 } }, NULL },
    { "prot", "prot fault: a write fault on a read-only mapping, caught, less sig hndl",
      FAULT, 3, { { 3, 1 }, { 1, -1 }, { 2, 1 } }, NULL },
    { "pipe", "pipe: a 1-byte round trip between two processes, less the empty loop", SWITCH,
      2, { { 1, 1 }, { 2, -1 } }, NULL },
    { "ctx", "ctxsw 2p/0K: half a 4-byte token's round trip, less its trip through one "
             "pipe in one process (loops less the empty loop)", SWITCH, 3,
      { { 2, 0.5 }, { 1, -1 }, { 3, 0.5 } }, NULL },
    { "fork", "fork proc: fork, the child exits, the parent waits; less the empty loop",
      MM_WORK, 2, { { 1, 1 }, { 2, -1 } }, SMALL_IMAGE },
    { "exec", "exec proc: fork, the child execs a static hello, the parent waits; less the "
              "empty loop", MM_WORK, 2, { { 1, 1 }, { 2, -1 } },
      SMALL_IMAGE "; lmbench's hello was linked dynamically: each exec also ran ld.so, "
      "which mapped and relocated the C library" },
};

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const struct check_op *op_named(const char *op)
{
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (!strcmp(ops[k].op, op))
            return &ops[k];
    return NULL;
}

static const struct published *figure_for(const char *op, const char *model)
{
    for (int k = 0; k < npublished; k++) {
        const struct published *p = &published[k];
        if (p->role == PUB_CHECK && !strcmp(p->arg, op) && !strcmp(p->model, model))
            return p;
    }
    return NULL;
}

/* The operation's measure on run r: its spans' counts, weighted, over n. */
static bool measure_op(const struct check_op *c, const struct compare_run *r, long n,
                       struct measure *q)
{
    memset(q, 0, sizeof *q);
    q->table = r->cpu.model->table;
    for (int t = 0; t < c->nterms; t++) {
        if (c->terms[t].span > r->nspans)
            return false;
        const struct span *sp = &r->spans[c->terms[t].span - 1];
        for (int k = 0; k < NCLASSES; k++)
            q->counts[k] += c->terms[t].weight * (double)sp->counts[k] / (double)n;
    }
    return true;
}

static const char *verdict(const struct published *p, const struct interval *us, double mhz)
{
    double lo = p->low / mhz, hi = p->high / mhz, v = p->value / mhz;
    if (v >= us->low && v <= us->high)
        return "inside";
    return hi >= us->low && lo <= us->high ? "overlaps" : "outside";
}

static void print_published(const struct published *p, const struct compare_run *r,
                            const struct interval *us, double mhz, FILE *f)
{
    if (!p) {
        fprintf(f, "no figure published\n");
        return;
    }
    fprintf(f, "%.*s [%.5g, %.5g]", (int)strcspn(p->as_printed, " "), p->as_printed,
            p->low / mhz, p->high / mhz);
    if (r->sep_used)
        fprintf(f, " (an int $0x80 figure: not compared)\n");
    else
        fprintf(f, ": %s\n", verdict(p, us, mhz));
}

/* The operation's interval on run r; false (and why, on f) if there is none. */
static bool run_interval(const struct check_op *c, const struct compare_run *r, long n,
                         struct interval *iv, FILE *f)
{
    struct measure q;
    struct mover mv[NMOVERS];
    if (r->modified) {
        fprintf(f, "not compared: --cost modifies this model\n");
        return false;
    }
    if (!measure_op(c, r, n, &q)) {
        fprintf(f, "no figure: the program made %d spans\n", r->nspans);
        return false;
    }
    interval_of(&q, NULL, &r->point, iv, mv);
    return true;
}

/* The rest of a line: cycles [interval], the same in us, the published
 * figure and the verdict. */
static void print_line(const struct check_op *c, const struct compare_run *r,
                       const struct interval *iv, FILE *f)
{
    double mhz = published_check_clock(r->cpu.model->name);
    fprintf(f, "%10.1f [%.1f, %.1f] cycles", iv->value, iv->low, iv->high);
    if (mhz <= 0) {
        fprintf(f, "\n");
        return;
    }
    struct interval us = { iv->value / mhz, iv->low / mhz, iv->high / mhz };
    fprintf(f, " = %.3f [%.3f, %.3f] us at %.0f MHz; published ", us.value, us.low, us.high,
            mhz);
    print_published(figure_for(c->op, r->cpu.model->name), r, &us, mhz, f);
}

static void print_run(const struct check_op *c, const struct compare_run *r, long n, FILE *f)
{
    struct interval iv;
    fprintf(f, "  %-17s %-8s ", r->spec, r->sep_used ? "sysenter" : "int80");
    if (run_interval(c, r, n, &iv, f))
        print_line(c, r, &iv, f);
}

/*
 * Where the rule leaves a model's kernel configuration open (rule K:
 * docs/cost-model.md), one more line for the --cpus entry, labelled with
 * it alone: the interval over every configuration it ran under, the value
 * the central one's. The summary (scripts/validate-summary.awk) reads
 * these lines.
 */
static void print_over_configs(const struct check_op *c, const struct compare_run *rs, int nr,
                               long n, FILE *f)
{
    for (int i = 0; i < nr; i++) {
        struct kconfig_rule rule = cpu_kconfig_rule(rs[i].cpu.model);
        if (!rule.open || rs[i].cpu.kconfig != rule.central || rs[i].modified)
            continue;
        struct interval all, one;
        int runs = 0;
        for (int j = 0; j < nr; j++) {
            struct measure q;
            struct mover mv[NMOVERS];
            if (strcmp(rs[j].cpu_spec, rs[i].cpu_spec) || rs[j].modified ||
                !measure_op(c, &rs[j], n, &q))
                continue;
            interval_of(&q, NULL, &rs[j].point, &one, mv);
            if (runs++ == 0)
                all = one;
            else
                interval_widen(&all, &one);
            if (j == i)
                all.value = one.value;
        }
        if (runs < 2)
            continue;
        fprintf(f, "  %-17s %-8s ", rs[i].cpu_spec, rs[i].sep_used ? "sysenter" : "int80");
        print_line(c, &rs[i], &all, f);
    }
}

static void print_sources(const struct check_op *c, const struct compare_run *rs, int n,
                          FILE *f)
{
    const char *seen[COMPARE_MAX_RUNS];
    int nseen = 0;
    for (int i = 0; i < n; i++) {
        const struct published *p = figure_for(c->op, rs[i].cpu.model->name);
        bool dup = !p;
        for (int k = 0; k < nseen; k++)
            dup = dup || seen[k] == p->source;
        if (!dup) {
            seen[nseen++] = p->source;
            fprintf(f, "  %s: %s\n", p->model, p->source);
        }
    }
}

int compare_validate(const struct compare_run *rs, int n, const struct run_options *base,
                     FILE *f)
{
    const struct check_op *c = base->argc > 1 ? op_named(base->argv[1]) : NULL;
    long ops_n = base->argc > 2 ? atol(base->argv[2]) : 0;
    if (strcmp(basename_of(base->program), "lmbench_validate") || !c || ops_n <= 0) {
        fprintf(stderr, "emu: compare --validate runs lmbench_validate OP N "
                        "(guest/programs/lmbench_validate.c)\n");
        return 2;
    }
    fprintf(f, "%s\n  exercises: %s\n", c->name, c->exercises);
    if (c->unlike)
        fprintf(f, "  unlike lmbench's run: %s\n", c->unlike);
    for (int i = 0; i < n; i++)
        print_run(c, &rs[i], ops_n, f);
    print_over_configs(c, rs, n, ops_n, f);
    print_sources(c, rs, n, f);
    return 0;
}
