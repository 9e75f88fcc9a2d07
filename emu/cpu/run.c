/* The execution loop: hooks, the block hook, machine_run. */
#include "cpu/run.h"
#include "machine/charge.h"
#include <string.h>
#include "cpu/boot.h"
#include "cpu/cpu_insns.h"
#include "hypercall/hypercall.h"
#include "cpu/irq.h"
#include "cpu/smp.h"
#include "cpu/sysenter.h"
#include "cpu/trap.h"

/*
 * An in or out with its port in the instruction (e4-e7 ib; a prefix is
 * never e4-e7) below the hypercalls' 0xe0-0xef (guest/abi.h): the 8259A's
 * and the PIT's, whose models charge no cycles. A hypercall's work is
 * charged at its out, so the code hook, which tells the observers the
 * instructions before it, stays on those.
 */
static bool device_port_io(const struct block *b, const struct insn *in)
{
    const uint8_t *op = b->bytes + (in->addr - b->addr) + in->len - 2;
    return in->len >= 2 && op[0] >= 0xe4 && op[0] <= 0xe7 && op[1] < 0xe0;
}

/* No special flag and no rep count: most of a block's instructions. */
static inline bool plain_insn(const struct insn *in)
{
    return !(in->flags & (SPECIALS | INSN_REP_COUNT));
}

/* Code hooks go in only for the addresses that need them, so most code
 * runs without a per-instruction callback. The kernel's own code runs at
 * CPL 0 (its pages are supervisor-only), where the engine's iret is right
 * (engine.h, quirk 21) and a device's in or out passes the I/O permission
 * check; a sysexit is the CPU model's only on a part without working SEP
 * (sysenter.h). */
static bool needs_hook(const struct machine *m, const struct block *b, const struct insn *in)
{
    uint16_t f = in->flags & SPECIALS;
    if (plain_insn(in))
        return false;
    if (rep_early(m, in))
        f &= (uint16_t)~SPECIAL_REP;
    if (!m->cpu.sep_unsupported)
        f &= (uint16_t)~SPECIAL_SYSEXIT;
    if (in_kernel_ram(in->addr)) {
        f &= (uint16_t)~SPECIAL_IRET;
        if (device_port_io(b, in))
            f &= (uint16_t)~SPECIAL_IO;
    }
    return rep_count_here(m, in) || f;
}

#define NSLOTS (2 * MAX_SPECIAL_HOOKS)

static uint32_t slot_of(uint64_t addr)
{
    return ((uint32_t)addr * 2654435761u) >> 21 & (NSLOTS - 1);
}

/* addr: the engine's address of the instruction (engine.h, quirk 5) */
static bool is_hooked(const struct machine *m, uint64_t addr)
{
    for (uint32_t s = slot_of(addr); m->special_slots[s]; s = (s + 1) & (NSLOTS - 1))
        if (m->special_addrs[m->special_slots[s] - 1] == addr)
            return true;
    return false;
}

static void index_special(struct machine *m, int i)
{
    uint32_t s = slot_of(m->special_addrs[i]);
    while (m->special_slots[s])
        s = (s + 1) & (NSLOTS - 1);
    m->special_slots[s] = (uint16_t)(i + 1);
}

/*
 * The engine calls a code hook for the address it has the instruction at,
 * base + EIP: above 4 GiB where that passed 4 GiB and the CPU's linear
 * address wrapped (engine.h, quirk 5). The block at b->addr runs at the
 * engine's address at; each instruction is hooked where it runs.
 */
static uint64_t engine_addr(const struct block *b, uint64_t at, const struct insn *in)
{
    return at + (uint32_t)(in->addr - b->addr);
}

static bool specials_hooked(struct machine *m, const struct block *b, uint64_t at)
{
    for (uint32_t i = 0; i < b->ninsns; i++)
        if (!plain_insn(&b->insns[i]) && needs_hook(m, b, &b->insns[i]) &&
            !is_hooked(m, engine_addr(b, at, &b->insns[i])))
            return false;
    return true;
}

