/*
 * --smp N (emu/cpu/smp.c, guest/kernel/smp.c): the SMP kernel starts every AP
 * with INIT and STARTUP, and smp_call_function(enable_sep_cpu) gives each
 * CPU its own trampoline page and SYSENTER MSRs, as the 2.5.53 patch does;
 * the turns are the same on every run; one CPU is the one-CPU machine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/cpu/smp.h"

static struct machine *m;
static struct run_options opts;
static char *argv_hello[] = { NULL, NULL };
static char *envp[] = { NULL };

static char *argv_smp[4];

/* The machine with n CPUs and the program of argv (argc words), booted,
 * not yet run; test_hooks: BOOT_FLAG_SMP_*. */
static void init_smp(int n, int argc, char **argv, uint32_t test_hooks)
{
    memset(&opts, 0, sizeof opts);
    opts.cpu_spec = "pentium4";
    opts.max_insns = 50000000;
    opts.program = argv[0];
    opts.argc = argc;
    opts.argv = argv;
    opts.envp = envp;
    opts.quiet = true;
    opts.smp = n;
    opts.harness.smp_test = test_hooks;
    m = calloc(1, sizeof *m);
    ck_assert_int_eq(machine_init(m, &opts), 0);
    ck_assert_int_eq(m->ncpus, n);
}

