/* Stopping the machine for a debugger (debug.h): the points, the hold on
 * the execution loop, and resuming. */
#include "cpu/debug.h"
#include "machine/charge.h"
#include <stdlib.h>
#include <string.h>
#include "cpu/run.h"

/* ---- where the machine stops ---- */

static bool break_at(const struct debug *d, uint32_t addr, bool *hw)
{
    for (int i = 0; i < d->nbreaks; i++)
        if (d->breaks[i].addr == addr) {
            *hw = d->breaks[i].hw;
            return true;
        }
    return false;
}

/* Does the debugger want the machine to stop before the instruction at
 * addr? Then d->stop says why. */
static bool wants_stop(struct debug *d, uint32_t addr)
{
    bool hw;
    if (d->fault_hit || d->watch_hit)
        return true;   /* d->stop was filled when it happened */
    /* with --smp a step is one instruction of the CPU that was stopped;
     * the others run on through it (their breakpoints still stop) */
    if (d->stepping && d->m->cpu_id == d->step_cpu) {
        d->stop = (struct debug_stop){ .why = DEBUG_STEPPED, .addr = addr };
        return true;
    }
    /* A rep instruction's later iterations are not a new execution of it. */
    if (!(d->rep_again && addr == d->block_addr) && break_at(d, addr, &hw)) {
        d->stop = (struct debug_stop){ .why = DEBUG_BREAK, .addr = addr, .hw = hw };
        return true;
    }
    return false;
}

static bool poll_says_stop(struct debug *d, struct machine *m, uint32_t addr)
{
    if (!d->poll || m->insns < d->next_poll)
        return false;
    d->next_poll = m->insns + DEBUG_POLL_INSNS;
    int sig = d->poll(d->poll_ctx);
    if (!sig)
        return false;
    d->stop = (struct debug_stop){ .why = DEBUG_SIGNAL, .signo = sig, .addr = addr };
    return true;
}

/*
 * Stopping before an instruction inside a charged block: the rest of the
 * block is refunded, and charged again when the machine resumes at addr
 * and the engine starts a block there, from the cycles where this one
 * left off (so the TSC and traces count as without a debugger). A rep op
 * is charged run by run as it runs (machine.h): one the block ends in has
 * not run yet, and its start-up is paid then, once.
 */
static void cut_block(struct machine *m, uint32_t addr)
{
    uint32_t index;
    if (block_find_insn(m->cur_block, addr, &index) && index < m->cur_limit)
        truncate_current_block(m, index);
}

/* Is the block at addr the next run of the rep op the machine ran last
 * (machine.h, rep_live)? */
static bool rep_goes_on(const struct machine *m, uint32_t addr)
{
    return m->rep_live && m->rep_addr == addr;
}

/* Translated code the block cache does not hold (debug_retranslate). */
static void note_undecodable(struct debug *d, uint32_t addr)
{
    for (int i = 0; i < d->nodd; i++)
        if (d->odd[i] == addr)
            return;
    if (d->nodd < DEBUG_MAX_ODD)
        d->odd[d->nodd++] = addr;
}

/* Before the block at addr is charged (run.c). The first block after a
 * resume is the one the machine resumed in: it runs. */
static bool hold_block(void *ctx, struct machine *m, const struct block *b, uint32_t addr)
{
    struct debug *d = ctx;
    d->passed = false;
    d->block_addr = addr;
    d->rep_again = rep_goes_on(m, addr);
    if (!b)
        note_undecodable(d, addr);
    if (d->blocks == 0 && addr == d->resume_eip) {
        d->blocks++;
        return false;
    }
    if (wants_stop(d, addr) || poll_says_stop(d, m, addr)) {
        machine_pause(m, addr);
        return true;
    }
    d->blocks++;
    return false;
}

/* Before an instruction that has a code hook: a breakpoint's, the
 * every-instruction hook of a step or watchpoint, or the machine's own.
 * Several hooks may ask about one instruction; the answer stays the same. */
