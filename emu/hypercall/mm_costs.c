/*
 * The memory-management charges (mm_costs.h): each is a rule over the CPU
 * model's cost table, written once here so that a change of the table
 * carries through. None of the three was published per event for these
 * CPUs (cost-research §5.2, §5.3): they are estimates, each by its rule.
 */
#include "hypercall/mm_costs.h"
#include "machine/charge.h"

/* Linux 2.5 on a P6 or a P4 (no 3DNow!): clear_page is memset(page, 0, 4096)
 * and copy_page memcpy(to, from, 4096); include/asm-i386/string.h turns
 * both constant-size calls into one "rep stosl" / "rep movsl" of 1024
 * dwords. Rule: the start-up of that rep op plus 1024 of its elements,
 * as the model charges the same instruction run by the guest. */
#define PAGE_DWORDS 1024

/* No P4 or P6 figure for a TLB refill was found. Rule: a refill walks two
 * levels, the page-directory entry then the page-table entry, two
 * dependent loads that hit the L1 cache: 2 x the load class. (The one
 * published P6 measurement, Linus's PII histogram of 18 Mar 2002, gives
 * 36 cycles for a load that misses the TLB including one rdtsc of about
 * 32: a refill of about 4, against 6 by this rule.) */
#define REFILL_LOADS 2

/* Each event as the instructions it stands for: a class and how many. */
struct mm_part {
    uint8_t cls;
    uint16_t n;
};

static const struct mm_part mm_parts[MM_NCOSTS][2] = {
    [MM_COST_TLB_REFILL] = { { CLASS_LOAD, REFILL_LOADS } },
    [MM_COST_CLEAR_PAGE] = { { CLASS_REP_STOS_START, 1 }, { CLASS_REP_STOS, PAGE_DWORDS } },
    [MM_COST_COPY_PAGE]  = { { CLASS_REP_MOVS_START, 1 }, { CLASS_REP_MOVS, PAGE_DWORDS } },
};

uint64_t mm_cost_of(const struct cpu_config *cpu, enum mm_cost what)
{
    uint64_t sum = 0;
    if (what >= MM_NCOSTS)
        return 0;
    for (int i = 0; i < 2; i++)
        sum += (uint64_t)mm_parts[what][i].n * cpu->cost[mm_parts[what][i].cls];
    return sum;
}

/* Charged as those instructions, so that the cycles stay the class counts
 * times the costs, and a cost row's interval reaches these charges too. */
void mm_cost_charge(struct machine *m, enum mm_cost what, uint64_t count)
{
    if (what >= MM_NCOSTS)
        return;
    for (int i = 0; i < 2; i++)
        if (mm_parts[what][i].n)
            charge(m, mm_parts[what][i].cls, count * mm_parts[what][i].n);
}
