/*
 * The vsyscall page and SEP set-up of the 2.5.53 patch (sysenter.c there).
 * The frame a sysenter call runs on is built by sysenter_entry in entry.S.
 */
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "smp.h"
#include "variant.h"

extern const uint8_t vsyscall_int80_start[], vsyscall_int80_end[];
extern const uint8_t vsyscall_sysenter_start[], vsyscall_sysenter_end[];
extern const uint8_t vsyscall_sigreturn_start[], vsyscall_sigreturn_end[];
extern const uint8_t vsyscall_rt_sigreturn_start[], vsyscall_rt_sigreturn_end[];
extern const uint8_t vsyscall_vgtod_start[], vsyscall_vgtod_end[];
extern void irq0_interrupt_vgtod(void);
void set_intr_gate(int n, void (*handler)(void));

uint32_t vsyscall_entry;

/*
 * sysenter loads ESP from an MSR, not from the TSS, so each CPU gets a tiny
 * trampoline page (it runs on each CPU: the page and the TSS are its own):
 * SYSENTER_EIP points at its start, which loads the real kernel stack (the
 * TSS's esp0, which follows the running task) and jumps to sysenter_entry.
 * SYSENTER_ESP, the top of the same page, is used only by a trap taken on
 * the trampoline's first instruction (TF set across sysenter: trap.c,
 * seed_debug_trap), as in the seed patch.
 */
#if KHIST != KHIST_SEED
static void sep_enabled_message(void)
{
#ifdef CONFIG_SMP
    printk("Enabling SEP on CPU %d", smp_processor_id());
#else
    printk("Enabling SEP on CPU 0");
#endif
}
#endif

#if KHIST == KHIST_SEED
static void enable_sep_cpu(void)
{
    uint8_t *page = get_zeroed_page();

    if (!page)
        panic("no page for the sysenter trampoline");
    uint32_t esp0_slot = (uint32_t)tss_esp0_slot();
    uint32_t rel32 = (uint32_t)sysenter_entry - ((uint32_t)page + 12);

    /* Through SS, which sysenter loaded flat (SYSENTER_CS + 8): DS is
     * still the caller's, and may be a TLS segment with any base. */
    page[0] = 0x36;                 /* movl %ss:esp0_slot, %esp */
    page[1] = 0x8b;
    page[2] = 0x25;
    memcpy(page + 3, &esp0_slot, 4);
    page[7] = 0xe9;                 /* jmp sysenter_entry */
    memcpy(page + 8, &rel32, 4);

    wrmsr(MSR_IA32_SYSENTER_CS, __KERNEL_CS, 0);
    wrmsr(MSR_IA32_SYSENTER_ESP, (uint32_t)page + PAGE_SIZE, 0);
    wrmsr(MSR_IA32_SYSENTER_EIP, (uint32_t)page, 0);
#ifdef CONFIG_SMP
    printk("Enabling SEP on CPU %d", smp_processor_id());
#else
    printk("Enabling SEP on CPU 0");
#endif
}
#elif KHIST < KHIST_260
/*
 * 2.5.53 as released and 2.5.54 ("Sysenter cleanups", 0bd0ed9719): no
 * trampoline. sysenter lands on sysenter_entry itself with ESP already
 * the running task's kernel stack, because every context switch writes
 * SYSENTER_ESP (and SYSENTER_CS) in load_esp0 (sched.c, __switch_to).
 */
static void enable_sep_cpu(void)
{
    wrmsr(MSR_IA32_SYSENTER_CS, __KERNEL_CS, 0);
    wrmsr(MSR_IA32_SYSENTER_ESP, *tss_esp0_slot(), 0);
    wrmsr(MSR_IA32_SYSENTER_EIP, (uint32_t)sysenter_entry, 0);
    sep_enabled_message();
}
#else
/*
 * 2.6.0 (f3abf939b9, 1b8f4be288): SYSENTER_ESP never changes; it points
 * just past this CPU's TSS, and sysenter_entry loads esp0 from there. The
 * TSS's ss1 remembers that SYSENTER_CS is set (load_esp0 tests it).
 */
static void enable_sep_cpu(void)
{
    *tss_ss1_slot() = __KERNEL_CS;
    wrmsr(MSR_IA32_SYSENTER_CS, __KERNEL_CS, 0);
    wrmsr(MSR_IA32_SYSENTER_ESP, tss_sysenter_stack_top(), 0);
    wrmsr(MSR_IA32_SYSENTER_EIP, (uint32_t)sysenter_entry, 0);
    sep_enabled_message();
}
#endif

void sysenter_setup(void)
{
    const uint8_t *stub = vsyscall_int80_start;
    uint32_t len = vsyscall_int80_end - vsyscall_int80_start;

    if (cpu_has(CPUID_FEATURE_SEP)) {
        stub = vsyscall_sysenter_start;
        len = vsyscall_sysenter_end - vsyscall_sysenter_start;
    }
    /* Fill the page through a kernel-writable mapping, then make it what
     * user space sees: present, user, read-only. */
    set_fixmap(KV_VSYSCALL_BASE, X86_PTE_PRESENT | X86_PTE_RW);
    memset((void *)KV_VSYSCALL_BASE, 0, PAGE_SIZE);
    memcpy((void *)KV_VSYSCALL_ENTRY, stub, len);
    memcpy((void *)(KV_VSYSCALL_BASE + KV_SIGRETURN_OFFSET), vsyscall_sigreturn_start,
           vsyscall_sigreturn_end - vsyscall_sigreturn_start);
    memcpy((void *)(KV_VSYSCALL_BASE + KV_RT_SIGRETURN_OFFSET), vsyscall_rt_sigreturn_start,
           vsyscall_rt_sigreturn_end - vsyscall_rt_sigreturn_start);
    int vgtod = boot->flags & BOOT_FLAG_VGETTIMEOFDAY;
    if (vgtod)
        memcpy((void *)(KV_VSYSCALL_BASE + KV_GTOD_OFFSET), vsyscall_vgtod_start,
               vsyscall_vgtod_end - vsyscall_vgtod_start);
    vdso_fill((void *)KV_EHDR, vgtod);
    set_fixmap(KV_VSYSCALL_BASE, PAGE_READONLY);
    vsyscall_entry = KV_VSYSCALL_ENTRY;
    if (vgtod) {
        vgtod_init();
        set_intr_gate(FIRST_EXTERNAL_VECTOR + IRQ_TIMER, irq0_interrupt_vgtod);
    }

    if (cpu_has(CPUID_FEATURE_SEP)) {
        enable_sep_cpu();
#ifdef CONFIG_SMP
        /* the patch: each CPU its own trampoline page and MSRs */
        smp_call_function(enable_sep_cpu);
#endif
    }
}
