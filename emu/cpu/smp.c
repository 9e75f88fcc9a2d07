/*
 * The CPUs of --smp N: their engines, their turns, and a minimal local
 * APIC each (smp.h).
 */
#include "cpu/smp.h"
#include "cost/centi.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/irq.h"
#include "cpu/trap.h"
#include <errno.h>

static struct cpu_slot *slot(struct machine *m, int c)
{
    return &m->smp->cpus[c];
}

void smp_switch(struct machine *m, int c)
{
    if (c == m->cpu_id)
        return;
    fold_counts(m);    /* the blocks' runs are this CPU's */
    slot(m, m->cpu_id)->local = m->local;
    m->local = slot(m, c)->local;
    m->cpu_id = c;
}

/* One more engine over the same host memory, with the same hooks. */
static int open_cpu(struct machine *m, int c, int (*add_hooks)(struct machine *m))
{
    smp_switch(m, c);
    memset(&m->local, 0, sizeof m->local);
    m->rep_addr = 0;
    if (engine_open(&m->uc))
        return machine_fail(m, 125, "cannot open a Unicorn x86 engine for CPU %d", c);
    m->engines[c] = m->uc;
    if (memory_share(m->uc, &m->mem) || engine_back_wrap(m->uc, &m->mem))
        return machine_fail(m, 125, "cannot map guest memory for CPU %d", c);
    if (uc_context_alloc(m->uc, &m->scratch_ctx) != UC_ERR_OK)
        return machine_fail(m, 125, "cannot allocate an engine context");
    if (add_hooks(m))
        return machine_fail(m, 125, "cannot install engine hooks");
    return 0;
}

static void smp_free(struct machine *m);

int smp_init(struct machine *m, int (*add_hooks)(struct machine *m))
{
    int n = m->opts->smp > 1 ? m->opts->smp : 1;
    m->ncpus = n;
    m->engines[0] = m->uc;
    if (n == 1)
        return 0;
    if (m->opts->no_cycle_model)
        return machine_fail(m, 2, "--smp needs the cycle model: the CPUs take turns "
                            "by modeled time");
    if (n > MAX_CPUS)
        return machine_fail(m, 2, "--smp: at most %d CPUs", MAX_CPUS);
    m->smp = calloc(1, sizeof *m->smp);
    if (!m->smp)
        return machine_fail(m, 125, "out of memory");
    m->release_cpus = smp_free;
    for (int c = 0; c < n; c++) {
        slot(m, c)->state = c == 0 ? CPU_RUNNING : CPU_OFF;
        slot(m, c)->online = c == 0;
        slot(m, c)->wake_at = UINT64_MAX;
        slot(m, c)->timer_deadline = UINT64_MAX;
    }
    for (int c = 1; c < n; c++) {
        int rc = open_cpu(m, c, add_hooks);
        if (rc) {
            smp_switch(m, 0);
            return rc;
        }
    }
    smp_switch(m, 0);
    return 0;
}

static void smp_free(struct machine *m)
{
    if (!m->smp)
        return;
    smp_switch(m, 0);
    for (int c = 1; c < m->ncpus; c++) {
        struct cpu_local *l = &slot(m, c)->local;
        if (l->scratch_ctx)
            uc_context_free(l->scratch_ctx);
        if (l->uc)
            uc_close(l->uc);
    }
    code_pages_free(&m->smp->code);
    free(m->smp);
    m->smp = NULL;
}

/* ---- the local APIC ---- */

static void wake(struct machine *m, int c)
{
    struct cpu_slot *s = slot(m, c);
    uint64_t now = m->cycles;
    uint64_t its = c == m->cpu_id ? m->cycles : s->local.cycles;
    if (s->state == CPU_HALTED && s->wake_at > now)
        s->wake_at = now > its ? now : its;
}

static void send_fixed(struct machine *m, int c, uint32_t vector)
{
    slot(m, c)->pending[vector / 32] |= 1u << (vector % 32);
    wake(m, c);
}

/* STARTUP: the AP runs from the page the vector names, in the state a new
 * engine is in (32-bit protected mode, flat segments, paging off), from
 * the sender's present. */
