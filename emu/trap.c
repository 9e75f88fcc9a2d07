/*
 * Interrupt and exception delivery through the guest's IDT. Unicorn 2.0.1
 * only reports the vector (UC_HOOK_INTR); everything the CPU does between
 * "int n" or a fault and the first instruction of the handler is here.
 */
#include "trap.h"
#include <string.h>

bool vector_has_error_code(int vector)
{
    return vector >= 0 && vector < 32 && ((X86_VEC_ERROR_CODE_MASK >> vector) & 1);
}

static uint32_t access_byte(uint64_t desc)
{
    return (uint32_t)(desc >> X86_DESC_ACCESS_SHIFT) & 0xff;
}

static bool read_descriptor(struct machine *m, uint32_t table_base, uint32_t table_limit,
                            uint16_t index8, uint64_t *desc)
{
    if ((uint32_t)index8 + 7 > table_limit)
        return false;
    const uint8_t *p = guest_ptr(&m->mem, table_base + index8, 8);
    if (!p)
        return false;
    memcpy(desc, p, 8);
    return true;
}

static bool push_frame(struct machine *m, uint32_t esp, const uint32_t *words, int n)
{
    uint8_t *p = guest_ptr(&m->mem, esp - 4u * (uint32_t)n, 4u * (uint32_t)n);
    if (!p || !in_kernel_ram(esp - 4u * (uint32_t)n))
        return false;
    /* words[0] is pushed first, so it ends up at the highest address */
    for (int i = 0; i < n; i++)
        memcpy(p + 4 * (n - 1 - i), &words[i], 4);
    return true;
}

/* A fault raised while delivering: the architectural double/triple fault
 * chain is not modeled; the machine stops with what went wrong. */
static void delivery_failed(struct machine *m, int vector, const char *why)
{
    machine_stop(m, STOP_MACHINE,
                 "cannot deliver vector %d: %s (the CPU would double-fault)", vector, why);
}

void deliver_interrupt(struct machine *m, int vector, enum event_kind kind,
                       bool has_error, uint32_t error_code, uint32_t return_eip,
                       uint32_t origin_eip)
{
    bool ext = kind != EVENT_SOFTWARE;
    uint32_t cs = reg_read(m, UC_X86_REG_CS);
    uint32_t cpl = cs & X86_SEL_RPL;
    uc_x86_mmr idtr = { 0 }, gdtr = { 0 }, tr = { 0 };
    uc_reg_read(m->uc, UC_X86_REG_IDTR, &idtr);
    uc_reg_read(m->uc, UC_X86_REG_GDTR, &gdtr);
    uint64_t gate;

    if (m->delivery_depth > 2) {
        delivery_failed(m, vector, "nested faults during delivery");
        return;
    }
    if (!read_descriptor(m, (uint32_t)idtr.base, idtr.limit, (uint16_t)(vector * 8), &gate)) {
        raise_fault(m, X86_VEC_GP, true, X86_IDT_ERROR((uint32_t)vector, ext), origin_eip);
        return;
    }
    uint32_t access = access_byte(gate);
    uint32_t type = access & (X86_AR_S | 0xf);   /* S must be clear in a gate */
    uint32_t dpl = (access >> X86_AR_DPL_SHIFT) & 3;
    bool present = (access & X86_AR_P) != 0;
    uint16_t sel = (uint16_t)(gate >> 16);
    uint32_t offset = (uint32_t)(gate & 0xffff) | (uint32_t)((gate >> 32) & 0xffff0000);

    if (type != X86_TYPE_INTR_GATE32 && type != X86_TYPE_TRAP_GATE32) {
        raise_fault(m, X86_VEC_GP, true, X86_IDT_ERROR((uint32_t)vector, ext), origin_eip);
        return;
    }
    /* A fault in delivering a software int points at the int itself. */
    if (kind == EVENT_SOFTWARE && dpl < cpl) {
        raise_fault(m, X86_VEC_GP, true, X86_IDT_ERROR((uint32_t)vector, 0), origin_eip);
        return;
    }
    if (!present) {
        raise_fault(m, X86_VEC_NP, true, X86_IDT_ERROR((uint32_t)vector, ext), origin_eip);
        return;
    }
    uint64_t code_desc;
    const uint32_t present_code = X86_AR_P | X86_AR_S | X86_AR_CODE;
    if ((sel & ~X86_SEL_RPL) == 0 || (sel & X86_SEL_TI) ||
        !read_descriptor(m, (uint32_t)gdtr.base, gdtr.limit, sel & ~(X86_SEL_TI | X86_SEL_RPL),
                         &code_desc) ||
        (access_byte(code_desc) & present_code) != present_code) {
        delivery_failed(m, vector, "the gate's code segment is not a present code segment");
        return;
    }
    uint32_t new_cpl = (access_byte(code_desc) >> X86_AR_DPL_SHIFT) & 3;
    if (new_cpl > cpl) {
        delivery_failed(m, vector, "the gate's code segment is less privileged");
        return;
    }

    uint32_t eflags = reg_read(m, UC_X86_REG_EFLAGS);
    uint32_t esp = reg_read(m, UC_X86_REG_ESP);
    uint32_t frame[6];
    int n = 0;
    uint32_t new_esp = esp;
    uint16_t new_ss = 0;
    if (new_cpl < cpl) {
        uc_reg_read(m->uc, UC_X86_REG_TR, &tr);
        const uint8_t *tss = guest_ptr(&m->mem, (uint32_t)tr.base, 104);
        if (!tss || tr.limit < 103) {
            delivery_failed(m, vector, "no valid TSS for the stack switch");
            return;
        }
        uint16_t ss0;
        memcpy(&new_esp, tss + 4, 4);
        memcpy(&ss0, tss + 8, 2);
        new_ss = ss0;
        frame[n++] = reg_read(m, UC_X86_REG_SS);
        frame[n++] = esp;
    }
    frame[n++] = eflags;
    frame[n++] = cs;
    frame[n++] = return_eip;
    if (has_error)
        frame[n++] = error_code;
    if (!push_frame(m, new_esp, frame, n)) {
        delivery_failed(m, vector, "the kernel stack is not in kernel memory");
        return;
    }
    new_esp -= 4u * (uint32_t)n;

    if (new_cpl < cpl) {
        if (!engine_enter_ring0(m->uc, m->scratch_ctx, &m->layout, sel, new_ss, new_esp)) {
            delivery_failed(m, vector, "the TSS ring-0 stack segment is unusable");
            return;
        }
    } else {
        if ((cs & ~X86_SEL_RPL) != (sel & ~X86_SEL_RPL)) {
            uint32_t sel32 = sel;
            if (uc_reg_write(m->uc, UC_X86_REG_CS, &sel32) != UC_ERR_OK) {
                delivery_failed(m, vector, "cannot load the gate's code segment");
                return;
            }
        }
        reg_write(m, UC_X86_REG_ESP, new_esp);
    }
    eflags &= ~(X86_EFLAGS_TF | X86_EFLAGS_NT | X86_EFLAGS_RF | X86_EFLAGS_VM);
    if (type == X86_TYPE_INTR_GATE32)
        eflags &= ~X86_EFLAGS_IF;
    reg_write(m, UC_X86_REG_EFLAGS, eflags);
    reg_write(m, UC_X86_REG_EIP, offset);
    machine_notify_delivery(m, &(struct delivery_event){ vector, kind, cpl, error_code,
                                                         return_eip });
    charge(m, new_cpl < cpl ? (kind == EVENT_SOFTWARE ? CLASS_INT : CLASS_EXCEPTION)
                            : CLASS_INT_SAME, 1);
}

