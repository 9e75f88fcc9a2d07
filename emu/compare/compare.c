#include "compare/compare.h"
#include "cost/centi.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "../guest/x86.h"
#include "engine/engine.h"
#include "machine/names.h"
#include "cpu/run.h"

static uint32_t most_frequent(const struct syscall_tracker *t)
{
    uint64_t best = 0;
    uint32_t nr = 0;
    for (uint32_t i = 0; i < SYSCALL_STATS_MAX; i++) {
        uint64_t calls = t->stats[PATH_INT80][i].calls + t->stats[PATH_SYSENTER][i].calls;
        if (calls > best) {
            best = calls;
            nr = i;
        }
    }
    return nr;
}

static void collect(struct compare_run *r, const struct machine *m,
                    const struct syscall_tracker *t, const struct tsc_spans *s, int want)
{
    static const int ways[][2] = { { PATH_USER, VIA_PAGE }, { PATH_SYSENTER, VIA_PAGE },
                                   { PATH_INT80, VIA_PAGE }, { PATH_INT80, VIA_INLINE },
                                   { PATH_SYSENTER, VIA_INLINE } };
    r->cycles = m->cycles;
    r->nr = want >= 0 ? (uint32_t)want : most_frequent(t);
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        const struct call_row *cr = call_row_of(t, r->nr, ways[w][0], ways[w][1]);
        if (!cr || !cr->calls)
            continue;
        struct compare_row *row = &r->rows[r->nrows++];
        row->path = cr->path;
        row->via = cr->via;
        row->calls = cr->calls;
        row->per_call = centi_to_cycles(cr->cycles) / (double)cr->calls;
        row->ext_ticks = cr->ext_ticks;
        row->ext_cycles = cr->ext_cycles;
        row->stat = t->stats[cr->path][r->nr];
        row->measure.table = r->cpu.model->table;
        for (int c = 0; c < NCLASSES; c++)
            row->measure.counts[c] = (double)cr->classes[c] / (double)cr->calls;
    }
    for (int k = 1; k <= spans_count(s) && r->nspans < COMPARE_MAX_SPANS; k++)
        span_get(s, k, &r->spans[r->nspans++]);
    r->sysenter_calls = t->by_path[PATH_SYSENTER];
    r->sysenter_irets = t->sysenter_irets;
    r->several_processes = t->several_pids;
    model_point_of(&r->cpu, &r->point);
    /* The kernel writes SYSENTER_CS only where it decided to use SEP. */
    r->sep_used = (engine_read_msr(m->uc, MSR_IA32_SYSENTER_CS) & 0xffff) != 0;
}

static void run_one(const struct run_options *base, int kconfig, int want,
                    struct compare_run *r)
{
    struct run_options opts = *base;
    struct output_capture out = { calloc(1, 1 << 16), 0, 1 << 16 };
    opts.cpu_spec = r->cpu_spec;
    opts.kernel_config = kconfig;
    opts.quiet = true;
    opts.capture = out.text ? &out : NULL;
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *t = calloc(1, sizeof *t);
    struct tsc_spans *s = calloc(1, sizeof *s);
    if (!m || !t || !s) {
        r->status = 125;
        snprintf(r->message, sizeof r->message, "out of memory");
        goto out;
    }
    r->status = machine_init(m, &opts);
    if (r->status == 0 && (syscalls_attach_zeroed(t, m) || spans_attach(s, m, t)))
        r->status = machine_fail(m, 125, "cannot track system calls");
    if (r->status == 0) {
        r->status = machine_run(m);
        r->cpu = m->cpu;
        collect(r, m, t, s, want);
    }
    if (r->status != 0)
        snprintf(r->message, sizeof r->message, "%s", m->message);
    if (out.text)
        r->nmetrics = metrics_parse(out.text, r->metrics, METRICS_MAX);
    machine_destroy(m);
out:
    free(out.text);
    free(m);
    free(t);
    free(s);
}

static bool model_modified(const struct run_options *base, const struct cpu_model *model)
{
    for (int c = 0; c < base->ncost_overrides; c++)
        if (cost_override_applies(&base->cost_overrides[c], model))
            return true;
    return false;
}

