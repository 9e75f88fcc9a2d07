/* Signal numbers, from ../signals.def. */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

enum {
#define SIGNAL(nr, name, action) name = nr,
#include "../signals.def"
#undef SIGNAL
};

#define NSIG 64 /* _NSIG of i386: signals 1 to 64, the last 33 real-time */

#endif
