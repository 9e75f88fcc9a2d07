/*
 * The execution loop: the engine's hooks, the block hook that charges each
 * block and puts code hooks on the instructions that need them, and
 * machine_run, which restarts the engine after each exception it reports
 * instead of raising and after each translator abort.
 */
#ifndef EMU_RUN_H
#define EMU_RUN_H

#include "machine/machine.h"

/* A machine with its hooks, and no guest: for tests that build their own.
 * 0, or the emu exit status with the reason in m->message. */
int machine_init_bare(struct machine *m, const struct run_options *opts);
/* A machine with the guest kernel booting the program in opts. */
int machine_init(struct machine *m, const struct run_options *opts);
/* machine_run's result when a debugger paused the machine (machine_pause). */
#define MACHINE_PAUSED (-1)

/* Run until something stops the machine; returns the emu exit status, or
 * MACHINE_PAUSED, and then the next call goes on from there. */
int machine_run(struct machine *m);
/* Run until the instruction at the linear address at is next (true), or
 * something stops the machine first (false). */
bool machine_run_until(struct machine *m, uint32_t at);
/* Remove the code hooks of the special instructions, all but the first
 * keep of them. */
void forget_special_hooks(struct machine *m, int keep);
/* Remove the one-shot code hook of a block cut short, if one is in. */
void unhook_cut(struct machine *m);

#endif
