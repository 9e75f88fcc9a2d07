#include "compare/calibrate.h"
#include <stdlib.h>
#include <string.h>
#include "cpu/run.h"
#include "account/spans.h"

#define MAX_ARGS 8

int calibrate_run(const char *programs_dir, int run, uint64_t n, struct calib_span *out,
                  int max, char *err, size_t errlen)
{
    const struct calib_run *cr = &calib_runs[run];
    char path[512], args[128], count[24];
    char *argv[MAX_ARGS + 1] = { 0 }, *envp[1] = { 0 };
    int argc = 0;
    snprintf(path, sizeof path, "%s/%s", programs_dir, cr->program);
    snprintf(args, sizeof args, "%s", cr->args);
    argv[argc++] = (char *)cr->program;
    for (char *save = NULL, *a = strtok_r(args, " ", &save); a && argc < MAX_ARGS;
         a = strtok_r(NULL, " ", &save))
        argv[argc++] = a;
    if (cr->n_arg >= argc) {
        snprintf(err, errlen, "%s %s: no iteration count", cr->program, cr->args);
        return -1;
    }
    if (n) {
        snprintf(count, sizeof count, "%llu", (unsigned long long)n);
        argv[cr->n_arg] = count;
    }
    uint64_t iterations = strtoull(argv[cr->n_arg], NULL, 10);

    struct run_options opts = {
        .cpu_spec = cr->cpu, .kernel_config = cr->kconfig, .max_insns = 4000000000ull,
        .program = path,
        .argc = argc, .argv = argv, .envp = envp, .quiet = true, .epoch_sec = 1040103547u,
    };
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *t = calloc(1, sizeof *t);
    struct tsc_spans *s = calloc(1, sizeof *s);
    int rc = -1;
    if (!m || !t || !s) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int status = machine_init(m, &opts);
    if (status == 0 && (syscalls_attach_zeroed(t, m) || spans_attach(s, m, t)))
        status = machine_fail(m, 125, "cannot attach the accounting");
    if (status == 0)
        status = machine_run(m);
    if (status != 0) {
        snprintf(err, errlen, "%s %s on %s (%s kernel): exit %d %s", cr->program, cr->args,
                 cr->cpu, kconfig_name(cr->kconfig), status, m->message);
        machine_destroy(m);
        goto out;
    }
    rc = 0;
    for (int k = 1; k <= spans_count(s) && rc < max; k++) {
        struct span sp;
        span_get(s, k, &sp);
        struct calib_span *d = &out[rc++];
        memset(d, 0, sizeof *d);
        d->run = run;
        d->span = k;
        d->iterations = iterations;
        int j = 0;
        for (int c = 0; c < NCLASSES; c++)
            if (sp.counts[c]) {
                d->counts[j].cls = class_name(c);
                d->counts[j++].n = sp.counts[c];
            }
    }
    machine_destroy(m);
out:
    free(m);
    free(t);
    free(s);
    return rc;
}

static void print_span(FILE *out, const struct calib_span *d)
{
    fprintf(out, "    { %d, %d, %llu, {\n", d->run, d->span, (unsigned long long)d->iterations);
    for (int j = 0; j < NCLASSES && d->counts[j].cls; j++)
        fprintf(out, "        { \"%s\", %llu },\n", d->counts[j].cls,
                (unsigned long long)d->counts[j].n);
    fprintf(out, "    } },\n");
}

/* What the new data gives for the calibrated classes, as a comment. */
static void print_solution(FILE *out)
{
    double x[NINPUTS], v[NCLASSES];
    static const int shown[] = { CLASS_INT, CLASS_IRET, CLASS_SYSENTER, CLASS_SYSEXIT };
    cost_central(x);
    for (int kc = 0; kc < NKCONFIGS; kc++)
        for (int t = 0; t < NTABLES; t++) {
            cost_eval(x, t, kc, NULL, v);
            fprintf(out, " * %s, %s kernel:", cost_table_name(t), kconfig_name(kc));
            for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
                fprintf(out, " %s %.2f", class_name(shown[k]), v[shown[k]]);
            fprintf(out, "\n");
        }
}

