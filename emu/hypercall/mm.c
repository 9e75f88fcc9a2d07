/*
 * HC_PORT_MM: the kernel tells the emulator what its page tables cannot:
 * which address space CR3 is about to name, what a fork copies, which
 * pages to zero or fill, which go. emu/mm/addrspace.c keeps the bytes; this
 * charges what the hardware would have spent (mm_costs.h) and nothing for
 * the host's own work.
 */
#include "hypercall/mm.h"
#include "machine/charge.h"
#include <errno.h>
#include <string.h>
#include "../guest/x86.h"
#include "hypercall/mm_costs.h"
#include "cpu/smp.h"
#include "vfs/vfs.h"

static bool page_ok(uint32_t addr)
{
    return (addr & (PAGE_SIZE - 1)) == 0 && addr >= USER_SPACE_BASE && addr < USER_SPACE_TOP;
}

static int32_t op_switch(struct machine *m, const struct hc_mm *r)
{
    uint32_t refills;
    if (m->cur_block && (m->cur_block->specials & SPECIAL_CR3))
        as_own_cr3_load(m->as);   /* in the request's block, noted before it */
    int err = as_switch(m->as, m->smp ? NULL : m->uc, &m->mem, reg_read(m, UC_X86_REG_CR3),
                        r->pgd, &refills);

    if (err) {
        machine_stop(m, STOP_MACHINE, "cannot switch to the address space at %08x: %s",
                     r->pgd, strerror(-err));
        return err;
    }
    mm_cost_charge(m, MM_COST_TLB_REFILL, refills);
    if (m->smp)
        smp_note_space(m, r->pgd);
    return 0;
}

static int32_t op_clone(struct machine *m, const struct hc_mm *r)
{
    uint32_t pages;
    int err = as_clone(m->as, &m->mem, r->pgd, r->arg, &pages);

    if (err)
        machine_stop(m, STOP_MACHINE, "cannot copy address space %08x to %08x: %s", r->arg,
                     r->pgd, strerror(-err));
    return err ? err : (int32_t)pages;
}

static int32_t op_clear(struct machine *m, const struct hc_mm *r)
{
    if (!page_ok(r->addr))
        return -EINVAL;
    memset(as_page(m->as, r->addr), 0, PAGE_SIZE);
    as_filled(m->as, m->uc, r->addr);
    mm_cost_charge(m, MM_COST_CLEAR_PAGE, 1);
    return 0;
}

/* The kernel's get_zeroed_page. Zeroing on the host spares 2.0.1's store
 * path a thousand stores a page (docs/performance.md, item 23). */
static int32_t op_clear_kernel(struct machine *m, const struct hc_mm *r)
{
    uint8_t *page = guest_ptr(&m->mem, r->addr, PAGE_SIZE);

    if ((r->addr & (PAGE_SIZE - 1)) || !in_kernel_ram(r->addr) || !page)
        return -EINVAL;
    memset(page, 0, PAGE_SIZE);
    mm_cost_charge(m, MM_COST_CLEAR_PAGE, 1);
    return 0;
}

/* A page of a file mapping: the file's bytes, zero past them. Reading the
 * page cache costs nothing on Linux; a private copy (the first write) is
 * charged as copy_page. */
static int32_t op_file(struct machine *m, const struct hc_mm *r)
{
    uint8_t *page;
    ssize_t n = 0;

    if (!page_ok(r->addr) || r->arg2 > PAGE_SIZE)
        return -EINVAL;
    page = as_page(m->as, r->addr);
    if (m->vfs && r->arg2)
        n = vfs_read(m->vfs, r->arg, page, r->arg2,
                     ((uint64_t)r->arg3_hi << 32) | r->arg3_lo);
    memset(page + (n > 0 ? n : 0), 0, PAGE_SIZE - (size_t)(n > 0 ? n : 0));
    as_filled(m->as, m->uc, r->addr);
    if (r->len)
        mm_cost_charge(m, MM_COST_COPY_PAGE, 1);
    return n < 0 ? (int32_t)n : 0;
}

static int32_t op_shm_free(struct machine *m, const struct hc_mm *r)
{
    uint32_t held;
    int err = as_shm_free(m->as, r->arg, &held);
    return err ? err : (int32_t)held;
}

static int32_t op_shm_fault(struct machine *m, const struct hc_mm *r)
{
    int n = as_shm_fault(m->as, r->addr, r->arg != 0);
    if (n >= 0)
        as_filled(m->as, m->uc, r->addr);
    if (n == 1)
        mm_cost_charge(m, MM_COST_CLEAR_PAGE, 1);
    return n;
}

/* A debugger that catches faults stops at the program's page faults, not
 * at every one demand paging resolves. */
static int32_t op_bad_fault(struct machine *m, const struct hc_mm *r)
{
    const struct delivery_event e = { .vector = X86_VEC_PF, .kind = EVENT_FAULT, .from_cpl = 3,
                                      .error_code = r->arg, .return_eip = r->arg2 };
    if (m->hold.program_fault)
        m->hold.program_fault(m->hold.ctx, m, &e);
    return 0;
}

void mm_hypercall(struct machine *m, struct hc_mm *r)
{
    /* The "out" that carries the request stands for work the kernel does
     * itself; what that work costs is charged below instead. */
    if (!m->opts->no_cycle_model)
        refund_current_insn(m, CLASS_IO);
    m->code.mm_requests++;
    switch (r->op) {
    case MM_SWITCH: r->result = op_switch(m, r); break;
    case MM_CLONE: r->result = op_clone(m, r); break;
    case MM_DESTROY: r->result = as_destroy(m->as, r->pgd); break;
    case MM_RELEASE: r->result = as_release(m->as, m->uc, &m->mem, r->addr, r->len); break;
    case MM_INVALIDATE: r->result = as_invalidate(m->as, m->uc, &m->mem, r->addr, r->len); break;
    case MM_CLEAR: r->result = op_clear(m, r); break;
    case MM_CLEAR_KERNEL: r->result = op_clear_kernel(m, r); break;
    case MM_FILE: r->result = op_file(m, r); break;
    case MM_COW:
        r->result = page_ok(r->addr) ? 0 : -EINVAL;
        if (!r->result)
            mm_cost_charge(m, MM_COST_COPY_PAGE, 1);
        break;
    case MM_BAD_FAULT: r->result = op_bad_fault(m, r); break;
    case MM_MOVE: r->result = as_move(m->as, m->uc, &m->mem, r->addr, r->len, r->arg); break;
    case MM_SHM_CREATE: r->result = as_shm_create(m->as, r->len); break;
    case MM_SHM_FREE: r->result = op_shm_free(m, r); break;
    case MM_SHM_MAP: r->result = as_shm_map(m->as, r->addr, r->len, r->arg, r->arg2); break;
    case MM_SHM_FAULT: r->result = op_shm_fault(m, r); break;
    default: r->result = -ENOSYS; break;
    }
}
