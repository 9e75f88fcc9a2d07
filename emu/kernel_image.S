/* The guest kernel images (Makefile, KERNEL_VARIANTS), built into the
 * emulator so that emu is one file; emu/ksyms.c says which runs. */
	.section .rodata
#define IMAGE(sym, file) \
	.balign 16; \
	.globl sym##_start, sym##_end; \
sym##_start: \
	.incbin file; \
sym##_end:

IMAGE(kernel_pentium4_up, "kernel-pentium4-up.elf")
IMAGE(kernel_pentium4_smp, "kernel-pentium4-smp.elf")
IMAGE(kernel_pentium3_up, "kernel-pentium3-up.elf")
IMAGE(kernel_pentium3_smp, "kernel-pentium3-smp.elf")
IMAGE(kernel_i686_up, "kernel-i686-up.elf")
IMAGE(kernel_i686_smp, "kernel-i686-smp.elf")
IMAGE(kernel_smp_bkl, "kernel-smp-bkl.elf")

/* the default image (--cpu pentium4, --kernel-config up), and the one
 * --smp N > 1 boots, under the names the tests know them by */
	.globl kernel_image_start, kernel_image_end
	.set kernel_image_start, kernel_pentium4_up_start
	.set kernel_image_end, kernel_pentium4_up_end
	.globl kernel_smp_image_start, kernel_smp_image_end
	.set kernel_smp_image_start, kernel_smp_bkl_start
	.set kernel_smp_image_end, kernel_smp_bkl_end
	.section .note.GNU-stack, "", @progbits
