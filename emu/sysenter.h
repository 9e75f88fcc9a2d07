/* sysenter, as the CPU model defines it (SEP present or not). */
#ifndef EMU_SYSENTER_H
#define EMU_SYSENTER_H

#include "machine.h"

/* The UC_HOOK_INSN callback for UC_X86_INS_SYSENTER. */
void on_sysenter(uc_engine *uc, void *user);

#endif