void raise_fault(struct machine *m, int vector, bool has_error, uint32_t error_code,
                 uint32_t eip)
{
    m->exceptions++;
    m->delivery_depth++;
    deliver_interrupt(m, vector, EVENT_FAULT, has_error, error_code, eip, eip);
    m->delivery_depth--;
}

/* The software interrupt that ends the current block, if it raised intno. */
static const struct insn *software_int(struct machine *m, uint32_t intno, uint32_t eip)
{
    const struct block *b = m->cur_block;
    if (!b || b->ninsns == 0)
        return NULL;
    const struct insn *last = &b->insns[m->cur_limit ? m->cur_limit - 1 : 0];
    if ((last->flags & INSN_SOFTINT) && last->int_vector == intno &&
        last->addr + last->len == eip)
        return last;
    return NULL;
}

void raise_reported_ud(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP), index;
    m->reports.ud = false;
    if (block_find_insn(m->cur_block, eip, &index))
        truncate_current_block(m, index);
    m->delivery_depth = 0;
    raise_fault(m, X86_VEC_UD, false, 0, eip);
}

/* Not present; a write or a read (an instruction fetch reads); user or
 * supervisor by the CPL. */
void raise_wrapped_pf(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP), index;
    bool user = (reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) != 0;
    m->reports.wrap = false;
    if (block_find_insn(m->cur_block, eip, &index))
        truncate_current_block(m, index);
    reg_write(m, UC_X86_REG_CR2, m->reports.wrap_addr);
    m->delivery_depth = 0;
    raise_fault(m, X86_VEC_PF, true,
                (user ? X86_PF_USER : 0) | (m->reports.wrap_write ? X86_PF_WRITE : 0), eip);
}

void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    struct machine *m = user;
    (void)uc;
    uint32_t eip = reg_read(m, UC_X86_REG_EIP);
    const struct insn *soft = software_int(m, intno, eip);

    if (soft) {
        /* The gate decides what an int costs; a fault in delivery comes
         * back to the int instruction itself. */
        m->delivery_depth = 0;
        deliver_interrupt(m, (int)intno, EVENT_SOFTWARE, false, 0, eip, soft->addr);
        return;
    }
    uint32_t error_code = engine_take_exception(m->uc, m->scratch_ctx, &m->layout);
    if (intno == X86_VEC_DF) {
        machine_stop(m, STOP_MACHINE, "double fault at eip %08x", eip);
        return;
    }
    uint32_t index;
    if (block_find_insn(m->cur_block, eip, &index))
        truncate_current_block(m, index);
    m->delivery_depth = 0;
    bool has_error = vector_has_error_code((int)intno);
    raise_fault(m, (int)intno, has_error, has_error ? error_code : 0, eip);
}
