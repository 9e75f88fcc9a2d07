/* The machine model: one struct, passed explicitly, holds all emulator state. */
#ifndef EMU_MACHINE_H
#define EMU_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unicorn/unicorn.h>
#include "../guest/abi.h"
#include "../guest/x86.h"
#include "cpu_model.h"
#include "cost.h"
#include "engine.h"
#include "hostfs.h"
#include "ksyms.h"
#include "memory.h"
#include "syscalls.h"

enum stop_reason {
    STOP_NONE,
    STOP_EXIT,        /* the program exited: exit_status */
    STOP_KILLED,      /* the program was killed by a fault */
    STOP_EXEC_ERROR,  /* the kernel could not load the program */
    STOP_PANIC,       /* the guest kernel panicked */
    STOP_BUDGET,      /* instruction budget exhausted */
    STOP_MACHINE,     /* the machine itself failed (triple fault, engine error) */
};

struct trace;

#define MAX_SPECIAL_HOOKS 1024

struct run_options {
    const char *cpu_spec;      /* "pentium4", "pentium3,-sep", ... */
    bool no_sep;
    uint64_t max_insns;
    const char *program;       /* host path of the ELF file */
    const char *argv0;         /* guest argv[0], if not the host path */
    const char *root;          /* --root: the read-only file tree, or NULL */
    const uint8_t *program_image; /* if set: the file image itself (program */
    size_t program_size;          /* then only names it), e.g. for fuzzing */
    int argc;                  /* guest argv */
    char **argv;
    char **envp;
    bool strace;               /* print each system call to stderr */
    bool verbose;              /* print kernel boot messages */
    bool quiet;                /* swallow guest stdout (compare) */
    const char *trace_path;
    const char *trace_format;  /* text, json, csv */
    bool trace_insns;
    bool no_cycle_model;       /* no block hook: for measuring its overhead */
    const char *cost_overrides[16]; /* "CLASS=CYCLES" */
    int ncost_overrides;
    uint32_t epoch_sec;
};

struct machine {
    uc_engine *uc;
    struct cpu_config cpu;
    const struct run_options *opts;
    struct guest_memory mem;
    struct engine_layout layout;
    uc_context *scratch_ctx;
    struct ksyms ksyms;

    /* cycle and instruction accounting (cost.c) */
    struct block_cache blocks;
    const struct block *cur_block;
    uint64_t block_start_cycles;   /* in centicycles, before cur_block */
    uint64_t cycles;               /* centicycles charged so far */
    uint64_t insns;
    uint64_t exceptions;
    uint32_t cur_limit;            /* insns of cur_block still charged */
    uint32_t prev_block_addr;
    uint32_t special_addrs[MAX_SPECIAL_HOOKS];
    uc_hook special_hooks[MAX_SPECIAL_HOOKS];
    int nspecial;

    /* the --root file tree (hostfs.c) */
    struct hostfs fs;

    /* system calls and traps in flight and done (syscalls.c) */
    struct syscall_tracker sys;
    struct trace *trace;

    /* why the run ended */
    enum stop_reason stop;
    int exit_status;
    char message[512];
    int delivery_depth;
    bool pending_ud;               /* the engine stopped on an invalid opcode */
    bool pending_wrap;             /* ... on an access past 0xffffffff: */
    bool wrap_write;               /* a write? */
    uint32_t wrap_addr;            /* where it wrapped to (a #PF's CR2) */
    int engine_aborts;             /* translations the engine aborted */
    bool ud_pending;               /* run up to ud_at, then raise #UD */
    uint32_t ud_at;                /* there (machine_run) */
};

/* machine.c */
/* A machine with the guest kernel booting the program in opts. */
int machine_init(struct machine *m, const struct run_options *opts);
/* Only the CPU, memory and hooks: for tests that build their own guest. */
int machine_init_bare(struct machine *m, const struct run_options *opts);
void machine_destroy(struct machine *m);
int machine_run(struct machine *m);   /* returns the emu exit status */
void machine_stop(struct machine *m, enum stop_reason why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
uint32_t reg_read(struct machine *m, int reg);
void reg_write(struct machine *m, int reg, uint32_t value);
static inline bool machine_in_kernel(uint32_t addr)
{
    return addr >= KERNEL_BASE && addr - KERNEL_BASE < KERNEL_RAM_SIZE;
}

/* trap.c: IDT delivery and exceptions, which Unicorn leaves to us */
enum event_kind { EVENT_SOFTWARE, EVENT_FAULT };
void deliver_interrupt(struct machine *m, int vector, enum event_kind kind,
                       bool has_error, uint32_t error_code, uint32_t return_eip,
                       uint32_t origin_eip);
void raise_fault(struct machine *m, int vector, bool has_error,
                 uint32_t error_code, uint32_t eip);
bool enter_ring0(struct machine *m, uint16_t cs, uint16_t ss, uint32_t esp);
void on_interrupt(uc_engine *uc, uint32_t intno, void *user);
bool vector_has_error_code(int vector);

/* sysenter.c: SEP, MSRs, CPUID, the TSC */
void on_sysenter(uc_engine *uc, void *user);
int on_cpuid(uc_engine *uc, void *user);
void on_special_insn(uc_engine *uc, uint64_t address, uint32_t size, void *user);

bool on_invalid_insn(uc_engine *uc, void *user);
void deliver_pending_ud(struct machine *m);

/* hypercall.c */
void on_hypercall(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user);

#endif