/* 0, or -1 when the table is full (or the engine refuses a hook). */
static int hook_specials(struct machine *m, const struct block *b, uint64_t at)
{
    for (uint32_t i = 0; i < b->ninsns; i++) {
        const struct insn *in = &b->insns[i];
        uint64_t where = engine_addr(b, at, in);
        if (!needs_hook(m, b, in) || is_hooked(m, where))
            continue;
        if (m->nspecial == MAX_SPECIAL_HOOKS ||
            engine_hook_code_at(m->uc, where, on_special_insn, m,
                                &m->special_hooks[m->nspecial]))
            return -1;
        m->special_addrs[m->nspecial] = where;
        index_special(m, m->nspecial++);
    }
    return 0;
}

/*
 * A program can make any number of such instructions (writing rdtsc to a
 * fresh address and calling it, over and over). When the table is full
 * the engine stops, every code hook goes (the engine frees them when its
 * run has returned), and blocks get theirs again as they run.
 */
void forget_special_hooks(struct machine *m, int keep)
{
    while (m->nspecial > keep)
        engine_unhook(m->uc, m->special_hooks[--m->nspecial]);
    memset(m->special_slots, 0, sizeof m->special_slots);
    for (int i = 0; i < m->nspecial; i++)
        index_special(m, i);
}

/*
 * A store into the block that is running makes the engine give up the
 * rest of that block and run the store again as a block of its own
 * (engine.h, quirk 22), so the block hook charged instructions that never
 * ran. A one-instruction block at an instruction of the current block with
 * more of it still charged is that restart: refund from that instruction
 * (its block charges it again) and tell it only once. A loop back into
 * the block lands there with the block's whole tail, not one instruction.
 * The index of the store, or -1.
 */
static inline bool past_cur_block_start(const struct machine *m, uint32_t addr)
{
    const struct block *cur = m->cur_block;
    return cur && addr > cur->addr && addr - cur->addr < cur->size;
}

static int64_t restart_of(struct machine *m, uint32_t addr, uint32_t ninsns)
{
    uint32_t k;
    if (ninsns != 1 || !past_cur_block_start(m, addr) || m->run_to_why != RUN_TO_NONE ||
        !block_find_insn(m->cur_block, addr, &k) || k + 1 >= m->cur_limit)
        return -1;
    return k;
}

static inline bool abandoned_block(struct machine *m, uint32_t addr, const struct block *b)
{
    /* a restart is one instruction inside the current block: most blocks,
     * no call */
    if (b->ninsns != 1 || !past_cur_block_start(m, addr))
        return false;
    int64_t k = restart_of(m, addr, b->ninsns);
    if (k < 0)
        return false;
    truncate_current_block(m, (uint32_t)k);
    return true;
}

/*
 * The block before the one at addr ran as far as it goes: the observers of
 * instructions hear of it before anything at this block. A store's restart
 * (above) is known before its block is decoded by its size, the store's.
 */
static void tell_finished_block(struct machine *m, uint32_t addr, uint32_t size)
{
    const struct block *cur = m->cur_block;
    uint32_t k;
    if (!cur)
        return;
    if (block_find_insn(cur, addr, &k) && cur->insns[k].len == size &&
        restart_of(m, addr, 1) >= 0)
        machine_tell_insns(m, k + 1);
    else
        machine_tell_insns(m, m->cur_limit);
}

/* The last block Capstone could not decode: a loop of it ("lock jmp .")
 * is not decoded again on every turn, which made it ten times slower per
 * instruction than any other loop. */
static bool known_undecodable(const struct machine *m, uint32_t addr, const uint8_t *code,
                              uint32_t size)
{
    return m->undecodable.size == size && m->undecodable.addr == addr &&
           size <= sizeof m->undecodable.bytes && !memcmp(m->undecodable.bytes, code, size);
}

static void note_undecodable(struct machine *m, uint32_t addr, const uint8_t *code, uint32_t size)
{
    if (size > sizeof m->undecodable.bytes)
        return;
    m->undecodable.addr = addr;
    m->undecodable.size = size;
    memcpy(m->undecodable.bytes, code, size);
}

static void over_budget(struct machine *m)
{
    machine_stop(m, STOP_BUDGET, "instruction budget of %llu exhausted "
                 "(raise it with --max-insns)", (unsigned long long)m->opts->max_insns);
}

