#include "engine/memory.h"
#include <sys/mman.h>

/*
 * The engine keeps what it knows about translated code per page in
 * descriptors allocated for 1024 pages (4 MiB) of its RAM offsets at a
 * time, and a store to a page whose 4 MiB have descriptors pays about
 * twice what one to a page without them does (docs/unicorn.md, quirk 24).
 * Each mapping gets its own RAM offsets, in the order mapped, from the end
 * of the last. So a region holding mem's code is mapped in three: the
 * part above the code first, the part below it, the code last: the pages
 * written most (the kernel's data, stacks and page tables, right after
 * its code) then share no 4 MiB of offsets with code.
 */
static int map_region(uc_engine *uc, const struct guest_memory *mem, const struct mem_region *r)
{
    uint32_t lo = mem->code_lo, hi = mem->code_hi;
    uint64_t end = (uint64_t)r->base + r->size;

    if (lo >= hi || (lo | hi) & (PAGE_SIZE - 1) || lo < r->base || hi > end)
        return uc_mem_map_ptr(uc, r->base, r->size, UC_PROT_ALL, r->host) == UC_ERR_OK ? 0 : -1;
    const struct { uint64_t base, size; } piece[3] = {
        { hi, end - hi }, { r->base, lo - r->base }, { lo, hi - lo },
    };
    for (int i = 0; i < 3; i++)
        if (piece[i].size && uc_mem_map_ptr(uc, piece[i].base, piece[i].size, UC_PROT_ALL,
                                            r->host + (piece[i].base - r->base)) != UC_ERR_OK)
            return -1;
    return 0;
}

int memory_map(uc_engine *uc, struct guest_memory *mem, uint32_t base, uint32_t size,
               const char *name)
{
    if (mem->count == (int)(sizeof mem->regions / sizeof mem->regions[0]) ||
        (uint64_t)base + size > (uint64_t)UINT32_MAX + 1)
        return -1;
    /* Reserved, not committed: the host only backs pages the guest touches. */
    void *host = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED)
        return -1;
    struct mem_region r = { base, size, host, name };
    if (map_region(uc, mem, &r)) {
        munmap(host, size);
        return -1;
    }
    mem->regions[mem->count++] = r;
    mem->gen++;
    return 0;
}

/* The kernel's RAM in 2 MiB pages where the host gives them (see
 * memory.h). */
void memory_huge_kernel_ram(const struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++)
        if (mem->regions[i].base == KERNEL_BASE)
            madvise(mem->regions[i].host, mem->regions[i].size, MADV_HUGEPAGE);
}

int memory_share(uc_engine *uc, const struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++) {
        const struct mem_region *r = &mem->regions[i];
        if (map_region(uc, mem, r))
            return -1;
    }
    return 0;
}

void memory_unmap_all(struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++)
        munmap(mem->regions[i].host, mem->regions[i].size);
    mem->count = 0;
    mem->gen++;
}

