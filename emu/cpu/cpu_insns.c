/*
 * The instructions whose result is the CPU model's: CPUID answers as the
 * modeled part (engine.h, quirk 11), the TSC counts modeled cycles, the
 * SYSENTER MSRs exist only where SEP does, and in/out obey IOPL (quirk 6).
 * rdtsc, rdmsr, wrmsr, in and out run through per-address code hooks
 * (quirk 8) that the execution loop puts on each one it decodes; so do rep
 * string ops, which are charged as they run (machine.h).
 */
#include "cpu/cpu_insns.h"
#include "machine/charge.h"
#include "cost/centi.h"
#include <string.h>
#include "cpu/sysenter.h"
#include "cpu/trap.h"

/* A 12-character vendor string as CPUID leaf 0 returns it: EBX, EDX, ECX. */
static void vendor_regs(uint32_t *b, uint32_t *c, uint32_t *d, const char *s12)
{
    memcpy(b, s12, 4);
    memcpy(d, s12 + 4, 4);
    memcpy(c, s12 + 8, 4);
}

int on_cpuid(uc_engine *uc, void *user)
{
    struct machine *m = user;
    (void)uc;
    uint32_t leaf = reg_read(m, UC_X86_REG_EAX);
    uint32_t a = 0, b = 0, c = 0, d = 0;
    const struct cpu_model *model = m->cpu.model;

    if (leaf == 0) {
        a = model->max_leaf;
        vendor_regs(&b, &c, &d, model->vendor);
    } else if (leaf == 1) {
        a = cpu_signature(&m->cpu);
        b = (uint32_t)m->cpu_id << 24;   /* the initial APIC ID */
        d = cpu_features(&m->cpu);
    } else if (leaf == 0x80000000u && model->brand) {
        a = 0x80000004u;
    } else if (leaf == 0x80000001u && model->brand) {
        d = model->ext_features_edx;
    } else if (leaf >= 0x80000002u && leaf <= 0x80000004u && model->brand) {
        char brand[48] = { 0 };
        strncpy(brand, model->brand, sizeof brand - 1);
        const char *p = brand + 16 * (leaf - 0x80000002u);
        memcpy(&a, p, 4);
        memcpy(&b, p + 4, 4);
        memcpy(&c, p + 8, 4);
        memcpy(&d, p + 12, 4);
    }
    reg_write(m, UC_X86_REG_EAX, a);
    reg_write(m, UC_X86_REG_EBX, b);
    reg_write(m, UC_X86_REG_ECX, c);
    reg_write(m, UC_X86_REG_EDX, d);
    return 1;
}

/* The TSC of the running CPU: its modeled cycles, skewed as --tsc-skew says. */
static uint64_t tsc_at(struct machine *m, uint32_t addr)
{
    return tsc_skew_apply(&m->opts->tsc_skew[m->cpu_id], centi_whole(cycles_before(m, addr)));
}

/* Skip the 2-byte instruction insns[index] of the current block, whose
 * code hook this is: EIP is at it (engine.h, quirk 16). */
static void skip_insn(struct machine *m, uint32_t index)
{
    truncate_current_block(m, index + 1);
    reg_write(m, UC_X86_REG_EIP, reg_read(m, UC_X86_REG_EIP) + 2);
}

/* Give EDX:EAX a value and skip the instruction. */
static void complete_with(struct machine *m, uint32_t index, uint64_t v)
{
    reg_write(m, UC_X86_REG_EAX, (uint32_t)v);
    reg_write(m, UC_X86_REG_EDX, (uint32_t)(v >> 32));
    skip_insn(m, index);
}

/* #GP(0) at the instruction at the linear address addr. */
static void gp0_at(struct machine *m, uint32_t index, uint32_t addr)
{
    truncate_current_block(m, index);
    raise_fault(m, X86_VEC_GP, true, 0, addr - code_segment_base(m));
}