/*
 * A block the timer's deadline or the budget falls inside is cut short
 * before the instruction at which it does (docs/unicorn.md, quirk 29):
 * it is charged up to there, and a one-shot code hook there takes the
 * interrupt or stops. A fault or a restart that left the block first
 * leaves the hook stale: it finds another block charged, and only goes.
 */
void unhook_cut(struct machine *m)
{
    if (!m->cut.set)
        return;
    engine_unhook(m->uc, m->cut.hook);
    m->cut.set = false;
}

static void on_cut(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    uint32_t index;
    (void)uc;
    (void)size;
    if (!m->cut.set || m->cut.at != address)
        return;
    unhook_cut(m);
    /* the translations with the hook's call in them */
    engine_retranslate(m->uc, address, 1);
    if (m->stop != STOP_NONE || m->cur_block != m->cut.block || m->cur_limit != m->cut.index ||
        !block_find_insn(m->cur_block, (uint32_t)address, &index) || index != m->cut.index ||
        machine_hold_insn(m, (uint32_t)address))
        return;
    machine_tell_insns(m, index);
    /* the cut cleared the shadow; if nothing is taken, the rest of the
     * block runs as a block of its own */
    if (m->insns >= m->opts->max_insns)
        over_budget(m);
    else if (m->cpu_id != 0 || !irq_check(m, (uint32_t)address))
        reg_write(m, UC_X86_REG_EIP, (uint32_t)address - code_segment_base(m));
}

/* Where block b is cut: before the instruction that would pass the
 * budget, or before the one at which the timer's interrupt is taken;
 * b->ninsns if at neither (0: the budget is spent before it). */
static uint32_t cut_point(struct machine *m, const struct block *b)
{
    uint32_t k = b->ninsns;
    uint64_t max = m->opts->max_insns;
    if (m->insns + k > max)
        k = m->insns < max ? (uint32_t)(max - m->insns) : 0;
    if (k > 1 && m->cpu_id == 0 && irq_inside(m, b))
        k = irq_cut(m, b, k);
    return k;
}

enum { CUT_HOOKED, CUT_RESTART, CUT_FAILED };

/* The cut's hook at instruction k of block b, which the engine has at
 * start: in its translation already, or put in there and the block
 * started again (quirk 8). */
static int hook_cut(struct machine *m, const struct block *b, uint64_t start, uint32_t size,
                    uint32_t k)
{
    uint64_t at = engine_addr(b, start, &b->insns[k]);
    if (m->cut.set && m->cut.start == start && m->cut.at == at)
        return CUT_HOOKED;
    unhook_cut(m);
    if (engine_hook_code_at(m->uc, at, on_cut, m, &m->cut.hook))
        return CUT_FAILED;
    m->cut.set = true;
    m->cut.start = start;
    m->cut.at = at;
    m->cut.block = NULL;
    engine_retranslate(m->uc, start, size);
    reg_write(m, UC_X86_REG_EIP, b->addr - code_segment_base(m));
    return CUT_RESTART;
}

/* The index block b runs up to, b->ninsns if whole, its cut's hook in
 * place; 0 if it does not run now (started again, or over the budget). */
static uint32_t block_extent(struct machine *m, const struct block *b, uint64_t start,
                             uint32_t size)
{
    uint32_t k = cut_point(m, b);
    bool over = m->insns + b->ninsns > m->opts->max_insns;
    if (k > 0 && k < b->ninsns) {
        int h = hook_cut(m, b, start, size, k);
        if (h == CUT_RESTART)
            return 0;
        if (h == CUT_FAILED)
            k = over ? 0 : b->ninsns;
    }
    if (k == 0 && over)
        over_budget(m);
    return k;
}

/*
 * The host pointer of the code at addr: the one kept by hit (the cache's
 * block where the look-up starts, of this addr and size) if the memory's
 * regions have not changed since (the pointer guest_code_ptr gives; the
 * bytes are still compared), else looked up.
 */
static inline const uint8_t *code_ptr(struct machine *m, const struct block *hit,
                                      uint32_t addr, uint32_t size)
{
    if (hit && hit->host_gen == m->mem.gen)
        return hit->host;
    return guest_code_ptr(&m->mem, addr, size);
}

