/*
 * One fuzz input, one machine run. The libFuzzer targets (fuzz_target.c,
 * built with clang by make fuzz) and the regular replay test
 * (tests/test_fuzz_replay.c, built with gcc) share this harness, so an
 * input that once broke the emulator is replayed the same way forever.
 *
 *   elf      the input is a program file image, run with a small budget
 *   syscall  byte 0 picks the CPU model; the rest (at most
 *            FUZZ_SYSCALL_MAX_INPUT bytes) is the stdin of the guest
 *            program syscall_fuzz, which makes the system calls it
 *            describes
 *   gdb      the input is a byte stream from a GDB client, fed to the
 *            stub's session (emu/gdb/gdb_session.h) over the fake machine
 *            of tests/gdb_fake.h; no machine runs. "#xx" in it stands
 *            for the right checksum, so mutated packets stay valid
 *   cpu      byte 0 picks the CPU model; the rest is the stdin of the
 *            guest program cpu_fuzz: ring-3 machine code and the state to
 *            run it in (TLS descriptors, EFLAGS, segment selectors,
 *            registers, how it is entered)
 *
 * The machine targets keep one booted machine per target and CPU model and
 * restore it for each input (fuzz_fresh_boot boots one per input instead).
 *
 * A clean run ends in an exit, a kill report, the instruction budget or
 * (elf only) the kernel refusing the program. A guest kernel panic, a
 * machine failure, or a failure to set up the machine is a finding. For
 * gdb, a finding is reported as STOP_MACHINE: the stub sent a malformed
 * frame or a stray byte, lost track of a breakpoint, or left one behind
 * when the client went away.
 */
#ifndef TESTS_FUZZ_HARNESS_H
#define TESTS_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../emu/machine/machine.h"
#include "../../emu/cpu/run.h"
#include "../../emu/account/syscalls.h"

enum fuzz_target { FUZZ_ELF, FUZZ_SYSCALL, FUZZ_GDB, FUZZ_CPU, FUZZ_NTARGETS };

#define FUZZ_ELF_BUDGET        1000000ull /* boot ~550 000, then the program */
#define FUZZ_SYSCALL_BUDGET    6000000ull
#define FUZZ_SYSCALL_MAX_INPUT 2048   /* the guest program's MAX_INPUT */
#define FUZZ_CPU_BUDGET        700000ull  /* boot ~560 000, then the code */
#define FUZZ_CPU_MAX_INPUT     2048   /* the guest program's MAX_INPUT */
#define FUZZ_GDB_BUDGET        10000  /* fake instructions per resume */
#define FUZZ_GDB_RUNNING_BYTES 64     /* input taken while the program runs */

struct fuzz_result {
    int init_status;           /* machine_init: 0, or the emu exit status */
    enum stop_reason stop;     /* how the run ended, if it started */
    int status;                /* the emu exit status */
    char cpu[32];              /* the CPU model used */
    char message[512];
    uint64_t insns, cycles;    /* what the machine counted */
};

const char *fuzz_target_name(enum fuzz_target t);
int fuzz_target_by_name(const char *name);  /* -1 if unknown */

/* If set, called with each machine once it exists, before it boots (the
 * fuzz targets hook guest kernel coverage here); and before each input
 * runs on it. */
extern void (*fuzz_machine_hook)(struct machine *m);
extern void (*fuzz_input_hook)(struct machine *m);
/* Boot a machine for every input instead of restoring a kept one (to
 * compare the two). */
extern bool fuzz_fresh_boot;
/* Machines booted for the kept-machine runs: one per target and CPU model
 * at first, and one more for each restore that failed (the fuzz targets
 * print it; tests check that restores succeed). */
extern unsigned long fuzz_builds;

void fuzz_run(enum fuzz_target t, const uint8_t *data, size_t size, struct fuzz_result *r);
/* Free the kept machines. */
void fuzz_release(void);
/* Did the run end cleanly? If not, why (one line) in why. */
bool fuzz_clean(enum fuzz_target t, const struct fuzz_result *r, char *why, size_t cap);

#endif
