/*
 * Uncertainty, propagated through the same run: a measured quantity is a
 * dot product of instruction counts (recorded once, by class) and a cost
 * vector, so it can be recomputed for any inputs of the cost model without
 * running anything again. The interval of a quantity is the range of its
 * values over these input vectors: the central one; each varying input at
 * its low end and at its high end with the others central (one at a time);
 * every input at its low end; every input at its high end. The inputs that
 * move it most are those whose low-to-high swing is largest.
 * docs/cost-model.md ("Uncertainty") says why this and what it leaves out.
 */
#ifndef EMU_INTERVAL_H
#define EMU_INTERVAL_H

#include <stdbool.h>
#include "cost/cost_model.h"

/* Cycles per call of something measured on table `table`: counts per call,
 * plus, for a replay of Linus's loop, shape * (x's loop shape - shape0). */
struct measure {
    int table;
    double counts[NCLASSES];
    double shape[NCLASSES];
    double shape0;
};

/* The model's inputs for one run: the kernel configuration, the central
 * vector with any --cost overrides, which of them are fixed by an
 * override, and the classes an override pinned. */
struct model_point {
    int kconfig;            /* enum kernel_config: whose calibration */
    double x[NINPUTS];
    bool fixed[NINPUTS];
    bool pinned[NTABLES][NCLASSES];
};

struct interval {
    double value, low, high;
};

#define NMOVERS 3
/* A mover that is no input of the cost model: the kernel configuration,
 * whose runs are different runs (emu compare --article). */
#define MOVER_KCONFIG NINPUTS
struct mover {
    int input;              /* -1: none; MOVER_KCONFIG */
    double at_low, at_high; /* the quantity with that input at its ends */
};

/* Put m among movers if its swing is one of the NMOVERS largest (largest
 * first). */
void movers_add(struct mover movers[NMOVERS], struct mover m);
/* out widened to hold by as well (the union of the two). */
void interval_widen(struct interval *out, const struct interval *by);

/* The interval of a (b == NULL) or of a / b, and the NMOVERS inputs that move
 * it most. */
void interval_of(const struct measure *a, const struct measure *b, const struct model_point *p,
                 struct interval *out, struct mover movers[NMOVERS]);

/* 'in' with the model's inputs for a run of cfg's table: x, overrides. */
struct cpu_config;
void model_point_of(const struct cpu_config *cfg, struct model_point *p);

#endif