/* No instruction of b needs a code hook on this machine (needs_hook: a
 * sysexit where SEP works, the kernel's iret and device ports need none),
 * none touches the paging state, and it has no rep (needs_hook's answer
 * for the rest does not depend on a debugger then): the block hook's
 * short way may take it (on_block). */
static bool plain_block(const struct machine *m, const struct block *b)
{
    if (b->specials & (PAGING_INSNS | SPECIAL_REP))
        return false;
    for (uint32_t i = 0; i < b->ninsns; i++)
        if (needs_hook(m, b, &b->insns[i]))
            return false;
    return true;
}

/* The code's host pointer kept with the block, and whether the block is
 * plain: each block the cache gives comes here once at least, before the
 * short way can take it (which asks for the same generation). */
static void keep_code_ptr(struct machine *m, const struct block *cb, const uint8_t *code)
{
    struct block *b = (struct block *)cb;   /* the cache's own */
    b->host = code;
    b->host_gen = m->mem.gen;
    b->plain = plain_block(m, b);
}

/*
 * A rep op's further runs are blocks of their own at the rep (machine.h,
 * charge_rep): one block hook per element of a long rep. When the block
 * before was this rep's own block, with nothing in between (rep_live at
 * addr, no debugger), and the cache still holds it with the bytes at addr
 * as they are now (the rep may store into its own code), the look-up,
 * the code hooks (it needs none: its count is read at its entry), the
 * store's restart (the block at addr is the current one) and the rep's
 * start-up (it continues) are known; everything else is asked as for any
 * block. The rep's block, or NULL.
 */
static const struct block *rep_again(const struct machine *m, uint32_t addr,
                                     const uint8_t *code, uint32_t size,
                                     const struct block *hit)
{
    const struct block *b = m->cur_block;
    if (!m->rep_live || m->rep_addr != addr || !b || m->hold.block || m->hold.insn ||
        !code || b != hit || !block_hit_same(hit, code, size))
        return NULL;
    return b->ninsns == 1 && rep_early(m, &b->insns[0]) && b->rep.from == 0 ? b : NULL;
}

/* The block at addr, decoded if need be (NULL: Capstone cannot); false if
 * the block hook is done (code hooks go in first, or a debugger holds
 * the machine at undecodable code). */
static bool find_block(struct machine *m, uint64_t address, uint32_t size, const uint8_t *code,
                       const struct block *hit, const struct block **out)
{
    uint32_t addr = (uint32_t)address;
    const struct block *b = NULL;
    if (code && !known_undecodable(m, addr, code, size)) {
        b = block_hit_same(hit, code, size);
        if (!b)
            b = block_lookup(&m->blocks, addr, code, size);
        if (!b)
            note_undecodable(m, addr, code, size);
        else if (b->host_gen != m->mem.gen)
            keep_code_ptr(m, b, code);
    }
    *out = b;
    if (!b) {
        if (m->as)   /* whatever it does, it may touch the paging state */
            as_note_paging(m->as, true, false);
        if (machine_hold_block(m, NULL, addr))
            return false;
        /* Code Capstone cannot decode still runs in the engine (which
         * ignores a stray lock prefix, for one): count it as one
         * instruction, or a loop of it ("lock jmp .") would never meet
         * the budget. */
        m->cur_block = NULL;
        machine_tell_undecoded(m);
        if (++m->insns > m->opts->max_insns)
            over_budget(m);
        return false;
    }
    /*
     * The block hook runs before the block's exit check, so stopping here
     * keeps the block from running: put the code hooks in, drop the
     * translation and start the block again (engine.h, quirk 8).
     */
    if (!b->specials)
        return true;
    if ((b->specials & PAGING_INSNS) && m->as)
        as_note_paging(m->as, b->specials & SPECIAL_PAGING, b->specials & SPECIAL_CR3);
    if (!specials_hooked(m, b, address)) {
        if (hook_specials(m, b, address)) {
            /* stop at the restart: writing EIP cancels a stop */
            m->hooks_full = m->rare = true;
        } else {
            engine_retranslate(m->uc, address, size);
        }
        reg_write(m, UC_X86_REG_EIP, addr - code_segment_base(m));
        return false;
    }
    return true;
}

