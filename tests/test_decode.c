/* Decoding: instruction classes, block costs, the special instructions
 * that need code hooks, and the block cache. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "syscall_nr.h"
#include "../emu/cli/options.h"
#include "../emu/cli/outputs.h"
#include "../emu/cpu/boot.h"

static struct block_cache bc;
static struct cpu_config p4;

static void setup(void)
{
    char err[128];
    ck_assert_int_eq(cpu_config_parse("pentium4", false, &p4, err, sizeof err), 0);
    ck_assert_int_eq(block_cache_init(&bc, p4.cost), 0);
}

static void teardown(void) { block_cache_free(&bc); }

/* One instruction of each interesting class, as raw bytes: every form on
 * the system-call paths (docs/cost-model.md) and a few beside them. */
static const struct { const char *what; uint8_t bytes[8]; int len; int cls; } samples[] = {
    { "mov %ebx,%eax",        { 0x89, 0xd8 }, 2, CLASS_ALU },
    { "lea 4(%ebx),%eax",     { 0x8d, 0x43, 0x04 }, 3, CLASS_ALU },
    { "addw $9,%bx",          { 0x66, 0x83, 0xc3, 0x09 }, 4, CLASS_ALU },
    { "testw $0xffff,%cx",    { 0x66, 0xf7, 0xc1, 0xff, 0xff }, 5, CLASS_ALU16IMM },
    { "addw $200,%bx",        { 0x66, 0x81, 0xc3, 0xc8, 0x00 }, 5, CLASS_ALU16IMM },
    { "shr $2,%ecx",          { 0xc1, 0xe9, 0x02 }, 3, CLASS_SHIFT },
    { "sbb %ebx,%ebp",        { 0x19, 0xdd }, 2, CLASS_ADC },
    { "adc $0,%eax",          { 0x83, 0xd0, 0x00 }, 3, CLASS_ADC },
    { "mov (%ebx),%eax",      { 0x8b, 0x03 }, 2, CLASS_LOAD },
    { "movzbl 0x1c(%esp),%eax", { 0x0f, 0xb6, 0x44, 0x24, 0x1c }, 5, CLASS_LOAD },
    { "add (%ebx),%eax",      { 0x03, 0x03 }, 2, CLASS_ALULOAD },
    { "cmp 0x10(%esp),%edx",  { 0x3b, 0x54, 0x24, 0x10 }, 4, CLASS_ALULOAD },
    { "sbb 0xc(%esp),%edx",   { 0x1b, 0x54, 0x24, 0x0c }, 4, CLASS_ADCLOAD },
    { "mov %eax,(%ebx)",      { 0x89, 0x03 }, 2, CLASS_STORE },
    { "mov %al,0x10(%ebx)",   { 0x88, 0x43, 0x10 }, 3, CLASS_STORE },
    { "movl $0,0x8(%esp)",    { 0xc7, 0x44, 0x24, 0x08, 0, 0, 0, 0 }, 8, CLASS_STOREIMM },
    { "addl $1,(%ebx)",       { 0x83, 0x03, 0x01 }, 3, CLASS_RMW },
    { "subl $16,4(%esp)",     { 0x83, 0x6c, 0x24, 0x04, 0x10 }, 5, CLASS_RMW },
    { "push %eax",            { 0x50 }, 1, CLASS_PUSH },
    { "push $0x7b",           { 0x6a, 0x7b }, 2, CLASS_PUSH },
    { "push 0x1c(%esp)",      { 0xff, 0x74, 0x24, 0x1c }, 4, CLASS_PUSHMEM },
    { "pop %ebx",             { 0x5b }, 1, CLASS_POP },
    { "push %es",             { 0x06 }, 1, CLASS_PUSHSEG },
    { "push %ds",             { 0x1e }, 1, CLASS_PUSHSEG },
    { "pop %es",              { 0x07 }, 1, CLASS_SEGPOP },
    { "mov %edx,%ds",         { 0x8e, 0xda }, 2, CLASS_SEGLOAD },
    { "ljmp $0x60,$0x1000",   { 0xea, 0x00, 0x10, 0, 0, 0x60, 0x00 }, 7, CLASS_FAR },
    { "jne .",                { 0x75, 0xfe }, 2, CLASS_BRANCH },
    { "jecxz .",              { 0xe3, 0xfe }, 2, CLASS_BRANCH },
    { "loop .",               { 0xe2, 0xfe }, 2, CLASS_BRANCH },
    { "loope .",              { 0xe1, 0xfe }, 2, CLASS_BRANCH },
    { "loopne .",             { 0xe0, 0xfe }, 2, CLASS_BRANCH },
    { "jmp rel32",            { 0xe9, 0, 0, 0, 0 }, 5, CLASS_JMP },
    { "call rel32",           { 0xe8, 0, 0, 0, 0 }, 5, CLASS_CALL },
    { "ret",                  { 0xc3 }, 1, CLASS_RET },
    { "call *(%eax)",         { 0xff, 0x10 }, 2, CLASS_CALLMEM },
    { "call *table(,%eax,4)", { 0xff, 0x14, 0x85, 0x20, 0x71, 0x10, 0xc0 }, 7, CLASS_CALLMEM },
    { "call *%eax",           { 0xff, 0xd0 }, 2, CLASS_CALLREG },
    { "jmp *%eax",            { 0xff, 0xe0 }, 2, CLASS_JMPIND },
    { "jmp *(%eax)",          { 0xff, 0x20 }, 2, CLASS_JMPIND },
    { "mull 0xc0112fe8",      { 0xf7, 0x25, 0xe8, 0x2f, 0x11, 0xc0 }, 6, CLASS_MUL },
    { "mul %ecx",             { 0xf7, 0xe1 }, 2, CLASS_MUL },
    { "imul %ecx,%eax",       { 0x0f, 0xaf, 0xc1 }, 3, CLASS_IMUL },
    { "div %ecx",             { 0xf7, 0xf1 }, 2, CLASS_DIV },
    { "movsl",                { 0xa5 }, 1, CLASS_STRING },
    { "rep movsb",            { 0xf3, 0xa4 }, 2, CLASS_REP_MOVS },
    { "rep movsl",            { 0xf3, 0xa5 }, 2, CLASS_REP_MOVS },
    { "rep stosl",            { 0xf3, 0xab }, 2, CLASS_REP_STOS },
    { "rep lodsl",            { 0xf3, 0xad }, 2, CLASS_REP_OTHER },
    { "pushf",                { 0x9c }, 1, CLASS_PUSHF },
    { "popf",                 { 0x9d }, 1, CLASS_POPF },
    { "cli",                  { 0xfa }, 1, CLASS_CLI },
    { "sti",                  { 0xfb }, 1, CLASS_STI },
    { "cld",                  { 0xfc }, 1, CLASS_CLD },
    { "std",                  { 0xfd }, 1, CLASS_CLD },
    { "lock incl (%eax)",     { 0xf0, 0xff, 0x00 }, 3, CLASS_LOCKED },
    { "xchg %eax,(%ebx)",     { 0x87, 0x03 }, 2, CLASS_LOCKED },
    { "int $0x80",            { 0xcd, 0x80 }, 2, CLASS_INT },
    { "iret",                 { 0xcf }, 1, CLASS_IRET },
    { "sysenter",             { 0x0f, 0x34 }, 2, CLASS_SYSENTER },
    { "sysexit",              { 0x0f, 0x35 }, 2, CLASS_SYSEXIT },
    { "rdtsc",                { 0x0f, 0x31 }, 2, CLASS_RDTSC },
    { "cpuid",                { 0x0f, 0xa2 }, 2, CLASS_CPUID },
    { "wrmsr",                { 0x0f, 0x30 }, 2, CLASS_WRMSR },
    { "in $0x60,%al",         { 0xe4, 0x60 }, 2, CLASS_IO },
    { "out %eax,$0xe0",       { 0xe7, 0xe0 }, 2, CLASS_IO },
    { "mov %eax,%cr3",        { 0x0f, 0x22, 0xd8 }, 3, CLASS_SYSTEM },
    { "ud2",                  { 0x0f, 0x0b }, 2, CLASS_OTHER },
};

