/*
 * emu run --gdb for the tests: emu in a child process listening on an
 * ephemeral loopback port, and Debian's gdb (batch mode) or a raw socket
 * attached to it. Every child has an alarm, so a hung emu or gdb dies
 * instead of the test hanging.
 */
#ifndef TESTS_EMU_GDB_H
#define TESTS_EMU_GDB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define EMU_GDB_CHILD_SECONDS 60

struct emu_gdb {
    pid_t pid;
    int out, err;      /* emu's stdout and stderr */
    unsigned port;     /* from its "listening on port N" line */
    char kernel[64];   /* and the image it booted: "kernel-pentium4-up.elf" */
};

/* emu run ARGS..., NULL-terminated; ARGS hold --gdb 127.0.0.1:0. Returns
 * once emu listens. */
void emu_gdb_start(struct emu_gdb *e, ...);
/* The same with the arguments in a NULL-terminated list. */
void emu_gdb_start_list(struct emu_gdb *e, const char *const *args);
/* Wait for emu to end; its exit status (128+N if a signal ended it), and
 * what it wrote (either pointer may be NULL). */
int emu_gdb_finish(struct emu_gdb *e, char **out, char **err);

/* gdb -nx -batch build/guest/<the image e booted>, "target remote" to e, "add-symbol-file" of
 * build/guest/programs/PROG (if not NULL), then each command; all it
 * printed. */
char *gdb_batch(const struct emu_gdb *e, const char *prog, ...);
/* The same with the commands in a NULL-terminated list. */
char *gdb_batch_list(const struct emu_gdb *e, const char *prog, const char *const *cmds);

/* A raw client socket on e's port; -1 if the connection fails. */
int emu_gdb_connect(const struct emu_gdb *e);

void assert_has(const char *text, const char *needle);
/* A symbol of build/guest/programs/PROG, from its ELF file. */
uint32_t program_symbol(const char *prog, const char *name);

#endif
