/* CPUID, the TSC, the MSRs and the I/O permission check of the CPU model. */
#ifndef EMU_CPU_INSNS_H
#define EMU_CPU_INSNS_H

#include "machine/machine.h"

/* The UC_HOOK_INSN callback for UC_X86_INS_CPUID. */
int on_cpuid(uc_engine *uc, void *user);
/* The code hook on one rdtsc, rdmsr, wrmsr, in or out. */
void on_special_insn(uc_engine *uc, uint64_t address, uint32_t size, void *user);

#endif
