#include "user_memory.h"
#include <string.h>

static const uint32_t user_ok = X86_PTE_PRESENT | X86_PTE_USER;

/* The address ring 3's addr maps to, or false; *room: the bytes left in
 * its page. The page tables point each page at itself (README, Memory
 * layout), but the walk does not assume it. */
static bool translate(struct machine *m, uint32_t addr, uint32_t *phys, uint32_t *room)
{
    if (!(reg_read(m, UC_X86_REG_CR0) & X86_CR0_PG)) {
        if (addr >= USER_SPACE_TOP)
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
    if ((pde & user_ok) != user_ok)
        return false;
    if (pde & X86_PTE_PSE) {
        *phys = (pde & 0xffc00000u) | (addr & 0x3fffff);
        *room = 0x400000 - (addr & 0x3fffff);
        return true;
    }
    const uint8_t *pte_p = guest_ptr(&m->mem, (pde & ~0xfffu) + ((addr >> 12) & 0x3ff) * 4, 4);
    if (!pte_p)
        return false;
    memcpy(&pte, pte_p, 4);
    if ((pte & user_ok) != user_ok)
        return false;
    *phys = (pte & ~0xfffu) | (addr & 0xfff);
    *room = 0x1000 - (addr & 0xfff);
    return true;
}

size_t user_read(struct machine *m, uint32_t addr, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        uint32_t phys, room;
        if ((uint64_t)addr + done > UINT32_MAX ||
            !translate(m, addr + (uint32_t)done, &phys, &room))
            break;
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