static void boot_smp(int n)
{
    argv_hello[0] = (char *)program("hello");
    init_smp(n, 1, argv_hello, 0);
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
 * the top of that page (the seed patch's page + PAGE_SIZE). */
static void check_sep_per_cpu(int n)
{
    uint32_t tss = smp_sym("init_tss"), pages[8], stacks[8];
    for (int c = 0; c < n; c++) {
        uint32_t eip = (uint32_t)engine_read_msr(m->engines[c], MSR_IA32_SYSENTER_EIP);
        uint32_t esp = (uint32_t)engine_read_msr(m->engines[c], MSR_IA32_SYSENTER_ESP);
        ck_assert_uint_eq(engine_read_msr(m->engines[c], MSR_IA32_SYSENTER_CS), __KERNEL_CS);
        ck_assert_uint_eq(eip & (PAGE_SIZE - 1), 0);
        /* the trap stack is the top of the trampoline's own page, as in
         * the seed patch (Linux moved it off the code's page on 17
         * December 2002, 6439c70388; docs/fidelity.md) */
        ck_assert_uint_eq(esp, eip + PAGE_SIZE);
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


/* ---- processes on every CPU ---- */

struct entry_watch {
    uint32_t entry, tss;
    int seen[MAX_CPUS];        /* blocks at sysenter_entry, by CPU */
    int on_own_stack[MAX_CPUS];/* ... with ESP = that CPU's TSS esp0 */
};

static void watch_entry(void *ctx, struct machine *mm, const struct block *b)
{
    struct entry_watch *w = ctx;
    if (b->addr != w->entry)
        return;
    uint32_t esp = reg_read(mm, UC_X86_REG_ESP);
    w->seen[mm->cpu_id]++;
    if (esp == u32_at(w->tss + 104 * (uint32_t)mm->cpu_id + 4))
        w->on_own_stack[mm->cpu_id]++;
}

START_TEST(a_sysenter_call_on_cpu_1_runs_on_cpu_1s_kernel_stack)
{
    static struct entry_watch w;
    memset(&w, 0, sizeof w);
    argv_smp[0] = (char *)program("smp");
    argv_smp[1] = "pin";
    argv_smp[2] = "1";
    init_smp(2, 3, argv_smp, 0);
    w.entry = smp_sym("sysenter_entry");
    w.tss = smp_sym("init_tss");
    struct machine_observer o = { .ctx = &w, .block = watch_entry };
    ck_assert_int_eq(machine_observe(m, &o), 0);
    ck_assert_int_eq(machine_run(m), 0);
    /* after sched_setaffinity the calls (getppid x3, getpid, write x3...)
     * are CPU 1's, each on CPU 1's own esp0, which is not CPU 0's */
    ck_assert_int_ge(w.seen[1], 5);
    ck_assert_int_eq(w.on_own_stack[1], w.seen[1]);
    ck_assert_int_eq(w.on_own_stack[0], w.seen[0]);
    ck_assert_uint_ne(u32_at(w.tss + 4), u32_at(w.tss + 104 + 4));
}
END_TEST

START_TEST(an_ap_that_faults_during_start_up_stops_the_machine_with_125)
{
    argv_hello[0] = (char *)program("hello");
    init_smp(4, 1, argv_hello, BOOT_FLAG_SMP_AP_FAULT);
    ck_assert_int_eq(machine_run(m), 125);
    ck_assert_msg(strstr(m->message, "CPU 3 failed during start-up: ") != NULL, "%s",
                  m->message);
}
END_TEST

START_TEST(a_spinlock_never_released_is_reported_as_a_deadlock)
{
    argv_hello[0] = (char *)program("hello");
    init_smp(2, 1, argv_hello, BOOT_FLAG_SMP_HOLD_LOCK);
    ck_assert_int_eq(machine_run(m), 125);
    ck_assert_str_eq(m->message, "deadlock: CPU 0 waits for a test lock, held by CPU 1, "
                     "which does not release it");
}
END_TEST

/* cpu/code_writes.c by itself: CPU 0 ran code from a page, CPU 1 changes it. */
static int dropped[MAX_CPUS];
static uint32_t dropped_page;

static void count_drop(void *ctx, int cpu, uint32_t page)
{
    (void)ctx;
    dropped[cpu]++;
    dropped_page = page;
}

START_TEST(a_code_page_another_cpu_changed_is_dropped_from_the_engines_that_ran_it)
{
    boot_smp(2);
    struct code_pages cp = { 0 };
    uint32_t page = SMP_TRAMPOLINE_ADDR;
    uint8_t *bytes = guest_ptr(&m->mem, page, PAGE_SIZE);
    memset(dropped, 0, sizeof dropped);
    ck_assert_int_eq(code_pages_note(&cp, &m->mem, 0, page), 0);
    ck_assert_int_eq(code_pages_note(&cp, &m->mem, 1, page), 0);
    code_pages_changed(&cp, &m->mem, 1, count_drop, NULL);
    ck_assert_int_eq(dropped[0] + dropped[1], 0);      /* nothing changed */
    bytes[100] ^= 0xff;                                /* CPU 1 writes */
    code_pages_changed(&cp, &m->mem, 1, count_drop, NULL);
    ck_assert_int_eq(dropped[0], 1);                   /* CPU 0's go */
    ck_assert_int_eq(dropped[1], 0);                   /* the writer's own engine saw it */
    ck_assert_uint_eq(dropped_page, page);
    bytes[100] ^= 0xff;                                /* again: CPU 0 no longer holds any */
    code_pages_changed(&cp, &m->mem, 1, count_drop, NULL);
    ck_assert_int_eq(dropped[0], 1);
    code_pages_free(&cp);
}
END_TEST

START_TEST(code_written_on_cpu_1_runs_new_on_cpu_0)
{
    struct emu_result r;
    emu(&r, "run", "--smp", "2", program("smp"), "smc", NULL);
    ck_assert_msg(r.status == 0, "%d %s", r.status, r.err);
    ck_assert_str_eq(r.out, "CPU 0 ran 1, CPU 1 wrote and ran 2, CPU 0 then ran 2\n");
    emu_result_free(&r);
}
END_TEST

/* "emu: report: cpu C: ... (U in user mode) ..." for each CPU: U. */
static void user_insns(const char *err, int n, long *u)
{
    for (int c = 0; c < n; c++) {
        char key[32];
        snprintf(key, sizeof key, "emu: report: cpu %d: ", c);
        const char *l = strstr(err, key);
        ck_assert_msg(l != NULL, "no line for CPU %d in %s", c, err);
        const char *p = strstr(l, " instructions (");
        ck_assert_ptr_nonnull(p);
        u[c] = atol(p + strlen(" instructions ("));
    }
}

START_TEST(a_fork_heavy_workload_completes_with_every_cpu_used)
{
    struct emu_result r;
    long u[4];
    emu(&r, "run", "--smp", "4", "--report", program("smp"), "spread", "8", NULL);
    ck_assert_msg(r.status == 0, "%d %s", r.status, r.err);
    ck_assert_str_eq(r.out, "8 of 8 children exited 0\n");
    user_insns(r.err, 4, u);
    for (int c = 0; c < 4; c++)
        ck_assert_msg(u[c] > 10000, "CPU %d ran %ld user instructions", c, u[c]);
    emu_result_free(&r);
}
END_TEST

START_TEST(the_same_workload_gives_the_same_cycles_on_every_run)
{
    const char *ns[] = { "2", "4" };
    for (int i = 0; i < 2; i++) {
        struct emu_result a, b;
        emu(&a, "run", "--smp", ns[i], "--report", program("smp"), "spread", "6", NULL);
        emu(&b, "run", "--smp", ns[i], "--report", program("smp"), "spread", "6", NULL);
        ck_assert_int_eq(a.status, 0);
        ck_assert_int_eq(b.status, 0);
        ck_assert_ptr_nonnull(strstr(a.err, "cycles of machine time"));
        ck_assert_str_eq(a.err, b.err);
        emu_result_free(&a);
        emu_result_free(&b);
    }
}
END_TEST

/*
 * A process reads a shared word until its child, on another CPU, sets it,
 * with no system call between its reads (proc spin). The CPUs take turns
 * of SMP_QUANTUM_INSNS instructions, ended at the first block boundary
 * past the count even inside a loop the block hook knows well, so the
 * child's CPU runs within a turn or two of the parent's: each look is a
 * load and a branch at least, so fewer looks than a turn's instructions.
 * (On one CPU only the timer's tick runs the child: tens of millions.)
 */
START_TEST(a_loop_waiting_for_another_cpu_ends_within_its_turns)
{
    const char *ns[] = { "2", "4" };
    for (int i = 0; i < 2; i++) {
        struct emu_result r;
        emu(&r, "run", "--smp", ns[i], program("proc"), "spin", NULL);
        ck_assert_msg(r.status == 0, "--smp %s: %d %s", ns[i], r.status, r.err);
        unsigned long looks = 0;
        ck_assert_msg(sscanf(r.out, "looked %lu times", &looks) == 1, "%s", r.out);
        ck_assert_msg(looks > 0 && looks < SMP_QUANTUM_INSNS, "--smp %s: %lu looks", ns[i],
                      looks);
        emu_result_free(&r);
    }
}
END_TEST

START_TEST(an_ipi_from_ring_3_is_sigsegv_and_not_sent)
{
    struct emu_result r;
    emu(&r, "run", "--smp", "2", "--report", program("smp"), "ipi", NULL);
    ck_assert_msg(r.status == 0, "%d %s", r.status, r.err);
    ck_assert_str_eq(r.out, "child killed by signal 11\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(cpu_1s_local_timer_is_the_tick_of_the_task_on_it)
{
    struct emu_result r;
    emu(&r, "run", "--smp", "2", "--report", program("smp"), "utime", "1", NULL);
    ck_assert_msg(r.status == 0, "%d %s", r.status, r.err);
    /* only a tick on the CPU the task runs on charges its user time */
    ck_assert_str_eq(r.out, "setaffinity 1: 0, utime > 0\n");
    const char *l = strstr(r.err, "emu: report: cpu 1: ");
    ck_assert_ptr_nonnull(l);
    const char *p = strstr(l, " IPIs and ");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_ge(atol(p + strlen(" IPIs and ")), 10);
    emu_result_free(&r);
}
END_TEST

START_TEST(busybox_gives_native_output_on_1_2_and_4_cpus)
{
    const char *bb = fixture("busybox");
    const char *const nargv[] = { bb, "sh", "-c", "echo a; echo b | cat; seq 3 | wc -l",
                                  NULL };
    struct emu_result native;
    run_native(&native, ".", nargv);
    ck_assert_int_eq(native.status, 0);
    const char *ns[] = { "1", "2", "4" };
    for (int i = 0; i < 3; i++) {
        struct emu_result r;
        emu(&r, "run", "--smp", ns[i], bb, nargv[1], nargv[2], nargv[3], NULL);
        ck_assert_msg(r.status == 0, "--smp %s: %d %s", ns[i], r.status, r.err);
        ck_assert_str_eq(r.out, native.out);
        emu_result_free(&r);
    }
    emu_result_free(&native);
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
    TCase *procs = tcase_create("processes");
    tcase_add_checked_fixture(procs, NULL, teardown);
    tcase_set_timeout(procs, 120);
    tcase_add_test(procs, a_sysenter_call_on_cpu_1_runs_on_cpu_1s_kernel_stack);
    tcase_add_test(procs, an_ap_that_faults_during_start_up_stops_the_machine_with_125);
    tcase_add_test(procs, a_spinlock_never_released_is_reported_as_a_deadlock);
    tcase_add_test(procs, a_code_page_another_cpu_changed_is_dropped_from_the_engines_that_ran_it);
    suite_add_tcase(s, procs);
    TCase *runs = tcase_create("runs");
    tcase_set_timeout(runs, 120);
    tcase_add_test(runs, code_written_on_cpu_1_runs_new_on_cpu_0);
    tcase_add_test(runs, a_fork_heavy_workload_completes_with_every_cpu_used);
    tcase_add_test(runs, the_same_workload_gives_the_same_cycles_on_every_run);
    tcase_add_test(runs, a_loop_waiting_for_another_cpu_ends_within_its_turns);
    tcase_add_test(runs, an_ipi_from_ring_3_is_sigsegv_and_not_sent);
    tcase_add_test(runs, busybox_gives_native_output_on_1_2_and_4_cpus);
    tcase_add_test(runs, cpu_1s_local_timer_is_the_tick_of_the_task_on_it);
    suite_add_tcase(s, runs);
    return run_suite(s);
}
