/*
 * Guest RAM: host memory mapped into the engine at fixed guest addresses.
 * The engine does not translate addresses (docs/unicorn.md, quirk 12), so
 * a guest page always lives at its own virtual address.
 */
#ifndef EMU_MEMORY_H
#define EMU_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <unicorn/unicorn.h>
#include "../guest/abi.h"

struct mem_region {
    uint32_t base;
    uint32_t size;
    uint8_t *host;
    const char *name;
};

struct guest_memory {
    struct mem_region regions[4];
    int count;
    /* The region of the block hook's last block in each eighth of the
     * address space (addr >> 29): user code, kernel RAM and the fixmap's
     * page each keep their own, so a system call's crossing finds it. */
    uint8_t hot[8];
    /* Pages of code [code_lo, code_hi) that a region holding them maps into
     * each engine apart from the rest of it (memory.c): the same host
     * memory, cheaper stores next to it. 0, 0: none. */
    uint32_t code_lo, code_hi;
    /* Bumped by each change of the regions (memory_map, memory_unmap_all):
     * a host pointer found at one generation holds while it lasts. */
    uint32_t gen;
};

/* Back [base, base+size) with fresh zeroed host memory. 0 or -1. */
int memory_map(uc_engine *uc, struct guest_memory *mem, uint32_t base, uint32_t size,
               const char *name);
/* The kernel's RAM advised for 2 MiB host pages (MADV_HUGEPAGE). */
void memory_huge_kernel_ram(const struct guest_memory *mem);
/* Map every region of mem into another engine too: the same host pages. */
int memory_share(uc_engine *uc, const struct guest_memory *mem);
void memory_unmap_all(struct guest_memory *mem);
/* Host pointer for [addr, addr+len) if it lies inside one region, else NULL
 * (inline: the block hook asks it for every block's bytes). */
static inline uint8_t *region_ptr(const struct mem_region *r, uint32_t addr, uint32_t len)
{
    uint32_t off = addr - r->base;   /* below base: past size (no region passes 4 GiB) */
    return off < r->size && len <= r->size - off ? r->host + off : NULL;
}

static inline uint8_t *guest_ptr(const struct guest_memory *mem, uint32_t addr, uint32_t len)
{
    for (int i = 0; i < mem->count; i++) {
        uint8_t *p = region_ptr(&mem->regions[i], addr, len);
        if (p)
            return p;
    }
    return NULL;
}

/* guest_ptr for the block hook's code, asking first the region of the
 * last block in addr's eighth of the address space. */
static inline const uint8_t *guest_code_ptr(struct guest_memory *mem, uint32_t addr,
                                            uint32_t len)
{
    uint8_t *hot = &mem->hot[addr >> 29];
    const uint8_t *p = *hot < mem->count ? region_ptr(&mem->regions[*hot], addr, len) : NULL;
    for (int i = 0; !p && i < mem->count; i++)
        if ((p = region_ptr(&mem->regions[i], addr, len)))
            *hot = (uint8_t)i;
    return p;
}

/* Is addr in the kernel's RAM (PAGE_OFFSET and up, KERNEL_RAM_SIZE of it)? */
static inline bool in_kernel_ram(uint32_t addr)
{
    return addr >= KERNEL_BASE && addr - KERNEL_BASE < KERNEL_RAM_SIZE;
}

#endif
