/*
 * The machine: one struct, passed explicitly, with the state of a run: the
 * engine and guest memory, the CPU model, the cycle and instruction
 * counters and the primitives that charge them, why the run ended, and the
 * observers that are told what the CPU does (interrupt delivery, sysenter,
 * each block, the program's exit, each instruction).
 *
 * The CPU mechanisms (trap.c, sysenter.c, cpu_insns.c, hypercall.c and the
 * execution loop in run.c) act on it and report through machine_notify_*;
 * accounting and tools above them subscribe with machine_observe.
 */
#ifndef EMU_MACHINE_H
#define EMU_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unicorn/unicorn.h>
#include "../guest/abi.h"
#include "../guest/x86.h"
#include "mm/addrspace.h"
#include "cost/cpu_models.h"
#include "cost/decode.h"
#include "engine/engine.h"
#include "machine/tsc_skew.h"
#include "image/ksyms.h"
#include "engine/memory.h"

enum stop_reason {
    STOP_NONE,
    STOP_EXIT,        /* the program exited: exit_status */
    STOP_KILLED,      /* the program was killed by a fault */
    STOP_EXEC_ERROR,  /* the kernel could not load the program */
    STOP_PANIC,       /* the guest kernel panicked */
    STOP_BUDGET,      /* instruction budget exhausted */
    STOP_MACHINE,     /* the machine itself failed (triple fault, engine error) */
    STOP_DEADLOCK,    /* every process waits for something no one can do */
    STOP_LOCKED,      /* a kernel spinlock is never released (--smp) */
};

/* --mem: the user memory all processes together may hold. */
#define DEFAULT_MEM_BYTES (1ull << 30)
#define MIN_MEM_BYTES     (16ull << 20)
#define MAX_MEM_BYTES     (4ull << 30)
#define MAX_FS_BYTES      (4ull << 30)

/* What the guest wrote to its stdout, kept (compare runs quiet). */
struct output_capture {
    char *text;
    size_t len, cap;           /* at most cap - 1 bytes are kept */
};

struct run_options {
    const char *cpu_spec;      /* "pentium4", "pentium3,-sep", ... */
    bool no_sep;
    bool vgettimeofday;        /* kernel boot option: the user-space clock */
    uint64_t max_insns;
    const char *program;       /* host path of the ELF file */
    const char *argv0;         /* guest argv[0], if not the host path */
    const char *root;          /* --root: the read-only file tree, or NULL */
    const uint8_t *program_image; /* if set: the file image itself (program */
    size_t program_size;          /* then only names it), e.g. for fuzzing */
    int argc;                  /* guest argv */
    char **argv;
    char **envp;
    bool verbose;              /* print kernel boot messages */
    bool quiet;                /* swallow guest stdout (compare) */
    struct output_capture *capture; /* if set: keep guest stdout there */
    const uint8_t *stdin_data; /* if set: what the guest reads from fd 0, */
    size_t stdin_size;         /* instead of the host's stdin (fuzzing) */
    bool no_cycle_model;       /* no block hook: for measuring its overhead */
    struct cost_override cost_overrides[MAX_COST_OVERRIDES]; /* --cost */
    int ncost_overrides;
    uint32_t epoch_sec;
    uint64_t mem_bytes;        /* --mem (0: DEFAULT_MEM_BYTES) */
    uint64_t fs_bytes;         /* --fs-size: the file tree's in-memory layer
                                  (0: VFS_DEFAULT_LIMIT) */
    int smp;                   /* --smp: CPUs (0 or 1: one) */
    int kernel_config;         /* --kernel-config: enum kernel_config (default up;
                                  --smp N > 1 boots the big-lock SMP image) */
    int kernel_history;        /* --kernel: enum kernel_history (default the seed) */
    struct tsc_skew tsc_skew[SMP_MAX_CPUS]; /* by CPU; default: every TSC in step */
    uint32_t smp_test;         /* BOOT_FLAG_SMP_*: test hooks (test_smp) */
};

/* Why the engine runs up to an address and stops there (trap.h). */
enum run_to_why {
    RUN_TO_NONE,
    RUN_TO_UD,       /* after a translator abort: #UD at the culprit */
    RUN_TO_FETCH,    /* a code fetch fault raised at its block's start */
    RUN_TO_PAUSE,    /* machine_run_until: return there */
};

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

struct machine;
struct vfs;

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

/* What one run of a rep string op is charged (charge_rep, below). */
struct rep_step {
    bool start;      /* the start-up */
    bool element;    /* one element */
};

