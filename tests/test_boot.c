/*
 * What the guest kernel set up at boot, read back from the machine after a
 * run: the patch's GDT, the IDT gates, the TSS, paging with the user bit on
 * the fixmap page table, the vsyscall page and the SEP trampoline; and
 * what a program sees of it.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static struct machine *m;
static struct syscall_tracker *sys;
static struct run_options opts;
static char *argv_hello[] = { NULL, NULL };
static char *envp[] = { NULL };

static void boot(const char *cpu)
{
    memset(&opts, 0, sizeof opts);
    argv_hello[0] = (char *)program("hello");
    opts.cpu_spec = cpu;
    opts.max_insns = 10000000;
    opts.program = argv_hello[0];
    opts.argc = 1;
    opts.argv = argv_hello;
    opts.envp = envp;
    opts.quiet = true;
    m = calloc(1, sizeof *m);
    sys = calloc(1, sizeof *sys);
    ck_assert_int_eq(machine_init(m, &opts), 0);
    ck_assert_int_eq(syscalls_attach(sys, m), 0);
    ck_assert_int_eq(machine_run(m), 0);
}

static void teardown(void)
{
    machine_destroy(m);
    free(m);
    free(sys);
}

static uint64_t u64_at(uint32_t addr)
{
    uint64_t v;
    memcpy(&v, guest_ptr(&m->mem, addr, 8), 8);
    return v;
}

static uint32_t u32_at(uint32_t addr)
{
    uint32_t v;
    memcpy(&v, guest_ptr(&m->mem, addr, 4), 4);
    return v;
}

/* A symbol of the image the machine booted (its model's -march family). */
static uint32_t sym(const char *name)
{
    uint32_t a = ksym_find(m->kernel->start, (size_t)(m->kernel->end - m->kernel->start), name);
    ck_assert_msg(a != 0, "no kernel symbol %s", name);
    return a;
}

static uint64_t msr(uint32_t index)
{
    uc_x86_msr r = { .rid = index };
    uc_reg_read(m->uc, UC_X86_REG_MSR, &r);
    return r.value;
}

START_TEST(gdt_has_the_patch_layout)
{
    boot("pentium4");
    uint32_t gdt = sym("gdt_table");
    /* head.S of the 2.5.53 patch */
    static const struct { int index; uint64_t desc; } expected[] = {
        { 12, 0x00cf9a000000ffffull }, { 13, 0x00cf92000000ffffull },
        { 14, 0x00cffa000000ffffull }, { 15, 0x00cff2000000ffffull },
        { 18, 0x00c09a0000000000ull }, { 19, 0x00809a0000000000ull },
        { 20, 0x0080920000000000ull }, { 21, 0x0080920000000000ull },
        { 22, 0x0080920000000000ull }, { 23, 0x00409a0000000000ull },
        { 24, 0x00009a0000000000ull }, { 25, 0x0040920000000000ull },
    };
    /* the CPU sets a descriptor's accessed bit (bit 40) when it loads it */
    const uint64_t accessed = 1ull << 40;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        ck_assert_msg((u64_at(gdt + 8 * (uint32_t)expected[i].index) & ~accessed) ==
                      expected[i].desc, "GDT entry %d", expected[i].index);
    for (int i = 0; i < 12; i++)
        ck_assert_msg(u64_at(gdt + 8 * (uint32_t)i) == 0, "GDT entry %d not empty", i);
    /* TSS (busy after ltr) and LDT descriptors at 16 and 17 */
    uint64_t tss = u64_at(gdt + 16 * 8), ldt = u64_at(gdt + 17 * 8);
    ck_assert_uint_eq((tss >> X86_DESC_ACCESS_SHIFT) & 0xff, X86_AR_P | X86_TYPE_TSS32_BUSY);
    ck_assert_uint_eq((ldt >> X86_DESC_ACCESS_SHIFT) & 0xff, X86_AR_P | X86_TYPE_LDT);
    uint32_t tss_base = (uint32_t)(((tss >> 16) & 0xffffff) | ((tss >> 32) & 0xff000000));
    ck_assert_uint_eq(tss_base, sym("init_tss"));
    /* selectors the machine saw */
    uc_x86_mmr tr;
    uc_reg_read(m->uc, UC_X86_REG_TR, &tr);
    ck_assert_uint_eq(tr.selector, __TSS_SEL);
}
END_TEST

