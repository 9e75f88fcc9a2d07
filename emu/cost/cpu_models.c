/*
 * The CPU models. Identity (CPUID) and SEP behaviour are facts about the
 * parts; each model's cycle costs are its table's (cost_model.h: a cost per
 * instruction class, solved for the calibrated crossings), with --cost
 * overrides; docs/cost-model.md gives every number's source and interval.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../guest/x86.h"
#include "cost/cpu_models.h"

#define P6_FEATURES (CPUID_FEATURE_FPU | (1u << 1) | (1u << 2) | (1u << 3) | \
                     CPUID_FEATURE_TSC | CPUID_FEATURE_MSR | (1u << 6) | (1u << 7) | \
                     CPUID_FEATURE_CX8 | (1u << 9) | CPUID_FEATURE_SEP | (1u << 12) | \
                     (1u << 13) | (1u << 14) | (1u << 15))
#define P3_FEATURES (P6_FEATURES | (1u << 16) | (1u << 17) | (1u << 23) | (1u << 24) | \
                     (1u << 25))
#define P4_FEATURES (P3_FEATURES | (1u << 19) | (1u << 21) | (1u << 22) | (1u << 26) | \
                     (1u << 27) | (1u << 28) | (1u << 29) | (1u << 31))

/* As the parts reported them to Linux: an Athlon XP 2000+ of stepping 2
 * ("caps: 0383fbff c1c3fbff", linux-kernel, 21 Jan 2003) and a Banias
 * 1600 (x86info, linux-kernel, 12 Jun 2003: no PAE, no APIC). */
#define K7_FEATURES 0x0383fbffu
#define K7_EXT_FEATURES 0xc1c3fbffu
#define BANIAS_FEATURES 0xa7e9f9bfu

const struct cpu_model cpu_models[] = {
    {
        .name = "pentium4",
        .description = "Pentium 4 (Northwood), 2.4 GHz",
        .vendor = "GenuineIntel", .max_leaf = 2,
        .family = 15, .model = 2, .stepping = 7,
        .features_edx = P4_FEATURES,
        .sep = SEP_WORKS,
        .clock_mhz = 2400,
        .brand = "Intel(R) Pentium(R) 4 CPU 2.40GHz",
        .table = TABLE_P4,
        .march = MARCH_PENTIUM4,    /* CONFIG_MPENTIUM4 */
    },
    {
        .name = "pentium3",
        .description = "Pentium III (Coppermine), 850 MHz",
        .vendor = "GenuineIntel", .max_leaf = 2,
        .family = 6, .model = 8, .stepping = 6,
        .features_edx = P3_FEATURES,
        .sep = SEP_WORKS,
        .clock_mhz = 850,
        .brand = NULL,
        .table = TABLE_P6,
        .march = MARCH_PENTIUM3,    /* CONFIG_MPENTIUMIII */
    },
    {
        .name = "pentiumpro",
        .description = "Pentium Pro, 200 MHz: reports SEP but does not support it",
        .vendor = "GenuineIntel", .max_leaf = 2,
        .family = 6, .model = 1, .stepping = 1,
        .features_edx = P6_FEATURES,
        .sep = SEP_UNSUPPORTED,
        .clock_mhz = 200,
        .brand = NULL,
        .table = TABLE_P6,
        .march = MARCH_I686,        /* CONFIG_M686: "Pentium-Pro" */
    },
    /* The parts below have no calibrated row: every cost is a table's cell
     * or a declared rule's (docs/cost-model.md, "AMD K7" and "Pentium M"),
     * and what they give is a prediction. Identity: docs/cost-model.md,
     * "The new parts". */
    {
        .name = "athlon",
        .description = "AMD Athlon XP 2000+ (K7, Palomino), 1667 MHz",
        .vendor = "AuthenticAMD", .max_leaf = 1,
        .family = 6, .model = 6, .stepping = 2,
        .features_edx = K7_FEATURES,
        .ext_features_edx = K7_EXT_FEATURES,
        .sep = SEP_WORKS,
        .clock_mhz = 1667,
        .brand = "AMD Athlon(tm) XP 2000+",
        .table = TABLE_K7,
        .march = MARCH_ATHLON,      /* CONFIG_MK7: "Athlon/Duron/K7" */
    },
    {
        .name = "pentium-m",
        .description = "Pentium M (Banias), 1.6 GHz",
        .vendor = "GenuineIntel", .max_leaf = 2,
        .family = 6, .model = 9, .stepping = 5,
        .features_edx = BANIAS_FEATURES,
        .sep = SEP_WORKS,
        .clock_mhz = 1600,
        .brand = "        Intel(R) Pentium(R) M processor 1600MHz",
        .table = TABLE_PM,
        .march = MARCH_PENTIUM3,    /* 2.5.53 has no Pentium M option: CONFIG_MPENTIUMIII */
    },
};
const int cpu_model_count = sizeof cpu_models / sizeof cpu_models[0];

