/* The guest kernel's requests to the emulator (guest/abi.h, HC_PORT_*). */
#ifndef EMU_HYPERCALL_H
#define EMU_HYPERCALL_H

#include "machine.h"

/* The UC_HOOK_INSN callback for UC_X86_INS_OUT. */
void on_hypercall(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user);

#endif