static void check_gate(int vector, const char *handler, int type, int dpl)
{
    uc_x86_mmr idtr;
    uc_reg_read(m->uc, UC_X86_REG_IDTR, &idtr);
    uint64_t g = u64_at((uint32_t)idtr.base + 8 * (uint32_t)vector);
    uint32_t offset = (uint32_t)(g & 0xffff) | (uint32_t)((g >> 32) & 0xffff0000);
    ck_assert_uint_eq(offset, sym(handler));
    ck_assert_uint_eq((g >> 16) & 0xffff, __KERNEL_CS);
    uint32_t access = (uint32_t)(g >> X86_DESC_ACCESS_SHIFT) & 0xff;
    ck_assert_uint_eq(access & 0xf, (uint32_t)type);
    ck_assert_uint_eq((access >> X86_AR_DPL_SHIFT) & 3, (uint32_t)dpl);
    ck_assert_uint_eq(access & X86_AR_P, X86_AR_P);
}

START_TEST(idt_and_tss)
{
    boot("pentium3");
    /* a trap gate, callable from ring 3 */
    check_gate(SYSCALL_VECTOR, "system_call", X86_TYPE_TRAP_GATE32, 3);
    /* an interrupt gate: CR2 stays valid */
    check_gate(X86_VEC_PF, "page_fault", X86_TYPE_INTR_GATE32, 0);
    check_gate(X86_VEC_GP, "general_protection", X86_TYPE_TRAP_GATE32, 0);
    check_gate(X86_VEC_BP, "int3", X86_TYPE_TRAP_GATE32, 3);
    uint32_t tss = sym("init_tss");
    ck_assert_uint_eq(u32_at(tss + 4), sym("init_thread_union") + 8192); /* esp0 */
    ck_assert_uint_eq(u32_at(tss + 8) & 0xffff, __KERNEL_DS);            /* ss0 */
    ck_assert_uint_gt(u32_at(tss + 100) >> 16, 103);  /* no I/O bitmap inside the TSS */
}
END_TEST

START_TEST(paging_protects_and_the_fixmap_table_is_user)
{
    boot("pentium4");
    uint32_t cr0 = reg_read(m, UC_X86_REG_CR0), cr3 = reg_read(m, UC_X86_REG_CR3);
    const uint32_t prw = X86_PTE_PRESENT | X86_PTE_RW | X86_PTE_USER;
    ck_assert_uint_eq(cr0 & (X86_CR0_PG | X86_CR0_WP), X86_CR0_PG | X86_CR0_WP);
    uint32_t pde = u32_at(cr3 + 4 * (VSYSCALL_BASE >> 22));
    ck_assert_uint_eq(pde & prw, prw);                   /* present, RW, user (the patch) */
    uint32_t pte = u32_at((pde & ~0xfffu) + 4 * ((VSYSCALL_BASE >> 12) & 0x3ff));
    ck_assert_uint_eq(pte & prw, X86_PTE_PRESENT | X86_PTE_USER);   /* read-only */
    ck_assert_uint_eq(pte & ~0xfffu, VSYSCALL_BASE);      /* mapped at itself */
    uint32_t kpde = u32_at(cr3 + 4 * (KERNEL_BASE >> 22));
    ck_assert_uint_eq(kpde & X86_PTE_USER, 0);           /* kernel: supervisor only */
}
END_TEST

START_TEST(sep_cpu_gets_trampoline_and_sysenter_page)
{
    boot("pentium4");
    ck_assert_uint_eq(msr(MSR_IA32_SYSENTER_CS), __KERNEL_CS);
    uint32_t page = (uint32_t)msr(MSR_IA32_SYSENTER_EIP);
    ck_assert(in_kernel_ram(page));
    /* the stack a trap on the trampoline runs on: the top of the
     * trampoline's own page, as the seed patch set it (page + PAGE_SIZE);
     * a page of its own came with Linux's fix of 17 December 2002, the
     * later --kernel variants (test_variants) */
    uint32_t esp = (uint32_t)msr(MSR_IA32_SYSENTER_ESP);
    ck_assert(in_kernel_ram(esp - 1) && esp % PAGE_SIZE == 0);
    ck_assert_uint_eq(esp - PAGE_SIZE, page & ~(PAGE_SIZE - 1));
    const uint8_t *t = guest_ptr(&m->mem, page, 12);
    /* movl %ss:esp0, %esp (DS is still the caller's); jmp */
    ck_assert(t[0] == 0x36 && t[1] == 0x8b && t[2] == 0x25 && t[7] == 0xe9);
    uint32_t slot, rel;
    memcpy(&slot, t + 3, 4);
    memcpy(&rel, t + 8, 4);
    ck_assert_uint_eq(slot, sym("init_tss") + 4);
    ck_assert_uint_eq(page + 12 + rel, sym("sysenter_entry"));
    const uint8_t *v = guest_ptr(&m->mem, VSYSCALL_BASE, 11);
    static const uint8_t stub[] = { 0x51, 0x52, 0x55, 0x89, 0xe5, 0x0f, 0x34,
                                    0x5d, 0x5a, 0x59, 0xc3 };
    ck_assert_mem_eq(v, stub, sizeof stub);
    ck_assert_uint_eq(VSYSCALL_BASE + 7, SYSENTER_RETURN);
}
END_TEST

