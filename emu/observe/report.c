#include "observe/report.h"
#include "machine/machine.h"
#include "cost/centi.h"
#include "cpu/smp.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "machine/names.h"

int report_parse_format(const char *name, enum report_format *out)
{
    if (!strcmp(name, "text"))
        *out = REPORT_TEXT;
    else if (!strcmp(name, "json"))
        *out = REPORT_JSON;
    else
        return -1;
    return 0;
}

struct row {
    uint32_t nr;            /* SYSCALL_STATS_MAX: the numbers past the table */
    int path;
    const struct syscall_stat *s;
};

static int by_cycles(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->s->total != y->s->total)
        return x->s->total < y->s->total ? 1 : -1;
    if (x->nr != y->nr)
        return x->nr < y->nr ? -1 : 1;
    return x->path - y->path;
}

/* The calls made, one row per number and path, most cycles first. */
static struct row *rows_of(const struct syscall_tracker *t, int *n)
{
    struct row *rows = malloc(sizeof *rows * (2 * (SYSCALL_STATS_MAX + 1)));
    *n = 0;
    if (!rows)
        return NULL;
    for (int p = 0; p < PATH_TRAP; p++) {
        for (uint32_t nr = 0; nr < SYSCALL_STATS_MAX; nr++)
            if (t->stats[p][nr].calls)
                rows[(*n)++] = (struct row){ nr, p, &t->stats[p][nr] };
        if (t->stats_beyond[p].calls)
            rows[(*n)++] = (struct row){ SYSCALL_STATS_MAX, p, &t->stats_beyond[p] };
    }
    qsort(rows, (size_t)*n, sizeof *rows, by_cycles);
    return rows;
}

static const char *row_name(const struct row *r)
{
    return r->nr == SYSCALL_STATS_MAX ? "(numbers >= 1024)" : syscall_name(r->nr);
}

static double mean(uint64_t centi, uint64_t n)
{
    return n ? centi_to_cycles(centi) / (double)n : 0.0;
}

static void add(struct syscall_stat *sum, const struct syscall_stat *s)
{
    sum->calls += s->calls;
    sum->errors += s->errors;
    sum->entry += s->entry;
    sum->body += s->body;
    sum->exit += s->exit;
    sum->total += s->total;
    sum->ext_ticks += s->ext_ticks;
    sum->ext_cycles += s->ext_cycles;
    sum->switched += s->switched;
}

static void cost_banner(const struct machine *m, FILE *f, const char *prefix)
{
    const struct run_options *o = m->opts;
    if (!o || !o->ncost_overrides)
        return;
    fprintf(f, "%smodified cost model:", prefix);
    for (int i = 0; i < o->ncost_overrides; i++)
        fprintf(f, " %s", o->cost_overrides[i].text);
    fputs(" (emu --list-costs has the published ones)\n", f);
}

static void table_line(FILE *f, double share, const struct syscall_stat *s, const char *path,
                       const char *name)
{
    char errors[24] = "";
    if (s->errors)
        snprintf(errors, sizeof errors, "%" PRIu64, s->errors);
    fprintf(f, "%8.2f %14.2f %11.1f %9" PRIu64 " %9s %9.1f %9.1f %9.1f  %-8s %s\n", share,
            centi_to_cycles(s->total), mean(s->total, s->calls), s->calls, errors,
            mean(s->entry, s->calls), mean(s->body, s->calls), mean(s->exit, s->calls), path,
            name);
}

