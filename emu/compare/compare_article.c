/*
 * emu compare --article: the published figures of the experiments the
 * program replays (published.c), beside the replay's own measurement - the
 * cycles per iteration between its rdtsc reads, less the timer's work
 * (rule X of docs/cost-model.md; the program's own printed figure includes
 * it) - with the interval of that measurement, whether the published
 * figure falls inside it, and the same for the published ratios.
 */
#include "compare/compare.h"
#include "cost/centi.h"
#include <string.h>
#include "cost/published.h"

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool applies(const struct published *p, const struct compare_run *r,
                    const struct run_options *base)
{
    /* the validation figures have their own table (compare_validate.c) */
    if (p->role == PUB_CHECK || strcmp(p->model, r->cpu.model->name) ||
        strcmp(p->program, basename_of(base->program)))
        return false;
    if (p->arg && (base->argc < 2 || strcmp(p->arg, base->argv[1])))
        return false;
    if (p->span > r->nspans || p->minus_span > r->nspans)
        return false;
    /* the experiment's calls went this way: a run whose calls did not
     * (the model without SEP) does not replay it */
    int path, via;
    uint64_t calls;
    return span_way(&r->spans[p->span - 1], &path, &via, &calls) &&
           !strcmp(sys_path_name(path), p->path);
}

/* The replay's measurement of p on run r: span p->span minus span
 * p->minus_span, per call of the measured span. */
static bool measure_of(const struct published *p, const struct compare_run *r,
                       struct measure *q, uint64_t *calls, int *path, int *via)
{
    const struct span *sp = &r->spans[p->span - 1];
    if (!span_way(sp, path, via, calls))
        return false;
    memset(q, 0, sizeof *q);
    q->table = r->cpu.model->table;
    for (int c = 0; c < NCLASSES; c++) {
        double n = (double)sp->counts[c];
        if (p->minus_span)
            n -= (double)r->spans[p->minus_span - 1].counts[c];
        q->counts[c] = n / (double)*calls;
    }
    /* Linus's loop: its shape is an input of the model */
    if (!strcmp(p->program, "linus_loop")) {
        loop_shape_delta(r->cpu.kconfig, q->shape);
        q->shape0 = r->loop_shape;
    }
    return true;
}

static const char *role_name(enum pub_role role)
{
    return role == PUB_CALIBRATION ? "calibration point"
         : role == PUB_PREDICTION ? "predicted, not used by the model"
                                  : "held out, not used by the model";
}

static void print_one(const struct published *p, const struct compare_run *r, FILE *f)
{
    struct measure q;
    struct interval iv;
    struct mover mv[NMOVERS];
    uint64_t calls;
    int path, via;
    if (!measure_of(p, r, &q, &calls, &path, &via))
        return;
    interval_of(&q, NULL, &r->point, &iv, mv);
    fprintf(f, "%s, span %d", r->spec, p->span);
    if (p->minus_span)
        fprintf(f, " minus span %d", p->minus_span);
    fprintf(f, " (%s, %s, %llu calls): ", sys_path_name(path), sys_via_name(via),
            (unsigned long long)calls);
    print_interval(f, &iv, 1);
    fprintf(f, " cycles per iteration\n    %s: %s", p->id, p->as_printed);
    if (p->low != p->high)
        fprintf(f, " = %.1f [%.1f, %.1f]", p->value, p->low, p->high);
    fprintf(f, " (%s): %s\n", role_name(p->role),
            p->value >= iv.low && p->value <= iv.high ? "inside" : "outside");
    fprintf(f, "    source: %s\n", p->source);
    const struct span *sp = &r->spans[p->span - 1];
    if (sp->ext_ticks && !p->minus_span)
        fprintf(f, "    timer interrupts inside the span: %llu, %.2f cycles, not counted "
                "(%.2f per iteration,\n    which the program's own rdtsc figure includes)\n",
                (unsigned long long)sp->ext_ticks, centi_to_cycles(sp->ext_cycles),
                centi_to_cycles(sp->ext_cycles) / (double)calls);
}