static void send_startup(struct machine *m, int c, uint32_t vector)
{
    struct cpu_slot *s = slot(m, c);
    if (s->state != CPU_WAIT_SIPI)
        return;
    s->state = CPU_RUNNING;
    s->local.cycles = m->cycles;
    s->started_at = m->cycles;
    engine_reg_write(s->local.uc, UC_X86_REG_EIP, KERNEL_BASE + (vector << PAGE_SHIFT));
}

static void send_one(struct machine *m, int c, uint32_t icr)
{
    uint32_t vector = icr & APIC_ICR_VECTOR;
    if (c < 0 || c >= m->ncpus)
        return;   /* no APIC accepts it */
    switch (icr & APIC_DM_MASK) {
    case APIC_DM_FIXED:
        send_fixed(m, c, vector);
        break;
    case APIC_DM_INIT:
        if (slot(m, c)->state == CPU_OFF)
            slot(m, c)->state = CPU_WAIT_SIPI;
        break;
    case APIC_DM_STARTUP:
        send_startup(m, c, vector);
        break;
    default:
        break;   /* SMI, NMI, lowest priority: not modeled */
    }
}

static void send_ipi(struct machine *m, uint32_t icr)
{
    uint32_t shorthand = icr & APIC_DEST_MASK;
    if (shorthand == APIC_DEST_FIELD) {
        send_one(m, (int)(icr >> 24), icr);
        return;
    }
    for (int c = 0; c < m->ncpus; c++) {
        if (shorthand == APIC_DEST_SELF && c != m->cpu_id)
            continue;
        if (shorthand == APIC_DEST_ALLBUT && c == m->cpu_id)
            continue;
        send_one(m, c, icr);
    }
}

/* The local timer: every value TSC cycles of this CPU, from now. */
static void set_timer(struct machine *m, uint32_t value)
{
    struct cpu_slot *s = slot(m, m->cpu_id);
    s->timer_period = cycles_to_centi(value);
    s->timer_deadline = value ? m->cycles + s->timer_period : UINT64_MAX;
}

bool smp_port_out(struct machine *m, uint32_t port, uint32_t value)
{
    if (port != APIC_PORT_ICR && port != APIC_PORT_ONLINE && port != APIC_PORT_TIMER)
        return false;
    if (!m->smp)
        return true;   /* one CPU: no one to send to */
    if (port == APIC_PORT_ICR)
        send_ipi(m, value);
    else if (port == APIC_PORT_TIMER)
        set_timer(m, value);
    else
        slot(m, m->cpu_id)->online = true;
    return true;
}

/* A timer interrupt that is due is pending; ticks the CPU slept through
 * are one interrupt, as an APIC's count reloads without queueing. */
static void timer_check(struct machine *m, struct cpu_slot *s)
{
    if (m->cycles < s->timer_deadline)
        return;
    s->pending[LOCAL_TIMER_VECTOR / 32] |= 1u << (LOCAL_TIMER_VECTOR % 32);
    s->timer_ticks++;
    uint64_t late = (m->cycles - s->timer_deadline) / s->timer_period;
    s->timer_deadline += (late + 1) * s->timer_period;
}

static int highest_pending(const struct cpu_slot *s)
{
    for (int w = 7; w >= 0; w--)
        if (s->pending[w])
            return w * 32 + 31 - __builtin_clz(s->pending[w]);
    return -1;
}

static bool takes_interrupts(struct machine *m)
{
    return !m->sti_shadow && (reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF);
}

static void deliver_ipi(struct machine *m, int vector, uint32_t return_eip)
{
    struct cpu_slot *s = slot(m, m->cpu_id);
    s->pending[vector / 32] &= ~(1u << (vector % 32));
    if (vector == LOCAL_TIMER_VECTOR)
        s->timer_taken++;
    else
        s->ipis++;
    m->delivery_depth = 0;
    deliver_interrupt(m, vector, EVENT_EXTERNAL, false, 0, return_eip, return_eip);
}

bool smp_ipi_check(struct machine *m, uint32_t addr)
{
    timer_check(m, slot(m, m->cpu_id));
    int v = highest_pending(slot(m, m->cpu_id));
    if (v < 0 || !takes_interrupts(m))
        return false;
    deliver_ipi(m, v, addr - code_segment_base(m));
    return true;
}

