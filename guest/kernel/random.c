/* getrandom: deterministic bytes, seeded from the boot record. */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define CHUNK 4096

/* The bytes on their way out: there is one task and calls do not nest. */
static uint8_t bounce[CHUNK];

#define GRND_NONBLOCK 0x1
#define GRND_RANDOM   0x2
#define GRND_INSECURE 0x4

static uint32_t rng[4];
static int rng_seeded;

static void rng_seed(void)
{
    memcpy(rng, boot->random, sizeof(rng));
    if ((rng[0] | rng[1] | rng[2] | rng[3]) == 0)
        rng[0] = 0x9e3779b9;
    rng_seeded = 1;
}

/* Marsaglia's xorshift128. */
static uint32_t rng_next(void)
{
    uint32_t t = rng[3], s = rng[0];

    rng[3] = rng[2];
    rng[2] = rng[1];
    rng[1] = s;
    t ^= t << 11;
    t ^= t >> 8;
    rng[0] = t ^ s ^ (s >> 19);
    return rng[0];
}

long sys_getrandom(uint32_t ubuf, uint32_t count, uint32_t flags,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t done = 0;

    if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
        return -EINVAL;
    if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
        return -EINVAL;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(ubuf, count))
        return -EFAULT;
    if (!rng_seeded)
        rng_seed();
    while (done < count) {
        uint32_t chunk = count - done < CHUNK ? count - done : CHUNK;

        for (uint32_t i = 0; i < chunk; i += 4) {
            uint32_t r = rng_next();
            memcpy(bounce + i, &r, 4);
        }
        if (copy_to_user(ubuf + done, bounce, chunk) != 0)
            return done ? (long)done : -EFAULT;
        done += chunk;
    }
    return done;
}

/* Seed the generator from the boot record. */
void random_init(void)
{
    rng_seed();
}
