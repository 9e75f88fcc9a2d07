/*
 * For the tests of the debugger's hold on the machine (emu/cpu/debug.c), in
 * this process on the guest kernel: symbols, registers and memory as the
 * debugger reads them, running to a stop, and what a run without a
 * debugger counts.
 */
#ifndef TESTS_DEBUG_RIG_H
#define TESTS_DEBUG_RIG_H

#include <stdint.h>
#include "support.h"
#include "../emu/cpu/debug.h"
#include "syscall_nr.h"

uint32_t ksym(const char *name);                     /* of the kernel */
uint32_t psym(const char *prog, const char *name);   /* of a guest program */
uint32_t reg(struct guest *g, int r);
uint32_t msr(struct guest *g, uint32_t index);
uint32_t word(struct debug *d, uint32_t addr);       /* as the debugger reads it */
uint32_t tss_esp0(struct guest *g);

/* What a run counted: its status, cycles, instructions by class, system
 * calls. */
struct counts {
    int status;
    uint64_t cycles, insns;
    uint64_t class_count[NCLASSES];   /* what the intervals are computed from */
    struct syscall_tracker sys;
};
/* The counts of the same run with no debugger (arg, arg2 may be NULL). */
void reference(struct counts *c, const char *cpu, const char *prog, const char *arg,
               const char *arg2);
/* g, which ended with status, counted exactly as c. */
void assert_counts_as(const struct counts *c, struct guest *g, int status);

/* Continue to the end through every stop; the exit status. */
int run_out(struct debug *d);
/* Continue to a stop for why, at eip. */
void stop_at(struct debug *d, enum debug_why why, uint32_t eip);
void step(struct debug *d);
/* Stop at the program's main: its pages loaded, its bss cleared. */
void to_main(struct debug *d, const char *prog);

#endif
