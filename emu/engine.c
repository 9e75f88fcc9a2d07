/* The workarounds engine.h lists, each behind an engine_* function. */
#include "engine.h"
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../guest/x86.h"

int engine_open(uc_engine **uc)
{
    return uc_open(UC_ARCH_X86, UC_MODE_32, uc) == UC_ERR_OK ? 0 : -1;
}

uint32_t engine_reg_read(uc_engine *uc, int reg)
{
    uint32_t v = 0;
    uc_reg_read(uc, reg, &v);
    return v;
}

void engine_reg_write(uc_engine *uc, int reg, uint32_t value)
{
    uc_reg_write(uc, reg, &value);
}

uint64_t engine_read_msr(uc_engine *uc, uint32_t index)
{
    uc_x86_msr msr = { .rid = index, .value = 0 };
    uc_reg_read(uc, UC_X86_REG_MSR, &msr);
    return msr.value;
}

void engine_stop(uc_engine *uc)
{
    uc_emu_stop(uc);
}

/* ---- quirks 1 and 2: the exception state the API hides ---- */

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

    if (engine_open(&uc)) {
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

void engine_clear_in_flight(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout)
{
    (void)engine_take_exception(uc, ctx, layout);
}

/* ---- quirks 3, 13 and 14: raising the privilege level from a hook ---- */

/* A real-mode load of SS (PE briefly clear; the API's CR0 write has no
 * side effects on 2.0.1) makes the CPL 0. */
static uc_err cpl0_by_real_mode_ss(uc_engine *uc)
{
    uint32_t cr0 = engine_reg_read(uc, UC_X86_REG_CR0), zero = 0;
    engine_reg_write(uc, UC_X86_REG_CR0, cr0 & ~X86_CR0_PE);
    uc_err e = uc_reg_write(uc, UC_X86_REG_SS, &zero);
    engine_reg_write(uc, UC_X86_REG_CR0, cr0);
    return e;
}

/* With the CPL 0 and PE back on, CS and SS load from the GDT with full
 * checks. */
bool engine_enter_ring0(uc_engine *uc, uint16_t cs, uint16_t ss, uint32_t esp)
{
    uc_err e1 = cpl0_by_real_mode_ss(uc);
    uint32_t cs32 = cs, ss32 = ss;
    uc_err e2 = uc_reg_write(uc, UC_X86_REG_CS, &cs32);
    uc_err e3 = uc_reg_write(uc, UC_X86_REG_SS, &ss32);
    engine_reg_write(uc, UC_X86_REG_ESP, esp);
    return e1 == UC_ERR_OK && e2 == UC_ERR_OK && e3 == UC_ERR_OK;
}

/* ---- quirk 4: every address is backed ---- */

int engine_back_memory(uc_engine *uc, struct guest_memory *mem)
{
    mem->count = 0;
    if (memory_map(uc, mem, 0, USER_SPACE_TOP, "user") ||
        memory_map(uc, mem, KERNEL_BASE, KERNEL_RAM_SIZE, "kernel") ||
        memory_map(uc, mem, KERNEL_BASE + KERNEL_RAM_SIZE,
                   FIXADDR_TOP - (KERNEL_BASE + KERNEL_RAM_SIZE), "unused") ||
        memory_map(uc, mem, FIXADDR_TOP, PAGE_SIZE, "fixmap"))
        return -1;
    return 0;
}

/* ---- quirks 5 and 7: what the engine reports instead of raising ---- */

/* An access past 0xffffffff comes here as a 64-bit address. A 32-bit CPU
 * wraps to page 0, which is never mapped, and raises #PF there. */
static bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                        int64_t value, void *user)
{
    struct engine_reports *r = user;
    (void)uc;
    (void)size;
    (void)value;
    if (address > UINT32_MAX) {
        r->wrap = true;
        r->wrap_write = type == UC_MEM_WRITE_UNMAPPED;
        r->wrap_addr = (uint32_t)address;
    }
    return false;
}

/* The run stops after this whatever it returns. */
static bool on_invalid_insn(uc_engine *uc, void *user)
{
    struct engine_reports *r = user;
    (void)uc;
    r->ud = true;
    return true;
}

int engine_watch(uc_engine *uc, struct engine_reports *r)
{
    uc_hook h;
    if (uc_hook_add(uc, &h, UC_HOOK_MEM_UNMAPPED, on_unmapped, r, 1, 0) != UC_ERR_OK ||
        uc_hook_add(uc, &h, UC_HOOK_INSN_INVALID, on_invalid_insn, r, 1, 0) != UC_ERR_OK)
        return -1;
    return 0;
}

