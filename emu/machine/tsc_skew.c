#include "machine/tsc_skew.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A whole signed decimal number, s up to end, within [-max, max]. */
static bool parse_signed(const char *s, const char *end, int64_t max, int64_t *out)
{
    char buf[24], *stop;
    if (s == end || end - s > 20)
        return false;
    memcpy(buf, s, (size_t)(end - s));
    buf[end - s] = 0;
    errno = 0;
    long long v = strtoll(buf, &stop, 10);
    if (*stop || stop == buf || errno || v < -max || v > max)
        return false;
    *out = v;
    return true;
}

bool tsc_skew_parse(const char *val, struct tsc_skew skew[SMP_MAX_CPUS])
{
    const char *c1 = strchr(val, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    const char *offset_end = c2 ? c2 : c1 ? c1 + strlen(c1) : NULL;
    int64_t cpu, offset, ppm = 0;

    if (!c1 || !parse_signed(val, c1, SMP_MAX_CPUS - 1, &cpu) || cpu < 0 ||
        !parse_signed(c1 + 1, offset_end, TSC_SKEW_MAX_OFFSET, &offset) ||
        (c2 && !parse_signed(c2 + 1, c2 + 1 + strlen(c2 + 1), TSC_SKEW_MAX_PPM, &ppm)) ||
        skew[cpu].set)
        return false;
    skew[cpu] = (struct tsc_skew){ true, offset, (int32_t)ppm };
    return true;
}

/* The PPM part in two halves, so that no product overflows. */
uint64_t tsc_skew_apply(const struct tsc_skew *s, uint64_t cycles)
{
    if (!s->set)
        return cycles;
    int64_t c = (int64_t)cycles;
    int64_t t = c + c / 1000000 * s->ppm + c % 1000000 * s->ppm / 1000000 + s->offset;
    return t < 0 ? 0 : (uint64_t)t;
}