START_TEST(no_sep_means_int80_page_and_no_msrs)
{
    const char *models[] = { "pentium4,-sep", "pentium3,-sep", "pentiumpro" };
    static const uint8_t stub[] = { 0xcd, 0x80, 0xc3 };
    for (int i = 0; i < 3; i++) {
        boot(models[i]);
        ck_assert_uint_eq(msr(MSR_IA32_SYSENTER_CS), 0);
        ck_assert_uint_eq(msr(MSR_IA32_SYSENTER_EIP), 0);
        ck_assert_mem_eq(guest_ptr(&m->mem, VSYSCALL_BASE, 3), stub, 3);
        ck_assert_uint_eq(sys->by_path[PATH_SYSENTER], 0);
        if (i < 2)
            teardown();
    }
}
END_TEST

/* What a program sees of it: its segments, AT_SYSINFO, the stub. */
#define SYSENTER_STUB "vsyscall=51 52 55 89 e5 0f 34 5d 5a 59 c3"
#define INT80_STUB "vsyscall=cd 80 c3 00 00 00 00 00 00 00 00"

static const struct {
    const char *cpu;
    const char *stub;
} whoami_cases[] = {
    { "pentium4", SYSENTER_STUB },
    { "pentium3", SYSENTER_STUB },
    { "pentiumpro", INT80_STUB },
    { "pentium4,-sep", INT80_STUB },
    { "pentium3,-sep", INT80_STUB },
};

START_TEST(whoami_segments_sysinfo_and_vsyscall_stub)
{
    const char *cpu = whoami_cases[_i].cpu;
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("whoami"), NULL);
    ck_assert_msg(r.status == 0, "whoami on %s: exit %d, stderr: %s", cpu, r.status, r.err);
    ck_assert_int_eq(count_char(r.out, '\n'), 1);
    ck_assert_msg(strstr(r.out, "cs=0073 ss=007b ds=007b es=007b sysinfo=fffff000"),
                  "whoami on %s: %s", cpu, r.out);
    ck_assert_msg(strstr(r.out, whoami_cases[_i].stub), "whoami on %s: %s (want %s)", cpu,
                  r.out, whoami_cases[_i].stub);
    const char *fl = strstr(r.out, "eflags=");
    ck_assert_ptr_nonnull(fl);
    unsigned long eflags = strtoul(fl + 7, NULL, 16);
    ck_assert_msg(eflags & X86_EFLAGS_IF, "IF clear in user mode: %08lx", eflags);
    ck_assert_msg((eflags & X86_EFLAGS_IOPL) == 0, "IOPL not 0 in user mode: %08lx", eflags);
    ck_assert_msg(eflags & X86_EFLAGS_FIXED, "EFLAGS bit 1 clear: %08lx", eflags);
    emu_result_free(&r);
}
END_TEST

Suite *boot_suite(void)
{
    Suite *s = suite_create("boot");
    TCase *tc = tcase_create("setup");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, gdt_has_the_patch_layout);
    tcase_add_test(tc, idt_and_tss);
    tcase_add_test(tc, paging_protects_and_the_fixmap_table_is_user);
    tcase_add_test(tc, sep_cpu_gets_trampoline_and_sysenter_page);
    tcase_add_test(tc, no_sep_means_int80_page_and_no_msrs);
    suite_add_tcase(s, tc);

    tc = tcase_create("programs");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, whoami_segments_sysinfo_and_vsyscall_stub, 0,
                        sizeof whoami_cases / sizeof whoami_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(boot_suite());
}
