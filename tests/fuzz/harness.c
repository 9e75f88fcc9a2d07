#include "harness.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BUILD_DIR
#error "BUILD_DIR must name the build directory (for guest/programs/syscall_fuzz)"
#endif

void (*fuzz_machine_hook)(struct machine *m);

static const char *const target_names[FUZZ_NTARGETS] = { "elf", "syscall" };

static const char *const syscall_cpus[] = {
    "pentium4", "pentium3", "pentiumpro", "pentium4,-sep", "pentium3,-sep",
};
#define NCPUS (sizeof syscall_cpus / sizeof syscall_cpus[0])

const char *fuzz_target_name(enum fuzz_target t)
{
    return (unsigned)t < FUZZ_NTARGETS ? target_names[t] : "?";
}

int fuzz_target_by_name(const char *name)
{
    for (int t = 0; t < FUZZ_NTARGETS; t++)
        if (!strcmp(name, target_names[t]))
            return t;
    return -1;
}

static char *to_hex(const uint8_t *data, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    char *hex = malloc(2 * size + 1);
    if (!hex)
        return NULL;
    for (size_t i = 0; i < size; i++) {
        hex[2 * i] = digits[data[i] >> 4];
        hex[2 * i + 1] = digits[data[i] & 15];
    }
    hex[2 * size] = 0;
    return hex;
}

void fuzz_run(enum fuzz_target t, const uint8_t *data, size_t size, struct fuzz_result *r)
{
    static char elf_name[] = "fuzz-input", prog_name[] = "syscall_fuzz";
    static char env0[] = "PATH=/usr/bin:/bin";
    char *envp[] = { env0, NULL };
    char *argv[3] = { NULL, NULL, NULL };
    char *hex = NULL;
    struct run_options opts = {
        .cpu_spec = "pentium4",
        .epoch_sec = 1040103547u,
        .quiet = true,
        .envp = envp,
        .argv = argv,
    };

    memset(r, 0, sizeof *r);
    r->stop = STOP_NONE;
    if (t == FUZZ_ELF) {
        opts.program = elf_name;
        opts.program_image = data;
        opts.program_size = size;
        opts.max_insns = FUZZ_ELF_BUDGET;
        argv[0] = elf_name;
        opts.argc = 1;
    } else {
        size_t n = size ? size - 1 : 0;
        if (n > FUZZ_SYSCALL_MAX_INPUT)
            n = FUZZ_SYSCALL_MAX_INPUT;
        opts.cpu_spec = syscall_cpus[size ? data[0] % NCPUS : 0];
        opts.program = BUILD_DIR "/guest/programs/syscall_fuzz";
        opts.max_insns = FUZZ_SYSCALL_BUDGET;
        hex = to_hex(size ? data + 1 : data, n);
        argv[0] = prog_name;
        argv[1] = hex;
        opts.argc = 2;
    }
    snprintf(r->cpu, sizeof r->cpu, "%s", opts.cpu_spec);

    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    if (!m || !sys || (t == FUZZ_SYSCALL && !hex)) {
        r->init_status = 125;
        snprintf(r->message, sizeof r->message, "harness: out of memory");
        free(m);
        free(sys);
        free(hex);
        return;
    }
    r->init_status = machine_init(m, &opts);
    /* the accounting runs too: it reads guest memory on every call */
    if (r->init_status == 0 && syscalls_attach(sys, m))
        r->init_status = machine_fail(m, 125, "harness: cannot track system calls");
    if (r->init_status == 0) {
        if (fuzz_machine_hook)
            fuzz_machine_hook(m);
        r->status = machine_run(m);
        r->stop = m->stop;
    } else {
        r->status = r->init_status;
    }
    snprintf(r->message, sizeof r->message, "%s", m->message);
    machine_destroy(m);
    free(m);
    free(sys);
    free(hex);
}

bool fuzz_clean(enum fuzz_target t, const struct fuzz_result *r, char *why, size_t cap)
{
    const char *what = NULL;

    if (r->init_status != 0) {
        /* Only a program file the emulator itself refuses (too large). */
        if (t == FUZZ_ELF && r->init_status == 126)
            return true;
        what = "the machine could not be set up";
    } else {
        switch (r->stop) {
        case STOP_EXIT:
        case STOP_KILLED:
        case STOP_BUDGET:
            return true;
        case STOP_EXEC_ERROR:
            if (t == FUZZ_ELF)
                return true;
            what = "the kernel refused the syscall_fuzz program";
            break;
        case STOP_PANIC:
            what = "guest kernel panic";
            break;
        case STOP_MACHINE:
            what = "machine failure";
            break;
        default:
            what = "the run ended for no reason";
            break;
        }
    }
    snprintf(why, cap, "%s target on %s: %s (status %d): %s", fuzz_target_name(t), r->cpu,
             what, r->status, r->message);
    return false;
}
