/*
 * What one CPU is, apart from the machine it belongs to: its engine, its
 * modeled time, the block it is in and the state the execution loop keeps
 * about that block (--smp gives each CPU one; machine.h).
 */
#ifndef EMU_CPU_STATE_H
#define EMU_CPU_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>
#include "cost/decode.h"
#include "engine/engine.h"

/* Why the engine runs up to an address and stops there (trap.h). */
enum run_to_why {
    RUN_TO_NONE,
    RUN_TO_UD,       /* after a translator abort: #UD at the culprit */
    RUN_TO_FETCH,    /* a code fetch fault raised at its block's start */
    RUN_TO_PAUSE,    /* machine_run_until: return there */
};

/* What one run of a rep string op is charged (charge_rep, below). */
struct rep_step {
    bool start;      /* the start-up */
    bool element;    /* one element */
};

#define MAX_SPECIAL_HOOKS 1024

/*
 * What each CPU has of its own (--smp, emu/cpu/smp.c): its engine, its modeled
 * time and the state of the block it is in. The running CPU's copy is in
 * struct machine itself, whose first member is one of these with its
 * fields open (machine.h), so that every mechanism reads m->uc, m->cycles
 * ... for "this CPU"; smp_switch() swaps the whole copy (m->local) when
 * another CPU runs.
 */
struct cpu_local {
    /* first: the block hook reads the fields after them, and the machine
       wide ones after the list, on every block, as a few cache lines */
    uint64_t special_addrs[MAX_SPECIAL_HOOKS]; /* instructions with a code hook,
                                      at the engine's address (run.c) */
    uc_hook special_hooks[MAX_SPECIAL_HOOKS];
    uint16_t special_slots[2 * MAX_SPECIAL_HOOKS]; /* hash of special_addrs: index + 1 */
    uc_engine *uc;
    uc_context *scratch_ctx;
    struct engine_reports reports;  /* exceptions the engine reported, not raised */
    const struct block *cur_block;
    uint64_t block_start_cycles;   /* in centicycles, before cur_block */
    uint64_t cycles;               /* centicycles: this CPU's modeled time */
    uint64_t user_insns;           /* instructions it ran in user mode */
    uint64_t class_count[NCLASSES]; /* instructions charged, by class, and the
                                       work done for the kernel as the
                                       instructions it stands for (mm_costs.c):
                                       the cycles are their dot product with
                                       cpu.cost; user blocks' runs are added
                                       at each read (fold_counts, machine.h):
                                       a block observer that reads it folds
                                       first */
    uint32_t cur_limit;            /* insns of cur_block still charged */
    uint32_t insn_told;            /* insns of cur_block told to observers */
    uint32_t rep_addr;             /* the rep string op last run, and */
    bool rep_live;                 /* whether its next run continues it */
    const struct insn *rep_charged; /* a rep run charged in this block, */
    struct rep_step rep_step;      /* and what it was charged */
    int nspecial;
    bool hooks_full;               /* the run paused to drop them all (run.c) */
    int delivery_depth;
    bool sti_shadow;               /* the last block ended with sti: no
                                      interrupt before its next instruction */
    bool drop_step_trap;           /* a faulting sysenter under TF (sysenter.c) */
    struct {                       /* the SYSENTER MSRs as read since the */
        bool known;                /* last wrmsr (sysenter.c) */
        uint32_t cs, esp, eip;
    } sep_msrs;
    struct engine_iret_patch iret_patch; /* a ring-3 iret frame's hidden VM */
    int engine_aborts;             /* translations the engine aborted */
    enum run_to_why run_to_why;    /* run up to the linear address run_to, */
    uint32_t run_to, run_to_from;  /* started at run_to_from (trap.c) */
    bool pause_held;               /* a RUN_TO_PAUSE set aside for another */
    uint32_t pause_to, pause_from; /* run_to, to come back after it */
    bool run_paused;               /* reached RUN_TO_PAUSE (run.c) */
    bool stale_set;                /* a run_to disarmed while its run went on: */
    uint32_t stale_from, stale_to; /* translations may still halt at stale_to */
    struct {                       /* the instruction the block hook cut the */
        bool set;                  /* block at start short of (run.c): a */
        uc_hook hook;              /* one-shot code hook at the engine's */
        uint64_t start, at;        /* address at, put in for that block */
        const struct block *block; /* the block charged up to index */
        uint32_t index;
    } cut;
};


#endif
