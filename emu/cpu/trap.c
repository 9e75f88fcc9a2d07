/*
 * Interrupt and exception delivery through the guest's IDT. Unicorn 2.0.1
 * only reports the vector (UC_HOOK_INTR); everything the CPU does between
 * "int n" or a fault and the first instruction of the handler is here.
 */
#include "cpu/trap.h"
#include "machine/charge.h"
#include <string.h>

static bool vector_has_error_code(int vector)
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

static uint32_t descriptor_base(uint64_t d)
{
    return (uint32_t)((d >> 16) & 0xffffff) | (uint32_t)((d >> 56) << 24);
}

/* The descriptor sel names, in the GDT or the LDT; false for a null
 * selector or one past its table. */
static bool selector_descriptor(struct machine *m, uint16_t sel, uint64_t *desc)
{
    uc_x86_mmr table = { 0 };
    if ((sel & ~X86_SEL_RPL) == 0)
        return false;
    uc_reg_read(m->uc, (sel & X86_SEL_TI) ? UC_X86_REG_LDTR : UC_X86_REG_GDTR, &table);
    return read_descriptor(m, (uint32_t)table.base, table.limit,
                           sel & ~(X86_SEL_TI | X86_SEL_RPL), desc);
}

/*
 * The engine's addresses (block and code hooks, the decoded blocks) are
 * linear; EIP is an offset in CS. They differ in a code segment with a
 * base, which a program can build with set_thread_area. The engine keeps
 * the base it loaded hidden; the descriptor it came from says the same,
 * because the kernel returns through iret, reloading CS, whenever it
 * changes a descriptor.
 */
bool segment_of(struct machine *m, int reg, uint32_t *base, bool *big)
{
    uint64_t d;
    if (!selector_descriptor(m, (uint16_t)reg_read(m, reg), &d))
        return false;
    *base = descriptor_base(d);
    *big = ((d >> X86_DESC_FLAGS_SHIFT) & X86_DESC_DB) != 0;
    return true;
}

uint32_t code_segment_base(struct machine *m)
{
    uint32_t base = 0;
    bool big;
    return segment_of(m, UC_X86_REG_CS, &base, &big) ? base : 0;
}