/* RULE (lead): docs/cost-model.md, "Kernel configuration". Until the rule
 * is written: the image today's figures came from (up) is central, and the
 * configuration is open for the parts Linus measured. */
static const struct {
    const char *model;
    struct kconfig_rule rule;
} kconfig_rules[] = {
    { "pentium4", { KCONFIG_UP, true } },
    { "pentium3", { KCONFIG_UP, true } },
    { "pentiumpro", { KCONFIG_UP, false } },
    /* no timing of these parts is compared with the model (rule K) */
    { "athlon", { KCONFIG_UP, false } },
    { "pentium-m", { KCONFIG_UP, false } },
};

struct kconfig_rule cpu_kconfig_rule(const struct cpu_model *m)
{
    for (size_t i = 0; i < sizeof kconfig_rules / sizeof kconfig_rules[0]; i++)
        if (!strcmp(kconfig_rules[i].model, m->name))
            return kconfig_rules[i].rule;
    return (struct kconfig_rule){ KCONFIG_UP, false };
}

static void cpu_config_costs(struct cpu_config *cfg)
{
    double v[NCLASSES];
    cost_eval(cfg->inputs, cfg->model->table, cfg->kconfig, cfg->pinned, v);
    for (int c = 0; c < NCLASSES; c++)
        cfg->cost[c] = v[c] > 0 ? CENTI(v[c]) : 0;
}

uint32_t cpu_signature(const struct cpu_config *c)
{
    return (c->model->family << 8) | (c->model->model << 4) | c->stepping;
}

uint32_t cpu_features(const struct cpu_config *c)
{
    uint32_t f = c->model->features_edx;
    return c->sep_reported ? f : f & ~CPUID_FEATURE_SEP;
}

int cpu_config_parse(const char *spec, bool no_sep, struct cpu_config *out,
                     char *err, int errlen)
{
    char name[64];
    const char *comma = strchr(spec, ',');
    size_t len = comma ? (size_t)(comma - spec) : strlen(spec);
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, spec, len);
    name[len] = 0;

    int stepping = -1;
    for (const char *flag = comma; flag; flag = strchr(flag + 1, ',')) {
        const char *end = strchr(flag + 1, ',');
        size_t flen = end ? (size_t)(end - flag - 1) : strlen(flag + 1);
        char *stop;
        if (flen == 4 && !strncmp(flag + 1, "-sep", 4)) {
            no_sep = true;
        } else if (flen > 9 && !strncmp(flag + 1, "stepping=", 9) &&
                   (stepping = (int)strtol(flag + 10, &stop, 10), stop == flag + 1 + flen) &&
                   stepping >= 0 && stepping <= 15) {
            continue;
        } else {
            snprintf(err, (size_t)errlen, "unknown CPU flag '%.*s' in '%s' (known: -sep, "
                     "stepping=0..15)", (int)flen, flag + 1, spec);
            return -1;
        }
    }
    for (int i = 0; i < cpu_model_count; i++) {
        if (strcmp(cpu_models[i].name, name))
            continue;
        out->model = &cpu_models[i];
        out->stepping = stepping >= 0 ? (uint32_t)stepping : cpu_models[i].stepping;
        out->sep_reported = (cpu_models[i].features_edx & CPUID_FEATURE_SEP) && !no_sep;
        out->sep_works = out->sep_reported && cpu_models[i].sep == SEP_WORKS;
        out->sep_unsupported = out->sep_reported && cpu_models[i].sep == SEP_UNSUPPORTED;
        out->kconfig = KCONFIG_UP;
        cost_central(out->inputs);
        memset(out->pinned, 0, sizeof out->pinned);
        cpu_config_costs(out);
        return 0;
    }
    snprintf(err, (size_t)errlen, "unknown CPU model '%s' (emu --list-cpus lists them)", name);
    return -1;
}

