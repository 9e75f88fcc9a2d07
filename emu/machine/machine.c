/* The machine core: creating and destroying a machine, ending a run, and
 * telling observers what happens. Charging the counters is charge.c. */
#include "machine/machine.h"
#include "vfs/vfs.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int machine_fail(struct machine *m, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->message, sizeof m->message, fmt, ap);
    va_end(ap);
    return status;
}

void machine_stop(struct machine *m, enum stop_reason why, const char *fmt, ...)
{
    if (m->stop != STOP_NONE)
        return;
    m->stop = why;
    m->rare = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->message, sizeof m->message, fmt, ap);
    va_end(ap);
    engine_stop(m->uc);
}

void machine_pause(struct machine *m, uint32_t eip)
{
    m->paused = true;
    m->rare = true;
    m->pause_eip = eip;
    engine_stop(m->uc);
}

int machine_create(struct machine *m, const struct run_options *opts)
{
    char err[256];
    memset(m, 0, sizeof *m);
    m->opts = opts;
    m->code.look_at = ENGINE_CODE_LOOK_MM;
    if (cpu_config_parse(opts->cpu_spec, opts->no_sep, &m->cpu, err, sizeof err))
        return machine_fail(m, 2, "%s", err);
    /* several CPUs: an SMP kernel (main.c refuses an explicit up) */
    cpu_config_kernel(&m->cpu, opts->smp > 1 ? KCONFIG_SMP : opts->kernel_config);
    for (int i = 0; i < opts->ncost_overrides; i++)
        if (cost_override_applies(&opts->cost_overrides[i], m->cpu.model))
            cpu_cost_override(&m->cpu, &opts->cost_overrides[i]);
    if (engine_open(&m->uc))
        return machine_fail(m, 125, "cannot open a Unicorn x86 engine");
    if (engine_probe_layout_on(m->uc, &m->layout, err, sizeof err))
        return machine_fail(m, 125, "%s", err);
    m->ring0.mem = &m->mem;
    /* The kernel's code gets mappings of its own (memory.h): a page
     * fault's host time is mostly the kernel's stores. */
    if (opts->kernel_history == KHIST_SEED)
        m->kernel = kernel_builtin(m->cpu.model->march, m->cpu.kconfig, opts->smp);
    else if (!(m->kernel = kernel_builtin_history(m->cpu.model->march, m->cpu.kconfig,
                                                  opts->smp, opts->kernel_history)))
        return machine_fail(m, 2, "--kernel %s is built for the up configuration of the "
                            "pentium4 and pentium3 families only, not %s's %s",
                            khist_name(opts->kernel_history), m->cpu.model->name,
                            kconfig_name(m->cpu.kconfig));
    if (kernel_code_range(m->kernel->start, (size_t)(m->kernel->end - m->kernel->start),
                          &m->mem.code_lo, &m->mem.code_hi))
        m->mem.code_lo = m->mem.code_hi = 0;
    if (engine_back_memory(m->uc, &m->mem))
        return machine_fail(m, 125, "cannot map guest memory");
    m->as = addrspaces_new(guest_ptr(&m->mem, 0, USER_SPACE_TOP), err, sizeof err);
    if (!m->as)
        return machine_fail(m, 125, "%s", err);
    as_track_code(m->as, !opts->no_cycle_model);
    if (uc_context_alloc(m->uc, &m->scratch_ctx) != UC_ERR_OK)
        return machine_fail(m, 125, "cannot allocate an engine context");
    if (block_cache_init(&m->blocks, m->cpu.cost))
        return machine_fail(m, 125, "cannot initialise Capstone");
    m->blocks.counts = m->class_count;
    if (!opts->harness.no_kernel_insns)
        block_cache_seed(&m->blocks, (const struct insn_seen *)m->kernel->insns_start,
                         (size_t)(m->kernel->insns_end - m->kernel->insns_start) /
                             sizeof(struct insn_seen));
    return 0;
}

void machine_destroy(struct machine *m)
{
    if (m->release_cpus)
        m->release_cpus(m);
    block_cache_free(&m->blocks);
    vfs_free(m->vfs);
    m->vfs = NULL;
    addrspaces_free(m->as);
    m->as = NULL;
    if (m->scratch_ctx)
        uc_context_free(m->scratch_ctx);
    if (m->uc)
        uc_close(m->uc);
    memory_unmap_all(&m->mem);
    m->uc = NULL;
    m->scratch_ctx = NULL;
}

/* ---- observers ---- */

/*
 * Quirk 28 without the cycle model: there is no block hook to look at the
 * engines' code buffers (run.c, code_full), and a hook on the hypercall's
 * `out` cannot stop the engine at a known EIP (inside a block the engine
 * keeps EIP at the block's start). A system call's entry can: the sysenter
 * hook and an int's delivery set EIP to the kernel's entry themselves, and
 * pass it here (the sysenter hook's EIP is the entry less the instruction's
 * length, which the engine adds after the hook). The look is made there, once every ENGINE_CODE_LOOK_MM address-space
 * requests (forks, execs and the pages they map: what makes new code),
 * so that a loop of system calls alone never pays for it (the first after
 * as many: a new engine's buffer is empty).
 */

void machine_code_look_at_entry(struct machine *m, uint32_t eip)
{
    if (!m->opts->no_cycle_model || m->code.mm_requests < m->code.look_at ||
        !engine_stops_after_eip_write())
        return;
    m->code.look_at = m->code.mm_requests + ENGINE_CODE_LOOK_MM;
    if (m->hold.block || m->hold.insn ||
        engine_code_resident() < ENGINE_CODE_LIMIT * (size_t)m->ncpus)
        return;
    m->code.due = true;
    m->code.eip = eip;   /* the kernel's entry: ring 0, CS is flat */
    engine_stop(m->uc);
}

void machine_tell_insns(struct machine *m, uint32_t upto)
{
    const struct block *b = m->cur_block;
    if (!m->insn_observed || !b || m->stop != STOP_NONE)
        return;
    if (upto > b->ninsns)
        upto = b->ninsns;
    if (upto <= m->insn_told)
        return;
    uint32_t from = m->insn_told;
    m->insn_told = upto;
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].insns)
            m->observers[i].insns(m->observers[i].ctx, m, from, upto);
}

int machine_observe(struct machine *m, const struct machine_observer *o)
{
    if (m->nobservers == MACHINE_MAX_OBSERVERS)
        return -1;
    if (o->insns)
        m->insn_observed = m->rare = true;
    m->observers[m->nobservers++] = *o;
    return 0;
}

void machine_tell_undecoded(struct machine *m)
{
    if (!m->insn_observed || m->cur_block || m->stop != STOP_NONE)
        return;
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].insns)
            m->observers[i].insns(m->observers[i].ctx, m, 0, 0);
}

void machine_notify_delivery(struct machine *m, const struct delivery_event *e)
{
    fold_counts(m);
    if (m->hold.delivered)
        m->hold.delivered(m->hold.ctx, m, e);
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].delivery)
            m->observers[i].delivery(m->observers[i].ctx, m, e);
}

void machine_notify_sysenter(struct machine *m, uint32_t insn_addr)
{
    fold_counts(m);
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].sysenter)
            m->observers[i].sysenter(m->observers[i].ctx, m, insn_addr);
}

void machine_notify_exit(struct machine *m)
{
    fold_counts(m);
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].exit)
            m->observers[i].exit(m->observers[i].ctx, m);
}

void machine_notify_tsc(struct machine *m, uint32_t insn_addr)
{
    fold_counts(m);
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].tsc)
            m->observers[i].tsc(m->observers[i].ctx, m, insn_addr);
}
