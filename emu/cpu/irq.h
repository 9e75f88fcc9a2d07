/*
 * External interrupts: the PC's interval timer (channel 0 of an 8254 PIT)
 * on IRQ 0 of an 8259A interrupt controller, driven by modeled cycles, and
 * their delivery at an instruction boundary (state: struct irq_state, machine.h).
 * A local APIC timer per CPU (the SMP issue) is the same idea: a deadline
 * in cycles and a vector.
 */
#ifndef EMU_IRQ_H
#define EMU_IRQ_H

#include <stdbool.h>
#include <stdint.h>
#include "machine/machine.h"

void irq_init(struct machine *m);
/* An out to the PIT or PIC ports: true if it was one of theirs. */
bool irq_port_out(struct machine *m, uint32_t port, uint32_t value);
/* Before a block at the linear address addr runs, or at the instruction
 * the block hook cut its block before (run.c): deliver a due interrupt
 * there if the CPU would take it (IF set, no sti shadow); it returns to
 * addr's offset in the code segment. True if one was delivered (what is
 * at addr does not run now). */
bool irq_check(struct machine *m, uint32_t addr);
/* False when irq_check has nothing to do: no interrupt requested and the
 * timer not due (the block hook asks this first, on every block). */
static inline bool irq_may_deliver(const struct machine *m)
{
    return m->irq.irr || m->cycles >= m->irq.deadline;
}
/* Whether the CPU would take the timer's interrupt inside block b, about
 * to be charged: its deadline falls before the block's end, or it waits
 * in the shadow of the sti that ended the block before (the block hook
 * asks this on every block). */
static inline bool irq_inside(const struct machine *m, const struct block *b)
{
    return m->cycles + b->cost > m->irq.deadline || (m->sti_shadow && m->irq.irr);
}
/* The index of the first instruction of b, before limit, at whose start
 * the interrupt is due and would be taken (IF set now: nothing in a block
 * sets it, as popf, iret and sti end theirs); limit if none. */
uint32_t irq_cut(struct machine *m, const struct block *b, uint32_t limit);
/* The CPU executed hlt; EIP is after it. If interrupts are enabled and the
 * timer runs, modeled time jumps to the next interrupt, which is delivered
 * (the skipped cycles count as idle). False if nothing can wake the CPU. */
bool irq_halt(struct machine *m);
/* Tickless idle (abi.h, HC_PORT_NOHZ): drop the PIT's ticks before the
 * kernel's next timer that would find nothing to do; h answers. */
void irq_nohz(struct machine *m, struct hc_nohz *h);

#endif
