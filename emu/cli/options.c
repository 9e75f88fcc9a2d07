/* emu's options: the table, and what each one sets (options.h). */
#include "cli/options.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "gdb/gdb_machine.h"
#include "image/kconfig.h"
#include "machine/names.h"

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

#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

/* ---- emu alone, and every command ---- */

static int set_help(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->action = ACTION_HELP;
    return 0;
}

static int set_version(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->action = ACTION_VERSION;
    return 0;
}

static int set_list_cpus(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->action = ACTION_LIST_CPUS;
    return 0;
}

static int set_list_costs(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->action = ACTION_LIST_COSTS;
    return 0;
}

/* ---- the machine: run and compare ---- */

static int set_cpu(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!strcmp(v, "help"))
        c->action = ACTION_LIST_CPUS;
    c->run.cpu_spec = v;
    return 0;
}

static int set_no_sep(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->run.no_sep = true;
    return 0;
}

static int set_tsc_skew(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (!tsc_skew_parse(v, c->run.tsc_skew))
        return FAIL("bad --tsc-skew '%s' (CPU:OFFSET[:PPM]: CPU 0-7, OFFSET cycles, "
                    "|PPM| < 1000000, each CPU once)", v);
    return 0;
}

static int set_vgettimeofday(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->run.vgettimeofday = true;
    return 0;
}

static int set_cost(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (c->run.ncost_overrides == MAX_COST_OVERRIDES)
        return FAIL("too many --cost options (at most %d)", MAX_COST_OVERRIDES);
    struct cost_override *o = &c->run.cost_overrides[c->run.ncost_overrides];
    if (cost_override_parse(v, o, err, (int)errlen))
        return -1;
    c->run.ncost_overrides++;
    return 0;
}

static int set_max_insns(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (!parse_u64(v, &c->run.max_insns) || c->run.max_insns == 0)
        return FAIL("bad --max-insns '%s'", v);
    return 0;
}

static int set_env(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (!strchr(v, '='))
        return FAIL("--env wants NAME=VALUE, not '%s'", v);
    if (c->envc == MAX_ENV)
        return FAIL("too many --env options");
    c->env[c->envc++] = (char *)v;
    c->env[c->envc] = NULL;
    return 0;
}

static int set_argv0(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->run.argv0 = v;
    return 0;
}

static int set_epoch(struct cli *c, const char *v, char *err, size_t errlen)
{
    uint64_t e;
    if (!parse_u64(v, &e) || e > UINT32_MAX)
        return FAIL("bad --epoch '%s'", v);
    c->run.epoch_sec = (uint32_t)e;
    return 0;
}

static int set_root(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->run.root = v;
    return 0;
}

static int set_mem(struct cli *c, const char *v, char *err, size_t errlen)
{
    uint64_t *m = &c->run.mem_bytes;
    if (!parse_size(v, m) || *m < MIN_MEM_BYTES || *m > MAX_MEM_BYTES)
        return FAIL("bad --mem '%s' (16M to 4G)", v);
    return 0;
}

static int set_smp(struct cli *c, const char *v, char *err, size_t errlen)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > MAX_CPUS)
        return FAIL("bad --smp '%s' (1 to %d CPUs)", v, MAX_CPUS);
    c->run.smp = (int)n;
    return 0;
}

static int set_kernel_config(struct cli *c, const char *v, char *err, size_t errlen)
{
    c->run.kernel_config = kconfig_parse(v);
    if (c->run.kernel_config < 0)
        return FAIL("bad --kernel-config '%s' (up or smp)", v);
    c->compare.kconfigs = v;
    return 0;
}

static int set_kernel(struct cli *c, const char *v, char *err, size_t errlen)
{
    c->run.kernel_history = khist_parse(v);
    if (c->run.kernel_history < 0)
        return FAIL("bad --kernel '%s' (2.5.53-seed, 2.5.53, 2.5.54 or 2.6.0)", v);
    return 0;
}

static int set_fs_size(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (!parse_size(v, &c->run.fs_bytes) || c->run.fs_bytes == 0 ||
        c->run.fs_bytes > MAX_FS_BYTES)
        return FAIL("bad --fs-size '%s' (1 to 4G)", v);
    return 0;
}

static int set_verbose(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->run.verbose = true;
    return 0;
}

/* ---- what emu run writes ---- */

static int set_strace(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->out.strace = true;
    return 0;
}

