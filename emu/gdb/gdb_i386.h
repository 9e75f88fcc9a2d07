/*
 * The i386 register set as GDB sees it: the numbering, sizes and the
 * target description (target.xml) all come from one table, so the 'g'
 * packet, 'p'/'P' and what GDB reads in the description cannot disagree.
 *
 * GDB 13's i386_validate_tdesc_p insists on the whole org.gnu.gdb.i386.core
 * feature: the 16 integer registers AND the x87 state (st0-st7, 80 bits
 * each, then fctrl..fop), numbered 0..31 in that order (gdb/i386-tdep.c,
 * gdb/features/i386/32bit-core.xml). The emulated guest kernel never
 * touches the FPU on the paths we show, so the x87 registers read as
 * zero, and writes of anything else are refused.
 *
 * The system registers follow in a feature of their own (as QEMU's stub
 * describes them beside the core): GDB numbers them after the core's and
 * reads them with 'p', so `info registers cr0` and `p $cr3` work.
 */
#ifndef EMU_GDB_I386_H
#define EMU_GDB_I386_H

#include <stddef.h>

enum gdb_i386_reg {
    GDB_EAX, GDB_ECX, GDB_EDX, GDB_EBX, GDB_ESP, GDB_EBP, GDB_ESI, GDB_EDI,
    GDB_EIP, GDB_EFLAGS, GDB_CS, GDB_SS, GDB_DS, GDB_ES, GDB_FS, GDB_GS,
    GDB_ST0,                       /* st0..st7: 10 bytes each */
    GDB_FCTRL = GDB_ST0 + 8,       /* fctrl fstat ftag fiseg fioff foseg fooff fop */
    /* the system registers, read-only: cr0 cr2 cr3 cr4, the six segment
     * bases (cs ss ds es fs gs), the three SYSENTER MSRs */
    GDB_SYS = GDB_FCTRL + 8,
    GDB_CR0 = GDB_SYS, GDB_CR2, GDB_CR3, GDB_CR4,
    GDB_CS_BASE, GDB_SS_BASE, GDB_DS_BASE, GDB_ES_BASE, GDB_FS_BASE, GDB_GS_BASE,
    GDB_SYSENTER_CS, GDB_SYSENTER_ESP, GDB_SYSENTER_EIP,
    GDB_NREGS,
};

/* Registers 0..GDB_NCORE-1 and GDB_SYS..GDB_NREGS-1 are 32 bits and come
 * from the target. */
#define GDB_NCORE 16
/* The 'g' packet: the core feature, 16*4 + 8*10 + 8*4 bytes; GDB reads
 * the system registers, beyond it, one by one ('p'). */
#define GDB_G_BYTES 176

size_t gdb_i386_reg_size(int regno);           /* bytes; 0 if out of range */
size_t gdb_i386_reg_offset(int regno);         /* in the 'g' block */
/* The target description, a complete XML document (NUL-terminated). */
const char *gdb_i386_target_xml(size_t *len);

#endif
