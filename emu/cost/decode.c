#include "cost/decode.h"
#include <stdlib.h>
#include <string.h>
#include "../guest/x86.h"

int block_cache_init(struct block_cache *bc, const uint32_t *cost_table)
{
    memset(bc, 0, sizeof *bc);
    bc->cost_table = cost_table;
    bc->capacity = 16384;
    bc->shift = 32 - __builtin_ctz(bc->capacity);
    bc->slots = calloc(bc->capacity, sizeof *bc->slots);
    if (!bc->slots)
        return -1;
    if (cs_open(CS_ARCH_X86, CS_MODE_32, &bc->capstone) != CS_ERR_OK) {
        free(bc->slots);
        return -1;
    }
    cs_option(bc->capstone, CS_OPT_DETAIL, CS_OPT_ON);
    bc->scratch = cs_malloc(bc->capstone);
    if (!bc->scratch) {
        cs_close(&bc->capstone);
        free(bc->slots);
        return -1;
    }
    return 0;
}

void block_free(struct block *b)
{
    if (!b)
        return;
    free(b->tally);
    free(b->bytes);
    free(b->insns);
    free(b->text);
    free(b->memo);
    free(b);
}

void block_fold(struct block_cache *bc)
{
    for (uint32_t i = 0; i < bc->npending; i++) {
        struct block *b = bc->pending[i];
        for (uint32_t t = 0; t < b->ntally; t++)
            bc->counts[b->tally[t].cls] += (uint64_t)b->runs * b->tally[t].n;
        b->runs = 0;
    }
    bc->npending = 0;
}

