/*
 * The PC's interval timer and interrupt controller, as much of them as a
 * Linux 2.5 kernel programs: PIT channel 0 in mode 2 (rate generator) or
 * 0 (one shot), loaded lobyte then hibyte; the master 8259A's
 * initialization words (ICW1-4), its mask, and non-specific or specific
 * end of interrupt. The slave's initialization is accepted and ignored:
 * nothing is wired to it.
 *
 * The PIT counts modeled time: its 1193182 Hz input becomes cycles of the
 * CPU model's clock, so the same program gets its ticks at the same
 * instructions on every run. An interrupt is taken before the first
 * instruction that starts at or after its request in modeled time: at a
 * block's start, or inside a block at a one-shot code hook the block hook
 * puts there (run.c); never right after sti, and only with EFLAGS.IF set.
 */
#include "cpu/irq.h"
#include "cost/centi.h"
#include <string.h>
#include "cpu/trap.h"

void irq_init(struct machine *m)
{
    memset(&m->irq, 0, sizeof m->irq);
    m->irq.deadline = UINT64_MAX;
    m->irq.imr = 0xff;
}

static uint64_t clock_hz(const struct machine *m)
{
    return (uint64_t)m->cpu.model->clock_mhz * 1000000u;
}

static void pit_start(struct machine *m)
{
    struct irq_state *q = &m->irq;
    uint64_t count = q->reload ? q->reload : 65536;

    q->period = cycles_to_centi(count * clock_hz(m)) / PIT_HZ;
    if (q->period == 0)
        q->period = 1;
    q->deadline = m->cycles + q->period;
    q->pit_running = true;
}

static void pit_command(struct machine *m, uint32_t cmd)
{
    struct irq_state *q = &m->irq;

    if ((cmd >> 6) != 0 || (cmd & PIT_CMD_CH0_LOHI) == 0)
        return;   /* another channel, or a latch command: nothing to model */
    q->pit_mode = (uint8_t)((cmd >> PIT_MODE_SHIFT) & 7);
    q->pit_byte = 0;
    q->pit_running = false;
    q->deadline = UINT64_MAX;
}

static void pit_count(struct machine *m, uint32_t v)
{
    struct irq_state *q = &m->irq;

    if (q->pit_byte == 0) {
        q->reload = (uint16_t)((q->reload & 0xff00) | (v & 0xff));
        q->pit_byte = 1;
        return;
    }
    q->reload = (uint16_t)((q->reload & 0x00ff) | ((v & 0xff) << 8));
    q->pit_byte = 0;
    pit_start(m);
}

static void pic_command(struct machine *m, uint32_t v)
{
    struct irq_state *q = &m->irq;

    if (v & PIC_ICW1) {
        q->icw_step = (v & PIC_ICW1_ICW4) ? 4 : 3;   /* the last word expected */
        q->icw_step = (uint8_t)(q->icw_step << 4 | 2);  /* next: ICW2 */
        q->imr = 0;
        q->irr = q->isr = 0;
        return;
    }
    if ((v & 0x18) != 0)
        return;   /* OCW3: read registers, special mask: not modeled */
    if ((v & 0xe0) == PIC_EOI) {
        q->isr &= (uint8_t)(q->isr - 1);   /* the highest priority: the lowest bit */
    } else if ((v & 0xe0) == 0x60) {
        q->isr &= (uint8_t)~(1u << (v & 7));
    }
}

static void pic_data(struct machine *m, uint32_t v)
{
    struct irq_state *q = &m->irq;
    uint8_t next = q->icw_step & 0xf, last = q->icw_step >> 4;

    if (next == 0) {
        q->imr = (uint8_t)v;
        return;
    }
    if (next == 2)
        q->vector_base = (uint8_t)(v & 0xf8);
    q->icw_step = next >= last ? 0 : (uint8_t)(last << 4 | (next + 1));
}

bool irq_port_out(struct machine *m, uint32_t port, uint32_t value)
{
    switch (port) {
    case PIT_CMD_PORT: pit_command(m, value & 0xff); return true;
    case PIT_CH0_PORT: pit_count(m, value); return true;
    case PIC_MASTER_CMD: pic_command(m, value & 0xff); return true;
    case PIC_MASTER_DATA: pic_data(m, value & 0xff); return true;
    case PIC_SLAVE_CMD: case PIC_SLAVE_DATA: return true;
    default: return false;
    }
}

/* The PIT reached its terminal count: IRQ 0 is requested (one request
 * however many counts passed: the 8259A latches a level, not a number). */
static void pit_due(struct machine *m)
{
    struct irq_state *q = &m->irq;

    q->irr |= 1u << IRQ_TIMER;
    if (q->pit_mode == 0) {
        q->deadline = UINT64_MAX;
        q->pit_running = false;
        return;
    }
    while (q->deadline <= m->cycles)
        q->deadline += q->period;
}

/* IRQ 0 is the only input: it waits while it is masked or in service */
static bool pic_open(const struct irq_state *q)
{
    return q->icw_step == 0 && q->vector_base && !(q->imr & 1u << IRQ_TIMER) &&
           !(q->isr & 1u << IRQ_TIMER);
}

static bool deliverable(const struct machine *m)
{
    return pic_open(&m->irq) && (m->irq.irr & 1u << IRQ_TIMER);
}

