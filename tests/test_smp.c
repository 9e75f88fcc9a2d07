/*
 * --smp N (emu/smp.c, guest/kernel/smp.c): the SMP kernel starts every AP
 * with INIT and STARTUP, and smp_call_function(enable_sep_cpu) gives each
 * CPU its own trampoline page and SYSENTER MSRs, as the 2.5.53 patch does;
 * the turns are the same on every run; one CPU is the one-CPU machine.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/smp.h"

static struct machine *m;
static struct run_options opts;
static char *argv_hello[] = { NULL, NULL };
static char *envp[] = { NULL };

static void boot_smp(int n)
{
    memset(&opts, 0, sizeof opts);
    argv_hello[0] = (char *)program("hello");
    opts.cpu_spec = "pentium4";
    opts.max_insns = 20000000;
    opts.program = argv_hello[0];
    opts.argc = 1;
    opts.argv = argv_hello;
    opts.envp = envp;
    opts.quiet = true;
    opts.smp = n;
    m = calloc(1, sizeof *m);
    ck_assert_int_eq(machine_init(m, &opts), 0);
    ck_assert_int_eq(m->ncpus, n);
    machine_run(m);
}

static void teardown(void)
{
    machine_destroy(m);
    free(m);
}

static uint32_t smp_sym(const char *name)
{
    uint32_t a = ksym_find(kernel_smp_image_start,
                           (size_t)(kernel_smp_image_end - kernel_smp_image_start), name);
    ck_assert_msg(a != 0, "no %s in the SMP kernel", name);
    return a;
}

static uint32_t u32_at(uint32_t addr)
{
    uint32_t v;
    memcpy(&v, guest_ptr(&m->mem, addr, 4), 4);
    return v;
}

/* Each CPU: SYSENTER_EIP is the start of its own trampoline page, whose
 * "movl %ss:esp0_slot, %esp" reads that CPU's TSS esp0, and SYSENTER_ESP
 * the top of its own stack page. */
static void check_sep_per_cpu(int n)
{
    uint32_t tss = smp_sym("init_tss"), pages[8], stacks[8];
    for (int c = 0; c < n; c++) {
        uint32_t eip = (uint32_t)engine_read_msr(m->engines[c], MSR_IA32_SYSENTER_EIP);
        uint32_t esp = (uint32_t)engine_read_msr(m->engines[c], MSR_IA32_SYSENTER_ESP);
        ck_assert_uint_eq(engine_read_msr(m->engines[c], MSR_IA32_SYSENTER_CS), __KERNEL_CS);
        ck_assert_uint_eq(eip & (PAGE_SIZE - 1), 0);
        /* the trap stack is a page of its own, not the code's (engine.h,
         * quirk 24; Linux's fix of 17 December 2002) */
        ck_assert_uint_eq(esp & (PAGE_SIZE - 1), 0);
        ck_assert_uint_ne(esp - PAGE_SIZE, eip);
        const uint8_t *code = guest_ptr(&m->mem, eip, 12);
        ck_assert_int_eq(code[0], 0x36);   /* %ss: */
        ck_assert_int_eq(code[1], 0x8b);
        ck_assert_int_eq(code[2], 0x25);
        ck_assert_uint_eq(u32_at(eip + 3), tss + 104 * (uint32_t)c + 4);
        ck_assert_int_eq(code[7], 0xe9);
        ck_assert_uint_eq(eip + 12 + u32_at(eip + 8), smp_sym("sysenter_entry"));
        for (int k = 0; k < c; k++) {
            ck_assert_uint_ne(pages[k], eip);
            ck_assert_uint_ne(stacks[k], esp);
        }
        pages[c] = eip;
        stacks[c] = esp;
    }
}

START_TEST(two_cpus_each_have_their_own_sep_trampoline)
{
    boot_smp(2);
    check_sep_per_cpu(2);
}
END_TEST

START_TEST(four_cpus_each_have_their_own_sep_trampoline)
{
    boot_smp(4);
    check_sep_per_cpu(4);
}
END_TEST

