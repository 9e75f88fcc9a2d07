/* CPUID, the SYSENTER MSRs and the TSC of each CPU model, on bare machines. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static struct bare b;

/* ring 0: wrmsr(0x174, 0x60); rdmsr back into a marker register; hlt */
static const uint8_t kernel_wrmsr[] = {
    0xb9, 0x74, 0x01, 0, 0,  /* mov $0x174,%ecx */
    0xb8, 0x60, 0, 0, 0,     /* mov $0x60,%eax */
    0x31, 0xd2,              /* xor %edx,%edx */
    0x0f, 0x30,              /* wrmsr */
    0x31, 0xc0,              /* xor %eax,%eax */
    0x0f, 0x32,              /* rdmsr */
    0x89, 0xc6,              /* mov %eax,%esi */
    0xf4,
};

/* The Pentium Pro has them too: Linux 2.6.0-test3 wrote them on a
 * stepping-9 part and booted to init (linux-kernel, 21 Aug 2003). */
START_TEST(sysenter_msrs_exist_only_with_sep)
{
    const char *with[] = { "pentium3", "pentiumpro" };
    for (int i = 0; i < 2; i++) {
        bare_init(&b, with[i]);
        bare_write(&b, BARE_HANDLER - 0x100, kernel_wrmsr, sizeof kernel_wrmsr);
        bare_run(&b, BARE_HANDLER - 0x100, false);
        ck_assert_int_eq(bare_halted_vector(&b), -1);
        ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ESI), 0x60);
        bare_destroy(&b);
    }

    const char *without[] = { "pentium3,-sep", "pentiumpro,-sep" };
    for (int i = 0; i < 2; i++) {
        bare_init(&b, without[i]);
        bare_write(&b, BARE_HANDLER - 0x100, kernel_wrmsr, sizeof kernel_wrmsr);
        bare_run(&b, BARE_HANDLER - 0x100, false);
        ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 0x200 - 16), 0);       /* error 0 */
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 0x200 - 12),
                          BARE_HANDLER - 0x100 + 12);                          /* at wrmsr */
        bare_destroy(&b);
    }
}
END_TEST

static uint32_t cpuid_edx(const char *model, uint32_t *signature)
{
    uint8_t code[] = { 0xb8, 1, 0, 0, 0, 0x0f, 0xa2, 0x89, 0xc6, 0xf4 }; /* cpuid; mov %eax,%esi */
    bare_init(&b, model);
    bare_write(&b, BARE_HANDLER - 0x100, code, sizeof code);
    bare_run(&b, BARE_HANDLER - 0x100, false);
    uint32_t edx = bare_reg(&b, UC_X86_REG_EDX);
    *signature = bare_reg(&b, UC_X86_REG_ESI);
    bare_destroy(&b);
    return edx;
}

START_TEST(cpuid_reports_model_signature_and_sep)
{
    uint32_t sig;
    ck_assert_uint_ne(cpuid_edx("pentium4", &sig) & CPUID_FEATURE_SEP, 0);
    ck_assert_uint_eq(sig, 0xf27);
    ck_assert_uint_eq(cpuid_edx("pentium4,-sep", &sig) & CPUID_FEATURE_SEP, 0);
    ck_assert_uint_ne(cpuid_edx("pentium3", &sig) & CPUID_FEATURE_SEP, 0);
    ck_assert_uint_eq(sig, 0x686);
    /* the Pentium Pro claims SEP; the kernel must not believe it */
    ck_assert_uint_ne(cpuid_edx("pentiumpro", &sig) & CPUID_FEATURE_SEP, 0);
    ck_assert_uint_eq(sig, 0x611);
    ck_assert_uint_ne(cpuid_edx("pentiumpro", &sig) & CPUID_FEATURE_TSC, 0);
}
END_TEST

/* cpuid leaf in EAX, on a bare machine of model: EAX..EDX. */
static void cpuid_of(const char *model, uint32_t leaf, uint32_t r[4])
{
    uint8_t code[] = { 0xb8, (uint8_t)leaf, (uint8_t)(leaf >> 8), (uint8_t)(leaf >> 16),
                       (uint8_t)(leaf >> 24), 0x0f, 0xa2, 0xf4 };   /* mov $leaf,%eax; cpuid */
    bare_init(&b, model);
    bare_write(&b, BARE_HANDLER - 0x100, code, sizeof code);
    bare_run(&b, BARE_HANDLER - 0x100, false);
    r[0] = bare_reg(&b, UC_X86_REG_EAX);
    r[1] = bare_reg(&b, UC_X86_REG_EBX);
    r[2] = bare_reg(&b, UC_X86_REG_ECX);
    r[3] = bare_reg(&b, UC_X86_REG_EDX);
    bare_destroy(&b);
}