static void print_table(const struct syscall_tracker *t, FILE *f)
{
    static const char rule[] = "-------- -------------- ----------- --------- --------- --------- "
                               "--------- ---------  -------- ----------------\n";
    int n;
    struct row *rows = rows_of(t, &n);
    struct syscall_stat sum = { 0 };
    for (int i = 0; i < n; i++)
        add(&sum, rows[i].s);
    fprintf(f, "%8s %14s %11s %9s %9s %9s %9s %9s  %-8s %s\n", "% cycles", "cycles",
            "cycles/call", "calls", "errors", "entry", "body", "exit", "path", "syscall");
    fputs(rule, f);
    for (int i = 0; i < n; i++)
        table_line(f, sum.total ? 100.0 * (double)rows[i].s->total / (double)sum.total : 0,
                   rows[i].s, sys_path_name(rows[i].path), row_name(&rows[i]));
    fputs(rule, f);
    table_line(f, sum.total ? 100.0 : 0, &sum, "", "total");
    if (sum.ext_ticks)
        fprintf(f, "timer interrupts inside these calls: %" PRIu64 ", %.2f cycles, not counted "
                "(docs/cost-model.md, rule X)\n", sum.ext_ticks, centi_to_cycles(sum.ext_cycles));
    if (sum.switched)
        fprintf(f, "time switched out inside these calls (other processes ran, or the CPU "
                "idled): %.2f cycles, not counted (docs/cost-model.md)\n",
                centi_to_cycles(sum.switched));
    free(rows);
}

/* Centicycles spent idle in hlt: with --smp, summed over the CPUs. */
static uint64_t idle_cycles(const struct machine *m)
{
    if (!m->smp)
        return m->irq.idle_cycles;
    struct smp_cpu_figures fig[MAX_CPUS];
    uint64_t latest, busy_sum, idle = 0;
    smp_figures(m, fig, &latest, &busy_sum);
    for (int c = 0; c < m->ncpus; c++)
        idle += fig[c].idle;
    return idle;
}

void report_print(const struct machine *m, const struct syscall_tracker *t, FILE *f)
{
    cost_banner(m, f, "emu: report: ");
    fprintf(f, "emu: report: cpu %s%s: %" PRIu64 " instructions, %" PRIu64 " cycles (boot %"
            PRIu64 ")\n", m->cpu.model->name, m->cpu.sep_reported ? "" : ",-sep", m->insns,
            centi_whole(m->cycles), centi_whole(t->boot_end));
    char kernel[160];
    kernel_image_describe(m->kernel, kernel, sizeof kernel);
    fprintf(f, "emu: report: kernel: %s\n", kernel);
    if (m->smp)
        smp_report(m, f, "emu: report: ");
    fprintf(f, "emu: report: system calls: %" PRIu64 " via sysenter, %" PRIu64
            " via int $0x80; returns: %" PRIu64 " sysexit, %" PRIu64 " iret; %" PRIu64
            " unknown (ENOSYS); %" PRIu64 " trap%s\n",
            t->by_path[PATH_SYSENTER], t->by_path[PATH_INT80], t->returns_sysexit,
            t->returns_iret, t->enosys, t->by_path[PATH_TRAP],
            t->by_path[PATH_TRAP] == 1 ? "" : "s");
    fprintf(f, "emu: report: sysenter calls that left through iret (work pending): %" PRIu64
            " of %" PRIu64 "\n", t->sysenter_irets, t->by_path[PATH_SYSENTER]);
    fprintf(f, "emu: report: time: %" PRIu64 " timer interrupts; %" PRIu64
            " cycles idle in hlt%s (modeled time skipped, no instructions)\n",
            m->irq.delivered, centi_whole(idle_cycles(m)), m->smp ? ", summed over the CPUs" : "");
    if (t->enosys) {
        fputs("emu: report: unknown to the kernel:", f);
        const char *sep = " ";
        uint64_t named = 0;
        for (uint32_t nr = 0; nr < SYSCALL_STATS_MAX; nr++)
            if (t->enosys_by_nr[nr]) {
                fprintf(f, "%s%s x%" PRIu64, sep, syscall_name(nr), t->enosys_by_nr[nr]);
                named += t->enosys_by_nr[nr];
                sep = ", ";
            }
        if (t->enosys > named)
            fprintf(f, "%s%" PRIu64 " with numbers past %d", sep, t->enosys - named,
                    SYSCALL_STATS_MAX - 1);
        fputc('\n', f);
    }
    const struct as_stats *as = m->as ? addrspaces_stats(m->as) : NULL;
    /* (one switch is the boot's, into the first process) */
    if (as && (as->switches > 1 || as->clones)) {
        double n = (double)as->switches;
        fprintf(f, "emu: report: address spaces: %" PRIu64 " switches, %" PRIu64
                " TLB refills charged, %" PRIu64 " code pages' translations dropped and %"
                PRIu64 " kept; %" PRIu64 " forks copied %" PRIu64 " pages\n", as->switches,
                as->refills, as->code_pages_dropped, as->code_pages_kept, as->clones,
                as->pages_copied);
        /* host time: not deterministic, so only when asked for */
        if (m->opts->verbose)
            fprintf(f, "emu: report: host time: %.1f us a switch moving pages (%.1f pages "
                    "copied a switch, %" PRIu64 " window moves), %.1f us with translations; "
                    "%.1f us a fork copying pages; %" PRIu64 " code pages held aside, "
                    "their bytes back %" PRIu64 " times\n",
                    (double)as->switch_ns / 1e3 / n, (double)as->switch_pages / n,
                    as->window_moves, (double)as->drop_ns / 1e3 / n,
                    as->clones ? (double)as->clone_ns / 1e3 / (double)as->clones : 0.0,
                    as->code_pages_held, as->code_pages_back);
    }
    if (t->vclock_calls)
        fprintf(f, "emu: report: %" PRIu64 " user-space clock call%s (--vgettimeofday, no "
                "system call), %.1f cycles per call; %" PRIu64 " sequence-lock retr%s\n",
                t->vclock_calls, t->vclock_calls == 1 ? "" : "s",
                centi_to_cycles(t->vclock_cycles) / (double)t->vclock_calls, t->vclock_retries,
                t->vclock_retries == 1 ? "y" : "ies");
    if (t->vsyscall_calls)
        fprintf(f, "emu: report: %" PRIu64 " call%s through the vsyscall page, %.1f cycles "
                "per call (from the call to the return)\n", t->vsyscall_calls,
                t->vsyscall_calls == 1 ? "" : "s",
                centi_to_cycles(t->vsyscall_cycles) / (double)t->vsyscall_calls);
    fputs("\nround trips: from the trapping instruction to the return to user mode\n", f);
    print_table(t, f);
}

