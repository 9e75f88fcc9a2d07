/* The workarounds engine.h lists, each behind an engine_* function. */
#define _GNU_SOURCE /* fopencookie */
#include "engine/engine.h"
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
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

/* No count: on 2.0.1 the hook that counts would flush every translation
 * when the next run, without a count, drops it (a memset of the whole
 * 1 GiB code buffer). A hlt ends the code if nothing faults. */
static int run_until_fault(uc_engine *uc, uint32_t addr, struct probe_state *ps)
{
    int before = ps->faults;
    uc_emu_start(uc, addr, addr + 0x100, 0, 0);
    return ps->faults == before + 1 ? 0 : -1;
}

/* ---- quirk 14: where the saved context keeps the CPL ---- */

#define HF_CPL_BITS 3u
#define HF_CS32_SS32 0x30u   /* two more hidden flags a 32-bit CPU has set */
#define PROBE_KDS 0x08       /* GDT entry 1: ring-0 data */
#define PROBE_UDS 0x13       /* GDT entry 2: ring-3 data, RPL 3 */

/* 2.1 and later: an API write of CR0 goes through the CPU's own update. */
static bool cr0_write_flushes(void)
{
    unsigned major, minor;
    uc_version(&major, &minor);
    return major > 2 || (major == 2 && minor >= 1);
}

/* quirk 30: 2.1 and later keep a hook's stop when the hook moved EIP. */
bool engine_stops_after_eip_write(void)
{
    return cr0_write_flushes();   /* the same versions: 2.1 and later */
}

static bool ss_loads(uc_engine *uc, uint32_t sel)
{
    return uc_reg_write(uc, UC_X86_REG_SS, &sel) == UC_ERR_OK;
}

/*
 * The word of the context whose low bits are the CPL: with them set to 3
 * and the context restored, SS takes the ring-3 selector and refuses the
 * ring-0 one; set back to 0, it takes the ring-0 one again.
 */
static bool find_cpl(uc_engine *uc, uc_context *ctx, size_t n, size_t *found)
{
    const uint64_t kds = 0x00cf92000000ffffull, uds = 0x00cff2000000ffffull;
    uc_context *base = NULL;
    bool ok = false;

    uc_mem_write(uc, PROBE_GDT + PROBE_KDS, &kds, sizeof kds);
    uc_mem_write(uc, PROBE_GDT + (PROBE_UDS & ~3), &uds, sizeof uds);
    if (!ss_loads(uc, PROBE_KDS) || uc_context_alloc(uc, &base) != UC_ERR_OK)
        return false;
    uc_context_save(uc, base);
    for (size_t off = 0; off + 4 <= n && !ok; off += 4) {
        uint32_t w;
        memcpy(&w, (uint8_t *)base + off, sizeof w);
        if ((w & HF_CPL_BITS) || (w & HF_CS32_SS32) != HF_CS32_SS32)
            continue;
        memcpy(ctx, base, n);
        w |= HF_CPL_BITS;
        memcpy((uint8_t *)ctx + off, &w, sizeof w);
        uc_context_restore(uc, ctx);
        if (!ss_loads(uc, PROBE_KDS) && ss_loads(uc, PROBE_UDS)) {
            uc_context_save(uc, ctx);
            w &= ~HF_CPL_BITS;
            memcpy((uint8_t *)ctx + off, &w, sizeof w);
            uc_context_restore(uc, ctx);
            ok = ss_loads(uc, PROBE_KDS);
        }
        uc_context_restore(uc, base);
        if (ok)
            *found = off;
    }
    uc_context_free(base);
    return ok;
}

/*
 * Where the saved context keeps a register the API writes zero-extended
 * (ESP, EIP, EFLAGS outside their lazy flags): the one offset holding v[0]
 * after v[0] is written and v[1] after v[1], which, set to v[2] and
 * restored, reads back v[2].
 */
static bool find_reg(uc_engine *uc, uc_context *ctx, size_t n, int reg, const uint64_t v[3],
                     size_t *found)
{
    uc_context *first = NULL;
    bool ok = false;
    if (uc_context_alloc(uc, &first) != UC_ERR_OK)
        return false;
    engine_reg_write(uc, reg, (uint32_t)v[0]);
    uc_context_save(uc, first);
    engine_reg_write(uc, reg, (uint32_t)v[1]);
    uc_context_save(uc, ctx);
    for (size_t off = 0; off + 8 <= n && !ok; off += 4) {
        uint64_t a, b;
        memcpy(&a, (uint8_t *)first + off, 8);
        memcpy(&b, (uint8_t *)ctx + off, 8);
        if (a != v[0] || b != v[1])
            continue;
        memcpy((uint8_t *)ctx + off, &v[2], 8);
        uc_context_restore(uc, ctx);
        ok = engine_reg_read(uc, reg) == (uint32_t)v[2];
        memcpy((uint8_t *)ctx + off, &v[1], 8);
        if (ok)
            *found = off;
    }
    uc_context_free(first);
    return ok;
}

