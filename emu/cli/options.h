/*
 * emu's command line: one table of options (options.c), each with its
 * names, its value, the commands that take it, its help and what it sets.
 * The table drives the parsing of `emu`, `emu run`, `emu compare` and `emu
 * calibrate`, each command's --help, and tests/test_cli.c holds docs/emu.1
 * to it.
 */
#ifndef EMU_OPTIONS_H
#define EMU_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "compare/compare.h"
#include "machine/run_options.h"
#include "cli/outputs.h"

/* Who takes an option: a set of these. */
enum command {
    CMD_EMU = 1,          /* emu alone: emu --version */
    CMD_RUN = 2,
    CMD_COMPARE = 4,
    CMD_CALIBRATE = 8,
};
#define CMD_ALL (CMD_EMU | CMD_RUN | CMD_COMPARE | CMD_CALIBRATE)

/* What emu does instead of a command, once an option asks for it. */
enum cli_action { ACTION_NONE, ACTION_HELP, ACTION_VERSION, ACTION_LIST_CPUS,
                  ACTION_LIST_COSTS };

#define MAX_ENV 64

/* Everything the command line sets. */
struct cli {
    enum command command;
    enum cli_action action;
    struct run_options run;
    struct outputs out;                 /* emu run's */
    struct compare_options compare;
    const char *gdb_listen;             /* --gdb, -s: NULL for none */
    bool gdb_wait;
    char *env[MAX_ENV + 1];
    int envc;
    const char *calibrate_dir;
    /* the flag just before PROGRAM: said when PROGRAM cannot be run, in
     * case the word was meant as its value (-s 64) */
    const struct option_spec *flag_before_program;
    const char *flag_before_program_as;     /* as written: "-s" */
};

struct option_spec {
    const char *name;       /* "--cpu"; NULL: only the letter */
    char letter;            /* 'v' for -v; 0: only the name */
    const char *metavar;    /* the value, as --help shows it; NULL: a flag */
    bool optional;          /* the value only after '=': --report[=FORMAT] */
    unsigned commands;      /* the enum command that take it */
    /* 0, or -1 with a one-line reason in err; value NULL for a flag */
    int (*set)(struct cli *c, const char *value, char *err, size_t errlen);
    const char *help;
    const char *refused;    /* why a command without it has none, or NULL */
    const char *flag_note;  /* for a flag: what it is, should a value follow */
};

extern const struct option_spec cli_options[];
extern const int cli_option_count;

/* Fill c from argv. -1: c says what to do (c->action, or c->command with
 * its options); else the exit status, after a usage error on stderr. */
int cli_parse(struct cli *c, int argc, char **argv);
/* The command's --help: its usage, then each of its options in the
 * table's order. */
void cli_help(enum command command, FILE *f);
/* Before any output file is opened: PROGRAM is there and an ELF file (a
 * mistyped -o PROGRAM truncates nothing). 0, or its exit status after one
 * line on stderr. */
int cli_check_program(const struct cli *c);

#endif
