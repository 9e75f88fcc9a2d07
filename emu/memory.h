/* Guest RAM: host memory mapped into the engine at fixed guest addresses. */
#ifndef EMU_MEMORY_H
#define EMU_MEMORY_H

#include <stdint.h>
#include <stddef.h>
#include <unicorn/unicorn.h>

struct mem_region {
    uint32_t base;
    uint32_t size;
    uint8_t *host;
    const char *name;
};

struct guest_memory {
    struct mem_region regions[4];
    int count;
};

int memory_map_all(uc_engine *uc, struct guest_memory *mem);
void memory_unmap_all(struct guest_memory *mem);
/* Host pointer for [addr, addr+len) if it lies inside one region, else NULL. */
uint8_t *guest_ptr(const struct guest_memory *mem, uint32_t addr, uint32_t len);

#endif