static bool find_regs(uc_engine *uc, uc_context *ctx, size_t n, struct engine_layout *l)
{
    static const uint64_t word[3] = { 0x5a5a1234, 0x3c3c5678, 0x1e1e9abc };
    static const uint64_t flags[3] = { X86_EFLAGS_IF | X86_EFLAGS_FIXED,
                                       X86_EFLAGS_RF | X86_EFLAGS_FIXED,
                                       X86_EFLAGS_VM | X86_EFLAGS_FIXED };
    return find_reg(uc, ctx, n, UC_X86_REG_ESP, word, &l->esp_offset) &&
           find_reg(uc, ctx, n, UC_X86_REG_EIP, word, &l->eip_offset) &&
           find_reg(uc, ctx, n, UC_X86_REG_EFLAGS, flags, &l->eflags_offset);
}

static size_t narrow_end(const struct engine_layout *l)
{
    size_t end = l->cpl_offset + ENGINE_RING0_SPAN;
    size_t regs[] = { l->esp_offset, l->eip_offset, l->eflags_offset };
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        if (regs[i] + 8 > end)
            end = regs[i] + 8;
    return end;
}

/* A narrow save over full's copy wrote full's bytes up to end, none from
 * end + 8 on, and its restore sets ESP. */
static bool narrow_works(uc_engine *uc, uc_context *full, uint8_t *buf, size_t w, size_t end,
                         const struct engine_layout *l)
{
    const size_t hdr = 32;   /* past any header: the bytes compared */
    const uint64_t esp = 0x2d2d4321;
    memset(buf + hdr, 0xa5, w - hdr);
    uc_context_save(uc, (uc_context *)buf);
    if (memcmp(buf + hdr, (const uint8_t *)full + hdr, end - hdr))
        return false;
    for (size_t i = end + 8; i < w; i++)
        if (buf[i] != 0xa5)
            return false;
    memcpy(buf + l->esp_offset, &esp, 8);
    uc_context_restore(uc, (uc_context *)buf);
    bool ok = engine_reg_read(uc, UC_X86_REG_ESP) == (uint32_t)esp;
    uc_context_restore(uc, full);
    return ok;
}

/*
 * The context's header holds the size of the CPU state a save and a
 * restore copy (n less the header, less padding). Set smaller, they copy
 * less: find the word, and the size that copies up to the span's end.
 */
static bool find_narrow(uc_engine *uc, uc_context *full, size_t n, struct engine_layout *l)
{
    _Alignas(16) uint8_t buf[ENGINE_RING0_NARROW];
    size_t end = narrow_end(l), w = end + 16;
    if (w > sizeof buf || w > n)
        return false;
    uc_context_save(uc, full);
    for (size_t h = 0; h + 8 <= 32; h += 4) {
        uint64_t v, size;
        memcpy(&v, (const uint8_t *)full + h, 8);
        if (v >= n || v + 32 < n)
            continue;
        size = v - (n - end) + 8;
        memcpy(buf, full, w);
        memcpy(buf + h, &size, 8);
        if (narrow_works(uc, full, buf, w, end, l)) {
            l->narrow_bytes = w;
            l->narrow_size_at = h;
            l->narrow_size = size;
            return true;
        }
    }
    return false;
}

/*
 * An int n and an exception reach the interrupt hook alike. The CPU state
 * notes which it was in the word that is 0 after the #GP just taken (in
 * ps->ctx) and 1 after "int $0x21"; QEMU keeps it after the error code.
 */
static int probe_is_int(uc_engine *uc, struct probe_state *ps, size_t n, size_t ec,
                        size_t *is_int)
{
    enum { SOFT = 0x21 };   /* any vector the probe's engine has no other use for */
    static const uint8_t soft[] = { 0xcd, SOFT, 0xf4 };
    uint8_t *after_fault = malloc(n);
    int rc = -1;
    if (!after_fault)
        return -1;
    memcpy(after_fault, ps->ctx, n);
    uc_mem_write(uc, PROBE_BASE + 0x200, soft, sizeof soft);
    if (run_until_fault(uc, PROBE_BASE + 0x200, ps) == 0 && ps->last_vector == SOFT) {
        /* the word after the error code first, then any */
        for (size_t i = 0, off = ec + 4; i <= n / 4 && rc; off = 4 * i++) {
            if (off + 4 <= n && ctx_int((const uc_context *)after_fault, off) == 0 && ctx_int(ps->ctx, off) == 1) {
                *is_int = off;
                rc = 0;
            }
        }
    }
    free(after_fault);
    return rc;
}

