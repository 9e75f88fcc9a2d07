/*
 * The values --strace prints, as strace prints them: addresses (NULL or
 * hex), strings and buffers quoted and cut at strace's default length,
 * signals and signal sets, file modes, dates. Memory is read as ring 3
 * sees it (user_memory.h).
 */
#ifndef EMU_STRACE_VALUES_H
#define EMU_STRACE_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
struct machine;

/* strace's default -s: the bytes of a buffer it shows. */
#define STRACE_STRLEN 32

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

#endif
