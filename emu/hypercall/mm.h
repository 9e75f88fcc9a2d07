/* The guest kernel's address-space requests (HC_PORT_MM, guest/abi.h). */
#ifndef EMU_MMCALL_H
#define EMU_MMCALL_H

#include "machine/machine.h"

/* Serve the struct hc_mm at block (kernel memory, checked by the caller). */
void mm_hypercall(struct machine *m, struct hc_mm *r);

#endif