void cpu_models_list(FILE *out)
{
    fprintf(out, "%-11s %-10s %-6s %-5s %-9s %s\n", "name", "signature", "family",
            "model", "sysenter", "description");
    for (int i = 0; i < cpu_model_count; i++) {
        const struct cpu_model *m = &cpu_models[i];
        struct cpu_config c = { .model = m, .stepping = m->stepping };
        const char *sep = !(m->features_edx & CPUID_FEATURE_SEP) ? "no"
                        : m->sep == SEP_WORKS ? "yes" : "unsupp.";
        fprintf(out, "%-11s 0x%05x    %-6u %-5u %-9s %s\n", m->name, cpu_signature(&c),
                m->family, m->model, sep, m->description);
        fprintf(out, "%-11s features EDX 0x%08x (SEP %s); add ',-sep' to switch it off\n",
                "", m->features_edx,
                (m->features_edx & CPUID_FEATURE_SEP) ? "reported" : "absent");
        struct kconfig_rule rule = cpu_kconfig_rule(m);
        fprintf(out, "%-11s kernel built -march=%s; behind its published figures: %s%s\n",
                "", kmarch_name(m->march), kconfig_name(rule.central),
                rule.open ? ", open (--article runs up and smp)" : "");
        if (m->sep == SEP_UNSUPPORTED)
            fprintf(out, "%-11s stepping %u: Linux 2.5.53 ignores its SEP (model < 3, stepping "
                    "< 3) and sysenter is #GP(0);\n%-11s ',stepping=9' is Jim Houston's part "
                    "(2003): the check passes, and the first\n%-11s sysexit double-faults "
                    "(undocumented; docs/cost-model.md)\n", "", m->stepping, "", "");
    }
}

static const char *const class_names[NCLASSES] = {
#define X(id, name, what) name,
    COST_CLASSES(X)
#undef X
};

const char *class_name(int cls)
{
    return cls >= 0 && cls < NCLASSES ? class_names[cls] : "?";
}

static const char *const class_what[NCLASSES] = {
#define X(id, name, what) what,
    COST_CLASSES(X)
#undef X
};

int class_by_name(const char *name)
{
    for (int c = 0; c < NCLASSES; c++)
        if (!strcmp(class_names[c], name))
            return c;
    return -1;
}

void cpu_config_kernel(struct cpu_config *cfg, int kconfig)
{
    cfg->kconfig = kconfig;
    cpu_config_costs(cfg);
}

static const struct cpu_model *model_named(const char *name, size_t len)
{
    for (int i = 0; i < cpu_model_count; i++)
        if (strlen(cpu_models[i].name) == len && !strncmp(cpu_models[i].name, name, len))
            return &cpu_models[i];
    return NULL;
}

