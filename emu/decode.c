#include "decode.h"
#include <stdlib.h>
#include <string.h>
#include "../guest/x86.h"

int block_cache_init(struct block_cache *bc, const uint32_t *cost_table)
{
    memset(bc, 0, sizeof *bc);
    bc->cost_table = cost_table;
    bc->capacity = 4096;
    bc->slots = calloc(bc->capacity, sizeof *bc->slots);
    if (!bc->slots)
        return -1;
    if (cs_open(CS_ARCH_X86, CS_MODE_32, &bc->capstone) != CS_ERR_OK) {
        free(bc->slots);
        return -1;
    }
    cs_option(bc->capstone, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

void block_free(struct block *b)
{
    if (!b)
        return;
    free(b->bytes);
    free(b->insns);
    free(b->text);
    free(b);
}

void block_cache_free(struct block_cache *bc)
{
    for (uint32_t i = 0; i < bc->capacity; i++)
        block_free(bc->slots[i]);
    free(bc->slots);
    if (bc->capstone)
        cs_close(&bc->capstone);
    memset(bc, 0, sizeof *bc);
}

static bool is_segment_reg(x86_reg r)
{
    return r == X86_REG_CS || r == X86_REG_DS || r == X86_REG_ES ||
           r == X86_REG_FS || r == X86_REG_GS || r == X86_REG_SS;
}

static bool has_prefix(const cs_x86 *x, uint8_t p)
{
    for (int i = 0; i < 4; i++)
        if (x->prefix[i] == p)
            return true;
    return false;
}

static bool in_group(const cs_insn *insn, int group)
{
    for (int i = 0; i < insn->detail->groups_count; i++)
        if (insn->detail->groups[i] == group)
            return true;
    return false;
}

/* Memory traffic of an ordinary instruction, from Capstone's operand access. */
static int memory_class(const cs_x86 *x)
{
    bool rd = false, wr = false;
    for (int i = 0; i < x->op_count; i++) {
        if (x->operands[i].type != X86_OP_MEM)
            continue;
        rd |= (x->operands[i].access & CS_AC_READ) != 0;
        wr |= (x->operands[i].access & CS_AC_WRITE) != 0;
    }
    if (rd && wr)
        return CLASS_RMW;
    if (wr)
        return CLASS_STORE;
    if (rd)
        return CLASS_LOAD;
    return CLASS_ALU;
}

static bool writes_segment(const cs_x86 *x)
{
    return x->op_count > 0 && x->operands[0].type == X86_OP_REG &&
           is_segment_reg(x->operands[0].reg);
}

int classify_insn(const cs_insn *insn, uint8_t *flags)
{
    const cs_x86 *x = &insn->detail->x86;
    *flags = 0;
    switch (insn->id) {
    case X86_INS_SYSENTER: return CLASS_SYSENTER;
    case X86_INS_SYSEXIT:  return CLASS_SYSEXIT;
    case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO: case X86_INS_INT1:
        *flags |= INSN_SOFTINT;
        return CLASS_INT;
    case X86_INS_IRET: case X86_INS_IRETD: return CLASS_IRET;
    case X86_INS_RDTSC: *flags |= SPECIAL_RDTSC; return CLASS_RDTSC;
    case X86_INS_RDMSR: *flags |= SPECIAL_RDMSR; return CLASS_RDMSR;
    case X86_INS_WRMSR: *flags |= SPECIAL_WRMSR; return CLASS_WRMSR;
    case X86_INS_CPUID: return CLASS_CPUID;
    case X86_INS_IN: case X86_INS_OUT: case X86_INS_INSB: case X86_INS_INSW:
    case X86_INS_INSD: case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD:
        *flags |= SPECIAL_IO;
        return CLASS_IO;
    case X86_INS_PUSHF: case X86_INS_PUSHFD: return CLASS_PUSHF;
    case X86_INS_POPF: case X86_INS_POPFD: return CLASS_POPF;
    case X86_INS_CLI: return CLASS_CLI;
    case X86_INS_STI: return CLASS_STI;
    case X86_INS_LDS: case X86_INS_LES: case X86_INS_LFS: case X86_INS_LGS:
    case X86_INS_LSS: case X86_INS_LJMP: case X86_INS_LCALL: case X86_INS_RETF:
        return CLASS_SEGLOAD;
    case X86_INS_HLT: case X86_INS_LGDT: case X86_INS_LIDT: case X86_INS_LTR:
    case X86_INS_LLDT: case X86_INS_INVLPG: case X86_INS_CLTS: case X86_INS_LMSW:
    case X86_INS_WBINVD: case X86_INS_INVD:
        return CLASS_SYSTEM;
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD:
    case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD:
    case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD:
        /* movsd/cmpsd with operands are the SSE2 forms */
        if (x->op_count > 0 && x->operands[0].type == X86_OP_REG &&
            x->operands[0].reg >= X86_REG_XMM0 && x->operands[0].reg <= X86_REG_XMM31)
            return CLASS_FPU;
        /* A rep string op runs as a block of its own once per iteration
         * (the engine loops on it), so per-element charging is automatic. */
        if (has_prefix(x, X86_PREFIX_REP) || has_prefix(x, X86_PREFIX_REPNE))
            *flags |= INSN_REP;
        return CLASS_STRING;
    case X86_INS_MUL: case X86_INS_IMUL: return CLASS_MUL;
    case X86_INS_DIV: case X86_INS_IDIV: return CLASS_DIV;
    case X86_INS_CALL:
        return x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? CLASS_CALL : CLASS_INDIRECT;
    case X86_INS_JMP:
        return x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? CLASS_BRANCH : CLASS_INDIRECT;
    case X86_INS_RET: return CLASS_RET;
    case X86_INS_PUSH: case X86_INS_PUSHAL: case X86_INS_PUSHAW: return CLASS_PUSH;
    case X86_INS_POP:
        return writes_segment(x) ? CLASS_SEGPOP : CLASS_POP;
    case X86_INS_POPAL: case X86_INS_POPAW: case X86_INS_LEAVE: return CLASS_POP;
    case X86_INS_LEA: case X86_INS_NOP: return CLASS_ALU;
    case X86_INS_UD2: return CLASS_OTHER;
    case X86_INS_MOV:
        if (writes_segment(x))
            return CLASS_SEGLOAD;
        if (x->op_count > 0 && x->operands[0].type == X86_OP_REG &&
            ((x->operands[0].reg >= X86_REG_CR0 && x->operands[0].reg <= X86_REG_CR15) ||
             (x->operands[0].reg >= X86_REG_DR0 && x->operands[0].reg <= X86_REG_DR15)))
            return CLASS_SYSTEM;
        break;
    case X86_INS_XCHG:
        if (memory_class(x) != CLASS_ALU)
            return CLASS_LOCKED; /* xchg with memory locks the bus */
        return CLASS_ALU;
    default:
        break;
    }
    if (in_group(insn, X86_GRP_JUMP))
        return CLASS_BRANCH;
    if (has_prefix(x, X86_PREFIX_LOCK))
        return CLASS_LOCKED;
    if (in_group(insn, X86_GRP_PRIVILEGE))
        return CLASS_SYSTEM;
    for (int g = 0; g < insn->detail->groups_count; g++) {
        int grp = insn->detail->groups[g];
        if (grp == X86_GRP_FPU || grp == X86_GRP_MMX || grp == X86_GRP_SSE1 ||
            grp == X86_GRP_SSE2 || grp == X86_GRP_SSE3 || grp == X86_GRP_SSSE3 ||
            grp == X86_GRP_SSE41 || grp == X86_GRP_SSE42 || grp == X86_GRP_3DNOW)
            return CLASS_FPU;
    }
    return memory_class(x);
}

struct block *block_decode(struct block_cache *bc, uint32_t addr,
                           const uint8_t *code, uint32_t size)
{
    cs_insn *insn = NULL;
    size_t n = cs_disasm(bc->capstone, code, size, addr, 0, &insn);
    struct block *b = calloc(1, sizeof *b);
    if (!b || n == 0) {
        free(b);
        if (insn)
            cs_free(insn, n);
        return NULL;
    }
    b->addr = addr;
    b->size = size;
    b->ninsns = (uint32_t)n;
    b->insns = calloc(n, sizeof *b->insns);
    b->bytes = malloc(size);
    if (!b->insns || !b->bytes) {
        cs_free(insn, n);
        block_free(b);
        return NULL;
    }
    memcpy(b->bytes, code, size);
    for (size_t i = 0; i < n; i++) {
        struct insn *in = &b->insns[i];
        in->addr = (uint32_t)insn[i].address;
        in->len = (uint8_t)insn[i].size;
        in->cls = (uint8_t)classify_insn(&insn[i], &in->flags);
        if (in->flags & INSN_SOFTINT) {
            const cs_x86 *x = &insn[i].detail->x86;
            in->int_vector = insn[i].id == X86_INS_INT3 ? X86_VEC_BP
                           : insn[i].id == X86_INS_INTO ? X86_VEC_OF
                           : insn[i].id == X86_INS_INT1 ? X86_VEC_DB
                           : (uint8_t)x->operands[0].imm;
        }
        /* int n is charged when it is delivered: its cost depends on the gate. */
        if (!(in->flags & INSN_SOFTINT))
            in->cost = bc->cost_table[in->cls];
        b->cost += in->cost;
        b->specials |= in->flags & SPECIALS;
    }
    cs_free(insn, n);
    return b;
}

static uint32_t slot_of(const struct block_cache *bc, uint32_t addr)
{
    return (addr * 2654435761u) & (bc->capacity - 1);
}

static void cache_grow(struct block_cache *bc)
{
    struct block **old = bc->slots;
    uint32_t oldcap = bc->capacity;
    struct block **slots = calloc((size_t)oldcap * 2, sizeof *slots);
    if (!slots)
        return;
    bc->slots = slots;
    bc->capacity = oldcap * 2;
    for (uint32_t i = 0; i < oldcap; i++) {
        if (!old[i])
            continue;
        uint32_t s = slot_of(bc, old[i]->addr);
        while (bc->slots[s])
            s = (s + 1) & (bc->capacity - 1);
        bc->slots[s] = old[i];
    }
    free(old);
}

const struct block *block_lookup(struct block_cache *bc, uint32_t addr,
                                 const uint8_t *code, uint32_t size)
{
    uint32_t s = slot_of(bc, addr);
    while (bc->slots[s] && bc->slots[s]->addr != addr)
        s = (s + 1) & (bc->capacity - 1);
    struct block *b = bc->slots[s];
    if (b && b->size == size && memcmp(b->bytes, code, size) == 0)
        return b;
    struct block *fresh = block_decode(bc, addr, code, size);
    if (!fresh)
        return NULL;
    if (b) {
        block_free(b);
        bc->slots[s] = fresh;
        return fresh;
    }
    bc->slots[s] = fresh;
    if (++bc->count * 2 > bc->capacity)
        cache_grow(bc);
    return fresh;
}

const struct insn *block_find_insn(const struct block *b, uint32_t addr, uint32_t *index)
{
    if (!b)
        return NULL;
    for (uint32_t i = 0; i < b->ninsns; i++) {
        if (b->insns[i].addr == addr) {
            if (index)
                *index = i;
            return &b->insns[i];
        }
    }
    return NULL;
}

/* The text is a memo of the block's own bytes: it changes nothing the block
 * means, so a const block may keep it. */
const char *block_insn_text(struct block_cache *bc, const struct block *cb, uint32_t index)
{
    struct block *b = (struct block *)cb;
    if (index >= b->ninsns)
        return "?";
    if (!b->text) {
        cs_insn *insn = NULL;
        b->text = calloc(b->ninsns, sizeof *b->text);
        if (!b->text)
            return "?";
        size_t n = cs_disasm(bc->capstone, b->bytes, b->size, b->addr, 0, &insn);
        for (uint32_t i = 0; i < b->ninsns; i++) {
            if (i < n && insn[i].address == b->insns[i].addr)
                snprintf(b->text[i], sizeof b->text[i], "%s%s%s", insn[i].mnemonic,
                         insn[i].op_str[0] ? " " : "", insn[i].op_str);
            else
                snprintf(b->text[i], sizeof b->text[i], "?");
        }
        if (insn)
            cs_free(insn, n);
    }
    return b->text[index];
}

uint64_t block_prefix_cost(const struct block *b, uint32_t index)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < index && i < b->ninsns; i++)
        sum += b->insns[i].cost;
    return sum;
}

bool decodable(struct block_cache *bc, const struct guest_memory *mem, uint32_t addr)
{
    const uint8_t *code = guest_ptr(mem, addr, 16);
    cs_insn *insn = NULL;
    if (!code || cs_disasm(bc->capstone, code, 16, addr, 1, &insn) != 1)
        return false;
    cs_free(insn, 1);
    return true;
}

uint32_t first_undecodable(struct block_cache *bc, const struct guest_memory *mem,
                           uint32_t eip)
{
    static const uint8_t enders[] = { CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET, CS_GRP_INT,
                                      CS_GRP_IRET };
    uint32_t addr = eip;
    while (addr - eip < PAGE_SIZE) {
        const uint8_t *code = guest_ptr(mem, addr, 16);
        cs_insn *insn = NULL;
        if (!code || cs_disasm(bc->capstone, code, 16, addr, 1, &insn) != 1)
            return addr;
        bool ends = false;
        for (size_t i = 0; i < sizeof enders; i++)
            ends = ends || cs_insn_group(bc->capstone, insn, enders[i]);
        addr += insn->size;
        cs_free(insn, 1);
        if (ends)
            break;
    }
    return eip;
}
