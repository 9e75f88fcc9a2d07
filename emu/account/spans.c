#include "account/spans.h"
#include "machine/charge.h"
#include <string.h>

static void spans_on_tsc(void *ctx, struct machine *m, uint32_t insn_addr)
{
    struct tsc_spans *s = ctx;
    if ((reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) == 0)
        return;
    s->reads_seen++;
    if (s->nreads == MAX_TSC_READS)
        return;
    struct tsc_read *r = &s->reads[s->nreads++];
    r->cycles = cycles_before(m, insn_addr);
    counts_before(m, insn_addr, r->counts);
    memcpy(r->begun, s->sys->begun, sizeof r->begun);
    r->ext = *syscalls_ext_work(s->sys);
}

int spans_attach(struct tsc_spans *s, struct machine *m, const struct syscall_tracker *t)
{
    memset(s, 0, sizeof *s);
    s->sys = t;
    const struct machine_observer o = { .ctx = s, .tsc = spans_on_tsc };
    return machine_observe(m, &o);
}

int spans_count(const struct tsc_spans *s)
{
    return s->nreads / 2;
}

bool span_get(const struct tsc_spans *s, int k, struct span *out)
{
    if (k < 1 || k > spans_count(s))
        return false;
    const struct tsc_read *a = &s->reads[2 * k - 2], *b = &s->reads[2 * k - 1];
    out->ext_ticks = b->ext.ticks - a->ext.ticks;
    out->ext_cycles = b->ext.cycles - a->ext.cycles;
    out->cycles = b->cycles - a->cycles - out->ext_cycles;
    for (int c = 0; c < NCLASSES; c++)
        out->counts[c] = b->counts[c] - a->counts[c] - (b->ext.counts[c] - a->ext.counts[c]);
    for (int p = 0; p < NPATHS; p++)
        for (int v = 0; v < NVIAS; v++)
            out->calls[p][v] = b->begun[p][v] - a->begun[p][v];
    return true;
}

bool span_way(const struct span *sp, int *path, int *via, uint64_t *calls)
{
    int ways = 0;
    for (int p = 0; p < NPATHS; p++)
        for (int v = 0; v < NVIAS; v++)
            if (sp->calls[p][v]) {
                ways++;
                *path = p;
                *via = v;
                *calls = sp->calls[p][v];
            }
    return ways == 1;
}