/*
 * The probe runs on the engine the machine will use, before anything is
 * mapped there (a second engine would cost its own start-up), and leaves
 * it as it found it: the state from before, the page unmapped, the probe's
 * translations dropped and its hook deleted (the engine frees a deleted
 * hook when its next run returns, and never calls it meanwhile).
 */
int engine_probe_layout_on(uc_engine *uc, struct engine_layout *layout, char *err,
                           size_t errlen)
{
    const uint16_t sel1 = 0x1238, sel2 = 0x2ab0;
    struct probe_state ps = { 0 };
    uc_context *clean = NULL, *before = NULL;
    uc_hook hook = 0;
    int rc = -1;

    if (uc_context_alloc(uc, &before) != UC_ERR_OK ||
        uc_mem_map(uc, PROBE_BASE, 0x1000, UC_PROT_ALL) != UC_ERR_OK) {
        if (before)
            uc_context_free(before);
        snprintf(err, errlen, "engine probe: cannot set up on the engine");
        return -1;
    }
    uc_context_save(uc, before);
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
                ps.last_vector == X86_VEC_GP && ctx_int(ps.ctx, ec) == sel2 &&
                probe_is_int(uc, &ps, n, ec, &layout->is_int_offset) == 0) {
                layout->context_size = n;
                layout->old_exception_offset = oe;
                layout->error_code_offset = ec;
                layout->raise_by_context = cr0_write_flushes() &&
                    find_cpl(uc, ps.ctx, n, &layout->cpl_offset);
                layout->regs_by_context = layout->raise_by_context &&
                    find_regs(uc, ps.ctx, n, layout);
                if (!layout->regs_by_context || !find_narrow(uc, ps.ctx, n, layout))
                    layout->narrow_bytes = 0;
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
    if (hook)
        uc_hook_del(uc, hook);
    uc_context_restore(uc, before);
    uc_ctl_remove_cache(uc, PROBE_BASE, PROBE_BASE + 0x1000);
    uc_mem_unmap(uc, PROBE_BASE, 0x1000);
    uc_context_free(before);
    uc_context_free(ps.ctx);
    uc_context_free(clean);
    return rc;
}

int engine_probe_layout(struct engine_layout *layout, char *err, size_t errlen)
{
    uc_engine *uc = NULL;
    if (engine_open(&uc)) {
        snprintf(err, errlen, "cannot open a Unicorn x86 engine");
        return -1;
    }
    int rc = engine_probe_layout_on(uc, layout, err, errlen);
    uc_close(uc);
    return rc;
}

void engine_take_exception(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout,
                           struct engine_exception *out)
{
    int32_t code, is_int, none = -1;
    uc_context_save(uc, ctx);
    memcpy(&code, (uint8_t *)ctx + layout->error_code_offset, sizeof code);
    memcpy(&is_int, (uint8_t *)ctx + layout->is_int_offset, sizeof is_int);
    memcpy((uint8_t *)ctx + layout->old_exception_offset, &none, sizeof none);
    uc_context_restore(uc, ctx);
    out->error_code = (uint32_t)code;
    out->software = is_int == 1;
}

void engine_clear_in_flight(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout)
{
    struct engine_exception ignored;
    engine_take_exception(uc, ctx, layout, &ignored);
}

/* ---- quirks 3, 13 and 14: raising the privilege level from a hook ---- */

/* On 2.1, where the CR0 write below flushes the TLB (quirk 14), the CPL
 * is set to 0 in the saved context instead. */
static uc_err cpl0_in_context(uc_engine *uc, uc_context *ctx, const struct engine_layout *l)
{
    uint32_t w;
    uc_err e = uc_context_save(uc, ctx);
    memcpy(&w, (uint8_t *)ctx + l->cpl_offset, sizeof w);
    w &= ~HF_CPL_BITS;
    memcpy((uint8_t *)ctx + l->cpl_offset, &w, sizeof w);
    return e;
}

/* A real-mode load of SS (PE briefly clear; the API's CR0 write has no
 * side effects on 2.0.1) makes the CPL 0. */
