/* The command line read through the table of options.c: the commands, the
 * parsing, the checks across options, and each command's --help. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/boot.h"
#include "cli/options.h"

#define DEFAULT_CPU "pentium4"
#define DEFAULT_MAX_INSNS 100000000000ull /* docs/usage.md, --max-insns */
#define DEFAULT_EPOCH 1040103547u /* 2002-12-17 05:39:07 UTC: the patch's date */
#define DEFAULT_PROGRAMS_DIR "build/guest/programs"

/* How the options below take their values (docs/emu.1, OPTIONS). */
#define VALUES \
    "\n" \
    "An option's VALUE is the next word or follows '=' (--cpu=pentium3) or the\n" \
    "letter (-oFILE); [=VALUE] only follows '='; an option shown without one takes\n" \
    "none.\n"

struct command_text {
    enum command command;
    const char *name;       /* as typed after emu; NULL for emu alone */
    const char *usage;      /* before the options */
    const char *trailer;    /* after them */
};

static const struct command_text commands[] = {
    { CMD_EMU, NULL,
      "usage: emu run [options] PROGRAM [ARGS...]\n"
      "       emu compare [options] PROGRAM [ARGS...]\n"
      "       emu calibrate [PROGRAMS_DIR]   replay the calibration experiments\n"
      "                                      (scripts/calibrate.sh)\n"
      "       emu --list-cpus | --list-costs | --version | --help\n"
      "       emu run --help | emu compare --help | emu calibrate --help\n"
      "\n"
      "Runs a static i386 Linux program on a modeled Pentium-class CPU under a small\n"
      "Linux-2.5.53-like kernel, and counts the cycles its system calls take through\n"
      "int $0x80 and through sysenter. man emu has the details.\n",
      "" },
    { CMD_RUN, "run",
      "usage: emu run [options] PROGRAM [ARGS...]\n"
      "\n"
      "Runs PROGRAM under the modeled CPU and kernel; exits with its status.\n"
      VALUES,
      "\n"
      "exit status: the program's own; 128+N if a fault killed it with signal N;\n"
      "2 usage error; 124 instruction budget exhausted; 125 machine failure;\n"
      "126 program cannot be run; 127 program not found\n" },
    { CMD_COMPARE, "compare",
      "usage: emu compare [options] PROGRAM [ARGS...]\n"
      "\n"
      "Runs PROGRAM once on each of several CPU models and prints its most frequent\n"
      "system call's (or --syscall's) cycles per call side by side, a row per way the\n"
      "calls went (path, and via the vsyscall page or inline), each with its interval.\n"
      VALUES,
      "\n"
      "With --cost, a banner says the model is modified and no published figure\n"
      "is compared for the models it changes. SEP 'unused': CPUID reports it and\n"
      "the kernel did not enable it.\n" },
    { CMD_CALIBRATE, "calibrate",
      "usage: emu calibrate [options] [PROGRAMS_DIR]\n"
      "\n"
      "Replays the published experiments the ring-crossing costs are calibrated on\n"
      "(linus_loop and lmbench_null in PROGRAMS_DIR, default " DEFAULT_PROGRAMS_DIR ") and\n"
      "prints the instruction counts of their timed spans as emu/cost/calibration_data.h\n"
      "(scripts/calibrate.sh writes it).\n",
      "" },
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static const struct command_text *command_text(enum command command)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (commands[i].command == command)
            return &commands[i];
    return &commands[0];
}

/* A usage error: one line on stderr; returns 2. */
static __attribute__((format(printf, 1, 2))) int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("emu: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (emu --help for usage)\n", stderr);
    va_end(ap);
    return 2;
}

/* ---- --help ---- */

/* "-v, --verbose", "-o FILE", "--report[=FORMAT]": how --help heads o. */
static void cli_heading(const struct option_spec *o, char *buf, size_t len)
{
    int n = 0;
    if (o->letter)
        n += snprintf(buf + n, len - (size_t)n, "-%c%s", o->letter, o->name ? ", " : "");
    if (o->name)
        n += snprintf(buf + n, len - (size_t)n, "%s", o->name);
    if (o->metavar)
        snprintf(buf + n, len - (size_t)n, o->optional ? "[=%s]" : " %s", o->metavar);
}

#define HELP_COLUMN 23
#define HELP_WIDTH 79

/* text in words, from HELP_COLUMN up to HELP_WIDTH; the first line's
 * indent already written (col: where the line stands). */
static void print_wrapped(const char *text, int col, FILE *f)
{
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > HELP_COLUMN && col + 1 + (int)word > HELP_WIDTH) {
            fprintf(f, "\n%*s", HELP_COLUMN, "");
            col = HELP_COLUMN;
        } else if (col > HELP_COLUMN) {
            fputc(' ', f);
            col++;
        }
        fwrite(text, 1, word, f);
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

