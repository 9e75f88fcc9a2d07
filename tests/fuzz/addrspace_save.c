/* The address spaces kept at one moment, and brought back (addrspace.h). */
#define _GNU_SOURCE
#include "snapshot.h"
#include "../../emu/mm/addrspace.h"
#include "../../emu/mm/addrspace_impl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The pages of a host area that have bytes, and the bytes. */
struct saved_bytes {
    uint32_t n;
    uint32_t *pages;           /* page numbers in the area */
    uint8_t *data;             /* n pages */
};

struct saved_space {
    bool used;
    uint32_t pgd;
    struct as_piece *pieces;
    uint32_t npieces;
    struct saved_bytes bytes;  /* none for the current space: the window */
};

struct saved_obj {
    bool used;
    uint32_t npages, held;
    uint8_t *touched;
    struct saved_bytes bytes;
};

struct as_saved {
    uint64_t epoch;
    int cur;                   /* index of the current space, or -1 */
    bool track_code, code_overflow;
    uint32_t code[AS_CODE_PAGES];
    uint16_t code_slots[AS_CODE_PAGES / 2];
    uint32_t ncode, last_code;
    uint32_t held[AS_HELD_MAX], nheld;
    uint8_t *held_bytes;       /* nheld pages */
    struct as_stats stats;
    struct saved_space spaces[AS_MAX];
    struct saved_obj objs[AS_SHM_MAX];
};

/* The pages the host has committed in [area, area + size). */
static int save_bytes(const uint8_t *area, size_t size, struct saved_bytes *b)
{
    size_t npages = size / PAGE_SIZE;
    unsigned char *vec = malloc(npages ? npages : 1);
    if (!vec || mincore((void *)area, size, vec)) {
        free(vec);
        return -1;
    }
    for (size_t i = 0; i < npages; i++)
        b->n += vec[i] & 1;
    b->pages = malloc((b->n ? b->n : 1) * sizeof *b->pages);
    b->data = malloc(b->n ? (size_t)b->n * PAGE_SIZE : 1);
    if (!b->pages || !b->data) {
        free(vec);
        return -1;
    }
    uint32_t k = 0;
    for (size_t i = 0; i < npages; i++) {
        if (!(vec[i] & 1))
            continue;
        b->pages[k] = (uint32_t)i;
        memcpy(b->data + (size_t)k * PAGE_SIZE, area + i * PAGE_SIZE, PAGE_SIZE);
        k++;
    }
    free(vec);
    return 0;
}

static void put_bytes(uint8_t *area, const struct saved_bytes *b)
{
    for (uint32_t k = 0; k < b->n; k++)
        memcpy(area + (size_t)b->pages[k] * PAGE_SIZE, b->data + (size_t)k * PAGE_SIZE,
               PAGE_SIZE);
}

static void free_bytes(struct saved_bytes *b)
{
    free(b->pages);
    free(b->data);
}

void as_saved_free(struct as_saved *s)
{
    if (!s)
        return;
    for (int i = 0; i < AS_MAX; i++) {
        free(s->spaces[i].pieces);
        free_bytes(&s->spaces[i].bytes);
    }
    for (int i = 0; i < AS_SHM_MAX; i++) {
        free(s->objs[i].touched);
        free_bytes(&s->objs[i].bytes);
    }
    free(s->held_bytes);
    free(s);
}

static int save_space(const struct addrspaces *as, const struct as_space *sp,
                      struct saved_space *to)
{
    to->used = true;
    to->pgd = sp->pgd;
    to->npieces = sp->npieces;
    to->pieces = malloc((sp->npieces ? sp->npieces : 1) * sizeof *to->pieces);
    if (!to->pieces)
        return -1;
    if (sp->npieces)
        memcpy(to->pieces, sp->pieces, sp->npieces * sizeof *to->pieces);
    return sp == as->cur ? 0 : save_bytes(sp->store, WINDOW_SIZE, &to->bytes);
}

static int save_obj(const struct shm_obj *o, struct saved_obj *to)
{
    to->used = true;
    to->npages = o->npages;
    to->held = o->held;
    to->touched = malloc((o->npages + 7) / 8);
    if (!to->touched)
        return -1;
    memcpy(to->touched, o->touched, (o->npages + 7) / 8);
    return save_bytes(o->data, (size_t)o->npages * PAGE_SIZE, &to->bytes);
}