uint64_t engine_code_address(struct machine *m, uint32_t linear)
{
    uint32_t base = code_segment_base(m);
    return (uint64_t)base + (uint32_t)(linear - base);
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

/*
 * Into ring 0 as e says; eflags: the flags before. From the interrupt hook
 * (between_blocks) the engine looks up the next block itself, so EIP can
 * go into the entry's one context restore (engine.h, quirk 14); from a
 * block or code hook only an EIP write through the API keeps the engine
 * from running on in the block it was in.
 */
static bool enter_kernel(struct machine *m, const struct engine_ring0_entry *e,
                         uint32_t eflags, bool between_blocks)
{
    if (between_blocks)
        return engine_enter_ring0_at(m->uc, m->scratch_ctx, &m->layout, &m->ring0, e);
    if (!engine_enter_ring0(m->uc, m->scratch_ctx, &m->layout, &m->ring0, e->cs, e->ss,
                            e->esp))
        return false;
    reg_write(m, UC_X86_REG_EFLAGS, eflags & ~e->eflags_clear);
    reg_write(m, UC_X86_REG_EIP, e->eip);
    return true;
}

static void deliver(struct machine *m, int vector, enum event_kind kind, bool has_error,
                    uint32_t error_code, uint32_t return_eip, uint32_t origin_eip,
                    bool between_blocks)
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

    uint32_t clear = X86_EFLAGS_TF | X86_EFLAGS_NT | X86_EFLAGS_RF | X86_EFLAGS_VM;
    if (type == X86_TYPE_INTR_GATE32)
        clear |= X86_EFLAGS_IF;
    if (new_cpl < cpl) {
        struct engine_ring0_entry e = { sel, new_ss, new_esp, offset, clear };
        if (!enter_kernel(m, &e, eflags, between_blocks)) {
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
        reg_write(m, UC_X86_REG_EFLAGS, eflags & ~clear);
        reg_write(m, UC_X86_REG_EIP, offset);
    }
    machine_notify_delivery(m, &(struct delivery_event){ vector, kind, cpl, error_code,
                                                         return_eip, esp });
    charge(m, new_cpl < cpl ? (kind == EVENT_SOFTWARE ? CLASS_INT : CLASS_EXCEPTION)
                            : CLASS_INT_SAME, 1);
}

void deliver_interrupt(struct machine *m, int vector, enum event_kind kind,
                       bool has_error, uint32_t error_code, uint32_t return_eip,
                       uint32_t origin_eip)
{
    deliver(m, vector, kind, has_error, error_code, return_eip, origin_eip, false);
}

void raise_fault(struct machine *m, int vector, bool has_error, uint32_t error_code,
                 uint32_t eip)
{
    m->exceptions++;
    m->delivery_depth++;
    deliver_interrupt(m, vector, EVENT_FAULT, has_error, error_code, eip, eip);
    m->delivery_depth--;
}

/* The software interrupt that ends the current block, if it raised intno;
 * end is the linear address after it. */
static const struct insn *software_int(struct machine *m, uint32_t intno, uint32_t end)
{
    const struct block *b = m->cur_block;
    if (!b || b->ninsns == 0)
        return NULL;
    const struct insn *last = &b->insns[m->cur_limit ? m->cur_limit - 1 : 0];
    if ((last->flags & INSN_SOFTINT) && last->int_vector == intno &&
        last->addr + last->len == end)
        return last;
    return NULL;
}

/* How long the int n that ended at the linear address end was, for one
 * the decoded block did not show (16-bit code decodes differently). */
static uint32_t software_int_length(struct machine *m, uint32_t end, uint32_t intno)
{
    const uint8_t *p = guest_ptr(&m->mem, end - 2, 2);
    if (!p)
        return 2;
    if ((intno == X86_VEC_BP && p[1] == 0xcc) || (intno == X86_VEC_OF && p[1] == 0xce))
        return 1;
    return 2;
}

/* Legacy prefixes: operand and address size, rep, lock, segments. */
static bool is_prefix(uint8_t b)
{
    return b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0xf0 || b == 0x2e ||
           b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65;
}

int opcode_at(struct machine *m, uint32_t addr, uint8_t op[2], bool *opsize)
{
    bool toggled = false;
    for (int skip = 0; skip < 14; skip++) {
        const uint8_t *p = guest_ptr(&m->mem, addr + (uint32_t)skip, 2);
        if (!p)
            return -1;
        if (!is_prefix(p[0])) {
            op[0] = p[0];
            op[1] = p[1];
            if (opsize)
                *opsize = toggled;
            return skip;
        }
        toggled |= p[0] == 0x66;
    }
    return -1;
}

/*
 * The engine reports two instructions that are not invalid as #UD
 * (engine.h, quirk 19): "int $6", a software interrupt through gate 6
 * (from ring 3, #GP on its DPL-0 gate), and "icebp" (f1, INT1), which
 * raises #DB as a trap with no gate DPL check, as hardware would.
 */
void raise_reported_ud(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP), base = code_segment_base(m), index;
    uint8_t op[2];
    int skip = opcode_at(m, base + eip, op, NULL);
    m->reports.ud = false;
    m->delivery_depth = 0;
    if (skip >= 0 && op[0] == 0xcd && op[1] == X86_VEC_UD) {
        deliver_interrupt(m, X86_VEC_UD, EVENT_SOFTWARE, false, 0, eip + (uint32_t)skip + 2,
                          eip);
        return;
    }
    if (skip >= 0 && op[0] == 0xf1) {
        m->exceptions++;
        m->delivery_depth++;
        deliver_interrupt(m, X86_VEC_DB, EVENT_FAULT, false, 0, eip + (uint32_t)skip + 1, eip);
        m->delivery_depth--;
        return;
    }
    if (block_find_insn(m->cur_block, base + eip, &index))
        truncate_current_block(m, index);
    raise_fault(m, X86_VEC_UD, false, 0, eip);
}

/* ---- running up to an instruction ---- */

/*
 * machine_run_until's pause is armed for a whole run, through the page
 * faults of demand paging and the fetch faults that need a run_to of their
 * own: one of those sets the pause aside, and the pause comes back when it
 * is disarmed.
 */
void arm_run_to(struct machine *m, enum run_to_why why, uint32_t from, uint32_t to)
{
    if (m->run_to_why == RUN_TO_PAUSE && why != RUN_TO_PAUSE) {
        m->pause_held = true;
        m->pause_to = m->run_to;
        m->pause_from = m->run_to_from;
    }
    m->run_to_why = why;
    m->run_to_from = from;
    m->run_to = to;
}

/* The stop is compiled into the code translated meanwhile, up to and
 * including a block of its own at run_to (engine.h, quirk 18): that
 * translation goes too. */
void disarm_run_to(struct machine *m)
{
    if (m->run_to_why == RUN_TO_NONE)
        return;
    if (m->run_to >= m->run_to_from)
        engine_retranslate(m->uc, m->run_to_from, m->run_to - m->run_to_from + 1);
    m->run_to_why = RUN_TO_NONE;
    if (m->pause_held) {
        /* code translated meanwhile lacks the pause's stop: drop it, at
         * any privilege (the pause is in kernel code) */
        struct engine_range r = { m->pause_from, m->pause_to - m->pause_from + 1 };
        m->pause_held = false;
        arm_run_to(m, RUN_TO_PAUSE, m->pause_from, m->pause_to);
        engine_retranslate_ranges(m->uc, m->scratch_ctx, &r, 1);
    }
}

/* Disarm all but machine_run_until's pause. */
static void disarm_but_pause(struct machine *m)
{
    if (m->run_to_why != RUN_TO_PAUSE)
        disarm_run_to(m);
}