void smp_note_code(struct machine *m, uint32_t addr, uint32_t size)
{
    uint32_t first = addr & ~(PAGE_SIZE - 1), last = (addr + size - 1) & ~(PAGE_SIZE - 1);
    if (code_pages_note(&m->smp->code, &m->mem, m->cpu_id, first) ||
        (last != first && code_pages_note(&m->smp->code, &m->mem, m->cpu_id, last)))
        machine_stop(m, STOP_MACHINE, "out of host memory");
}

/* ---- each CPU's user space in the one window ---- */

/* Pages whose translations an engine must drop, gathered per CPU. */
struct drops {
    uint32_t *pages[MAX_CPUS];
    size_t n[MAX_CPUS], cap[MAX_CPUS];
    bool failed;
};

static void drop_page(void *ctx, int cpu, uint32_t page)
{
    struct drops *d = ctx;
    if (d->n[cpu] == d->cap[cpu]) {
        size_t cap = d->cap[cpu] ? 2 * d->cap[cpu] : 64;
        uint32_t *p = realloc(d->pages[cpu], cap * sizeof *p);
        if (!p) {
            d->failed = true;
            return;
        }
        d->pages[cpu] = p;
        d->cap[cpu] = cap;
    }
    d->pages[cpu][d->n[cpu]++] = page;
}

/*
 * Outside a run, with paging off for the lookups (quirk 23): through the
 * engine's MMU a page its page tables do not map would fault inside the
 * engine. Dropping with paging off leaves TLB entries made without
 * paging, which would let code run from a page that is not present: the
 * TLB is flushed after (engine_forget_pages does both).
 */
static void apply_drops(struct machine *m, struct drops *d)
{
    for (int c = 0; c < m->ncpus; c++) {
        if (d->n[c]) {
            engine_forget_pages(m->engines[c], d->pages[c], d->n[c]);
            m->smp->code.flushes += d->n[c];
        }
        free(d->pages[c]);
    }
    if (d->failed)
        machine_stop(m, STOP_MACHINE, "out of host memory");
}

/* The switch's translations are dropped before this CPU runs on: the
 * turn ends at the next block (not from inside the hypercall's hook). */
void smp_note_space(struct machine *m, uint32_t pgd)
{
    struct cpu_slot *s = slot(m, m->cpu_id);
    s->space = pgd;
    s->drop_user_code = true;
    m->smp->turn_end = 0;
}

/*
 * The engine has no address translation (engine.h, quirk 12): user space
 * is one host window that holds one process's pages (addrspace.h). The
 * CPUs take turns, so before each turn the window takes the space of the
 * CPU about to run, and that engine's translations of user pages, made
 * from other bytes, go (outside a run). Modeled time is not charged: each
 * real CPU has its own TLB and its space stays loaded there.
 */
static void window_for_turn(struct machine *m)
{
    struct cpu_slot *s = slot(m, m->cpu_id);
    bool drop = s->drop_user_code;
    int err;

    s->drop_user_code = false;
    if (s->space && as_current(m->as) != s->space) {
        err = as_switch_window(m->as, &m->mem, s->space);
        if (err) {
            machine_stop(m, STOP_MACHINE, "cannot give CPU %d its address space %08x: %s",
                         m->cpu_id, s->space, strerror(-err));
            return;
        }
        s->window_swaps++;
        drop = true;
    }
    if (drop) {
        struct drops d = { 0 };
        code_pages_of(&m->smp->code, m->cpu_id, KERNEL_BASE, drop_page, &d);
        apply_drops(m, &d);
    }
}

/* ---- the turns ---- */

bool smp_turn_over(struct machine *m, uint32_t addr)
{
    if (m->insns < m->smp->turn_end)
        return false;
    m->smp->turn_over = true;
    m->smp->turn_eip = addr - code_segment_base(m);
    engine_stop(m->uc);
    return true;
}

/* A stop from the block hook may leave EIP behind (quirk 16) and a fault
 * in flight (quirks 1 and 26): both are put right, as for a debugger's
 * pause. */