static void json_stat(FILE *f, const struct syscall_stat *s)
{
    fprintf(f, "\"calls\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"cycles\":%.2f,"
            "\"cycles_per_call\":%.4f,\"entry_cycles\":%.2f,\"body_cycles\":%.2f,"
            "\"exit_cycles\":%.2f,\"timer_interrupts_inside\":%" PRIu64
            ",\"timer_cycles_not_counted\":%.2f,\"switched_out_cycles_not_counted\":%.2f",
            s->calls, s->errors, centi_to_cycles(s->total), mean(s->total, s->calls),
            centi_to_cycles(s->entry), centi_to_cycles(s->body), centi_to_cycles(s->exit),
            s->ext_ticks, centi_to_cycles(s->ext_cycles), centi_to_cycles(s->switched));
}

/* The figures of the text report's other lines, under the same names. */
static void json_rest(const struct machine *m, const struct syscall_tracker *t, FILE *f)
{
    fprintf(f, "\"sysenter_left_through_iret\":%" PRIu64 ",", t->sysenter_irets);
    fprintf(f, "\"time\":{\"timer_interrupts\":%" PRIu64 ",\"idle_cycles\":%.2f},",
            m->irq.delivered, centi_to_cycles(idle_cycles(m)));
    const struct as_stats *as = m->as ? addrspaces_stats(m->as) : NULL;
    const struct as_stats none = { 0 };
    if (!as)
        as = &none;
    fprintf(f, "\"address_spaces\":{\"switches\":%" PRIu64 ",\"tlb_refills\":%" PRIu64
            ",\"code_pages_dropped\":%" PRIu64 ",\"code_pages_kept\":%" PRIu64
            ",\"forks\":%" PRIu64 ",\"pages_copied\":%" PRIu64 "},",
            as->switches, as->refills, as->code_pages_dropped, as->code_pages_kept,
            as->clones, as->pages_copied);
    fprintf(f, "\"user_clock\":{\"calls\":%" PRIu64 ",\"cycles\":%.2f,\"retries\":%" PRIu64
            "},", t->vclock_calls, centi_to_cycles(t->vclock_cycles), t->vclock_retries);
    if (!m->smp)
        return;
    struct smp_cpu_figures fig[MAX_CPUS];
    uint64_t latest, busy_sum;
    smp_figures(m, fig, &latest, &busy_sum);
    fprintf(f, "\"machine_cycles\":%.2f,\"busy_cycles_summed\":%.2f,\"cpus\":[",
            centi_to_cycles(latest), centi_to_cycles(busy_sum));
    for (int c = 0; c < m->ncpus; c++)
        fprintf(f, "%s{\"cpu\":%d,\"busy_cycles\":%.2f,\"idle_cycles\":%.2f,"
                "\"instructions\":%" PRIu64 ",\"user_instructions\":%" PRIu64 ",\"ipis\":%"
                PRIu64 ",\"local_timer_interrupts\":%" PRIu64 "}", c ? "," : "", c,
                centi_to_cycles(fig[c].busy), centi_to_cycles(fig[c].idle), fig[c].insns,
                fig[c].user_insns, fig[c].ipis, fig[c].timer_taken);
    fputs("],", f);
}

