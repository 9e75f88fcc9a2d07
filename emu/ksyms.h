/* The guest kernel image built into emu: loading it and naming its code. */
#ifndef EMU_KSYMS_H
#define EMU_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
    uint32_t addr;
    char *name;
};

struct ksyms {
    struct ksym *syms; /* sorted by address */
    size_t count;
    uint32_t entry;
    uint32_t text_start, text_end;
};

struct guest_memory;

/* Parse an ELF32 i386 image: symbols and entry. 0 or -1 with err. */
int ksyms_load(struct ksyms *ks, const uint8_t *image, size_t size, char *err, size_t errlen);
void ksyms_free(struct ksyms *ks);
uint32_t ksym_addr(const struct ksyms *ks, const char *name);
/* Name of the function containing addr and the offset into it, or NULL. */
const char *ksym_lookup(const struct ksyms *ks, uint32_t addr, uint32_t *offset);
/* Copy the image's PT_LOAD segments into guest memory. */
int kernel_load(const uint8_t *image, size_t size, struct guest_memory *mem,
                char *err, size_t errlen);

extern const uint8_t kernel_image_start[], kernel_image_end[];

#endif