/*
 * The interval timer and the interrupt controller (emu/cpu/irq.c): channel 0
 * of an 8254 PIT on IRQ 0 of an 8259A, as the guest kernel programs them.
 * Time is modeled cycles: the PIT's 1193182 Hz input is converted with the
 * CPU model's clock.
 */
struct irq_state {
    /* PIT channel 0 */
    uint16_t reload;           /* the count written, 0 = 65536 */
    uint8_t pit_mode;          /* 2 (rate generator) or 0 (one shot) */
    uint8_t pit_byte;          /* lobyte/hibyte: which one comes next */
    bool pit_running;
    uint64_t period;           /* centicycles per count cycle */
    uint64_t deadline;         /* centicycles: the next terminal count, or
                                  UINT64_MAX */
    /* 8259A (master; the slave's set-up is accepted and ignored) */
    uint8_t icw_step;          /* the initialization word expected next (0: done) */
    uint8_t vector_base;       /* ICW2 */
    uint8_t imr;               /* masked IRQs */
    uint8_t irr, isr;          /* requested, in service */
    uint8_t slave_icw_step;
    uint64_t delivered;        /* external interrupts delivered */
    uint64_t idle_cycles;      /* centicycles skipped in hlt */
    uint64_t halts;            /* hlt instructions that waited for an interrupt */
    uint64_t dropped;          /* ticks dropped in tickless idle (irq_nohz) */
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

#define MACHINE_MAX_OBSERVERS 8
#define MAX_SPECIAL_HOOKS 1024

/*
 * What each CPU has of its own (--smp, emu/cpu/smp.c): its engine, its modeled
 * time and the state of the block it is in. The running CPU's copy is in
 * struct machine itself (the anonymous struct below), so that every
 * mechanism reads m->uc, m->cycles ... for "this CPU"; smp_switch() swaps
 * copies when another CPU runs. Kept as a list so both stay the same.
 */
#define CPU_LOCAL_FIELDS                                                        \
    /* first: the block hook reads the fields after them, and the machine \
       wide ones after the list, on every block, as a few cache lines */   \
    uint64_t special_addrs[MAX_SPECIAL_HOOKS]; /* instructions with a code hook, \
                                      at the engine's address (run.c) */       \
    uc_hook special_hooks[MAX_SPECIAL_HOOKS];                                   \
    uint16_t special_slots[2 * MAX_SPECIAL_HOOKS]; /* hash of special_addrs: index + 1 */ \
    uc_engine *uc;                                                              \
    uc_context *scratch_ctx;                                                    \
    struct engine_reports reports;  /* exceptions the engine reported, not raised */ \
    const struct block *cur_block;                                              \
    uint64_t block_start_cycles;   /* in centicycles, before cur_block */       \
    uint64_t cycles;               /* centicycles: this CPU's modeled time */   \
    uint64_t user_insns;           /* instructions it ran in user mode */      \
    uint64_t class_count[NCLASSES]; /* instructions charged, by class, and the \
                                       work done for the kernel as the          \
                                       instructions it stands for (mm_costs.c): \
                                       the cycles are their dot product with    \
                                       cpu.cost */                              \
    uint32_t cur_limit;            /* insns of cur_block still charged */       \
    uint32_t insn_told;            /* insns of cur_block told to observers */   \
    uint32_t rep_addr;             /* the rep string op last run, and */        \
    bool rep_live;                 /* whether its next run continues it */      \
    const struct insn *rep_charged; /* a rep run charged in this block, */      \
    struct rep_step rep_step;      /* and what it was charged */                \
    int nspecial;                                                               \
    bool hooks_full;               /* the run paused to drop them all (run.c) */ \
    int delivery_depth;                                                         \
    bool sti_shadow;               /* the last block ended with sti: no         \
                                      interrupt before its next instruction */  \
    bool drop_step_trap;           /* a faulting sysenter under TF (sysenter.c) */ \
    struct engine_iret_patch iret_patch; /* a ring-3 iret frame's hidden VM */  \
    int engine_aborts;             /* translations the engine aborted */        \
    enum run_to_why run_to_why;    /* run up to the linear address run_to, */   \
    uint32_t run_to, run_to_from;  /* started at run_to_from (trap.c) */        \
    bool pause_held;               /* a RUN_TO_PAUSE set aside for another */   \
    uint32_t pause_to, pause_from; /* run_to, to come back after it */          \
    bool run_paused;               /* reached RUN_TO_PAUSE (run.c) */         \
    bool stale_set;                /* a run_to disarmed while its run went on: */ \
    uint32_t stale_from, stale_to; /* translations may still halt at stale_to */

struct cpu_local {
    CPU_LOCAL_FIELDS
};

#define MAX_CPUS SMP_MAX_CPUS /* guest/abi.h: the kernel's NR_CPUS */
struct smp_state;

struct machine {
    union {
        struct { CPU_LOCAL_FIELDS };
        struct cpu_local local;    /* the running CPU's, as a whole */
    };
    int cpu_id;                    /* the running CPU (0 without --smp) */
    int ncpus;
    const struct kernel_image *kernel; /* the built-in image it boots */
    struct smp_state *smp;         /* the other CPUs (NULL with one) */
    uc_engine *engines[MAX_CPUS];  /* every CPU's engine, by number */
    void (*release_cpus)(struct machine *m); /* frees the other CPUs */
    struct cpu_config cpu;
    const struct run_options *opts;
    struct guest_memory mem;
    struct engine_layout layout;
    struct ksyms ksyms;
    struct vfs *vfs;                /* the file tree (vfs.h) */
    struct addrspaces *as;          /* every process's user memory */
    size_t stdin_pos;               /* read so far of opts->stdin_data */