static int set_follow(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)c, (void)v, (void)err, (void)errlen;   /* every process is followed */
    return 0;
}

static int set_filter(struct cli *c, const char *v, char *err, size_t errlen)
{
    c->out.strace = true;
    return strace_filter_add(&c->out.filter, v, err, errlen) ? -1 : 0;
}

static int set_strace_file(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->out.strace = true;
    c->out.strace_path = v;
    return 0;
}

static int set_report(struct cli *c, const char *v, char *err, size_t errlen)
{
    c->out.report = true;
    if (v && report_parse_format(v, &c->out.report_format))
        return FAIL("unknown report format '%s' (text or json)", v);
    return 0;
}

static int set_report_file(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->out.report = true;
    c->out.report_path = v;
    return 0;
}

static int set_trace(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->out.trace.path = v;
    return 0;
}

static int set_trace_format(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (trace_parse_format(v, &c->out.trace.format))
        return FAIL("unknown trace format '%s' (text, json or csv)", v);
    return 0;
}

static int set_trace_insns(struct cli *c, const char *v, char *err, size_t errlen)
{
    c->out.trace.insns = INSNS_ALL;
    if (v && trace_parse_insns(v, &c->out.trace.insns))
        return FAIL("bad '--trace-insns=%s' (user, kernel or all)", v);
    return 0;
}

static int set_trace_window(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (trace_parse_window(v, &c->out.trace.from, &c->out.trace.to))
        return FAIL("bad --trace-window '%s' (FROM:TO in cycles)", v);
    return 0;
}

static int set_profile(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->out.profile_path = v;
    return 0;
}

static int set_profile_format(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (profile_parse_format(v, &c->out.profile_format))
        return FAIL("unknown profile format '%s' (callgrind or folded)", v);
    return 0;
}

static int set_symbols(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->out.symbols_path = v;
    return 0;
}

static int set_progress(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->out.progress_mode = PROGRESS_ON;
    return 0;
}

static int set_no_progress(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->out.progress_mode = PROGRESS_OFF;
    return 0;
}

static int set_no_cycle_model(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->run.no_cycle_model = true;
    return 0;
}

static int set_gdb(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->gdb_listen = v;
    return 0;
}

static int set_gdb_shorthand(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->gdb_listen = GDB_SHORTHAND_SPEC;
    return 0;
}

static int set_gdb_wait(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->gdb_wait = true;
    return 0;
}

/* ---- emu compare's ---- */

static int set_cpus(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (!strcmp(v, "help"))
        c->action = ACTION_LIST_CPUS;
    else if (!cpu_list_ok(v))
        return FAIL("--cpus wants CPU models separated by ';', not '%s'", v);
    c->compare.cpus = v;
    return 0;
}

static int set_article(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->compare.article = true;
    return 0;
}

static int set_validate(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    c->compare.validate = true;
    return 0;
}

static int set_kernel_configs(struct cli *c, const char *v, char *err, size_t errlen)
{
    if (kconfig_parse_list(v) < 0)
        return FAIL("bad --kernel-configs '%s' (up, smp, ';'-separated)", v);
    c->compare.kconfigs = v;
    return 0;
}

static int set_syscall(struct cli *c, const char *v, char *err, size_t errlen)
{
    c->compare.syscall = syscall_by_name(v);
    if (c->compare.syscall < 0)
        return FAIL("--syscall '%s' names no system call", v);
    return 0;
}

static int set_svg(struct cli *c, const char *v, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    c->compare.svg = v;
    return 0;
}

#define RUN_COMPARE (CMD_RUN | CMD_COMPARE)
#define COMPARE_TAKES_CPUS "emu compare takes its models from --cpus " \
    "(e.g. --cpus 'pentium4;pentium4,-sep')"

