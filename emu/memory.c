#include "memory.h"
#include <sys/mman.h>
#include "../guest/abi.h"

static int map_region(uc_engine *uc, struct guest_memory *mem, uint32_t base,
                      uint32_t size, const char *name)
{
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

/*
 * The engine checks that an address is backed before it walks the page
 * tables, so an access to an unbacked address would stop the engine instead
 * of raising #PF. Every address is therefore backed; the guest's page
 * tables decide which pages exist.
 */
int memory_map_all(uc_engine *uc, struct guest_memory *mem)
{
    mem->count = 0;
    if (map_region(uc, mem, 0, USER_SPACE_TOP, "user") ||
        map_region(uc, mem, KERNEL_BASE, KERNEL_RAM_SIZE, "kernel") ||
        map_region(uc, mem, KERNEL_BASE + KERNEL_RAM_SIZE,
                   FIXADDR_TOP - (KERNEL_BASE + KERNEL_RAM_SIZE), "unused") ||
        map_region(uc, mem, FIXADDR_TOP, PAGE_SIZE, "fixmap"))
        return -1;
    return 0;
}

void memory_unmap_all(struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++)
        munmap(mem->regions[i].host, mem->regions[i].size);
    mem->count = 0;
}

uint8_t *guest_ptr(const struct guest_memory *mem, uint32_t addr, uint32_t len)
{
    for (int i = 0; i < mem->count; i++) {
        const struct mem_region *r = &mem->regions[i];
        uint32_t off = addr - r->base;
        if (addr >= r->base && off < r->size && len <= r->size - off)
            return r->host + off;
    }
    return NULL;
}
