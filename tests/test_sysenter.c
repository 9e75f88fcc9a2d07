/* sysenter, sysexit, the SYSENTER MSRs, CPUID and the TSC on bare machines. */
#include <check.h>
#include <stdlib.h>
#include "support.h"

#define TRAMPOLINE (BARE_HANDLER - 0x800)   /* where SYSENTER_EIP points */
#define SYSENTER_STACK (BARE_KSTACK - 0x1000)

static struct bare b;

static void set_msr(uint32_t index, uint64_t value)
{
    uc_x86_msr msr = { .rid = index, .value = value };
    ck_assert_int_eq(uc_reg_write(b.m.uc, UC_X86_REG_MSR, &msr), UC_ERR_OK);
}

static void setup_sep_msrs(void)
{
    uint8_t hlt = 0xf4;
    bare_write(&b, TRAMPOLINE, &hlt, 1);
    set_msr(MSR_IA32_SYSENTER_CS, __KERNEL_CS);
    set_msr(MSR_IA32_SYSENTER_ESP, SYSENTER_STACK);
    set_msr(MSR_IA32_SYSENTER_EIP, TRAMPOLINE);
}

static void run_user(const uint8_t *code, size_t n)
{
    bare_write(&b, BARE_UCODE, code, n);
    bare_run(&b, BARE_UCODE, true);
}

static const uint8_t user_sysenter[] = { 0xbd, 0x44, 0x33, 0x22, 0x11, /* mov $0x11223344,%ebp */
                                         0x0f, 0x34 };                  /* sysenter */

START_TEST(sysenter_enters_ring0_at_msr_eip_and_esp)
{
    bare_init(&b, "pentium4");
    setup_sep_msrs();
    run_user(user_sysenter, sizeof user_sysenter);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), TRAMPOLINE + 1); /* after hlt */
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_CS), __KERNEL_CS);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_SS), __KERNEL_DS);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ESP), SYSENTER_STACK);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EFLAGS) & X86_EFLAGS_IF, 0);  /* IF cleared */
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EBP), 0x11223344);    /* untouched */
    ck_assert_uint_eq(b.sys.by_path[PATH_SYSENTER], 1);
    bare_destroy(&b);
}
END_TEST

START_TEST(sysexit_returns_to_ring3_with_ecx_edx)
{
    /* ring 0: mov $esp,%ecx; mov $eip,%edx; sysexit -> user hlt, which is
     * #GP at CPL 3: the #GP frame shows where sysexit landed. */
    bare_init(&b, "pentium4");
    setup_sep_msrs();
    uint8_t code[] = { 0xb9, 0x00, 0xf0, 0x0f, 0x08,  /* mov $0x080ff000,%ecx */
                       0xba, 0x00, 0x90, 0x04, 0x08,  /* mov $0x08049000,%edx */
                       0x0f, 0x35 };                  /* sysexit */
    uint8_t hlt = 0xf4;
    bare_write(&b, 0x08049000, &hlt, 1);
    bare_write(&b, BARE_HANDLER - 0x100, code, sizeof code);
    bare_run(&b, BARE_HANDLER - 0x100, false);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    uint32_t f = BARE_KSTACK - 24;                    /* err, eip, cs, eflags, esp, ss */
    ck_assert_uint_eq(bare_u32(&b, f + 4), 0x08049000);
    ck_assert_uint_eq(bare_u32(&b, f + 8), __USER_CS);
    ck_assert_uint_eq(bare_u32(&b, f + 16), 0x080ff000);
    ck_assert_uint_eq(bare_u32(&b, f + 20), __USER_DS);
    bare_destroy(&b);
}
END_TEST

START_TEST(sysenter_without_sep_is_ud)
{
    const char *models[] = { "pentium4,-sep", "pentium3,-sep", "pentiumpro" };
    for (int i = 0; i < 3; i++) {
        bare_init(&b, models[i]);
        run_user(user_sysenter, sizeof user_sysenter);
        ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_UD);
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 20), BARE_UCODE + 5); /* at sysenter */
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 16), __USER_CS);
        bare_destroy(&b);
    }
}
END_TEST

START_TEST(sysenter_with_zero_sysenter_cs_is_gp0)
{
    bare_init(&b, "pentium3");
    run_user(user_sysenter, sizeof user_sysenter);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 24), 0);
    bare_destroy(&b);
}
END_TEST

START_TEST(sysexit_from_ring3_is_gp)
{
    bare_init(&b, "pentium4");
    setup_sep_msrs();
    uint8_t code[] = { 0x0f, 0x35 };
    run_user(code, sizeof code);
    ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
    ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 20), BARE_UCODE);
    bare_destroy(&b);
}
END_TEST

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

START_TEST(sysenter_msrs_exist_only_with_sep)
{
    bare_init(&b, "pentium3");
    bare_write(&b, BARE_HANDLER - 0x100, kernel_wrmsr, sizeof kernel_wrmsr);
    bare_run(&b, BARE_HANDLER - 0x100, false);
    ck_assert_int_eq(bare_halted_vector(&b), -1);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_ESI), 0x60);
    bare_destroy(&b);

    const char *without[] = { "pentium3,-sep", "pentiumpro" };
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

Suite *sysenter_suite(void)
{
    Suite *s = suite_create("sysenter");
    TCase *tc = tcase_create("sep");
    tcase_add_test(tc, sysenter_enters_ring0_at_msr_eip_and_esp);
    tcase_add_test(tc, sysexit_returns_to_ring3_with_ecx_edx);
    tcase_add_test(tc, sysenter_without_sep_is_ud);
    tcase_add_test(tc, sysenter_with_zero_sysenter_cs_is_gp0);
    tcase_add_test(tc, sysexit_from_ring3_is_gp);
    tcase_add_test(tc, sysenter_msrs_exist_only_with_sep);
    tcase_add_test(tc, cpuid_reports_model_signature_and_sep);
    tcase_add_test(tc, rdtsc_counts_modeled_cycles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(sysenter_suite());
}