static uint64_t span_count(const struct calib_span *d, int cls)
{
    for (int k = 0; k < NCLASSES && d->counts[k].cls; k++)
        if (!strcmp(d->counts[k].cls, class_name(cls)))
            return d->counts[k].n;
    return 0;
}

/*
 * The replay's counts in its steady state: every iteration of a loop runs
 * the same path, so two short replays give them for the published count,
 * a + b * N. A long replay also holds the rare call in which the time
 * slice ends (2.5.53's scheduler_tick sets need_resched and the call
 * leaves through schedule() and iret): about one in 10^6, where it lands
 * depending on the kernel's code; it is the timer's, as rule X has it.
 */
enum { STEADY_N1 = 1000, STEADY_N2 = 2000 };

/* The published count: the run's n_arg-th argument. */
static uint64_t calib_run_iterations(int run)
{
    const struct calib_run *cr = &calib_runs[run];
    char args[128];
    int k = 0;
    snprintf(args, sizeof args, "%s", cr->args);
    for (char *save = NULL, *a = strtok_r(args, " ", &save); a; a = strtok_r(NULL, " ", &save))
        if (++k == cr->n_arg)
            return strtoull(a, NULL, 10);
    return 0;
}

static int steady_run(const char *programs_dir, int run, struct calib_span *out, int max,
                      char *err, size_t errlen)
{
    enum { MAX = 8 };
    struct calib_span a[MAX], b[MAX];
    int na = calibrate_run(programs_dir, run, STEADY_N1, a, MAX, err, errlen);
    int nb = calibrate_run(programs_dir, run, STEADY_N2, b, MAX, err, errlen);
    if (na < 0 || nb < 0)
        return -1;
    if (na != nb || na > max) {
        snprintf(err, errlen, "%s %s: %d and %d spans", calib_runs[run].program,
                 calib_runs[run].args, na, nb);
        return -1;
    }
    for (int k = 0; k < na; k++) {
        struct calib_span *d = &out[k];
        uint64_t n = 0;
        memset(d, 0, sizeof *d);
        d->run = run;
        d->span = a[k].span;
        d->iterations = calib_run_iterations(run);
        for (int c = 0; c < NCLASSES; c++) {
            uint64_t ca = span_count(&a[k], c), cb = span_count(&b[k], c);
            if (cb < ca || (cb - ca) % (STEADY_N2 - STEADY_N1)) {
                snprintf(err, errlen, "%s %s span %d: %s is not a + b * N",
                         calib_runs[run].program, calib_runs[run].args, d->span, class_name(c));
                return -1;
            }
            uint64_t per = (cb - ca) / (STEADY_N2 - STEADY_N1), fixed = ca - per * STEADY_N1;
            uint64_t v = fixed + per * d->iterations;
            if (v) {
                d->counts[n].cls = class_name(c);
                d->counts[n++].n = v;
            }
        }
    }
    return na;
}

int calibrate_main(const char *programs_dir, FILE *out)
{
    enum { MAX_SPANS = 32 };
    struct calib_span *spans = calloc(MAX_SPANS, sizeof *spans);
    char err[640];
    int n = 0;
    if (!spans)
        return 125;
    for (int r = 0; r < ncalib_runs; r++) {
        int got = steady_run(programs_dir, r, spans + n, MAX_SPANS - n, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "emu: calibrate: %s\n", err);
            free(spans);
            return 125;
        }
        n += got;
    }
    cost_model_use_data(spans, n);
    fprintf(out, "/* Generated by scripts/calibrate.sh (emu calibrate): do not edit.\n"
                 " * Instruction counts by class of the replayed calibration experiments\n"
                 " * (cost_model.c, calib_runs: each kernel configuration's replays on its\n"
                 " * image), per rdtsc span. With the rows at their\n"
                 " * central values they give, in cycles:\n");
    print_solution(out);
    fprintf(out, " */\nstatic const struct calib_span calib_spans[] = {\n");
    for (int i = 0; i < n; i++)
        print_span(out, &spans[i]);
    fprintf(out, "};\n");
    cost_model_use_data(NULL, 0);
    free(spans);
    return 0;
}