bool smp_turn_resume(struct machine *m)
{
    if (!m->smp || !m->smp->turn_over)
        return false;
    m->smp->turn_over = false;
    reg_write(m, UC_X86_REG_EIP, m->smp->turn_eip);
    engine_clear_in_flight(m->uc, m->scratch_ctx, &m->layout);
    return true;
}

/* When a CPU that executed hlt wakes: now for a pending IPI, else at its
 * local timer's next interrupt (CPU 0: or the PIT's); never with
 * interrupts off. */
static uint64_t wake_time(struct machine *m)
{
    if (!(reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF))
        return UINT64_MAX;
    const struct cpu_slot *s = slot(m, m->cpu_id);
    if (highest_pending(s) >= 0)
        return m->cycles;
    uint64_t t = s->timer_deadline;
    if (m->cpu_id == 0 && m->irq.pit_running && m->irq.deadline < t)
        t = m->irq.deadline;
    return t > m->cycles || t == UINT64_MAX ? t : m->cycles;
}

/* The CPU furthest behind: a running one by its time, a halted one by
 * when it wakes; the lowest number on a tie. -1 if none can run. */
static int furthest_behind(struct machine *m)
{
    int best = -1;
    uint64_t best_t = UINT64_MAX;
    for (int c = 0; c < m->ncpus; c++) {
        const struct cpu_slot *s = slot(m, c);
        uint64_t t;
        if (s->state == CPU_RUNNING)
            t = c == m->cpu_id ? m->cycles : s->local.cycles;
        else if (s->state == CPU_HALTED)
            t = s->wake_at;
        else
            continue;
        if (t < best_t) {
            best = c;
            best_t = t;
        }
    }
    return best;
}

/* The running CPU was halted and its time has come: the interrupt that
 * wakes it is delivered at EIP (after the hlt). */
static void wake_up(struct machine *m)
{
    struct cpu_slot *s = slot(m, m->cpu_id);
    uint32_t eip = reg_read(m, UC_X86_REG_EIP);
    s->state = CPU_RUNNING;
    if (s->wake_at > m->cycles) {
        s->idle_cycles += s->wake_at - m->cycles;
        m->cycles = s->wake_at;
    }
    s->wake_at = UINT64_MAX;
    timer_check(m, s);
    int v = highest_pending(s);
    if (v >= 0)
        deliver_ipi(m, v, eip);
    else if (m->cpu_id == 0 && !irq_halt(m))
        s->state = CPU_HALTED;
}

/* Translations other CPUs made of code this turn's writes changed. */
static void drop_stale(struct machine *m)
{
    struct drops d = { 0 };
    code_pages_changed(&m->smp->code, &m->mem, m->cpu_id, drop_page, &d);
    apply_drops(m, &d);
}

/*
 * One turn: SMP_QUANTUM_INSNS instructions (to the next block boundary),
 * or up to a hlt. A run can end sooner (a fault raised, a hook's stop);
 * the turn goes on from there.
 */
static bool run_turn(struct machine *m, bool (*run_slice)(struct machine *m))
{
    uint64_t start = m->insns;
    uint32_t start_eip = reg_read(m, UC_X86_REG_EIP);
    m->smp->turn_end = start + SMP_QUANTUM_INSNS;
    while (m->stop == STOP_NONE) {
        uint64_t before = m->insns;
        uint32_t eip = reg_read(m, UC_X86_REG_EIP);
        if (run_slice(m))
            return true;
        if (m->paused || m->run_paused)
            return false;
        uint64_t done = m->insns - start;
        if (done >= SMP_QUANTUM_INSNS ||
            (m->insns == before && reg_read(m, UC_X86_REG_EIP) == eip))
            break;
    }
    /* A turn that ran nothing will run nothing next time either: the
     * engine returns without raising the fault it met (quirk 26). */
    if (m->stop == STOP_NONE && !m->paused && !m->run_paused && m->insns == start &&
        reg_read(m, UC_X86_REG_EIP) == start_eip)
        machine_stop(m, STOP_MACHINE, "the engine makes no progress at eip %08x "
                     "(engine quirk 26, docs/smp.md)", start_eip);
    return false;
}

