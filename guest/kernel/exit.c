/* exit and exit_group: the one task leaves, and so does the run. */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_exit(uint32_t status, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    do_exit(status & 0xff);
}
