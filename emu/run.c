/* The execution loop: hooks, the block hook, machine_run. */
#include "run.h"
#include "boot.h"
#include "cpu_insns.h"
#include "hypercall.h"
#include "irq.h"
#include "smp.h"
#include "sysenter.h"
#include "trap.h"

/* Code hooks go in only for the addresses that need them, so most code
 * runs without a per-instruction callback. */
static bool is_hooked(const struct machine *m, uint32_t addr)
{
    for (int h = 0; h < m->nspecial; h++)
        if (m->special_addrs[h] == addr)
            return true;
    return false;
}

static bool specials_hooked(struct machine *m, const struct block *b)
{
    for (uint32_t i = 0; i < b->ninsns; i++)
        if ((b->insns[i].flags & SPECIALS) && !is_hooked(m, b->insns[i].addr))
            return false;
    return true;
}

static int hook_specials(struct machine *m, const struct block *b)
{
    for (uint32_t i = 0; i < b->ninsns; i++) {
        const struct insn *in = &b->insns[i];
        if (!(in->flags & SPECIALS) || is_hooked(m, in->addr))
            continue;
        if (m->nspecial == MAX_SPECIAL_HOOKS ||
            engine_hook_code_at(m->uc, in->addr, on_special_insn, m))
            return -1;
        m->special_addrs[m->nspecial++] = in->addr;
    }
    return 0;
}

static void over_budget(struct machine *m)
{
    machine_stop(m, STOP_BUDGET, "instruction budget of %llu exhausted "
                 "(raise it with --max-insns)", (unsigned long long)m->opts->max_insns);
}

/* sti delays interrupts until after the next instruction (the engine ends
 * a block at sti, so that one starts the next block). */
static bool ends_with_sti(struct machine *m, const struct block *b)
{
    const struct insn *last = &b->insns[b->ninsns - 1];
    const uint8_t *op = guest_ptr(&m->mem, last->addr, 1);
    return op && *op == 0xfb;
}

void on_block(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    uint32_t addr = (uint32_t)address;

    if (m->stop != STOP_NONE || m->paused) {
        engine_stop(uc);
        return;
    }
    const uint8_t *code = size ? guest_ptr(&m->mem, addr, size) : NULL;
    const struct block *b = code ? block_lookup(&m->blocks, addr, code, size) : NULL;
    if (!b) {
        if (machine_hold_block(m, NULL, addr))
            return;
        /* Code Capstone cannot decode still runs in the engine (which
         * ignores a stray lock prefix, for one): count it as one
         * instruction, or a loop of it ("lock jmp .") would never meet
         * the budget. */
        m->cur_block = NULL;
        if (++m->insns > m->opts->max_insns)
            over_budget(m);
        return;
    }
    /*
     * The block hook runs before the block's exit check, so stopping here
     * keeps the block from running: put the code hooks in, drop the
     * translation and start the block again (engine.h, quirk 8).
     */
    if (b->specials && !specials_hooked(m, b)) {
        if (hook_specials(m, b)) {
            machine_stop(m, STOP_MACHINE, "too many special instructions to hook");
            return;
        }
        engine_retranslate(uc, addr, size);
        reg_write(m, UC_X86_REG_EIP, addr);
        return;
    }
    /* A due interrupt is taken before the block runs; the handler's first
     * block comes back here. The PIC is wired to CPU 0. */
    if (m->smp && smp_ipi_check(m, addr))
        return;
    if (m->cpu_id == 0 && irq_check(m, addr))
        return;
    /* A debugger stops before the block is charged: it runs, and is
     * charged, when the machine goes on. */
    if (machine_hold_block(m, b, addr))
        return;
    if (m->insns + b->ninsns > m->opts->max_insns) {
        over_budget(m);
        return;
    }
    if (addr < KERNEL_BASE)
        as_note_code(m->as, addr, size);
    if (m->smp)
        smp_note_code(m, addr, size);
    m->cur_block = b;
    m->cur_limit = b->ninsns;
    m->block_start_cycles = m->cycles;
    charge_block(m, b);
    m->insns += b->ninsns;
    /* A rep op ends its block; each further run of it is a block that
     * starts at it. Anything else in between ends that rep. (The rest of
     * a block a debugger stopped inside is a block too, which changes
     * nothing here: it starts at the stop, before the rep ran again.) */
    if (addr != m->rep_addr)
        m->rep_live = false;
    m->sti_shadow = ends_with_sti(m, b);
    machine_notify_block(m, b);
}

static int add_hooks(struct machine *m)
{
    uc_hook h;
    uc_err e = UC_ERR_OK;
    if (!m->opts->no_cycle_model)
        e = uc_hook_add(m->uc, &h, UC_HOOK_BLOCK, on_block, m, 1, 0);
    if (!e && engine_watch(m->uc, &m->reports))
        return -1;
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INTR, on_interrupt, m, 1, 0);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN, on_sysenter, m, 1, 0, UC_X86_INS_SYSENTER);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN, on_cpuid, m, 1, 0, UC_X86_INS_CPUID);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN, on_hypercall, m, 1, 0, UC_X86_INS_OUT);
    return e == UC_ERR_OK ? 0 : -1;
}

