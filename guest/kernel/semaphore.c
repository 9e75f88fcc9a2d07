/*
 * The semaphores' slow paths (semaphore.h), as 2.5.53's
 * arch/i386/kernel/semaphore.c: the count is shared by the holder and every
 * sleeper, and `sleepers` says how many decrements the sleepers made; the
 * one that finds the sum not negative owns the semaphore.
 */
#include "semaphore.h"

void __up(struct semaphore *sem)
{
    wake_up(&sem->wait);
}

static int atomic_add_negative(int i, atomic_t *v)
{
    unsigned char neg;

    __asm__ volatile(LOCK_PREFIX "addl %2,%0; sets %1"
                     : "+m"(v->counter), "=qm"(neg) : "ir"(i) : "memory");
    return neg != 0;
}

void __down(struct semaphore *sem)
{
    struct task_struct *tsk = current;
    wait_queue_t wait = { WQ_FLAG_EXCLUSIVE, tsk, default_wake_function,
                          LIST_HEAD_INIT(wait.task_list) };
    uint32_t flags;

    tsk->state = TASK_UNINTERRUPTIBLE;
    tsk->waiting_on = &sem->wait;
    spin_lock_irqsave(&sem->wait.lock, flags);
    list_add_tail(&wait.task_list, &sem->wait.task_list);
    sem->sleepers++;
    for (;;) {
        int sleepers = sem->sleepers;

        /* the others' decrements back in: they wait, as we do */
        if (!atomic_add_negative(sleepers - 1, &sem->count)) {
            sem->sleepers = 0;
            break;
        }
        sem->sleepers = 1;
        spin_unlock_irqrestore(&sem->wait.lock, flags);
        schedule();
        spin_lock_irqsave(&sem->wait.lock, flags);
        tsk->state = TASK_UNINTERRUPTIBLE;
    }
    list_del(&wait.task_list);
    __wake_up_locked(&sem->wait, TASK_UNINTERRUPTIBLE | TASK_INTERRUPTIBLE);
    spin_unlock_irqrestore(&sem->wait.lock, flags);
    tsk->state = TASK_RUNNING;
    tsk->waiting_on = NULL_PTR;
}