static uc_err cpl0_by_real_mode(uc_engine *uc)
{
    uint32_t cr0 = engine_reg_read(uc, UC_X86_REG_CR0), zero = 0;
    engine_reg_write(uc, UC_X86_REG_CR0, cr0 & ~X86_CR0_PE);
    uc_err e = uc_reg_write(uc, UC_X86_REG_SS, &zero);
    engine_reg_write(uc, UC_X86_REG_CR0, cr0);
    return e;
}

/* With the CPL 0 and PE back on, CS and SS load from the GDT with full
 * checks. */
static bool load_cs_ss(uc_engine *uc, uint16_t cs, uint16_t ss)
{
    uint32_t cs32 = cs, ss32 = ss;
    uc_err e1 = uc_reg_write(uc, UC_X86_REG_CS, &cs32);
    uc_err e2 = uc_reg_write(uc, UC_X86_REG_SS, &ss32);
    return e1 == UC_ERR_OK && e2 == UC_ERR_OK;
}

/* The two descriptors as memory holds them now; false if not there. */
static bool ring0_descs(const struct guest_memory *mem, const struct engine_ring0_state *st,
                        uint8_t out[16])
{
    const uint8_t *c = guest_ptr(mem, st->cs_desc, 8);
    const uint8_t *s = guest_ptr(mem, st->ss_desc, 8);
    if (!c || !s)
        return false;
    memcpy(out, c, 8);
    memcpy(out + 8, s, 8);
    return true;
}

/* EFLAGS but its lazy flags, from ctx just saved where the layout knows it. */
static uint32_t ctx_eflags(uc_engine *uc, const uc_context *ctx, const struct engine_layout *l)
{
    return l->regs_by_context ? (uint32_t)ctx_int(ctx, l->eflags_offset)
                              : engine_reg_read(uc, UC_X86_REG_EFLAGS);
}

/* Does st hold the loads from span (the CPL already 0) with these
 * selectors and its descriptors as memory holds them now? */
static bool state_fits(const struct engine_ring0_memo *memo,
                       const struct engine_ring0_state *st, const uint8_t *span,
                       uint16_t cs, uint16_t ss)
{
    uint8_t desc[16];
    return st->known && st->cs == cs && st->ss == ss &&
           !memcmp(span, st->before, ENGINE_RING0_SPAN) && ring0_descs(memo->mem, st, desc) &&
           !memcmp(desc, st->desc, sizeof desc);
}

/* The state whose loads from ctx (the CPL already 0) the memo holds, or
 * NULL. The one found last time is asked first. */
static const struct engine_ring0_state *memo_find(uc_engine *uc, const uc_context *ctx,
                                                  const struct engine_layout *l,
                                                  struct engine_ring0_memo *memo,
                                                  uint16_t cs, uint16_t ss)
{
    const uint8_t *span = (const uint8_t *)ctx + l->cpl_offset;
    if (!memo)
        return NULL;
    for (unsigned k = 0; k < ENGINE_RING0_STATES; k++) {
        unsigned i = (memo->last + k) % ENGINE_RING0_STATES;
        const struct engine_ring0_state *st = &memo->states[i];
        if (state_fits(memo, st, span, cs, ss)) {
            memo->last = i;
            return (ctx_eflags(uc, ctx, l) & X86_EFLAGS_VM) ? NULL : st;
        }
    }
    return NULL;
}

/* Did the loads from before change only bytes inside the span? Asked once
 * (the first memo), on a context of its own. */
static bool only_span_changed(uc_engine *uc, const uc_context *before,
                              const struct engine_layout *l)
{
    uc_context *after = NULL;
    size_t end = l->cpl_offset + ENGINE_RING0_SPAN;
    bool ok = end <= l->context_size && uc_context_alloc(uc, &after) == UC_ERR_OK;
    if (ok)   /* the bytes past what a save writes alike (2.1 allocates more) */
        memcpy(after, before, l->context_size);
    ok = ok && uc_context_save(uc, after) == UC_ERR_OK;
    const uint8_t *a = (const uint8_t *)before, *b = (const uint8_t *)after;
    ok = ok && !memcmp(a, b, l->cpl_offset) && !memcmp(a + end, b + end, l->context_size - end);
    if (after)
        uc_context_free(after);
    return ok;
}

/* The loads just made from ctx (the CPL 0), remembered if they are from
 * the GDT, outside virtual-8086 mode, and change only the span. ctx is
 * scratch after. */