START_TEST(each_sample_lands_in_its_class)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        struct block *b = block_decode(&bc, 0x1000, samples[i].bytes, (uint32_t)samples[i].len);
        ck_assert_msg(b != NULL, "%s did not decode", samples[i].what);
        ck_assert_uint_eq(b->ninsns, 1);
        ck_assert_msg(b->insns[0].cls == samples[i].cls, "%s: class %s, expected %s",
                      samples[i].what, class_name(b->insns[0].cls), class_name(samples[i].cls));
        block_free(b);
    }
}
END_TEST

START_TEST(a_block_costs_the_sum_of_its_classes)
{
    /* mov; add (mem); push; pop %ds; pushf; cli; mul; cld; push %es; int $0x80 */
    uint8_t code[] = { 0x89, 0xd8, 0x03, 0x03, 0x50, 0x1f, 0x9c, 0xfa, 0xf7, 0xe1, 0xfc, 0x06,
                       0xcd, 0x80 };
    struct block *b = block_decode(&bc, 0x2000, code, sizeof code);
    const uint32_t *c = p4.cost;
    ck_assert_uint_eq(b->ninsns, 10);
    uint64_t expected = c[CLASS_ALU] + c[CLASS_ALULOAD] + c[CLASS_PUSH] + c[CLASS_SEGPOP] +
                        c[CLASS_PUSHF] + c[CLASS_CLI] + c[CLASS_MUL] + c[CLASS_CLD] +
                        c[CLASS_PUSHSEG];
    /* int n is charged at delivery, by gate type, not here */
    ck_assert_uint_eq(b->cost, expected);
    ck_assert_uint_eq(b->insns[9].flags & INSN_SOFTINT, INSN_SOFTINT);
    ck_assert_uint_eq(b->insns[9].int_vector, 0x80);
    ck_assert_uint_eq(block_prefix_cost(b, 3), c[CLASS_ALU] + c[CLASS_ALULOAD] + c[CLASS_PUSH]);
    /* the block's tally: every class charged at entry once per instruction */
    uint32_t tallied = 0;
    for (uint32_t t = 0; t < b->ntally; t++)
        tallied += b->tally[t].n;
    ck_assert_uint_eq(tallied, 9);
    block_free(b);
}
END_TEST