int smp_run(struct machine *m, bool (*run_slice)(struct machine *m))
{
    while (m->stop == STOP_NONE && !m->paused && !m->run_paused) {
        int c = furthest_behind(m);
        if (c < 0) {
            machine_stop(m, STOP_MACHINE, "the machine halted: every CPU is in hlt with "
                         "nothing to wake it (CPU 0 at eip %08x)",
                         engine_reg_read(m->engines[0], UC_X86_REG_EIP));
            break;
        }
        smp_switch(m, c);
        struct cpu_slot *s = slot(m, c);
        if (s->state == CPU_HALTED) {
            wake_up(m);
            continue;
        }
        window_for_turn(m);
        if (m->stop != STOP_NONE)
            break;
        uint64_t insns = m->insns;
        bool halted = run_turn(m, run_slice);
        s->insns += m->insns - insns;
        drop_stale(m);
        if (m->stop == STOP_MACHINE && c != 0) {
            char why[sizeof m->message];
            memcpy(why, m->message, sizeof why);
            snprintf(m->message, sizeof m->message, "CPU %d%s: %.440s", c,
                     s->online ? "" : " failed during start-up", why);
        }
        if (halted && m->stop == STOP_NONE) {
            s->state = CPU_HALTED;
            s->wake_at = wake_time(m);
        }
    }
    return 0;
}

/* ---- reports ---- */

/* Each CPU's modeled time, and the rule that sums them (docs/smp.md):
 * busy = cycles - idle; the machine's time is the latest CPU's. */
static uint64_t smp_cpu_cycles(const struct machine *m, int c)
{
    return c == m->cpu_id ? m->cycles : m->smp->cpus[c].local.cycles;
}

/*
 * The rule (docs/smp.md): each CPU's clock is its modeled cycles from its
 * STARTUP; a CPU still in hlt at the end (or never started) is idle up to
 * the machine's time, the latest clock. Busy = clock - start - idle; the
 * sum of busy cycles is the work all CPUs did, the machine time how long
 * it took.
 */
void smp_figures(const struct machine *m, struct smp_cpu_figures *per_cpu, uint64_t *latest,
                 uint64_t *busy_sum)
{
    *latest = *busy_sum = 0;
    for (int c = 0; c < m->ncpus; c++)
        if (smp_cpu_cycles(m, c) > *latest)
            *latest = smp_cpu_cycles(m, c);
    for (int c = 0; c < m->ncpus; c++) {
        const struct cpu_slot *s = &m->smp->cpus[c];
        const struct cpu_local *l = c == m->cpu_id ? &m->local : &s->local;
        uint64_t idle = s->idle_cycles + (c == 0 ? m->irq.idle_cycles : 0);
        uint64_t end = s->state == CPU_RUNNING ? l->cycles : *latest;
        if (s->state != CPU_RUNNING)
            idle += *latest - (l->cycles > s->started_at ? l->cycles : s->started_at);
        uint64_t busy = end > idle + s->started_at ? end - idle - s->started_at : 0;
        *busy_sum += busy;
        per_cpu[c] = (struct smp_cpu_figures){ .busy = busy, .idle = idle, .insns = s->insns,
                                               .user_insns = l->user_insns, .ipis = s->ipis,
                                               .timer_taken = s->timer_taken };
    }
}

void smp_report(const struct machine *m, FILE *f, const char *prefix)
{
    struct smp_cpu_figures fig[MAX_CPUS];
    uint64_t latest, busy_sum;
    smp_figures(m, fig, &latest, &busy_sum);
    for (int c = 0; c < m->ncpus; c++)
        fprintf(f, "%scpu %d: %" PRIu64 " busy cycles, %" PRIu64 " idle in hlt, %" PRIu64
                " instructions (%" PRIu64 " in user mode), %" PRIu64 " IPIs and %" PRIu64
                " local timer interrupts taken\n", prefix, c, centi_whole(fig[c].busy),
                centi_whole(fig[c].idle), fig[c].insns, fig[c].user_insns, fig[c].ipis,
                fig[c].timer_taken);
    fprintf(f, "%s%d CPUs: %" PRIu64 " cycles of machine time (the latest CPU's clock), %"
            PRIu64 " busy cycles summed over the CPUs (docs/smp.md)\n",
            prefix, m->ncpus, centi_whole(latest), centi_whole(busy_sum));
}
