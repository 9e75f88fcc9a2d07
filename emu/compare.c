#include "compare.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "names.h"
#include "run.h"
#include "syscall_nr.h"

#define MAX_RUNS 8

struct run_result {
    char spec[64];
    struct cpu_config cpu;
    int status;
    char message[512];
    uint64_t cycles, insns, sysenter, int80, sysexits, irets, vsyscall_calls;
    uint32_t nr;               /* the program's most frequent system call */
    struct syscall_stat stat;  /* of nr, on the path it took */
    double per_call;           /* cycles per call of nr, as the caller sees it */
    const char *path;
    struct metric metrics[METRICS_MAX];   /* what the program reported */
    int nmetrics;
};

static uint32_t most_frequent(const struct syscall_tracker *t, int *path)
{
    uint64_t best = 0;
    uint32_t nr = 0;
    *path = PATH_INT80;
    for (int p = 0; p < PATH_TRAP; p++)
        for (uint32_t i = 0; i < SYSCALL_STATS_MAX; i++)
            if (t->stats[p][i].calls > best) {
                best = t->stats[p][i].calls;
                nr = i;
                *path = p;
            }
    return nr;
}

static void collect(struct run_result *r, const struct machine *m,
                    const struct syscall_tracker *t)
{
    int path;
    r->cycles = m->cycles;
    r->insns = m->insns;
    r->sysenter = t->by_path[PATH_SYSENTER];
    r->int80 = t->by_path[PATH_INT80];
    r->sysexits = t->returns_sysexit;
    r->irets = t->returns_iret;
    r->vsyscall_calls = t->vsyscall_calls;
    r->nr = most_frequent(t, &path);
    r->path = path == PATH_SYSENTER ? "sysenter" : "int80";
    r->stat = t->stats[path][r->nr];
    /* Through the vsyscall page, a call costs from the call instruction to
     * the return; otherwise from the trapping instruction to user mode. */
    if (t->vsyscall_by_nr[r->nr].calls)
        r->per_call = (double)t->vsyscall_by_nr[r->nr].cycles / 100.0 /
                      (double)t->vsyscall_by_nr[r->nr].calls;
    else if (r->stat.calls)
        r->per_call = (double)r->stat.total / 100.0 / (double)r->stat.calls;
}

static void run_one(const struct run_options *base, const char *spec, struct run_result *r)
{
    struct run_options opts = *base;
    struct output_capture out = { calloc(1, 1 << 16), 0, 1 << 16 };
    opts.cpu_spec = spec;
    opts.quiet = true;
    opts.capture = out.text ? &out : NULL;
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *t = calloc(1, sizeof *t);
    snprintf(r->spec, sizeof r->spec, "%s", spec);
    if (!m || !t) {
        r->status = 125;
        snprintf(r->message, sizeof r->message, "out of memory");
        free(m);
        free(t);
        return;
    }
    r->status = machine_init(m, &opts);
    if (r->status == 0 && syscalls_attach(t, m))
        r->status = machine_fail(m, 125, "cannot track system calls");
    if (r->status == 0) {
        r->status = machine_run(m);
        r->cpu = m->cpu;
        collect(r, m, t);
    }
    if (r->status != 0)
        snprintf(r->message, sizeof r->message, "%s", m->message);
    if (out.text)
        r->nmetrics = metrics_parse(out.text, r->metrics, METRICS_MAX);
    free(out.text);
    machine_destroy(m);
    free(m);
    free(t);
}

static double mean(uint64_t sum, uint64_t n)
{
    return n ? (double)sum / 100.0 / (double)n : 0.0;
}

static void print_table(const struct run_result *rs, int n, FILE *f)
{
    fprintf(f, "%-16s %-4s %-9s %8s %12s %9s %9s %9s %14s\n", "cpu", "SEP", "path",
            "calls", "cycles/call", "entry", "body", "exit", "total cycles");
    for (int i = 0; i < n; i++) {
        const struct run_result *r = &rs[i];
        const struct syscall_stat *s = &r->stat;
        fprintf(f, "%-16s %-4s %-9s %8" PRIu64 " %12.1f %9.1f %9.1f %9.1f %14" PRIu64 "\n",
                r->spec, r->cpu.sep_works ? "on" : "off", r->path, s->calls, r->per_call,
                mean(s->entry, s->calls), mean(s->body, s->calls), mean(s->exit, s->calls),
                r->cycles / 100);
    }
}

/* The published figures for the same experiment, to print beside ours. */
static const char *article_note(const char *model, uint32_t nr)
{
    bool p4 = !strcmp(model, "pentium4"), p3 = !strcmp(model, "pentium3");
    /* today's libcs implement gettimeofday() with clock_gettime(64) */
    bool time_of_day = nr == SYS_gettimeofday || nr == SYS_clock_gettime ||
                       nr == SYS_clock_gettime64;
    bool getppid = nr == SYS_getppid || nr == SYS_getpid;
    if (p4 && time_of_day)
        return "published: article \"just over half the time\"; "
               "Linus's P4: 1280.4 / 2415.7 cycles = 0.53 (not used by the model)";
    if (p4 && getppid)
        return "published: Linus's P4 getppid 641 / 1761 cycles = 0.36 "
               "(the model's calibration point)";
    if (p3 && time_of_day)
        return "published: article \"a factor of 1.2\"; "
               "Linus's PIII: 561.7 / 686.2 cycles = 0.82 (not used by the model)";
    if (p3 && getppid)
        return "published: no P6 sysenter getppid figure; int $0x80 null call "
               "~320 cycles (lmbench, the model's calibration point)";
    return NULL;
}

