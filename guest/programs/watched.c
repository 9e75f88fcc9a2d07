/*
 * A variable written and read at known instructions, for the debugger's
 * watchpoint tests and the README's GDB walk-through: "watched" is
 * written by the instruction at store_watched (the next one is
 * after_store) and read at load_watched (the next one is after_load);
 * "when" is written by the kernel, which fills it for gettimeofday. Exits
 * with WATCHED_VALUE, so the debugger shows a status of its own.
 */
#include "mini/mini.h"

#define WATCHED_VALUE 42

int watched;
struct timeval when;

int main(int argc, char **argv)
{
    int v;
    (void)argc;
    (void)argv;
    __asm__ volatile(".globl store_watched, after_store, load_watched, after_load\n"
                     "store_watched: movl $" STR(WATCHED_VALUE) ", watched\n"
                     "after_store:\n"
                     "load_watched: movl watched, %0\n"
                     "after_load:\n"
                     : "=r"(v) : : "memory");
    syscall2(SYS_gettimeofday, &when, 0);
    return v == WATCHED_VALUE && when.tv_sec != 0 ? WATCHED_VALUE : 1;
}
