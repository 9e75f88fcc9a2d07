/*
 * Interrupt and exception delivery through the guest's IDT. The engine
 * only reports a vector (UC_HOOK_INTR); everything the CPU does between
 * "int n" or a fault and the first instruction of the handler is here.
 */
#ifndef EMU_TRAP_H
#define EMU_TRAP_H

#include <stdbool.h>
#include <stdint.h>
#include "machine.h"

void deliver_interrupt(struct machine *m, int vector, enum event_kind kind,
                       bool has_error, uint32_t error_code, uint32_t return_eip,
                       uint32_t origin_eip);
/* A fault at eip, as the CPU would raise it there. */
void raise_fault(struct machine *m, int vector, bool has_error,
                 uint32_t error_code, uint32_t eip);
bool vector_has_error_code(int vector);
/* The UC_HOOK_INTR callback. */
void on_interrupt(uc_engine *uc, uint32_t intno, void *user);
/* The faults the engine reported rather than raised (engine.h quirks 5
 * and 7): #UD at EIP, and #PF for an access that ran past 4 GiB. */
void raise_reported_ud(struct machine *m);
void raise_wrapped_pf(struct machine *m);

#endif
