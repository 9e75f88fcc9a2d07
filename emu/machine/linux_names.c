#define _GNU_SOURCE /* strerrorname_np, strerrordesc_np */
#include "machine/linux_names.h"
#include <string.h>
#include "../guest/x86.h"
#include "../guest/abi.h"
#include "linux_abi.h"

#define END { 0, NULL }
/* a row of guest/linux_abi.def, by name */
#define N(name) { LINUX_##name, #name }

const struct xlat open_access_modes[] = {
    N(O_RDONLY), N(O_WRONLY), N(O_RDWR), N(O_ACCMODE), END,
};

/* i386 values, in octal as <asm-generic/fcntl.h> writes them. */
const struct xlat open_flags[] = {
    N(O_CREAT), N(O_EXCL), N(O_NOCTTY), N(O_TRUNC),
    N(O_APPEND), N(O_NONBLOCK), N(O_SYNC),
    N(__O_SYNC), N(O_DSYNC), N(O_DIRECT),
    N(O_LARGEFILE), N(O_NOFOLLOW), N(O_NOATIME),
    N(O_CLOEXEC), N(O_PATH), N(O_TMPFILE),
    N(__O_TMPFILE), N(O_DIRECTORY), N(FASYNC), END,
};

const struct xlat at_flags[] = {
    N(AT_SYMLINK_NOFOLLOW), N(AT_REMOVEDIR), N(AT_SYMLINK_FOLLOW),
    N(AT_NO_AUTOMOUNT), N(AT_EMPTY_PATH), N(AT_RECURSIVE), END,
};

const struct xlat statx_sync_types[] = {
    { 0, "AT_STATX_SYNC_AS_STAT" }, { 0x2000, "AT_STATX_FORCE_SYNC" },
    { 0x4000, "AT_STATX_DONT_SYNC" }, END,
};

const struct xlat statx_masks[] = {
    { 0xfff, "STATX_ALL" }, { 0x7ff, "STATX_BASIC_STATS" }, { 0x1, "STATX_TYPE" },
    { 0x2, "STATX_MODE" }, { 0x4, "STATX_NLINK" }, { 0x8, "STATX_UID" }, { 0x10, "STATX_GID" },
    { 0x20, "STATX_ATIME" }, { 0x40, "STATX_MTIME" }, { 0x80, "STATX_CTIME" },
    { 0x100, "STATX_INO" }, { 0x200, "STATX_SIZE" }, { 0x400, "STATX_BLOCKS" },
    { 0x800, "STATX_BTIME" }, { 0x1000, "STATX_MNT_ID" }, { 0x2000, "STATX_DIOALIGN" }, END,
};

const struct xlat prot_flags[] = {
    N(PROT_READ), N(PROT_WRITE), N(PROT_EXEC), N(PROT_SEM),
    N(PROT_GROWSDOWN), N(PROT_GROWSUP), END,
};

/* The sharing type (the low nibble) comes first, then the flags. */
const struct xlat mmap_flags[] = {
    N(MAP_SHARED), N(MAP_PRIVATE), N(MAP_SHARED_VALIDATE),
    N(MAP_FIXED), N(MAP_ANONYMOUS), N(MAP_32BIT),
    N(MAP_NORESERVE), N(MAP_POPULATE), N(MAP_NONBLOCK),
    N(MAP_GROWSDOWN), N(MAP_DENYWRITE), N(MAP_EXECUTABLE),
    N(MAP_LOCKED), N(MAP_STACK), N(MAP_HUGETLB),
    N(MAP_SYNC), N(MAP_UNINITIALIZED),
    N(MAP_FIXED_NOREPLACE), END,
};

const struct xlat access_flags[] = {
    N(R_OK), N(W_OK), N(X_OK), END,
};

