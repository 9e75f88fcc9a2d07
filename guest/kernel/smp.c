/*
 * Starting the other CPUs and calling functions on them, as Linux 2.5's
 * smpboot.c and smp.c do it, through the minimal local APIC of emu/cpu/smp.h
 * (its ports: abi.h). The boot CPU starts each AP with INIT and STARTUP;
 * the AP comes up in startup_ap (head.S) on its own GDT and idle stack,
 * loads the IDT and its TSS, says it is online and waits in hlt for IPIs.
 */
#ifdef CONFIG_SMP
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "smp.h"

/* Spins of the boot CPU waiting for an AP (Linux waits 5 s). */
#define AP_WAIT_SPINS 1000000

uint32_t cpu_online_map = 1;
uint32_t num_cpus = 1;

/* set for the AP being started (head.S reads them) */
extern struct { uint16_t limit; uint32_t base; } __attribute__((packed)) ap_gdt_descr;
extern uint32_t ap_stack;

extern void startup_ap(void), call_function_interrupt(void), reschedule_interrupt(void);
extern void apic_timer_interrupt(void);
uint32_t tick_cycles(void);
void set_intr_gate(int n, void (*handler)(void));

static void apic_icr(uint32_t icr)
{
    outl_hypercall(APIC_PORT_ICR, icr);
}

void send_IPI(int cpu, uint32_t vector)
{
    apic_icr(APIC_DEST_FIELD | APIC_DM_FIXED | vector | (uint32_t)cpu << 24);
}

static void send_IPI_allbutself(uint32_t vector)
{
    apic_icr(APIC_DEST_ALLBUT | APIC_DM_FIXED | vector);
}

/* The page STARTUP names: "movl $startup_ap, %eax; jmp *%eax". */
static void write_trampoline(void)
{
    uint8_t *page = (uint8_t *)SMP_TRAMPOLINE_ADDR;
    uint32_t target = (uint32_t)startup_ap;

    page[0] = 0xb8;
    memcpy(page + 1, &target, 4);
    page[5] = 0xff;
    page[6] = 0xe0;
}

static void prepare_ap(int cpu)
{
    memcpy(cpu_gdt(cpu), cpu_gdt(0), GDT_ENTRIES * 8);
    ap_gdt_descr.base = (uint32_t)cpu_gdt(cpu);
    ap_stack = init_idle(cpu);
}

static void boot_ap(int cpu)
{
    prepare_ap(cpu);
    apic_icr(APIC_DEST_FIELD | APIC_DM_INIT | (uint32_t)cpu << 24);
    apic_icr(APIC_DEST_FIELD | APIC_DM_STARTUP | SMP_TRAMPOLINE_VECTOR | (uint32_t)cpu << 24);
    for (int spins = 0; spins < AP_WAIT_SPINS; spins++) {
        if (cpu_online_map & (1u << cpu))
            return;
        cpu_relax();
    }
    panic("CPU %d is not responding", cpu);
}

void smp_boot_cpus(void)
{
    num_cpus = boot->ncpus;
    if (num_cpus < 1 || num_cpus > NR_CPUS)
        panic("the machine has %u CPUs; this kernel takes 1 to %d", num_cpus, NR_CPUS);
    set_intr_gate(CALL_FUNCTION_VECTOR, call_function_interrupt);
    set_intr_gate(RESCHEDULE_VECTOR, reschedule_interrupt);
    set_intr_gate(LOCAL_TIMER_VECTOR, apic_timer_interrupt);
    init_idle(0);
    write_trampoline();
    for (uint32_t cpu = 1; cpu < num_cpus; cpu++)
        boot_ap((int)cpu);
    printk("Total of %u processors activated", num_cpus);
}

/* An AP, from startup_ap, on its idle stack with paging on. It takes the
 * big kernel lock and schedules: the idle loop in schedule() waits for a
 * task to run (sched.c). */
__attribute__((noreturn)) void start_secondary(void)
{
    int cpu = smp_processor_id();

    smp_test_hooks_secondary(cpu);
    ap_trap_init();
    tss_init((uint32_t)current_thread_info() + THREAD_SIZE);
    printk("CPU %d: up, APIC ID %d", cpu, hard_smp_processor_id());
    atomic_or(&cpu_online_map, 1u << cpu);
    outl_hypercall(APIC_PORT_ONLINE, 0);
    /* its scheduler tick; CPU 0 keeps the PIT's */
    outl_hypercall(APIC_PORT_TIMER, tick_cycles());
#ifdef SMP_BIG_LOCK
    lock_kernel();
#endif
    cpu_idle_loop();
}

/* ---- the big kernel lock (2.5's kernel_flag, with its depth per CPU) ---- */

static spinlock_t kernel_flag = SPIN_LOCK_UNLOCKED("the big kernel lock");
static uint32_t kernel_depth[NR_CPUS];

void lock_kernel(void)
{
    int cpu = smp_processor_id();

    if (kernel_depth[cpu]++ == 0)
        spin_lock(&kernel_flag);
}

void unlock_kernel(void)
{
    int cpu = smp_processor_id();

    if (kernel_depth[cpu] == 0)
        panic("CPU %d: unlock_kernel without the lock", cpu);
    if (--kernel_depth[cpu] == 0)
        spin_unlock(&kernel_flag);
}

uint32_t kernel_lock_depth(void)
{
    return kernel_depth[smp_processor_id()];
}

