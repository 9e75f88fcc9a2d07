/*
 * Stopping the machine for a debugger: breakpoints, watchpoints, single
 * steps, a poll for interrupts, and faults caught on the way. A layer-2
 * facility the GDB stub (gdb_machine.c) drives; it holds the machine
 * through machine.h's struct machine_hold and never writes guest memory.
 *
 * Where the machine stops:
 *   - a breakpoint: before the instruction at its address runs (a code
 *     hook on the address, or the block hook when a block starts there);
 *     the repeats of a rep instruction already under way do not count, as
 *     a CPU's RF flag has them;
 *   - a watchpoint: after the instruction that read or wrote the range
 *     (memory hooks on it), before the next one;
 *   - a step: before the second instruction since the resume, which may
 *     be a fault or interrupt handler, the sysenter target or the return
 *     of an iret or sysexit; a rep instruction steps one iteration, as TF
 *     does;
 *   - a caught fault: at the first instruction of the kernel's handler;
 *   - the poll: before a block, every DEBUG_POLL_INSNS instructions.
 * A resume at a breakpoint's address runs that instruction first.
 *
 * The cycle model counts exactly as without a debugger: a stop before a
 * block charges nothing, a stop inside one refunds the rest of it, which
 * is charged when the rest runs (machine_pause, truncate_current_block).
 */
#ifndef EMU_DEBUG_H
#define EMU_DEBUG_H

#include <stdbool.h>
#include <stdint.h>
#include "machine/machine.h"

#define DEBUG_MAX_BREAKS 64
#define DEBUG_MAX_WATCHES 16
#define DEBUG_MAX_CODE_HOOKS 128   /* live and idle breakpoint hooks */
#define DEBUG_WATCH_MAX_LEN PAGE_SIZE
#define DEBUG_POLL_INSNS 4096
#define DEBUG_MAX_ODD 64           /* translated blocks Capstone cannot decode */

enum debug_watch_kind { DEBUG_WATCH_WRITE, DEBUG_WATCH_READ, DEBUG_WATCH_ACCESS };

enum debug_why {
    DEBUG_STEPPED,     /* one instruction ran */
    DEBUG_BREAK,       /* at a breakpoint: addr */
    DEBUG_WATCH,       /* after an access to a watched range: addr, kind */
    DEBUG_SIGNAL,      /* the poll asked for signo */
    DEBUG_FAULT,       /* a caught fault was delivered: fault */
};

struct debug_stop {
    enum debug_why why;
    uint32_t addr;
    bool hw;                     /* BREAK: a hardware breakpoint */
    enum debug_watch_kind kind;  /* WATCH: the watchpoint's */
    bool wrote;                  /* WATCH: the access was a write */
    int signo;                   /* SIGNAL */
    struct delivery_event fault; /* FAULT */
};

struct debug_break {
    uint32_t addr;
    bool hw;
};

/* With --smp every CPU has its own engine: a debugger's hook is in each
 * (hook[c] in CPU c's engine). */
struct debug_watch {
    uint32_t addr, len;
    enum debug_watch_kind kind;
    uc_hook hook[MAX_CPUS];
};

struct debug_code_hook {
    uint32_t addr;
    uc_hook hook[MAX_CPUS];
};

struct debug {
    struct machine *m;
    struct debug_break breaks[DEBUG_MAX_BREAKS];
    int nbreaks;
    struct debug_watch watches[DEBUG_MAX_WATCHES];
    int nwatches;
    struct debug_code_hook hooks[DEBUG_MAX_CODE_HOOKS];
    int nhooks;
    uc_hook every_insn[MAX_CPUS]; /* while stepping or watching */
    bool every_hooked;
    bool retranslate;            /* hooks or code changed since the last run */
    uint32_t odd[DEBUG_MAX_ODD];  /* undecodable blocks that ran */
    int nodd;
    bool catch_faults;
    int (*poll)(void *ctx);
    void *poll_ctx;
    uint64_t next_poll;

    /* this resume */
    bool stepping;
    int step_cpu;                /* the CPU a step is of (--smp) */
    uint32_t resume_eip;
    uint64_t blocks;             /* blocks let run since the resume */
    uint32_t block_addr;
    bool rep_again;              /* the block repeats a rep under way */
    bool passed;                 /* an instruction of this block let run: */
    uint32_t passed_addr;        /* its hooks may ask again */
    bool watch_hit, fault_hit;
    struct debug_stop stop;      /* why the machine paused */
};

/* Hold m for d; d starts with no points. */
void debug_attach(struct debug *d, struct machine *m);
/* Let m go: no points, no hooks, no hold. */
void debug_detach(struct debug *d);
/* Called every DEBUG_POLL_INSNS instructions while the machine runs: a
 * signal number stops it (DEBUG_SIGNAL), 0 lets it go on. */
void debug_set_poll(struct debug *d, int (*poll)(void *ctx), void *ctx);
void debug_catch_faults(struct debug *d, bool on);

/* 0, or -1 if there is no room (or the range is empty or too long). */
int debug_insert_break(struct debug *d, uint32_t addr, bool hw);
int debug_remove_break(struct debug *d, uint32_t addr, bool hw);
int debug_insert_watch(struct debug *d, enum debug_watch_kind kind, uint32_t addr, uint32_t len);
int debug_remove_watch(struct debug *d, enum debug_watch_kind kind, uint32_t addr, uint32_t len);
/* Every breakpoint and watchpoint goes. */
void debug_clear(struct debug *d);

/* Run one instruction (step) or on (continue) until a stop: then
 * MACHINE_PAUSED with why in *stop; or the machine's end, machine_run's
 * exit status. */
int debug_run(struct debug *d, bool step, struct debug_stop *stop);

/*
 * Guest virtual memory as a debugger sees it (debug_mem.c): through the
 * page tables at CR3 when paging is on; a user address (below KERNEL_BASE)
 * needs user pages, writable ones to write; a kernel address needs only
 * present pages (writable to write: the kernel sets CR0.WP). Bytes done
 * from addr on, up to the first that cannot be. Never charged; a write
 * drops the translations of the code it may have changed.
 */
size_t debug_read_mem(struct debug *d, uint32_t addr, uint8_t *buf, size_t len);
size_t debug_write_mem(struct debug *d, uint32_t addr, const uint8_t *buf, size_t len);

#endif
