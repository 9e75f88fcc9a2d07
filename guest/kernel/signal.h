/* Signal numbers, from ../signals.def, and the i386 ABI of signal actions. */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include <stdint.h>

enum {
#define SIGNAL(nr, name, action) name = nr,
#include "../signals.def"
#undef SIGNAL
};

#define NSIG 64 /* _NSIG of i386: signals 1 to 64, the last 33 real-time */
#define SIGRTMIN (SIGSYS + 1) /* the first real-time signal */

/* ERESTARTSYS (restart unless a handler without SA_RESTART runs),
 * ERESTARTNOINTR (always), ERESTARTNOHAND (unless a handler runs) and
 * ERESTART_RESTARTBLOCK (through restart_syscall) are never seen by user
 * space: the call is restarted or fails with EINTR on the way out
 * (signal_frame.c). Their values: guest/linux_abi.def, KABI rows. */

#define SIG_DFL 0
#define SIG_IGN 1

#define SA_NOCLDSTOP 0x00000001u
#define SA_NOCLDWAIT 0x00000002u
#define SA_SIGINFO   0x00000004u
#define SA_RESTORER  0x04000000u
#define SA_ONSTACK   0x08000000u
#define SA_RESTART   0x10000000u
#define SA_NODEFER   0x40000000u
#define SA_RESETHAND 0x80000000u

/* si_code values */
#define SI_USER     0
#define SI_KERNEL   0x80
#define SI_TKILL    (-6)
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define FPE_INTDIV  1
#define ILL_ILLOPN  2
#define BUS_ADRALN  1
#define TRAP_BRKPT  1
#define TRAP_TRACE  2
#define CLD_EXITED  1
#define CLD_KILLED  2
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

#define SS_ONSTACK  1
#define SS_DISABLE  2
#define SS_AUTODISARM (1u << 31)
#define MINSIGSTKSZ 2048

/* struct sigaction as rt_sigaction passes it (the kernel's, i386) */
struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

/* stack_t */
struct stack32 {
    uint32_t sp, flags, size;
};

static inline uint64_t sigbit(uint32_t sig)
{
    return (uint64_t)1 << (sig - 1);
}

#endif
