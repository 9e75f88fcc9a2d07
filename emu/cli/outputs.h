/*
 * What emu run writes besides the program's own output, from the options
 * main parsed: the --strace lines, the trace file, the --report, the
 * profile and the progress line, with the symbols the trace and the
 * profile name addresses with. Opened before the guest boots (a bad path
 * is a usage error before anything runs), attached to the accounting after
 * the boot, finished when the run is over.
 */
#ifndef EMU_OUTPUTS_H
#define EMU_OUTPUTS_H

#include <stdbool.h>
#include "machine/machine.h"
#include "observe/profile.h"
#include "observe/progress.h"
#include "observe/report.h"
#include "observe/strace.h"
#include "observe/symbols.h"
#include "account/syscalls.h"
#include "observe/trace.h"

enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

struct outputs {
    /* the options */
    bool strace;
    const char *strace_path;        /* -o */
    struct strace_filter filter;    /* -e */
    struct trace_options trace;     /* trace.path NULL: no trace */
    bool report;
    enum report_format report_format;
    const char *report_path;
    FILE *report_file;         /* report_path, opened before the run */
    const char *profile_path;
    enum profile_format profile_format;
    const char *symbols_path;       /* --symbols */
    enum progress_mode progress_mode;

    /* what they opened */
    struct strace *strace_out;
    struct trace *trace_out;
    struct profile *profile;
    struct progress *progress;
    struct symtab syms;
};

/* 0, or the exit status with the reason in m->message. */
int outputs_open(struct outputs *o, struct machine *m);
/* Does any output read the system-call accounting? */
bool outputs_read_calls(const struct outputs *o);
int outputs_attach(struct outputs *o, struct machine *m, struct syscall_tracker *sys);
/* After the run: the report and the profile. 0, or -1 after saying why. */
int outputs_finish(struct outputs *o, struct machine *m, const struct syscall_tracker *sys);
/* -1 if the trace could not be written (errno says why), else 0. */
int outputs_close(struct outputs *o);

#endif