static bool hold_insn(void *ctx, struct machine *m, uint32_t addr)
{
    struct debug *d = ctx;
    if (m->paused)
        return true;
    if (d->passed && d->passed_addr == addr)
        return false;
    bool resumed_here = d->blocks <= 1 && addr == d->resume_eip;
    if (!resumed_here && wants_stop(d, addr)) {
        cut_block(m, addr);
        machine_pause(m, addr);
        return true;
    }
    d->passed = true;
    d->passed_addr = addr;
    return false;
}

static void on_code(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct debug *d = user;
    (void)uc;
    (void)size;
    hold_insn(d, d->m, (uint32_t)address);
}

static bool watch_matches(const struct debug_watch *w, bool write, uint32_t addr, uint32_t size)
{
    if (w->kind == DEBUG_WATCH_WRITE && !write)
        return false;
    if (w->kind == DEBUG_WATCH_READ && write)
        return false;
    return (uint64_t)addr < (uint64_t)w->addr + w->len && (uint64_t)addr + size > w->addr;
}

/* A guest read or write near a watched range; the first hit of an
 * instruction is the one reported. */
static void on_access(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                      int64_t value, void *user)
{
    struct debug *d = user;
    bool write = type == UC_MEM_WRITE;
    uint32_t addr = (uint32_t)address;
    (void)uc;
    (void)value;
    if (d->watch_hit || d->fault_hit || size <= 0)
        return;
    for (int i = 0; i < d->nwatches; i++) {
        const struct debug_watch *w = &d->watches[i];
        if (watch_matches(w, write, addr, (uint32_t)size)) {
            d->watch_hit = true;
            d->stop = (struct debug_stop){ .why = DEBUG_WATCH, .kind = w->kind, .wrote = write,
                                           .addr = addr > w->addr ? addr : w->addr };
            return;
        }
    }
}

/* A fault went through the IDT: with catch_faults, stop at its handler;
 * a page fault only once the kernel finds it is the program's (demand
 * paging resolves the others): on_program_fault. */
static void on_delivery(void *ctx, struct machine *m, const struct delivery_event *e)
{
    struct debug *d = ctx;
    if (!d->catch_faults || e->kind != EVENT_FAULT || e->vector == X86_VEC_PF)
        return;
    d->fault_hit = true;
    d->watch_hit = false;
    d->stop = (struct debug_stop){ .why = DEBUG_FAULT, .fault = *e,
                                   .addr = reg_read(m, UC_X86_REG_EIP) };
}

static void on_program_fault(void *ctx, struct machine *m, const struct delivery_event *e)
{
    struct debug *d = ctx;
    if (!d->catch_faults)
        return;
    d->fault_hit = true;
    d->watch_hit = false;
    d->stop = (struct debug_stop){ .why = DEBUG_FAULT, .fault = *e,
                                   .addr = reg_read(m, UC_X86_REG_EIP) };
}

/* ---- hooks in every CPU's engine ---- */

static int engine_count(const struct debug *d)
{
    return d->m->smp ? d->m->ncpus : 1;
}

static uc_engine *engine_of(const struct debug *d, int c)
{
    return d->m->smp ? d->m->engines[c] : d->m->uc;
}

static void unhook_all(struct debug *d, const uc_hook *hooks, int n)
{
    for (int c = 0; c < n; c++)
        engine_unhook(engine_of(d, c), hooks[c]);
}

static int hook_code_all(struct debug *d, uint32_t begin, uint32_t end, uc_hook *hooks)
{
    for (int c = 0; c < engine_count(d); c++)
        if (engine_hook_code_range(engine_of(d, c), begin, end, on_code, d, &hooks[c])) {
            unhook_all(d, hooks, c);
            return -1;
        }
    return 0;
}

