/* emu: command line. */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unicorn/unicorn.h>
#include "boot.h"
#include "calibrate.h"
#include "compare.h"
#include "gdb_machine.h"
#include "names.h"
#include "outputs.h"
#include "run.h"
#include "syscalls.h"

#define DEFAULT_CPU "pentium4"
#define DEFAULT_MAX_INSNS 10000000000ull
#define DEFAULT_EPOCH 1040103547u /* 2002-12-17 05:39:07 UTC: the patch's date */
#define MAX_ENV 64
#define MAX_COST_OVERRIDES 16

#include "emu_version.h"   /* EMU_VERSION, written by the Makefile */

static const char usage_text[] =
    "usage: emu run [options] PROGRAM [ARGS...]\n"
    "       emu compare [options] PROGRAM [ARGS...]\n"
    "       emu calibrate [PROGRAMS_DIR]   replay the calibration experiments\n"
    "                                      (scripts/calibrate.sh)\n"
    "       emu --list-cpus | --list-costs | --version | --help\n"
    "       emu run --help | emu compare --help\n"
    "\n"
    "Runs a static i386 Linux program on a modeled Pentium-class CPU under a small\n"
    "Linux-2.5.53-like kernel, and counts the cycles its system calls take through\n"
    "int $0x80 and through sysenter. man emu has the details.\n";

static const char common_options[] =
    "  --cpu NAME[,-sep][,stepping=N]\n"
    "                       CPU model (default " DEFAULT_CPU "); ',-sep' hides SEP;\n"
    "                       ',stepping=N' sets CPUID's stepping\n"
    "  --no-sep             same as ',-sep' on the chosen model\n"
    "  --tsc-skew CPU:OFFSET[:PPM]\n"
    "                       that CPU's TSC: its cycles times (1 + PPM/1e6), plus\n"
    "                       OFFSET cycles (repeatable; default: all in step)\n"
    "  --vgettimeofday      kernel boot option: gettimeofday and\n"
    "                       clock_gettime(CLOCK_REALTIME) in user space, in the\n"
    "                       vsyscall page (the vDSO's __vdso_gettimeofday)\n"
    "  --cost [MODEL:]CLASS=CYCLES\n"
    "                       override one cost class, for every model or one\n"
    "                       (repeatable; emu --list-costs); the calibrated ring\n"
    "                       crossings are solved again unless it names one\n"
    "  --max-insns N        instruction budget (default 10000000000)\n"
    "  --env NAME=VALUE     add to the guest environment (repeatable)\n"
    "  --argv0 NAME         the program's argv[0] (default: PROGRAM as given)\n"
    "  --epoch SECONDS      wall-clock time at boot (default: the patch's date)\n"
    "  --root DIR           the program's '/' is DIR, read-only, under a writable\n"
    "                       layer in memory (without it: only /tmp and /dev)\n"
    "  --mem SIZE           user memory of all processes together, in bytes or\n"
    "                       with K, M or G (default 1G; 16M to 4G)\n"
    "  --smp N              N CPUs (1 to 8, default 1), each its own engine, taking\n"
    "                       turns by modeled time; N > 1 boots the SMP kernel\n"
    "                       with the big kernel lock on every entry\n"
    "  --kernel-config up|smp\n"
    "                       the guest kernel's configuration (default up: the\n"
    "                       kernel the model's figures came from before this\n"
    "                       was an input); smp is CONFIG_SMP on one CPU; the\n"
    "                       image is built for the CPU model's family (-march);\n"
    "                       --smp N > 1 is smp\n"
    "  --kernel VARIANT     the step of the sysenter patch's history the kernel is\n"
    "                       built as: 2.5.53-seed (the patch Linus timed, the\n"
    "                       default), 2.5.53 or 2.5.54 as released, 2.6.0; the\n"
    "                       later ones for --kernel-config up on the pentium4\n"
    "                       and pentium3 families only (docs/fidelity.md)\n"
    "  --fs-size SIZE       what the file tree's in-memory layer may hold, past\n"
    "                       which writes fail with ENOSPC (default 64M; up to 4G)\n"
    "  -v, --verbose        show the guest kernel's boot messages\n";

