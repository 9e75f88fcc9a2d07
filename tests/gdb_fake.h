/*
 * A fake machine for the GDB stub's tests, the gdb_fake_server helper and
 * the fuzz harness: a register file, 20 KiB of memory and a "program"
 * that is a fixed list of EIPs. Executing one entry adds 1 to EAX, may
 * write or read the 32-bit variable FAKE_VAR, and moves EIP to the next
 * entry; after the last one the program exits with FAKE_EXIT_STATUS.
 *
 * fake_machine() is the run loop every machine behind the stub needs
 * (gdbstub.h): the reference for integrating the stub into emu.
 */
#ifndef TESTS_GDB_FAKE_H
#define TESTS_GDB_FAKE_H

#include <stdbool.h>
#include <stdint.h>
#include "../emu/gdb/gdbstub.h"
#include "../emu/gdb/gdb_session.h"

#define FAKE_CODE    0x08048000u   /* [FAKE_CODE, FAKE_RO) read-write */
#define FAKE_VAR     0x0804a010u   /* the program writes 42 here, then reads it */
#define FAKE_STACK   0x0804bff0u
#define FAKE_RO      0x0804c000u   /* [FAKE_RO, FAKE_END) read-only, 0xcc */
#define FAKE_END     0x0804d000u   /* nothing else is backed */
#define FAKE_EXIT_STATUS 7
#define FAKE_CYCLES_PER_INSN 3     /* what "monitor cycles" counts */
#define FAKE_POLL_EVERY 1000       /* instructions between gdb_poll calls */
#define FAKE_MAX_POINTS 64
#define FAKE_KILLED (-1)

enum fake_op { FAKE_NOP, FAKE_WRITE, FAKE_READ };

struct fake_insn {
    uint32_t eip;
    enum fake_op op;
};

/* The program: FAKE_NINSNS entries; entry 3 writes FAKE_VAR, 5 reads it. */
#define FAKE_NINSNS 7
extern const struct fake_insn fake_program[FAKE_NINSNS];

struct fake {
    uint32_t regs[GDB_NCORE];
    uint8_t mem[FAKE_END - FAKE_CODE];
    struct gdb_point points[FAKE_MAX_POINTS];
    int npoints;
    int pc;           /* the entry at EIP */
    int spin_at;      /* an entry that repeats for ever, or -1 */
    int unreadable;   /* a register get_reg fails for, or -1 */
    uint64_t insns;
    struct gdb_target target;
};

void fake_init(struct fake *f);

/* Run as r asks (CONTINUE or STEP) until a stop. poll (if not NULL) is
 * called every FAKE_POLL_EVERY instructions and returns a signal to stop
 * with, or 0; budget (if not 0) bounds the instructions, then SIGINT. */
struct gdb_stop fake_resume(struct fake *f, const struct gdb_resume *r,
                            int (*poll)(void *), void *pctx, uint64_t budget);

/* The machine's run loop over a stub. wait: stop before the first
 * instruction (--gdb-wait). The exit status, or FAKE_KILLED. */
int fake_machine(struct fake *f, struct gdb_stub *g, bool wait);

#endif