/* The K7 and the Banias as they reported themselves (docs/cost-model.md,
 * "The new parts": an XP 2000+'s boot log, a Dell D600's x86info). */
START_TEST(cpuid_reports_the_k7_and_the_banias)
{
    uint32_t r[4];
    char vendor[13] = { 0 };
    cpuid_of("athlon", 0, r);
    memcpy(vendor, &r[1], 4), memcpy(vendor + 4, &r[3], 4), memcpy(vendor + 8, &r[2], 4);
    ck_assert_str_eq(vendor, "AuthenticAMD");
    ck_assert_uint_eq(r[0], 1);
    cpuid_of("athlon", 1, r);
    ck_assert_uint_eq(r[0], 0x662);
    ck_assert_uint_eq(r[3], 0x0383fbff);
    cpuid_of("athlon", 0x80000001u, r);
    ck_assert_uint_eq(r[3], 0xc1c3fbff);
    cpuid_of("pentium-m", 0, r);
    memcpy(vendor, &r[1], 4), memcpy(vendor + 4, &r[3], 4), memcpy(vendor + 8, &r[2], 4);
    ck_assert_str_eq(vendor, "GenuineIntel");
    ck_assert_uint_eq(r[0], 2);
    cpuid_of("pentium-m", 1, r);
    ck_assert_uint_eq(r[0], 0x695);
    ck_assert_uint_eq(r[3], 0xa7e9f9bf);          /* SEP, no PAE, no APIC */
    cpuid_of("pentium-m", 0x80000002u, r);
    ck_assert_uint_eq(r[2], 0x65746e49);          /* "Inte", as x86info printed it */
    cpuid_of("pentium-m,-sep", 1, r);
    ck_assert_uint_eq(r[3], 0xa7e9f9bf & ~CPUID_FEATURE_SEP);
}
END_TEST

START_TEST(rdtsc_counts_modeled_cycles)
{
    /* rdtsc; mov %eax,%esi; imul %ecx,%ecx x3; rdtsc; hlt */
    uint8_t code[] = { 0x0f, 0x31, 0x89, 0xc6, 0x0f, 0xaf, 0xc9, 0x0f, 0xaf, 0xc9,
                       0x0f, 0xaf, 0xc9, 0x0f, 0x31, 0xf4 };
    bare_init(&b, "pentium3");
    bare_write(&b, BARE_HANDLER - 0x100, code, sizeof code);
    bare_run(&b, BARE_HANDLER - 0x100, false);
    const uint32_t *cost = b.m.cpu.cost;
    uint32_t expected = (cost[CLASS_RDTSC] + cost[CLASS_ALU] + 3 * cost[CLASS_MUL]) / 100;
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EAX) - bare_reg(&b, UC_X86_REG_ESI), expected);
    bare_destroy(&b);
}
END_TEST

/* The rdtsc's hook moves EIP past it: in a code segment whose base is not
 * 0, EIP is an offset in that segment, not the linear address. */
START_TEST(rdtsc_in_a_code_segment_with_a_base_goes_on_after_it)
{
    const uint32_t base = BARE_HANDLER - 0x1000, sel = 20 * 8;
    uint64_t desc = 0x00cf9a000000ffffull | (uint64_t)(base & 0xffffff) << 16 |
                    (uint64_t)(base >> 24) << 56;
    uint32_t at = BARE_HANDLER - 0x100, eip = at + 7 - base;
    /* ljmp $sel,$eip; then there: rdtsc; mov $0x1234,%esi; hlt */
    uint8_t code[] = { 0xea, (uint8_t)eip, (uint8_t)(eip >> 8), 0, 0, (uint8_t)sel, 0,
                       0x0f, 0x31, 0xbe, 0x34, 0x12, 0, 0, 0xf4 };
    bare_init(&b, "pentium4");
    bare_write(&b, BARE_GDT + sel, &desc, sizeof desc);
    bare_write(&b, at, code, sizeof code);
    bare_run(&b, at, false);
    ck_assert_int_eq(bare_halted_vector(&b), -1);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_CS), sel);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ESI), 0x1234);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), at + sizeof code - base);
    bare_destroy(&b);
}
END_TEST

Suite *cpu_insns_suite(void)
{
    Suite *s = suite_create("cpu_insns");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, sysenter_msrs_exist_only_with_sep);
    tcase_add_test(tc, cpuid_reports_model_signature_and_sep);
    tcase_add_test(tc, cpuid_reports_the_k7_and_the_banias);
    tcase_add_test(tc, rdtsc_counts_modeled_cycles);
    tcase_add_test(tc, rdtsc_in_a_code_segment_with_a_base_goes_on_after_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(cpu_insns_suite());
}