static void print_option(const struct option_spec *o, FILE *f)
{
    char heading[64];
    cli_heading(o, heading, sizeof heading);
    int len = fprintf(f, "  %s", heading);
    if (len + 2 <= HELP_COLUMN)
        fprintf(f, "%*s", HELP_COLUMN - len, "");
    else
        fprintf(f, "\n%*s", HELP_COLUMN, "");
    print_wrapped(o->help, HELP_COLUMN, f);
}

void cli_help(enum command command, FILE *f)
{
    const struct command_text *t = command_text(command);
    fprintf(f, "%s\noptions:\n", t->usage);
    for (int i = 0; i < cli_option_count; i++)
        if (cli_options[i].commands & command)
            print_option(&cli_options[i], f);
    fputs(t->trailer, f);
}

/* ---- parsing ---- */

/* The option arg names, and its value if arg holds one ("--cpu=X", "-oFILE"). */
static const struct option_spec *find_option(const char *arg, const char **value)
{
    *value = NULL;
    if (arg[1] == '-') {
        size_t len = strcspn(arg, "=");
        for (int i = 0; i < cli_option_count; i++) {
            const char *name = cli_options[i].name;
            if (name && strlen(name) == len && !strncmp(name, arg, len)) {
                *value = arg[len] ? arg + len + 1 : NULL;
                return &cli_options[i];
            }
        }
        return NULL;
    }
    for (int i = 0; arg[1] && i < cli_option_count; i++)
        if (cli_options[i].letter == arg[1]) {
            *value = arg[2] ? arg + 2 : NULL;
            return &cli_options[i];
        }
    return NULL;
}

/* "emu run", "emu run and emu compare": who takes o. */
static void whose(const struct option_spec *o, char *buf, size_t len)
{
    int n = 0;
    buf[0] = 0;
    for (int i = 0; i < NCOMMANDS; i++)
        if ((o->commands & commands[i].command) && commands[i].name)
            n += snprintf(buf + n, len - (size_t)n, "%semu %s", n ? " and " : "",
                          commands[i].name);
}

/* o as the user wrote it, without its value. */
static void spelled(const struct option_spec *o, const char *arg, char *buf, size_t len)
{
    if (arg[1] == '-')
        snprintf(buf, len, "%s", o->name);
    else
        snprintf(buf, len, "-%c", o->letter);
}

/* An option of the table that this command does not take. */
static int refuse(const struct cli *c, const struct option_spec *o, const char *name)
{
    char who[96];
    whose(o, who, sizeof who);
    if (c->command == CMD_EMU)
        return cli_usage_error("missing command before %s (an option of %s)", name, who);
    const char *cmd = command_text(c->command)->name;
    if (o->refused)
        return cli_usage_error("emu %s does not take %s: %s", cmd, name, o->refused);
    return cli_usage_error("emu %s does not take %s (an option of %s)", cmd, name, who);
}

/* argv[i], an option, and its value: how many words after argv[i] it
 * took (0 or 1), or -1 after a usage error. */
static int take_option(struct cli *c, int argc, char **argv, int i)
{
    const char *arg = argv[i], *value;
    const struct option_spec *o = find_option(arg, &value);
    char name[32], err[512];
    if (!o)
        return cli_usage_error("unknown option '%s'", arg), -1;
    spelled(o, arg, name, sizeof name);
    if (!(o->commands & c->command))
        return refuse(c, o, name), -1;
    if (!o->metavar && value)
        return cli_usage_error("%s takes no value%s%s", name, o->flag_note ? ": " : "",
                               o->flag_note ? o->flag_note : ""), -1;
    int took = 0;
    if (o->metavar && !o->optional && !value) {
        if (i + 1 >= argc)
            return cli_usage_error("%s wants a value: %s %s", name, name, o->metavar), -1;
        value = argv[i + 1];
        took = 1;
    }
    if (o->set(c, value, err, sizeof err))
        return cli_usage_error("%s", err), -1;
    c->flag_before_program = o->metavar ? NULL : o;
    c->flag_before_program_as = arg;
    return took;
}

static void defaults(struct cli *c)
{
    *c = (struct cli){
        .run = { .cpu_spec = DEFAULT_CPU, .max_insns = DEFAULT_MAX_INSNS,
                 .epoch_sec = DEFAULT_EPOCH },
        .compare = { .syscall = -1 },
        .env = { "PATH=/usr/bin:/bin", "HOME=/", NULL },
        .envc = 2,
        .calibrate_dir = DEFAULT_PROGRAMS_DIR,
    };
}

/* argv[1]: the command, or (an option) none. */
static int command_named(struct cli *c, const char *word)
{
    if (word[0] == '-')
        c->command = CMD_EMU;
    else if (!strcmp(word, "list-cpus"))
        c->action = ACTION_LIST_CPUS;
    else if (!strcmp(word, "list-costs"))
        c->action = ACTION_LIST_COSTS;
    for (int i = 0; i < NCOMMANDS; i++)
        if (commands[i].name && !strcmp(word, commands[i].name))
            c->command = commands[i].command;
    if (!c->command && !c->action)
        return cli_usage_error("unknown command '%s'", word);
    return 0;
}

