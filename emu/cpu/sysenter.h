/* sysenter, as the CPU model defines it (SEP present or not). */
#ifndef EMU_SYSENTER_H
#define EMU_SYSENTER_H

#include "machine/machine.h"

/* The UC_HOOK_INSN callback for UC_X86_INS_SYSENTER. */
void on_sysenter(uc_engine *uc, void *user);
/* Just before a sysexit runs (a code hook): a Pentium Pro's stops the
 * machine, as the one reported did. */
void before_sysexit(struct machine *m, const struct insn *in);

#endif