/* The system-call entry and exit paths, per call, by the classes of their
 * forms: SAVE_ALL's cld and segment pushes, RESTORE_ALL's segment pops. */
START_TEST(the_entry_paths_charge_cld_and_segment_pushes_their_classes)
{
    static const char *const cpus[] = { "pentium4", "pentium3" };
    struct guest *g = guest_new(cpus[_i], "linus_loop", "getppid", "50", NULL);
    ck_assert_int_eq(guest_run(g), 0);
    static const int ways[2][2] = { { PATH_SYSENTER, VIA_PAGE }, { PATH_INT80, VIA_INLINE } };
    for (int w = 0; w < 2; w++) {
        const struct call_row *r = call_row_of(&g->sys, SYS_getppid, ways[w][0], ways[w][1]);
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_eq(r->calls, 50);
        ck_assert_uint_eq(r->classes[CLASS_CLD], 50);
        ck_assert_uint_eq(r->classes[CLASS_PUSHSEG], 100);
        ck_assert_uint_eq(r->classes[CLASS_SEGPOP], 100);
        ck_assert_uint_eq(r->classes[CLASS_SEGLOAD], 100);
        ck_assert_uint_eq(r->classes[CLASS_ALU16IMM], 50);
        /* and what a row costs is its counts times the model's costs */
        uint64_t sum = 0;
        for (int c = 0; c < NCLASSES; c++)
            sum += r->classes[c] * g->m.cpu.cost[c];
        ck_assert_uint_eq(sum, r->cycles);
    }
    guest_free(g);
}
END_TEST

START_TEST(special_instructions_are_flagged_for_code_hooks)
{
    uint8_t code[] = { 0x90, 0x0f, 0x31, 0x0f, 0x32, 0x0f, 0x30, 0x90 };
    struct block *b = block_decode(&bc, 0x3000, code, sizeof code);
    ck_assert_uint_eq(b->specials, SPECIAL_RDTSC | SPECIAL_RDMSR | SPECIAL_WRMSR);
    uint32_t index;
    ck_assert_ptr_nonnull(block_find_insn(b, 0x3003, &index));
    ck_assert_uint_eq(index, 2);
    block_free(b);
}
END_TEST

/* What may lower a page's permission below the TLB's, and CR3 loads, are
 * marked for the address spaces (as_note_paging); reading CR3 is not. */
