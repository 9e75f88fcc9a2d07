/* emu: what the command line asks for (cli.c reads it with the table of
 * options.c): a run, a comparison, the calibration, or a list. */
#include <capstone/capstone.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unicorn/unicorn.h>
#include "cpu/boot.h"
#include "compare/calibrate.h"
#include "compare/compare.h"
#include "gdb/gdb_machine.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cpu/run.h"
#include "account/syscalls.h"

#include "emu_version.h"   /* EMU_VERSION, written by the Makefile */

static void print_version(void)
{
    unsigned major, minor;
    int cs_major, cs_minor;
    unsigned uc = uc_version(&major, &minor);
    cs_version(&cs_major, &cs_minor);
    printf("emu (sysemu) %s\n", EMU_VERSION);
    printf("Unicorn %u.%u.%u (built with %d.%d.%d)\n", major, minor, (uc >> 8) & 0xff,
           UC_API_MAJOR, UC_API_MINOR, UC_API_PATCH);
    printf("Capstone %d.%d (built with %d.%d.%d)\n", cs_major, cs_minor, CS_API_MAJOR,
           CS_API_MINOR, CS_VERSION_EXTRA);
    char kernel[160];
    kernel_image_describe(kernel_builtin(MARCH_PENTIUM4, KCONFIG_UP, 1), kernel, sizeof kernel);
    printf("kernel: %s by default, of %d built-in images\n", kernel, kernel_image_count);
}

/* A machine booting the program, with the accounting and the outputs the
 * options ask for. 0, or the exit status with the reason in m->message.
 * The system-call accounting only where something reads it (an output, or
 * the debugger's monitor commands): it costs a quarter of a getpid. */
static int start(struct machine *m, const struct run_options *opts,
                 struct syscall_tracker *sys, struct outputs *o, bool gdb)
{
    int status = machine_init_bare(m, opts);
    if (!status)
        status = outputs_open(o, m);
    if (!status)
        status = machine_boot(m);
    if (!status && (gdb || outputs_read_calls(o)) && syscalls_attach_zeroed(sys, m))
        status = machine_fail(m, 125, "cannot attach the system-call accounting");
    if (!status)
        status = outputs_attach(o, m, sys);
    return status;
}

/*
 * The machine of a run is left to exit(): taking it apart (the engine, the
 * block cache) is 2.5% of a static hello's host instructions, and the
 * process ends right after. LeakSanitizer would call it lost, so a build
 * with AddressSanitizer still frees it.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_BEFORE_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FREE_BEFORE_EXIT 1
#endif
#endif
#ifndef FREE_BEFORE_EXIT
#define FREE_BEFORE_EXIT 0
#endif

static int run(struct cli *c)
{
    const struct run_options *opts = &c->run;
    struct outputs *out = &c->out;
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    if (!m || !sys) {
        fprintf(stderr, "emu: out of memory\n");
        free(m);
        free(sys);
        return 125;
    }
    int status = start(m, opts, sys, out, c->gdb_listen != NULL);
    if (status == 0) {
        status = c->gdb_listen ? gdb_machine_run(m, sys, c->gdb_listen, c->gdb_wait)
                             : machine_run(m);
        if (outputs_finish(out, m, sys) && !status)
            status = 2;
        if (m->stop != STOP_EXIT)
            fprintf(stderr, "emu: %s: %s\n", opts->program, m->message);
    } else {
        fprintf(stderr, "emu: %s\n", m->message);
    }
    if (outputs_close(out)) {
        fprintf(stderr, "emu: %s: cannot write the trace: %s\n", out->trace.path,
                errno ? strerror(errno) : "write error");
        status = 125;
    }
    if (FREE_BEFORE_EXIT) {
        machine_destroy(m);
        free(m);
        free(sys);
    }
    return status;
}

/*
 * The heap in 2 MiB pages. A start-up fills a few MiB of fresh heap (the
 * engine's tables, the block cache, the program's file in the tree), and
 * on a virtual machine each first touch of a 4 KiB page is a fault of
 * about 14 us: 1 300 of them were a quarter of a hello's time. So the heap
 * grows at once by HEAP_PAD, marked for transparent huge pages (the host's
 * setting "madvise" gives them, "never" keeps 4 KiB pages); it is not
 * given back, and it takes the large allocations too. A longer run's heap grows past it in ordinary pages.
 * Not under AddressSanitizer, whose allocator is its own.
 */
enum { HEAP_PAD = 32 << 20, HUGE_PAGE = 2 << 20 };

static uintptr_t huge_down(uintptr_t a)
{
    return a & ~(uintptr_t)(HUGE_PAGE - 1);
}

/* The heap starts HEAD below a 2 MiB boundary, so that malloc's first
 * headers are written below it, in a page of its own: a 2 MiB range with a
 * page touched before the advice stays in 4 KiB pages. */
static void heap_in_huge_pages(void)
{
    enum { HEAD = 64 << 10 };
    if (FREE_BEFORE_EXIT)
        return;
    uintptr_t at = (uintptr_t)sbrk(0), lo = huge_down(at + HEAD + HUGE_PAGE - 1);
    if (sbrk((intptr_t)(lo - HEAD - at)) == (void *)-1)
        return;
    mallopt(M_MMAP_THRESHOLD, HEAP_PAD / 4);
    mallopt(M_TRIM_THRESHOLD, HEAP_PAD * 2);
    mallopt(M_TOP_PAD, HEAP_PAD);
    void *volatile first = malloc(1);
    free(first);
    uintptr_t hi = huge_down((uintptr_t)sbrk(0));
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

int main(int argc, char **argv)
{
    static struct cli c;
    heap_in_huge_pages();
    int rc = cli_parse(&c, argc, argv);
    if (rc >= 0)
        return rc;
    switch (c.action) {
    case ACTION_HELP:
        cli_help(c.command, stdout);
        return 0;
    case ACTION_VERSION:
        print_version();
        return 0;
    case ACTION_LIST_CPUS:
        cpu_models_list(stdout);
        return 0;
    case ACTION_LIST_COSTS:
        cpu_costs_list(stdout);
        return 0;
    case ACTION_NONE:
        break;
    }
    if (c.command == CMD_CALIBRATE)
        return calibrate_main(c.calibrate_dir, stdout);
    if (c.command == CMD_COMPARE)
        return compare_main(&c.run, &c.compare);
    rc = cli_check_program(&c);
    return rc ? rc : run(&c);
}
