/*
 * --strace: one line per system call, as strace prints it, with this
 * emulator's two columns: how the call entered and left the kernel
 * ("[sysenter/sysexit]", in front) and the cycles it took, from the
 * trapping instruction to the return to user mode ("<637 cycles>", at
 * the end). Then the signal that killed the program, if one did
 * ("--- SIGSEGV {si_signo=SIGSEGV, ...} ---"), and how it ended
 * ("+++ exited with 0 +++"). With several processes a "[pid N]" column
 * comes first, as with strace -f, and each process's end has its line.
 * A call's line is written when the call is over: one that blocks while
 * other processes run comes after theirs (strace -f would split it into
 * "<unfinished ...>" and "<... resumed>").
 *
 * -e trace=NAME,... selects calls by name or by class: %file (takes a
 * path; and getcwd), %desc (takes or returns a descriptor), %memory,
 * %process, %signal, %clock, as strace defines them; "all", "none", a
 * leading "!" for the complement, "?" before a name that may not exist.
 */
#ifndef EMU_STRACE_H
#define EMU_STRACE_H

#include <stdbool.h>
#include <stdio.h>
struct machine;
#include "observe/strace_args.h"
#include "account/syscalls.h"

struct strace_filter {
    bool given;                          /* some -e trace= was */
    uint8_t chosen[SYSCALL_STATS_MAX / 8];
};

/* Add the calls of one -e expression ("trace=open,%file" or "open,read").
 * 0, or -1 with the reason in err. */
int strace_filter_add(struct strace_filter *f, const char *expr, char *err, size_t errlen);

#define STRACE_PENDING TRACK_TASKS

struct strace {
    FILE *out;
    bool own_file;
    struct machine *m;
    const struct syscall_tracker *sys;
    struct strace_filter filter;
    /* the calls in flight, one a process at most (seq 0: a free slot) */
    struct strace_pending {
        uint64_t seq;
        struct strace_call call;
    } pending[STRACE_PENDING];
};

/* Lines go to path (NULL: stderr). NULL with the reason in err. */
struct strace *strace_open(const char *path, const struct strace_filter *filter, char *err,
                           size_t errlen);
int strace_attach(struct strace *s, struct machine *m, struct syscall_tracker *sys);
int strace_close(struct strace *s);

/* The whole line of a record, its arguments read now; sys (or NULL) says
 * whether there are several processes (tests). */
void strace_print(FILE *f, struct machine *m, const struct syscall_tracker *sys,
                  const struct syscall_record *r);

#endif
