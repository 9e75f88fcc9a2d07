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
#include "machine.h"

/* Instructions a CPU runs before the one furthest behind (in modeled
 * cycles) gets its turn: a design choice, not a hardware figure; it bounds
 * how late an IPI is seen (a few microseconds of modeled time) and how
 * often the engines switch. Counted by the engine (uc_emu_start's count),
 * which stops at an instruction with EIP right (quirk 26). */
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
    uint64_t idle_cycles;      /* centicycles skipped in hlt */
};

/* Which pages each CPU has run code from, with their bytes as they were
 * (smp_code.c): a write by one CPU to code another has translated. */
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
    uint64_t flushes;          /* engines whose translations were dropped */
};

struct smp_state {
    struct cpu_slot cpus[MAX_CPUS];
    uint64_t turn_left;        /* instructions the running CPU may still run */
    struct code_pages code;
};

/* The other CPUs' engines, each with the hooks add_hooks puts in. 0, or
 * the emu exit status with the reason in m->message. */
int smp_init(struct machine *m, int (*add_hooks)(struct machine *m));
void smp_free(struct machine *m);
/* Make CPU c the running one. */
void smp_switch(struct machine *m, int c);

/* An out to an APIC port (abi.h): true if it was one. */
bool smp_port_out(struct machine *m, uint32_t port, uint32_t value);
/* Before a block at addr: deliver a pending IPI if the CPU takes
 * interrupts now. True if one was delivered. */
bool smp_ipi_check(struct machine *m, uint32_t addr);
/* The block at addr, size bytes, runs on this CPU. */
void smp_note_code(struct machine *m, uint32_t addr, uint32_t size);

/*
 * The turns: run_slice runs the current CPU once through the engine and
 * returns true if it executed hlt (EIP after it). Returns the emu exit
 * status, as machine_run.
 */
int smp_run(struct machine *m, bool (*run_slice)(struct machine *m));

/* smp_code.c */
/* CPU cpu runs code from page. 0, or -1 out of host memory. */
int code_pages_note(struct code_pages *cp, const struct guest_memory *mem, int cpu,
                    uint32_t page);
/* After CPU writer's turn: the CPUs (a mask, never writer) that may hold
 * translations of a page whose bytes have changed since. Their bits are
 * cleared on every page: the caller drops all their translations. */
uint8_t code_pages_changed(struct code_pages *cp, const struct guest_memory *mem,
                           int writer);
void code_pages_free(struct code_pages *cp);

#endif
