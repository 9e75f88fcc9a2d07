/*
 * A libFuzzer target; FUZZ_TARGET_NAME ("elf", "syscall", "gdb", "cpu") picks which
 * (harness.h). An unclean run aborts, which libFuzzer reports as a crash
 * and saves the input; sanitizer reports and emulator crashes need no help.
 *
 * libFuzzer only sees the coverage of the host code it instrumented; the
 * guest kernel runs inside the engine. So each run also counts the kernel's
 * basic-block edges into libFuzzer's extra counters: an input that takes
 * the kernel somewhere new (a new exec.c check, a fixup in a system call)
 * is kept even when the emulator's own paths are the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "harness.h"

#ifndef FUZZ_TARGET_NAME
#error "FUZZ_TARGET_NAME must be \"elf\", \"syscall\", \"gdb\" or \"cpu\""
#endif

#define COVERAGE_SIZE 65536

__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t kernel_edges[COVERAGE_SIZE];
static uint32_t prev_block;
static enum fuzz_target target;

static void on_kernel_block(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    (void)uc;
    (void)size;
    (void)user;
    uint32_t cur = ((uint32_t)address * 2654435761u) >> 16;
    kernel_edges[(cur ^ prev_block) % COVERAGE_SIZE]++;
    prev_block = cur >> 1;
}

static void new_input(struct machine *m)
{
    (void)m;
    prev_block = 0;
}

static void hook_kernel_coverage(struct machine *m)
{
    uc_hook h;
    if (uc_hook_add(m->uc, &h, UC_HOOK_BLOCK, on_kernel_block, NULL, KERNEL_BASE,
                    KERNEL_BASE + KERNEL_RAM_SIZE - 1) != UC_ERR_OK) {
        fprintf(stderr, "fuzz: cannot hook kernel coverage\n");
        abort();
    }
}

/* Beside libFuzzer's final stats: the CPU time the session had, so that
 * its executions per second can be told from a loaded machine's share. */
static void print_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        fprintf(stderr, "stat::cpu_seconds:              %.2f\n",
                (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    fprintf(stderr, "stat::machine_builds:           %lu\n", fuzz_builds);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int t = fuzz_target_by_name(FUZZ_TARGET_NAME);
    if (t < 0) {
        fprintf(stderr, "fuzz: unknown target %s\n", FUZZ_TARGET_NAME);
        abort();
    }
    target = (enum fuzz_target)t;
    fuzz_machine_hook = hook_kernel_coverage;
    fuzz_input_hook = new_input;
    atexit(print_cpu_seconds);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_result r;
    char why[768];

    fuzz_run(target, data, size, &r);
    if (!fuzz_clean(target, &r, why, sizeof why)) {
        fprintf(stderr, "fuzz: FINDING: %s\n", why);
        abort();
    }
    return 0;
}
