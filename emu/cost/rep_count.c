/* The count a rep op finds, from its block's entry (rep_count.h). */
#include "cost/rep_count.h"

/* The general register a Capstone register is part of, in encoding order
 * (EAX ECX EDX EBX ESP EBP ESI EDI), or -1. */
static int gpr_of(unsigned r)
{
    switch (r) {
    case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH: return 0;
    case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH: return 1;
    case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH: return 2;
    case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL: case X86_REG_BH: return 3;
    case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL: return 4;
    case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL: return 5;
    case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL: return 6;
    case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL: return 7;
    default: return -1;
    }
}

/* A whole 32-bit general register, or -1. */
static int gpr32_of(unsigned r)
{
    static const unsigned full[8] = { X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
                                      X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI };
    int g = gpr_of(r);
    return g >= 0 && full[g] == r ? g : -1;
}

static bool push_op(struct rep_count *rc, enum rep_count_op op, uint32_t imm)
{
    if (rc->nops == REP_COUNT_MAX_OPS)
        return false;
    rc->op[rc->nops] = (uint8_t)op;
    rc->imm[rc->nops++] = imm;
    return true;
}

/* What an instruction whose destination is ECX does to the recipe; false
 * if the recipe cannot follow it. written: the registers written before. */
static bool follow(const cs_insn *in, unsigned written, struct rep_count *rc)
{
    const cs_x86 *x = &in->detail->x86;
    if (x->op_count < 1 || x->operands[0].type != X86_OP_REG ||
        x->operands[0].reg != X86_REG_ECX)
        return false;
    bool imm = x->op_count == 2 && x->operands[1].type == X86_OP_IMM;
    uint32_t v = imm ? (uint32_t)x->operands[1].imm : 0;
    int from = x->op_count == 2 && x->operands[1].type == X86_OP_REG
             ? gpr32_of(x->operands[1].reg) : -1;
    switch (in->id) {
    case X86_INS_MOV:
        if (imm) {
            *rc = (struct rep_count){ .src = REP_COUNT_CONST, .base = v, .from = rc->from };
            return true;
        }
        if (from == 1)
            return true;
        if (from < 0 || (written >> from & 1))
            return false;
        *rc = (struct rep_count){ .src = (uint8_t)from, .from = rc->from };
        return true;
    case X86_INS_XOR: case X86_INS_SUB:
        if (from == 1) {   /* xor %ecx,%ecx */
            *rc = (struct rep_count){ .src = REP_COUNT_CONST, .base = 0, .from = rc->from };
            return true;
        }
        return imm && in->id == X86_INS_SUB && push_op(rc, REP_OP_ADD, 0u - v);
    case X86_INS_SHR: case X86_INS_SAR: case X86_INS_SHL: case X86_INS_SAL: {
        if (x->op_count == 2 && !imm)
            return false;   /* by %cl */
        enum rep_count_op op = in->id == X86_INS_SHR ? REP_OP_SHR
                             : in->id == X86_INS_SAR ? REP_OP_SAR : REP_OP_SHL;
        return push_op(rc, op, (x->op_count == 1 ? 1 : v) & 31);
    }
    case X86_INS_AND: return imm && push_op(rc, REP_OP_AND, v);
    case X86_INS_ADD: return imm && push_op(rc, REP_OP_ADD, v);
    case X86_INS_INC: return x->op_count == 1 && push_op(rc, REP_OP_ADD, 1);
    case X86_INS_DEC: return x->op_count == 1 && push_op(rc, REP_OP_ADD, 0xffffffffu);
    default: return false;
    }
}

/* Whether the recipe can go on through *in; written: the registers
 * written since the recipe's start. */
static bool step(csh cs, const cs_insn *in, bool special, unsigned *written,
                 struct rep_count *rc)
{
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (special || in->id == X86_INS_POPAL || in->id == X86_INS_POPAW ||
        cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
        return false;
    unsigned now = 0;
    for (uint8_t k = 0; k < nwr; k++) {
        int g = gpr_of(wr[k]);
        if (g >= 0)
            now |= 1u << g;
    }
    if ((now & 2) && !follow(in, *written, rc))
        return false;
    *written |= now;
    return true;
}

/* A recipe that cannot go on through insns[i] starts again there, with
 * the registers as they are then (a load into EAX, then mov %eax,%ecx:
 * the count is EAX before the mov), or, failing that too, after it. */
void rep_count_analyse(csh cs, const cs_insn *insns, size_t n, const bool *special,
                       struct rep_count *rc)
{
    unsigned written = 0;
    *rc = (struct rep_count){ .src = 1 };   /* ECX itself */
    for (size_t i = 0; i + 1 < n; i++) {
        if (step(cs, &insns[i], special[i], &written, rc))
            continue;
        written = 0;
        *rc = (struct rep_count){ .src = 1, .from = (uint16_t)i };
        if (step(cs, &insns[i], special[i], &written, rc))
            continue;
        written = 0;
        *rc = (struct rep_count){ .src = 1, .from = (uint16_t)(i + 1) };
    }
}

uint32_t rep_count_eval(const struct rep_count *rc, uint32_t src_value)
{
    uint32_t v = rc->src == REP_COUNT_CONST ? rc->base : src_value;
    for (uint8_t i = 0; i < rc->nops; i++) {
        uint32_t k = rc->imm[i];
        switch (rc->op[i]) {
        case REP_OP_SHR: v >>= k; break;
        case REP_OP_SAR: v = (uint32_t)((int32_t)v >> k); break;
        case REP_OP_SHL: v <<= k; break;
        case REP_OP_AND: v &= k; break;
        default: v += k; break;
        }
    }
    return v;
}
