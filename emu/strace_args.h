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
#include "machine.h"
#include "syscalls.h"

/* strace's default -s: the bytes of a buffer it shows. */
#define STRACE_STRLEN 32

struct strace_call {
    uint32_t nr;
    int nargs;            /* the arguments shown */
    uint8_t argi[6];      /* the system-call argument each one shows */
    char *text[6];        /* each, once formatted */
    char *note;           /* printed after the result: " (entry_number=12)" */
};

/* At entry: what the call reads. */
void strace_call_enter(struct strace_call *c, struct machine *m, const struct syscall_record *r);
/* At exit: what it wrote; then "name(arg, ...)" into f. */
void strace_call_exit(struct strace_call *c, struct machine *m, const struct syscall_record *r);
void strace_print_call(FILE *f, const struct strace_call *c, const struct syscall_record *r);
/* "= 0", "= -1 ENOENT (No such file or directory)", "= 0x8244000", "= ?" */
void strace_print_result(FILE *f, const struct strace_call *c, const struct syscall_record *r);
void strace_call_free(struct strace_call *c);

/* The helpers the structure decoders share. */
void print_addr(FILE *f, uint32_t addr);
/* bytes as a C string; with hex every byte as \xNN; "..." after if cut */
void print_quoted(FILE *f, const uint8_t *p, size_t n, bool hex, bool cut);
/* A NUL-terminated user string of at most max bytes, or its address. */
void print_user_string(FILE *f, struct machine *m, uint32_t addr, size_t max);
/* len bytes of user memory, at most max of them shown, or the address. */
void print_user_bytes(FILE *f, struct machine *m, uint32_t addr, uint32_t len, size_t max,
                      bool hex);
/* "SIGUSR1"; with short, "USR1" (in a set); real-time ones RTMIN, RT_n. */
void print_signal(FILE *f, uint32_t sig, bool short_name);
void print_sigset_bits(FILE *f, uint64_t set);
/* "S_IFREG|0644", or "0644" without a file type; "022", "000". */
void print_mode(FILE *f, uint32_t mode);
void print_octal(FILE *f, uint32_t v);
/* 2002-12-17T05:39:07+0000 */
void print_date(FILE *f, int64_t t);

/* A structure the call reads or writes at argument i, decoded; false if
 * strace shows none for it (the address is printed instead). */
bool strace_struct(FILE *f, struct machine *m, const struct syscall_record *r, int i,
                   bool at_exit);

#endif