struct as_saved *as_save(const struct addrspaces *as)
{
    struct as_saved *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->epoch = as->epoch;
    s->cur = as->cur ? (int)(as->cur - as->spaces) : -1;
    s->track_code = as->track_code;
    s->code_overflow = as->code_overflow;
    memcpy(s->code, as->code, sizeof s->code);
    s->ncode = as->ncode;
    memcpy(s->code_slots, as->code_slots, sizeof s->code_slots);
    s->last_code = as->last_code;
    s->nheld = as->nheld;
    memcpy(s->held, as->held, sizeof s->held);
    if (!(s->held_bytes = malloc(as->nheld ? (size_t)as->nheld * PAGE_SIZE : 1))) {
        free(s);
        return NULL;
    }
    if (as->nheld)
        memcpy(s->held_bytes, as->held_bytes, (size_t)as->nheld * PAGE_SIZE);
    s->stats = as->stats;
    for (int i = 0; i < AS_MAX; i++) {
        if (as->spaces[i].used && save_space(as, &as->spaces[i], &s->spaces[i])) {
            as_saved_free(s);
            return NULL;
        }
    }
    for (int i = 0; i < AS_SHM_MAX; i++) {
        if (as->objs[i].used && save_obj(&as->objs[i], &s->objs[i])) {
            as_saved_free(s);
            return NULL;
        }
    }
    return s;
}

bool as_changed_since(const struct addrspaces *as, const struct as_saved *s)
{
    return as->epoch != s->epoch;
}

static int restore_space(struct as_space *sp, const struct saved_space *from, bool current)
{
    if (!(sp->store = as_new_store()))
        return -ENOMEM;
    sp->used = true;
    sp->pgd = from->pgd;
    sp->cap = from->npieces;
    sp->npieces = from->npieces;
    if (from->npieces) {
        if (!(sp->pieces = malloc(from->npieces * sizeof *sp->pieces)))
            return -ENOMEM;
        memcpy(sp->pieces, from->pieces, from->npieces * sizeof *sp->pieces);
    }
    if (!current)
        put_bytes(sp->store, &from->bytes);
    return 0;
}

static int restore_obj(struct shm_obj *o, const struct saved_obj *from)
{
    size_t size = (size_t)from->npages * PAGE_SIZE;
    void *d = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (d == MAP_FAILED)
        return -ENOMEM;
    o->data = d;
    o->npages = from->npages;
    o->used = true;
    o->held = from->held;
    if (!(o->touched = malloc((from->npages + 7) / 8)))
        return -ENOMEM;
    memcpy(o->touched, from->touched, (from->npages + 7) / 8);
    put_bytes(o->data, &from->bytes);
    return 0;
}

/* Every store and object made again from the saved bytes. */
static int rebuild(struct addrspaces *as, const struct as_saved *s)
{
    as_drop_all(as);
    for (int i = 0; i < AS_MAX; i++)
        if (s->spaces[i].used && restore_space(&as->spaces[i], &s->spaces[i], i == s->cur))
            return -ENOMEM;
    for (int i = 0; i < AS_SHM_MAX; i++)
        if (s->objs[i].used && restore_obj(&as->objs[i], &s->objs[i]))
            return -ENOMEM;
    return 0;
}

int as_restore(struct addrspaces *as, const struct as_saved *s)
{
    if (as->epoch != s->epoch) {
        int err = rebuild(as, s);
        if (err)
            return err;
        as->epoch = s->epoch;
    }
    as->cur = s->cur >= 0 ? &as->spaces[s->cur] : NULL;
    as->track_code = s->track_code;
    as->code_overflow = s->code_overflow;
    memcpy(as->code, s->code, sizeof as->code);
    as->ncode = s->ncode;
    memcpy(as->code_slots, s->code_slots, sizeof as->code_slots);
    as->last_code = s->last_code;
    as->nheld = as->held_bytes ? s->nheld : 0;
    memcpy(as->held, s->held, sizeof as->held);
    if (as->nheld)
        memcpy(as->held_bytes, s->held_bytes, (size_t)as->nheld * PAGE_SIZE);
    as->stats = s->stats;
    as_forget_loose(as);        /* the window's bytes are the snapshot's */
    return 0;
}