static void memo_learn(uc_engine *uc, uc_context *ctx, const struct engine_layout *l,
                       struct engine_ring0_memo *memo, uint16_t cs, uint16_t ss)
{
    struct engine_ring0_state *st = &memo->states[memo->next];
    uc_x86_mmr gdtr = { 0 };
    if (!memo->checked) {
        memo->refused = !only_span_changed(uc, ctx, l);
        memo->checked = true;
    }
    if (memo->refused || ((cs | ss) & X86_SEL_TI) ||
        (engine_reg_read(uc, UC_X86_REG_EFLAGS) & X86_EFLAGS_VM) ||
        uc_reg_read(uc, UC_X86_REG_GDTR, &gdtr) != UC_ERR_OK)
        return;
    st->known = false;
    st->cs = cs;
    st->ss = ss;
    st->cs_desc = (uint32_t)gdtr.base + (cs & ~7u);
    st->ss_desc = (uint32_t)gdtr.base + (ss & ~7u);
    memcpy(st->before, (const uint8_t *)ctx + l->cpl_offset, ENGINE_RING0_SPAN);
    if (uc_context_save(uc, ctx) != UC_ERR_OK || !ring0_descs(memo->mem, st, st->desc))
        return;
    memcpy(st->after, (const uint8_t *)ctx + l->cpl_offset, ENGINE_RING0_SPAN);
    st->known = true;
    memo->next = (memo->next + 1) % ENGINE_RING0_STATES;
}

/* ESP, EIP and EFLAGS as the API would write them (zero-extended). */
static void regs_in_context(uc_context *ctx, const struct engine_layout *l,
                            const struct engine_ring0_entry *e)
{
    uint64_t esp = e->esp, eip = e->eip, flags;
    memcpy(&flags, (uint8_t *)ctx + l->eflags_offset, 8);
    flags &= ~(uint64_t)e->eflags_clear;
    memcpy((uint8_t *)ctx + l->esp_offset, &esp, 8);
    memcpy((uint8_t *)ctx + l->eip_offset, &eip, 8);
    memcpy((uint8_t *)ctx + l->eflags_offset, &flags, 8);
}

/* The memo's narrow context (its header from full's), or NULL. */
static uc_context *narrow_of(struct engine_ring0_memo *memo, const struct engine_layout *l,
                             const uc_context *full)
{
    if (!memo || !l->narrow_bytes || l->narrow_bytes > sizeof memo->narrow)
        return NULL;
    if (!memo->narrow_ready) {
        memcpy(memo->narrow, full, l->narrow_bytes);
        memcpy(memo->narrow + l->narrow_size_at, &l->narrow_size, sizeof l->narrow_size);
        memo->narrow_ready = true;
    }
    return (uc_context *)memo->narrow;
}

/* From a remembered state, in ctx (the CPL already 0 there): e's
 * registers go in with the span. */
static bool remembered(uc_engine *uc, uc_context *ctx, const struct engine_layout *l,
                       const struct engine_ring0_state *st, const struct engine_ring0_entry *e,
                       bool *regs_done)
{
    memcpy((uint8_t *)ctx + l->cpl_offset, st->after, ENGINE_RING0_SPAN);
    if (e && l->regs_by_context) {
        regs_in_context(ctx, l, e);
        *regs_done = true;
    }
    return uc_context_restore(uc, ctx) == UC_ERR_OK;
}

/* e: with a remembered state, its registers go in with the span (and the
 * caller writes them otherwise). A remembered state is looked for in the
 * narrow context; the loads and the memo's learning take the whole one. */
static bool ring0_by_context(uc_engine *uc, uc_context *ctx, const struct engine_layout *l,
                             struct engine_ring0_memo *memo, uint16_t cs, uint16_t ss,
                             const struct engine_ring0_entry *e, bool *regs_done)
{
    uc_context *narrow = narrow_of(memo, l, ctx);
    const struct engine_ring0_state *st;
    if (narrow && cpl0_in_context(uc, narrow, l) == UC_ERR_OK &&
        (st = memo_find(uc, narrow, l, memo, cs, ss)))
        return remembered(uc, narrow, l, st, e, regs_done);
    if (cpl0_in_context(uc, ctx, l) != UC_ERR_OK)
        return false;
    st = memo_find(uc, ctx, l, memo, cs, ss);
    if (st)
        return remembered(uc, ctx, l, st, e, regs_done);
    if (uc_context_restore(uc, ctx) != UC_ERR_OK || !load_cs_ss(uc, cs, ss))
        return false;
    if (memo && memo->mem)
        memo_learn(uc, ctx, l, memo, cs, ss);
    return true;
}

bool engine_enter_ring0(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout,
                        struct engine_ring0_memo *memo, uint16_t cs, uint16_t ss,
                        uint32_t esp)
{
    bool done = false;
    bool ok = layout->raise_by_context
                  ? ring0_by_context(uc, ctx, layout, memo, cs, ss, NULL, &done)
                  : cpl0_by_real_mode(uc) == UC_ERR_OK && load_cs_ss(uc, cs, ss);
    engine_reg_write(uc, UC_X86_REG_ESP, esp);
    return ok;
}

