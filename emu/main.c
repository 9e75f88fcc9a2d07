/* emu: command line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "boot.h"
#include "compare.h"
#include "report.h"
#include "run.h"
#include "strace.h"
#include "syscalls.h"
#include "trace.h"

#define DEFAULT_CPU "pentium4"
#define DEFAULT_MAX_INSNS 2000000000ull
#define DEFAULT_EPOCH 1040103547u /* 2002-12-17 05:39:07 UTC: the patch's date */
#define MAX_ENV 64

static const char usage_text[] =
    "usage: emu run [options] PROGRAM [ARGS...]\n"
    "       emu compare [options] PROGRAM [ARGS...]\n"
    "       emu --list-cpus | --list-costs\n"
    "\n"
    "Runs a static i386 Linux program on a modeled Pentium-class CPU under a small\n"
    "Linux-2.5.53-like kernel, and counts the cycles its system calls take through\n"
    "int $0x80 and through sysenter.\n"
    "\n"
    "options (run and compare):\n"
    "  --cpu NAME[,-sep]    CPU model (default " DEFAULT_CPU "); ',-sep' hides SEP\n"
    "  --no-sep             same as ',-sep' on the chosen model\n"
    "  --cost CLASS=CYCLES  override one cost class (repeatable; emu --list-costs)\n"
    "  --max-insns N        instruction budget (default 2000000000)\n"
    "  --env NAME=VALUE     add to the guest environment (repeatable)\n"
    "  --argv0 NAME         the program's argv[0] (default: PROGRAM as given)\n"
    "  --epoch SECONDS      wall-clock time at boot (default: the patch's date)\n"
    "  --root DIR           let the program read the files under DIR, as its '/'\n"
    "                       (read-only; without it, every open fails with ENOENT)\n"
    "  -v, --verbose        show the guest kernel's boot messages\n"
    "options (run):\n"
    "  --strace             print each system call on stderr\n"
    "  --report             print a cycle and system-call summary on stderr\n"
    "  --trace FILE         write a trace ('-' for stdout)\n"
    "  --trace-format FMT   text (default), json (Chrome/Perfetto) or csv\n"
    "  --trace-insns        also trace every instruction\n"
    "  --no-cycle-model     no cycle accounting (for make bench): no cycles,\n"
    "                       traces, budget or modeled TSC\n"
    "options (compare):\n"
    "  --cpus LIST          models to compare, ';'-separated (default:\n"
    "                       pentium4;pentium4,-sep;pentium3;pentium3,-sep)\n"
    "  --article            show the figures the 2002 article and Linus reported\n"
    "  --svg FILE           also draw the comparison as an SVG bar chart\n"
    "\n"
    "exit status: the program's own; 128+N if a fault killed it with signal N;\n"
    "2 usage error; 124 instruction budget exhausted; 125 machine failure;\n"
    "126 program cannot be run; 127 program not found\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "emu: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (emu --help for usage)\n");
    return 2;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        return false;
    *out = v;
    return true;
}

/* A --cpus list: models separated by ';', none of them empty. */
static bool cpu_list_ok(const char *list)
{
    size_t n = strlen(list);
    if (n == 0 || list[0] == ';' || list[n - 1] == ';' || strstr(list, ";;"))
        return false;
    return true;
}

/* The trace file of --trace, opened before the guest is loaded. */
static int open_trace(struct machine *m, const struct run_options *opts, struct trace **out)
{
    char err[256];
    enum trace_format fmt = TRACE_TEXT;
    if (opts->trace_format && trace_parse_format(opts->trace_format, &fmt))
        return machine_fail(m, 2, "unknown trace format '%s' (text, json or csv)",
                            opts->trace_format);
    *out = trace_open(opts->trace_path, fmt, opts->trace_insns, m->cpu.model->clock_mhz,
                      err, sizeof err);
    return *out ? 0 : machine_fail(m, 2, "%s", err);
}

/* A machine booting the program, with the accounting and the outputs the
 * options ask for. 0, or the exit status with the reason in m->message. */
static int start(struct machine *m, const struct run_options *opts,
                 struct syscall_tracker *sys, struct trace **trace)
{
    int status = machine_init_bare(m, opts);
    if (!status && opts->trace_path)
        status = open_trace(m, opts, trace);
    if (!status)
        status = machine_boot(m);
    if (!status && (syscalls_attach(sys, m) || (*trace && trace_attach(*trace, m, sys)) ||
                    (opts->strace && strace_attach(m, sys))))
        status = machine_fail(m, 125, "cannot attach the system-call accounting");
    return status;
}

