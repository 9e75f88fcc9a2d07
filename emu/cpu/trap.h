/*
 * Interrupt and exception delivery through the guest's IDT. The engine
 * only reports a vector (UC_HOOK_INTR); everything the CPU does between
 * "int n" or a fault and the first instruction of the handler is here.
 */
#ifndef EMU_TRAP_H
#define EMU_TRAP_H

#include <stdbool.h>
#include <stdint.h>
#include "machine/machine.h"

void deliver_interrupt(struct machine *m, int vector, enum event_kind kind,
                       bool has_error, uint32_t error_code, uint32_t return_eip,
                       uint32_t origin_eip);
/* A fault at eip, as the CPU would raise it there. */
void raise_fault(struct machine *m, int vector, bool has_error,
                 uint32_t error_code, uint32_t eip);
/* The base of the code segment: linear address = base + EIP. */
uint32_t code_segment_base(struct machine *m);
/* Where the engine has the instruction at the linear address linear in
 * the current code segment: base + EIP, not wrapped (engine.h, quirk 5). */
uint64_t engine_code_address(struct machine *m, uint32_t linear);
/* The base and D/B bit of the segment in register reg (UC_X86_REG_CS,
 * _SS, ...), from its descriptor; false for a null or bad selector. */
bool segment_of(struct machine *m, int reg, uint32_t *base, bool *big);
/* The opcode bytes of the instruction at the linear address addr after
 * its prefixes: how many prefix bytes there were (-1 if unreadable), and
 * in *opsize (if not NULL) whether one was 0x66. */
int opcode_at(struct machine *m, uint32_t addr, uint8_t op[2], bool *opsize);
/* The UC_HOOK_INTR callback. */
void on_interrupt(uc_engine *uc, uint32_t intno, void *user);
/* The fault the engine reported rather than raised (engine.h, quirk 7):
 * #UD at EIP. */
void raise_reported_ud(struct machine *m);

/* Run the engine up to the linear address to (from the linear address
 * from, where EIP is) for why; and forget that again. */
void arm_run_to(struct machine *m, enum run_to_why why, uint32_t from, uint32_t to);
void disarm_run_to(struct machine *m);

#endif
