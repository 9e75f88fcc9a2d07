/* Charging modeled time, and taking it back (charge.h). */
#include "machine/charge.h"

void charge(struct machine *m, int cls, uint64_t count)
{
    if (m->opts->no_cycle_model)
        return;
    m->cycles += (uint64_t)m->cpu.cost[cls] * count;
    m->class_count[cls] += count;
}

void counts_before(struct machine *m, uint32_t addr, uint64_t out[NCLASSES])
{
    uint32_t index;
    fold_counts(m);
    memcpy(out, m->class_count, sizeof m->class_count);
    if (!block_find_insn(m->cur_block, addr, &index))
        return;
    for (uint32_t i = index; i < m->cur_limit; i++)
        if (!insn_charged_later(&m->cur_block->insns[i]))
            out[m->cur_block->insns[i].cls]--;
}

static struct rep_step rep_step_at(const struct machine *m, const struct insn *in,
                                   uint32_t count)
{
    if (in->flags & INSN_ADDR16)
        count &= 0xffff;
    bool continues = m->rep_live && m->rep_addr == in->addr;
    return (struct rep_step){ .start = !continues, .element = count != 0 };
}

struct rep_step rep_step_of(struct machine *m, const struct insn *in)
{
    return rep_step_at(m, in, reg_read(m, UC_X86_REG_ECX));
}

uint64_t rep_step_cost(const struct machine *m, const struct insn *in, struct rep_step s)
{
    return (s.start ? m->cpu.cost[rep_start_class(in->cls)] : 0) +
           (s.element ? m->cpu.cost[in->cls] : 0);
}

static void charge_rep_step(struct machine *m, const struct insn *in, struct rep_step s,
                            int sign)
{
    int start_cls = rep_start_class(in->cls);
    if (s.start) {
        m->cycles += sign * (int64_t)m->cpu.cost[start_cls];
        m->class_count[start_cls] += (uint64_t)(int64_t)sign;
    }
    if (s.element) {
        m->cycles += sign * (int64_t)m->cpu.cost[in->cls];
        m->class_count[in->cls] += (uint64_t)(int64_t)sign;
    }
}

void charge_rep(struct machine *m, const struct insn *in, uint32_t count)
{
    struct rep_step s = rep_step_at(m, in, count);
    charge_rep_step(m, in, s, 1);
    m->rep_charged = in;
    m->rep_step = s;
    /* The engine runs it again only while elements remain. */
    m->rep_addr = in->addr;
    m->rep_live = s.element;
}

void charge_rep_early(struct machine *m, const struct block *b)
{
    static const int regs[8] = { UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX,
                                 UC_X86_REG_EBX, UC_X86_REG_ESP, UC_X86_REG_EBP,
                                 UC_X86_REG_ESI, UC_X86_REG_EDI };
    const struct rep_count *rc = &b->rep;
    uint32_t src = rc->src < 8 ? reg_read(m, regs[rc->src]) : 0;
    charge_rep(m, &b->insns[b->ninsns - 1], rep_count_eval(rc, src));
}

uint64_t cycles_before(struct machine *m, uint32_t addr)
{
    uint32_t index;
    if (!block_find_insn(m->cur_block, addr, &index))
        return m->cycles;
    return m->block_start_cycles + block_prefix_cost(m->cur_block, index);
}

void refund_current_insn(struct machine *m, int cls)
{
    uint64_t cost = m->cpu.cost[cls];
    fold_counts(m);
    if (!m->class_count[cls] || cost > m->cycles - m->block_start_cycles)
        return;
    m->cycles -= cost;
    m->class_count[cls]--;
    m->block_start_cycles -= cost;
}

void truncate_current_block(struct machine *m, uint32_t index)
{
    const struct block *b = m->cur_block;
    if (!b || index >= m->cur_limit)
        return;
    for (uint32_t i = index; i < m->cur_limit; i++) {
        m->cycles -= b->insns[i].cost;
        if (!insn_charged_later(&b->insns[i]))
            m->class_count[b->insns[i].cls]--;
        if (m->rep_charged == &b->insns[i]) {
            charge_rep_step(m, m->rep_charged, m->rep_step, -1);
            m->rep_charged = NULL;
        }
    }
    m->insns -= m->cur_limit - index;
    if (b->addr < KERNEL_BASE)
        m->user_insns -= m->cur_limit - index;
    m->cur_limit = index;
}
