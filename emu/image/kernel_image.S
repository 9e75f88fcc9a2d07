/* The guest kernel images (the Makefile's KERNEL_VARIANTS, listed in the
 * generated kernel_images.h), each with the table of its instructions
 * (tools/kinsns.c), built into the emulator so that emu is one file;
 * emu/image/ksyms.c says which runs. */
#include "kernel_images.h"
	.section .rodata
#define X(sym, name, file, insns, march, config, lock, history) \
	.balign 16; \
	.globl sym##_start, sym##_end, sym##_insns_start, sym##_insns_end; \
sym##_start: \
	.incbin file; \
sym##_end:; \
	.balign 16; \
sym##_insns_start: \
	.incbin insns; \
sym##_insns_end:;
KERNEL_IMAGES(X)

/* the default image (--cpu pentium4, --kernel-config up), and the one
 * --smp N > 1 boots, under the names the tests know them by */
	.globl kernel_image_start, kernel_image_end
	.set kernel_image_start, kernel_pentium4_up_start
	.set kernel_image_end, kernel_pentium4_up_end
	.globl kernel_smp_image_start, kernel_smp_image_end
	.set kernel_smp_image_start, kernel_smp_bkl_start
	.set kernel_smp_image_end, kernel_smp_bkl_end
	.section .note.GNU-stack, "", @progbits