/*
 * Without the API's EIP write the engine does not leave its loop here;
 * a sysenter ends its block, and an interrupt hook runs between blocks,
 * so the next block is looked up at the new EIP and state all the same.
 */
bool engine_enter_ring0_at(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout,
                           struct engine_ring0_memo *memo, const struct engine_ring0_entry *e)
{
    bool done = false;
    if (layout->raise_by_context &&
        !ring0_by_context(uc, ctx, layout, memo, e->cs, e->ss, e, &done))
        return false;
    if (done)
        return true;
    if (!layout->raise_by_context &&
        (cpl0_by_real_mode(uc) != UC_ERR_OK || !load_cs_ss(uc, e->cs, e->ss)))
        return false;
    engine_reg_write(uc, UC_X86_REG_ESP, e->esp);
    uint32_t eflags = engine_reg_read(uc, UC_X86_REG_EFLAGS);
    engine_reg_write(uc, UC_X86_REG_EFLAGS, eflags & ~e->eflags_clear);
    engine_reg_write(uc, UC_X86_REG_EIP, e->eip);
    return true;
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
    memory_huge_kernel_ram(mem);
    return engine_back_wrap(uc, mem);
}

/* ---- quirk 5: an access past 0xffffffff ---- */

/*
 * Outside 64-bit mode a linear address has 32 bits: segment base plus
 * offset, the carry out of bit 31 lost, so base + EIP past 4 GiB wraps
 * (Intel 80386 Programmer's Reference, 5.1.1: a base places the segment
 * in the 4-gigabyte linear address space; 5.2: the page walk splits a
 * 32-bit linear address 10/10/12. Intel SDM vol. 3A, 3.4.1: only in
 * 64-bit mode are base, offset and linear address 64 bits wide). The
 * engine's addresses are 64 bits wide, so an access
 * that runs past 0xffffffff reaches 0x100000000 and up instead: a data
 * access or a fetch that crosses 0xffffffff goes a few bytes on; a fetch
 * in a code segment whose base and EIP add up past 4 GiB (a TLS
 * descriptor can have any base) starts up to 4 GiB on, at base + EIP
 * (the engine's block and code hooks see that address too). Unbacked (4),
 * 2.0.1 ends the run there from inside the instruction, before it has
 * brought EIP and the lazily kept arithmetic flags up to date.
 *
 * So every backed region is backed a second time 4 GiB up, over the same
 * host pages, and one page past that for an instruction that starts just
 * below 8 GiB. The backing check then passes, and the page walk, whose
 * indexes keep only bits 31-12 of the address, does what a CPU does with
 * the wrapped address: finds page 0 (never mapped: #PF, raised by the
 * engine itself at the instruction, CR2 the wrapped address) or runs the
 * code there. The host memory up there is never read or written through
 * those physical addresses: the walk only ever yields ones below 4 GiB.
 */
int engine_back_wrap(uc_engine *uc, const struct guest_memory *mem)
{
    for (int i = 0; i < mem->count; i++) {
        const struct mem_region *r = &mem->regions[i];
        if (uc_mem_map_ptr(uc, ENGINE_WRAP + r->base, r->size, UC_PROT_ALL, r->host) !=
            UC_ERR_OK)
            return -1;
    }
    return uc_mem_map(uc, 2 * ENGINE_WRAP, PAGE_SIZE, UC_PROT_ALL) == UC_ERR_OK ? 0 : -1;
}

/* ---- quirk 7: #UD ---- */

/* Not handled: the run stops with UC_ERR_INSN_INVALID. (2.0.1 stops
 * whatever this returns; 2.1, told it was handled, raises #UD itself, at
 * the wrong EIP after "int $6" and without icebp's #DB.) */
static bool on_invalid_insn(uc_engine *uc, void *user)
{
    struct engine_reports *r = user;
    (void)uc;
    r->ud = true;
    return false;
}

int engine_watch(uc_engine *uc, struct engine_reports *r)
{
    uc_hook h;
    if (uc_hook_add(uc, &h, UC_HOOK_INSN_INVALID, on_invalid_insn, r, 1, 0) != UC_ERR_OK)
        return -1;
    return 0;
}

/* ---- quirk 8: instructions that cannot be hooked as instructions ---- */

int engine_hook_code_at(uc_engine *uc, uint64_t addr, uc_cb_hookcode_t cb, void *user,
                        uc_hook *h)
{
    return uc_hook_add(uc, h, UC_HOOK_CODE, cb, user, addr, addr) == UC_ERR_OK ? 0 : -1;
}

