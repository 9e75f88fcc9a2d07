/* exit and exit_group: the one task leaves, and so does the run. */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_exit(uint32_t status, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    do_exit(status & 0xff);
}

/* The address space a zombie kept loaded until it left the CPU. */
void exit_mm_late(struct task_struct *t)
{
    if (!t->mm && t->active_mm) {
        mmput(t->active_mm);
        t->active_mm = NULL_PTR;
    }
}