void print_interval(FILE *f, const struct interval *iv, int decimals)
{
    fprintf(f, "%.*f [%.*f, %.*f]", decimals, iv->value, decimals, iv->low, decimals, iv->high);
}

void print_movers(FILE *f, const struct mover movers[NMOVERS], int decimals)
{
    struct cost_input in[NINPUTS];
    cost_inputs(in);
    fprintf(f, "    moved most by:");
    for (int k = 0; k < NMOVERS && movers[k].input >= 0; k++)
        fprintf(f, "%s %s %.*f..%.*f", k ? ";" : "",
                movers[k].input == MOVER_KCONFIG ? "kernel configuration (up..smp)"
                                                 : in[movers[k].input].name,
                decimals, movers[k].at_low, decimals, movers[k].at_high);
    fprintf(f, "%s\n", movers[0].input < 0 ? " nothing (every input is fixed)" : "");
}

/* on: the kernel uses sysenter; off: CPUID does not report SEP; unused:
 * CPUID reports it and the kernel did not enable it. */
static const char *sep_label(const struct compare_run *r)
{
    return !r->cpu.sep_reported ? "off" : r->sep_used ? "on" : "unused";
}

static void print_table(const struct compare_run *rs, int n, FILE *f)
{
    fprintf(f, "%-16s %-6s %-9s %-7s %8s %12s %-20s %9s %9s %9s %14s\n", "cpu", "SEP", "path",
            "via", "calls", "cycles/call", " [interval]", "entry", "body", "exit",
            "total cycles");
    for (int i = 0; i < n; i++) {
        const struct compare_run *r = &rs[i];
        char none[64];
        if (r->nrows == 0) {
            snprintf(none, sizeof none, "(no %s call returned)", syscall_name(r->nr));
            fprintf(f, "%-16s %-6s %-76s %14" PRIu64 "\n", r->spec, sep_label(r), none,
                    centi_whole(r->cycles));
        }
        for (int k = 0; k < r->nrows; k++) {
            const struct compare_row *row = &r->rows[k];
            const struct syscall_stat *s = &row->stat;
            struct interval iv;
            struct mover mv[NMOVERS];
            char bracket[32];
            interval_of(&row->measure, NULL, &r->point, &iv, mv);
            snprintf(bracket, sizeof bracket, "[%.1f, %.1f]", iv.low, iv.high);
            fprintf(f, "%-16s %-6s %-9s %-7s %8" PRIu64 " %12.1f %-20s", r->spec, sep_label(r),
                    sys_path_name(row->path), sys_via_name(row->via), row->calls,
                    row->per_call, bracket);
            if (row->path == PATH_USER)     /* no kernel entry: no phases */
                fprintf(f, " %9s %9s %9s", "-", "-", "-");
            else
                fprintf(f, " %9.1f %9.1f %9.1f", compare_mean(s->entry, s->calls),
                        compare_mean(s->body, s->calls), compare_mean(s->exit, s->calls));
            if (k == 0)
                fprintf(f, " %14" PRIu64, centi_whole(r->cycles));
            fprintf(f, "\n");
        }
    }
}

/* Rule X (docs/cost-model.md): the timer's work inside the calls, and the
 * time they were switched out (the call made on that path, its record). */
static void print_ticks(const struct compare_run *rs, int n, FILE *f)
{
    bool any = false;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rs[i].nrows; k++) {
            const struct compare_row *row = &rs[i].rows[k];
            if (!row->ext_ticks && !row->stat.switched)
                continue;
            if (!any)
                fprintf(f, "\n");
            any = true;
            fprintf(f, "%-16s %-6s %-9s %-7s ", rs[i].spec, sep_label(&rs[i]),
                    sys_path_name(row->path), sys_via_name(row->via));
            if (row->ext_ticks)
                fprintf(f, "timer interrupts inside: %" PRIu64 ", %.1f cycles, not counted%s",
                        row->ext_ticks, centi_to_cycles(row->ext_cycles),
                        row->stat.switched ? "; " : "\n");
            if (row->stat.switched)
                fprintf(f, "switched out inside: %.1f cycles, not counted\n",
                        centi_to_cycles(row->stat.switched));
        }
}

