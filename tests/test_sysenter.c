/* sysenter and sysexit on bare machines; the vsyscall page under the guest
 * kernel. */
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

/* The kernel moves SYSENTER_EIP with a wrmsr between two sysenters: the
 * second enters at the new value (the first read is not kept past it). */
START_TEST(a_wrmsr_between_two_sysenters_moves_the_second)
{
    uint32_t moved = TRAMPOLINE + 0x10;
    uint8_t wrmsr[] = { 0xb9, 0x76, 0x01, 0x00, 0x00,       /* mov $0x176,%ecx */
                        0xb8, (uint8_t)moved, (uint8_t)(moved >> 8),
                        (uint8_t)(moved >> 16), (uint8_t)(moved >> 24), /* mov $moved,%eax */
                        0x31, 0xd2,                         /* xor %edx,%edx */
                        0x0f, 0x30,                         /* wrmsr */
                        0xf4 };                             /* hlt */
    uint8_t hlt = 0xf4;
    bare_init(&b, "pentium4");
    setup_sep_msrs();
    bare_write(&b, moved, &hlt, 1);
    run_user(user_sysenter, sizeof user_sysenter);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), TRAMPOLINE + 1);
    bare_write(&b, BARE_HANDLER - 0x100, wrmsr, sizeof wrmsr);
    b.m.stop = STOP_NONE;   /* each run ends at a hlt */
    bare_run(&b, BARE_HANDLER - 0x100, false);
    b.m.stop = STOP_NONE;
    run_user(user_sysenter, sizeof user_sysenter);
    ck_assert_uint_eq(bare_reg(&b, UC_X86_REG_EIP), moved + 1);
    ck_assert_uint_eq(b.sys.by_path[PATH_SYSENTER], 2);
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
    const char *models[] = { "pentium4,-sep", "pentium3,-sep", "pentiumpro,-sep" };
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

/* Intel: the Pentium Pro "does not support" sysenter; on the parts tried
 * in 2003 (steppings 1, 7, 9) it raised #GP with the MSRs unset. */
START_TEST(sysenter_on_a_pentium_pro_with_the_msrs_unset_is_gp0)
{
    const char *models[] = { "pentiumpro", "pentiumpro,stepping=9" };
    for (int i = 0; i < 2; i++) {
        bare_init(&b, models[i]);
        run_user(user_sysenter, sizeof user_sysenter);
        ck_assert_int_eq(bare_halted_vector(&b), X86_VEC_GP);
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 24), 0);               /* error 0 */
        ck_assert_uint_eq(bare_u32(&b, BARE_KSTACK - 20), BARE_UCODE + 5);  /* at sysenter */
        bare_destroy(&b);
    }
}
END_TEST

/* A stepping-9 Pentium Pro passes Linux 2.5.53's SEP check; the kernel sets
 * the MSRs and the first system call through the page completes and its
 * sysexit double-faults, as the 2003 report says. A stepping-1 part is
 * caught by the check and runs on int $0x80. */
START_TEST(a_pentium_pro_that_passes_the_check_double_faults_at_sysexit)
{
    struct emu_result r;
    emu(&r, "run", "-v", "--cpu", "pentiumpro,stepping=9", program("hello"), NULL);
    ck_assert_int_eq(r.status, 125);
    ck_assert_ptr_nonnull(strstr(r.err, "stepping 9, SEP on"));
    ck_assert_ptr_nonnull(strstr(r.err, "double fault at the sysexit"));
    ck_assert_ptr_nonnull(strstr(r.err, "undocumented"));
    ck_assert_str_eq(r.out, "hello\n");            /* the write itself completed */
    emu_result_free(&r);
    emu(&r, "run", "-v", "--cpu", "pentiumpro", program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.err, "stepping 1, SEP off"));
    emu_result_free(&r);
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

/* ------------------------------------------ the vsyscall page (guest) */

static const char *const models[] = {
    "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep", "pentiumpro",
};
#define NMODELS 5

START_TEST(sysenter_by_hand_returns_through_sysenter_return_on_sep)
{
    const char *cpu = _i ? "pentium3" : "pentium4";
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, program("faults"), "sysenter-by-hand", NULL);
    ck_assert_msg(r.status == 0, "sysenter-by-hand on %s: exit %d, %s", cpu, r.status, r.err);
    ck_assert_msg(strstr(r.out, "sysenter-by-hand: returned 2\n"), "%s", r.out);   /* getpid */
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    ck_assert_msg(s >= 1, "no sysenter counted: %s", r.err);
    emu_result_free(&r);
}
END_TEST

