#include "engine.h"
#include "../guest/x86.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_BASE 0x10000u
#define PROBE_GDT  (PROBE_BASE + 0x800)

struct probe_state {
    uc_context *ctx;
    int last_vector;
    int faults;
};

static void probe_on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    struct probe_state *ps = user;
    ps->last_vector = (int)intno;
    ps->faults++;
    uc_context_save(uc, ps->ctx);
    uc_emu_stop(uc);
}

static int32_t ctx_int(const uc_context *ctx, size_t off)
{
    int32_t v;
    memcpy(&v, (const uint8_t *)ctx + off, sizeof v);
    return v;
}

/* uc_context is opaque; its data follows a header whose size we get as
 * uc_context_size() minus the CPU state the engine copies. We search the
 * whole allocation, header included, which only widens the search. */
static size_t ctx_bytes(uc_engine *uc)
{
    return uc_context_size(uc);
}

/* "mov (addr+16), %ds" with the selector stored there: #GP(sel) with a tiny
 * GDT. The selector goes through memory so no register holds its value. */
static void put_segment_load(uc_engine *uc, uint32_t addr, uint16_t sel)
{
    uint32_t slot = addr + 16;
    uint8_t code[] = { 0x8e, 0x1d, (uint8_t)slot, (uint8_t)(slot >> 8),
                       (uint8_t)(slot >> 16), (uint8_t)(slot >> 24), 0xf4 };
    uc_mem_write(uc, addr, code, sizeof code);
    uc_mem_write(uc, slot, &sel, sizeof sel);
}

static int run_until_fault(uc_engine *uc, uint32_t addr, struct probe_state *ps)
{
    int before = ps->faults;
    uc_emu_start(uc, addr, addr + 0x100, 0, 16);
    return ps->faults == before + 1 ? 0 : -1;
}

int engine_probe_layout(struct engine_layout *layout, char *err, size_t errlen)
{
    const uint16_t sel1 = 0x1238, sel2 = 0x2ab0;
    uc_engine *uc = NULL;
    struct probe_state ps = { 0 };
    uc_context *clean = NULL;
    uc_hook hook;
    int rc = -1;

    if (uc_open(UC_ARCH_X86, UC_MODE_32, &uc) != UC_ERR_OK) {
        snprintf(err, errlen, "cannot open a Unicorn x86 engine");
        return -1;
    }
    uc_mem_map(uc, PROBE_BASE, 0x1000, UC_PROT_ALL);
    uc_x86_mmr gdtr = { .base = PROBE_GDT, .limit = 0x17 };
    uc_reg_write(uc, UC_X86_REG_GDTR, &gdtr);
    uc_context_alloc(uc, &ps.ctx);
    uc_context_alloc(uc, &clean);
    uc_hook_add(uc, &hook, UC_HOOK_INTR, probe_on_interrupt, &ps, 1, 0);
    uc_context_save(uc, clean);

    size_t n = ctx_bytes(uc);
    put_segment_load(uc, PROBE_BASE, sel1);
    put_segment_load(uc, PROBE_BASE + 0x100, sel2);
    if (run_until_fault(uc, PROBE_BASE, &ps) || ps.last_vector != X86_VEC_GP) {
        snprintf(err, errlen, "engine probe: a bad segment load did not raise #GP");
        goto out;
    }

    /* The in-flight field went from -1 to 13; the error code field holds
     * the selector. Try every candidate pair until one both explains the
     * first fault and, once reset, makes a second fault come out as #GP
     * with the new selector instead of a double fault. */
    for (size_t oe = 0; oe + 4 <= n; oe += 4) {
        if (ctx_int(clean, oe) != -1 || ctx_int(ps.ctx, oe) != X86_VEC_GP)
            continue;
        for (size_t ec = 0; ec + 4 <= n; ec += 4) {
            if (ctx_int(ps.ctx, ec) != sel1)
                continue;
            int32_t none = -1;
            memcpy((uint8_t *)ps.ctx + oe, &none, sizeof none);
            uc_context_restore(uc, ps.ctx);
            if (run_until_fault(uc, PROBE_BASE + 0x100, &ps) == 0 &&
                ps.last_vector == X86_VEC_GP && ctx_int(ps.ctx, ec) == sel2) {
                layout->context_size = n;
                layout->old_exception_offset = oe;
                layout->error_code_offset = ec;
                rc = 0;
                goto out;
            }
            /* Undo: start over from the first fault. */
            uc_context_restore(uc, clean);
            uc_reg_write(uc, UC_X86_REG_GDTR, &gdtr);
            if (run_until_fault(uc, PROBE_BASE, &ps))
                goto fail;
        }
    }
fail:
    snprintf(err, errlen, "engine probe: cannot locate the exception state in "
             "Unicorn's CPU context (is this Unicorn 2.0.1?)");
out:
    uc_context_free(ps.ctx);
    uc_context_free(clean);
    uc_close(uc);
    return rc;
}

uint32_t engine_take_exception(uc_engine *uc, uc_context *ctx,
                               const struct engine_layout *layout)
{
    int32_t code, none = -1;
    uc_context_save(uc, ctx);
    memcpy(&code, (uint8_t *)ctx + layout->error_code_offset, sizeof code);
    memcpy((uint8_t *)ctx + layout->old_exception_offset, &none, sizeof none);
    uc_context_restore(uc, ctx);
    return (uint32_t)code;
}