START_TEST(paging_instructions_are_marked_for_the_address_spaces)
{
    static const struct {
        uint8_t bytes[8];
        int len;
        uint16_t paging;
    } cases[] = {
        { { 0x0f, 0x01, 0x38 }, 3, SPECIAL_PAGING },       /* invlpg (%eax) */
        { { 0x0f, 0x22, 0xc0 }, 3, SPECIAL_PAGING },       /* mov %eax, %cr0 */
        { { 0x0f, 0x22, 0xe0 }, 3, SPECIAL_PAGING },       /* mov %eax, %cr4 */
        { { 0x0f, 0x22, 0xd8 }, 3, SPECIAL_CR3 },          /* mov %eax, %cr3 */
        { { 0xea, 0, 0, 0, 0, 0x28, 0 }, 7, SPECIAL_PAGING }, /* ljmp $0x28, $0 */
        { { 0x0f, 0x20, 0xd8 }, 3, 0 },                    /* mov %cr3, %eax */
        { { 0x0f, 0x22, 0xd0 }, 3, 0 },                    /* mov %eax, %cr2 */
        { { 0x0f, 0x06 }, 2, 0 },                          /* clts */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct block *b = block_decode(&bc, 0x3000, cases[i].bytes, (uint32_t)cases[i].len);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(b->insns[0].flags & PAGING_INSNS, cases[i].paging);
        ck_assert_uint_eq(b->specials & PAGING_INSNS, cases[i].paging);
        block_free(b);
    }
}
END_TEST

/* Blocks that end with a rep op: before which instruction the count its
 * first run finds is known (from; -1: only at the rep itself, by its code
 * hook), and that count given the value then of the register the recipe
 * starts from (src_value). */
static const struct {
    const char *what;
    uint8_t bytes[16];
    int len;
    int from;
    uint32_t src_value, count;
} rep_blocks[] = {
    { "rep stosl", { 0xf3, 0xab }, 2, 0, 7, 7 },
    { "mov $5,%ecx; rep stosb", { 0xb9, 5, 0, 0, 0, 0xf3, 0xaa }, 7, 0, 99, 5 },
    { "xor %ecx,%ecx; rep stosb", { 0x31, 0xc9, 0xf3, 0xaa }, 4, 0, 99, 0 },
    { "mov %eax,%ecx; shr $2,%ecx; rep movsl", { 0x89, 0xc1, 0xc1, 0xe9, 0x02, 0xf3, 0xa5 }, 7,
      0, 0x1003, 0x400 },
    /* busybox's memcpy: the count of dwords from ECX */
    { "push %eax; mov %ecx,%eax; shr $2,%ecx; and $3,%eax; rep movsl",
      { 0x50, 0x89, 0xc8, 0xc1, 0xe9, 0x02, 0x83, 0xe0, 0x03, 0xf3, 0xa5 }, 11, 0, 13, 3 },
    { "dec %ecx; shr %ecx; rep stosw", { 0x49, 0xd1, 0xe9, 0xf3, 0x66, 0xab }, 6, 0, 9, 4 },
    { "sub $3,%ecx; and $0xfffffff0,%ecx; rep stosb",
      { 0x83, 0xe9, 0x03, 0x83, 0xe1, 0xf0, 0xf3, 0xaa }, 8, 0, 40, 32 },
    /* the kernel's __copy_user: the count loaded from the stack into EAX */
    { "mov 0x14(%esp),%eax; mov %eax,%ecx; shr $2,%ecx; rep movsl",
      { 0x8b, 0x44, 0x24, 0x14, 0x89, 0xc1, 0xc1, 0xe9, 0x02, 0xf3, 0xa5 }, 11, 1, 13, 3 },
    { "mov $1,%eax; mov %eax,%ecx; rep stosb",
      { 0xb8, 1, 0, 0, 0, 0x89, 0xc1, 0xf3, 0xaa }, 9, 1, 1, 1 },
    /* after rdtsc's own hook has set EAX */
    { "rdtsc; mov %eax,%ecx; rep stosb", { 0x0f, 0x31, 0x89, 0xc1, 0xf3, 0xaa }, 6, 1, 7, 7 },
    { "mov (%ebx),%ecx; rep stosb", { 0x8b, 0x0b, 0xf3, 0xaa }, 4, -1, 0, 0 },
    { "shr %cl,%ecx; rep stosb", { 0xd3, 0xe9, 0xf3, 0xaa }, 4, -1, 0, 0 },
    { "mov $4,%cx; rep stosb", { 0x66, 0xb9, 4, 0, 0xf3, 0xaa }, 6, -1, 0, 0 },
    { "rdtsc; rep stosb", { 0x0f, 0x31, 0xf3, 0xaa }, 4, -1, 0, 0 },
    { "cpuid; rep stosb", { 0x0f, 0xa2, 0xf3, 0xaa }, 4, -1, 0, 0 },
    { "popa; rep stosb", { 0x61, 0xf3, 0xaa }, 3, -1, 0, 0 },
    { "xchg %eax,%ecx; rep stosb", { 0x91, 0xf3, 0xaa }, 3, -1, 0, 0 },
};

