/*
 * The memory-management charges (mm_costs.h): each is a rule over the CPU
 * model's cost table, written once here so that a change of the table
 * carries through. None of the three was published per event for these
 * CPUs (cost-research §5.2, §5.3): they are estimates, each by its rule.
 */
#include "mm_costs.h"

/* Linux 2.5 on a P6 or a P4 (no 3DNow!): clear_page is memset(page, 0, 4096)
 * and copy_page memcpy(to, from, 4096); include/asm-i386/string.h turns
 * both constant-size calls into one "rep stosl" / "rep movsl" of 1024
 * dwords. Rule: a rep start-up plus 1024 string elements. */
#define PAGE_DWORDS 1024

/* No P4 or P6 figure for a TLB refill was found. Rule: a refill walks two
 * levels, the page-directory entry then the page-table entry, two
 * dependent loads that hit the L1 cache: 2 x the load class. (The one
 * published P6 measurement, Linus's PII histogram of 18 Mar 2002, gives
 * 36 cycles for a load that misses the TLB including one rdtsc of about
 * 32: a refill of about 4, against 6 by this rule.) */
#define REFILL_LOADS 2

uint64_t mm_cost_of(const struct cpu_config *cpu, enum mm_cost what)
{
    switch (what) {
    case MM_COST_TLB_REFILL:
        return (uint64_t)REFILL_LOADS * cpu->cost[CLASS_LOAD];
    case MM_COST_CLEAR_PAGE:
    case MM_COST_COPY_PAGE:
        return cpu->cost[CLASS_REP_START] + (uint64_t)PAGE_DWORDS * cpu->cost[CLASS_STRING];
    default:
        return 0;
    }
}

void mm_cost_charge(struct machine *m, enum mm_cost what, uint64_t count)
{
    if (m->opts->no_cycle_model)
        return;
    m->cycles += mm_cost_of(&m->cpu, what) * count;
}

const char *mm_cost_name(enum mm_cost what)
{
    static const char *const names[MM_NCOSTS] = { "tlb_refill", "clear_page", "copy_page" };
    return what < MM_NCOSTS ? names[what] : "?";
}
