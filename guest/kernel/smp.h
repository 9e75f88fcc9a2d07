/*
 * More than one CPU (built with CONFIG_SMP, booted by emu --smp N > 1): the
 * CPU's number, spinlocks, atomic counters and cross-CPU calls. Without
 * CONFIG_SMP every lock is nothing and the CPU is 0, as Linux 2.5's UP
 * build, so the one-CPU kernel runs the instructions it always ran.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel.h"

typedef struct {
    volatile uint32_t locked;
} spinlock_t;

#define SPIN_LOCK_UNLOCKED { 0 }

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

static inline void atomic_inc(volatile uint32_t *p)
{
    __asm__ volatile("lock; incl %0" : "+m"(*p) : : "memory");
}

static inline void atomic_or(volatile uint32_t *p, uint32_t bits)
{
    __asm__ volatile("lock; orl %1, %0" : "+m"(*p) : "ir"(bits) : "memory");
}

static inline void spin_lock(spinlock_t *l)
{
    while (xchg_u32(&l->locked, 1))
        while (l->locked)
            cpu_relax();
}

static inline void spin_unlock(spinlock_t *l)
{
    __asm__ volatile("" : : : "memory");
    l->locked = 0;
}

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
/* Run func on every other online CPU and wait until all have finished. */
void smp_call_function(void (*func)(void));
void send_IPI(int cpu, uint32_t vector);
#else
static inline void spin_lock(spinlock_t *l) { (void)l; }
static inline void spin_unlock(spinlock_t *l) { (void)l; }
#endif

#endif
