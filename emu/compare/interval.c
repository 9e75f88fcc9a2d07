#include "compare/interval.h"
#include <string.h>
#include "cost/centi.h"
#include "cost/cpu_models.h"

void model_point_of(const struct cpu_config *cfg, struct model_point *p)
{
    double central[NINPUTS];
    memset(p, 0, sizeof *p);
    cost_central(central);
    p->kconfig = cfg->kconfig;
    memcpy(p->x, cfg->inputs, sizeof p->x);
    for (int i = 0; i < NINPUTS; i++)
        p->fixed[i] = p->x[i] != central[i];
    memcpy(p->pinned[cfg->model->table], cfg->pinned, sizeof cfg->pinned);
}

/* A class's cost as the machine charges it, in whole centicycles
 * (cpu_config_costs): the interval is of the model that runs, so a run's
 * figure at the central inputs is its centre. */
static double as_charged(double v)
{
    return v > 0 ? (double)CENTI(v) / CENTI_PER_CYCLE : 0;
}

static double measure_at(const struct measure *q, const struct model_point *p,
                         const double x[NINPUTS])
{
    double v[NCLASSES], sum = 0;
    cost_eval(x, q->table, p->kconfig, p->pinned[q->table], v);
    double s = x[INPUT_LOOP_SHAPE] - q->shape0;
    for (int c = 0; c < NCLASSES; c++)
        sum += (q->counts[c] + s * q->shape[c]) * as_charged(v[c]);
    return sum;
}

static double quantity(const struct measure *a, const struct measure *b,
                       const struct model_point *p, const double x[NINPUTS])
{
    double va = measure_at(a, p, x);
    if (!b)
        return va;
    double vb = measure_at(b, p, x);
    return vb != 0 ? va / vb : 0;
}

static void widen(struct interval *out, double v)
{
    if (v < out->low)
        out->low = v;
    if (v > out->high)
        out->high = v;
}

static double swing(const struct mover *m)
{
    return m->at_high > m->at_low ? m->at_high - m->at_low : m->at_low - m->at_high;
}

void movers_add(struct mover movers[NMOVERS], struct mover add)
{
    for (int m = 0; m < NMOVERS; m++)
        if (movers[m].input < 0 || swing(&add) > swing(&movers[m])) {
            memmove(&movers[m + 1], &movers[m], sizeof *movers * (size_t)(NMOVERS - 1 - m));
            movers[m] = add;
            return;
        }
}

void interval_widen(struct interval *out, const struct interval *by)
{
    widen(out, by->low);
    widen(out, by->high);
}

void interval_of(const struct measure *a, const struct measure *b, const struct model_point *p,
                 struct interval *out, struct mover movers[NMOVERS])
{
    struct cost_input in[NINPUTS];
    double x[NINPUTS], lo[NINPUTS], hi[NINPUTS];
    cost_inputs(in);
    for (int m = 0; m < NMOVERS; m++)
        movers[m] = (struct mover){ -1, 0, 0 };
    out->value = out->low = out->high = quantity(a, b, p, p->x);
    memcpy(lo, p->x, sizeof lo);
    memcpy(hi, p->x, sizeof hi);
    for (int i = 0; i < NINPUTS; i++) {
        if (p->fixed[i] || in[i].low == in[i].high)
            continue;
        lo[i] = in[i].low;
        hi[i] = in[i].high;
        memcpy(x, p->x, sizeof x);
        x[i] = in[i].low;
        double at_low = quantity(a, b, p, x);
        x[i] = in[i].high;
        double at_high = quantity(a, b, p, x);
        widen(out, at_low);
        widen(out, at_high);
        movers_add(movers, (struct mover){ i, at_low, at_high });
    }
    widen(out, quantity(a, b, p, lo));
    widen(out, quantity(a, b, p, hi));
}