void set_kernel_lock_depth(uint32_t depth)
{
    kernel_depth[smp_processor_id()] = depth;
}

uint32_t release_kernel_lock(void)
{
    int cpu = smp_processor_id();
    uint32_t depth = kernel_depth[cpu];

    if (depth) {
        kernel_depth[cpu] = 0;
        spin_unlock(&kernel_flag);
    }
    return depth;
}

void reacquire_kernel_lock(uint32_t depth)
{
    if (!depth)
        return;
    spin_lock(&kernel_flag);
    kernel_depth[smp_processor_id()] = depth;
}

/* A waiter gave up on l (smp.h): the deadlock detector's report. */
static __attribute__((noreturn)) void spin_deadlock(spinlock_t *l)
{
    char line[160];
#ifdef SMP_BIG_LOCK
    uint32_t owner = l->owner;
#else
    uint32_t owner = 0;
#endif

    if (owner)
        snprintf(line, sizeof(line), "CPU %d waits for %s, held by CPU %u, which does not "
                 "release it", smp_processor_id(), l->name, owner - 1);
    else
        snprintf(line, sizeof(line), "CPU %d waits for %s, which is never released",
                 smp_processor_id(), l->name);
    report_lock_deadlock(line);
}

#ifdef SMP_BIG_LOCK
void spin_note_owner(spinlock_t *l)
{
    l->owner = (uint32_t)smp_processor_id() + 1;
}
#endif

/* spin_lock's decb found it taken and left it one lower: give that back,
 * wait until it looks free, and take it the way spin_lock does. */
void spin_lock_slow(spinlock_t *l)
{
    uint64_t limit = (uint64_t)boot->cpu_khz * SPIN_DEADLOCK_MS, start = rdtsc();
    signed char was;

    do {
        __asm__ volatile("lock; incb %0" : "+m"(l->lock) : : "memory");
        while (l->lock <= 0) {
            cpu_relax();
            if (rdtsc() - start > limit)
                spin_deadlock(l);
        }
        __asm__ volatile("lock; decb %0; sets %1" : "+m"(l->lock), "=qm"(was) : : "memory");
    } while (was);
}

/* The reader-writer locks' waiting loops, as 2.5.53's __read_lock_failed
 * and __write_lock_failed: undo, wait, try again. Only a writer on another
 * CPU holds a reader here; nothing in this kernel waits for long. */
void read_lock_slow(rwlock_t *rw)
{
    int was;

    do {
        __asm__ volatile("lock; incl %0" : "+m"(rw->lock) : : "memory");
        while (rw->lock < 1)
            cpu_relax();
        __asm__ volatile("lock; decl %0; sets %b1" : "+m"(rw->lock), "=q"(was) : : "memory");
    } while (was & 0xff);
}

void write_lock_slow(rwlock_t *rw)
{
    int was;

    do {
        __asm__ volatile("lock; addl $0x01000000,%0" : "+m"(rw->lock) : : "memory");
        while (rw->lock != RW_LOCK_BIAS)
            cpu_relax();
        __asm__ volatile("lock; subl $0x01000000,%0; setnz %b1"
                         : "+m"(rw->lock), "=q"(was) : : "memory");
    } while (was & 0xff);
}

/* ---- test hooks (boot flags that only test_smp sets) ---- */

static spinlock_t test_lock = SPIN_LOCK_UNLOCKED("a test lock");

void smp_test_hooks_secondary(int cpu)
{
    /* an AP that faults before it is up: #UD with no IDT loaded yet (a
     * triple fault on a real CPU) */
    if ((boot->flags & BOOT_FLAG_SMP_AP_FAULT) && cpu == (int)num_cpus - 1)
        __asm__ volatile("ud2");
    /* CPU 1 takes a lock and never lets go; CPU 0 then waits for it */
    if ((boot->flags & BOOT_FLAG_SMP_HOLD_LOCK) && cpu == 1)
        spin_lock(&test_lock);
}

/* CPU 0, after the APs are up */
void smp_test_hooks_boot(void)
{
    if (boot->flags & BOOT_FLAG_SMP_HOLD_LOCK)
        spin_lock(&test_lock);
}

/* ---- smp_call_function (Linux 2.5's, with wait always set) ---- */

struct call_data {
    void (*func)(void);
    volatile uint32_t started, finished;
};

/* one call at a time, under call_lock */
static struct call_data the_call;
static struct call_data *volatile call_data = &the_call;
static spinlock_t call_lock = SPIN_LOCK_UNLOCKED("smp_call_function");

static uint32_t others_online(void)
{
    return (uint32_t)__builtin_popcount(cpu_online_map) - 1;
}

void smp_call_function(void (*func)(void))
{
    uint32_t others = others_online();

    if (!others)
        return;
    spin_lock(&call_lock);
    the_call.func = func;
    the_call.started = the_call.finished = 0;
    send_IPI_allbutself(CALL_FUNCTION_VECTOR);
    while (the_call.started != others)
        cpu_relax();
    while (the_call.finished != others)
        cpu_relax();
    spin_unlock(&call_lock);
}

void smp_call_function_interrupt(void)
{
    struct call_data *d = call_data;
    void (*func)(void) = d->func;

    atomic_inc_u32(&d->started);
    func();
    atomic_inc_u32(&d->finished);
}
#endif