    /* cycle and instruction accounting (instructions: of all CPUs) */
    struct block_cache blocks;
    uint64_t insns;
    uint64_t exceptions;
    struct {                       /* the engines' translated code (run.c, */
        uint64_t check_at;         /* quirk 28): m->insns of the next look */
        bool due;                  /* the block hook stopped the engine to */
        uint32_t eip;              /* renew it, before the block at eip */
        uint64_t mm_requests;      /* address-space hypercalls so far, and */
        uint64_t look_at;          /* at how many the next look is due */
        uint64_t renewals;         /* engines renewed */
    } code;
    struct {                       /* the last block Capstone could not */
        uint32_t addr, size;       /* decode (run.c) */
        uint8_t bytes[32];
    } undecodable;

    struct machine_observer observers[MACHINE_MAX_OBSERVERS];
    int nobservers;
    bool insn_observed;            /* an observer wants the instructions */
    struct machine_hold hold;      /* a debugger's, or all NULL */
    bool paused;                   /* the debugger stopped the engine */
    uint32_t pause_eip;            /* before this instruction */

    /* why the run ended */
    enum stop_reason stop;
    int exit_status;
    struct program_ending ending;
    uint64_t user_reads_unpaged; /* user_read()s stopped by a page not yet paged
                                    in (the kernel would fault it in) */
    char message[512];
    struct irq_state irq;          /* the timer and interrupt controller (CPU 0's) */
};

/* The CPU model, the engine, guest memory and the decoder; no hooks yet.
 * 0, or the emu exit status with the reason in m->message. */
int machine_create(struct machine *m, const struct run_options *opts);
void machine_destroy(struct machine *m);
/* Record status and a reason in m->message; returns status. */
int machine_fail(struct machine *m, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* End the run (the first reason given wins). */
void machine_stop(struct machine *m, enum stop_reason why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline uint32_t reg_read(struct machine *m, int reg)
{
    return engine_reg_read(m->uc, reg);
}

static inline void reg_write(struct machine *m, int reg, uint32_t value)
{
    engine_reg_write(m->uc, reg, value);
}

/* The debugger's say (struct machine_hold); false without a debugger. */
static inline bool machine_hold_block(struct machine *m, const struct block *b, uint32_t addr)
{
    return m->hold.block && m->hold.block(m->hold.ctx, m, b, addr);
}

static inline bool machine_hold_insn(struct machine *m, uint32_t addr)
{
    return m->hold.insn && m->hold.insn(m->hold.ctx, m, addr);
}

/* Stop the engine for the debugger before the instruction at eip:
 * machine_run returns MACHINE_PAUSED (run.h) with EIP there, and the next
 * machine_run goes on. */
void machine_pause(struct machine *m, uint32_t eip);

/* Charge count instructions of class cls. */
void charge(struct machine *m, int cls, uint64_t count);
/* The instruction running, of class cls, is not charged after all (a
 * hypercall's `out` that stands for the kernel's own work): its cost and
 * its count come off, and the rest of the block starts that much earlier. */
void refund_current_insn(struct machine *m, int cls);
/* Charge block b at its entry: every instruction not charged later.
 * (Inline, as is machine_notify_block: the block hook's every block.) */
static inline void charge_block(struct machine *m, const struct block *b)
{
    m->rep_charged = NULL;
    m->cycles += b->cost;
    for (uint32_t t = 0; t < b->ntally; t++)
        m->class_count[b->tally[t].cls] += b->tally[t].n;
}
/* Instruction counts by class at the start of the instruction at addr in
 * the current block (m->class_count if addr is not in it). Valid before
 * anything is charged later in the block (a rep, an int's delivery). */
void counts_before(struct machine *m, uint32_t addr, uint64_t out[NCLASSES]);

/*
 * A rep string op is charged as it runs, just before each run (in a code
 * hook on it, or earlier: rep_early, below): the engine
 * runs it once per element and once more with the count
 * at zero. Its start-up is charged on the first run (even with a zero
 * count: the CPU still starts the instruction); one element on each run
 * that finds a non-zero count. A run continues the previous one only if
 * nothing else ran in between: after an interrupt or a fault the
 * instruction starts again, and so does its start-up. A run that faults is
 * refunded, like any instruction that faults (truncate_current_block).
 */
/* What the next run of rep op `in` will be charged (no side effects). */
struct rep_step rep_step_of(struct machine *m, const struct insn *in);
/* Centicycles of that step. */
uint64_t rep_step_cost(const struct machine *m, const struct insn *in, struct rep_step s);
/* Charge the next run of rep op `in`, which finds ECX (or CX) at count. */
void charge_rep(struct machine *m, const struct insn *in, uint32_t count);
/*
 * A block that ends with a rep whose count is known before it
 * (rep_count.h) charges that run early (charge_rep_early): at its entry,
 * after the block, or in a code hook on the instruction its count is read
 * before, instead of in a code hook on the rep: the same step as the rep's
 * hook would have charged just before the rep ran, and refunded the same
 * way if the block is cut before it. Not while a debugger holds
 * instructions: then every rep keeps its hook, which is where the
 * debugger can stop it.
 */
static inline bool rep_early(const struct machine *m, const struct insn *in)
{
    return (in->flags & INSN_REP_EARLY) && !m->hold.insn;
}
static inline bool rep_count_here(const struct machine *m, const struct insn *in)
{
    return (in->flags & INSN_REP_COUNT) && !m->hold.insn;
}
void charge_rep_early(struct machine *m, const struct block *b);
/*
 * The next run of the live rep op `in` in a block of its own (rep_live at
 * in->addr: the run before was its own, with an element): charge_rep's
 * step without its start-up, inline for the block hook, which runs it
 * once per element of every long rep.
 */
static inline void charge_rep_again(struct machine *m, const struct insn *in)
{
    uint32_t count = reg_read(m, UC_X86_REG_ECX);
    if (in->flags & INSN_ADDR16)
        count &= 0xffff;
    bool element = count != 0;
    if (element) {
        m->cycles += m->cpu.cost[in->cls];
        m->class_count[in->cls]++;
    }
    m->rep_charged = in;
    m->rep_step = (struct rep_step){ .start = false, .element = element };
    m->rep_live = element;
}
/* Stop charging the current block at insns[index]: refund it and the rest. */
void truncate_current_block(struct machine *m, uint32_t index);
/* Centicycles at the start of the instruction at addr in the current block. */
uint64_t cycles_before(struct machine *m, uint32_t addr);

/* Tell o what happens from now on. 0, or -1 if there are too many. */
int machine_observe(struct machine *m, const struct machine_observer *o);
void machine_notify_delivery(struct machine *m, const struct delivery_event *e);
void machine_notify_sysenter(struct machine *m, uint32_t insn_addr);
static inline void machine_notify_block(struct machine *m, const struct block *b)
{
    for (int i = 0; i < m->nobservers; i++)
        if (m->observers[i].block)
            m->observers[i].block(m->observers[i].ctx, m, b);
}
void machine_notify_exit(struct machine *m);
void machine_notify_tsc(struct machine *m, uint32_t insn_addr);
/* Tell the insns observers that cur_block's instructions before index upto
 * have run (or the last of them is running); those told already are not
 * told again, and nothing is told once the machine has stopped (the engine
 * runs no hook after a stop). */
void machine_tell_insns(struct machine *m, uint32_t upto);
void machine_code_look_at_entry(struct machine *m, uint32_t eip);
/* Code the decoder could not read starts to run (cur_block NULL): the
 * insns observers hear of it as an empty range. */
void machine_tell_undecoded(struct machine *m);

#endif
