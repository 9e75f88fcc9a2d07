#include "machine/user_memory.h"
#include <string.h>

/* Does a page-table entry allow the access? */
static bool allows(uint32_t entry, bool user, bool write)
{
    return (entry & X86_PTE_PRESENT) && (!user || (entry & X86_PTE_USER)) &&
           (!write || (entry & X86_PTE_RW));
}

/* The page tables point each page at itself (README, Memory layout), but
 * the walk does not assume it. *unpaged: it stopped at an entry that is not
 * present. */
static bool walk(struct machine *m, uint32_t addr, bool user, bool write, uint32_t *phys,
                 uint32_t *room, bool *unpaged)
{
    if (!(reg_read(m, UC_X86_REG_CR0) & X86_CR0_PG)) {
        if (user && addr >= USER_SPACE_TOP)
            return false;
        *phys = addr;
        *room = 0x1000 - (addr & 0xfff);
        return true;
    }
    uint32_t cr3 = reg_read(m, UC_X86_REG_CR3) & ~0xfffu;
    const uint8_t *pde_p = guest_ptr(&m->mem, cr3 + (addr >> 22) * 4, 4);
    uint32_t pde, pte;
    if (!pde_p)
        return false;
    memcpy(&pde, pde_p, 4);
    *unpaged = !(pde & X86_PTE_PRESENT);
    if (!allows(pde, user, write))
        return false;
    if ((pde & X86_PTE_PSE) && (reg_read(m, UC_X86_REG_CR4) & X86_CR4_PSE)) {
        *phys = (pde & 0xffc00000u) | (addr & 0x3fffff);
        *room = 0x400000 - (addr & 0x3fffff);
        return true;
    }
    const uint8_t *pte_p = guest_ptr(&m->mem, (pde & ~0xfffu) + ((addr >> 12) & 0x3ff) * 4, 4);
    if (!pte_p)
        return false;
    memcpy(&pte, pte_p, 4);
    *unpaged = !(pte & X86_PTE_PRESENT);
    if (!allows(pte, user, write))
        return false;
    *phys = (pte & ~0xfffu) | (addr & 0xfff);
    *room = 0x1000 - (addr & 0xfff);
    return true;
}

bool page_walk(struct machine *m, uint32_t addr, bool user, bool write, uint32_t *phys,
               uint32_t *room)
{
    bool unpaged;
    return walk(m, addr, user, write, phys, room, &unpaged);
}

size_t user_read(struct machine *m, uint32_t addr, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        uint32_t phys, room;
        bool unpaged = false;
        if ((uint64_t)addr + done > UINT32_MAX ||
            !walk(m, addr + (uint32_t)done, true, false, &phys, &room, &unpaged)) {
            m->user_reads_unpaged += unpaged;
            break;
        }
        size_t n = len - done < room ? len - done : room;
        const uint8_t *p = guest_ptr(&m->mem, phys, (uint32_t)n);
        if (!p)
            break;
        memcpy((uint8_t *)buf + done, p, n);
        done += n;
    }
    return done;
}

bool user_read_u32(struct machine *m, uint32_t addr, uint32_t *out)
{
    return user_read(m, addr, out, 4) == 4;
}
