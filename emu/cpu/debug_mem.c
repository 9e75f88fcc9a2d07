/*
 * Guest virtual memory as a debugger sees it (debug.h): through the page
 * tables (user_memory.h's page walk), with ring 3's view of user space and
 * the kernel's above it.
 */
#include "cpu/debug.h"
#include <string.h>
#include "machine/user_memory.h"

/* Copy between buf and guest memory from addr on, a page at a time,
 * until an access is refused or nothing backs the memory. */
static size_t transfer(struct machine *m, uint32_t addr, uint8_t *buf, size_t len, bool write)
{
    size_t done = 0;
    while (done < len) {
        uint32_t va = addr + (uint32_t)done, phys, room;
        if (va < addr || !page_walk(m, va, va < KERNEL_BASE, write, &phys, &room))
            break;
        uint32_t n = len - done < room ? (uint32_t)(len - done) : room;
        uint8_t *p = guest_ptr(&m->mem, phys, n);
        if (!p)
            break;
        if (write) {
            memcpy(p, buf + done, n);
            if (m->as)
                as_host_wrote(m->as, phys, n);
        } else
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
