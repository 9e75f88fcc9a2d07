/*
 * The published measurements the model is calibrated on, predicts, or is
 * checked against, each with the replay program that repeats the
 * experiment (guest/programs/) and the interval its printed precision
 * allows. docs/cost-model.md gives the sources; the rules for precision are
 * there too ("Published figures").
 */
#ifndef EMU_PUBLISHED_H
#define EMU_PUBLISHED_H

enum pub_role {
    PUB_CALIBRATION,   /* a ring-crossing cost is solved from it */
    PUB_PREDICTION,    /* what the model predicts (never used to set a cost) */
    PUB_HOLDOUT,       /* not used; printed beside the model as a check */
    PUB_CHECK,         /* a validation figure (emu compare --validate): never
                        * used by the model, nor by --article */
};

struct published {
    const char *id;           /* also the name of its row in the sensitivity lists */
    const char *source;       /* who, where, when */
    const char *as_printed;   /* the figure as its source printed it */
    const char *program;      /* the replay, in build/guest/programs */
    const char *arg;          /* the replay's first argument (NULL: any) */
    const char *model;        /* the CPU model it applies to */
    const char *path;         /* how the measured calls entered the kernel */
    int span;                 /* the replay's measured span: its rdtsc pair, from 1 */
    int minus_span;           /* 0, or a span to subtract (lmbench's loop overhead) */
    double value, low, high;  /* cycles per call */
    enum pub_role role;
};

/* Two figures of one experiment whose ratio was published or implied. */
struct published_ratio {
    const char *fast, *slow;  /* ids */
    const char *claim;        /* what was said about it */
};

extern const struct published published[];
extern const int npublished;
extern const struct published_ratio published_ratios[];
extern const int npublished_ratios;

const struct published *published_find(const char *id);
/* The clock (MHz) of the lmbench summary whose PUB_CHECK figures apply to
 * the CPU model, 0 if none does. */
double published_check_clock(const char *model);

#endif
