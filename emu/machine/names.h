/*
 * What the emulator prints for the numbers the guest uses: system calls
 * (name, argument count and the kind of each argument, from
 * guest/syscalls.def), signals (guest/signals.def) and exception vectors
 * (guest/x86.h).
 */
#ifndef EMU_NAMES_H
#define EMU_NAMES_H

#include <stdint.h>

/* The kinds of system-call argument that guest/syscalls.def uses, and what
 * each one is: what a tracer needs to show it. */
#define ARG_KINDS(X) \
    X(INT,          "a signed integer") \
    X(UINT,         "an unsigned integer: a count, a size, an id") \
    X(HEX,          "an opaque word, best in hex") \
    X(ADDR,         "an address in user space: NULL or hex") \
    X(FD,           "a file descriptor") \
    X(DIRFD,        "a directory descriptor, or AT_FDCWD (-100)") \
    X(PATH,         "a NUL-terminated path name in user memory") \
    X(STR,          "another NUL-terminated string in user memory") \
    X(STRV,         "a NULL-terminated array of string pointers (argv, envp)") \
    X(BUF_IN,       "bytes the call reads; how many is the next argument") \
    X(BUF_OUT,      "bytes the call fills in; how many is the next argument") \
    X(IOVEC,        "an array of struct iovec; how many is the next argument") \
    X(PTR_IN,       "a structure the call reads") \
    X(PTR_OUT,      "a structure the call fills in") \
    X(PTR_INOUT,    "a structure the call reads and updates") \
    X(LO32,         "the low half of a 64-bit value passed as two arguments") \
    X(HI32,         "the high half of a 64-bit value passed as two arguments") \
    X(OPEN_FLAGS,   "O_* flags") \
    X(AT_FLAGS,     "AT_* flags: AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH ...") \
    X(MODE,         "permission and file-type bits, in octal") \
    X(ACCESS_MODE,  "F_OK, or R_OK | W_OK | X_OK") \
    X(WHENCE,       "SEEK_SET, SEEK_CUR, SEEK_END ...") \
    X(FCNTL_CMD,    "F_DUPFD, F_GETFD, F_SETFL ...") \
    X(IOCTL_CMD,    "an ioctl request: TCGETS ...") \
    X(PROT,         "PROT_* flags") \
    X(MMAP_FLAGS,   "MAP_* flags") \
    X(SIGNAL,       "a signal number") \
    X(SIGMASK_HOW,  "SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK") \
    X(CLOCK,        "a clock id: CLOCK_REALTIME, CLOCK_MONOTONIC ...") \
    X(ITIMER,       "ITIMER_REAL, ITIMER_VIRTUAL or ITIMER_PROF") \
    X(PID,          "a process id; 0 and negative values name groups") \
    X(WAIT_OPTIONS, "WNOHANG, WUNTRACED ... flags") \
    X(CLONE_FLAGS,  "CLONE_* flags, with the exit signal in the low byte") \
    X(FUTEX_OP,     "FUTEX_WAIT, FUTEX_WAKE ..., with FUTEX_PRIVATE_FLAG") \
    X(RLIMIT,       "a resource: RLIMIT_STACK, RLIMIT_NOFILE ...") \
    X(PRCTL_OP,     "a prctl option: PR_SET_NAME ...")

enum arg_kind {
#define X(kind, what) ARG_##kind,
    ARG_KINDS(X)
#undef X
    NARG_KINDS
};

struct syscall_info {
    const char *name;
    const char *handler;   /* the guest kernel's; sys_ni_syscall: not implemented */
    uint8_t nargs;
    uint8_t kind[6];       /* enum arg_kind, one per argument */
};

/* The row of syscalls.def for nr, or NULL if it has none. */
const struct syscall_info *syscall_info(uint32_t nr);
/* The number of the call named name ("getppid"), or -1. */
int syscall_by_name(const char *name);
/* Its name, or "syscall_NR" for a number the table does not have. */
const char *syscall_name(uint32_t nr);
/* "SIGSEGV"; "signal" for a number without a name. */
const char *signal_name(uint32_t sig);
/* "#GP general protection"; "exception" past the architected vectors. */
const char *vector_name(uint32_t vector);

#endif
