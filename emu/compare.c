#include "compare.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "run.h"

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
                    const struct syscall_tracker *t, const struct tsc_spans *s)
{
    static const int ways[][2] = { { PATH_SYSENTER, VIA_PAGE }, { PATH_INT80, VIA_PAGE },
                                   { PATH_INT80, VIA_INLINE }, { PATH_SYSENTER, VIA_INLINE } };
    r->cycles = m->cycles;
    r->nr = most_frequent(t);
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        const struct call_row *cr = call_row_of(t, r->nr, ways[w][0], ways[w][1]);
        if (!cr || !cr->calls)
            continue;
        struct compare_row *row = &r->rows[r->nrows++];
        row->path = cr->path;
        row->via = cr->via;
        row->calls = cr->calls;
        row->per_call = (double)cr->cycles / 100.0 / (double)cr->calls;
        row->stat = t->stats[cr->path][r->nr];
        row->measure.table = r->cpu.model->table;
        for (int c = 0; c < NCLASSES; c++)
            row->measure.counts[c] = (double)cr->classes[c] / (double)cr->calls;
    }
    for (int k = 1; k <= spans_count(s) && r->nspans < COMPARE_MAX_SPANS; k++)
        span_get(s, k, &r->spans[r->nspans++]);
    model_point_of(&r->cpu, &r->point);
}

static void run_one(const struct run_options *base, const char *spec, struct compare_run *r)
{
    struct run_options opts = *base;
    opts.cpu_spec = spec;
    opts.quiet = true;
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *t = calloc(1, sizeof *t);
    struct tsc_spans *s = calloc(1, sizeof *s);
    snprintf(r->spec, sizeof r->spec, "%s", spec);
    if (!m || !t || !s) {
        r->status = 125;
        snprintf(r->message, sizeof r->message, "out of memory");
        goto out;
    }
    r->status = machine_init(m, &opts);
    if (r->status == 0 && (syscalls_attach(t, m) || spans_attach(s, m, t)))
        r->status = machine_fail(m, 125, "cannot track system calls");
    if (r->status == 0) {
        r->status = machine_run(m);
        r->cpu = m->cpu;
        collect(r, m, t, s);
    }
    if (r->status != 0)
        snprintf(r->message, sizeof r->message, "%s", m->message);
    machine_destroy(m);
out:
    free(m);
    free(t);
    free(s);
}

static double mean(uint64_t sum, uint64_t n)
{
    return n ? (double)sum / 100.0 / (double)n : 0.0;
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
        fprintf(f, "%s %s %.*f..%.*f", k ? ";" : "", in[movers[k].input].name, decimals,
                movers[k].at_low, decimals, movers[k].at_high);
    fprintf(f, "%s\n", movers[0].input < 0 ? " nothing (every input is fixed)" : "");
}

static void print_table(const struct compare_run *rs, int n, FILE *f)
{
    fprintf(f, "%-16s %-4s %-9s %-7s %8s %12s %-20s %9s %9s %9s %14s\n", "cpu", "SEP", "path",
            "via", "calls", "cycles/call", " [interval]", "entry", "body", "exit",
            "total cycles");
    for (int i = 0; i < n; i++) {
        const struct compare_run *r = &rs[i];
        if (r->nrows == 0)
            fprintf(f, "%-16s %-4s (no system call returned)%56" PRIu64 "\n", r->spec,
                    r->cpu.sep_works ? "on" : "off", r->cycles / 100);
        for (int k = 0; k < r->nrows; k++) {
            const struct compare_row *row = &r->rows[k];
            const struct syscall_stat *s = &row->stat;
            struct interval iv;
            struct mover mv[NMOVERS];
            char bracket[32];
            interval_of(&row->measure, NULL, &r->point, &iv, mv);
            snprintf(bracket, sizeof bracket, "[%.1f, %.1f]", iv.low, iv.high);
            fprintf(f, "%-16s %-4s %-9s %-7s %8" PRIu64 " %12.1f %-20s %9.1f %9.1f %9.1f",
                    r->spec, r->cpu.sep_works ? "on" : "off", sys_path_name(row->path),
                    sys_via_name(row->via), row->calls, row->per_call, bracket,
                    mean(s->entry, s->calls), mean(s->body, s->calls), mean(s->exit, s->calls));
            if (k == 0)
                fprintf(f, " %14" PRIu64, r->cycles / 100);
            fprintf(f, "\n");
        }
    }
}

static const struct compare_row *row_of(const struct compare_run *r, int path, int via)
{
    for (int k = 0; k < r->nrows; k++)
        if (r->rows[k].path == path && r->rows[k].via == via)
            return &r->rows[k];
    return NULL;
}

static void print_ratio(const struct compare_run *fr, const struct compare_row *fast,
                        const struct compare_run *sr, const struct compare_row *slow, FILE *f)
{
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&fast->measure, &slow->measure, &fr->point, &iv, mv);
    fprintf(f, "%s %s: sysenter %.1f / int80 %.1f cycles = %.3f of the time [%.3f, %.3f] "
            "(%.2fx faster)\n", fr->cpu.model->name, syscall_name(fr->nr), fast->per_call,
            slow->per_call, iv.value, iv.low, iv.high, iv.value > 0 ? 1.0 / iv.value : 0);
    fprintf(f, "    sysenter: %" PRIu64 " %s calls on %s; int80: %" PRIu64 " %s calls on %s\n",
            fast->calls, sys_via_name(fast->via), fr->spec, slow->calls,
            sys_via_name(slow->via), sr->spec);
    print_movers(f, mv, 3);
}