/* The K7 and the Pentium M: the guest kernel reads each part's identity
 * from CPUID as 2.5.53's does (vendor, family, model, stepping, SEP), its
 * sysenter_setup enables SEP (it tests the SEP bit alone), and the calls
 * go through sysenter and leave by sysexit; without SEP, through int. */
START_TEST(sysenter_works_on_the_k7_and_the_pentium_m)
{
    static const char *const parts[][2] = {
        { "athlon", "CPU: AuthenticAMD family 6 model 6 stepping 2, SEP " },
        { "pentium-m", "CPU: GenuineIntel family 6 model 9 stepping 5, SEP " },
    };
    for (int sep = 1; sep >= 0; sep--) {
        char cpu[32], want[96];
        snprintf(cpu, sizeof cpu, "%s%s", parts[_i][0], sep ? "" : ",-sep");
        snprintf(want, sizeof want, "%s%s", parts[_i][1], sep ? "on" : "off");
        struct emu_result r;
        emu(&r, "run", "-v", "--report", "--cpu", cpu, program("linus_loop"), "getppid", "100",
            NULL);
        ck_assert_msg(r.status == 0, "%s: exit %d, %s", cpu, r.status, r.err);
        ck_assert_msg(strstr(r.err, want), "%s: want '%s' in %s", cpu, want, r.err);
        ck_assert(!strstr(r.err, "Enabling SEP on CPU 0") == !sep);
        long s = 0, i = 0, x = 0, ir = 0;
        ck_assert(report_paths(r.err, &s, &i, &x, &ir));
        if (sep)
            ck_assert_msg(s >= 100 && x >= 100 && i >= 100, "%s: %s", cpu, r.err);
        else
            ck_assert_msg(s == 0 && x == 0 && i >= 200, "%s: %s", cpu, r.err);
        emu_result_free(&r);
    }
}
END_TEST

START_TEST(vsyscall_page_is_user_readable)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium4", program("faults"), "vsyscall-read", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "vsyscall-read: 51\n");
    emu_result_free(&r);
    emu(&r, "run", "--cpu", "pentiumpro", program("faults"), "vsyscall-read", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "vsyscall-read: cd\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(vsyscall_jump_odd_ends_cleanly)
{
    const char *cpu = models[_i];
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("faults"), "vsyscall-jump-odd", NULL);
    bool killed = r.status == 128 + 4 || r.status == 128 + 5 || r.status == 128 + 7 ||
                  r.status == 128 + 8 || r.status == 128 + 11;
    ck_assert_msg(r.status == 0 || killed,
                  "vsyscall-jump-odd on %s: exit %d (not a clean exit or kill): %s", cpu,
                  r.status, r.err);
    if (killed) {
        ck_assert_msg(strstr(r.err, "killed by") && count_char(r.err, '\n') == 1, "%s",
                      r.err);
    } else {
        ck_assert_str_eq(r.err, "");
    }
    emu_result_free(&r);
}
END_TEST

Suite *sysenter_suite(void)
{
    Suite *s = suite_create("sysenter");
    TCase *tc = tcase_create("sep");
    tcase_add_test(tc, sysenter_enters_ring0_at_msr_eip_and_esp);
    tcase_add_test(tc, a_wrmsr_between_two_sysenters_moves_the_second);
    tcase_add_test(tc, sysexit_returns_to_ring3_with_ecx_edx);
    tcase_add_test(tc, sysenter_without_sep_is_ud);
    tcase_add_test(tc, sysenter_with_zero_sysenter_cs_is_gp0);
    tcase_add_test(tc, sysenter_on_a_pentium_pro_with_the_msrs_unset_is_gp0);
    tcase_add_test(tc, a_pentium_pro_that_passes_the_check_double_faults_at_sysexit);
    tcase_add_test(tc, sysexit_from_ring3_is_gp);
    suite_add_tcase(s, tc);

    tc = tcase_create("vsyscall page");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, sysenter_by_hand_returns_through_sysenter_return_on_sep, 0, 2);
    tcase_add_loop_test(tc, sysenter_works_on_the_k7_and_the_pentium_m, 0, 2);
    tcase_add_test(tc, vsyscall_page_is_user_readable);
    tcase_add_loop_test(tc, vsyscall_jump_odd_ends_cleanly, 0, NMODELS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(sysenter_suite());
}