static const char run_text[] =
    "usage: emu run [options] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM under the modeled CPU and kernel; exits with its status.\n"
    "\n"
    "options:\n"
    "%s"
    "  --strace             print each system call on stderr, as strace does, with\n"
    "                       its entry path in front and its round-trip cycles after\n"
    "  -e trace=NAME,...    only these calls (and classes: %%file, %%desc, %%memory,\n"
    "                       %%process, %%signal, %%clock; !NAME,... for all but)\n"
    "  -o FILE              write the --strace lines to FILE\n"
    "  --report[=FORMAT]    the cycles and system calls, a table like strace -c's,\n"
    "                       on stderr; FORMAT text (default) or json\n"
    "  --report-file FILE   write the report to FILE instead\n"
    "  --trace FILE         write a trace of the system calls and traps\n"
    "  --trace-format FMT   text (default), json (Chrome/Perfetto) or csv\n"
    "  --trace-insns[=WHICH]  also each instruction: user, kernel or all (default)\n"
    "  --trace-window FROM:TO  only what overlaps these cycles (either may be empty)\n"
    "  --profile FILE       write the cycles by guest function (kernel and user)\n"
    "  --profile-format F   callgrind (default; kcachegrind) or folded (flame graphs)\n"
    "  --symbols FILE       the program's symbols, from FILE (for a stripped program)\n"
    "  --progress, --no-progress\n"
    "                       a progress line on stderr (default: when it is a\n"
    "                       terminal, and --strace and --report write elsewhere)\n"
    "  --no-cycle-model     no cycle accounting (for make bench): no cycles,\n"
    "                       traces, budget or modeled TSC\n"
    "  --gdb [HOST:]PORT    serve GDB's remote protocol (HOST 127.0.0.1 unless\n"
    "                       given; PORT 0 picks a free one; emu prints it)\n"
    "  -s                   the same as --gdb " GDB_SHORTHAND_SPEC "\n"
    "  -S, --gdb-wait       with --gdb or -s: stop before the kernel's first\n"
    "                       instruction until a debugger attaches\n"
    "\n"
    "exit status: the program's own; 128+N if a fault killed it with signal N;\n"
    "2 usage error; 124 instruction budget exhausted; 125 machine failure;\n"
    "126 program cannot be run; 127 program not found\n";

static const char compare_text[] =
    "usage: emu compare [options] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM once on each of several CPU models and prints its most frequent\n"
    "system call's (or --syscall's) cycles per call side by side, a row per way the calls went\n"
    "(path, and via the vsyscall page or inline), each with its interval.\n"
    "\n"
    "options:\n"
    "%s"
    "  --cpus LIST          models to compare, ';'-separated (default:\n"
    "                       pentium4;pentium4,-sep;pentium3;pentium3,-sep);\n"
    "                       compare takes its models from here, not --cpu/--no-sep\n"
    "  --article            for the replays (linus_loop, lmbench_null): each\n"
    "                       published figure beside the replay's own, with its\n"
    "                       interval, inside or outside\n"
    "  --validate           for lmbench_validate OP N only: the operation's cycles\n"
    "                       and microseconds beside the era's lmbench summaries\n"
    "                       (docs/validation.md)\n"
    "  --kernel-configs LIST  run each model under each kernel configuration of\n"
    "                       LIST, ';'-separated (e.g. 'up;smp'); with --article\n"
    "                       and neither option, every configuration the sources\n"
    "                       leave open, and intervals over all of them\n"
    "  --syscall NAME       compare this system call, not the most frequent one\n"
    "  --svg FILE           also draw the comparison as an SVG bar chart: bars\n"
    "                       with intervals, published figures, an axis, ratios\n"
    "\n"
    "With --cost, a banner says the model is modified and no published figure\n"
    "is compared for the models it changes. SEP 'unused': CPUID reports it and\n"
    "the kernel did not enable it.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "emu: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (emu --help for usage)\n");
    return 2;
}