int main(int argc, char **argv)
{
    struct run_options opts = {
        .cpu_spec = DEFAULT_CPU,
        .max_insns = DEFAULT_MAX_INSNS,
        .epoch_sec = DEFAULT_EPOCH,
    };
    char *env[MAX_ENV + 1] = { "PATH=/usr/bin:/bin", "HOME=/", NULL };
    int envc = 2;
    bool report = false, article = false, compare = false;
    const char *cpus = NULL, *svg = NULL;

    if (argc < 2)
        return usage_error("%s", "missing command");
    int i = 1;
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--list-cpus") || !strcmp(argv[1], "list-cpus")) {
        cpu_models_list(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--list-costs") || !strcmp(argv[1], "list-costs")) {
        cpu_costs_list(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "compare"))
        compare = true;
    else if (strcmp(argv[1], "run"))
        return usage_error("unknown command '%s'", argv[1]);
    for (i = 2; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--cpu") && val) {
            opts.cpu_spec = val;
        } else if (!strcmp(a, "--max-insns") && val) {
            if (!parse_u64(val, &opts.max_insns) || opts.max_insns == 0)
                return usage_error("bad --max-insns '%s'", val);
        } else if (!strcmp(a, "--epoch") && val) {
            uint64_t e;
            if (!parse_u64(val, &e) || e > UINT32_MAX)
                return usage_error("bad --epoch '%s'", val);
            opts.epoch_sec = (uint32_t)e;
        } else if (!strcmp(a, "--argv0") && val) {
            opts.argv0 = val;
        } else if (!strcmp(a, "--root") && val) {
            opts.root = val;
        } else if (!strcmp(a, "--cost") && val) {
            if (opts.ncost_overrides == 16)
                return usage_error("%s", "too many --cost options");
            opts.cost_overrides[opts.ncost_overrides++] = val;
        } else if (!strcmp(a, "--env") && val) {
            if (!strchr(val, '='))
                return usage_error("--env wants NAME=VALUE, not '%s'", val);
            if (envc == MAX_ENV)
                return usage_error("%s", "too many --env options");
            env[envc++] = (char *)val;
            env[envc] = NULL;
        } else if (!compare && !strcmp(a, "--trace") && val) {
            opts.trace_path = val;
        } else if (!compare && !strcmp(a, "--trace-format") && val) {
            opts.trace_format = val;
        } else if (compare && !strcmp(a, "--cpus") && val) {
            cpus = val;
        } else if (compare && !strcmp(a, "--svg") && val) {
            svg = val;
        } else {
            takes = false;
            if (!strcmp(a, "--no-sep"))
                opts.no_sep = true;
            else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
                opts.verbose = true;
            else if (!compare && !strcmp(a, "--strace"))
                opts.strace = true;
            else if (!compare && !strcmp(a, "--report"))
                report = true;
            else if (!compare && !strcmp(a, "--trace-insns"))
                opts.trace_insns = true;
            else if (!compare && !strcmp(a, "--no-cycle-model"))
                opts.no_cycle_model = true;
            else if (compare && !strcmp(a, "--article"))
                article = true;
            else
                return usage_error("unknown or incomplete option '%s'", a);
        }
        if (takes)
            i++;
    }
    if (i >= argc)
        return usage_error("%s", "missing PROGRAM");
    if (cpus && !cpu_list_ok(cpus))
        return usage_error("--cpus wants CPU models separated by ';', not '%s'", cpus);
    if (opts.trace_insns && !opts.trace_path)
        return usage_error("%s", "--trace-insns needs --trace FILE");
    opts.program = argv[i];
    opts.argc = argc - i;
    opts.argv = argv + i;
    opts.envp = env;

    if (compare)
        return compare_main(&opts, cpus, article, svg);

    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    struct trace *trace = NULL;
    if (!m || !sys) {
        fprintf(stderr, "emu: out of memory\n");
        return 125;
    }
    int status = start(m, &opts, sys, &trace);
    if (status == 0) {
        status = machine_run(m);
        if (m->stop != STOP_EXIT)
            fprintf(stderr, "emu: %s: %s\n", opts.program, m->message);
        if (report)
            report_print(m, sys, stderr);
    } else {
        fprintf(stderr, "emu: %s\n", m->message);
    }
    if (trace_close(trace)) {
        fprintf(stderr, "emu: %s: cannot write the trace: %s\n", opts.trace_path,
                errno ? strerror(errno) : "write error");
        status = 125;
    }
    machine_destroy(m);
    free(m);
    free(sys);
    return status;
}
