/* The guest kernel, built into the emulator so that emu is one file. */
	.section .rodata
	.balign 16
	.globl kernel_image_start, kernel_image_end
kernel_image_start:
	.incbin KERNEL_IMAGE
kernel_image_end:
/* the same built with CONFIG_SMP, for --smp N > 1 */
	.balign 16
	.globl kernel_smp_image_start, kernel_smp_image_end
kernel_smp_image_start:
	.incbin KERNEL_SMP_IMAGE
kernel_smp_image_end:
	.section .note.GNU-stack, "", @progbits