static void msr_access(struct machine *m, const struct insn *in, uint32_t index)
{
    /* Outside ring 0 the engine raises #GP(0) itself. */
    if ((reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) != 0)
        return;
    uint32_t msr = reg_read(m, UC_X86_REG_ECX);
    bool is_read = (in->flags & SPECIAL_RDMSR) != 0;
    if (msr == MSR_IA32_TSC) {
        /* This model's TSC is its cycle count: reads see it, writes are
         * dropped. */
        if (is_read)
            complete_with(m, index, tsc_at(m, in->addr));
        else
            skip_insn(m, index);
        return;
    }
    bool sep_msr = msr >= MSR_IA32_SYSENTER_CS && msr <= MSR_IA32_SYSENTER_EIP;
    /* the engine keeps these three itself; sysexit reads them. The Pentium
     * Pro has them too (Linux wrote them there when its check let SEP on). */
    if (sep_msr && (m->cpu.sep_works || m->cpu.sep_unsupported))
        return;
    gp0_at(m, index, in->addr);
}

/*
 * Unicorn 2.0.1 dropped the I/O permission check. With CPL > IOPL the CPU
 * would consult the TSS I/O bitmap; the guest's TSS has none, so: #GP(0).
 */
static void io_permission(struct machine *m, const struct insn *in, uint32_t index)
{
    uint32_t cpl = reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL;
    uint32_t iopl = (reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_IOPL) >> X86_EFLAGS_IOPL_SHIFT;
    if (cpl <= iopl)
        return;
    gp0_at(m, index, in->addr);
}

/*
 * A ring-3 iret (engine.h, quirk 21): the CPU ignores VM in the EFLAGS
 * image below CPL 0, the engine does not, so the image hides it while the
 * engine runs the iret. A 16-bit iret pops no VM.
 */
static void iret_at_cpl3(struct machine *m, const struct insn *in)
{
    uint32_t cs_base, ss_base;
    bool cs32, ss32, toggled = false;
    uint8_t op[2];
    if ((reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) != 3 ||
        (reg_read(m, UC_X86_REG_EFLAGS) & X86_EFLAGS_VM) ||
        !segment_of(m, UC_X86_REG_CS, &cs_base, &cs32) ||
        !segment_of(m, UC_X86_REG_SS, &ss_base, &ss32) ||
        opcode_at(m, in->addr, op, &toggled) < 0 || op[0] != 0xcf || cs32 == toggled)
        return;
    uint32_t esp = reg_read(m, UC_X86_REG_ESP);
    uint32_t off = ss32 ? esp + 8 : ((esp + 8) & 0xffff);
    if (!ss32 && off > 0xfffc)
        return;
    engine_iret_hide_vm(&m->mem, ss_base + off, &m->iret_patch);
}

void on_special_insn(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    uint32_t index;
    (void)uc;
    (void)size;
    const struct insn *in = block_find_insn(m->cur_block, (uint32_t)address, &index);
    if (in && (in->flags & SPECIAL_WRMSR))
        m->sep_msrs.known = false;
    if (m->stop != STOP_NONE || machine_hold_insn(m, (uint32_t)address) || !in)
        return;
    /* not charged: the block was cut before it (run.c) */
    if (index >= m->cur_limit)
        return;
    /* what ran before it, and this one, is told before it acts */
    machine_tell_insns(m, index + 1);
    if (rep_count_here(m, in))
        charge_rep_early(m, m->cur_block);
    else if (in->flags & SPECIAL_REP) {
        if (!rep_early(m, in))
            charge_rep(m, in, reg_read(m, UC_X86_REG_ECX));
    }
    else if (in->flags & SPECIAL_SYSEXIT)
        before_sysexit(m, in);
    else if (in->flags & SPECIAL_RDTSC) {
        machine_notify_tsc(m, in->addr);
        complete_with(m, index, tsc_at(m, in->addr));
    }
    else if (in->flags & (SPECIAL_RDMSR | SPECIAL_WRMSR))
        msr_access(m, in, index);
    else if (in->flags & SPECIAL_IO)
        io_permission(m, in, index);
    else if (in->flags & SPECIAL_IRET)
        iret_at_cpl3(m, in);
}
