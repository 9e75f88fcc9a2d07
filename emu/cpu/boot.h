/* Booting: the guest kernel and the program's boot record into memory. */
#ifndef EMU_BOOT_H
#define EMU_BOOT_H

#include <stddef.h>
#include <stdint.h>
#include "machine/machine.h"

/* Load the built-in kernel image, the program file and its arguments, and
 * point the CPU at the kernel's entry with EBX = the boot record.
 * 0, or the emu exit status with the reason in m->message. */
int machine_boot(struct machine *m);
/* Before any output file is opened: is the program at path there, a
 * regular file, readable, and an ELF file? 0, or the exit status (126,
 * 127) with a one-line reason in err. The guest kernel checks the rest. */
int program_check(const char *path, char *err, size_t errlen);
/* The same with another kernel image (tests). */
int machine_boot_image(struct machine *m, const uint8_t *image, size_t size);
/* For a machine restored to exec_boot_program (the fuzz targets): a new
 * file tree with the program of m->opts, and its boot record. 0 or the
 * exit status. */
int machine_write_boot_record(struct machine *m);

#endif