const struct xlat clock_names[] = {
    { 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" }, { 2, "CLOCK_PROCESS_CPUTIME_ID" },
    { 3, "CLOCK_THREAD_CPUTIME_ID" }, { 4, "CLOCK_MONOTONIC_RAW" },
    { 5, "CLOCK_REALTIME_COARSE" }, { 6, "CLOCK_MONOTONIC_COARSE" }, { 7, "CLOCK_BOOTTIME" },
    { 8, "CLOCK_REALTIME_ALARM" }, { 9, "CLOCK_BOOTTIME_ALARM" }, { 10, "CLOCK_SGI_CYCLE" },
    { 11, "CLOCK_TAI" }, END,
};

/* i386: the 64-bit lock commands are 12 to 14. */
const struct xlat fcntl_cmds[] = {
    N(F_DUPFD), N(F_GETFD), N(F_SETFD), N(F_GETFL), N(F_SETFL),
    { 5, "F_GETLK" }, { 6, "F_SETLK" }, { 7, "F_SETLKW" }, { 8, "F_SETOWN" }, { 9, "F_GETOWN" },
    { 10, "F_SETSIG" }, { 11, "F_GETSIG" }, { 12, "F_GETLK64" }, { 13, "F_SETLK64" },
    { 14, "F_SETLKW64" }, { 15, "F_SETOWN_EX" }, { 16, "F_GETOWN_EX" },
    { 17, "F_GETOWNER_UIDS" }, { 36, "F_OFD_GETLK" }, { 37, "F_OFD_SETLK" },
    { 38, "F_OFD_SETLKW" }, { 1024, "F_SETLEASE" }, { 1025, "F_GETLEASE" },
    { 1026, "F_NOTIFY" }, N(F_DUPFD_CLOEXEC), { 1031, "F_SETPIPE_SZ" },
    { 1032, "F_GETPIPE_SZ" }, { 1033, "F_ADD_SEALS" }, { 1034, "F_GET_SEALS" }, END,
};

const struct xlat fd_flags[] = { N(FD_CLOEXEC), END };

const struct xlat whence_names[] = {
    N(SEEK_SET), N(SEEK_CUR), N(SEEK_END), N(SEEK_DATA),
    N(SEEK_HOLE), END,
};

const struct xlat rlimit_names[] = {
    { 0, "RLIMIT_CPU" }, { 1, "RLIMIT_FSIZE" }, { 2, "RLIMIT_DATA" }, { 3, "RLIMIT_STACK" },
    { 4, "RLIMIT_CORE" }, { 5, "RLIMIT_RSS" }, { 6, "RLIMIT_NPROC" }, { 7, "RLIMIT_NOFILE" },
    { 8, "RLIMIT_MEMLOCK" }, { 9, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" },
    { 11, "RLIMIT_SIGPENDING" }, { 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" },
    { 14, "RLIMIT_RTPRIO" }, { 15, "RLIMIT_RTTIME" }, END,
};

/* The operation is the low 7 bits; FUTEX_PRIVATE_FLAG (128) makes _PRIVATE. */
const struct xlat futex_ops[] = {
    { 0, "FUTEX_WAIT" }, { 1, "FUTEX_WAKE" }, { 2, "FUTEX_FD" }, { 3, "FUTEX_REQUEUE" },
    { 4, "FUTEX_CMP_REQUEUE" }, { 5, "FUTEX_WAKE_OP" }, { 6, "FUTEX_LOCK_PI" },
    { 7, "FUTEX_UNLOCK_PI" }, { 8, "FUTEX_TRYLOCK_PI" }, { 9, "FUTEX_WAIT_BITSET" },
    { 10, "FUTEX_WAKE_BITSET" }, { 11, "FUTEX_WAIT_REQUEUE_PI" },
    { 12, "FUTEX_CMP_REQUEUE_PI" }, { 13, "FUTEX_LOCK_PI2" }, END,
};

const struct xlat futex_flags[] = { { 256, "FUTEX_CLOCK_REALTIME" }, END };

const struct xlat prctl_ops[] = {
    { 1, "PR_SET_PDEATHSIG" }, { 2, "PR_GET_PDEATHSIG" }, { 3, "PR_GET_DUMPABLE" },
    { 4, "PR_SET_DUMPABLE" }, { 15, "PR_SET_NAME" }, { 16, "PR_GET_NAME" },
    { 21, "PR_GET_SECCOMP" }, { 22, "PR_SET_SECCOMP" }, { 23, "PR_CAPBSET_READ" },
    { 24, "PR_CAPBSET_DROP" }, { 36, "PR_SET_CHILD_SUBREAPER" },
    { 37, "PR_GET_CHILD_SUBREAPER" }, { 38, "PR_SET_NO_NEW_PRIVS" },
    { 39, "PR_GET_NO_NEW_PRIVS" }, { 0x53564d41, "PR_SET_VMA" }, END,
};

const struct xlat ioctl_cmds[] = {
    { 0x5401, "TCGETS" }, { 0x5402, "TCSETS" }, { 0x5403, "TCSETSW" }, { 0x5404, "TCSETSF" },
    { 0x540f, "TIOCGPGRP" }, { 0x5410, "TIOCSPGRP" }, { 0x5413, "TIOCGWINSZ" },
    { 0x5414, "TIOCSWINSZ" }, { 0x541b, "FIONREAD" }, { 0x5421, "FIONBIO" },
    { 0x5450, "FIONCLEX" }, { 0x5451, "FIOCLEX" }, END,
};

const struct xlat sigmask_hows[] = {
    { 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" }, END,
};

const struct xlat itimer_names[] = {
    { 0, "ITIMER_REAL" }, { 1, "ITIMER_VIRTUAL" }, { 2, "ITIMER_PROF" }, END,
};

const struct xlat wait_flags[] = {
    N(WNOHANG), N(WSTOPPED), N(WEXITED), N(WCONTINUED),
    N(WNOWAIT), N(__WNOTHREAD), N(__WALL),
    N(__WCLONE), END,
};

const struct xlat clone_flags[] = {
    { 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
    { 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" },
    { 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
    { 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
    { 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
    { 0x400000, "CLONE_DETACHED" }, { 0x800000, "CLONE_UNTRACED" },
    { 0x1000000, "CLONE_CHILD_SETTID" }, { 0x2000000, "CLONE_NEWCGROUP" },
    { 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
    { 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
    { 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" }, END,
};

const struct xlat grnd_flags[] = {
    { 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" }, END,
};

const struct xlat file_types[] = {
    N(S_IFSOCK), N(S_IFLNK), N(S_IFREG),
    N(S_IFBLK), N(S_IFDIR), N(S_IFCHR),
    N(S_IFIFO), END,
};

const struct xlat sigact_flags[] = {
    { 0x04000000, "SA_RESTORER" }, { 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
    { 0x20000000, "SA_INTERRUPT" }, { 0x40000000, "SA_NODEFER" },
    { 0x80000000, "SA_RESETHAND" }, { 4, "SA_SIGINFO" }, { 1, "SA_NOCLDSTOP" },
    { 2, "SA_NOCLDWAIT" }, END,
};

const char *xlat_name(const struct xlat *x, uint32_t v)
{
    for (; x->name; x++)
        if (x->value == v)
            return x->name;
    return NULL;
}

void print_flags(FILE *f, const struct xlat *x, uint32_t v, const char *zero_name)
{
    if (v == 0) {
        fputs(zero_name ? zero_name : "0", f);
        return;
    }
    const char *sep = "";
    for (; x->name && v; x++) {
        if (x->value && (v & x->value) == x->value) {
            fprintf(f, "%s%s", sep, x->name);
            v &= ~x->value;
            sep = "|";
        }
    }
    if (v)
        fprintf(f, "%s%#x", sep, v);
}

void print_xlat(FILE *f, const struct xlat *x, uint32_t v, const char *unknown)
{
    const char *name = xlat_name(x, v);
    if (name)
        fputs(name, f);
    else
        fprintf(f, "%#x /* %s */", v, unknown);
}

/*
 * What Linux's trap handlers put in the siginfo: a page fault gives the
 * faulting address, SEGV_MAPERR where nothing is mapped for ring 3 (not
 * present, or kernel space) and SEGV_ACCERR where a mapping forbids the
 * access; #DE and #UD give the instruction's address; the rest are sent
 * as SI_KERNEL with no address.
 */
void fault_siginfo(uint32_t signo, uint32_t vector, uint32_t error_code, uint32_t eip,
                   uint32_t cr2, int32_t *code, uint32_t *addr)
{
    (void)signo;
    *code = 0x80; /* SI_KERNEL */
    *addr = 0;
    switch (vector) {
    case X86_VEC_PF:
        *code = (error_code & X86_PF_PROT) && cr2 < KERNEL_BASE ? 2 /* SEGV_ACCERR */
                                                                 : 1 /* SEGV_MAPERR */;
        *addr = cr2;
        break;
    case X86_VEC_DE:
        *code = 1; /* FPE_INTDIV */
        *addr = eip;
        break;
    case X86_VEC_UD:
        *code = 2; /* ILL_ILLOPN */
        *addr = eip;
        break;
    }
}

enum {
#define SIGNAL(nr, name, action) LINUX_##name = nr,
#include "../guest/signals.def"
#undef SIGNAL
};

const char *si_code_name(uint32_t signo, int32_t code)
{
    static const struct { uint32_t signo; int32_t code; const char *name; } codes[] = {
        { LINUX_SIGSEGV, 1, "SEGV_MAPERR" }, { LINUX_SIGSEGV, 2, "SEGV_ACCERR" },
        { LINUX_SIGILL, 1, "ILL_ILLOPC" }, { LINUX_SIGILL, 2, "ILL_ILLOPN" },
        { LINUX_SIGFPE, 1, "FPE_INTDIV" }, { LINUX_SIGFPE, 2, "FPE_INTOVF" },
        { LINUX_SIGBUS, 1, "BUS_ADRALN" }, { LINUX_SIGTRAP, 1, "TRAP_BRKPT" },
        { LINUX_SIGTRAP, 2, "TRAP_TRACE" }, { 17, 1, "CLD_EXITED" }, { 17, 2, "CLD_KILLED" },
        { 17, 3, "CLD_DUMPED" }, { 17, 4, "CLD_TRAPPED" }, { 17, 5, "CLD_STOPPED" },
        { 17, 6, "CLD_CONTINUED" },
    };
    static const char *const negative[] = { NULL, "SI_QUEUE", "SI_TIMER", "SI_MESGQ",
                                            "SI_ASYNCIO", "SI_SIGIO", "SI_TKILL" };
    if (code < 0 && code >= -6)
        return negative[-code];
    if (code == 0x80)
        return "SI_KERNEL";
    if (code == 0)
        return "SI_USER";
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i].signo == signo && codes[i].code == code)
            return codes[i].name;
    return NULL;
}

/* Linux numbers errors the same on i386 and on the x86-64 host, so the
 * host C library's names and texts are the guest's (test_linux_names
 * checks each of guest/kernel/errno.h). */
const char *errno_name(int e)
{
    return e > 0 && e < 4096 ? strerrorname_np(e) : NULL;
}

const char *errno_text(int e)
{
    return e > 0 && e < 4096 ? strerrordesc_np(e) : NULL;
}