/* In the order each command's --help lists them. */
const struct option_spec cli_options[] = {
    { "--help", 'h', NULL, false, CMD_ALL, set_help, "this help", NULL, NULL },
    { "--version", 0, NULL, false, CMD_EMU, set_version,
      "emu's, Unicorn's and Capstone's versions, and the default kernel image", NULL, NULL },
    { "--list-cpus", 0, NULL, false, CMD_EMU, set_list_cpus, "the CPU models", NULL, NULL },
    { "--list-costs", 0, NULL, false, CMD_EMU, set_list_costs,
      "each cost class: its cycles and interval per table", NULL, NULL },
    { "--cpu", 0, "NAME[,-sep][,stepping=N]", false, CMD_RUN, set_cpu,
      "CPU model (default pentium4; 'help' lists them); ',-sep' hides SEP; ',stepping=N' sets "
      "CPUID's stepping", COMPARE_TAKES_CPUS, NULL },
    { "--no-sep", 0, NULL, false, CMD_RUN, set_no_sep, "same as ',-sep' on the chosen model",
      COMPARE_TAKES_CPUS, NULL },
    { "--tsc-skew", 0, "CPU:OFFSET[:PPM]", false, RUN_COMPARE, set_tsc_skew,
      "that CPU's TSC: its cycles times (1 + PPM/1e6), plus OFFSET cycles (repeatable; "
      "default: all in step)", NULL, NULL },
    { "--vgettimeofday", 0, NULL, false, RUN_COMPARE, set_vgettimeofday,
      "kernel boot option: gettimeofday and clock_gettime(CLOCK_REALTIME) in user space, in "
      "the vsyscall page (the vDSO's __vdso_gettimeofday)", NULL, NULL },
    { "--cost", 0, "[MODEL:]CLASS=CYCLES", false, RUN_COMPARE, set_cost,
      "override one cost class, for every model or one (repeatable; emu --list-costs); the "
      "calibrated ring crossings are solved again unless it names one", NULL, NULL },
    { "--max-insns", 0, "N", false, RUN_COMPARE, set_max_insns,
      "instruction budget (default 100000000000)", NULL, NULL },
    { "--env", 0, "NAME=VALUE", false, RUN_COMPARE, set_env,
      "add to the guest environment (repeatable)", NULL, NULL },
    { "--argv0", 0, "NAME", false, RUN_COMPARE, set_argv0,
      "the program's argv[0] (default: PROGRAM as given)", NULL, NULL },
    { "--epoch", 0, "SECONDS", false, RUN_COMPARE, set_epoch,
      "wall-clock time at boot (default: the patch's date)", NULL, NULL },
    { "--root", 0, "DIR", false, RUN_COMPARE, set_root,
      "the program's '/' is DIR, read-only, under a writable layer in memory (without it: "
      "only /tmp and /dev)", NULL, NULL },
    { "--mem", 0, "SIZE", false, RUN_COMPARE, set_mem,
      "user memory of all processes together, in bytes or with K, M or G (default 1G; 16M to "
      "4G)", NULL, NULL },
    { "--smp", 0, "N", false, RUN_COMPARE, set_smp,
      "N CPUs (1 to 8, default 1), each its own engine, taking turns by modeled time; N > 1 "
      "boots the SMP kernel with the big kernel lock on every entry", NULL, NULL },
    { "--kernel-config", 0, "up|smp", false, RUN_COMPARE, set_kernel_config,
      "the guest kernel's configuration (default up: the kernel the model's figures came "
      "from before this was an input); smp is CONFIG_SMP on one CPU; the image is built for "
      "the CPU model's family (-march); --smp N > 1 is smp", NULL, NULL },
    { "--kernel", 0, "VARIANT", false, RUN_COMPARE, set_kernel,
      "the step of the sysenter patch's history the kernel is built as: 2.5.53-seed (the "
      "patch Linus timed, the default), 2.5.53 or 2.5.54 as released, 2.6.0; the later ones "
      "for --kernel-config up on the pentium4 and pentium3 families only (docs/fidelity.md)",
      NULL, NULL },
    { "--fs-size", 0, "SIZE", false, RUN_COMPARE, set_fs_size,
      "what the file tree's in-memory layer may hold, past which writes fail with ENOSPC "
      "(default 64M; up to 4G)", NULL, NULL },
    { "--verbose", 'v', NULL, false, RUN_COMPARE, set_verbose,
      "show the guest kernel's boot messages", NULL, NULL },
    { "--strace", 0, NULL, false, CMD_RUN, set_strace,
      "print each system call on stderr, as strace does, with its entry path in front and "
      "its round-trip cycles after", NULL, NULL },
    { NULL, 'f', NULL, false, CMD_RUN, set_follow,
      "taken for strace's sake: every process is followed anyway ([pid N] in front when "
      "there are several)", NULL, NULL },
    { NULL, 'e', "trace=NAME,...", false, CMD_RUN, set_filter,
      "only these calls (and classes: %file, %desc, %memory, %process, %signal, %clock; "
      "!NAME,... for all but)", NULL, NULL },
    { NULL, 'o', "FILE", false, CMD_RUN, set_strace_file, "write the --strace lines to FILE",
      NULL, NULL },
    { "--report", 0, "FORMAT", true, CMD_RUN, set_report,
      "the cycles and system calls, a table like strace -c's, on stderr; FORMAT text "
      "(default) or json", NULL, NULL },
    { "--report-file", 0, "FILE", false, CMD_RUN, set_report_file,
      "write the report to FILE instead", NULL, NULL },
    { "--trace", 0, "FILE", false, CMD_RUN, set_trace,
      "write a trace of the system calls and traps", NULL, NULL },
    { "--trace-format", 0, "FMT", false, CMD_RUN, set_trace_format,
      "text (default), json (Chrome/Perfetto) or csv", NULL, NULL },
    { "--trace-insns", 0, "WHICH", true, CMD_RUN, set_trace_insns,
      "also each instruction: user, kernel or all (default)", NULL, NULL },
    { "--trace-window", 0, "FROM:TO", false, CMD_RUN, set_trace_window,
      "only what overlaps these cycles (either may be empty)", NULL, NULL },
    { "--profile", 0, "FILE", false, CMD_RUN, set_profile,
      "write the cycles by guest function (kernel and user) and source line", NULL, NULL },
    { "--profile-format", 0, "F", false, CMD_RUN, set_profile_format,
      "callgrind (default; kcachegrind) or folded (flame graphs)", NULL, NULL },
    { "--symbols", 0, "FILE", false, CMD_RUN, set_symbols,
      "the program's symbols, from FILE (for a stripped program)", NULL, NULL },
    { "--progress", 0, NULL, false, CMD_RUN, set_progress,
      "a progress line on stderr (default: when it is a terminal, and --strace and --report "
      "write elsewhere)", NULL, NULL },
    { "--no-progress", 0, NULL, false, CMD_RUN, set_no_progress, "no progress line", NULL,
      NULL },
    { "--no-cycle-model", 0, NULL, false, CMD_RUN, set_no_cycle_model,
      "no cycle accounting (for make bench): no cycles, traces, budget or modeled TSC", NULL,
      NULL },
    { "--gdb", 0, "[HOST:]PORT", false, CMD_RUN, set_gdb,
      "serve GDB's remote protocol (HOST 127.0.0.1 unless given; PORT 0 picks a free one; "
      "emu prints it)", NULL, NULL },
    { NULL, 's', NULL, false, CMD_RUN, set_gdb_shorthand,
      "the same as --gdb " GDB_SHORTHAND_SPEC ", as QEMU's -s; it takes no value (strace's "
      "-s SIZE is not an option of emu)", NULL,
      "it is QEMU's -s, --gdb " GDB_SHORTHAND_SPEC ", not strace's -s SIZE" },
    { "--gdb-wait", 'S', NULL, false, CMD_RUN, set_gdb_wait,
      "with --gdb or -s: stop before the kernel's first instruction until a debugger "
      "attaches", NULL, NULL },
    { "--cpus", 0, "LIST", false, CMD_COMPARE, set_cpus,
      "models to compare, ';'-separated (default: pentium4;pentium4,-sep;pentium3;"
      "pentium3,-sep; 'help' lists them); compare takes its models from here, not "
      "--cpu/--no-sep", NULL, NULL },
    { "--article", 0, NULL, false, CMD_COMPARE, set_article,
      "for the replays (linus_loop, lmbench_null): each published figure beside the "
      "replay's own, with its interval, inside or outside", NULL, NULL },
    { "--validate", 0, NULL, false, CMD_COMPARE, set_validate,
      "for lmbench_validate OP N only: the operation's cycles and microseconds beside the "
      "era's lmbench summaries (docs/validation.md)", NULL, NULL },
    { "--kernel-configs", 0, "LIST", false, CMD_COMPARE, set_kernel_configs,
      "run each model under each kernel configuration of LIST, ';'-separated (e.g. "
      "'up;smp'); with --article and neither option, every configuration the sources leave "
      "open, and intervals over all of them", NULL, NULL },
    { "--syscall", 0, "NAME", false, CMD_COMPARE, set_syscall,
      "compare this system call, not the most frequent one", NULL, NULL },
    { "--svg", 0, "FILE", false, CMD_COMPARE, set_svg,
      "also draw the comparison as an SVG bar chart: bars with intervals, published "
      "figures, an axis, ratios", NULL, NULL },
};
const int cli_option_count = (int)(sizeof cli_options / sizeof cli_options[0]);