static int hook_mem_all(struct debug *d, bool reads, bool writes, uint32_t begin, uint32_t end,
                        uc_hook *hooks)
{
    for (int c = 0; c < engine_count(d); c++)
        if (engine_hook_mem(engine_of(d, c), reads, writes, begin, end, on_access, d,
                            &hooks[c])) {
            unhook_all(d, hooks, c);
            return -1;
        }
    return 0;
}

/* ---- the points ---- */

int debug_insert_break(struct debug *d, uint32_t addr, bool hw)
{
    if (d->nbreaks == DEBUG_MAX_BREAKS)
        return -1;
    d->breaks[d->nbreaks++] = (struct debug_break){ addr, hw };
    return 0;
}

int debug_remove_break(struct debug *d, uint32_t addr, bool hw)
{
    for (int i = 0; i < d->nbreaks; i++)
        if (d->breaks[i].addr == addr && d->breaks[i].hw == hw) {
            d->breaks[i] = d->breaks[--d->nbreaks];
            return 0;
        }
    return -1;
}

/* Translated code reads memory past the hooks unless hooks existed when
 * it was translated (docs/unicorn.md, quirk 15): a first or last
 * watchpoint means translating again. An access is hooked by where it
 * starts, so the hook begins up to 15 bytes (the longest access) early. */
int debug_insert_watch(struct debug *d, enum debug_watch_kind kind, uint32_t addr, uint32_t len)
{
    if (d->nwatches == DEBUG_MAX_WATCHES || len == 0 || len > DEBUG_WATCH_MAX_LEN ||
        addr + (len - 1) < addr)
        return -1;
    struct debug_watch *w = &d->watches[d->nwatches];
    *w = (struct debug_watch){ .addr = addr, .len = len, .kind = kind };
    uint32_t begin = addr >= 15 ? addr - 15 : 0;
    if (hook_mem_all(d, kind != DEBUG_WATCH_WRITE, kind != DEBUG_WATCH_READ, begin,
                     addr + (len - 1), w->hook))
        return -1;
    if (d->nwatches++ == 0)
        d->retranslate = true;
    return 0;
}

static void drop_watch(struct debug *d, int i)
{
    unhook_all(d, d->watches[i].hook, engine_count(d));
    d->watches[i] = d->watches[--d->nwatches];
    if (d->nwatches == 0)
        d->retranslate = true;
}

int debug_remove_watch(struct debug *d, enum debug_watch_kind kind, uint32_t addr, uint32_t len)
{
    for (int i = 0; i < d->nwatches; i++) {
        const struct debug_watch *w = &d->watches[i];
        if (w->kind == kind && w->addr == addr && w->len == len) {
            drop_watch(d, i);
            return 0;
        }
    }
    return -1;
}

void debug_clear(struct debug *d)
{
    d->nbreaks = 0;
    while (d->nwatches > 0)
        drop_watch(d, d->nwatches - 1);
}

void debug_catch_faults(struct debug *d, bool on)
{
    d->catch_faults = on;
}

void debug_set_poll(struct debug *d, int (*poll)(void *ctx), void *ctx)
{
    d->poll = poll;
    d->poll_ctx = ctx;
}

/* ---- the hooks behind the points ---- */

static bool has_code_hook(const struct debug *d, uint32_t addr)
{
    for (int i = 0; i < d->nhooks; i++)
        if (d->hooks[i].addr == addr)
            return true;
    return false;
}

/* A breakpoint's hook stays when the breakpoint goes (GDB removes and
 * inserts its breakpoints at every stop), idle, until its room is needed. */
static int add_code_hook(struct debug *d, uint32_t addr)
{
    bool hw;
    if (d->nhooks == DEBUG_MAX_CODE_HOOKS) {
        for (int i = 0; i < d->nhooks; i++)
            if (!break_at(d, d->hooks[i].addr, &hw)) {
                unhook_all(d, d->hooks[i].hook, engine_count(d));
                d->hooks[i] = d->hooks[--d->nhooks];
                break;
            }
    }
    struct debug_code_hook *h = &d->hooks[d->nhooks];
    if (d->nhooks == DEBUG_MAX_CODE_HOOKS || hook_code_all(d, addr, addr, h->hook))
        return -1;
    h->addr = addr;
    d->nhooks++;
    d->retranslate = true;
    return 0;
}