void report_print_json(const struct machine *m, const struct syscall_tracker *t, FILE *f)
{
    int n;
    struct row *rows = rows_of(t, &n);
    struct syscall_stat sum = { 0 };
    fprintf(f, "{\"cpu\":\"%s\",\"sep_reported\":%s,\"sep_used\":%s,\"instructions\":%" PRIu64
            ",\"cycles\":%.2f,\"boot_cycles\":%.2f,\"trap_cycles\":%.2f,",
            m->cpu.model->name, m->cpu.sep_reported ? "true" : "false",
            m->cpu.sep_works ? "true" : "false", m->insns, centi_to_cycles(m->cycles),
            centi_to_cycles(t->boot_end), centi_to_cycles(t->trap_cycles));
    fprintf(f, "\"kernel\":{\"image\":\"%s\",\"config\":\"%s\",\"march\":\"%s\","
            "\"big_lock\":%s},", m->kernel->name, kconfig_name(m->kernel->config),
            kmarch_name(m->kernel->march), m->kernel->big_lock ? "true" : "false");
    fputs("\"cost_overrides\":[", f);
    for (int i = 0; m->opts && i < m->opts->ncost_overrides; i++) {
        fputs(i ? ",\"" : "\"", f);
        for (const char *c = m->opts->cost_overrides[i].text; *c; c++)
            fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : (unsigned char)*c < 0x20 ? "?" : "%c",
                    *c);
        fputc('"', f);
    }
    fprintf(f, "],\"entries\":{\"sysenter\":%" PRIu64 ",\"int80\":%" PRIu64 ",\"traps\":%"
            PRIu64 "},\"returns\":{\"sysexit\":%" PRIu64 ",\"iret\":%" PRIu64 "},",
            t->by_path[PATH_SYSENTER], t->by_path[PATH_INT80], t->by_path[PATH_TRAP],
            t->returns_sysexit, t->returns_iret);
    fprintf(f, "\"vsyscall\":{\"calls\":%" PRIu64 ",\"cycles\":%.2f},", t->vsyscall_calls,
            centi_to_cycles(t->vsyscall_cycles));
    json_rest(m, t, f);
    fputs("\"unknown\":[", f);
    const char *sep = "";
    for (uint32_t nr = 0; nr < SYSCALL_STATS_MAX; nr++)
        if (t->enosys_by_nr[nr]) {
            fprintf(f, "%s{\"name\":\"%s\",\"nr\":%u,\"calls\":%" PRIu64 "}", sep,
                    syscall_name(nr), nr, t->enosys_by_nr[nr]);
            sep = ",";
        }
    fprintf(f, "],\"unknown_total\":%" PRIu64 ",\"syscalls\":[", t->enosys);
    for (int i = 0; i < n; i++) {
        add(&sum, rows[i].s);
        fprintf(f, "%s{\"name\":\"%s\",", i ? "," : "", row_name(&rows[i]));
        if (rows[i].nr < SYSCALL_STATS_MAX)
            fprintf(f, "\"nr\":%u,", rows[i].nr);
        fprintf(f, "\"path\":\"%s\",", sys_path_name(rows[i].path));
        json_stat(f, rows[i].s);
        fputc('}', f);
    }
    fputs("],\"total\":{", f);
    json_stat(f, &sum);
    fputs("}}\n", f);
    free(rows);
}