/*
 * A ratio only between calls that went different ways: within a run, its
 * sysenter calls through the page against its inline int $0x80 calls (the
 * shape of Linus's test); across a model's run with SEP and one without, the
 * sysenter calls of one against the int80 calls of the other made the same
 * way (both through the page, or both inline).
 */
static void print_ratios(const struct compare_run *rs, int n, FILE *f)
{
    for (int i = 0; i < n; i++) {
        const struct compare_run *fr = &rs[i];
        const struct compare_row *fast = row_of(fr, PATH_SYSENTER, VIA_PAGE);
        const struct compare_row *slow = row_of(fr, PATH_INT80, VIA_INLINE);
        if (fast && slow)
            print_ratio(fr, fast, fr, slow, f);
        for (int j = 0; j < n; j++) {
            const struct compare_run *sr = &rs[j];
            if (sr->cpu.model != fr->cpu.model || sr->nr != fr->nr || j == i)
                continue;
            for (int via = 0; via < NVIAS; via++) {
                fast = row_of(fr, PATH_SYSENTER, via);
                slow = row_of(sr, PATH_INT80, via);
                /* the same calls in both runs: one went by sysenter, one did not */
                if (fast && slow && !row_of(sr, PATH_SYSENTER, via) &&
                    !row_of(fr, PATH_INT80, via))
                    print_ratio(fr, fast, sr, slow, f);
            }
        }
    }
}

static int write_svg(const char *path, const struct compare_run *rs, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    double max = 1;
    int bars = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rs[i].nrows; k++, bars++)
            if (rs[i].rows[k].per_call > max)
                max = rs[i].rows[k].per_call;
    int w = 720, bar = 36, gap = 18, left = 170, top = 50;
    int h = top + bars * (bar + gap) + 60;
    double scale = (w - left - 120) / max;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"13\">\n", w, h);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"16\">cycles per %s call "
            "(entry / body / exit / user)</text>\n", n ? syscall_name(rs[0].nr) : "");
    static const char *colors[4] = { "#d95f02", "#1b9e77", "#7570b3", "#bbbbbb" };
    int y = top;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < rs[i].nrows; k++, y += bar + gap) {
            const struct compare_row *r = &rs[i].rows[k];
            const struct syscall_stat *s = &r->stat;
            double parts[4] = { mean(s->entry, s->calls), mean(s->body, s->calls),
                                mean(s->exit, s->calls), 0 };
            parts[3] = r->per_call - parts[0] - parts[1] - parts[2];
            if (parts[3] < 0)
                parts[3] = 0;
            if (rs[i].nrows == 1)
                fprintf(f, "<text x=\"10\" y=\"%d\">%s</text>\n", y + bar / 2 + 5, rs[i].spec);
            else
                fprintf(f, "<text x=\"10\" y=\"%d\">%s %s/%s</text>\n", y + bar / 2 + 5,
                        rs[i].spec, sys_path_name(r->path), sys_via_name(r->via));
            double x = left;
            for (int p = 0; p < 4; p++) {
                fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                        "fill=\"%s\"/>\n", x, y, parts[p] * scale, bar, colors[p]);
                x += parts[p] * scale;
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n", x + 6, y + bar / 2 + 5,
                    r->per_call);
        }
    }
    static const char *labels[4] = { "entry", "body", "exit", "user (stub)" };
    for (int p = 0; p < 4; p++) {
        int x = left + p * 120, yl = h - 30;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n", x, yl, colors[p], x + 20, yl + 12,
                labels[p]);
    }
    fputs("</svg>\n", f);
    return fclose(f) ? -1 : 0;
}

int compare_main(const struct run_options *base, const char *cpus, bool article,
                 const char *svg_path)
{
    struct compare_run *rs = calloc(COMPARE_MAX_RUNS, sizeof *rs);
    char list[512];
    int n = 0, rc = 0;
    if (!rs)
        return 125;
    snprintf(list, sizeof list, "%s", cpus ? cpus : DEFAULT_COMPARE_CPUS);
    for (char *save = NULL, *spec = strtok_r(list, ";", &save); spec;
         spec = strtok_r(NULL, ";", &save)) {
        if (n == COMPARE_MAX_RUNS) {
            fprintf(stderr, "emu: compare: at most %d models\n", COMPARE_MAX_RUNS);
            rc = 2;
            goto out;
        }
        struct compare_run *r = &rs[n];
        /* linus_loop's third argument is its loop shape */
        r->loop_shape = base->argc > 3 && !strcmp(base->argv[3], "mem") ? 1 : 0;
        run_one(base, spec, r);
        if (r->status != 0) {
            fprintf(stderr, "emu: %s on %s: %s\n", base->program, spec, r->message);
            rc = r->status;
            goto out;
        }
        n++;
    }
    printf("emu compare:");
    for (int i = 0; i < base->argc; i++)
        printf(" %s", base->argv[i]);
    printf("\n\n");
    print_table(rs, n, stdout);
    printf("\ncycles/call: from the call into the vsyscall page to its return (via page), or\n"
           "from the trapping instruction to the return to user mode (via inline), as the\n"
           "caller sees it; [interval]: over the ranges of the cost rows and the calibration\n"
           "figures (docs/cost-model.md); entry: from the trapping instruction to the\n"
           "dispatch call; body: the handler; exit: from the handler's return to user mode.\n"
           "Means over the calls of the program's most frequent system call that went\n"
           "that way.\n\n");
    print_ratios(rs, n, stdout);
    if (article)
        compare_article(rs, n, base, stdout);
    if (svg_path && write_svg(svg_path, rs, n)) {
        fprintf(stderr, "emu: cannot write %s\n", svg_path);
        rc = 2;
    }
out:
    free(rs);
    return rc;
}
