/*
 * The machine: one struct, passed explicitly, with the state of a run: the
 * running CPU (cpu_state.h) and the others, guest memory, the CPU model,
 * the address spaces and the file tree, the counters, why the run ended,
 * and the observers that are told what the CPU does (observer.h). What the
 * run was asked to do is run_options.h; how time is charged, charge.h.
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
#include "image/ksyms.h"
#include "engine/memory.h"
#include "machine/cpu_state.h"
#include "machine/observer.h"
#include "machine/run_options.h"

struct vfs;

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

#define MACHINE_MAX_OBSERVERS 8

#define MAX_CPUS SMP_MAX_CPUS /* guest/abi.h: the kernel's NR_CPUS */
struct smp_state;

#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmicrosoft-anon-tag"
#endif
/* address-space requests between two looks at the engines' code buffers
 * without the cycle model (machine.c, machine_code_look_at_entry) */
#define ENGINE_CODE_LOOK_MM 256u

struct machine {
    union {
        /* An unnamed member of a tagged struct type is a GNU C extension
         * (-fms-extensions): its fields read as the machine's own. */
        struct cpu_local;
        struct cpu_local local;    /* the running CPU's, as a whole */
    };
#ifdef __clang__
#pragma clang diagnostic pop
#endif
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
    struct engine_ring0_memo ring0;  /* engine_enter_ring0's loads, remembered */
    struct ksyms ksyms;
    struct vfs *vfs;                /* the file tree (vfs.h) */
    struct addrspaces *as;          /* every process's user memory */
    size_t stdin_pos;               /* read so far of opts->harness.stdin_data */

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
    bool rare;                     /* false: none of insn_observed, stop,
                                      paused, hooks_full is set (set with
                                      each, worked out again at each run:
                                      run.c) */
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

/* The blocks' runs into m->class_count (decode.h block_ran): before each
 * read of it. */
static inline void fold_counts(struct machine *m)
{
    if (m->blocks.npending)
        block_fold(&m->blocks);
}

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
