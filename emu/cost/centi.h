/*
 * The unit of modelled time: the centicycle, a hundredth of a cycle. Cost
 * rows have two decimals (a P4 ALU op is half a cycle), so counting in
 * centicycles makes every sum exact; the outputs turn them back into
 * cycles with these, never with a bare 100.
 */
#ifndef EMU_CENTI_H
#define EMU_CENTI_H

#include <stdint.h>

#define CENTI_PER_CYCLE 100

/* A cost row's cycles (two decimals at most) in centicycles. */
#define CENTI(cycles) ((uint32_t)((cycles) * (double)CENTI_PER_CYCLE + 0.5))

static inline double centi_to_cycles(uint64_t centi)
{
    return (double)centi / CENTI_PER_CYCLE;
}

/* The whole cycles of a count, and the hundredths past them. */
static inline uint64_t centi_whole(uint64_t centi)
{
    return centi / CENTI_PER_CYCLE;
}

static inline unsigned centi_frac(uint64_t centi)
{
    return (unsigned)(centi % CENTI_PER_CYCLE);
}

static inline uint64_t cycles_to_centi(uint64_t cycles)
{
    return cycles * CENTI_PER_CYCLE;
}

#endif
