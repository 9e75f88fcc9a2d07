#include "report.h"
#include <inttypes.h>

void report_print(const struct machine *m, const struct syscall_tracker *t, FILE *f)
{
    fprintf(f, "emu: report: cpu %s%s: %" PRIu64 " instructions, %" PRIu64 " cycles\n",
            m->cpu.model->name, m->cpu.sep_reported ? "" : ",-sep", m->insns,
            m->cycles / 100);
    fprintf(f, "emu: report: system calls: %" PRIu64 " via sysenter, %" PRIu64
            " via int $0x80; returns: %" PRIu64 " sysexit, %" PRIu64 " iret; %" PRIu64
            " unknown (ENOSYS); %" PRIu64 " traps\n",
            t->by_path[PATH_SYSENTER], t->by_path[PATH_INT80], t->returns_sysexit,
            t->returns_iret, t->enosys, t->by_path[PATH_TRAP]);
    const struct as_stats *as = m->as ? addrspaces_stats(m->as) : NULL;
    if (as && as->switches) {
        double n = (double)as->switches;
        fprintf(f, "emu: report: address spaces: %" PRIu64 " switches, %" PRIu64
                " TLB refills charged, %" PRIu64 " code pages' translations dropped and %"
                PRIu64 " kept; %" PRIu64 " forks copied %" PRIu64 " pages\n", as->switches,
                as->refills, as->code_pages_dropped, as->code_pages_kept, as->clones,
                as->pages_copied);
        /* host time: not deterministic, so only when asked for */
        if (m->opts->verbose)
            fprintf(f, "emu: report: host time: %.1f us a switch moving pages, %.1f us with "
                    "translations; %.1f us a fork copying pages\n",
                    (double)as->switch_ns / 1e3 / n, (double)as->drop_ns / 1e3 / n,
                    as->clones ? (double)as->clone_ns / 1e3 / (double)as->clones : 0.0);
    }
    if (t->vsyscall_calls)
        fprintf(f, "emu: report: %" PRIu64 " calls through the vsyscall page, %.1f cycles each\n",
                t->vsyscall_calls, (double)t->vsyscall_cycles / 100.0 / (double)t->vsyscall_calls);
}
