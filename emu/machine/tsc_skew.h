/*
 * --tsc-skew CPU:OFFSET[:PPM]: that CPU's TSC reads its modeled cycles
 * times (1 + PPM/1e6), plus OFFSET cycles, never below 0: TSCs the hardware
 * did not start together, or that run at another rate. By default every
 * CPU's TSC is its modeled cycles.
 */
#ifndef EMU_TSC_SKEW_H
#define EMU_TSC_SKEW_H

#include <stdbool.h>
#include <stdint.h>
#include "../guest/abi.h"

struct tsc_skew {
    bool set;
    int64_t offset;
    int32_t ppm;
};
#define TSC_SKEW_MAX_OFFSET 1000000000000000ll /* cycles: days at any clock */
#define TSC_SKEW_MAX_PPM    999999

/* One CPU:OFFSET[:PPM] into skew[CPU]; false if malformed, out of range or
 * that CPU's skew is already set. */
bool tsc_skew_parse(const char *val, struct tsc_skew skew[SMP_MAX_CPUS]);
/* The TSC that s makes of cycles. */
uint64_t tsc_skew_apply(const struct tsc_skew *s, uint64_t cycles);

#endif
