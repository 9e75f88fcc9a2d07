/*
 * More than one CPU (--smp N): each is its own Unicorn engine over the same
 * host pages of guest memory, and they take turns in one host thread, by
 * modeled time: the CPU furthest behind runs next, for at most a quantum
 * of modeled cycles, so that every run of the same program on the same N
 * interleaves the same way.
 *
 * A minimal local APIC per CPU, reached through I/O ports on the hypercall
 * path instead of the MMIO page at 0xfee00000 (a memory hook would slow
 * every access of every CPU): INIT and STARTUP to start the others, fixed
 * IPIs. docs/smp.md tells what is left out.
 *
 * With one CPU nothing here runs (m->smp is NULL).
 */
#ifndef EMU_SMP_H
#define EMU_SMP_H

#include <stdbool.h>
#include <stdint.h>
#include "machine/machine.h"

/* Instructions a CPU runs before the one furthest behind (in modeled
 * cycles) gets its turn: a design choice, not a hardware figure; it bounds
 * how late an IPI is seen (a few microseconds of modeled time) and how
 * often the engines switch. The turn ends at the first block boundary at
 * or past it (the block hook stops the engine before the block runs:
 * uc_emu_start's count would put a hook on every instruction). */
#define SMP_QUANTUM_INSNS 5000

enum cpu_run_state {
    CPU_OFF,         /* never started: waits for INIT */
    CPU_WAIT_SIPI,   /* INIT seen: waits for STARTUP */
    CPU_RUNNING,
    CPU_HALTED,      /* in hlt: wakes at wake_at */
};

struct cpu_slot {
    struct cpu_local local;    /* its per-CPU fields while another runs */
    enum cpu_run_state state;
    bool online;               /* the kernel said its start-up is done */
    uint64_t wake_at;          /* halted: centicycles; UINT64_MAX: never */
    uint32_t pending[8];       /* fixed IPIs requested, by vector */
    uint64_t ipis;             /* IPIs delivered to it */
    uint32_t space;            /* the user address space (page directory) it
                                  last switched to; 0: none yet */
    bool drop_user_code;       /* it switched: its user translations go */
    uint64_t window_swaps;     /* its turns that moved the window to it */
    uint64_t idle_cycles;      /* centicycles skipped in hlt */
    uint64_t insns;            /* instructions it ran (its turns') */
    uint64_t started_at;       /* centicycles: its STARTUP (0 for CPU 0) */
    uint64_t timer_period;     /* its local APIC timer, centicycles (0: off) */
    uint64_t timer_deadline;   /* the next interrupt (UINT64_MAX: none) */
    uint64_t timer_ticks;      /* LOCAL_TIMER_VECTOR interrupts raised, */
    uint64_t timer_taken;      /* and taken */
};

/* Which pages each CPU has run code from, with their bytes as they were
 * (cpu/code_writes.c): a write by one CPU to code another has translated. */
struct code_page {
    uint32_t page;
    uint8_t cpus;              /* bit c: CPU c may hold translations of it */
    uint8_t *bytes;
};

struct code_pages {
    struct code_page *v;
    uint32_t n, cap;
    uint32_t *hash;            /* index+1 by page, open addressing */
    uint32_t hcap;
    uint64_t flushes;          /* pages whose translations an engine dropped */
};

struct smp_state {
    struct cpu_slot cpus[MAX_CPUS];
    uint64_t turn_end;         /* m->insns where the running CPU's turn ends */
    bool turn_over;            /* the block hook stopped the engine for it, */
    uint32_t turn_eip;         /* before the block at this EIP */
    struct code_pages code;
};

/* The other CPUs' engines, each with the hooks add_hooks puts in. 0, or
 * the emu exit status with the reason in m->message. */
int smp_init(struct machine *m, int (*add_hooks)(struct machine *m));
/* Make CPU c the running one. */
void smp_switch(struct machine *m, int c);

/* An out to an APIC port (abi.h): true if it was one. */
bool smp_port_out(struct machine *m, uint32_t port, uint32_t value);
/* Before a block at addr: true if the running CPU's turn is over (the
 * engine is stopped; smp_turn_resume puts EIP back after the run). */
bool smp_turn_over(struct machine *m, uint32_t addr);
/* After a run: true if it ended for the turn (EIP set, quirk 26 undone). */
bool smp_turn_resume(struct machine *m);
/* Before a block at the linear address addr: deliver a pending IPI if
 * the CPU takes interrupts now, returning to addr's offset in the code
 * segment. True if one was delivered. */
bool smp_ipi_check(struct machine *m, uint32_t addr);
/* The running CPU switched to the address space at pgd (hypercall/mm.c). */
void smp_note_space(struct machine *m, uint32_t pgd);
/* The block at addr, size bytes, runs on this CPU. */
void smp_note_code(struct machine *m, uint32_t addr, uint32_t size);
/* Per-CPU lines for --report ("emu: report: cpu N: ..."). */
void smp_report(const struct machine *m, FILE *f, const char *prefix);
/* What smp_report prints, for one CPU (cycles in centicycles). */
struct smp_cpu_figures {
    uint64_t busy, idle, insns, user_insns, ipis, timer_taken;
};
/* Each CPU's figures into per_cpu[0 .. ncpus-1]; the machine's time (the
 * latest CPU's clock) and the busy cycles summed into *latest, *busy_sum. */
void smp_figures(const struct machine *m, struct smp_cpu_figures *per_cpu, uint64_t *latest,
                 uint64_t *busy_sum);

/*
 * The turns: run_slice runs the current CPU once through the engine and
 * returns true if it executed hlt (EIP after it). Returns the emu exit
 * status, as machine_run.
 */
int smp_run(struct machine *m, bool (*run_slice)(struct machine *m));

/* cpu/code_writes.c */
/* CPU cpu runs code from page. 0, or -1 out of host memory. */
int code_pages_note(struct code_pages *cp, const struct guest_memory *mem, int cpu,
                    uint32_t page);
/* After CPU writer's turn: drop(cpu, page) for each other CPU that may
 * hold translations of a page whose bytes have changed since (its bit is
 * cleared). */
void code_pages_changed(struct code_pages *cp, const struct guest_memory *mem, int writer,
                        void (*drop)(void *ctx, int cpu, uint32_t page), void *ctx);
/* drop(cpu, page) for each page below `below` CPU cpu ran code from. */
void code_pages_of(struct code_pages *cp, int cpu, uint32_t below,
                   void (*drop)(void *ctx, int cpu, uint32_t page), void *ctx);
void code_pages_free(struct code_pages *cp);

#endif