/* How many sysenter calls found work pending at their exit (a reschedule,
 * a signal) and left through the iret path instead of sysexit: shown when
 * some did, or when several processes ran (where the tick preempts). */
static void print_iret_exits(const struct compare_run *rs, int n, FILE *f)
{
    bool any = false;
    for (int i = 0; i < n; i++)
        any = any || rs[i].sysenter_irets || rs[i].several_processes;
    if (!any)
        return;
    fprintf(f, "\nsysenter calls (every number) that left through iret, work pending at "
               "their exit:\n");
    for (int i = 0; i < n; i++) {
        const struct compare_run *r = &rs[i];
        fprintf(f, "%-16s %-6s ", r->spec, sep_label(r));
        if (!r->sysenter_calls)
            fprintf(f, "no sysenter calls (every call went through int $0x80)\n");
        else
            fprintf(f, "%" PRIu64 " of %" PRIu64 " (%.3g%%)\n", r->sysenter_irets,
                    r->sysenter_calls,
                    100.0 * (double)r->sysenter_irets / (double)r->sysenter_calls);
    }
}

static const struct compare_row *row_of(const struct compare_run *r, int path, int via);

static void print_notes(const struct compare_run *rs, int n, FILE *f)
{
    fprintf(f, "\ncycles/call: from the call into the vsyscall page to its return (via page), or\n"
               "from the trapping instruction to the return to user mode (via inline), as the\n"
               "caller sees it; [interval]: over the ranges of the cost rows and the calibration\n"
               "figures (docs/cost-model.md); entry: from the trapping instruction to the\n"
               "dispatch call; body: the handler; exit: from the handler's return to user mode.\n"
               "Means over the calls of the compared system call that went that way. The work\n"
               "of timer interrupts, from delivery to the return to what they interrupted, is\n"
               "in none of these figures, nor time switched out (docs/cost-model.md, rule X).\n");
    for (int i = 0; i < n; i++)
        if (row_of(&rs[i], PATH_USER, VIA_PAGE)) {
            fprintf(f, "path user: the user-space clock of --vgettimeofday (the vDSO's "
                       "__vdso_gettimeofday),\nfrom the call to its return, no kernel "
                       "entry; its own calls that fell back to\nthe system call are in the "
                       "page rows.\n");
            break;
        }
    for (int i = 0; i < n; i++)
        if (!strcmp(sep_label(&rs[i]), "unused")) {
            fprintf(f, "SEP unused: CPUID reports SEP, but the kernel did not enable it "
                       "(Linux 2.5.53\nignores SEP on family 6, model < 3, stepping < 3: "
                       "the Pentium Pro).\n");
            break;
        }
    fprintf(f, "\n");
}

static const struct compare_row *row_of(const struct compare_run *r, int path, int via)
{
    for (int k = 0; k < r->nrows; k++)
        if (r->rows[k].path == path && r->rows[k].via == via)
            return &r->rows[k];
    return NULL;
}

struct ratios {
    char text[COMPARE_MAX_RATIOS][160];
    int n;
};

static void print_ratio(const struct compare_run *fr, const struct compare_row *fast,
                        const struct compare_run *sr, const struct compare_row *slow,
                        struct ratios *out, FILE *f)
{
    struct interval iv;
    struct mover mv[NMOVERS];
    char line[160];
    interval_of(&fast->measure, &slow->measure, &fr->point, &iv, mv);
    snprintf(line, sizeof line, "%s %s: sysenter %.1f / int80 %.1f cycles = %.3f of the time "
             "[%.3f, %.3f] (%.2fx faster)", fr->cpu.model->name, syscall_name(fr->nr),
             fast->per_call, slow->per_call, iv.value, iv.low, iv.high,
             iv.value > 0 ? 1.0 / iv.value : 0);
    fprintf(f, "%s\n", line);
    if (out->n < COMPARE_MAX_RATIOS)
        snprintf(out->text[out->n++], sizeof out->text[0], "%s", line);
    fprintf(f, "    sysenter: %" PRIu64 " %s calls on %s; int80: %" PRIu64 " %s calls on %s\n",
            fast->calls, sys_via_name(fast->via), fr->spec, slow->calls,
            sys_via_name(slow->via), sr->spec);
    print_movers(f, mv, 3);
}

