#include "memory.h"
#include <sys/mman.h>

int memory_map(uc_engine *uc, struct guest_memory *mem, uint32_t base, uint32_t size,
               const char *name)
{
    if (mem->count == (int)(sizeof mem->regions / sizeof mem->regions[0]))
        return -1;
    /* Reserved, not committed: the host only backs pages the guest touches. */
    void *host = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED)
        return -1;
    if (uc_mem_map_ptr(uc, base, size, UC_PROT_ALL, host) != UC_ERR_OK) {
        munmap(host, size);
        return -1;
    }
    mem->regions[mem->count++] = (struct mem_region){ base, size, host, name };
    return 0;
}

int memory_share(uc_engine *uc, const struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++) {
        const struct mem_region *r = &mem->regions[i];
        if (uc_mem_map_ptr(uc, r->base, r->size, UC_PROT_ALL, r->host) != UC_ERR_OK)
            return -1;
    }
    return 0;
}

void memory_unmap_all(struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++)
        munmap(mem->regions[i].host, mem->regions[i].size);
    mem->count = 0;
}

/*
 * The engine keeps what it knows about translated code per page in
 * descriptors allocated for 1024 pages (4 MiB) of its RAM offsets at a
 * time, and a store to a page whose 4 MiB have descriptors pays about
 * twice what one to a page without them does (quirk 24). Each mapping
 * gets its own RAM offsets, in the order mapped, into the smallest gap
 * that fits. So the rest of the region goes first, back into the gap the
 * region leaves; the part below the code next; the code last, elsewhere:
 * then the pages written most (the kernel's data, stacks and page tables,
 * right after its code) share no 4 MiB of offsets with code.
 */
int memory_map_code_apart(uc_engine *uc, const struct guest_memory *mem, uint32_t lo,
                          uint32_t hi)
{
    const struct mem_region *r = NULL;

    for (int i = 0; i < mem->count && !r; i++)
        if (lo >= mem->regions[i].base && lo - mem->regions[i].base < mem->regions[i].size)
            r = &mem->regions[i];
    if (!r || lo >= hi || (lo | hi) & (PAGE_SIZE - 1) || hi - r->base > r->size)
        return -1;
    uint64_t end = (uint64_t)r->base + r->size;
    const struct { uint64_t base, size; } piece[3] = {
        { hi, end - hi }, { r->base, lo - r->base }, { lo, hi - lo },
    };
    if (uc_mem_unmap(uc, r->base, r->size) != UC_ERR_OK)
        return -1;
    for (int i = 0; i < 3; i++)
        if (piece[i].size && uc_mem_map_ptr(uc, piece[i].base, piece[i].size, UC_PROT_ALL,
                                            r->host + (piece[i].base - r->base)) != UC_ERR_OK)
            return -1;
    return 0;
}
