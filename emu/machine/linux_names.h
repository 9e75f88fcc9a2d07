/*
 * The names of the i386 Linux ABI's constants, as strace prints them:
 * O_* and AT_* flags, PROT_* and MAP_*, clocks, fcntl commands, whence,
 * resources, futex and prctl operations, si_code values, and the errno
 * names and texts. Each table is in strace's order, which is the order the
 * flags of a combination are printed in. tests/test_linux_names.c checks
 * the values against the host's headers.
 */
#ifndef EMU_LINUX_NAMES_H
#define EMU_LINUX_NAMES_H

#include <stdint.h>
#include <stdio.h>

struct xlat {
    uint32_t value;
    const char *name;
};

/* Tables end with a NULL name. */
extern const struct xlat open_access_modes[], open_flags[], at_flags[], statx_sync_types[],
    statx_masks[], prot_flags[], mmap_flags[], access_flags[], clock_names[], fcntl_cmds[],
    fd_flags[], whence_names[], rlimit_names[], futex_ops[], futex_flags[], prctl_ops[],
    ioctl_cmds[], sigmask_hows[], itimer_names[], wait_flags[], clone_flags[], grnd_flags[],
    file_types[], sigact_flags[];

/* The name of value v, or NULL. */
const char *xlat_name(const struct xlat *x, uint32_t v);
/* Print v as NAME|NAME|0x..., or zero_name (or "0") when v is 0. */
void print_flags(FILE *f, const struct xlat *x, uint32_t v, const char *zero_name);
/* Print v as its name, or as hex with a comment: 0x7b / * CLOCK_??? * / */
void print_xlat(FILE *f, const struct xlat *x, uint32_t v, const char *unknown);

/* The si_code and si_addr Linux gives the signal signo that a fault
 * (vector, error code, eip, cr2) raised in user mode. */
void fault_siginfo(uint32_t signo, uint32_t vector, uint32_t error_code, uint32_t eip,
                   uint32_t cr2, int32_t *code, uint32_t *addr);
/* "SEGV_MAPERR", "SI_KERNEL" ...; NULL if the code has no name for signo. */
const char *si_code_name(uint32_t signo, int32_t code);

/* "ENOENT" and "No such file or directory"; NULL for a number without one. */
const char *errno_name(int e);
const char *errno_text(int e);

#endif