START_TEST(a_reps_count_is_known_before_it_only_through_constant_steps)
{
    struct block *b = block_decode(&bc, 0x5000, rep_blocks[_i].bytes, rep_blocks[_i].len);
    int from = rep_blocks[_i].from;
    ck_assert_ptr_nonnull(b);
    const struct insn *last = &b->insns[b->ninsns - 1];
    ck_assert(last->flags & SPECIAL_REP);
    ck_assert_msg(!(last->flags & INSN_REP_EARLY) == (from < 0), "%s", rep_blocks[_i].what);
    for (uint32_t i = 0; i < b->ninsns; i++)
        ck_assert_msg(!(b->insns[i].flags & INSN_REP_COUNT) == !(from > 0 && (int)i == from),
                      "%s: insn %u", rep_blocks[_i].what, i);
    if (from >= 0) {
        ck_assert_int_eq(b->rep.from, from);
        ck_assert_msg(rep_count_eval(&b->rep, rep_blocks[_i].src_value) == rep_blocks[_i].count,
                      "%s: count %u", rep_blocks[_i].what,
                      rep_count_eval(&b->rep, rep_blocks[_i].src_value));
    }
    block_free(b);
}
END_TEST

START_TEST(rewritten_code_is_decoded_again)
{
    uint8_t code[] = { 0x90, 0x90, 0xc3 };
    const struct block *a = block_lookup(&bc, 0x4000, code, sizeof code);
    ck_assert_uint_eq(a->insns[0].cls, CLASS_ALU);
    ck_assert_ptr_eq(block_lookup(&bc, 0x4000, code, sizeof code), a);
    code[0] = 0x9c; /* pushf */
    const struct block *c = block_lookup(&bc, 0x4000, code, sizeof code);
    ck_assert_uint_eq(c->insns[0].cls, CLASS_PUSHF);
}
END_TEST

/* The comparison goes by 16 bytes, then an overlapping tail, or by
 * overlapping words under 16: every byte of blocks of each length, past
 * two steps of 16, is watched. */
START_TEST(a_rewrite_of_any_byte_is_noticed)
{
    uint32_t n = (uint32_t)_i;           /* n - 1 nops, then ret */
    uint8_t code[48];
    uint32_t addr = 0x8000 + 64 * n;
    memset(code, 0x90, n - 1);
    code[n - 1] = 0xc3;
    ck_assert_ptr_nonnull(block_lookup(&bc, addr, code, n));
    for (uint32_t k = 0; k + 1 < n; k++) {
        code[k] = 0x9c; /* pushf */
        ck_assert_uint_eq(block_lookup(&bc, addr, code, n)->insns[k].cls, CLASS_PUSHF);
        code[k] = 0x90;
        ck_assert_uint_eq(block_lookup(&bc, addr, code, n)->insns[k].cls, CLASS_ALU);
    }
    code[n - 1] = 0xcc; /* int3: the last byte too */
    ck_assert_uint_ne(block_lookup(&bc, addr, code, n)->insns[n - 1].cls,
                      block_lookup(&bc, addr + 1, (uint8_t[]){ 0xc3 }, 1)->insns[0].cls);
}
END_TEST

START_TEST(cache_survives_growth)
{
    uint8_t code[] = { 0x90, 0xc3 };
    for (uint32_t i = 0; i < 10000; i++)
        ck_assert_ptr_nonnull(block_lookup(&bc, 0x10000 + 16 * i, code, sizeof code));
    for (uint32_t i = 0; i < 10000; i += 997)
        ck_assert_uint_eq(block_lookup(&bc, 0x10000 + 16 * i, code, sizeof code)->addr,
                          0x10000 + 16 * i);
}
END_TEST

/* A block's instructions are the ones Capstone's cs_disasm lists for the
 * same bytes, up to the first it cannot decode ("lock jmp ."). */