/*
 * The engine never reclaims its translations (quirk 28): each exec, each
 * address-space switch that drops a page's translations, each store into
 * code, adds code to its buffer until it is full and the engine crashes.
 * Every ENGINE_CODE_CHECK instructions the block hook looks at how much
 * the buffers hold; past ENGINE_CODE_LIMIT per CPU, the engine stops
 * before the block, as for a turn's end (smp.c), and run_slice moves each
 * CPU into a new engine. (Without the cycle model there is no block hook,
 * and no look: a limit, docs/unicorn.md.)
 */
#define ENGINE_CODE_CHECK (1u << 22)

static bool code_full(struct machine *m, uint32_t addr)
{
    m->code.check_at = m->insns + ENGINE_CODE_CHECK;
    if (m->hold.block || m->hold.insn ||
        engine_code_resident() < ENGINE_CODE_LIMIT * (size_t)m->ncpus)
        return false;
    m->code.due = true;
    m->code.eip = addr - code_segment_base(m);
    engine_stop(m->uc);
    return true;
}

/*
 * Block b runs from addr, charged at its entry: the current block (a
 * store's restart, when restart, was told in its first block), its counts,
 * the end of a rep that ran before it, the sti shadow, the observers.
 * Inline: the block hook's short and whole ways both end here.
 */
static inline __attribute__((always_inline)) void start_block(struct machine *m,
                                                              const struct block *b,
                                                              uint32_t addr, bool in_user,
                                                              bool restart)
{
    m->cur_block = b;
    m->cur_limit = b->ninsns;
    m->insn_told = restart;
    m->block_start_cycles = m->cycles;
    charge_block(m, b, in_user);
    m->insns += b->ninsns;
    if (in_user)
        m->user_insns += b->ninsns;
    /* A rep op ends its block; each further run of it is a block that
     * starts at it. Anything else in between ends that rep. (The rest of
     * a block a debugger stopped inside is a block too, which changes
     * nothing here: it starts at the stop, before the rep ran again.) */
    if (addr != m->rep_addr)
        m->rep_live = false;
    /* sti delays interrupts until after the next instruction (the engine
     * ends a block at sti, so that one starts the next block). */
    m->sti_shadow = b->ends_sti;
    machine_notify_block(m, b);
}

/* The block hook's whole way: any block, any state of the machine. hit is
 * the cache's block at addr of this size, if any (its bytes not compared). */
static __attribute__((noinline)) void on_block_full(uc_engine *uc, uint64_t address,
                                                    uint32_t size, struct machine *m,
                                                    const struct block *hit)
{
    uint32_t addr = (uint32_t)address;

    if (m->rare) {
        if (m->insn_observed)
            tell_finished_block(m, addr, size);
        if (m->stop != STOP_NONE || m->paused || m->hooks_full) {
            engine_stop(uc);
            return;
        }
    }
    m->drop_step_trap = false;
    if (m->iret_patch.active)
        engine_iret_restore(&m->mem, &m->iret_patch);
    const uint8_t *code = size ? code_ptr(m, hit, addr, size) : NULL;
    const struct block *b = rep_again(m, addr, code, size, hit);
    bool again = b != NULL;
    /* A block decoded again at its own address (its code changed) frees
     * the old one: if that is the current block, it is gone. */
    if (m->cur_block && m->cur_block->addr == addr)
        m->cur_block = NULL;
    if (!again && !find_block(m, address, size, code, hit, &b))
        return;
    /* With --smp the turn may be over; a due interrupt is taken before
     * the block runs, and the handler's first block comes back here. The
     * PIC is wired to CPU 0. */
    if (m->smp && (smp_turn_over(m, addr) || smp_ipi_check(m, addr)))
        return;
    if (m->insns >= m->code.check_at && code_full(m, addr))
        return;
    if (m->cpu_id == 0 && irq_may_deliver(m) && irq_check(m, addr))
        return;
    /* A debugger stops before the block is charged: it runs, and is
     * charged, when the machine goes on. */
    if (machine_hold_block(m, b, addr))
        return;
    uint32_t extent = b->ninsns;
    if (m->insns + extent > m->opts->max_insns || irq_inside(m, b)) {
        extent = block_extent(m, b, address, size);
        if (extent == 0)
            return;
    }
    bool in_user = addr < KERNEL_BASE;
    if (in_user)
        as_note_code_fast(m->as, addr, size);
    if (m->smp)
        smp_note_code(m, addr, size);
    start_block(m, b, addr, in_user, !again && abandoned_block(m, addr, b));
    if (again)
        charge_rep_again(m, &b->insns[0]);
    else if (rep_early(m, &b->insns[b->ninsns - 1]) && b->rep.from == 0)
        charge_rep_early(m, b);
    if (extent < b->ninsns) {
        m->sti_shadow = false;
        truncate_current_block(m, extent);
        m->cut.block = b;
        m->cut.index = extent;
    }
}

