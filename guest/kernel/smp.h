/*
 * More than one CPU (built with CONFIG_SMP, booted by emu --smp N > 1): the
 * CPU's number, spinlocks, atomic counters and cross-CPU calls. Without
 * CONFIG_SMP every lock is nothing and the CPU is 0, as Linux 2.5's UP
 * build, so the one-CPU kernel runs the instructions it always ran.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel.h"
#include "sched.h"

#include "spinlock.h"

static inline void cpu_relax(void)
{
    __asm__ volatile("pause" : : : "memory");
}

#ifdef CONFIG_SMP
/* xchg with memory is locked whether or not it says so. */
static inline uint32_t xchg_u32(volatile uint32_t *p, uint32_t v)
{
    __asm__ volatile("xchgl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
    return v;
}

static inline void atomic_inc_u32(volatile uint32_t *p)
{
    __asm__ volatile("lock; incl %0" : "+m"(*p) : : "memory");
}

static inline void atomic_or(volatile uint32_t *p, uint32_t bits)
{
    __asm__ volatile("lock; orl %1, %0" : "+m"(*p) : "ir"(bits) : "memory");
}

/*
 * How long a waiter spins before it decides that the lock will never be
 * released (its holder waits for it in turn, or went on without
 * unlocking): the deadlock detector reports it and the machine stops. In
 * modeled time (the TSC): the longest hold, the big kernel lock across an
 * exec, is a few milliseconds.
 */
#define SPIN_DEADLOCK_MS 100

extern uint32_t cpu_online_map;   /* bit c: CPU c is up */
extern uint32_t num_cpus;         /* CPUs the machine has (the boot record) */

/* The APIC ID, from CPUID: right on any stack (smp_processor_id() needs
 * the task's). */
static inline int hard_smp_processor_id(void)
{
    uint32_t a, b, c, d;
    cpuid(1, &a, &b, &c, &d);
    return (int)(b >> 24);
}

void smp_boot_cpus(void);
/* The big kernel lock (smp.c): held by the CPU running kernel code for a
 * task or an interrupt; entry.S takes it on every entry and drops it on
 * the way out; it nests on one CPU. */
void lock_kernel(void);
void unlock_kernel(void);
/* Drop it entirely (idle), and take it back as deep as it was. */
uint32_t release_kernel_lock(void);
void reacquire_kernel_lock(uint32_t depth);
/* Its depth on this CPU, kept per task across a switch (sched.c). */
uint32_t kernel_lock_depth(void);
void set_kernel_lock_depth(uint32_t depth);
/* Test hooks (BOOT_FLAG_SMP_*): what they break, for test_smp. */
void smp_test_hooks_secondary(int cpu);
void smp_test_hooks_boot(void);
/* Run func on every other online CPU and wait until all have finished. */
void smp_call_function(void (*func)(void));
void send_IPI(int cpu, uint32_t vector);
#else
static inline void lock_kernel(void) { }
static inline void unlock_kernel(void) { }
#endif

#endif
