/*
 * What one run is asked to do: the options of the command line (cli/
 * options.c fills them) and what a harness gives in place of files.
 */
#ifndef EMU_RUN_OPTIONS_H
#define EMU_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../guest/abi.h"
#include "cost/cpu_models.h"
#include "machine/tsc_skew.h"

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

/* What a harness gives a run in place of files and devices: the fuzz
 * targets (tests/fuzz/harness.c) and the tests. The command line sets none
 * of it. */
struct run_harness {
    const uint8_t *program_image; /* if set: the file image itself (program */
    size_t program_size;          /* then only names it) */
    const uint8_t *stdin_data; /* if set: what the guest reads from fd 0, */
    size_t stdin_size;         /* instead of the host's stdin */
    uint32_t smp_test;         /* BOOT_FLAG_SMP_*: test hooks (test_smp) */
    bool no_kernel_insns;      /* every instruction to Capstone: the image's
                                  table unused (test_decode) */
};

struct run_options {
    const char *cpu_spec;      /* "pentium4", "pentium3,-sep", ... */
    bool no_sep;
    bool vgettimeofday;        /* kernel boot option: the user-space clock */
    uint64_t max_insns;
    const char *program;       /* host path of the ELF file */
    const char *argv0;         /* guest argv[0], if not the host path */
    const char *root;          /* --root: the read-only file tree, or NULL */
    int argc;                  /* guest argv */
    char **argv;
    char **envp;
    bool verbose;              /* print kernel boot messages */
    bool quiet;                /* swallow guest stdout (compare) */
    struct output_capture *capture; /* if set: keep guest stdout there */
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
    struct run_harness harness; /* the fuzz harness's and the tests' (all 0
                                   from the command line) */
};

#endif