/*
 * Whether the block hook's whole way would do no more for plain block b
 * (decode.h) than on_block's short way: nothing rare, no iret patch, one
 * CPU, no debugger (its block and instruction holds are set together),
 * the bytes as decoded, the budget and the engine's code check not
 * reached, no interrupt requested and the timer not due before the
 * block's end. Each test stands for one the whole way makes, whose answer
 * is then known. (A plain block is never a rep's own: rep_again and the
 * rep's charges have nothing to do.)
 */
static inline bool plain_run(const struct machine *m, const struct block *b, uint32_t size)
{
    return b->plain && !m->rare && !m->iret_patch.active && !m->smp && !m->hold.block &&
           !m->irq.irr &&
           m->cycles + b->cost < m->irq.deadline && m->insns < m->code.check_at &&
           m->insns + b->ninsns <= m->opts->max_insns && b->host_gen == m->mem.gen &&
           block_same_bytes(b->bytes, b->host, size);
}

/* The UC_HOOK_BLOCK callback: most blocks take the short way, the whole
 * way's steps that are left when plain_run holds, in its order. */
static void on_block(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    uint32_t addr = (uint32_t)address;
    const struct block *b = block_at_slot(&m->blocks, addr, size);
    if (!b || !plain_run(m, b, size)) {
        on_block_full(uc, address, size, m, b);
        return;
    }
    m->drop_step_trap = false;
    if (m->cur_block && m->cur_block->addr == addr)
        m->cur_block = NULL;
    bool in_user = addr < KERNEL_BASE;
    if (in_user)
        as_note_code_fast(m->as, addr, size);
    start_block(m, b, addr, in_user, abandoned_block(m, addr, b));
}

static int add_hooks(struct machine *m);

/* The running CPU into a new engine: its hooks go in again, the code
 * hooks as blocks need them. */
static int renew_cpu(struct machine *m)
{
    if (engine_renew(&m->uc, m->scratch_ctx, &m->mem))
        return -1;
    m->engines[m->cpu_id] = m->uc;
    m->nspecial = 0;
    memset(m->special_slots, 0, sizeof m->special_slots);
    m->cut.set = false;
    uc_context_free(m->scratch_ctx);
    m->scratch_ctx = NULL;
    if (uc_context_alloc(m->uc, &m->scratch_ctx) != UC_ERR_OK)
        return -1;
    return add_hooks(m);
}

/* Stopped by code_full: every CPU gets a new engine (quirk 28). */
static void renew_engines(struct machine *m)
{
    int me = m->cpu_id;
    m->code.due = false;
    reg_write(m, UC_X86_REG_EIP, m->code.eip);
    engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
    for (int c = 0; c < m->ncpus && m->stop == STOP_NONE; c++) {
        if (m->smp)
            smp_switch(m, c);
        if (renew_cpu(m))
            machine_stop(m, STOP_MACHINE, "cannot move CPU %d into a new engine", c);
    }
    if (m->smp)
        smp_switch(m, me);
    m->code.renewals++;
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
    m->code.check_at = ENGINE_CODE_CHECK;   /* a new engine's buffer is empty */
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
    uint32_t eip = reg_read(m, UC_X86_REG_EIP), base = code_segment_base(m);
    if (++m->engine_aborts > MAX_ENGINE_ABORTS) {
        machine_stop(m, STOP_MACHINE, "the engine failed to translate code at eip %08x", eip);
        return;
    }
    if (m->run_to_why != RUN_TO_PAUSE)
        disarm_run_to(m);
    arm_run_to(m, RUN_TO_UD, base + eip, first_undecodable(&m->blocks, &m->mem, base + eip));
}

