/*
 * Counting semaphores in the shape of 2.5.53's include/asm-i386/semaphore.h:
 * down is one decrement and a sign test, up one increment and a test,
 * both lock-prefixed only in a CONFIG_SMP kernel (LOCK_PREFIX); the
 * waiting and the waking are out of line (semaphore.c).
 */
#ifndef KERNEL_SEMAPHORE_H
#define KERNEL_SEMAPHORE_H

#include "sched.h"

struct semaphore {
    atomic_t count;            /* 1 free; 0 taken; below 0 taken, with sleepers */
    int sleepers;
    wait_queue_head_t wait;
};

static inline void sema_init(struct semaphore *sem, int val, const char *what)
{
    atomic_set(&sem->count, val);
    sem->sleepers = 0;
    init_waitqueue(&sem->wait, what);
}

#define init_MUTEX(sem, what) sema_init((sem), 1, (what))

void __down(struct semaphore *sem);
void __up(struct semaphore *sem);

static inline void down(struct semaphore *sem)
{
    __asm__ goto(LOCK_PREFIX "decl %0\n\tjs %l[contended]"
                 : : "m"(sem->count.counter) : "memory", "cc" : contended);
    return;
contended: __attribute__((cold));
    __down(sem);
}

/* The count was negative before the increment: someone sleeps in __down. */
static inline void up(struct semaphore *sem)
{
    __asm__ goto(LOCK_PREFIX "incl %0\n\tjle %l[sleepers]"
                 : : "m"(sem->count.counter) : "memory", "cc" : sleepers);
    return;
sleepers: __attribute__((cold));
    __up(sem);
}

#endif
