/* sched_yield: there is one task, so it only asks for a reschedule. */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_sched_yield(uint32_t a1, uint32_t a2, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    current->flags |= _TIF_NEED_RESCHED;
    return 0;
}
