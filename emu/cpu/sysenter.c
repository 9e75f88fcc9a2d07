/*
 * sysenter: the engine only calls a hook (engine.h, quirk 9); the CPU's
 * part is here. Where SEP works, the CPU loads flat ring-0 CS and SS from
 * SYSENTER_CS, ESP and EIP from their MSRs, and clears IF, RF and VM; it
 * saves nothing. Where the part has no SEP, sysenter is #UD.
 *
 * The Pentium Pro reports SEP but "does not support" the instructions
 * (Intel). They exist: with SYSENTER_CS = 0 its sysenter is #GP(0) like any
 * part's (SIGSEGV on steppings 1, 7 and 9, linux-kernel, Aug 2003). What
 * they do once a kernel sets the MSRs is undocumented; the one report
 * (Jim Houston, stepping 9, 21 Aug 2003) is a system call that completed
 * and a double fault on its sysexit. The model does that, no more.
 */
#include "cpu/sysenter.h"
#include "machine/charge.h"
#include "cpu/trap.h"

/* The sysenter of the current block: the engine ends a block after it. */
static const struct insn *current_sysenter(struct machine *m, uint32_t *index)
{
    const struct block *b = m->cur_block;
    if (!b || m->cur_limit == 0)
        return NULL;
    *index = m->cur_limit - 1;
    const struct insn *in = &b->insns[*index];
    return in->cls == CLASS_SYSENTER ? in : NULL;
}

/*
 * lock sysenter: the engine runs it as a sysenter; Capstone does not
 * decode it, so the block's decode ends before it (or, first in its
 * block, there is no decoded block: the hook's EIP, the block's start,
 * is its address); the CPU raises #UD (a lock prefix on an instruction
 * that cannot take one). *in becomes it.
 */
static bool locked_sysenter(struct machine *m, struct insn *in)
{
    const struct block *b = m->cur_block;
    uint32_t start = code_segment_base(m) + reg_read(m, UC_X86_REG_EIP);
    uint8_t op[2];
    if (b && b->addr == start && m->cur_limit)
        in->addr = b->insns[m->cur_limit - 1].addr + b->insns[m->cur_limit - 1].len;
    else
        in->addr = start;
    int skip = opcode_at(m, in->addr, op, NULL);
    if (skip <= 0 || op[0] != 0x0f || op[1] != 0x34)
        return false;
    in->len = (uint8_t)(skip + 2);
    for (int i = 0; i < skip; i++) {
        const uint8_t *p = guest_ptr(&m->mem, in->addr + (uint32_t)i, 1);
        if (p && *p == 0xf0)
            return true;
    }
    return false;
}

/*
 * The fault goes to its handler, where raise_fault has pointed EIP. With
 * TF set the engine still raises the single-step trap it owes a completed
 * sysenter (engine.h, quirk 9): a faulting one did not complete, so that
 * trap is dropped.
 */
static void sysenter_fault(struct machine *m, uint32_t index, int vector,
                           bool has_error, const struct insn *in)
{
    uint32_t addr = in->addr, len = in->len;   /* the block is cut below */
    truncate_current_block(m, index);
    m->drop_step_trap = (reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_TF) != 0;
    raise_fault(m, vector, has_error, 0, addr - code_segment_base(m));
    engine_sysenter_resume(m->uc, reg_read(m, UC_X86_REG_EIP), len);
}

/*
 * Only a wrmsr changes the SYSENTER MSRs, and with the cycle model every
 * wrmsr has a code hook, which forgets them (cpu_insns.c): they are read
 * through the API once after each. Without the model there are no code
 * hooks, and they are read every time.
 */
static void read_sep_msrs(struct machine *m)
{
    if (m->sep_msrs.known)
        return;
    m->sep_msrs.cs = (uint32_t)engine_read_msr(m->uc, MSR_IA32_SYSENTER_CS);
    m->sep_msrs.esp = (uint32_t)engine_read_msr(m->uc, MSR_IA32_SYSENTER_ESP);
    m->sep_msrs.eip = (uint32_t)engine_read_msr(m->uc, MSR_IA32_SYSENTER_EIP);
    m->sep_msrs.known = !m->opts->no_cycle_model;
}

void on_sysenter(uc_engine *uc, void *user)
{
    struct machine *m = user;
    uint32_t index;
    struct insn locked;
    (void)uc;
    machine_tell_insns(m, m->cur_limit);   /* the sysenter ends its block */
    const struct insn *in = current_sysenter(m, &index);
    if (!in && locked_sysenter(m, &locked)) {
        sysenter_fault(m, UINT32_MAX, X86_VEC_UD, false, &locked);   /* no block cut */
        return;
    }
    /* Without the block hook (--no-cycle-model) only a sysenter that
     * cannot fault can be modeled: a fault needs the instruction's address,
     * which the engine does not give this hook. */
    if (!in && !(m->opts->no_cycle_model && m->cpu.sep_works)) {
        machine_stop(m, STOP_MACHINE, "sysenter outside a decoded block");
        return;
    }
    if (!m->cpu.sep_works && !m->cpu.sep_unsupported) {
        sysenter_fault(m, index, X86_VEC_UD, false, in);
        return;
    }
    /* The selector is the MSR's low 16 bits. */
    read_sep_msrs(m);
    uint32_t cs = m->sep_msrs.cs & 0xffff & ~X86_SEL_RPL;
    if (cs == 0 || !(reg_read(m, UC_X86_REG_CR0) & X86_CR0_PE)) {
        if (!in) {
            machine_stop(m, STOP_MACHINE, "sysenter with SYSENTER_CS = 0");
            return;
        }
        sysenter_fault(m, index, X86_VEC_GP, true, in);
        return;
    }
    machine_notify_sysenter(m, in ? in->addr : 0);
    /*
     * The CPU loads flat ring-0 CS = SYSENTER_CS and SS = SYSENTER_CS + 8
     * without reading the GDT; the engine can only load from the GDT, whose
     * entries 12 and 13 are exactly those flat segments.
     */
    uint32_t entry = m->sep_msrs.eip;
    /* EIP less the length the engine adds (engine.h, quirk 9); without a
     * decoded block (--no-cycle-model), a plain 0f 34 */
    struct engine_ring0_entry e = {
        (uint16_t)cs, (uint16_t)(cs + 8), m->sep_msrs.esp, entry - (in ? in->len : 2u),
        X86_EFLAGS_IF | X86_EFLAGS_RF | X86_EFLAGS_VM
    };
    if (!engine_enter_ring0_at(m->uc, m->scratch_ctx, &m->layout, &m->ring0, &e)) {
        machine_stop(m, STOP_MACHINE, "sysenter: SYSENTER_CS %#x does not name flat "
                     "ring-0 code and data segments in the GDT", cs);
        return;
    }
    machine_code_look_at_entry(m, entry);
}


void before_sysexit(struct machine *m, const struct insn *in)
{
    if (!m->cpu.sep_unsupported || (reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) != 0)
        return;
    machine_stop(m, STOP_MACHINE, "double fault at the sysexit at eip %08x: this Pentium "
                 "Pro (signature %#x) does not support sysenter/sysexit, and what they do "
                 "once a kernel sets the SYSENTER MSRs is undocumented; Jim Houston's "
                 "stepping-9 part double-faulted here (linux-kernel, 21 Aug 2003)",
                 in->addr, cpu_signature(&m->cpu));
}