static void deliver(struct machine *m, uint32_t return_eip)
{
    struct irq_state *q = &m->irq;

    q->irr &= (uint8_t)~(1u << IRQ_TIMER);
    q->isr |= 1u << IRQ_TIMER;
    q->delivered++;
    m->delivery_depth = 0;
    deliver_interrupt(m, q->vector_base + IRQ_TIMER, EVENT_EXTERNAL, false, 0, return_eip,
                      return_eip);
}

bool irq_check(struct machine *m, uint32_t addr)
{
    if (m->cycles >= m->irq.deadline)
        pit_due(m);
    if (!m->irq.irr || m->sti_shadow || !deliverable(m))
        return false;
    if (!(reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF))
        return false;
    deliver(m, addr - code_segment_base(m));
    return true;
}

uint32_t irq_cut(struct machine *m, const struct block *b, uint32_t limit)
{
    const struct irq_state *q = &m->irq;
    bool requested = q->irr & 1u << IRQ_TIMER;
    if (!pic_open(q) || !(reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF))
        return limit;
    uint64_t at = m->cycles + b->insns[0].cost;
    for (uint32_t k = 1; k < limit; at += b->insns[k++].cost)
        if (requested || at >= q->deadline)
            return k;
    return limit;
}

/* ---- tickless idle ---- */

static uint64_t tsc_of(const struct machine *m, uint64_t centicycles)
{
    return tsc_skew_apply(&m->opts->tsc_skew[m->cpu_id], centi_whole(centicycles));
}

/* The kernel's clock gains no lattice step in (tsc, tsc + margin]: the
 * tick at tsc leaves it as one that read the TSC a little later would. */
static bool no_step_after(uint64_t tsc, uint64_t base, uint32_t step)
{
    if (tsc < base || step == 0)
        return false;
    uint64_t r = (tsc - base) % step;
    return r == 0 || step - r > HC_NOHZ_MARGIN;
}

/* The ticks to drop: the last, n, early enough and clear of a step; a
 * few tries down from the latest (the PIT's period and the clock's step
 * differ by 0.015%, so a step moves past the margin within a few hundred
 * ticks). 0 if none. */
#define NOHZ_TRIES 4096

static uint64_t ticks_to_drop(const struct machine *m, uint64_t next, uint64_t base,
                              uint32_t step)
{
    const struct irq_state *q = &m->irq;
    uint64_t limit = cycles_to_centi(next - HC_NOHZ_MARGIN);
    if (next <= HC_NOHZ_MARGIN || centi_whole(limit) != next - HC_NOHZ_MARGIN || limit < q->deadline)
        return 0;
    uint64_t n = (limit - q->deadline) / q->period + 1;
    if (n > UINT32_MAX)
        n = UINT32_MAX;   /* the answer's width; the next idle drops more */
    for (int i = 0; n > 0 && i < NOHZ_TRIES; i++, n--) {
        uint64_t at = tsc_of(m, q->deadline + (n - 1) * q->period);
        if (at + HC_NOHZ_MARGIN <= next && no_step_after(at, base, step))
            return n;
    }
    return 0;
}

/*
 * Modeled time is counted in centicycles in 64 bits: 2^64 / 100 cycles,
 * 2.4 years at 2.4 GHz. Nothing can run before a timer past half of
 * that (a sleep of 10^9 s): the run cannot go on, as when its budget is
 * spent. True if so.
 */
static bool past_the_clock(struct machine *m, uint64_t next)
{
    uint64_t max = UINT64_MAX / 2 / CENTI_PER_CYCLE;
    if (next < max)
        return false;
    machine_stop(m, STOP_BUDGET, "every process waits for a timer past %llu s of modeled "
                 "time, more than the machine counts", (unsigned long long)(max /
                 ((uint64_t)m->cpu.model->clock_mhz * 1000000u)));
    return true;
}

void irq_nohz(struct machine *m, struct hc_nohz *h)
{
    struct irq_state *q = &m->irq;
    uint64_t n = 0;
    if (past_the_clock(m, (uint64_t)h->next_hi << 32 | h->next_lo))
        return;
    if (!m->smp && q->pit_running && q->pit_mode == 2 && !(q->irr & 1u << IRQ_TIMER) &&
        q->deadline != UINT64_MAX && q->deadline > m->cycles)
        n = ticks_to_drop(m, (uint64_t)h->next_hi << 32 | h->next_lo,
                          (uint64_t)h->base_hi << 32 | h->base_lo, h->tick_cycles);
    h->ticks = (uint32_t)n;
    if (!n)
        return;
    uint64_t last = tsc_of(m, q->deadline + (n - 1) * q->period);
    h->last_lo = (uint32_t)last;
    h->last_hi = (uint32_t)(last >> 32);
    q->deadline += n * q->period;
    q->dropped += n;
}

bool irq_halt(struct machine *m)
{
    struct irq_state *q = &m->irq;

    if ((reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) != 0 ||
        !(reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF))
        return false;
    if (!(q->irr & 1u << IRQ_TIMER)) {
        if (!q->pit_running || q->deadline == UINT64_MAX)
            return false;
        if (q->deadline > m->cycles) {
            q->idle_cycles += q->deadline - m->cycles;
            m->cycles = q->deadline;
        }
        pit_due(m);
    }
    q->halts++;
    if (!deliverable(m))
        return false;
    deliver(m, reg_read(m, UC_X86_REG_EIP));
    return true;
}
