/*
 * Decoding. Each translated block is decoded once with Capstone, its
 * instructions classified and costed for the CPU model, and cached by
 * address (decoded again if the guest rewrote the bytes). The machine
 * charges a block from this as it runs (machine.h).
 */
#ifndef EMU_DECODE_H
#define EMU_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>
#include "cost/cost_classes.h"
#include "engine/memory.h"
#include "cost/rep_count.h"

/* Instructions the model must see before they execute (code hooks). */
#define SPECIAL_RDTSC  0x01
#define SPECIAL_RDMSR  0x02
#define SPECIAL_WRMSR  0x04
#define SPECIAL_IO     0x20  /* in/out: the engine skips the IOPL check */
#define SPECIAL_REP    0x10  /* rep string op: charged as it runs (machine.h) */
#define SPECIAL_SYSEXIT 0x80 /* sysexit: the Pentium Pro's fails (sysenter.h) */
#define SPECIAL_IRET   0x100 /* iret: at CPL 3 the engine takes VM (engine.h) */
#define SPECIALS (SPECIAL_RDTSC | SPECIAL_RDMSR | SPECIAL_WRMSR | SPECIAL_IO | SPECIAL_REP | \
                  SPECIAL_SYSEXIT | SPECIAL_IRET)
#define INSN_SOFTINT   0x08  /* int n / int3 / into: charged at delivery */
#define INSN_ADDR16    0x40  /* 67h prefix: a rep counts in CX, not ECX */
#define INSN_REP_EARLY 0x200 /* a rep whose first run's count is known before
                                it (rep_count.h): charged at the block's
                                entry or at its INSN_REP_COUNT insn */
#define INSN_REP_COUNT 0x400 /* the insn before which the block's rep's
                                count is read (a code hook) */
/* Instructions after which a page's permission may be lower than the
 * engine's TLB had it (a TLB invalidation, a WP or paging change, a task
 * switch), and CR3 loads: no hook, the block says it has them
 * (as_note_paging, addrspace.h). */
#define SPECIAL_PAGING 0x800
#define SPECIAL_CR3    0x1000
#define PAGING_INSNS   (SPECIAL_PAGING | SPECIAL_CR3)

struct insn {
    uint32_t addr;
    uint8_t len;
    uint8_t cls;         /* enum insn_class */
    uint16_t flags;      /* SPECIAL_* and INSN_* */
    uint8_t int_vector;  /* for INSN_SOFTINT */
    uint32_t cost;       /* centicycles charged at block entry */
};

#define INSN_TEXT_MAX 200   /* a Capstone mnemonic, a space and the operands */

/* How many instructions of one class a block charges at its entry. */
struct class_tally {
    uint8_t cls;
    uint32_t n;
};

struct block {
    uint32_t addr, size;
    uint32_t ninsns;
    uint64_t cost;       /* centicycles, sum of insn costs */
    uint16_t specials;   /* OR of the insns' SPECIALS and PAGING_INSNS */
    bool ends_sti;       /* the last insn's first byte is sti's, 0xfb */
    bool plain;          /* no code hook, paging change or rep on this
                            machine: the block hook's short way (run.c,
                            keep_code_ptr, on_block) */
    uint32_t ntally;     /* the classes of the insns charged at entry */
    struct class_tally *tally;
    uint32_t runs;       /* runs not yet folded into the counts (block_ran) */
    uint8_t *bytes;      /* copy of the code, to notice rewrites */
    const uint8_t *host; /* the code's host pointer while the memory's */
    uint32_t host_gen;   /* regions are at this generation (0: none; run.c) */
    struct insn *insns;
    char (*text)[INSN_TEXT_MAX];   /* each insn's disassembly, made when first
                                      asked for (traces); goes with the block */
    void *memo;                    /* an output's memo of the block, one
                                      allocation, made by it (trace lines);
                                      freed with the block */
    struct rep_count rep;          /* the last insn's count, if INSN_REP_EARLY */
};

/* An instruction described once, found again by its bytes alone. */
struct insn_seen {
    uint8_t bytes[15];
    uint8_t len;
    uint8_t cls, int_vector;
    uint16_t flags;
    uint32_t next;       /* the bucket's next entry + 1, 0 at its end */
};

#define INSN_MEMO_MAX 65536
#define BLOCK_PENDING_MAX 256

struct block_cache {
    struct block **slots;
    uint32_t capacity, count;
    uint32_t shift;      /* 32 - log2(capacity): block_slot_of's */
    csh capstone;
    cs_insn *scratch;    /* one instruction's decode, reused (cs_disasm_iter) */
    const uint32_t *cost_table;
    struct insn_seen *memo;    /* memo_cap entries, nmemo of them used */
    uint32_t *memo_heads;      /* memo_cap buckets: the first entry + 1 */
    uint32_t nmemo, memo_cap;
    uint64_t capstone_decodes; /* the memo's misses (tests, measures) */
    uint64_t *counts;    /* where block_fold adds the runs' tallies */
    struct block *pending[BLOCK_PENDING_MAX]; /* the blocks with runs */
    uint32_t npending;
};

int block_cache_init(struct block_cache *bc, const uint32_t *cost_table);
/*
 * A kernel image's instructions, described at build time (tools/kinsns.c,
 * docs/performance.md item 52): the memo's entries, as this build's
 * struct insn_seen, which block_cache_seed puts in the memo.
 */
void block_cache_seed(struct block_cache *bc, const struct insn_seen *table, size_t n);
/* Describe each instruction of code into the memo, from its start to its
 * end, a byte past each one Capstone cannot decode (the tool). */