/* The first instruction from the linear address from (straight-line code,
 * as the engine translates it) that does not end below limit: 0 if none
 * can be found (undecodable bytes, or a jump first). */
static uint32_t insn_reaching(struct machine *m, uint32_t from, uint64_t limit)
{
    static const uint8_t enders[] = { CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET, CS_GRP_INT,
                                      CS_GRP_IRET };
    uint64_t addr = from;
    while (addr < limit && addr - from <= 2 * PAGE_SIZE) {
        uint8_t buf[16];
        uint32_t n = 0;
        for (; n < sizeof buf && addr + n <= UINT32_MAX; n++) {
            const uint8_t *p = guest_ptr(&m->mem, (uint32_t)(addr + n), 1);
            if (!p)
                break;
            buf[n] = *p;
        }
        cs_insn *insn = NULL;
        if (n == 0 || cs_disasm(m->blocks.capstone, buf, n, addr, 1, &insn) != 1)
            return 0;
        bool ends = false;
        for (size_t i = 0; i < sizeof enders; i++)
            ends = ends || cs_insn_group(m->blocks.capstone, insn, enders[i]);
        uint64_t next = addr + insn->size;
        cs_free(insn, 1);
        if (next > limit)
            return (uint32_t)addr;
        if (ends)
            return 0;
        addr = next;
    }
    return addr == limit ? (uint32_t)addr : 0;
}

/*
 * The engine fetches a block's code when it translates it, so a fetch
 * that faults partway (code running into a supervisor page, an unmapped
 * one, or past 4 GiB) is raised at the block's first instruction, before
 * any of it ran (engine.h, quirk 20). The CPU runs the instructions before
 * the one that needs the page: so does the machine, by running up to that
 * one, where the fetch faults again, now at the right instruction. A fault
 * that comes back at the same place is a real one.
 */
static bool refetch_up_to(struct machine *m, uint32_t linear, uint64_t fault)
{
    if (m->run_to_why == RUN_TO_FETCH && m->run_to_from == linear)
        return false;
    if (fault <= linear || fault - linear > 2 * PAGE_SIZE)
        return false;
    uint32_t at = insn_reaching(m, linear, fault);
    if (at <= linear)
        return false;
    arm_run_to(m, RUN_TO_FETCH, linear, at);
    engine_stop(m->uc);
    return true;
}

/* Where a fetch that faulted for the block at linear was: CR2, or past
 * 4 GiB for code that ran off the end of the address space, whose CR2 has
 * wrapped to page 0 (engine.h, quirk 5). */
static uint64_t fetch_fault_address(struct machine *m, uint32_t linear)
{
    uint32_t cr2 = reg_read(m, UC_X86_REG_CR2);
    return cr2 < linear ? (uint64_t)cr2 + ENGINE_WRAP : cr2;
}

void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    struct machine *m = user;
    (void)uc;
    engine_iret_restore(&m->mem, &m->iret_patch);
    uint32_t eip = reg_read(m, UC_X86_REG_EIP), base = code_segment_base(m), at;
    /* what ran is told first: through a faulting instruction (at EIP), or
     * the block up to where it stopped (a trap or int n: EIP after it) */
    machine_tell_insns(m, block_find_insn(m->cur_block, base + eip, &at) ? at + 1
                                                                        : m->cur_limit);
    const struct insn *soft = software_int(m, intno, base + eip);

    if (soft) {
        /* The gate decides what an int costs; a fault in delivery comes
         * back to the int instruction itself. */
        m->delivery_depth = 0;
        deliver(m, (int)intno, EVENT_SOFTWARE, false, 0, eip, soft->addr - base, true);
        machine_code_look_at_entry(m, reg_read(m, UC_X86_REG_EIP));
        return;
    }
    struct engine_exception x;
    engine_take_exception(m->uc, m->scratch_ctx, &m->layout, &x);
    m->delivery_depth = 0;
    if (intno == X86_VEC_DB && m->drop_step_trap) {
        m->drop_step_trap = false;
        return;
    }
    if (x.software) {
        /* An int n its block's decode did not show (quirk 2). */
        deliver(m, (int)intno, EVENT_SOFTWARE, false, 0, eip,
                eip - software_int_length(m, base + eip, intno), true);
        machine_code_look_at_entry(m, reg_read(m, UC_X86_REG_EIP));
        return;
    }
    if (intno == X86_VEC_DF) {
        machine_stop(m, STOP_MACHINE, "double fault at eip %08x", eip);
        return;
    }
    if (intno == X86_VEC_PF && !(x.error_code & X86_PF_WRITE) &&
        refetch_up_to(m, base + eip, fetch_fault_address(m, base + eip)))
        return;
    disarm_but_pause(m);
    uint32_t index;
    if (block_find_insn(m->cur_block, base + eip, &index))
        truncate_current_block(m, index);
    bool has_error = vector_has_error_code((int)intno);
    raise_fault(m, (int)intno, has_error, has_error ? x.error_code : 0, eip);
}