/* At run_to: raise #UD there after an abort, unless the code has changed
 * since; after a misplaced fetch fault, just go on, to fault again, with
 * the first one no longer in flight (engine.h, quirk 20). */
static void reached_run_to(struct machine *m)
{
    enum run_to_why why = m->run_to_why;
    uint32_t at = m->run_to;
    disarm_run_to(m);
    m->run_paused = why == RUN_TO_PAUSE;
    if (why == RUN_TO_FETCH)
        engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
    if (why != RUN_TO_UD || decodable(&m->blocks, &m->mem, at))
        return;
    m->delivery_depth = 0;
    raise_fault(m, X86_VEC_UD, false, 0, at - code_segment_base(m));
}

static bool halted_at(struct machine *m, uint32_t eip)
{
    const uint8_t *op = guest_ptr(&m->mem, eip - 1, 1);
    return op && *op == 0xf4;
}

/* A turn's count of instructions is done (smp.h): the rest of the block
 * runs next time, charged then. Stopped from the count's hook, the engine
 * may keep a fault in flight (quirk 1), and the next one would never be
 * raised (quirk 26). */
static void count_stop(struct machine *m, uint32_t eip)
{
    uint32_t index;
    if (m->cur_block && block_find_insn(m->cur_block, code_segment_base(m) + eip, &index))
        truncate_current_block(m, index);
    engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
}

/* The engine returned: the current block ran up to EIP (a stop between
 * instructions), through it (an instruction the engine reported invalid),
 * or to its end. */
static void tell_stopped_block(struct machine *m)
{
    uint32_t k;
    uint32_t at = code_segment_base(m) + reg_read(m, UC_X86_REG_EIP);
    if (block_find_insn(m->cur_block, at, &k))
        machine_tell_insns(m, m->reports.ud ? k + 1 : k);
    else
        machine_tell_insns(m, m->cur_limit);
}

/* The run_to a run started with (trap.h). */
struct armed_stop {
    enum run_to_why why;
    uint32_t from, to;
};

static void drop_stale(struct machine *m)
{
    if (m->stale_to >= m->stale_from)
        engine_retranslate(m->uc, m->stale_from, m->stale_to - m->stale_from + 1);
}

/*
 * The engine keeps the "until" its run started with to the end of that
 * run (quirk 27), though a fault on the way disarmed the run_to (a store
 * that took a #PF before the instruction a fetch fault ran up to): code
 * translated after that halts there, in this run or a later one. The
 * translations that carry it go when the run returns, through the page
 * tables of the moment (quirk 15), and again at the first stop there
 * with nothing armed, which may come in another process (a fork has the
 * same code): true for that stop.
 */
static bool stale_stop(struct machine *m, const struct armed_stop *a, uint32_t linear)
{
    if (a->why != RUN_TO_NONE &&
        !(m->run_to_why == a->why && m->run_to == a->to && m->run_to_from == a->from)) {
        m->stale_set = true;
        m->stale_from = a->from;
        m->stale_to = a->to;
        drop_stale(m);
    }
    if (!m->stale_set || linear != m->stale_to ||
        (m->run_to_why != RUN_TO_NONE && m->run_to == linear))
        return false;
    drop_stale(m);
    m->stale_set = false;
    return true;
}

/*
 * One run of the running CPU's engine, with no exit address (engine.h,
 * quirk 18): ring-3 code that runs into 0xc0000000 takes the #PF a CPU
 * raises there. True if it stopped at a hlt (EIP after it) that nothing
 * here handled; the caller waits for an interrupt. With --smp the run
 * also ends when the turn's instructions are done.
 */
