#include "cli/outputs.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The name the trace gives the process: argv[0] without its directory. */
static const char *process_name(const struct run_options *opts)
{
    const char *name = opts->argv0 ? opts->argv0 : opts->program;
    const char *slash = name ? strrchr(name, '/') : NULL;
    return slash ? slash + 1 : name ? name : "program";
}

/* path with its directory resolved (the file itself may not exist yet) */
static void canonical(const char *path, char *out, size_t len)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (realpath(dir, real))
        snprintf(out, len, "%s/%s", real, base);
    else
        snprintf(out, len, "%s", path);
}

/* Do a and b name one regular file (or one that does not exist yet)? A
 * device or FIFO (/dev/null, /dev/stderr, a terminal) may be shared. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if ((ea && !S_ISREG(sa.st_mode)) || (eb && !S_ISREG(sb.st_mode)))
        return false;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    canonical(a, ca, sizeof ca);
    canonical(b, cb, sizeof cb);
    return !strcmp(ca, cb);
}

/* Two outputs in one file would truncate and overwrite each other; an
 * output in the program's file would truncate the program. */
static int distinct_files(const struct outputs *o, struct machine *m)
{
    const struct { const char *option, *path; } files[] = {
        { "-o", o->strace ? o->strace_path : NULL },
        { "--trace", o->trace.path },
        { "--profile", o->profile_path },
        { "--report-file", o->report ? o->report_path : NULL },
    };
    const int n = (int)(sizeof files / sizeof files[0]);
    const char *program = m->opts->program;
    for (int i = 0; i < n; i++) {
        if (files[i].path && program && same_file(files[i].path, program))
            return machine_fail(m, 2, "%s names the program (%s): it would be overwritten",
                                files[i].option, files[i].path);
        for (int j = i + 1; j < n; j++)
            if (files[i].path && files[j].path && same_file(files[i].path, files[j].path))
                return machine_fail(m, 2, "%s and %s name the same file (%s): give each its own",
                                    files[i].option, files[j].option, files[j].path);
    }
    return 0;
}

int outputs_open(struct outputs *o, struct machine *m)
{
    char err[256];
    if (distinct_files(o, m))
        return 2;
    bool want_symbols = o->trace.path || o->profile_path;
    /* a callgrind profile has file and line positions */
    o->syms.want_lines = o->profile_path && o->profile_format == PROFILE_CALLGRIND;
    if (want_symbols && symbols_load(&o->syms, m, o->symbols_path, err, sizeof err))
        return machine_fail(m, 2, "%s", err);
    if (o->syms.lines_note[0])
        fprintf(stderr, "emu: profile: %s\n", o->syms.lines_note);
    if (o->strace && !(o->strace_out = strace_open(o->strace_path, &o->filter, err, sizeof err)))
        return machine_fail(m, 2, "%s", err);
    if (o->trace.path && !(o->trace_out = trace_open(&o->trace, m->cpu.model->clock_mhz,
                                                     process_name(m->opts), err, sizeof err)))
        return machine_fail(m, 2, "%s", err);
    if (o->profile_path &&
        !(o->profile = profile_open(o->profile_path, o->profile_format, err, sizeof err)))
        return machine_fail(m, 2, "%s", err);
    if (o->report && o->report_path && !(o->report_file = fopen(o->report_path, "w")))
        return machine_fail(m, 2, "cannot write report %s: %s", o->report_path,
                            strerror(errno));
    /* on its own: not under strace lines or a report on the same terminal */
    bool quiet_err = (o->strace && !o->strace_path) || (o->report && !o->report_path);
    bool progress = o->progress_mode == PROGRESS_ON ||
                    (o->progress_mode == PROGRESS_AUTO && isatty(STDERR_FILENO) && !quiet_err);
    if (progress && !(o->progress = progress_open(stderr, isatty(STDERR_FILENO))))
        return machine_fail(m, 125, "out of memory");
    return 0;
}

bool outputs_read_calls(const struct outputs *o)
{
    return o->trace_out || o->strace_out || o->profile || o->progress || o->report;
}

int outputs_attach(struct outputs *o, struct machine *m, struct syscall_tracker *sys)
{
    if ((o->trace_out && trace_attach(o->trace_out, m, sys, &o->syms)) ||
        (o->strace_out && strace_attach(o->strace_out, m, sys)) ||
        (o->profile && profile_attach(o->profile, m, sys, &o->syms)) ||
        (o->progress && progress_attach(o->progress, m, sys)))
        return machine_fail(m, 125, "cannot attach the outputs to the machine");
    return 0;
}

static int write_report(struct outputs *o, const struct machine *m,
                        const struct syscall_tracker *sys)
{
    FILE *f = o->report_file ? o->report_file : stderr;
    if (o->report_format == REPORT_JSON)
        report_print_json(m, sys, f);
    else
        report_print(m, sys, f);
    if (f == stderr)
        return 0;
    o->report_file = NULL;
    if (fclose(f) != 0) {
        fprintf(stderr, "emu: cannot write %s: %s\n", o->report_path, strerror(errno));
        return -1;
    }
    return 0;
}

int outputs_finish(struct outputs *o, struct machine *m, const struct syscall_tracker *sys)
{
    int rc = 0;
    progress_finish(o->progress, m);
    if (o->report && write_report(o, m, sys))
        rc = -1;
    if (o->profile && profile_write(o->profile, m)) {
        fprintf(stderr, "emu: cannot write %s: %s\n", o->profile_path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int outputs_close(struct outputs *o)
{
    int trace_failed = trace_close(o->trace_out), why = errno;
    strace_close(o->strace_out);
    profile_close(o->profile);
    progress_close(o->progress);
    if (o->report_file)
        fclose(o->report_file);   /* the run never reached its report */
    o->report_file = NULL;
    symtab_free(&o->syms);
    o->trace_out = NULL;
    o->strace_out = NULL;
    o->profile = NULL;
    o->progress = NULL;
    errno = why;
    return trace_failed;
}