void block_cache_learn(struct block_cache *bc, uint32_t addr, const uint8_t *code,
                       uint32_t size);
void block_cache_free(struct block_cache *bc);
/* The decoded block at addr for the given code bytes (NULL if undecodable). */
const struct block *block_lookup(struct block_cache *bc, uint32_t addr,
                                 const uint8_t *code, uint32_t size);

/* Where block_lookup starts looking for addr: the product's top bits,
 * which every bit of addr reaches (its low bits are addr's low bits, so
 * blocks a page apart shared a slot). */
static inline uint32_t block_slot_of(const struct block_cache *bc, uint32_t addr)
{
    return (addr * 2654435761u) >> bc->shift;
}

/* memcmp(a, b, n) == 0 for a block's few dozen bytes, without the call:
 * the block hook makes this comparison on every block it sees. */
static inline uint64_t block_diff8(const uint8_t *a, const uint8_t *b)
{
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x ^ y;
}

static inline uint32_t block_diff4(const uint8_t *a, const uint8_t *b)
{
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return x ^ y;
}

static inline uint32_t block_diff2(const uint8_t *a, const uint8_t *b)
{
    uint16_t x, y;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    return (uint32_t)(x ^ y);
}

/* Under 8 bytes (a rep's own block is 2 or 3), two words that overlap
 * cover them all; under 16, two such 8-byte words; under 32, the first 16
 * and the last 16, without a loop; past that, 16 bytes a step and the
 * last 16, overlapping. */
static inline bool block_same_bytes(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    uint64_t diff = 0;
    if (n < 8) {
        if (n >= 4)
            return (block_diff4(a, b) | block_diff4(a + n - 4, b + n - 4)) == 0;
        if (n >= 2)
            return (block_diff2(a, b) | block_diff2(a + n - 2, b + n - 2)) == 0;
        return n == 0 || a[0] == b[0];
    }
    if (n < 16)
        return (block_diff8(a, b) | block_diff8(a + n - 8, b + n - 8)) == 0;
    if (n < 32)
        return (block_diff8(a, b) | block_diff8(a + 8, b + 8) |
                block_diff8(a + n - 16, b + n - 16) | block_diff8(a + n - 8, b + n - 8)) == 0;
    for (uint32_t i = 0; i + 16 <= n; i += 16)
        diff |= block_diff8(a + i, b + i) | block_diff8(a + i + 8, b + i + 8);
    return (diff | block_diff8(a + n - 16, b + n - 16) | block_diff8(a + n - 8, b + n - 8)) == 0;
}

/*
 * What block_lookup(bc, addr, code, size) would give if the cache holds
 * it where the look-up starts (most blocks), without the call, in two
 * halves: block_at_slot, the block there if it has this address and size
 * (its bytes not compared), then block_hit_same, that block if its bytes
 * are code's. NULL means "look it up", never "not there".
 */
static inline const struct block *block_at_slot(const struct block_cache *bc, uint32_t addr,
                                                uint32_t size)
{
    const struct block *b = bc->slots[block_slot_of(bc, addr)];
    return b && b->addr == addr && b->size == size ? b : NULL;
}

static inline const struct block *block_hit_same(const struct block *hit, const uint8_t *code,
                                                 uint32_t size)
{
    return hit && block_same_bytes(hit->bytes, code, size) ? hit : NULL;
}

/*
 * Each run of a block adds its tally (the counts of its classes) to the
 * counts, but not at once: the block counts its runs, and block_fold adds
 * runs x tally for every block with runs, before anything reads the
 * counts and before a block is let go.
 */
void block_fold(struct block_cache *bc);
static inline void block_ran(struct block_cache *bc, const struct block *cb)
{
    struct block *b = (struct block *)cb;   /* the cache's own */
    if (b->runs == 0) {
        if (bc->npending == BLOCK_PENDING_MAX)
            block_fold(bc);
        bc->pending[bc->npending++] = b;
    }
    b->runs++;
}
/* Decode and cost a byte sequence without caching (tests, tools). */
struct block *block_decode(struct block_cache *bc, uint32_t addr,
                           const uint8_t *code, uint32_t size);
void block_free(struct block *b);
/* The class of a rep string op's start-up, from its per-element class
 * (inline: charged at every rep's first run). */
static inline int rep_start_class(int element_cls)
{
    return element_cls == CLASS_REP_MOVS ? CLASS_REP_MOVS_START
         : element_cls == CLASS_REP_STOS ? CLASS_REP_STOS_START : CLASS_REP_OTHER_START;
}
/* Is an instruction's cost charged when it runs, not at block entry? */
static inline bool insn_charged_later(const struct insn *in)
{
    return (in->flags & (INSN_SOFTINT | SPECIAL_REP)) != 0;
}
const struct insn *block_find_insn(const struct block *b, uint32_t addr, uint32_t *index);
/* Centicycles of insns [0, index) of b. */
uint64_t block_prefix_cost(const struct block *b, uint32_t index);
/* "mnemonic operands" of the block's index-th instruction, disassembled
 * once per block ("?" if it cannot be). */
const char *block_insn_text(struct block_cache *bc, const struct block *b, uint32_t index);

/* Can Capstone decode the instruction at addr? */
bool decodable(struct block_cache *bc, const struct guest_memory *mem, uint32_t addr);
/* The first instruction of the block at eip that Capstone cannot decode;
 * eip itself if the block ends (a jump, a call, an int) before one. */
uint32_t first_undecodable(struct block_cache *bc, const struct guest_memory *mem,
                           uint32_t eip);

#endif