/* ---- quirk 8: instructions that cannot be hooked as instructions ---- */

int engine_hook_code_at(uc_engine *uc, uint32_t addr, uc_cb_hookcode_t cb, void *user)
{
    uc_hook h;
    return uc_hook_add(uc, &h, UC_HOOK_CODE, cb, user, addr, addr) == UC_ERR_OK ? 0 : -1;
}

int engine_hook_code(uc_engine *uc, uc_cb_hookcode_t cb, void *user)
{
    uc_hook h;
    return uc_hook_add(uc, &h, UC_HOOK_CODE, cb, user, 1, 0) == UC_ERR_OK ? 0 : -1;
}

void engine_retranslate(uc_engine *uc, uint32_t addr, uint32_t size)
{
    uc_ctl_remove_cache(uc, addr, addr + size);
}

/* ---- quirk 17: user code replaced from outside the engine ---- */

void engine_retranslate_page(uc_engine *uc, uint32_t addr)
{
    addr &= ~(uint32_t)(PAGE_SIZE - 1);
    uc_ctl_remove_cache(uc, addr, addr + PAGE_SIZE);
}

/* ---- quirks 15 and 16: the debugger's hooks ---- */

/* An address the MMU cannot map at ring 0 either (nothing there) drops
 * nothing; the fault it raises inside the engine goes with the restored
 * state, and the engine clears its pending exception on every start. */
void engine_retranslate_ranges(uc_engine *uc, uc_context *ctx, const struct engine_range *r,
                               size_t n)
{
    if (n == 0)
        return;
    uc_context_save(uc, ctx);
    if (engine_reg_read(uc, UC_X86_REG_CS) & X86_SEL_RPL)
        cpl0_by_real_mode_ss(uc);
    for (size_t i = 0; i < n; i++)
        if (r[i].len)
            uc_ctl_remove_cache(uc, (uint64_t)r[i].start, (uint64_t)r[i].start + r[i].len);
    uc_context_restore(uc, ctx);
}

int engine_hook_code_range(uc_engine *uc, uint32_t begin, uint32_t end, uc_cb_hookcode_t cb,
                           void *user, uc_hook *h)
{
    return uc_hook_add(uc, h, UC_HOOK_CODE, cb, user, (uint64_t)begin, (uint64_t)end) ==
                   UC_ERR_OK
               ? 0
               : -1;
}

int engine_hook_mem(uc_engine *uc, bool reads, bool writes, uint32_t begin, uint32_t end,
                    uc_cb_hookmem_t cb, void *user, uc_hook *h)
{
    int type = (reads ? UC_HOOK_MEM_READ : 0) | (writes ? UC_HOOK_MEM_WRITE : 0);
    return uc_hook_add(uc, h, type, cb, user, (uint64_t)begin, (uint64_t)end) == UC_ERR_OK
               ? 0
               : -1;
}

void engine_unhook(uc_engine *uc, uc_hook h)
{
    uc_hook_del(uc, h);
}

/* ---- quirk 9: the sysenter hook ---- */

#define SYSENTER_LEN 2 /* 0f 34: the engine adds it to EIP after the hook */

void engine_sysenter_resume(uc_engine *uc, uint32_t eip)
{
    engine_reg_write(uc, UC_X86_REG_EIP, eip - SYSENTER_LEN);
}

/* ---- quirk 10: the translator's aborts ---- */

/*
 * Any program can write the bytes the translator aborts on and jump to
 * them, so the engine runs with SIGABRT caught. The engine prints its own
 * line on stderr first; that cannot be helped. Each recovery keeps one of
 * the engine's 64 nested-run slots, so a run can afford only a few.
 */
static sigjmp_buf *volatile engine_abort_target;

static void on_engine_abort(int sig)
{
    (void)sig;
    siglongjmp(*engine_abort_target, 1);
}

bool engine_run(uc_engine *uc, uint32_t begin, uint32_t until, uc_err *err)
{
    return engine_run_count(uc, begin, until, 0, err);
}

bool engine_run_count(uc_engine *uc, uint32_t begin, uint32_t until, uint64_t count,
                      uc_err *err)
{
    sigjmp_buf env;
    struct sigaction sa, old;
    volatile bool returned = false;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_engine_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, &old);
    if (sigsetjmp(env, 1) == 0) {
        engine_abort_target = &env;
        *err = uc_emu_start(uc, begin, until, 0, (size_t)count);
        returned = true;
    }
    engine_abort_target = NULL;
    sigaction(SIGABRT, &old, NULL);
    return returned;
}
