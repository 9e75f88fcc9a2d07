/* The guest kernel's requests to the emulator (guest/abi.h, HC_PORT_*). */
#ifndef EMU_HYPERCALL_H
#define EMU_HYPERCALL_H

#include "machine/machine.h"

/* The UC_HOOK_INSN callback for UC_X86_INS_OUT. */
void on_hypercall(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user);

/* Called before the program's output reaches the host's stdout or stderr
 * (NULL: nothing): a terminal line of a higher layer clears itself there
 * (progress.c). */
void hypercall_before_output(void (*fn)(void));

#endif