int machine_init_bare(struct machine *m, const struct run_options *opts)
{
    int rc = machine_create(m, opts);
    if (rc)
        return rc;
    if (add_hooks(m))
        return machine_fail(m, 125, "cannot install engine hooks");
    irq_init(m);
    return smp_init(m, add_hooks);
}

int machine_init(struct machine *m, const struct run_options *opts)
{
    int rc = machine_init_bare(m, opts);
    return rc ? rc : machine_boot(m);
}

/*
 * After a translator abort (engine.h, quirk 10) the culprit is the first
 * instruction of the block at EIP that Capstone cannot decode (it rejects
 * all of those encodings). The run goes on up to it, where the CPU would
 * raise #UD. The kernel kills a program on its first #UD, so a run that
 * needs more than a few recoveries is a machine failure.
 */
#define MAX_ENGINE_ABORTS 8

static void engine_aborted(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP);
    if (++m->engine_aborts > MAX_ENGINE_ABORTS) {
        machine_stop(m, STOP_MACHINE, "the engine failed to translate code at eip %08x", eip);
        return;
    }
    m->abort_ud_at = first_undecodable(&m->blocks, &m->mem, eip);
    m->abort_ud_pending = true;
}

/* Stopped at abort_ud_at: raise #UD there, unless the code has changed since. */
static void raise_ud_after_abort(struct machine *m)
{
    m->abort_ud_pending = false;
    if (decodable(&m->blocks, &m->mem, m->abort_ud_at))
        return;
    m->delivery_depth = 0;
    raise_fault(m, X86_VEC_UD, false, 0, m->abort_ud_at);
}

static bool halted_at(struct machine *m, uint32_t eip)
{
    const uint8_t *op = guest_ptr(&m->mem, eip - 1, 1);
    return op && *op == 0xf4;
}

/* One run of the current CPU's engine and what it reported. True if it
 * stopped at a hlt (EIP after it) that nothing here handled. */
static bool run_slice(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP);
    uc_err e = UC_ERR_OK;

    if (!engine_run_count(m->uc, eip, m->abort_ud_pending ? m->abort_ud_at : KERNEL_BASE,
                          m->smp ? m->smp->turn_left : 0, &e)) {
        engine_aborted(m);
        return false;
    }
    if (m->stop != STOP_NONE)
        return false;
    if (m->reports.ud) {
        raise_reported_ud(m);
        return false;
    }
    if (m->reports.wrap) {
        raise_wrapped_pf(m);
        return false;
    }
    if (m->abort_ud_pending && reg_read(m, UC_X86_REG_EIP) == m->abort_ud_at) {
        raise_ud_after_abort(m);
        return false;
    }
    if (m->paused)
        return false;
    eip = reg_read(m, UC_X86_REG_EIP);
    if (e != UC_ERR_OK) {
        machine_stop(m, STOP_MACHINE, "engine error at eip %08x: %s", eip, uc_strerror(e));
        return false;
    }
    if (halted_at(m, eip))
        return true;
    /* the quantum's instructions are done (smp.h): the rest of the block
     * runs next time, charged then */
    if (m->smp) {
        uint32_t index;
        if (block_find_insn(m->cur_block, eip, &index))
            truncate_current_block(m, index);
        /* stopped from the count's hook: a fault may be left in flight
         * (quirk 1), and the next one would never be raised (quirk 19) */
        engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
        return false;
    }
    machine_stop(m, STOP_MACHINE, "the machine halted at eip %08x", eip);
    return false;
}

/*
 * KERNEL_BASE is the "until" address: kernel memory there holds no code
 * and user mode cannot fetch from a supervisor page, so reaching it never
 * ends a run early.
 */
int machine_run(struct machine *m)
{
    if (m->smp)
        smp_run(m, run_slice);
    while (m->stop == STOP_NONE) {
        if (m->paused) {
            /* A block hook that stops the engine leaves EIP behind when
             * the block was entered by a direct jump (docs/unicorn.md,
             * quirk 16); and EIP cannot be set from a hook that stops. */
            reg_write(m, UC_X86_REG_EIP, m->pause_eip);
            /* Stopped from a hook, the engine may still mark a fault in
             * flight that it never reported (quirk 1): the next one would
             * come out as #DF, or stop the CPU as a triple fault. */
            engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
            m->paused = false;
            return MACHINE_PAUSED;
        }
        /* hlt ends the engine's run: wait for the next interrupt, in
         * modeled time (irq.h) */
        if (run_slice(m) && !irq_halt(m))
            machine_stop(m, STOP_MACHINE, "the machine halted at eip %08x",
                         reg_read(m, UC_X86_REG_EIP));
    }
    switch (m->stop) {
    case STOP_EXIT: return m->exit_status;
    case STOP_KILLED: return m->exit_status;
    case STOP_EXEC_ERROR: return 126;
    case STOP_BUDGET: return 124;
    default: return 125;
    }
}