/* The user-space clock against each way into the kernel in the same run. */
static void print_user_ratios(const struct compare_run *rs, int n, struct ratios *out, FILE *f)
{
    for (int i = 0; i < n; i++) {
        const struct compare_run *r = &rs[i];
        const struct compare_row *user = row_of(r, PATH_USER, VIA_PAGE);
        for (int k = 0; user && k < r->nrows; k++) {
            const struct compare_row *slow = &r->rows[k];
            struct interval iv;
            struct mover mv[NMOVERS];
            char line[160];
            if (slow->path == PATH_USER)
                continue;
            interval_of(&user->measure, &slow->measure, &r->point, &iv, mv);
            snprintf(line, sizeof line, "%s %s: user space %.1f / %s %s %.1f cycles = %.3f of "
                     "the time [%.3f, %.3f] (%.2fx faster)", r->spec, syscall_name(r->nr),
                     user->per_call, sys_path_name(slow->path), sys_via_name(slow->via),
                     slow->per_call, iv.value, iv.low, iv.high,
                     iv.value > 0 ? 1.0 / iv.value : 0);
            fprintf(f, "%s\n", line);
            if (out->n < COMPARE_MAX_RATIOS)
                snprintf(out->text[out->n++], sizeof out->text[0], "%s", line);
            print_movers(f, mv, 3);
        }
    }
}

/*
 * A ratio only between calls that went different ways: within a run, its
 * sysenter calls through the page against its inline int $0x80 calls (the
 * shape of Linus's test); across a model's run with SEP and one without, the
 * sysenter calls of one against the int80 calls of the other made the same
 * way (both through the page, or both inline).
 */
static void print_ratios(const struct compare_run *rs, int n, struct ratios *out, FILE *f)
{
    for (int i = 0; i < n; i++) {
        const struct compare_run *fr = &rs[i];
        const struct compare_row *fast = row_of(fr, PATH_SYSENTER, VIA_PAGE);
        const struct compare_row *slow = row_of(fr, PATH_INT80, VIA_INLINE);
        if (fast && slow)
            print_ratio(fr, fast, fr, slow, out, f);
        for (int j = 0; j < n; j++) {
            const struct compare_run *sr = &rs[j];
            if (sr->cpu.model != fr->cpu.model || sr->cpu.kconfig != fr->cpu.kconfig ||
                sr->nr != fr->nr || j == i)
                continue;
            for (int via = 0; via < NVIAS; via++) {
                fast = row_of(fr, PATH_SYSENTER, via);
                slow = row_of(sr, PATH_INT80, via);
                /* the same calls in both runs: one went by sysenter, one did not */
                if (fast && slow && !row_of(sr, PATH_SYSENTER, via) &&
                    !row_of(fr, PATH_INT80, via))
                    print_ratio(fr, fast, sr, slow, out, f);
            }
        }
    }
    print_user_ratios(rs, n, out, f);
    if (out->n == 0 && n > 0)
        fprintf(f, "no ratio: on each model the %s calls went one way only; a ratio needs a\n"
                   "model's sysenter calls beside int80 calls of the same model (add it without\n"
                   "SEP: --cpus '%s;%s,-sep')\n", syscall_name(rs[0].nr),
                rs[0].cpu.model->name, rs[0].cpu.model->name);
}

static void print_banner(const struct run_options *base, FILE *f)
{
    if (base->ncost_overrides == 0)
        return;
    fprintf(f, "costs overridden:");
    for (int c = 0; c < base->ncost_overrides; c++)
        fprintf(f, " %s", base->cost_overrides[c].text);
    fprintf(f, "\nthis is a modified model, not the sourced one (docs/cost-model.md); its "
               "figures are\nnot compared with published ones.\n\n");
}

/* The configurations spec's model runs under (a bit set, 1 << config). */
static int kconfigs_of(const struct run_options *base, const struct compare_options *co,
                       const char *spec)
{
    struct cpu_config c;
    char err[160];
    if (base->smp > 1)
        return 1 << KCONFIG_SMP;
    if (base->kernel_history != KHIST_SEED)    /* the later steps: up only */
        return 1 << KCONFIG_UP;
    if (co->kconfigs)
        return kconfig_parse_list(co->kconfigs);
    if ((!co->article && !co->validate) || cpu_config_parse(spec, false, &c, err, sizeof err))
        return 1 << base->kernel_config;
    struct kconfig_rule rule = cpu_kconfig_rule(c.model);
    return rule.open ? (1 << NKCONFIGS) - 1 : 1 << rule.central;
}