void block_cache_free(struct block_cache *bc)
{
    for (uint32_t i = 0; i < bc->capacity; i++)
        block_free(bc->slots[i]);
    free(bc->slots);
    free(bc->memo_heads);
    free(bc->memo);
    if (bc->scratch)
        cs_free(bc->scratch, 1);
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
static bool reads_memory(const cs_x86 *x, bool *writes)
{
    bool rd = false, wr = false;
    for (int i = 0; i < x->op_count; i++) {
        if (x->operands[i].type != X86_OP_MEM)
            continue;
        rd |= (x->operands[i].access & CS_AC_READ) != 0;
        wr |= (x->operands[i].access & CS_AC_WRITE) != 0;
    }
    *writes = wr;
    return rd;
}

/* alu, load, store or rmw: the class of a form without a row of its own. */
static int memory_class(const cs_x86 *x)
{
    bool wr;
    bool rd = reads_memory(x, &wr);
    return rd && wr ? CLASS_RMW : wr ? CLASS_STORE : rd ? CLASS_LOAD : CLASS_ALU;
}

static int op_type(const cs_x86 *x, int i)
{
    return i < x->op_count ? x->operands[i].type : X86_OP_INVALID;
}

static bool writes_segment(const cs_x86 *x)
{
    return op_type(x, 0) == X86_OP_REG && is_segment_reg(x->operands[0].reg);
}

static bool is_control_reg(x86_reg r)
{
    return (r >= X86_REG_CR0 && r <= X86_REG_CR15) || (r >= X86_REG_DR0 && r <= X86_REG_DR15);
}

/* add, sub, logic, cmp, test, inc, dec, neg, not: by where the operands are. */
static int arith_class(const cs_x86 *x)
{
    bool wr;
    bool rd = reads_memory(x, &wr);
    if (wr)
        return CLASS_RMW;
    if (rd)
        return CLASS_ALULOAD;
    /* 66h with a 16-bit immediate: the prefix changes the instruction's
     * length, which stalls the P6 decoders (docs/cost-model.md). */
    if (has_prefix(x, X86_PREFIX_OPSIZE) && x->encoding.imm_size == 2)
        return CLASS_ALU16IMM;
    return CLASS_ALU;
}

static int string_class(const cs_insn *insn, uint16_t *flags)
{
    const cs_x86 *x = &insn->detail->x86;
    /* movsd/cmpsd with operands are the SSE2 forms */
    if (op_type(x, 0) == X86_OP_REG && x->operands[0].reg >= X86_REG_XMM0 &&
        x->operands[0].reg <= X86_REG_XMM31)
        return CLASS_FPU;
    if (!has_prefix(x, X86_PREFIX_REP) && !has_prefix(x, X86_PREFIX_REPNE))
        return CLASS_STRING;
    /* charged as it runs: start-up once, then each element (machine.h) */
    *flags |= SPECIAL_REP;
    if (has_prefix(x, X86_PREFIX_ADDRSIZE))
        *flags |= INSN_ADDR16;
    switch (insn->id) {
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
        return CLASS_REP_MOVS;
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
        return CLASS_REP_STOS;
    default:
        return CLASS_REP_OTHER;
    }
}

static int classify_insn(const cs_insn *insn, uint16_t *flags)
{
    const cs_x86 *x = &insn->detail->x86;
    *flags = 0;
    switch (insn->id) {
    case X86_INS_SYSENTER: return CLASS_SYSENTER;
    case X86_INS_SYSEXIT:  *flags |= SPECIAL_SYSEXIT; return CLASS_SYSEXIT;
    case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO: case X86_INS_INT1:
        *flags |= INSN_SOFTINT;
        return CLASS_INT;
    case X86_INS_IRET: case X86_INS_IRETD: *flags |= SPECIAL_IRET; return CLASS_IRET;
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
    case X86_INS_CLD: case X86_INS_STD: return CLASS_CLD;
    case X86_INS_LJMP: case X86_INS_LCALL:   /* through a TSS: a task switch */
        *flags |= SPECIAL_PAGING;
        return CLASS_FAR;
    case X86_INS_LDS: case X86_INS_LES: case X86_INS_LFS: case X86_INS_LGS:
    case X86_INS_LSS: case X86_INS_RETF:
        return CLASS_FAR;
    case X86_INS_INVLPG:
        *flags |= SPECIAL_PAGING;
        return CLASS_SYSTEM;
    case X86_INS_HLT: case X86_INS_LGDT: case X86_INS_LIDT: case X86_INS_LTR:
    case X86_INS_LLDT: case X86_INS_CLTS: case X86_INS_LMSW:
    case X86_INS_WBINVD: case X86_INS_INVD:
        return CLASS_SYSTEM;
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD:
    case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD:
    case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD:
        return string_class(insn, flags);
    case X86_INS_MUL: return CLASS_MUL;
    case X86_INS_IMUL: return x->op_count == 1 ? CLASS_MUL : CLASS_IMUL;
    case X86_INS_DIV: case X86_INS_IDIV: return CLASS_DIV;
    case X86_INS_CALL:
        return op_type(x, 0) == X86_OP_IMM ? CLASS_CALL
             : op_type(x, 0) == X86_OP_MEM ? CLASS_CALLMEM : CLASS_CALLREG;
    case X86_INS_JMP:
        return op_type(x, 0) == X86_OP_IMM ? CLASS_JMP : CLASS_JMPIND;
    /* Capstone 4 files these under branch_relative but not jump */
    case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE: return CLASS_BRANCH;
    case X86_INS_RET: return CLASS_RET;
    case X86_INS_PUSH:
        if (op_type(x, 0) == X86_OP_REG && is_segment_reg(x->operands[0].reg))
            return CLASS_PUSHSEG;
        return op_type(x, 0) == X86_OP_MEM ? CLASS_PUSHMEM : CLASS_PUSH;
    case X86_INS_PUSHAL: case X86_INS_PUSHAW: return CLASS_PUSH;
    case X86_INS_POP:
        return writes_segment(x) ? CLASS_SEGPOP : CLASS_POP;
    case X86_INS_POPAL: case X86_INS_POPAW: case X86_INS_LEAVE: return CLASS_POP;
    case X86_INS_UD2: return CLASS_OTHER;
    case X86_INS_LEA: case X86_INS_NOP: return CLASS_ALU;   /* no memory access */
    case X86_INS_MOV:
        if (writes_segment(x))
            return CLASS_SEGLOAD;
        if (op_type(x, 0) == X86_OP_REG && is_control_reg(x->operands[0].reg)) {
            x86_reg r = x->operands[0].reg;
            if (r == X86_REG_CR3)
                *flags |= SPECIAL_CR3;
            else if (r == X86_REG_CR0 || r == X86_REG_CR4)
                *flags |= SPECIAL_PAGING;
            return CLASS_SYSTEM;
        }
        if (op_type(x, 1) == X86_OP_REG && is_control_reg(x->operands[1].reg))
            return CLASS_SYSTEM;
        if (op_type(x, 0) == X86_OP_MEM)
            return op_type(x, 1) == X86_OP_IMM ? CLASS_STOREIMM : CLASS_STORE;
        return memory_class(x);
    case X86_INS_XCHG:
        /* xchg with memory locks the bus */
        return memory_class(x) != CLASS_ALU ? CLASS_LOCKED : CLASS_ALU;
    default:
        break;
    }
    if (has_prefix(x, X86_PREFIX_LOCK))
        return CLASS_LOCKED;
    switch (insn->id) {
    case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND: case X86_INS_OR:
    case X86_INS_XOR: case X86_INS_CMP: case X86_INS_TEST: case X86_INS_INC:
    case X86_INS_DEC: case X86_INS_NEG: case X86_INS_NOT:
        return arith_class(x);
    case X86_INS_ADC: case X86_INS_SBB: {
        int c = arith_class(x);
        return c == CLASS_ALULOAD ? CLASS_ADCLOAD : c == CLASS_RMW ? CLASS_RMW : CLASS_ADC;
    }
    case X86_INS_SHL: case X86_INS_SHR: case X86_INS_SAR: case X86_INS_SAL:
    case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR:
    case X86_INS_SHLD: case X86_INS_SHRD:
        return memory_class(x) == CLASS_ALU ? CLASS_SHIFT : CLASS_RMW;
    default:
        break;
    }
    if (in_group(insn, X86_GRP_JUMP))
        return CLASS_BRANCH;
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

/* The classes a block charges at its entry, each with its count. */
static int tally_block(struct block *b)
{
    b->tally = calloc(b->ninsns, sizeof *b->tally);
    if (!b->tally)
        return -1;
    for (uint32_t i = 0; i < b->ninsns; i++) {
        if (insn_charged_later(&b->insns[i]))
            continue;
        uint32_t t = 0;
        while (t < b->ntally && b->tally[t].cls != b->insns[i].cls)
            t++;
        if (t == b->ntally)
            b->tally[b->ntally++].cls = b->insns[i].cls;
        b->tally[t].n++;
    }
    return 0;
}

/* A rep op ends its block; where its first run's count is known before it
 * runs (rep_count.h). The analysis reads every instruction of the block
 * at once, so such a block is decoded a second time, whole. */
static int mark_rep_entry(struct block_cache *bc, struct block *b)
{
    uint32_t n = b->ninsns;
    struct insn *last = &b->insns[n - 1];
    cs_insn *insn = NULL;
    bool special[n];
    if (!(last->flags & SPECIAL_REP))
        return 0;
    if (cs_disasm(bc->capstone, b->bytes, b->size, b->addr, n, &insn) != n) {
        if (insn)
            cs_free(insn, n);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        special[i] = (b->insns[i].flags & (SPECIALS | INSN_SOFTINT)) != 0;
    rep_count_analyse(bc->capstone, insn, n, special, &b->rep);
    cs_free(insn, n);
    /* at the rep itself: its own hook, unless the rep starts the block */
    if (b->rep.from + 1u < n || b->rep.from == 0)
        last->flags |= INSN_REP_EARLY;
    if (b->rep.from > 0 && b->rep.from + 1u < n)
        b->insns[b->rep.from].flags |= INSN_REP_COUNT;
    return 0;
}

static void describe_insn(const cs_insn *ci, struct insn *in)
{
    in->len = (uint8_t)ci->size;
    in->cls = (uint8_t)classify_insn(ci, &in->flags);
    if (in->flags & INSN_SOFTINT) {
        const cs_x86 *x = &ci->detail->x86;
        in->int_vector = ci->id == X86_INS_INT3 ? X86_VEC_BP
                       : ci->id == X86_INS_INTO ? X86_VEC_OF
                       : ci->id == X86_INS_INT1 ? X86_VEC_DB
                       : (uint8_t)x->operands[0].imm;
    }
}

static inline uint32_t fnv_step(uint32_t h, uint8_t byte)
{
    return (h ^ byte) * 16777619u;
}

#define FNV_START 2166136261u

/* An instruction's description depends on its bytes alone, and x86
 * decodes a byte at a time, so the bytes of a decoded instruction are
 * that instruction wherever they start: no other length can match too. */
static bool memo_find(const struct block_cache *bc, const uint8_t *code, size_t left,
                      struct insn *in)
{
    uint32_t h = FNV_START;
    if (!bc->nmemo)
        return false;
    for (uint32_t len = 1; len <= sizeof bc->memo->bytes && len <= left; len++) {
        h = fnv_step(h, code[len - 1]);
        for (uint32_t i = bc->memo_heads[h & (bc->memo_cap - 1)]; i; i = bc->memo[i - 1].next) {
            const struct insn_seen *e = &bc->memo[i - 1];
            if (e->len == len && !memcmp(e->bytes, code, len)) {
                in->len = e->len;
                in->cls = e->cls;
                in->flags = e->flags;
                in->int_vector = e->int_vector;
                return true;
            }
        }
    }
    return false;
}

static void memo_link(struct block_cache *bc, uint32_t i)
{
    struct insn_seen *e = &bc->memo[i];
    uint32_t h = FNV_START;
    for (uint32_t k = 0; k < e->len; k++)
        h = fnv_step(h, e->bytes[k]);
    e->next = bc->memo_heads[h & (bc->memo_cap - 1)];
    bc->memo_heads[h & (bc->memo_cap - 1)] = i + 1;
}

/* Twice the entries, and as many buckets as entries. */
static bool memo_grow(struct block_cache *bc)
{
    uint32_t cap = bc->memo_cap ? 2 * bc->memo_cap : 8192;
    if (cap > INSN_MEMO_MAX)
        return false;
    struct insn_seen *more = realloc(bc->memo, cap * sizeof *more);
    if (!more)
        return false;
    bc->memo = more;
    uint32_t *heads = calloc(cap, sizeof *heads);
    if (!heads)
        return false;
    free(bc->memo_heads);
    bc->memo_heads = heads;
    bc->memo_cap = cap;
    for (uint32_t i = 0; i < bc->nmemo; i++)
        memo_link(bc, i);
    return true;
}

/* One more entry; false when the memo is full and cannot grow. */
static bool memo_put(struct block_cache *bc, const struct insn_seen *e)
{
    if (bc->nmemo == bc->memo_cap && !memo_grow(bc))
        return false;
    bc->memo[bc->nmemo] = *e;
    memo_link(bc, bc->nmemo++);
    return true;
}

static void memo_add(struct block_cache *bc, const uint8_t *code, const struct insn *in)
{
    struct insn_seen e = { .len = in->len, .cls = in->cls, .int_vector = in->int_vector,
                           .flags = in->flags };
    memcpy(e.bytes, code, in->len);
    memo_put(bc, &e);
}

/* One instruction at code: seen before, or Capstone's (false if it
 * cannot decode it). */
static bool next_insn(struct block_cache *bc, const uint8_t *code, size_t left, uint32_t addr,
                      struct insn *in)
{
    memset(in, 0, sizeof *in);
    if (!memo_find(bc, code, left, in)) {
        const uint8_t *p = code;
        uint64_t at = addr;
        if (!cs_disasm_iter(bc->capstone, &p, &left, &at, bc->scratch) ||
            bc->scratch->size > sizeof bc->memo->bytes)
            return false;
        bc->capstone_decodes++;
        describe_insn(bc->scratch, in);
        memo_add(bc, code, in);
    }
    in->addr = addr;
    /* int n is charged when it is delivered (its cost depends on the
     * gate), a rep string op as it runs. */
    if (!insn_charged_later(in))
        in->cost = bc->cost_table[in->cls];
    return true;
}

void block_cache_learn(struct block_cache *bc, uint32_t addr, const uint8_t *code,
                       uint32_t size)
{
    struct insn in;
    for (uint32_t off = 0; off < size;)
        off += next_insn(bc, code + off, size - off, addr + off, &in) ? in.len : 1;
}

/* Room for the program's own instructions too (a hello adds 2 142 to the
 * kernel's 7 877): a grow later relinks every entry. */
void block_cache_seed(struct block_cache *bc, const struct insn_seen *table, size_t n)
{
    while (bc->memo_cap < 2 * (bc->nmemo + n) && memo_grow(bc))
        ;
    for (size_t i = 0; i < n; i++) {
        if (table[i].len == 0 || table[i].len > sizeof table[i].bytes)
            continue;
        if (!memo_put(bc, &table[i]))
            return;
    }
}

/* The instructions from the start of code up to its end or the first
 * that Capstone cannot decode, one at a time into the one scratch
 * decode (cs_disasm would allocate and copy each one's details). */
static uint32_t decode_insns(struct block_cache *bc, uint32_t addr, const uint8_t *code,
                             uint32_t size, struct insn **out)
{
    uint32_t off = 0;
    uint32_t n = 0, cap = 0;
    struct insn *insns = NULL;
    struct insn in;
    while (off < size && next_insn(bc, code + off, size - off, addr + off, &in)) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            struct insn *more = realloc(insns, cap * sizeof *insns);
            if (!more) {
                free(insns);
                return 0;
            }
            insns = more;
        }
        insns[n++] = in;
        off += in.len;
    }
    *out = insns;
    return n;
}

struct block *block_decode(struct block_cache *bc, uint32_t addr,
                           const uint8_t *code, uint32_t size)
{
    struct insn *insns = NULL;
    uint32_t n = decode_insns(bc, addr, code, size, &insns);
    struct block *b = calloc(1, sizeof *b);
    if (!b || n == 0) {
        free(b);
        free(insns);
        return NULL;
    }
    b->addr = addr;
    b->size = size;
    b->ninsns = n;
    b->insns = insns;
    b->bytes = malloc(size);
    if (!b->bytes) {
        block_free(b);
        return NULL;
    }
    memcpy(b->bytes, code, size);
    for (uint32_t i = 0; i < n; i++) {
        b->cost += insns[i].cost;
        b->specials |= insns[i].flags & (SPECIALS | PAGING_INSNS);
    }
    b->ends_sti = code[insns[n - 1].addr - addr] == 0xfb;
    if (mark_rep_entry(bc, b) || tally_block(b)) {
        block_free(b);
        return NULL;
    }
    return b;
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
    bc->shift--;
    for (uint32_t i = 0; i < oldcap; i++) {
        if (!old[i])
            continue;
        uint32_t s = block_slot_of(bc, old[i]->addr);
        while (bc->slots[s])
            s = (s + 1) & (bc->capacity - 1);
        bc->slots[s] = old[i];
    }
    free(old);
}

const struct block *block_lookup(struct block_cache *bc, uint32_t addr,
                                 const uint8_t *code, uint32_t size)
{
    uint32_t s = block_slot_of(bc, addr);
    while (bc->slots[s] && bc->slots[s]->addr != addr)
        s = (s + 1) & (bc->capacity - 1);
    struct block *b = bc->slots[s];
    if (b && b->size == size && block_same_bytes(b->bytes, code, size))
        return b;
    struct block *fresh = block_decode(bc, addr, code, size);
    if (!fresh)
        return NULL;
    if (b) {
        if (b->runs)
            block_fold(bc);
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
        /* into is among Capstone's interrupts, but the engine's block
         * goes on past it (it traps only with OF set) */
        bool ends = false;
        for (size_t i = 0; i < sizeof enders && insn->id != X86_INS_INTO; i++)
            ends = ends || cs_insn_group(bc->capstone, insn, enders[i]);
        addr += insn->size;
        cs_free(insn, 1);
        if (ends)
            break;
    }
    return eip;
}
