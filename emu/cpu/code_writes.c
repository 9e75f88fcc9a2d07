/*
 * Engine quirk 25 (engine.h): an engine notices a change of code it has
 * translated only when the change is one of its own stores. Another CPU's
 * engine writes the same host page behind its back, and the stale
 * translation would run. Each page some CPU ran code from is kept here
 * with a copy of its bytes; after each turn the copies are compared, and
 * the engines of the other CPUs that ran code from a changed page drop
 * their translations before their next turn.
 */
#include "cpu/smp.h"
#include <stdlib.h>
#include <string.h>

static uint32_t slot_of(const struct code_pages *cp, uint32_t page)
{
    return (page >> PAGE_SHIFT) * 2654435761u & (cp->hcap - 1);
}

static struct code_page *find(const struct code_pages *cp, uint32_t page)
{
    if (!cp->hcap)
        return NULL;
    for (uint32_t h = slot_of(cp, page);; h = (h + 1) & (cp->hcap - 1)) {
        uint32_t i = cp->hash[h];
        if (!i)
            return NULL;
        if (cp->v[i - 1].page == page)
            return &cp->v[i - 1];
    }
}

static int rehash(struct code_pages *cp, uint32_t hcap)
{
    uint32_t *hash = calloc(hcap, sizeof *hash);
    if (!hash)
        return -1;
    free(cp->hash);
    cp->hash = hash;
    cp->hcap = hcap;
    for (uint32_t i = 0; i < cp->n; i++) {
        uint32_t h = slot_of(cp, cp->v[i].page);
        while (cp->hash[h])
            h = (h + 1) & (hcap - 1);
        cp->hash[h] = i + 1;
    }
    return 0;
}

static struct code_page *add(struct code_pages *cp, const uint8_t *bytes, uint32_t page)
{
    if (cp->n == cp->cap) {
        uint32_t cap = cp->cap ? cp->cap * 2 : 64;
        struct code_page *v = realloc(cp->v, cap * sizeof *v);
        if (!v)
            return NULL;
        cp->v = v;
        cp->cap = cap;
    }
    if ((cp->n + 1) * 2 > cp->hcap && rehash(cp, cp->hcap ? cp->hcap * 2 : 128))
        return NULL;
    struct code_page *e = &cp->v[cp->n];
    e->bytes = malloc(PAGE_SIZE);
    if (!e->bytes)
        return NULL;
    memcpy(e->bytes, bytes, PAGE_SIZE);
    e->page = page;
    e->cpus = 0;
    uint32_t h = slot_of(cp, page);
    while (cp->hash[h])
        h = (h + 1) & (cp->hcap - 1);
    cp->hash[h] = ++cp->n;
    return e;
}

int code_pages_note(struct code_pages *cp, const struct guest_memory *mem, int cpu,
                    uint32_t page)
{
    struct code_page *e = find(cp, page);
    if (!e) {
        const uint8_t *bytes = guest_ptr(mem, page, PAGE_SIZE);
        if (!bytes)
            return 0;   /* never written by anyone: nothing to compare */
        if (!(e = add(cp, bytes, page)))
            return -1;
    }
    e->cpus |= (uint8_t)(1u << cpu);
    return 0;
}

void code_pages_changed(struct code_pages *cp, const struct guest_memory *mem, int writer,
                        void (*drop)(void *ctx, int cpu, uint32_t page), void *ctx)
{
    for (uint32_t i = 0; i < cp->n; i++) {
        struct code_page *e = &cp->v[i];
        const uint8_t *now = guest_ptr(mem, e->page, PAGE_SIZE);
        if (!now || !memcmp(now, e->bytes, PAGE_SIZE))
            continue;
        memcpy(e->bytes, now, PAGE_SIZE);
        uint8_t stale = e->cpus & (uint8_t)~(1u << writer);
        for (int c = 0; stale >> c; c++)
            if (stale & (1u << c))
                drop(ctx, c, e->page);
        e->cpus &= (uint8_t)~stale;
    }
}

void code_pages_of(struct code_pages *cp, int cpu, uint32_t below,
                   void (*drop)(void *ctx, int cpu, uint32_t page), void *ctx)
{
    for (uint32_t i = 0; i < cp->n; i++) {
        struct code_page *e = &cp->v[i];
        if (e->page < below && (e->cpus & (1u << cpu))) {
            drop(ctx, cpu, e->page);
            e->cpus &= (uint8_t)~(1u << cpu);
        }
    }
}

void code_pages_free(struct code_pages *cp)
{
    for (uint32_t i = 0; i < cp->n; i++)
        free(cp->v[i].bytes);
    free(cp->v);
    free(cp->hash);
    memset(cp, 0, sizeof *cp);
}