/*
 * The engine translates code only as it runs, and every block that ran
 * went through the block hook: the block cache holds each one (and
 * note_undecodable the rest). Translating them all again puts new hooks
 * in everywhere, without dropping the engine's whole translation buffer
 * (docs/unicorn.md, quirk 15).
 */
static int retranslate_all_that_ran(struct debug *d)
{
    const struct block_cache *bc = &d->m->blocks;
    struct engine_range *r = malloc(((size_t)bc->capacity + (size_t)d->nodd) * sizeof *r);
    size_t n = 0;
    if (!r)
        return -1;
    for (uint32_t i = 0; i < bc->capacity; i++)
        if (bc->slots[i])
            r[n++] = (struct engine_range){ bc->slots[i]->addr, bc->slots[i]->size };
    for (int i = 0; i < d->nodd; i++)
        r[n++] = (struct engine_range){ d->odd[i], 1 };
    /* the block cache is the machine's: what any CPU ran */
    for (int c = 0; c < engine_count(d); c++)
        engine_retranslate_ranges(engine_of(d, c), d->m->scratch_ctx, r, n);
    free(r);
    return 0;
}

/* Before a run: a hook for every breakpoint, one on every instruction
 * while stepping or watching, and code translated again if it must be. */
static int sync_hooks(struct debug *d)
{
    bool every = d->stepping || d->nwatches > 0;
    if (every != d->every_hooked) {
        if (every && hook_code_all(d, 1, 0, d->every_insn))
            return -1;
        if (!every)
            unhook_all(d, d->every_insn, engine_count(d));
        d->every_hooked = every;
        d->retranslate = true;
    }
    for (int i = 0; i < d->nbreaks; i++)
        if (!has_code_hook(d, d->breaks[i].addr) && add_code_hook(d, d->breaks[i].addr))
            return -1;
    if (d->retranslate && retranslate_all_that_ran(d))
        return -1;
    d->retranslate = false;
    return 0;
}

/* ---- running ---- */

void debug_attach(struct debug *d, struct machine *m)
{
    memset(d, 0, sizeof *d);
    d->m = m;
    m->hold = (struct machine_hold){ .ctx = d, .block = hold_block, .insn = hold_insn,
                                     .delivered = on_delivery,
                                     .program_fault = on_program_fault };
    /* code held aside at an exec would come back without the hooks */
    if (m->as)
        as_hold_code(m->as, m->uc, false);
}

void debug_detach(struct debug *d)
{
    debug_clear(d);
    for (int i = 0; i < d->nhooks; i++)
        unhook_all(d, d->hooks[i].hook, engine_count(d));
    if (d->every_hooked)
        unhook_all(d, d->every_insn, engine_count(d));
    d->nhooks = 0;
    d->every_hooked = false;
    retranslate_all_that_ran(d);
    d->m->hold = (struct machine_hold){ 0 };
    if (d->m->as)
        as_hold_code(d->m->as, d->m->uc, true);
}

int debug_run(struct debug *d, bool step, struct debug_stop *stop)
{
    struct machine *m = d->m;
    d->stepping = step;
    d->step_cpu = m->cpu_id;
    d->resume_eip = reg_read(m, UC_X86_REG_EIP);
    d->blocks = 0;
    d->passed = d->rep_again = false;
    d->watch_hit = d->fault_hit = false;
    if (sync_hooks(d)) {
        machine_stop(m, STOP_MACHINE, "cannot hook the debugger's points into the engine");
        return 125;
    }
    int status = machine_run(m);
    d->stepping = false;
    if (status == MACHINE_PAUSED)
        *stop = d->stop;
    return status;
}