void engine_unhook(uc_engine *uc, uc_hook h)
{
    uc_hook_del(uc, h);
}

void engine_retranslate(uc_engine *uc, uint64_t addr, uint32_t size)
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
        cpl0_by_real_mode(uc);
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

/* ---- quirk 21: iret at CPL 3 and EFLAGS.VM ---- */

/*
 * The engine's iret enters virtual-8086 mode whenever the EFLAGS image it
 * pops has VM set; a CPU does that only at CPL 0 and otherwise ignores
 * the bit. Before a ring-3 iret runs, the image loses VM for as long as
 * the engine needs it; the word goes back as soon as the iret is done or
 * has faulted, so the program never sees the change.
 */
bool engine_iret_hide_vm(struct guest_memory *mem, uint32_t eflags_addr,
                         struct engine_iret_patch *p)
{
    uint32_t v;
    uint8_t *w = eflags_addr <= UINT32_MAX - 3 ? guest_ptr(mem, eflags_addr, 4) : NULL;
    if (!w)
        return false;
    memcpy(&v, w, 4);
    if (!(v & X86_EFLAGS_VM))
        return false;
    p->active = true;
    p->addr = eflags_addr;
    p->word = v;
    v &= ~X86_EFLAGS_VM;
    memcpy(w, &v, 4);
    return true;
}

void engine_iret_restore(struct guest_memory *mem, struct engine_iret_patch *p)
{
    if (!p->active)
        return;
    memcpy(guest_ptr(mem, p->addr, 4), &p->word, 4);
    p->active = false;
}

/* ---- quirk 23: memory rewritten behind the engine's back ---- */

static void engine_flush_tlb(uc_engine *uc);

/*
 * The engine cannot see the host rewrite guest memory (a snapshot being
 * restored): its translations of those pages and its TLB's answers from
 * the old page tables stay. uc_ctl_remove_cache looks a page up through
 * the current page tables and silently skips one they do not map; with
 * paging off for the call (an API write of CR0 has no side effects on
 * 2.0.1, quirk 14) every page is found at itself, where it lives (quirk
 * 12). The TLB that filled meanwhile is flushed after.
 */
void engine_forget_pages(uc_engine *uc, const uint32_t *pages, size_t n)
{
    uint32_t cr0 = engine_reg_read(uc, UC_X86_REG_CR0);
    engine_reg_write(uc, UC_X86_REG_CR0, cr0 & ~X86_CR0_PG);
    for (size_t i = 0; i < n; i++)
        uc_ctl_remove_cache(uc, pages[i], (uint64_t)pages[i] + PAGE_SIZE);
    engine_reg_write(uc, UC_X86_REG_CR0, cr0);
    engine_flush_tlb(uc);
}

/*
 * 2.0.1 has no call that flushes the TLB (its uc_ctl_flush_tlb is
 * UC_CTL_TB_FLUSH, the translations); mapping memory flushes it as a side
 * effect, so a page is mapped past 4 GiB, where no guest access goes
 * while nothing runs, and unmapped again. 2.1 has UC_CTL_TLB_FLUSH.
 */
static void engine_flush_tlb(uc_engine *uc)
{
#if UC_VERSION_MAJOR > 2 || (UC_VERSION_MAJOR == 2 && UC_VERSION_MINOR >= 1)
    uc_ctl(uc, UC_CTL_WRITE(UC_CTL_TLB_FLUSH, 0));
#else
    /* the page after the last one engine_back_wrap keeps mapped: a map
     * there would fail, and flush nothing */
    const uint64_t scratch = 2 * ENGINE_WRAP + PAGE_SIZE;
    if (uc_mem_map(uc, scratch, PAGE_SIZE, UC_PROT_READ) == UC_ERR_OK)
        uc_mem_unmap(uc, scratch, PAGE_SIZE);
#endif
}

/* ---- quirk 9: the sysenter hook ---- */

/* len: the sysenter's length, prefixes included (0f 34 is 2; 66 0f 34
 * is 3), which the engine adds to EIP after the hook. */
void engine_sysenter_resume(uc_engine *uc, uint32_t eip, uint32_t len)
{
    engine_reg_write(uc, UC_X86_REG_EIP, eip - len);
}

/* ---- quirk 10: the translator's aborts ---- */

