/* emu compare: one program on several CPU models, side by side. */
#ifndef EMU_COMPARE_H
#define EMU_COMPARE_H

#include <stdbool.h>
#include "machine.h"
#include "syscalls.h"

#define DEFAULT_COMPARE_CPUS "pentium4;pentium4,-sep;pentium3;pentium3,-sep"

int compare_main(const struct run_options *base, const char *cpus, bool article,
                 const char *svg_path);

#endif
