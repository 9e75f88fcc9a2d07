/* Internal interfaces of the guest kernel. */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "../abi.h"
#include "../x86.h"
#include "ptrace.h"
#include "errno.h"
#include "signal.h"
#include "syscalls.h"

#define NULL_PTR ((void *)0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PAGE_ALIGN(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_DOWN(x)  ((x) & ~(PAGE_SIZE - 1))
#define MAX_RW_COUNT  0x7ffff000u /* the most one read or write moves, as Linux */

/* lib.c */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int snprintf(char *buf, size_t size, const char *fmt, ...);

/* hypercall.c: requests to the emulator */
void hypercall(unsigned port, void *block);
void printk(const char *fmt, ...);
__attribute__((noreturn)) void panic(const char *fmt, ...);
__attribute__((noreturn)) void exec_failed(int err, const char *fmt, ...);
__attribute__((noreturn)) void report_deadlock(const char *text);
__attribute__((noreturn)) void report_lock_deadlock(const char *text);
/* exit.c: the caller's end, with a wait status (exit: status << 8;
 * killed: the signal) */
__attribute__((noreturn)) void do_exit(int code);
__attribute__((noreturn)) void halt_with_status(int status);
__attribute__((noreturn)) void kill_by_signal(int signal);
__attribute__((noreturn)) void kill_user(const struct trap_frame *tf,
                                         uint32_t cr2, int signal);
__attribute__((noreturn)) void kill_user_why(const struct trap_frame *tf, uint32_t cr2,
                                             int signal, const char *note);
extern const struct boot_record *boot;

/* cpu.c: what CPUID told us at boot */
struct cpuinfo {
    uint32_t max_leaf;
    uint32_t signature; /* leaf 1 EAX */
    uint32_t family, model, stepping;
    uint32_t features;  /* leaf 1 EDX, after errata fix-ups */
    char vendor[13];
};
extern struct cpuinfo boot_cpu;
void identify_cpu(void);
static inline int cpu_has(uint32_t bit) { return (boot_cpu.features & bit) != 0; }

/* pgtable.c: paging. Virtual == physical for every page (see abi.h). */
#define _PAGE_TABLE   (X86_PTE_PRESENT | X86_PTE_RW | X86_PTE_USER | X86_PTE_ACCESSED | \
                       X86_PTE_DIRTY)
#define _KERNPG_TABLE (X86_PTE_PRESENT | X86_PTE_RW | X86_PTE_ACCESSED | X86_PTE_DIRTY)
#define PAGE_READONLY (X86_PTE_PRESENT | X86_PTE_USER | X86_PTE_ACCESSED)
#define PAGE_SHARED   (X86_PTE_PRESENT | X86_PTE_RW | X86_PTE_USER | X86_PTE_ACCESSED)
void paging_init(void);
/* Map [start, start+len) for user access (zero-filled, identity mapped);
 * writable selects PAGE_SHARED or PAGE_READONLY. 0 or -ENOMEM/-EINVAL. */
void set_fixmap(uint32_t vaddr, uint32_t flags);

/*
 * uaccess.c, uaccess.S: copies that turn a fault into -EFAULT (exception
 * table). access_ok is 2.5.53's __range_ok: the add's carry says the range
 * wrapped, the compare's that it ends above the task's addr_limit (read
 * from its thread_info, found from %esp), and two sbb gather both; 0 is
 * "inside".
 */
static inline uint32_t __range_ok(uint32_t addr, uint32_t size)
{
    uint32_t flag, sum, esp;

    __asm__("movl %%esp, %0" : "=r"(esp));
    const uint32_t *limit = (const uint32_t *)((esp & ~(THREAD_SIZE - 1)) + TI_ADDR_LIMIT);
    __asm__("addl %3,%1; sbbl %0,%0; cmpl %1,%4; sbbl $0,%0"
            : "=&r"(flag), "=r"(sum) : "1"(addr), "g"(size), "g"(*limit));
    return flag;
}
#define access_ok(addr, len) (__range_ok((addr), (len)) == 0)
long copy_to_user(uint32_t to, const void *from, uint32_t n);   /* 0 or -EFAULT */
/* without the range check, for a range access_ok passed: the bytes left */
unsigned long __copy_to_user(uint32_t to, const void *from, unsigned long n);
unsigned long __copy_from_user(void *to, uint32_t from, unsigned long n);
long copy_from_user(void *to, uint32_t from, uint32_t n);       /* 0 or -EFAULT */
long strncpy_from_user(char *to, uint32_t from, long max);      /* len or -EFAULT */
int get_user_u32(uint32_t *val, uint32_t addr);
int put_user_u32(uint32_t val, uint32_t addr);
uint32_t search_exception_table(uint32_t eip);

/* head.S: the GDTs, one per CPU (the boot CPU's first) */
#ifdef CONFIG_SMP
extern uint64_t gdt_table[NR_CPUS * GDT_ENTRIES];
#define cpu_gdt(c) (&gdt_table[(c) * GDT_ENTRIES])
#else
extern uint64_t gdt_table[GDT_ENTRIES];
#define cpu_gdt(c) (gdt_table)
#endif

/* trap.c */
void trap_init(void);
void tss_init(uint32_t esp0);
uint32_t *tss_esp0_slot(void);
uint16_t *tss_ss1_slot(void);           /* 2.6.0: SYSENTER_CS is set */
uint32_t tss_sysenter_stack_top(void);  /* 2.6.0: SYSENTER_ESP */
#ifdef CONFIG_SMP
uint32_t *tss_esp0_slot_of(int cpu);
void ap_trap_init(void);          /* an AP loads the IDT the boot CPU made */
#endif
uint32_t read_cr2(void);
/* A fault in user mode: its signal's handler runs, or it kills (note: why,
 * beyond the vector; a note always kills). */
void user_fault(struct trap_frame *tf, uint32_t cr2, int sig, int32_t code, uint32_t addr,
                const char *note);

/* sysenter.c */
void sysenter_setup(void);
extern uint32_t vsyscall_entry; /* what AT_SYSINFO says */

/* vdso.c: the ELF image AT_SYSINFO_EHDR points at, inside the vsyscall page */
void vdso_fill(void *where, int with_symbols);

/* timer_tsc.c: the clock */
struct timeval { uint32_t tv_sec, tv_usec; };
void time_init(void);
void timer_tsc_tick(void);
void do_gettimeofday(struct timeval *tv);
void vgtod_init(void);
void vgtod_tick(void);
/* Tickless idle (timer.c, tick_nohz_idle): the clock's last lattice point,
 * and the effect of ticks ticks the last of which read the TSC now. */
uint64_t timer_tsc_last_tick(void);
void timer_tsc_skip(uint64_t now, uint32_t ticks);

/* exec.c: the boot task becomes the boot program (its registers at the top of
 * its kernel stack); entry.S: leave for it. */
void exec_boot_program(void);
__attribute__((noreturn)) void start_user(struct pt_regs *regs);


/* random.c */
void random_init(void);

/* entry.S */
void sysenter_entry(void);
void sysenter_past_esp(void);    /* 2.6.0: after its stack load */
void seed_oops(void);            /* the seed: the debug trap's oops (trap.c) */
uint32_t seed_oops_stack(void);
__attribute__((noreturn)) void do_seed_oops(void);

static inline void outl_hypercall(unsigned port, uint32_t addr)
{
    __asm__ volatile("outl %0, %w1" : : "a"(addr), "Nd"((uint16_t)port) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint32_t lo, uint32_t hi)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"(lo), "d"(hi) : "memory");
}
#endif
