/*
 * Who watches the machine, and what they are told: the events of the CPU
 * (an interrupt's delivery, a sysenter, each block, the instructions, a
 * TSC read, the program's end) for the accounting and the outputs, and a
 * debugger's hold, asked before a block or an instruction runs.
 * machine.h keeps the list and tells it (machine_observe,
 * machine_notify_*).
 */
#ifndef EMU_OBSERVER_H
#define EMU_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>
#include "cost/decode.h"

struct machine;

/* An interrupt or exception that went through the IDT. */
enum event_kind { EVENT_SOFTWARE, EVENT_FAULT, EVENT_EXTERNAL };
struct delivery_event {
    int vector;
    enum event_kind kind;
    uint32_t from_cpl;         /* the CPL it interrupted */
    uint32_t error_code;
    uint32_t return_eip;       /* where iret goes back to */
    uint32_t return_esp;       /* and the stack pointer it restores */
};

/* How the program ended, set before the exit observers are told. */
struct program_ending {
    bool killed;               /* by a fault: the fields below say which */
    uint32_t signal;           /* the kernel's choice for the fault */
    uint32_t vector, error_code, eip, cr2;
};

/* What an observer is told; any callback may be NULL. */
struct machine_observer {
    void *ctx;
    void (*delivery)(void *ctx, struct machine *m, const struct delivery_event *e);
    /* a sysenter the CPU accepted, at insn_addr (0 if unknown) */
    void (*sysenter)(void *ctx, struct machine *m, uint32_t insn_addr);
    /* a block about to run, already charged */
    void (*block)(void *ctx, struct machine *m, const struct block *b);
    /* the program exited or was killed: the run is about to stop */
    void (*exit)(void *ctx, struct machine *m);
    /* instructions [from, to) of m->cur_block ran (the last of them may be
     * running: it faulted, or a hook on it is about to act), told in order
     * and once each, before any other event they precede; told per block
     * and at the hooks that act, not by a code hook on every instruction
     * (machine_tell_insns); with cur_block NULL, code the decoder could not
     * read is running (none of it told) */
    void (*insns)(void *ctx, struct machine *m, uint32_t from, uint32_t to);
    /* the rdtsc at insn_addr is about to read the TSC (cycles_before it) */
    void (*tsc)(void *ctx, struct machine *m, uint32_t insn_addr);
};

/*
 * A debugger's hold on the machine (emu/cpu/debug.c). The execution loop asks
 * block() before it charges a block, and every code hook the machine puts
 * in asks insn() first (hooks at one instruction run in the order added,
 * and one that stops the engine or moves EIP ends the list: docs/unicorn.md,
 * quirk 16). True: the debugger has paused the machine there, before the
 * block or instruction ran (machine_pause).
 */
struct machine_hold {
    void *ctx;
    bool (*block)(void *ctx, struct machine *m, const struct block *b, uint32_t addr);
    bool (*insn)(void *ctx, struct machine *m, uint32_t addr);
    /* an interrupt or exception went through the IDT (before observers) */
    void (*delivered)(void *ctx, struct machine *m, const struct delivery_event *e);
    /* the kernel found a page fault to be the program's (MM_BAD_FAULT) */
    void (*program_fault)(void *ctx, struct machine *m, const struct delivery_event *e);
};

#endif
