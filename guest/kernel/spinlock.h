/*
 * Locks, atomic counters and barriers in the shape Linux 2.5.53 gave them
 * (include/asm-i386/spinlock.h, rwlock.h, atomic.h, system.h), because
 * the measured paths run them and the cycle model charges what they are:
 *
 *   built with CONFIG_SMP      a lock-prefixed instruction and a branch
 *                              (spin_lock: lock decb + js; read_lock: lock
 *                              subl $1 + js; read_unlock: lock incl), the
 *                              waiting loop out of line;
 *   built without it           nothing at all, as a UP kernel without
 *                              CONFIG_PREEMPT: only the _irq forms keep
 *                              their cli/sti or pushfl/popfl.
 *
 * Which of the two the model runs is --kernel-config (docs/cost-model.md).
 * SMP_BIG_LOCK (the kernel for --smp N > 1) adds the lock's owner, for the
 * deadlock report: a store 2.5.53 did not make, off the measured kernels.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>

#ifdef CONFIG_SMP
#define LOCK_PREFIX "lock; "
#else
#define LOCK_PREFIX ""
#endif

#define barrier() __asm__ volatile("" : : : "memory")

/* 2.5.53 has no fence instructions on i386: a locked add to the stack top
 * orders loads and stores, whatever the configuration. */
static inline void mb(void)
{
    __asm__ volatile("lock; addl $0,0(%%esp)" : : : "memory");
}
#define rmb() mb()
#define wmb() barrier()
#ifdef CONFIG_SMP
#define smp_mb() mb()
#define smp_rmb() rmb()
#define smp_wmb() wmb()
#else
#define smp_mb() barrier()
#define smp_rmb() barrier()
#define smp_wmb() barrier()
#endif

/* ---- interrupts on this CPU ---- */

#define local_irq_save(flags) \
    __asm__ volatile("pushfl; popl %0; cli" : "=g"(flags) : : "memory")
#define local_irq_restore(flags) \
    __asm__ volatile("pushl %0; popfl" : : "g"(flags) : "memory", "cc")
#define local_irq_disable() __asm__ volatile("cli" : : : "memory")
#define local_irq_enable() __asm__ volatile("sti" : : : "memory")

/* ---- atomic counters ---- */

typedef struct { volatile int counter; } atomic_t;

#define ATOMIC_INIT(i) { (i) }
#define atomic_read(v) ((v)->counter)
#define atomic_set(v, i) ((v)->counter = (i))

static inline void atomic_inc(atomic_t *v)
{
    __asm__ volatile(LOCK_PREFIX "incl %0" : "+m"(v->counter) : : "memory");
}

static inline void atomic_dec(atomic_t *v)
{
    __asm__ volatile(LOCK_PREFIX "decl %0" : "+m"(v->counter) : : "memory");
}

static inline int atomic_dec_and_test(atomic_t *v)
{
    unsigned char zero;
    __asm__ volatile(LOCK_PREFIX "decl %0; sete %1"
                     : "+m"(v->counter), "=qm"(zero) : : "memory");
    return zero != 0;
}

/* ---- spinlocks ---- */

/* lock: 1 free, 0 or below taken (decb takes it). name: for the deadlock
 * report. */
typedef struct {
    volatile signed char lock;
#ifdef SMP_BIG_LOCK
    volatile uint32_t owner;       /* the CPU holding it, + 1 */
#endif
    const char *name;
} spinlock_t;

#ifdef SMP_BIG_LOCK
#define SPIN_LOCK_UNLOCKED(what) { 1, 0, what }
#else
#define SPIN_LOCK_UNLOCKED(what) { 1, what }
#endif

#ifdef CONFIG_SMP
/* The waiting loop (smp.c): spins until the lock looks free, then tries
 * again; gives up with the deadlock report after SPIN_DEADLOCK_MS. */
void spin_lock_slow(spinlock_t *l);

#ifdef SMP_BIG_LOCK
void spin_note_owner(spinlock_t *l);   /* smp.c */
#else
#define spin_note_owner(l) ((void)(l))
#endif

static inline void spin_lock(spinlock_t *l)
{
    __asm__ goto(LOCK_PREFIX "decb %0\n\tjs %l[wait]"
                 : : "m"(l->lock) : "memory", "cc" : wait);
    spin_note_owner(l);
    return;
wait: __attribute__((cold));
    spin_lock_slow(l);
    spin_note_owner(l);
}

static inline void spin_unlock(spinlock_t *l)
{
#ifdef SMP_BIG_LOCK
    l->owner = 0;
#endif
    __asm__ volatile("movb $1,%0" : "=m"(l->lock) : : "memory");
}
#else
static inline void spin_lock(spinlock_t *l) { (void)l; }
static inline void spin_unlock(spinlock_t *l) { (void)l; }
#endif

#define spin_lock_irq(l) do { local_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l) do { spin_unlock(l); local_irq_enable(); } while (0)
#define spin_lock_irqsave(l, flags) do { local_irq_save(flags); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) \
    do { spin_unlock(l); local_irq_restore(flags); } while (0)

/* ---- reader-writer locks ---- */

#define RW_LOCK_BIAS 0x01000000

typedef struct { volatile int lock; } rwlock_t;

#define RW_LOCK_UNLOCKED { RW_LOCK_BIAS }

#ifdef CONFIG_SMP
void read_lock_slow(rwlock_t *rw);
void write_lock_slow(rwlock_t *rw);

static inline void read_lock(rwlock_t *rw)
{
    __asm__ goto(LOCK_PREFIX "subl $1,%0\n\tjs %l[wait]"
                 : : "m"(rw->lock) : "memory", "cc" : wait);
    return;
wait: __attribute__((cold));
    read_lock_slow(rw);
}

static inline void read_unlock(rwlock_t *rw)
{
    __asm__ volatile(LOCK_PREFIX "incl %0" : "+m"(rw->lock) : : "memory");
}

static inline void write_lock(rwlock_t *rw)
{
    __asm__ goto(LOCK_PREFIX "subl $0x01000000,%0\n\tjnz %l[wait]"
                 : : "m"(rw->lock) : "memory", "cc" : wait);
    return;
wait: __attribute__((cold));
    write_lock_slow(rw);
}

static inline void write_unlock(rwlock_t *rw)
{
    __asm__ volatile(LOCK_PREFIX "addl $0x01000000,%0" : "+m"(rw->lock) : : "memory");
}
#else
static inline void read_lock(rwlock_t *rw) { (void)rw; }
static inline void read_unlock(rwlock_t *rw) { (void)rw; }
static inline void write_lock(rwlock_t *rw) { (void)rw; }
static inline void write_unlock(rwlock_t *rw) { (void)rw; }
#endif

#define read_lock_irqsave(rw, flags) do { local_irq_save(flags); read_lock(rw); } while (0)
#define read_unlock_irqrestore(rw, flags) \
    do { read_unlock(rw); local_irq_restore(flags); } while (0)
#define write_lock_irq(rw) do { local_irq_disable(); write_lock(rw); } while (0)
#define write_unlock_irq(rw) do { write_unlock(rw); local_irq_enable(); } while (0)
#define write_lock_irqsave(rw, flags) do { local_irq_save(flags); write_lock(rw); } while (0)
#define write_unlock_irqrestore(rw, flags) \
    do { write_unlock(rw); local_irq_restore(flags); } while (0)

#endif