static void print_ratios(const struct run_result *rs, int n, bool article, FILE *f)
{
    for (int i = 0; i < n; i++) {
        const struct run_result *fast = &rs[i];
        if (!fast->cpu.sep_works || !fast->per_call)
            continue;
        for (int j = 0; j < n; j++) {
            const struct run_result *slow = &rs[j];
            if (slow->cpu.model != fast->cpu.model || slow->cpu.sep_works || !slow->per_call)
                continue;
            double ratio = fast->per_call / slow->per_call;
            fprintf(f, "%s %s: sysenter %.1f / int80 %.1f cycles = %.2f of the time "
                    "(%.2fx faster)\n", fast->cpu.model->name, syscall_name(fast->nr),
                    fast->per_call, slow->per_call, ratio, 1.0 / ratio);
            const char *note = article ? article_note(fast->cpu.model->name, fast->nr) : NULL;
            if (note)
                fprintf(f, "    %s\n", note);
        }
    }
}

static int write_svg(const char *path, const struct run_result *rs, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    double max = 1;
    for (int i = 0; i < n; i++)
        if (rs[i].per_call > max)
            max = rs[i].per_call;
    int w = 720, bar = 36, gap = 18, left = 150, top = 50;
    int h = top + n * (bar + gap) + 60;
    double scale = (w - left - 120) / max;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"13\">\n", w, h);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"16\">cycles per %s call "
            "(entry / body / exit / user)</text>\n", n ? syscall_name(rs[0].nr) : "");
    static const char *colors[4] = { "#d95f02", "#1b9e77", "#7570b3", "#bbbbbb" };
    for (int i = 0; i < n; i++) {
        const struct run_result *r = &rs[i];
        const struct syscall_stat *s = &r->stat;
        double parts[4] = { mean(s->entry, s->calls), mean(s->body, s->calls),
                            mean(s->exit, s->calls), 0 };
        parts[3] = r->per_call - parts[0] - parts[1] - parts[2];
        if (parts[3] < 0)
            parts[3] = 0;
        int y = top + i * (bar + gap);
        fprintf(f, "<text x=\"10\" y=\"%d\">%s</text>\n", y + bar / 2 + 5, r->spec);
        double x = left;
        for (int p = 0; p < 4; p++) {
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                    x, y, parts[p] * scale, bar, colors[p]);
            x += parts[p] * scale;
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n", x + 6, y + bar / 2 + 5,
                r->per_call);
    }
    static const char *labels[4] = { "entry", "body", "exit", "user (stub)" };
    for (int p = 0; p < 4; p++) {
        int x = left + p * 120, y = h - 30;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y, colors[p], x + 20, y + 12,
                labels[p]);
    }
    fputs("</svg>\n", f);
    return fclose(f) ? -1 : 0;
}

int compare_main(const struct run_options *base, const char *cpus, bool article,
                 const char *svg_path)
{
    struct run_result rs[MAX_RUNS];
    char list[512];
    int n = 0;
    snprintf(list, sizeof list, "%s", cpus ? cpus : DEFAULT_COMPARE_CPUS);
    memset(rs, 0, sizeof rs);
    for (char *save = NULL, *spec = strtok_r(list, ";", &save); spec;
         spec = strtok_r(NULL, ";", &save)) {
        if (n == MAX_RUNS) {
            fprintf(stderr, "emu: compare: at most %d models\n", MAX_RUNS);
            return 2;
        }
        run_one(base, spec, &rs[n]);
        if (rs[n].status != 0) {
            fprintf(stderr, "emu: %s on %s: %s\n", base->program, spec, rs[n].message);
            return rs[n].status;
        }
        n++;
    }
    printf("emu compare:");
    for (int i = 0; i < base->argc; i++)
        printf(" %s", base->argv[i]);
    printf("\n\n");
    print_table(rs, n, stdout);
    printf("\ncycles/call: from the call into the vsyscall page to its return, as the caller\n"
           "sees it (without the page: from the trap to the return to user mode); entry: from\n"
           "the trapping instruction to the dispatch call; body: the handler; exit: from the\n"
           "handler's return to user mode. Means over all calls of the program's most\n"
           "frequent system call.\n\n");
    print_ratios(rs, n, article, stdout);
    const char *models[MAX_RUNS];
    const struct metric *metrics[MAX_RUNS];
    int counts[MAX_RUNS];
    for (int i = 0; i < n; i++) {
        models[i] = rs[i].spec;
        metrics[i] = rs[i].metrics;
        counts[i] = rs[i].nmetrics;
    }
    metrics_print(stdout, models, metrics, counts, n);
    if (svg_path && write_svg(svg_path, rs, n)) {
        fprintf(stderr, "emu: cannot write %s\n", svg_path);
        return 2;
    }
    return 0;
}