START_TEST(each_ap_runs_on_its_own_gdt_and_tss)
{
    boot_smp(4);
    uint32_t gdt = smp_sym("gdt_table"), tss = smp_sym("init_tss");
    for (int c = 1; c < 4; c++) {
        uc_x86_mmr gdtr;
        uc_reg_read(m->engines[c], UC_X86_REG_GDTR, &gdtr);
        ck_assert_uint_eq(gdtr.base, gdt + (uint32_t)c * GDT_ENTRIES * 8);
        uc_x86_mmr tr;
        uc_reg_read(m->engines[c], UC_X86_REG_TR, &tr);
        ck_assert_uint_eq(tr.base, tss + 104 * (uint32_t)c);
    }
}
END_TEST

START_TEST(the_turns_are_the_same_on_every_run)
{
    uint64_t cycles[2][4], insns[2];
    char msg[2][512];
    for (int run = 0; run < 2; run++) {
        boot_smp(4);
        for (int c = 0; c < 4; c++)
            cycles[run][c] = c == m->cpu_id ? m->cycles : m->smp->cpus[c].local.cycles;
        insns[run] = m->insns;
        memcpy(msg[run], m->message, sizeof msg[run]);
        if (run == 0)
            teardown();
    }
    for (int c = 0; c < 4; c++)
        ck_assert_uint_eq(cycles[0][c], cycles[1][c]);
    ck_assert_uint_eq(insns[0], insns[1]);
    ck_assert_str_eq(msg[0], msg[1]);
}
END_TEST

static void run_log(struct emu_result *r, const char *n)
{
    emu(r, "run", "-v", "--smp", n, program("hello"), NULL);
}

START_TEST(verbose_boot_enables_sep_on_every_cpu)
{
    struct emu_result r;
    run_log(&r, "4");
    for (int c = 0; c < 4; c++) {
        char line[64];
        snprintf(line, sizeof line, "Enabling SEP on CPU %d", c);
        ck_assert_int_eq(count_lines_containing(r.err, line), 1);
    }
    ck_assert_int_eq(count_lines_containing(r.err, "Total of 4 processors activated"), 1);
    emu_result_free(&r);
}
END_TEST

START_TEST(programs_run_to_their_end_on_2_and_4_cpus)
{
    struct emu_result one, r;
    emu(&one, "run", program("hello"), NULL);
    ck_assert_int_eq(one.status, 0);
    const char *ns[] = { "2", "4" };
    for (int i = 0; i < 2; i++) {
        emu(&r, "run", "--smp", ns[i], program("hello"), NULL);
        ck_assert_msg(r.status == 0, "--smp %s: %d %s", ns[i], r.status, r.err);
        ck_assert_str_eq(r.out, one.out);
        emu_result_free(&r);
    }
    emu_result_free(&one);
}
END_TEST

START_TEST(one_cpu_is_the_machine_without_smp)
{
    struct emu_result a, b;
    emu(&a, "run", "--report", program("hello"), NULL);
    emu(&b, "run", "--smp", "1", "--report", program("hello"), NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    ck_assert_str_eq(a.err, b.err);
    ck_assert_str_eq(a.out, b.out);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

START_TEST(bad_smp_counts_are_usage_errors)
{
    const char *bad[] = { "0", "9", "two", "", "-1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct emu_result r;
        emu(&r, "run", "--smp", bad[i], program("hello"), NULL);
        ck_assert_int_eq(r.status, 2);
        ck_assert_int_eq(count_char(r.err, '\n'), 1);
        emu_result_free(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("smp");
    TCase *boot = tcase_create("boot");
    tcase_add_checked_fixture(boot, NULL, teardown);
    tcase_set_timeout(boot, 60);
    tcase_add_test(boot, two_cpus_each_have_their_own_sep_trampoline);
    tcase_add_test(boot, four_cpus_each_have_their_own_sep_trampoline);
    tcase_add_test(boot, each_ap_runs_on_its_own_gdt_and_tss);
    tcase_add_test(boot, the_turns_are_the_same_on_every_run);
    suite_add_tcase(s, boot);
    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 60);
    tcase_add_test(cli, verbose_boot_enables_sep_on_every_cpu);
    tcase_add_test(cli, one_cpu_is_the_machine_without_smp);
    tcase_add_test(cli, programs_run_to_their_end_on_2_and_4_cpus);
    tcase_add_test(cli, bad_smp_counts_are_usage_errors);
    suite_add_tcase(s, cli);
    return run_suite(s);
}
