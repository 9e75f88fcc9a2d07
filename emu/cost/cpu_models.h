/* CPU models: CPUID identity, SEP support and the cycle cost table. */
#ifndef EMU_CPU_MODELS_H
#define EMU_CPU_MODELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cost/cost_classes.h"
#include "cost/cost_model.h"
#include "image/kconfig.h"

/* What a part does with sysenter and sysexit when CPUID reports SEP. */
enum sep_kind {
    SEP_WORKS,        /* as the SDM describes (Pentium II model 3 stepping 3 on) */
    SEP_UNSUPPORTED,  /* the Pentium Pro: Intel: "does not support" them. The
                         instructions and MSRs are there: with SYSENTER_CS = 0
                         sysenter is #GP(0), as on any part; with the MSRs set,
                         undocumented (docs/cost-model.md, "Pentium Pro") */
};

struct cpu_model {
    const char *name;
    const char *description;
    const char *vendor;         /* CPUID.0: "GenuineIntel", "AuthenticAMD" */
    uint32_t max_leaf;          /* CPUID.0:EAX */
    uint32_t family, model, stepping;
    uint32_t features_edx;      /* CPUID.1:EDX as the part reports it */
    uint32_t ext_features_edx;  /* CPUID.80000001h:EDX (0 on the Intel parts) */
    enum sep_kind sep;          /* what sysenter does where SEP is reported */
    uint32_t clock_mhz;         /* for the TSC calibration the kernel gets */
    const char *brand;
    int table;                  /* enum cost_table: its cycle costs */
    int march;                  /* enum kernel_march: the kernel image built for
                                   it, as 2.5.53's configuration named the part */
};

/* A model as configured for one run. */
struct cpu_config {
    const struct cpu_model *model;
    bool sep_reported;          /* CPUID.1:EDX.SEP */
    bool sep_works;             /* sysenter and the SYSENTER MSRs work */
    bool sep_unsupported;       /* SEP reported on a part that does not support it */
    uint32_t stepping;          /* the model's, or ",stepping=N" */
    int kconfig;                /* enum kernel_config: whose calibration */
    uint32_t cost[NCLASSES];    /* centicycles: the model's table at inputs */
    double inputs[NINPUTS];     /* the cost model's inputs (cost_model.h), with */
    bool pinned[NCLASSES];      /* --cost overrides; pinned: an overridden
                                   calibrated or tied class */
};

extern const struct cpu_model cpu_models[];
extern const int cpu_model_count;

/* Parse "NAME[,-sep][,stepping=N]"; returns 0, or -1 with a message in err. */
int cpu_config_parse(const char *spec, bool no_sep, struct cpu_config *out,
                     char *err, int errlen);
/* The kernel configuration the run boots: its calibration gives the
 * crossings (cfg->cost recomputed). */
void cpu_config_kernel(struct cpu_config *cfg, int kconfig);
/* --cost [MODEL:]CLASS=CYCLES: one cost class set, on every model or on
 * MODEL's runs only. A ':' before the '=' ends MODEL, which must be a model
 * of cpu_models; CLASS one of class_name's; CYCLES from 0 to 1e6. */
#define MAX_COST_OVERRIDES 16
struct cost_override {
    const char *text;               /* as given: for the banners and reports */
    const struct cpu_model *model;  /* NULL: every model */
    int cls;                        /* enum insn_class */
    double cycles;
};
/* 0, or -1 with a one-line reason in err. */
int cost_override_parse(const char *text, struct cost_override *out, char *err, int errlen);
/* Is o for the runs of model? */
bool cost_override_applies(const struct cost_override *o, const struct cpu_model *model);
/* Apply o to cfg's inputs and recompute cfg->cost (the calibrated classes
 * are solved again unless o names one of them). */
void cpu_cost_override(struct cpu_config *cfg, const struct cost_override *o);
void cpu_costs_list(FILE *out);
/* The class named name, or -1. */
int class_by_name(const char *name);
/* "alu", "sysenter" ...: the name of an enum insn_class. */
const char *class_name(int cls);
/* CPUID.1:EAX: family, model and the configured stepping. */
uint32_t cpu_signature(const struct cpu_config *c);
uint32_t cpu_features(const struct cpu_config *c);
void cpu_models_list(FILE *out);
/* The rule for which kernel configuration stands for the machine behind a
 * model's published figures (docs/cost-model.md, "Kernel configuration"):
 * the central one, and whether the sources leave it open (then emu compare
 * --article runs every configuration and its intervals span them). */
struct kconfig_rule {
    int central;                /* enum kernel_config */
    bool open;
};
struct kconfig_rule cpu_kconfig_rule(const struct cpu_model *m);

#endif
