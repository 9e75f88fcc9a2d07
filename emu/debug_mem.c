/*
 * Guest virtual memory as a debugger sees it (debug.h): the two-level
 * i386 page walk from CR3, with 4 MiB pages where CR4.PSE allows them.
 * The tables and the data are read where the entries point; the guest
 * kernel maps every page at itself (docs/unicorn.md, quirk 12), so that
 * is where the engine finds them too.
 */
#include "debug.h"
#include <string.h>

static bool read_entry(struct machine *m, uint32_t addr, uint32_t *entry)
{
    const uint8_t *p = guest_ptr(&m->mem, addr, 4);
    if (!p)
        return false;
    memcpy(entry, p, 4);
    return true;
}

/* Does an entry allow the access? User addresses need the user bit, and
 * writes the writable bit (the kernel runs with CR0.WP: it too). */
static bool allows(uint32_t entry, bool user, bool write)
{
    return (entry & X86_PTE_PRESENT) && (!user || (entry & X86_PTE_USER)) &&
           (!write || (entry & X86_PTE_RW));
}

/* The physical address of addr, if the access is allowed; *room: bytes
 * from there to the end of its page. */
static bool translate(struct machine *m, uint32_t addr, bool write, uint32_t *phys,
                      uint32_t *room)
{
    if (!(reg_read(m, UC_X86_REG_CR0) & X86_CR0_PG)) {
        *phys = addr;
        *room = PAGE_SIZE - (addr & (PAGE_SIZE - 1));
        return true;
    }
    bool user = addr < KERNEL_BASE;
    uint32_t dir = reg_read(m, UC_X86_REG_CR3) & ~(PAGE_SIZE - 1), pde, pte;
    if (!read_entry(m, dir + (addr >> 22) * 4, &pde) || !allows(pde, user, write))
        return false;
    if ((pde & X86_PTE_PSE) && (reg_read(m, UC_X86_REG_CR4) & X86_CR4_PSE)) {
        *phys = (pde & 0xffc00000u) | (addr & 0x003fffffu);
        *room = 0x00400000u - (addr & 0x003fffffu);
        return true;
    }
    uint32_t table = pde & ~(PAGE_SIZE - 1);
    if (!read_entry(m, table + ((addr >> PAGE_SHIFT) & 0x3ff) * 4, &pte) ||
        !allows(pte, user, write))
        return false;
    *phys = (pte & ~(PAGE_SIZE - 1)) | (addr & (PAGE_SIZE - 1));
    *room = PAGE_SIZE - (addr & (PAGE_SIZE - 1));
    return true;
}

/* Copy between buf and guest memory from addr on, a page at a time,
 * until an access is refused or nothing backs the memory. */
static size_t transfer(struct machine *m, uint32_t addr, uint8_t *buf, size_t len, bool write)
{
    size_t done = 0;
    while (done < len) {
        uint32_t va = addr + (uint32_t)done, phys, room;
        if (va < addr || !translate(m, va, write, &phys, &room))
            break;
        uint32_t n = len - done < room ? (uint32_t)(len - done) : room;
        uint8_t *p = guest_ptr(&m->mem, phys, n);
        if (!p)
            break;
        if (write)
            memcpy(p, buf + done, n);
        else
            memcpy(buf + done, p, n);
        done += n;
    }
    return done;
}

size_t debug_read_mem(struct debug *d, uint32_t addr, uint8_t *buf, size_t len)
{
    return transfer(d->m, addr, buf, len, false);
}

/* The engine keeps translated code apart from memory: a write through
 * the debugger must make it translate again (docs/unicorn.md, quirk 15). */
size_t debug_write_mem(struct debug *d, uint32_t addr, const uint8_t *buf, size_t len)
{
    size_t n = transfer(d->m, addr, (uint8_t *)buf, len, true);
    if (n)
        d->retranslate = true;
    return n;
}