START_TEST(a_block_lists_what_capstone_decodes_up_to_undecodable_bytes)
{
    static const uint8_t code[] = { 0x8b, 0x44, 0x24, 0x14, 0x89, 0xc1, 0xc1, 0xe9, 0x02,
                                    0x66, 0x83, 0xc3, 0x09, 0x0f, 0x31, 0x90,
                                    0xf0, 0xeb, 0xfe, 0x90 };
    csh cs;
    cs_insn *ref = NULL;
    ck_assert_int_eq(cs_open(CS_ARCH_X86, CS_MODE_32, &cs), CS_ERR_OK);
    size_t n = cs_disasm(cs, code, sizeof code, 0x6000, 0, &ref);
    ck_assert_uint_eq(n, 6);
    struct block *b = block_decode(&bc, 0x6000, code, sizeof code);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(b->ninsns, n);
    ck_assert_uint_eq(b->size, sizeof code);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(b->insns[i].addr, ref[i].address);
        ck_assert_uint_eq(b->insns[i].len, ref[i].size);
    }
    ck_assert(b->insns[4].flags & SPECIAL_RDTSC);
    block_free(b);
    cs_free(ref, n);
    cs_close(&cs);
    /* nothing decodable at all: no block */
    ck_assert_ptr_null(block_decode(&bc, 0x6010, code + 16, 3));
}
END_TEST

/* The file's executable segment (a static i386 ELF), its size in *size. */
static uint8_t *text_of(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    Elf32_Ehdr eh;
    ck_assert_uint_eq(fread(&eh, sizeof eh, 1, f), 1);
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf32_Phdr ph;
        ck_assert_int_eq(fseek(f, eh.e_phoff + i * sizeof ph, SEEK_SET), 0);
        ck_assert_uint_eq(fread(&ph, sizeof ph, 1, f), 1);
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        uint8_t *text = malloc(ph.p_filesz);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(fseek(f, ph.p_offset, SEEK_SET), 0);
        ck_assert_uint_eq(fread(text, 1, ph.p_filesz, f), ph.p_filesz);
        fclose(f);
        *size = ph.p_filesz;
        return text;
    }
    ck_abort_msg("%s: no executable segment", path);
    return NULL;
}

static void same_block(const struct block *a, const struct block *b, uint32_t off)
{
    ck_assert_msg((a == NULL) == (b == NULL), "offset %u: one decodes, one not", off);
    if (!a)
        return;
    ck_assert_uint_eq(a->ninsns, b->ninsns);
    ck_assert_uint_eq(a->cost, b->cost);
    ck_assert_uint_eq(a->specials, b->specials);
    for (uint32_t i = 0; i < a->ninsns; i++) {
        const struct insn *x = &a->insns[i], *y = &b->insns[i];
        ck_assert_msg(x->addr == y->addr && x->len == y->len && x->cls == y->cls &&
                      x->flags == y->flags && x->int_vector == y->int_vector &&
                      x->cost == y->cost, "offset %u, instruction %u differs", off, i);
    }
}

/* An instruction found again by its bytes (docs/performance.md, 40) is
 * the one Capstone decodes there: busybox's code from every byte offset,
 * through one cache that has seen all the offsets before it, against a
 * cache that has seen nothing. */
START_TEST(an_instruction_seen_before_is_described_as_capstone_describes_it)
{
    size_t size;
    uint8_t *text = text_of(fixture("busybox"), &size);
    struct block_cache fresh;
    ck_assert_int_eq(block_cache_init(&fresh, p4.cost), 0);
    uint32_t decoded = 0;
    for (uint32_t off = 0; off + 16 <= size && off < 32768; off++) {
        struct block *warm = block_decode(&bc, off, text + off, 16);
        if (fresh.memo_heads)
            memset(fresh.memo_heads, 0, fresh.memo_cap * sizeof *fresh.memo_heads);
        fresh.nmemo = 0;
        struct block *cold = block_decode(&fresh, off, text + off, 16);
        same_block(warm, cold, off);
        decoded += warm ? warm->ninsns : 0;
        block_free(warm);
        block_free(cold);
    }
    ck_assert_uint_lt(bc.nmemo, decoded);
    block_cache_free(&fresh);
    free(text);
}
END_TEST

/* The default image's table of instructions (tools/kinsns.c,
 * docs/performance.md item 52): each entry is what a cache with an empty
 * memo gets from Capstone for its bytes. */
