/* Decoding: instruction classes, block costs, the special instructions
 * that need code hooks, and the block cache. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static struct block_cache bc;
static const struct cpu_model *p4;

static void setup(void)
{
    struct cpu_config cfg;
    char err[128];
    ck_assert_int_eq(cpu_config_parse("pentium4", false, &cfg, err, sizeof err), 0);
    p4 = cfg.model;
    ck_assert_int_eq(block_cache_init(&bc, p4->cost), 0);
}

static void teardown(void) { block_cache_free(&bc); }

/* One instruction of each interesting class, as raw bytes. */
static const struct { const char *what; uint8_t bytes[8]; int len; int cls; } samples[] = {
    { "mov %ebx,%eax",        { 0x89, 0xd8 }, 2, CLASS_ALU },
    { "add (%ebx),%eax",      { 0x03, 0x03 }, 2, CLASS_LOAD },
    { "mov %eax,(%ebx)",      { 0x89, 0x03 }, 2, CLASS_STORE },
    { "addl $1,(%ebx)",       { 0x83, 0x03, 0x01 }, 3, CLASS_RMW },
    { "push %eax",            { 0x50 }, 1, CLASS_PUSH },
    { "pop %ebx",             { 0x5b }, 1, CLASS_POP },
    { "mov %edx,%ds",         { 0x8e, 0xda }, 2, CLASS_SEGLOAD },
    { "pop %es",              { 0x07 }, 1, CLASS_SEGPOP },
    { "pushf",                { 0x9c }, 1, CLASS_PUSHF },
    { "popf",                 { 0x9d }, 1, CLASS_POPF },
    { "cli",                  { 0xfa }, 1, CLASS_CLI },
    { "sti",                  { 0xfb }, 1, CLASS_STI },
    { "mul %ecx",             { 0xf7, 0xe1 }, 2, CLASS_MUL },
    { "div %ecx",             { 0xf7, 0xf1 }, 2, CLASS_DIV },
    { "lock incl (%eax)",     { 0xf0, 0xff, 0x00 }, 3, CLASS_LOCKED },
    { "xchg %eax,(%ebx)",     { 0x87, 0x03 }, 2, CLASS_LOCKED },
    { "rep movsb",            { 0xf3, 0xa4 }, 2, CLASS_STRING },
    { "ud2",                  { 0x0f, 0x0b }, 2, CLASS_OTHER },
    { "in $0x60,%al",         { 0xe4, 0x60 }, 2, CLASS_IO },
    { "rdtsc",                { 0x0f, 0x31 }, 2, CLASS_RDTSC },
    { "cpuid",                { 0x0f, 0xa2 }, 2, CLASS_CPUID },
    { "wrmsr",                { 0x0f, 0x30 }, 2, CLASS_WRMSR },
    { "lea 4(%ebx),%eax",     { 0x8d, 0x43, 0x04 }, 3, CLASS_ALU },
    { "call *(%eax)",         { 0xff, 0x10 }, 2, CLASS_INDIRECT },
    { "sysexit",              { 0x0f, 0x35 }, 2, CLASS_SYSEXIT },
    { "iret",                 { 0xcf }, 1, CLASS_IRET },
    { "out %eax,$0xe0",       { 0xe7, 0xe0 }, 2, CLASS_IO },
    { "mov %eax,%cr3",        { 0x0f, 0x22, 0xd8 }, 3, CLASS_SYSTEM },
    { "sysenter",             { 0x0f, 0x34 }, 2, CLASS_SYSENTER },
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
    /* mov; add (mem); push; pop %ds; pushf; cli; mul; int $0x80 */
    uint8_t code[] = { 0x89, 0xd8, 0x03, 0x03, 0x50, 0x1f, 0x9c, 0xfa, 0xf7, 0xe1, 0xcd, 0x80 };
    struct block *b = block_decode(&bc, 0x2000, code, sizeof code);
    const uint32_t *c = p4->cost;
    ck_assert_uint_eq(b->ninsns, 8);
    uint64_t expected = c[CLASS_ALU] + c[CLASS_LOAD] + c[CLASS_PUSH] + c[CLASS_SEGPOP] +
                        c[CLASS_PUSHF] + c[CLASS_CLI] + c[CLASS_MUL];
    /* int n is charged at delivery, by gate type, not here */
    ck_assert_uint_eq(b->cost, expected);
    ck_assert_uint_eq(b->insns[7].flags & INSN_SOFTINT, INSN_SOFTINT);
    ck_assert_uint_eq(b->insns[7].int_vector, 0x80);
    ck_assert_uint_eq(block_prefix_cost(b, 3), c[CLASS_ALU] + c[CLASS_LOAD] + c[CLASS_PUSH]);
    block_free(b);
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

Suite *decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("classes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, each_sample_lands_in_its_class);
    tcase_add_test(tc, a_block_costs_the_sum_of_its_classes);
    tcase_add_test(tc, special_instructions_are_flagged_for_code_hooks);
    tcase_add_test(tc, rewritten_code_is_decoded_again);
    tcase_add_test(tc, cache_survives_growth);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(decode_suite());
}