/*
 * Any program can write the bytes the translator aborts on and jump to
 * them, so the engine runs with SIGABRT caught. Each recovery keeps one of
 * the engine's 64 nested-run slots, so a run can afford only a few.
 *
 * Before abort() the translator prints "FILE:LINE: tcg fatal error" with
 * fprintf(stderr). The emulator shares that stream (its reports, the
 * guest's stderr, --strace), and the sanitizers write to descriptor 2
 * directly, so neither can be pointed elsewhere while the engine runs.
 * Instead stderr becomes an unbuffered stream over descriptor 2 that drops
 * exactly that one line, and only while the engine runs; everything else
 * passes through unchanged, in order.
 */
static sigjmp_buf *volatile engine_abort_target;
static volatile bool engine_running;

static void on_engine_abort(int sig)
{
    (void)sig;
    siglongjmp(*engine_abort_target, 1);
}

static bool is_translator_complaint(const char *buf, size_t len)
{
    static const char tail[] = ": tcg fatal error\n";
    size_t n = sizeof tail - 1;
    return len > n && !memcmp(buf + len - n, tail, n) && !memchr(buf, '\n', len - n);
}

static ssize_t stderr_write(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    if (engine_running && is_translator_complaint(buf, len))
        return (ssize_t)len;
    for (size_t done = 0; done < len;) {
        ssize_t n = write(STDERR_FILENO, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)n;
    }
    return (ssize_t)len;
}

static void filter_stderr(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    cookie_io_functions_t io = { .write = stderr_write };
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    fflush(stderr);
    stderr = f;
}

/*
 * until is an exit address compiled into the translated code (quirk 18):
 * ENGINE_NO_EXIT for a run that only a hook ends.
 */
bool engine_run(uc_engine *uc, uint32_t begin, uint64_t until, uc_err *err)
{
    sigjmp_buf env;
    struct sigaction sa, old;
    volatile bool returned = false;

    filter_stderr();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_engine_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, &old);
    if (sigsetjmp(env, 1) == 0) {
        engine_abort_target = &env;
        engine_running = true;
        *err = uc_emu_start(uc, begin, until, 0, 0);
        returned = true;
    }
    engine_running = false;
    engine_abort_target = NULL;
    sigaction(SIGABRT, &old, NULL);
    return returned;
}

/* ---- quirk 28: translated code is never reclaimed ---- */

/* One of the engines' translation buffers: a private anonymous mapping,
 * readable, writable and executable, of at least 16 MiB (1 GiB by
 * default); nothing else in emu maps memory so. */
static bool is_code_buffer(const char *line, uintptr_t *lo, uintptr_t *hi)
{
    char perms[8];
    unsigned long inode;
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %lu", lo, hi, perms, &inode) != 4)
        return false;
    return !strcmp(perms, "rwxp") && inode == 0 && *hi - *lo >= ((uintptr_t)16 << 20);
}

/* The bytes of mincore's vector with bit 0 set, eight at a time: each
 * byte of sum counts its lane, emptied before it can pass 255. */
static size_t resident_pages(const unsigned char *v, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, lanes = 0x00ff00ff00ff00ffull;
    size_t count = 0, i = 0;
    while (i + 8 <= n) {
        uint64_t sum = 0, w;
        for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
            memcpy(&w, v + i, 8);
            sum += w & ones;
        }
        sum = (sum & lanes) + ((sum >> 8) & lanes);   /* four 16-bit lanes */
        count += (size_t)((sum * 0x0001000100010001ull) >> 48);
    }
    for (; i < n; i++)
        count += v[i] & 1;
    return count;
}

static size_t resident_bytes(uintptr_t lo, uintptr_t hi)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (hi - lo) / page, bytes = 0;
    unsigned char *v = malloc(n);
    if (!v)
        return 0;
    if (mincore((void *)lo, hi - lo, v) == 0)
        bytes = resident_pages(v, n) * page;
    free(v);
    return bytes;
}

size_t engine_code_resident(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    size_t bytes = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        if (is_code_buffer(line, &lo, &hi))
            bytes += resident_bytes(lo, hi);
    }
    fclose(f);
    return bytes;
}

/* The CPU state moves as a whole (the saved context is the engine's CPU
 * state up to its internals, as 1 and 2 rely on), through ctx. */
int engine_renew(uc_engine **uc, uc_context *ctx, const struct guest_memory *mem)
{
    uc_engine *fresh;
    if (uc_context_save(*uc, ctx) != UC_ERR_OK || engine_open(&fresh))
        return -1;
    if (memory_share(fresh, mem) || engine_back_wrap(fresh, mem) ||
        uc_context_restore(fresh, ctx) != UC_ERR_OK) {
        uc_close(fresh);
        return -1;
    }
    uc_close(*uc);
    *uc = fresh;
    return 0;
}
