/*
 * What the model charges for memory-management work that is not an
 * instruction of the guest: the TLB refills a change of address space
 * causes, and the page clearing and copying that the emulator does on the
 * host in place of the kernel's clear_page and copy_page. Every number is
 * derived in mm_costs.c from the CPU model's cost table by one stated rule
 * (docs/address-spaces.md, "What is charged"); host work itself (moving an
 * address space, copying a forked page) is never charged.
 */
#ifndef EMU_MM_COSTS_H
#define EMU_MM_COSTS_H

#include <stdint.h>
#include "machine/machine.h"

enum mm_cost {
    MM_COST_TLB_REFILL,   /* one page-table walk after a CR3 load */
    MM_COST_CLEAR_PAGE,   /* Linux 2.5's clear_page: 4 KiB zeroed */
    MM_COST_COPY_PAGE,    /* Linux 2.5's copy_page: 4 KiB copied */
    MM_NCOSTS
};

/* Centicycles of one event on this CPU model. */
uint64_t mm_cost_of(const struct cpu_config *cpu, enum mm_cost what);
/* Charge count events. */
void mm_cost_charge(struct machine *m, enum mm_cost what, uint64_t count);

#endif
