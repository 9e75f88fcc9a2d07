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