static void print_help(const char *text)
{
    /* the options the two commands share, in the middle of each text */
    printf(text, common_options);
}

static void print_version(void)
{
    unsigned major, minor;
    int cs_major, cs_minor;
    unsigned uc = uc_version(&major, &minor);
    cs_version(&cs_major, &cs_minor);
    printf("emu (sysemu) %s\n", EMU_VERSION);
    printf("Unicorn %u.%u.%u (built with %d.%d.%d)\n", major, minor, (uc >> 8) & 0xff,
           UC_API_MAJOR, UC_API_MINOR, UC_API_PATCH);
    printf("Capstone %d.%d (built with %d.%d.%d)\n", cs_major, cs_minor, CS_API_MAJOR,
           CS_API_MINOR, CS_VERSION_EXTRA);
    char kernel[160];
    kernel_image_describe(kernel_builtin(MARCH_PENTIUM4, KCONFIG_UP, 1), kernel, sizeof kernel);
    printf("kernel: %s by default, of %d built-in images\n", kernel, kernel_image_count);
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

/* SIZE, SIZEK, SIZEM or SIZEG, in bytes. */
static bool parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (errno || end == s || s[0] == '-')
        return false;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* A --cpus list: models separated by ';', none of them empty. */
static bool cpu_list_ok(const char *list)
{
    size_t n = strlen(list);
    return n && list[0] != ';' && list[n - 1] != ';' && !strstr(list, ";;");
}

/* "MODEL:CLASS=CYCLES" names one of the models; "CLASS=CYCLES" all. The
 * machine applies each to the runs of its model (machine.c). */
static int check_cost(const char *cost, const char *run_cpu)
{
    const char *colon = strchr(cost, ':');
    if (!colon)
        return 0;
    size_t len = (size_t)(colon - cost);
    bool known = false;
    for (int i = 0; i < cpu_model_count; i++)
        known |= strlen(cpu_models[i].name) == len && !strncmp(cpu_models[i].name, cost, len);
    if (!known)
        return usage_error("--cost '%s' names no CPU model (emu --list-cpus)", cost);
    if (run_cpu && (strncmp(run_cpu, cost, len) || (run_cpu[len] && run_cpu[len] != ',')))
        return usage_error("--cost '%s' is for another model than this run's --cpu", cost);
    return 0;
}

/* A run option about what emu run writes: 1 if it took the value after
 * it, 0 if it took none, -1 if it is not one of them, 2 if it is bad
 * (the reason in err). */
static int output_option(struct outputs *o, const char *a, const char *val, char *err,
                         size_t errlen)
{
    if (!strcmp(a, "--strace")) {
        o->strace = true;
    } else if (!strncmp(a, "--report=", 9)) {
        o->report = true;
        if (report_parse_format(a + 9, &o->report_format))
            return snprintf(err, errlen, "unknown report format '%s' (text or json)", a + 9), 2;
    } else if (!strcmp(a, "--report")) {
        o->report = true;
    } else if (!strncmp(a, "--trace-insns=", 14)) {
        if (trace_parse_insns(a + 14, &o->trace.insns))
            return snprintf(err, errlen, "bad '%s' (user, kernel or all)", a), 2;
    } else if (!strcmp(a, "--trace-insns")) {
        o->trace.insns = INSNS_ALL;
    } else if (!strcmp(a, "--progress")) {
        o->progress_mode = PROGRESS_ON;
    } else if (!strcmp(a, "--no-progress")) {
        o->progress_mode = PROGRESS_OFF;
    } else if (!val) {
        return -1;
    } else if (!strcmp(a, "-o")) {
        o->strace_path = val;
        o->strace = true;
        return 1;
    } else if (!strcmp(a, "-e")) {
        o->strace = true;
        return strace_filter_add(&o->filter, val, err, errlen) ? 2 : 1;
    } else if (!strcmp(a, "--report-file")) {
        o->report_path = val;
        o->report = true;
        return 1;
    } else if (!strcmp(a, "--trace")) {
        o->trace.path = val;
        return 1;
    } else if (!strcmp(a, "--trace-format")) {
        if (trace_parse_format(val, &o->trace.format))
            return snprintf(err, errlen, "unknown trace format '%s' (text, json or csv)", val), 2;
        return 1;
    } else if (!strcmp(a, "--trace-window")) {
        if (trace_parse_window(val, &o->trace.from, &o->trace.to))
            return snprintf(err, errlen, "bad --trace-window '%s' (FROM:TO in cycles)", val), 2;
        return 1;
    } else if (!strcmp(a, "--profile")) {
        o->profile_path = val;
        return 1;
    } else if (!strcmp(a, "--profile-format")) {
        if (profile_parse_format(val, &o->profile_format))
            return snprintf(err, errlen, "unknown profile format '%s' (callgrind or folded)",
                            val), 2;
        return 1;
    } else if (!strcmp(a, "--symbols")) {
        o->symbols_path = val;
        return 1;
    } else {
        return -1;
    }
    return 0;
}

/* The outputs' options, once all are known. */
static int check_outputs(const struct outputs *o, const struct run_options *opts)
{
    if (o->trace.insns != INSNS_NONE && !o->trace.path)
        return usage_error("%s", "--trace-insns needs --trace FILE");
    if ((o->trace.from || o->trace.to) && !o->trace.path)
        return usage_error("%s", "--trace-window needs --trace FILE");
    if (o->symbols_path && !o->trace.path && !o->profile_path)
        return usage_error("%s", "--symbols is for --trace and --profile");
    /* The program's standard output is emu's: a trace there would mix with it. */
    if (o->trace.path && !strcmp(o->trace.path, "-"))
        return usage_error("%s", "--trace - would mix the trace with the program's output; "
                                 "give a file");
    if (opts->no_cycle_model && (o->trace.path || o->profile_path || o->report))
        return usage_error("%s", "--no-cycle-model counts no cycles to trace, profile or "
                                 "report");
    return 0;
}

/* A machine booting the program, with the accounting and the outputs the
 * options ask for. 0, or the exit status with the reason in m->message. */
static int start(struct machine *m, const struct run_options *opts,
                 struct syscall_tracker *sys, struct outputs *o)
{
    int status = machine_init_bare(m, opts);
    if (!status)
        status = outputs_open(o, m);
    if (!status)
        status = machine_boot(m);
    if (!status && syscalls_attach(sys, m))
        status = machine_fail(m, 125, "cannot attach the system-call accounting");
    if (!status)
        status = outputs_attach(o, m, sys);
    return status;
}

/* --gdb: where the stub listens, and whether the machine waits for it. */
struct gdb_options {
    const char *listen;
    bool wait;
};

static int run(const struct run_options *opts, struct outputs *out,
               const struct gdb_options *gdb)
{
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    if (!m || !sys) {
        fprintf(stderr, "emu: out of memory\n");
        free(m);
        free(sys);
        return 125;
    }
    int status = start(m, opts, sys, out);
    if (status == 0) {
        status = gdb->listen ? gdb_machine_run(m, sys, gdb->listen, gdb->wait) : machine_run(m);
        if (outputs_finish(out, m, sys) && !status)
            status = 2;
        if (m->stop != STOP_EXIT)
            fprintf(stderr, "emu: %s: %s\n", opts->program, m->message);
    } else {
        fprintf(stderr, "emu: %s\n", m->message);
    }
    if (outputs_close(out)) {
        fprintf(stderr, "emu: %s: cannot write the trace: %s\n", out->trace.path,
                errno ? strerror(errno) : "write error");
        status = 125;
    }
    machine_destroy(m);
    free(m);
    free(sys);
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
    bool compare = false, cpu_given = false;
    struct compare_options co = { .syscall = -1 };
    struct outputs out = { 0 };
    struct gdb_options gdb = { 0 };
    char err[256];

    if (argc < 2)
        return usage_error("%s", "missing command");
    int i = 1;
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        print_version();
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
    if (!strcmp(argv[1], "calibrate")) {
        if (argc > 3)
            return usage_error("%s", "calibrate takes at most a directory");
        return calibrate_main(argc > 2 ? argv[2] : "build/guest/programs", stdout);
    }
    if (!strcmp(argv[1], "compare"))
        compare = true;
    else if (strcmp(argv[1], "run"))
        return usage_error("unknown command '%s'", argv[1]);
    for (i = 2; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        int took;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_help(compare ? compare_text : run_text);
            return 0;
        } else if (!strcmp(a, "--cpu") && val) {
            opts.cpu_spec = val;
            cpu_given = true;
        } else if (!strcmp(a, "--max-insns") && val) {
            if (!parse_u64(val, &opts.max_insns) || opts.max_insns == 0)
                return usage_error("bad --max-insns '%s'", val);
        } else if (!strcmp(a, "--epoch") && val) {
            uint64_t e;
            if (!parse_u64(val, &e) || e > UINT32_MAX)
                return usage_error("bad --epoch '%s'", val);
            opts.epoch_sec = (uint32_t)e;
        } else if (!strcmp(a, "--mem") && val) {
            if (!parse_size(val, &opts.mem_bytes) || opts.mem_bytes < MIN_MEM_BYTES ||
                opts.mem_bytes > MAX_MEM_BYTES)
                return usage_error("bad --mem '%s' (16M to 4G)", val);
        } else if (!strcmp(a, "--smp") && val) {
            char *end;
            long n = strtol(val, &end, 10);
            if (*end || end == val || n < 1 || n > MAX_CPUS)
                return usage_error("bad --smp '%s' (1 to 8 CPUs)", val);
            opts.smp = (int)n;
        } else if (!strcmp(a, "--kernel-config") && val) {
            opts.kernel_config = kconfig_parse(val);
            if (opts.kernel_config < 0)
                return usage_error("bad --kernel-config '%s' (up or smp)", val);
            co.kconfigs = val;
        } else if (!strcmp(a, "--kernel") && val) {
            opts.kernel_history = khist_parse(val);
            if (opts.kernel_history < 0)
                return usage_error("bad --kernel '%s' (2.5.53-seed, 2.5.53, 2.5.54 or 2.6.0)",
                                   val);
        } else if (compare && !strcmp(a, "--kernel-configs") && val) {
            if (kconfig_parse_list(val) < 0)
                return usage_error("bad --kernel-configs '%s' (up, smp, ';'-separated)", val);
            co.kconfigs = val;
        } else if (!strcmp(a, "--tsc-skew") && val) {
            if (!tsc_skew_parse(val, opts.tsc_skew))
                return usage_error("bad --tsc-skew '%s' (CPU:OFFSET[:PPM]: CPU 0-7, OFFSET "
                                   "cycles, |PPM| < 1000000, each CPU once)", val);
        } else if (!strcmp(a, "--fs-size") && val) {
            if (!parse_size(val, &opts.fs_bytes) || opts.fs_bytes == 0 ||
                opts.fs_bytes > MAX_FS_BYTES)
                return usage_error("bad --fs-size '%s' (1 to 4G)", val);
        } else if (!strcmp(a, "--argv0") && val) {
            opts.argv0 = val;
        } else if (!strcmp(a, "--root") && val) {
            opts.root = val;
        } else if (!strcmp(a, "--cost") && val) {
            if (opts.ncost_overrides == MAX_COST_OVERRIDES)
                return usage_error("%s", "too many --cost options");
            opts.cost_overrides[opts.ncost_overrides++] = val;
        } else if (!strcmp(a, "--env") && val) {
            if (!strchr(val, '='))
                return usage_error("--env wants NAME=VALUE, not '%s'", val);
            if (envc == MAX_ENV)
                return usage_error("%s", "too many --env options");
            env[envc++] = (char *)val;
            env[envc] = NULL;
        } else if (!compare && !strcmp(a, "--gdb") && val) {
            gdb.listen = val;
        } else if (compare && !strcmp(a, "--cpus") && val) {
            co.cpus = val;
        } else if (compare && !strcmp(a, "--svg") && val) {
            co.svg = val;
        } else if (compare && !strcmp(a, "--syscall") && val) {
            co.syscall = syscall_by_name(val);
            if (co.syscall < 0)
                return usage_error("--syscall '%s' names no system call", val);
        } else if (!compare && (took = output_option(&out, a, val, err, sizeof err)) >= 0) {
            if (took == 2)
                return usage_error("%s", err);
            takes = took == 1;
        } else {
            takes = false;
            if (!strcmp(a, "--no-sep"))
                opts.no_sep = true;
            else if (!strcmp(a, "--vgettimeofday"))
                opts.vgettimeofday = true;
            else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
                opts.verbose = true;
            else if (!compare && !strcmp(a, "--no-cycle-model"))
                opts.no_cycle_model = true;
            else if (!compare && !strcmp(a, "-s"))
                gdb.listen = GDB_SHORTHAND_SPEC;
            else if (!compare && (!strcmp(a, "-S") || !strcmp(a, "--gdb-wait")))
                gdb.wait = true;
            else if (compare && !strcmp(a, "--article"))
                co.article = true;
            else if (compare && !strcmp(a, "--validate"))
                co.validate = true;
            else if (compare && output_option(&(struct outputs){ 0 }, a, val, err,
                                              sizeof err) >= 0)
                return usage_error("'%s' is an emu run option; compare does not take it", a);
            else
                return usage_error("unknown or incomplete option '%s'", a);
        }
        if (takes)
            i++;
    }
    if (i >= argc)
        return usage_error("%s", "missing PROGRAM");
    if (co.cpus && !cpu_list_ok(co.cpus))
        return usage_error("--cpus wants CPU models separated by ';', not '%s'", co.cpus);
    /* compare runs the models of --cpus, each with or without SEP */
    if (compare && (cpu_given || opts.no_sep))
        return usage_error("%s", "emu compare takes its models from --cpus "
                                 "(e.g. --cpus 'pentium4;pentium4,-sep'), not --cpu or --no-sep");
    for (int c = 0; c < opts.ncost_overrides; c++) {
        int rc = check_cost(opts.cost_overrides[c], compare ? NULL : opts.cpu_spec);
        if (rc)
            return rc;
    }
    if (opts.smp > 1 && co.kconfigs && (kconfig_parse_list(co.kconfigs) & (1 << KCONFIG_UP)))
        return usage_error("%s", "--smp N > 1 boots the smp kernel; --kernel-config up "
                                 "cannot have it");
    if (opts.kernel_history != KHIST_SEED &&
        (opts.smp > 1 || (co.kconfigs && (kconfig_parse_list(co.kconfigs) & (1 << KCONFIG_SMP)))))
        return usage_error("--kernel %s is built for the up configuration only",
                           khist_name(opts.kernel_history));
    for (int c = opts.smp > 1 ? opts.smp : 1; c < SMP_MAX_CPUS; c++)
        if (opts.tsc_skew[c].set)
            return usage_error("%s", "--tsc-skew names a CPU the machine does not have "
                                     "(--smp)");
    opts.program = argv[i];
    opts.argc = argc - i;
    opts.argv = argv + i;
    opts.envp = env;

    if (compare)
        return compare_main(&opts, &co);
    if (gdb.wait && !gdb.listen)
        return usage_error("%s", "--gdb-wait (-S) needs --gdb PORT or -s");
    if (gdb.listen && opts.no_cycle_model)
        return usage_error("%s", "--gdb needs the cycle model (not --no-cycle-model)");
    int rc = check_outputs(&out, &opts);
    return rc ? rc : run(&opts, &out, &gdb);
}