/* ---- after the options ---- */

/* Each --cost for one model is for the run's --cpu model. */
static int costs_for_the_run(const struct cli *c)
{
    size_t len = strcspn(c->run.cpu_spec, ",");
    for (int i = 0; i < c->run.ncost_overrides; i++) {
        const struct cost_override *o = &c->run.cost_overrides[i];
        if (o->model && (strlen(o->model->name) != len ||
                         strncmp(o->model->name, c->run.cpu_spec, len)))
            return cli_usage_error("--cost '%s' is for another model than this run's --cpu",
                                   o->text);
    }
    return 0;
}

static int check_machine(const struct cli *c)
{
    const struct run_options *r = &c->run;
    if (c->command == CMD_RUN && costs_for_the_run(c))
        return 2;
    if (r->smp > 1 && c->compare.kconfigs &&
        (kconfig_parse_list(c->compare.kconfigs) & (1 << KCONFIG_UP)))
        return cli_usage_error("--smp N > 1 boots the smp kernel; --kernel-config up "
                               "cannot have it");
    if (r->kernel_history != KHIST_SEED &&
        (r->smp > 1 ||
         (c->compare.kconfigs && (kconfig_parse_list(c->compare.kconfigs) & (1 << KCONFIG_SMP)))))
        return cli_usage_error("--kernel %s is built for the up configuration only",
                               khist_name(r->kernel_history));
    for (int cpu = r->smp > 1 ? r->smp : 1; cpu < SMP_MAX_CPUS; cpu++)
        if (r->tsc_skew[cpu].set)
            return cli_usage_error("--tsc-skew names a CPU the machine does not have (--smp)");
    return 0;
}

/* emu run's outputs, once all are known. */
static int check_outputs(const struct cli *c)
{
    const struct outputs *o = &c->out;
    if (c->gdb_wait && !c->gdb_listen)
        return cli_usage_error("--gdb-wait (-S) needs --gdb PORT or -s");
    if (c->gdb_listen && c->run.no_cycle_model)
        return cli_usage_error("--gdb needs the cycle model (not --no-cycle-model)");
    if (o->trace.insns != INSNS_NONE && !o->trace.path)
        return cli_usage_error("--trace-insns needs --trace FILE");
    if ((o->trace.from || o->trace.to) && !o->trace.path)
        return cli_usage_error("--trace-window needs --trace FILE");
    if (o->symbols_path && !o->trace.path && !o->profile_path)
        return cli_usage_error("--symbols is for --trace and --profile");
    /* The program's standard output is emu's: a trace there would mix with it. */
    if (o->trace.path && !strcmp(o->trace.path, "-"))
        return cli_usage_error("--trace - would mix the trace with the program's output; "
                               "give a file");
    if (c->run.no_cycle_model && (o->trace.path || o->profile_path || o->report))
        return cli_usage_error("--no-cycle-model counts no cycles to trace, profile or "
                               "report");
    return 0;
}

/* What follows the options: PROGRAM [ARGS...], or calibrate's directory. */
static int operands(struct cli *c, int argc, char **argv)
{
    if (c->command == CMD_EMU)
        return cli_usage_error("missing command");
    if (c->command == CMD_CALIBRATE) {
        if (argc > 1)
            return cli_usage_error("calibrate takes at most a directory");
        if (argc == 1)
            c->calibrate_dir = argv[0];
        return -1;
    }
    if (argc < 1)
        return cli_usage_error("missing PROGRAM");
    c->run.program = argv[0];
    c->run.argc = argc;
    c->run.argv = argv;
    c->run.envp = c->env;
    int rc = check_machine(c);
    if (!rc && c->command == CMD_RUN)
        rc = check_outputs(c);
    return rc ? rc : -1;
}

int cli_parse(struct cli *c, int argc, char **argv)
{
    defaults(c);
    if (argc < 2)
        return cli_usage_error("missing command");
    if (command_named(c, argv[1]))
        return 2;
    int i = c->command == CMD_EMU ? 1 : 2;
    for (; i < argc && argv[i][0] == '-' && !c->action; i++) {
        if (!strcmp(argv[i], "--")) {
            c->flag_before_program = NULL;
            i++;
            break;
        }
        int took = take_option(c, argc, argv, i);
        if (took < 0)
            return 2;
        i += took;
    }
    return c->action ? -1 : operands(c, argc - i, argv + i);
}

int cli_check_program(const struct cli *c)
{
    char err[4352];
    int status = program_check(c->run.program, err, sizeof err);
    if (!status)
        return 0;
    const struct option_spec *o = c->flag_before_program;
    fprintf(stderr, "emu: %s", err);
    if (o)
        fprintf(stderr, " (PROGRAM, since %s takes no value%s%s)", c->flag_before_program_as,
                o->flag_note ? "; " : "", o->flag_note ? o->flag_note : "");
    fputc('\n', stderr);
    return status;
}