/* The runs: each model of --cpus under each of its configurations,
 * labelled with the configuration unless every run is up's. */
static int plan_runs(const struct run_options *base, const struct compare_options *co,
                     struct compare_run *rs, int *n)
{
    char list[512];
    bool only_up = true;
    snprintf(list, sizeof list, "%s", co->cpus ? co->cpus : DEFAULT_COMPARE_CPUS);
    for (char *save = NULL, *spec = strtok_r(list, ";", &save); spec;
         spec = strtok_r(NULL, ";", &save)) {
        int set = kconfigs_of(base, co, spec);
        for (int k = 0; k < NKCONFIGS; k++) {
            if (!(set & (1 << k)))
                continue;
            if (*n == COMPARE_MAX_RUNS) {
                fprintf(stderr, "emu: compare: at most %d runs (models times kernel "
                        "configurations)\n", COMPARE_MAX_RUNS);
                return 2;
            }
            snprintf(rs[*n].cpu_spec, sizeof rs[*n].cpu_spec, "%s", spec);
            rs[*n].cpu.kconfig = k;
            only_up = only_up && k == KCONFIG_UP;
            (*n)++;
        }
    }
    for (int i = 0; i < *n; i++)
        snprintf(rs[i].spec, sizeof rs[i].spec, only_up ? "%s" : "%s/%s", rs[i].cpu_spec,
                 kconfig_name(rs[i].cpu.kconfig));
    return 0;
}

static int run_all(const struct run_options *base, const struct compare_options *co,
                   struct compare_run *rs, int *n)
{
    int rc = plan_runs(base, co, rs, n);
    for (int i = 0; !rc && i < *n; i++) {
        struct compare_run *r = &rs[i];
        /* linus_loop's third argument is its loop shape */
        r->loop_shape = base->argc > 3 && !strcmp(base->argv[3], "mem") ? 1 : 0;
        run_one(base, r->cpu.kconfig, co->syscall, r);
        if (r->status != 0) {
            fprintf(stderr, "emu: %s on %s: %s\n", base->program, r->spec, r->message);
            return r->status;
        }
        r->modified = model_modified(base, r->cpu.model);
    }
    return rc;
}

int compare_main(const struct run_options *base, const struct compare_options *co)
{
    struct compare_run *rs = calloc(COMPARE_MAX_RUNS, sizeof *rs);
    struct ratios *ratios = calloc(1, sizeof *ratios);
    int n = 0, rc = 0;
    if (!rs || !ratios) {
        rc = 125;
        goto out;
    }
    rc = run_all(base, co, rs, &n);
    if (rc)
        goto out;
    printf("emu compare:");
    for (int i = 0; i < base->argc; i++)
        printf(" %s", base->argv[i]);
    printf("\n\n");
    print_banner(base, stdout);
    if (co->validate) {
        rc = compare_validate(rs, n, base, stdout);
        goto out;
    }
    print_table(rs, n, stdout);
    print_ticks(rs, n, stdout);
    print_iret_exits(rs, n, stdout);
    print_notes(rs, n, stdout);
    print_ratios(rs, n, ratios, stdout);
    const char *models[COMPARE_MAX_RUNS];
    const struct metric *metrics[COMPARE_MAX_RUNS];
    int counts[COMPARE_MAX_RUNS];
    for (int i = 0; i < n; i++) {
        models[i] = rs[i].spec;
        metrics[i] = rs[i].metrics;
        counts[i] = rs[i].nmetrics;
    }
    metrics_print(stdout, models, metrics, counts, n);
    if (co->article)
        compare_article(rs, n, base, stdout);
    if (co->svg && compare_svg(co->svg, rs, n, base, ratios->text, ratios->n)) {
        fprintf(stderr, "emu: cannot write %s\n", co->svg);
        rc = 2;
    }
out:
    free(rs);
    free(ratios);
    return rc;
}
