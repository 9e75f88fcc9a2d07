/*
 * One system call's arguments and result as strace prints them: the
 * argument count and the kind of each from guest/syscalls.def, flags and
 * constants by name (linux_names.h), strings quoted, addresses in hex, and
 * the structures strace decodes (strace_structs.c). What the call reads is
 * formatted when it is made, what it writes when it has returned.
 */
#ifndef EMU_STRACE_ARGS_H
#define EMU_STRACE_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
struct machine;
#include "account/syscalls.h"
#include "observe/strace_values.h"

struct strace_call {
    uint32_t nr;
    int nargs;            /* the arguments shown */
    uint8_t argi[6];      /* the system-call argument each one shows */
    char *text[6];        /* each, once formatted */
    char *note;           /* printed after the result: " (entry_number=12)" */
    uint8_t deferred;     /* bit k: argument k is read, but its page was not
                             paged in at entry: formatted at exit */
};

/* At entry: what the call reads. */
void strace_call_enter(struct strace_call *c, struct machine *m, const struct syscall_record *r);
/* At exit: what it wrote; then "name(arg, ...)" into f. */
void strace_call_exit(struct strace_call *c, struct machine *m, const struct syscall_record *r);
void strace_print_call(FILE *f, const struct strace_call *c, const struct syscall_record *r);
/* "= 0", "= -1 ENOENT (No such file or directory)", "= 0x8244000", "= ?" */
void strace_print_result(FILE *f, const struct strace_call *c, const struct syscall_record *r);
void strace_call_free(struct strace_call *c);

/* A structure the call reads or writes at argument i, decoded; false if
 * strace shows none for it (the address is printed instead). */
bool strace_struct(FILE *f, struct machine *m, const struct syscall_record *r, int i,
                   bool at_exit);

#endif
