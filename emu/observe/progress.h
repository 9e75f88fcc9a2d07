/*
 * A progress line on stderr for long runs: instructions, cycles and system
 * calls so far, redrawn at most twice a second. On a terminal it is one
 * line, redrawn in place, cleared before anything else is written to the
 * terminal (the program's output, --strace lines) and at the end; forced (--progress) into
 * a pipe or file, each update is a line of its own, and the last says the
 * run is done.
 */
#ifndef EMU_PROGRESS_H
#define EMU_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>
struct machine;
#include "account/syscalls.h"

struct progress;

/* Lines go to f; tty: f is a terminal. NULL if out of memory. */
struct progress *progress_open(FILE *f, bool tty);
int progress_attach(struct progress *p, struct machine *m, const struct syscall_tracker *sys);
/* The run is over: clear the line, or print the last one. */
void progress_finish(struct progress *p, const struct machine *m);
void progress_close(struct progress *p);
/* Something else is about to write to the terminal: clear the line there
 * (redrawn at the next update). Nothing if none is shown. */
void progress_clear(void);

#endif