static void print_ratio(const struct published_ratio *pr, const struct compare_run *r,
                        const struct run_options *base, FILE *f)
{
    const struct published *fast = published_find(pr->fast), *slow = published_find(pr->slow);
    struct measure qf, qs;
    struct interval iv;
    struct mover mv[NMOVERS];
    uint64_t calls;
    int path, via;
    if (!fast || !slow || !applies(fast, r, base) || !applies(slow, r, base) ||
        !measure_of(fast, r, &qf, &calls, &path, &via) ||
        !measure_of(slow, r, &qs, &calls, &path, &via))
        return;
    interval_of(&qf, &qs, &r->point, &iv, mv);
    double pub = fast->value / slow->value;
    fprintf(f, "%s %s / %s: ", r->spec, fast->id, slow->id);
    print_interval(f, &iv, 3);
    fprintf(f, " of the time (%.2fx faster)\n    published %.3f", iv.value > 0 ? 1 / iv.value : 0,
            pub);
    if (fast->low != fast->high || slow->low != slow->high)
        fprintf(f, " [%.3f, %.3f]", fast->low / slow->high, fast->high / slow->low);
    fprintf(f, " (%.2fx): %s; %s\n", 1 / pub,
            pub >= iv.low && pub <= iv.high ? "inside" : "outside", pr->claim);
    print_movers(f, mv, 3);
}

/* The runs of the same --cpus entry as rs[i] under each configuration, if
 * rs[i] runs under the configuration its model's rule makes central and the
 * rule leaves it open: how many (0 if not). */
static int config_group(const struct compare_run *rs, int n, int i,
                        const struct compare_run *group[NKCONFIGS])
{
    struct kconfig_rule rule = cpu_kconfig_rule(rs[i].cpu.model);
    int k = 0;
    if (!rule.open || rs[i].cpu.kconfig != rule.central)
        return 0;
    for (int j = 0; j < n && k < NKCONFIGS; j++)
        if (!strcmp(rs[j].cpu_spec, rs[i].cpu_spec) && !rs[j].modified)
            group[k++] = &rs[j];
    return k;
}

/* One quantity (a, or a / b) on each run of a group: the union of their
 * intervals, the central run's value, and the configuration among the
 * movers (at its central inputs, up against smp). */
struct group_quantity {
    const struct published *a, *b;
};

static bool group_interval(const struct group_quantity *gq, const struct compare_run *group[],
                           int ng, const struct compare_run *central,
                           const struct run_options *base, struct interval *out,
                           struct mover movers[NMOVERS])
{
    double at[NKCONFIGS] = { 0 };
    for (int k = 0; k < ng; k++) {
        const struct compare_run *r = group[k];
        struct measure qa, qb;
        struct interval iv;
        struct mover mv[NMOVERS];
        uint64_t calls;
        int path, via;
        if (!applies(gq->a, r, base) || !measure_of(gq->a, r, &qa, &calls, &path, &via) ||
            (gq->b && (!applies(gq->b, r, base) ||
                       !measure_of(gq->b, r, &qb, &calls, &path, &via))))
            return false;
        interval_of(&qa, gq->b ? &qb : NULL, &r->point, &iv, mv);
        at[r->cpu.kconfig] = iv.value;
        if (r == central) {
            memcpy(movers, mv, sizeof mv);
            out->value = iv.value;
        }
        if (k == 0)
            out->low = out->high = iv.value;
        interval_widen(out, &iv);
    }
    movers_add(movers, (struct mover){ MOVER_KCONFIG, at[KCONFIG_UP], at[KCONFIG_SMP] });
    return true;
}

static void print_group_head(const struct compare_run *group[], int ng,
                             const struct compare_run *central, FILE *f)
{
    fprintf(f, "%s over the kernel configurations", central->cpu_spec);
    for (int k = 0; k < ng; k++)
        fprintf(f, "%s %s", k ? "," : "", kconfig_name(group[k]->cpu.kconfig));
    fprintf(f, " (central: %s)", kconfig_name(central->cpu.kconfig));
}