int cost_override_parse(const char *text, struct cost_override *out, char *err, int errlen)
{
    const char *eq = strchr(text, '='), *colon = strchr(text, ':');
    const char *assignment = text;
    char name[32], *end;
    *out = (struct cost_override){ .text = text };
    if (colon && (!eq || colon < eq)) {
        out->model = model_named(text, (size_t)(colon - text));
        if (!out->model)
            return snprintf(err, (size_t)errlen, "--cost '%s' names no CPU model "
                            "(emu --list-cpus)", text), -1;
        assignment = colon + 1;
    }
    if (eq && (size_t)(eq - assignment) < sizeof name) {
        memcpy(name, assignment, (size_t)(eq - assignment));
        name[eq - assignment] = 0;
        out->cls = class_by_name(name);
        out->cycles = strtod(eq + 1, &end);
        if (out->cls >= 0 && end != eq + 1 && !*end && out->cycles >= 0 && out->cycles <= 1e6)
            return 0;
    }
    snprintf(err, (size_t)errlen, "bad --cost '%s': want [MODEL:]CLASS=CYCLES with a class "
             "from emu --list-costs", text);
    return -1;
}

bool cost_override_applies(const struct cost_override *o, const struct cpu_model *model)
{
    return !o->model || o->model == model;
}

void cpu_cost_override(struct cpu_config *cfg, const struct cost_override *o)
{
    int kind = cost_row_kind(cfg->model->table, o->cls);
    cfg->inputs[INPUT_ROW(cfg->model->table, o->cls)] = o->cycles;
    cfg->pinned[o->cls] = kind == ROW_CALIBRATED || kind == ROW_TIED;
    cpu_config_costs(cfg);
}

static void print_row(FILE *out, int table, int cls, double cost)
{
    int kind = cost_row_kind(table, cls);
    if (kind == ROW_CALIBRATED || kind == ROW_TIED)
        fprintf(out, " %8.2f %-19s", cost, kind == ROW_TIED ? "(tied)" : "(calibrated)");
    else
        fprintf(out, " %8.2f [%7.2f, %7.2f] ", cost, cost_row_low(table, cls),
                cost_row_high(table, cls));
}

/* The models of table t, "athlon" or "pentium3, pentiumpro". */
static void table_models(int t, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < cpu_model_count; i++)
        if (cpu_models[i].table == t)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     cpu_models[i].name);
}

/* A table with its sources (the K7 and PM: nothing calibrated). */
static void costs_list_sourced(FILE *out, int t, const double v[NCLASSES])
{
    char models[64];
    table_models(t, models, sizeof models);
    fprintf(out, "\n%s (%s): nothing calibrated; every row a table's cell or a rule's\n",
            cost_table_name(t), models);
    fprintf(out, "%-15s %-28s %-10s %s\n", "class", "cost [interval]", "kind", "source");
    for (int c = 0; c < NCLASSES; c++) {
        int kind = cost_row_kind(t, c);
        fprintf(out, "%-15s", class_names[c]);
        if (kind == ROW_TIED)
            fprintf(out, " %8.2f %-19s", v[c], "(tied)");
        else
            fprintf(out, " %8.2f [%7.2f, %7.2f] ", v[c], cost_row_low(t, c),
                    cost_row_high(t, c));
        fprintf(out, " %-10s %s\n", cost_kind_name(kind), cost_row_source(t, c));
    }
}

void cpu_costs_list(FILE *out)
{
    double x[NINPUTS], v[NTABLES][NCLASSES];
    cost_central(x);
    for (int t = 0; t < NTABLES; t++)
        cost_eval(x, t, KCONFIG_UP, NULL, v[t]);
    fprintf(out, "%-15s %-28s %-28s %s\n", "class", "P4 (pentium4): cost [interval]",
            "P6 (pentium3, pentiumpro)", "covers");
    for (int c = 0; c < NCLASSES; c++) {
        fprintf(out, "%-15s", class_names[c]);
        for (int t = TABLE_P4; t <= TABLE_P6; t++)
            print_row(out, t, c, v[t][c]);
        fprintf(out, "  %s\n", class_what[c]);
    }
    for (int t = TABLE_K7; t < NTABLES; t++)
        costs_list_sourced(out, t, v[t]);
    fprintf(out, "\ncycles per instruction (rep: per element, and per start) [interval]; "
            "sources and rules in docs/cost-model.md;\ncalibrated rows as the up kernel's "
            "replays give them (--kernel-config)\n");
}
