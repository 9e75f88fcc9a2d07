/* CPU models: CPUID identity, SEP support and the cycle cost table. */
#ifndef EMU_CPU_MODELS_H
#define EMU_CPU_MODELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cost_classes.h"

struct cpu_model {
    const char *name;
    const char *description;
    uint32_t family, model, stepping;
    uint32_t features_edx;      /* CPUID.1:EDX as the part reports it */
    bool sysenter_works;        /* false: reports SEP yet sysenter is #UD */
    uint32_t clock_mhz;         /* for the TSC calibration the kernel gets */
    const char *brand;
    const uint32_t *cost;       /* centicycles per insn_class */
};

/* A model as configured for one run. */
struct cpu_config {
    const struct cpu_model *model;
    bool sep_reported;          /* CPUID.1:EDX.SEP */
    bool sep_works;             /* sysenter and the SYSENTER MSRs exist */
    uint32_t cost[NCLASSES];    /* the model's table, with --cost overrides */
};

extern const struct cpu_model cpu_models[];
extern const int cpu_model_count;

/* Parse "NAME[,-sep]"; returns 0, or -1 with a message in err. */
int cpu_config_parse(const char *spec, bool no_sep, struct cpu_config *out,
                     char *err, int errlen);
/* Apply "CLASS=CYCLES" to cfg->cost; 0, or -1 with a message in err. */
int cpu_cost_override(struct cpu_config *cfg, const char *assignment, char *err, int errlen);
void cpu_costs_list(FILE *out);
/* "alu", "sysenter" ...: the name of an enum insn_class. */
const char *class_name(int cls);
uint32_t cpu_signature(const struct cpu_model *m);
uint32_t cpu_features(const struct cpu_config *c);
void cpu_models_list(FILE *out);

#endif