static bool run_slice(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP);
    struct armed_stop armed = { m->run_to_why, m->run_to_from, m->run_to };
    uint64_t until = m->run_to_why != RUN_TO_NONE ? engine_code_address(m, m->run_to)
                                                  : ENGINE_NO_EXIT;
    uc_err e = UC_ERR_OK;
    m->rare = m->insn_observed || m->stop != STOP_NONE || m->paused || m->hooks_full;
    bool returned = engine_run(m->uc, eip, until, &e);
    fold_counts(m);
    engine_iret_restore(&m->mem, &m->iret_patch);
    bool stale = stale_stop(m, &armed, code_segment_base(m) + reg_read(m, UC_X86_REG_EIP));
    if (m->insn_observed)
        tell_stopped_block(m);
    if (!returned) {
        engine_aborted(m);
        return false;
    }
    if (m->stop != STOP_NONE)
        return false;
    if (smp_turn_resume(m))
        return false;
    if (m->code.due) {
        renew_engines(m);
        return false;
    }
    if (m->hooks_full) {
        m->hooks_full = false;
        forget_special_hooks(m, 0);
        return false;
    }
    if (m->reports.ud) {
        raise_reported_ud(m);
        return false;
    }
    if (m->paused || m->run_paused)
        return false;
    eip = reg_read(m, UC_X86_REG_EIP);
    if (m->run_to_why != RUN_TO_NONE) {
        if (code_segment_base(m) + eip == m->run_to) {
            reached_run_to(m);
            return false;
        }
        /* stopped by a hook on the way there (a fetch fault, armed just
         * now), or by the turn's count: run again */
        if (e == UC_ERR_OK) {
            if (m->smp)
                count_stop(m, eip);
            return false;
        }
    }
    if (e != UC_ERR_OK) {
        machine_stop(m, STOP_MACHINE, "engine error at eip %08x: %s", eip, uc_strerror(e));
        return false;
    }
    if (stale)
        return false;
    if (halted_at(m, eip))
        return true;
    if (m->smp) {
        count_stop(m, eip);
        return false;
    }
    machine_stop(m, STOP_MACHINE, "the machine halted at eip %08x", eip);
    return false;
}

/* The loop ends with the run, at a pause for the debugger (m->paused) or
 * at machine_run_until's address (m->run_paused). With --smp the CPUs
 * take turns (smp_run). */
static void run_loop(struct machine *m)
{
    if (m->smp) {
        smp_run(m, run_slice);
        return;
    }
    /* hlt ends the engine's run: wait for the next interrupt, in modeled
     * time (irq.h) */
    while (m->stop == STOP_NONE && !m->paused && !m->run_paused)
        if (run_slice(m) && !irq_halt(m))
            machine_stop(m, STOP_MACHINE, "the machine halted at eip %08x",
                         reg_read(m, UC_X86_REG_EIP));
}

bool machine_run_until(struct machine *m, uint32_t at)
{
    /* the code at and before it on its page may carry the stop */
    arm_run_to(m, RUN_TO_PAUSE, at & ~(PAGE_SIZE - 1), at);
    m->run_paused = false;
    run_loop(m);
    bool paused = m->run_paused;
    m->run_paused = false;
    m->pause_held = false;
    if (!paused)
        disarm_run_to(m);
    return paused;
}

int machine_run(struct machine *m)
{
    run_loop(m);
    if (m->stop == STOP_NONE && m->paused) {
        /* A block hook that stops the engine leaves EIP behind when the
         * block was entered by a direct jump (docs/unicorn.md, quirk 16);
         * and EIP cannot be set from a hook that stops. */
        reg_write(m, UC_X86_REG_EIP, m->pause_eip);
        /* Stopped from a hook, the engine may still mark a fault in
         * flight that it never reported (quirk 1): the next one would
         * come out as #DF, or stop the CPU as a triple fault. */
        engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
        m->paused = false;
        return MACHINE_PAUSED;
    }
    switch (m->stop) {
    case STOP_EXIT: return m->exit_status;
    case STOP_KILLED: return m->exit_status;
    case STOP_EXEC_ERROR: return 126;
    case STOP_BUDGET: return 124;
    case STOP_DEADLOCK: return 124;   /* no progress, as the budget's */
    default: return 125;
    }
}
