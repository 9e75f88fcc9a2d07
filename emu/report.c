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
    if (t->vsyscall_calls)
        fprintf(f, "emu: report: %" PRIu64 " calls through the vsyscall page, %.1f cycles each\n",
                t->vsyscall_calls, (double)t->vsyscall_cycles / 100.0 / (double)t->vsyscall_calls);
}