static void print_group_one(const struct published *p, const struct compare_run *group[],
                            int ng, const struct compare_run *central,
                            const struct run_options *base, FILE *f)
{
    struct group_quantity gq = { p, NULL };
    struct interval iv;
    struct mover mv[NMOVERS];
    if (!group_interval(&gq, group, ng, central, base, &iv, mv))
        return;
    print_group_head(group, ng, central, f);
    fprintf(f, ", span %d", p->span);
    if (p->minus_span)
        fprintf(f, " minus span %d", p->minus_span);
    fprintf(f, ": ");
    print_interval(f, &iv, 1);
    fprintf(f, " cycles per iteration\n    %s: %s (%s): %s\n", p->id, p->as_printed,
            role_name(p->role), p->value >= iv.low && p->value <= iv.high ? "inside" : "outside");
    print_movers(f, mv, 1);
}

static void print_group_ratio(const struct published_ratio *pr, const struct compare_run *group[],
                              int ng, const struct compare_run *central,
                              const struct run_options *base, FILE *f)
{
    struct group_quantity gq = { published_find(pr->fast), published_find(pr->slow) };
    struct interval iv;
    struct mover mv[NMOVERS];
    if (!gq.a || !gq.b || !group_interval(&gq, group, ng, central, base, &iv, mv))
        return;
    double pub = gq.a->value / gq.b->value;
    print_group_head(group, ng, central, f);
    fprintf(f, " %s / %s: ", gq.a->id, gq.b->id);
    print_interval(f, &iv, 3);
    fprintf(f, " of the time\n    published %.3f: %s\n", pub,
            pub >= iv.low && pub <= iv.high ? "inside" : "outside");
    print_movers(f, mv, 3);
}

/* Where the rule leaves the configuration open: each figure's interval
 * over every configuration's run, each with its own calibration. */
static void print_groups(const struct compare_run *rs, int n, const struct run_options *base,
                         FILE *f)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        const struct compare_run *group[NKCONFIGS];
        int ng = rs[i].modified ? 0 : config_group(rs, n, i, group);
        if (ng < 2)
            continue;
        if (!any)
            fprintf(f, "\nwhere the sources leave the kernel configuration open, the interval "
                       "over every\nconfiguration, each with its own calibration "
                       "(docs/cost-model.md, \"Kernel configuration\"):\n\n");
        any = true;
        for (int k = 0; k < npublished; k++)
            if (applies(&published[k], &rs[i], base))
                print_group_one(&published[k], group, ng, &rs[i], base, f);
        for (int k = 0; k < npublished_ratios; k++)
            print_group_ratio(&published_ratios[k], group, ng, &rs[i], base, f);
    }
}

const struct published *compare_published_for(const struct compare_run *r,
                                              const struct compare_row *row,
                                              const struct run_options *base)
{
    if (r->modified)
        return NULL;
    for (int k = 0; k < npublished; k++) {
        const struct published *p = &published[k];
        struct measure q;
        uint64_t calls;
        int path, via;
        if (applies(p, r, base) && measure_of(p, r, &q, &calls, &path, &via) &&
            path == row->path && via == row->via)
            return p;
    }
    return NULL;
}

void compare_article(const struct compare_run *rs, int n, const struct run_options *base,
                     FILE *f)
{
    bool any = false;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < npublished; k++)
            any = any || applies(&published[k], &rs[i], base);
    if (!any) {
        fprintf(f, "\npublished: no published figure for this program (docs/cost-model.md "
                "lists the replays)\n");
        return;
    }
    fprintf(f, "\npublished figures, beside the replay's own measurement (cycles per iteration "
            "of its loop,\nbetween its rdtsc reads, less the work of timer interrupts: rule X) "
            "and its interval:\n\n");
    for (int i = 0; i < n; i++) {
        if (rs[i].modified) {
            fprintf(f, "%s: not compared: --cost modifies this model\n", rs[i].spec);
            continue;
        }
        for (int k = 0; k < npublished; k++)
            if (applies(&published[k], &rs[i], base))
                print_one(&published[k], &rs[i], f);
        for (int k = 0; k < npublished_ratios; k++)
            print_ratio(&published_ratios[k], &rs[i], base, f);
    }
    print_groups(rs, n, base, f);
}