START_TEST(the_kernels_table_describes_each_instruction_as_capstone_does)
{
    const struct kernel_image *k = kernel_builtin(MARCH_PENTIUM4, KCONFIG_UP, 1);
    const struct insn_seen *table = (const struct insn_seen *)k->insns_start;
    size_t n = (size_t)(k->insns_end - k->insns_start) / sizeof *table;
    ck_assert_uint_eq((size_t)(k->insns_end - k->insns_start) % sizeof *table, 0);
    ck_assert_uint_gt(n, 4000);
    for (size_t i = 0; i < n; i++) {
        const struct insn_seen *e = &table[i];
        if (bc.memo_heads)
            memset(bc.memo_heads, 0, bc.memo_cap * sizeof *bc.memo_heads);
        bc.nmemo = 0;
        block_cache_learn(&bc, 0xc0100000, e->bytes, e->len);
        const struct insn_seen *got = &bc.memo[0];
        ck_assert_msg(bc.nmemo == 1 && got->len == e->len && got->cls == e->cls &&
                      got->flags == e->flags && got->int_vector == e->int_vector &&
                      !memcmp(got->bytes, e->bytes, e->len),
                      "entry %zu (%u bytes, %02x...) is not Capstone's", i, e->len, e->bytes[0]);
    }
}
END_TEST

/* A run of emu with its outputs, in this process; the table of the
 * image's instructions used or not. The trace file's text. */
static char *traced_run(bool no_table, uint64_t *decodes)
{
    char path[] = "/tmp/sysemu-kinsns-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char *argv[] = { "emu", "run", "--argv0", "hello", "--trace", path, "--trace-insns=all",
                     (char *)program("hello"), NULL };
    static struct cli c;
    memset(&c, 0, sizeof c);
    ck_assert_int_lt(cli_parse(&c, 8, argv), 0);
    c.run.harness.no_kernel_insns = no_table;
    c.run.quiet = true;
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    ck_assert_int_eq(machine_init_bare(m, &c.run), 0);
    ck_assert_int_eq(outputs_open(&c.out, m), 0);
    ck_assert_msg(machine_boot(m) == 0, "%s", m->message);
    ck_assert_int_eq(syscalls_attach_zeroed(sys, m), 0);
    ck_assert_int_eq(outputs_attach(&c.out, m, sys), 0);
    ck_assert_int_eq(machine_run(m), 0);
    ck_assert_int_eq(outputs_finish(&c.out, m, sys), 0);
    ck_assert_int_eq(outputs_close(&c.out), 0);
    *decodes = m->blocks.capstone_decodes;
    machine_destroy(m);
    free(m);
    free(sys);
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* With the table the kernel's instructions skip Capstone, and the run,
 * every instruction of its trace with its cost, is the same. */
START_TEST(a_run_is_the_same_with_the_kernels_table_and_without_it)
{
    uint64_t with, without;
    char *a = traced_run(false, &with), *b = traced_run(true, &without);
    ck_assert_uint_gt(count_lines_containing(a, " k "), 500);
    ck_assert_msg(!strcmp(a, b), "the traces differ");
    ck_assert_uint_lt(with * 4, without);
    free(a);
    free(b);
}
END_TEST

Suite *decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("classes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, each_sample_lands_in_its_class);
    tcase_add_test(tc, a_block_costs_the_sum_of_its_classes);
    tcase_add_loop_test(tc, the_entry_paths_charge_cld_and_segment_pushes_their_classes, 0, 2);
    tcase_add_test(tc, special_instructions_are_flagged_for_code_hooks);
    tcase_add_test(tc, paging_instructions_are_marked_for_the_address_spaces);
    tcase_add_loop_test(tc, a_reps_count_is_known_before_it_only_through_constant_steps,
                        0, sizeof rep_blocks / sizeof rep_blocks[0]);
    tcase_add_test(tc, rewritten_code_is_decoded_again);
    tcase_add_loop_test(tc, a_rewrite_of_any_byte_is_noticed, 1, 49);
    tcase_add_test(tc, cache_survives_growth);
    tcase_add_test(tc, a_block_lists_what_capstone_decodes_up_to_undecodable_bytes);
    tcase_add_test(tc, an_instruction_seen_before_is_described_as_capstone_describes_it);
    tcase_add_test(tc, the_kernels_table_describes_each_instruction_as_capstone_does);
    tcase_add_test(tc, a_run_is_the_same_with_the_kernels_table_and_without_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(decode_suite());
}
