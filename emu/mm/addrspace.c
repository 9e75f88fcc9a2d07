/* Address spaces: the window, the stores, the shared objects (addrspace.h). */
#define _GNU_SOURCE
#include "mm/addrspace.h"
#include "mm/addrspace_impl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "engine/engine.h"
#include "../guest/x86.h"

static uint64_t host_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- host memory ---- */

void as_watch_window(struct addrspaces *as, const struct as_window_watch *w, void *ctx)
{
    as->watch = w;
    as->watch_ctx = ctx;
}

static void window_moving(struct addrspaces *as)
{
    if (as->watch && as->watch->moving)
        as->watch->moving(as->watch_ctx);
}

/* The window's pages in [addr, addr + len) are about to be dropped. */
static void window_discard(struct addrspaces *as, uint32_t addr, uint32_t len)
{
    if (as->watch && as->watch->discarding)
        as->watch->discarding(as->watch_ctx, as->window + addr, len);
    madvise(as->window + addr, len, MADV_DONTNEED);
}

/* A new space's store: no pages yet, room for all of them. */
uint8_t *as_new_store(void)
{
    void *p = mmap(NULL, WINDOW_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* A huge page would cost the host 2 MiB for each 4 KiB the guest touches. */
    madvise(p, WINDOW_SIZE, MADV_NOHUGEPAGE);
    return p;
}

/* Move the whole space at from to to; from is left as a new store is:
 * no pages, room for all (a switch may copy pages into it next). */
static int move_space(uint8_t *from, uint8_t *to)
{
    if (mremap(from, WINDOW_SIZE, WINDOW_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, to) ==
        MAP_FAILED)
        return -EIO;
    if (mmap(from, WINDOW_SIZE, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
        return -EIO;
    madvise(from, WINDOW_SIZE, MADV_NOHUGEPAGE);
    return 0;
}

struct addrspaces *addrspaces_new(uint8_t *window, char *err, size_t errlen)
{
    struct addrspaces *as = calloc(1, sizeof *as);

    if (!as) {
        snprintf(err, errlen, "out of memory for the address spaces");
        return NULL;
    }
    as->window = window;
    as->loose_unknown = true;   /* what the engine's probe or a load left */
    as->track_code = true;
    as->last_code = UINT32_MAX;
    madvise(window, WINDOW_SIZE, MADV_NOHUGEPAGE);
    /* without it, no page is held: each is dropped at once */
    void *held = mmap(NULL, (size_t)AS_HELD_MAX * PAGE_SIZE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    as->held_bytes = held == MAP_FAILED ? NULL : held;
    return as;
}

static void as_obj_drop(struct shm_obj *o)
{
    munmap(o->data, (size_t)o->npages * PAGE_SIZE);
    free(o->touched);
    memset(o, 0, sizeof *o);
}

/*
 * A gone space's store is kept for the next new space, its pages still
 * mapped: the host's page faults and page-table changes of a fresh 3 GiB
 * mapping cost more than the copies into it (docs/performance.md, item
 * 45). What it held before is never read: a switch copies in only the
 * pages the space keeps, a fork only the pages it maps, and a space keeps
 * a page only once its bytes were written (a fork's copy, a fault's fill).
 */
static void as_space_drop(struct addrspaces *as, struct as_space *s)
{
    if (s->store && as->nspare < AS_SPARE_STORES)
        as->spare[as->nspare++] = s->store;
    else if (s->store)
        munmap(s->store, WINDOW_SIZE);
    free(s->pieces);
    memset(s, 0, sizeof *s);
}

void as_drop_all(struct addrspaces *as)
{
    for (int i = 0; i < AS_MAX; i++)
        if (as->spaces[i].used)
            as_space_drop(as, &as->spaces[i]);
    for (int i = 0; i < AS_SHM_MAX; i++)
        if (as->objs[i].used)
            as_obj_drop(&as->objs[i]);
}

void addrspaces_free(struct addrspaces *as)
{
    if (!as)
        return;
    as_drop_all(as);
    while (as->nspare)
        munmap(as->spare[--as->nspare], WINDOW_SIZE);
    if (as->held_bytes)
        munmap(as->held_bytes, (size_t)AS_HELD_MAX * PAGE_SIZE);
    free(as);
}

const struct as_stats *addrspaces_stats(const struct addrspaces *as)
{
    return &as->stats;
}

int as_count(const struct addrspaces *as)
{
    int n = 0;
    for (int i = 0; i < AS_MAX; i++)
        n += as->spaces[i].used;
    return n;
}

static struct as_space *lookup(struct addrspaces *as, uint32_t pgd)
{
    for (int i = 0; i < AS_MAX; i++)
        if (as->spaces[i].used && as->spaces[i].pgd == pgd)
            return &as->spaces[i];
    return NULL;
}

static struct as_space *create(struct addrspaces *as, uint32_t pgd)
{
    for (int i = 0; i < AS_MAX; i++) {
        struct as_space *s = &as->spaces[i];
        if (s->used)
            continue;
        s->store = as->nspare ? as->spare[--as->nspare] : as_new_store();
        if (!s->store)
            return NULL;
        s->used = true;
        s->pgd = pgd;
        s->id = ++as->next_id;
        as->epoch++;
        return s;
    }
    return NULL;
}

/* ---- the guest's page tables ---- */

/* The PTE of va in the directory at pgd (kernel RAM), or NULL. */
static uint32_t *pte_of(const struct guest_memory *mem, uint32_t pgd, uint32_t va)
{
    const uint32_t *dir = in_kernel_ram(pgd) ? (const uint32_t *)guest_ptr(mem, pgd, PAGE_SIZE)
                                             : NULL;
    if (!dir || !(dir[va >> 22] & X86_PTE_PRESENT))
        return NULL;
    uint32_t table = dir[va >> 22] & ~(PAGE_SIZE - 1);
    uint32_t *t = in_kernel_ram(table) ? (uint32_t *)guest_ptr(mem, table, PAGE_SIZE) : NULL;
    return t ? &t[(va >> 12) & 0x3ff] : NULL;
}

static bool kept(const struct guest_memory *mem, uint32_t pgd, uint32_t va)
{
    const uint32_t *pte = pte_of(mem, pgd, va);
    return pte && (*pte & KEPT);
}

/* Whether any of the n entries at t has a bit of mask: one pass of ORs,
 * which the compiler widens (most of a directory or table is empty). */
static inline bool any_in(const uint32_t *t, uint32_t n, uint32_t mask)
{
    uint32_t acc = 0;
    for (uint32_t k = 0; k < n; k++)
        acc |= t[k];
    return (acc & mask) != 0;
}

_Static_assert(USER_PDES % 16 == 0, "each_page looks at 16 directory entries at once");

/* Call fn for each user page the directory keeps. */
static void each_page(const struct guest_memory *mem, uint32_t pgd,
                      void (*fn)(void *ctx, uint32_t va, uint32_t *pte), void *ctx)
{
    const uint32_t *dir = in_kernel_ram(pgd) ? (const uint32_t *)guest_ptr(mem, pgd, PAGE_SIZE)
                                             : NULL;
    for (uint32_t i = 0; dir && i < USER_PDES; i++) {
        if (i % 16 == 0 && !any_in(dir + i, 16, X86_PTE_PRESENT)) {
            i += 15;
            continue;
        }
        uint32_t table = dir[i] & ~(PAGE_SIZE - 1);
        uint32_t *t;
        if (!(dir[i] & X86_PTE_PRESENT) || !in_kernel_ram(table) ||
            !(t = (uint32_t *)guest_ptr(mem, table, PAGE_SIZE)))
            continue;
        for (uint32_t j = 0; j < 1024; j += 32) {
            if (!any_in(t + j, 32, KEPT))
                continue;
            for (uint32_t k = j; k < j + 32; k++)
                if (t[k] & KEPT)
                    fn(ctx, (i << 22) | (k << 12), &t[k]);
        }
    }
}

static bool user_range(uint32_t addr, uint32_t len)
{
    return (addr & (PAGE_SIZE - 1)) == 0 && (len & (PAGE_SIZE - 1)) == 0 &&
           addr < USER_SPACE_TOP && len <= USER_SPACE_TOP - addr;
}

/* ---- translations of user code ---- */

void as_track_code(struct addrspaces *as, bool on)
{
    as->track_code = on;
}

/* The page's slot, or -1 when there are too many to note. */
static int note_page(struct addrspaces *as, uint32_t page)
{
    uint32_t key = page + 1, slot = (page * 2654435761u) % AS_CODE_PAGES;

    if (as->ncode * 2 >= AS_CODE_PAGES) {
        as->code_overflow = true;
        return -1;
    }
    while (as->code[slot] && as->code[slot] != key)
        slot = (slot + 1) % AS_CODE_PAGES;
    if (!as->code[slot]) {
        as->code[slot] = key;
        as->code_pair[slot] = 0;
        as->code_slots[as->ncode++] = (uint16_t)slot;
    }
    return (int)slot;
}

/* No page noted: only the slots in use are cleared. */
static void forget_code(struct addrspaces *as)
{
    for (uint32_t k = 0; k < as->ncode; k++)
        as->code[as->code_slots[k]] = 0;
    as->ncode = 0;
}

_Static_assert(offsetof(struct addrspaces, last_code) == 0, "as_note_code_fast reads it");

void as_note_code(struct addrspaces *as, uint32_t addr, uint32_t size)
{
    uint32_t first = addr >> PAGE_SHIFT, last = (addr + (size ? size - 1 : 0)) >> PAGE_SHIFT;

    if (addr >= USER_SPACE_TOP || (first == last && first == as->last_code))
        return;
    as->last_code = first;
    note_page(as, first);
    if (last != first && last < (USER_SPACE_TOP >> PAGE_SHIFT))
        note_page(as, last);
}

int as_code_pages(const struct addrspaces *as, uint32_t *out, size_t cap)
{
    size_t n = 0;
    if (as->code_overflow)
        return -1;
    for (uint32_t i = 0; i < AS_CODE_PAGES; i++) {
        if (!as->code[i] || as->code[i] == TOMBSTONE)
            continue;
        if (n == cap)
            return -1;
        out[n++] = (as->code[i] - 1) << PAGE_SHIFT;
    }
    for (uint32_t i = 0; i < as->nheld; i++) {
        if (n == cap)
            return -1;
        out[n++] = as->held[i];
    }
    return (int)n;
}

struct retranslate_ctx {
    uc_engine *uc;
    uint32_t lo, hi, pages;
};

static void retranslate_present(void *ctx, uint32_t va, uint32_t *pte)
{
    struct retranslate_ctx *c = ctx;
    if ((*pte & X86_PTE_PRESENT) && va >= c->lo && va < c->hi) {
        engine_retranslate_page(c->uc, va);
        c->pages++;
    }
}

/*
 * Drop the engine's translations of the current space's code in [lo, hi)
 * while its page tables still map it: the engine finds a page's
 * translations through them, and a page no longer mapped had its
 * translations dropped when it went. With notes, only the pages that ran;
 * without (or when there were too many), every present page. (Never
 * engine_flush_code() here, inside a hook: the engine may go on to chain
 * the running block to blocks a flush frees.)
 */
static void drop_code(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
                      uint32_t pgd, uint32_t lo, uint32_t hi, bool all)
{
    if (!as->track_code || as->code_overflow) {
        struct retranslate_ctx c = { uc, lo, hi, 0 };
        each_page(mem, pgd, retranslate_present, &c);
        as->stats.code_pages_dropped += c.pages;
        if (all) {
            as->stats.full_flushes++;
            forget_code(as);
            as->code_overflow = false;
        }
        as->last_code = UINT32_MAX;
        return;
    }
    for (uint32_t k = 0; k < as->ncode; k++) {
        uint32_t i = as->code_slots[k], va = (as->code[i] - 1) << PAGE_SHIFT;
        if (as->code[i] == TOMBSTONE || va < lo || va >= hi)
            continue;
        const uint32_t *pte = pte_of(mem, pgd, va);
        if (pte && (*pte & X86_PTE_PRESENT))
            engine_retranslate_page(uc, va);
        as->stats.code_pages_dropped++;
        if (!all)
            as->code[i] = TOMBSTONE;   /* its slot is still probed past */
    }
    if (all)
        forget_code(as);
    as->last_code = UINT32_MAX;
}

static struct as_piece *piece_at(struct as_space *s, uint32_t va);

/* ---- code pages held aside across an exec ---- */

static int held_at(const struct addrspaces *as, uint32_t va)
{
    for (uint32_t i = 0; i < as->nheld; i++)
        if (as->held[i] == va)
            return (int)i;
    return -1;
}

/*
 * The window's page at va is about to stop being shown (no page of the
 * incoming space there yet): its translations stay, and its bytes are
 * kept aside, until bytes are shown there again. False if there is no
 * room: the caller drops them now.
 */
static bool hold_page(struct addrspaces *as, uint32_t va)
{
    if (!as->held_bytes || as->no_hold || as->nheld == AS_HELD_MAX || held_at(as, va) >= 0)
        return false;
    memcpy(as->held_bytes + (size_t)as->nheld * PAGE_SIZE, as->window + va, PAGE_SIZE);
    as->held[as->nheld++] = va;
    as->stats.code_pages_held++;
    return true;
}

/*
 * What the drop of a page's translations through the MMU would have left
 * in the page tables (engine_retranslate_page walks them as a fetch would:
 * the directory entry and the PTE accessed), where a page is held
 * instead: the accessed bits are the model's (the TLB refills a switch
 * charges), which must not depend on whether translations stay.
 */
static void walked(const struct guest_memory *mem, uint32_t pgd, uint32_t va, uint32_t *pte)
{
    uint32_t *dir = (uint32_t *)guest_ptr(mem, pgd, PAGE_SIZE);
    dir[va >> 22] |= X86_PTE_ACCESSED;
    *pte |= X86_PTE_ACCESSED;
}

/* Pages whose translations go, dropped together: found with paging off,
 * since the page tables loaded now need not map them (quirk 23). */
struct drops {
    uint32_t va[AS_HELD_MAX];
    uint32_t n;
};

static void drops_done(uc_engine *uc, struct drops *d)
{
    if (d->n && uc)
        engine_forget_pages(uc, d->va, d->n);
    d->n = 0;
}

static void unhold(struct addrspaces *as, uint32_t i)
{
    uint32_t last = as->nheld - 1;

    if (i != last) {
        as->held[i] = as->held[last];
        memcpy(as->held_bytes + (size_t)i * PAGE_SIZE,
               as->held_bytes + (size_t)last * PAGE_SIZE, PAGE_SIZE);
    }
    as->nheld--;
}

/* Held page i meets the bytes shown there now (NULL: none that may keep
 * it): the same bytes keep its translations, and it stays held (not
 * noted: the notes are the pages run, which decide the model's accessed
 * bits, hand_over_code), others drop them. */
static void settle(struct addrspaces *as, uint32_t i, const uint8_t *now, struct drops *d)
{
    if (now && !memcmp(now, as->held_bytes + (size_t)i * PAGE_SIZE, PAGE_SIZE)) {
        as->stats.code_pages_back++;
        return;
    }
    d->va[d->n++] = as->held[i];
    as->stats.code_pages_dropped++;
    unhold(as, i);
}

/* At a switch: each held page the incoming space keeps meets its bytes
 * there (a shared object's or an inaccessible page's never keep it). */
static void settle_held(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
                        struct as_space *to)
{
    struct drops d = { .n = 0 };

    for (uint32_t i = as->nheld; i-- > 0;) {
        uint32_t va = as->held[i];
        const uint32_t *pte = pte_of(mem, to->pgd, va);
        if (!pte || !(*pte & KEPT))
            continue;
        bool shown = (*pte & X86_PTE_PRESENT) && !piece_at(to, va);
        settle(as, i, shown ? to->store + va : NULL, &d);
    }
    drops_done(uc, &d);
}

/* The held pages in [lo, hi) lose their translations. */
static void drop_held(struct addrspaces *as, uc_engine *uc, uint32_t lo, uint32_t hi)
{
    struct drops d = { .n = 0 };

    for (uint32_t i = as->nheld; i-- > 0;)
        if (as->held[i] >= lo && as->held[i] < hi)
            settle(as, i, NULL, &d);
    drops_done(uc, &d);
}

void as_hold_code(struct addrspaces *as, uc_engine *uc, bool on)
{
    as->no_hold = !on;
    if (!on)
        drop_held(as, uc, 0, USER_SPACE_TOP);
}

void as_filled(struct addrspaces *as, uc_engine *uc, uint32_t addr)
{
    uint32_t va = addr & ~(PAGE_SIZE - 1);
    int i = as->nheld && addr < USER_SPACE_TOP ? held_at(as, va) : -1;
    struct drops d = { .n = 0 };

    if (i < 0)
        return;
    bool shared = as->cur && piece_at(as->cur, va);
    settle(as, (uint32_t)i, shared ? NULL : as->window + va, &d);
    drops_done(uc, &d);
}

/*
 * A switch from one space to another. A translation of the outgoing
 * space's code stays where the incoming space has the very same bytes at
 * that page (the same program forked or executed again: the common case,
 * and what makes a shell's pipeline cheap). One the incoming space has no
 * page at yet (an exec's new, empty space) is held aside until bytes come
 * there; every other one goes, while the outgoing page tables still map
 * it. The pages kept stay noted, now as the incoming space's.
 */
/* A bit for each user page (same_map, loose_map), kept beside a list of
 * the pages marked: the list clears the map, a word per page, since no
 * page off the list is marked. */
static void mark_page(uint64_t *map, uint32_t va)
{
    uint32_t page = va >> PAGE_SHIFT;
    map[page / 64] |= (uint64_t)1 << (page % 64);
}

static bool page_marked(const uint64_t *map, uint32_t va)
{
    uint32_t page = va >> PAGE_SHIFT;
    return (map[page / 64] >> (page % 64)) & 1;
}

static void unmark_pages(uint64_t *map, const uint32_t *va, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        map[(va[k] >> PAGE_SHIFT) / 64] = 0;
}

/* The pages just found to have the same bytes in the window and in the
 * incoming store: the switch need not copy them in (swap_window; nothing
 * writes either in between). */
static void note_same(struct addrspaces *as, const uint32_t *pages, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        as->same[i] = pages[i] << PAGE_SHIFT;
        mark_page(as->same_map, as->same[i]);
    }
    as->nsame = n;
}

static bool is_same(const struct addrspaces *as, uint32_t va)
{
    return page_marked(as->same_map, va);
}

static void forget_same(struct addrspaces *as)
{
    unmark_pages(as->same_map, as->same, as->nsame);
    as->nsame = 0;
}

static bool is_loose(const struct addrspaces *as, uint32_t va);

/*
 * The page at va of the window's space, its entry pte, is known unwritten
 * since the last switch (quiet: no instruction that may lower a
 * permission ran): its entry is read-only now, so it was all along, and
 * the host did not write it.
 */
static bool unwritten(const struct addrspaces *as, const uint32_t *pte, uint32_t va,
                      bool quiet)
{
    return quiet && pte && (*pte & (X86_PTE_PRESENT | X86_PTE_RW)) == X86_PTE_PRESENT &&
           !is_loose(as, va);
}

static void hand_over_code(struct addrspaces *as, uc_engine *uc,
                           const struct guest_memory *mem, struct as_space *from,
                           struct as_space *to, bool quiet)
{
    uint32_t kept[AS_CODE_PAGES / 2];
    uint32_t nkept = 0;

    forget_same(as);
    if (!uc) {
        /* the caller drops the translations (--smp: smp.c) */
        forget_code(as);
        as->last_code = UINT32_MAX;
        return;
    }
    if (!as->track_code || as->code_overflow) {
        drop_code(as, uc, mem, from->pgd, 0, USER_SPACE_TOP, true);
        return;
    }
    for (uint32_t k = 0; k < as->ncode; k++) {
        uint32_t i = as->code_slots[k], va = (as->code[i] - 1) << PAGE_SHIFT;
        if (as->code[i] == TOMBSTONE)
            continue;
        uint32_t *pte = pte_of(mem, from->pgd, va);
        const uint32_t *next = pte_of(mem, to->pgd, va);
        bool present = pte && (*pte & X86_PTE_PRESENT);
        int h = held_at(as, va);
        if (h >= 0)
            unhold(as, (uint32_t)h);   /* it ran: the notes have it */
        if (present && next && (*next & X86_PTE_PRESENT) && nkept < AS_CODE_PAGES / 2 &&
            !piece_at(from, va) && !piece_at(to, va)) {
            bool known = as->code_pair[i] == to->id && unwritten(as, pte, va, quiet);
            if (known || !memcmp(as->window + va, to->store + va, PAGE_SIZE)) {
                as->stats.code_pages_known += known;
                kept[nkept++] = va >> PAGE_SHIFT;
                continue;
            }
        }
        if (present && !(next && (*next & KEPT)) && !piece_at(from, va) && hold_page(as, va)) {
            walked(mem, from->pgd, va, pte);
            continue;
        }
        if (present)
            engine_retranslate_page(uc, va);
        as->stats.code_pages_dropped++;
    }
    forget_code(as);
    as->last_code = UINT32_MAX;
    for (uint32_t i = 0; i < nkept; i++) {
        int slot = note_page(as, kept[i]);
        if (slot >= 0)
            as->code_pair[slot] = from->id;   /* its store gets these bytes */
    }
    as->stats.code_pages_kept += nkept;
    note_same(as, kept, nkept);
}

/* ---- shared objects ---- */

static struct shm_obj *obj_of(struct addrspaces *as, uint32_t id)
{
    return id < AS_SHM_MAX && as->objs[id].used ? &as->objs[id] : NULL;
}

static bool touched(const struct shm_obj *o, uint32_t page)
{
    return (o->touched[page / 8] >> (page % 8)) & 1;
}

/* The piece of s that shows va, or NULL. */
static struct as_piece *piece_at(struct as_space *s, uint32_t va)
{
    for (uint32_t i = 0; i < s->npieces; i++) {
        struct as_piece *p = &s->pieces[i];
        if (va >= p->start && (va - p->start) / PAGE_SIZE < p->npages)
            return p;
    }
    return NULL;
}

/* Copy the kept pages of s's pieces between H and their objects. */
static void sync_pieces(struct addrspaces *as, const struct guest_memory *mem,
                        struct as_space *s, bool to_objects, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = 0; i < s->npieces; i++) {
        struct as_piece *p = &s->pieces[i];
        struct shm_obj *o = obj_of(as, p->obj);
        for (uint32_t k = 0; o && k < p->npages; k++) {
            uint32_t va = p->start + k * PAGE_SIZE, page = p->pgoff + k;
            if (va < lo || va >= hi || page >= o->npages || !touched(o, page) ||
                !kept(mem, s->pgd, va))
                continue;
            uint8_t *obj_bytes = o->data + (size_t)page * PAGE_SIZE;
            if (to_objects) {
                memcpy(obj_bytes, as->window + va, PAGE_SIZE);
                as->epoch++;
            } else {
                memcpy(as->window + va, obj_bytes, PAGE_SIZE);
            }
            as->stats.shared_synced++;
        }
    }
}

static int add_piece(struct as_space *s, struct as_piece p)
{
    if (s->npieces == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        struct as_piece *n = realloc(s->pieces, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        s->pieces = n;
        s->cap = cap;
    }
    s->pieces[s->npieces++] = p;
    return 0;
}

/* Forget the pieces' parts in [lo, hi). */
static int cut_pieces(struct as_space *s, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = 0; i < s->npieces; i++) {
        struct as_piece p = s->pieces[i];
        uint32_t end = p.start + p.npages * PAGE_SIZE;
        if (end <= lo || p.start >= hi)
            continue;
        s->pieces[i--] = s->pieces[--s->npieces];
        if (p.start < lo &&
            add_piece(s, (struct as_piece){ p.start, (lo - p.start) / PAGE_SIZE, p.obj,
                                            p.pgoff }))
            return -ENOMEM;
        if (end > hi &&
            add_piece(s, (struct as_piece){ hi, (end - hi) / PAGE_SIZE, p.obj,
                                            p.pgoff + (hi - p.start) / PAGE_SIZE }))
            return -ENOMEM;
    }
    return 0;
}

/* ---- the operations ---- */

/* ---- the window changing hands ---- */

/* The kept pages of a directory, up to AS_COPY_MAX of them; n counts on.
 * refills: the outgoing space's TLB refills, counted on the same walk;
 * touched (if not NULL): which of them those were. */
struct page_list {
    uint32_t *va;
    uint32_t n;
    uint32_t refills;
    bool *touched;
    bool quiet;              /* a read-only entry was read-only all along */
};

static void list_page(void *ctx, uint32_t va, uint32_t *pte)
{
    struct page_list *l = ctx;
    (void)pte;
    if (l->n < AS_COPY_MAX)
        l->va[l->n] = va;
    l->n++;
}

/* Listed, and a page the space touched since it was switched in: the
 * walker set its accessed bit, which a TLB refill would have cost. Clear
 * it for next time. */
static void list_and_count(void *ctx, uint32_t va, uint32_t *pte)
{
    struct page_list *l = ctx;
    bool walked = (*pte & (X86_PTE_PRESENT | X86_PTE_ACCESSED)) ==
                  (X86_PTE_PRESENT | X86_PTE_ACCESSED);
    /* An inaccessible page keeps no accessed bit: the mprotect that made
     * it so may have come after a store. It counts as touched. A page
     * read-only all along was only read. */
    if (l->touched && l->n < AS_COPY_MAX)
        l->touched[l->n] = !(*pte & X86_PTE_PRESENT) ||
                           (walked && (!l->quiet || (*pte & X86_PTE_RW)));
    list_page(ctx, va, pte);
    if (walked) {
        l->refills++;
        *pte &= ~X86_PTE_ACCESSED;
    }
}

static bool zero_page(const uint8_t *p)
{
    uint64_t w;
    for (size_t i = 0; i < PAGE_SIZE; i += sizeof w) {
        memcpy(&w, p + i, sizeof w);
        if (w)
            return false;
    }
    return true;
}

static const uint32_t *dir_of(const struct guest_memory *mem, uint32_t pgd)
{
    return in_kernel_ram(pgd) ? (const uint32_t *)guest_ptr(mem, pgd, PAGE_SIZE) : NULL;
}

/* The page table of entry i of a directory, or NULL. */
static const uint32_t *table_of(const struct guest_memory *mem, const uint32_t *dir, uint32_t i)
{
    uint32_t table = dir ? dir[i] & ~(PAGE_SIZE - 1) : 0;
    if (!dir || !(dir[i] & X86_PTE_PRESENT) || !in_kernel_ram(table))
        return NULL;
    return (const uint32_t *)guest_ptr(mem, table, PAGE_SIZE);
}

/* Whether any of the 8 pages mincore described at vec has bytes. */
static bool resident_in(const unsigned char *vec)
{
    uint64_t w;
    memcpy(&w, vec, sizeof w);
    return (w & 0x0101010101010101u) != 0;
}

/*
 * Every page of the window that has bytes in a 4 MiB the outgoing
 * directory maps, and that the incoming space does not keep, reads zero.
 * mincore says which have bytes: reading one that has none would make the
 * host map a page. Walking a 4 MiB's PTEs in the host kernel is dear
 * (about a quarter of a pipe round trip, item 98), so this is only for a
 * window whose bytes came from elsewhere (the loose list's "unknown").
 */
static void scrub_resident(struct addrspaces *as, const struct guest_memory *mem,
                           uint32_t from, uint32_t to)
{
    const uint32_t *out = dir_of(mem, from), *in = dir_of(mem, to);
    unsigned char vec[1024];

    for (uint32_t i = 0; i < USER_PDES; i++) {
        uint8_t *base = as->window + ((size_t)i << 22);
        if (!table_of(mem, out, i) || mincore(base, (size_t)1 << 22, vec))
            continue;
        const uint32_t *next = table_of(mem, in, i);
        for (uint32_t j = 0; j < 1024; j++) {
            uint8_t *page = base + (size_t)j * PAGE_SIZE;
            if (j % 8 == 0 && !resident_in(vec + j)) {
                j += 7;
                continue;
            }
            if ((vec[j] & 1) && !(next && (next[j] & KEPT)) && !zero_page(page))
                memset(page, 0, PAGE_SIZE);
        }
    }
}

/* The host writes the window's page at va (not a switch's copy). */
static void note_loose(struct addrspaces *as, uint32_t va)
{
    va &= ~(PAGE_SIZE - 1);
    if (page_marked(as->loose_map, va))
        return;
    if (as->nloose == AS_LOOSE_MAX) {
        as->loose_unknown = true;
        return;
    }
    mark_page(as->loose_map, va);
    as->loose[as->nloose++] = va;
}

static bool is_loose(const struct addrspaces *as, uint32_t va)
{
    return page_marked(as->loose_map, va);
}

static void clear_loose(struct addrspaces *as)
{
    unmark_pages(as->loose_map, as->loose, as->nloose);
    as->nloose = 0;
}

void as_forget_loose(struct addrspaces *as)
{
    clear_loose(as);
    as->loose_unknown = true;
    memset(as->code_pair, 0, sizeof as->code_pair);
}

void as_note_paging(struct addrspaces *as, bool paging, bool cr3)
{
    as->paging_seen |= paging;
    if (cr3 && as->cr3_due)
        as->cr3_due = false;     /* the last switch's own */
    else if (cr3)
        as->cr3_seen++;
}

void as_own_cr3_load(struct addrspaces *as)
{
    if (as->cr3_seen)
        as->cr3_seen--;
    else
        as->paging_seen = true;  /* not where it was expected: ask */
    as->own_load = true;
}

/* The pages of va[0..n) the incoming space does not keep read zero. */
static void clear_unkept(struct addrspaces *as, const struct guest_memory *mem, uint32_t to,
                         const uint32_t *va, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!kept(mem, to, va[k]))
            memset(as->window + va[k], 0, PAGE_SIZE);
}

/*
 * What the outgoing space leaves in the window reads zero where the
 * incoming space keeps nothing: its kept pages (out, already copied out)
 * and the pages the host wrote since the last switch are all that can
 * have bytes (struct addrspaces, loose).
 */
static void scrub(struct addrspaces *as, const struct guest_memory *mem, uint32_t from,
                  uint32_t to, const struct page_list *out)
{
    if (as->loose_unknown)
        scrub_resident(as, mem, from, to);
    else {
        clear_unkept(as, mem, to, out->va, out->n);
        clear_unkept(as, mem, to, as->loose, as->nloose);
    }
    clear_loose(as);
    as->loose_unknown = false;
}

/*
 * The outgoing space's kept pages go to its store. With out->touched,
 * only those accessed since it was switched in (and, in a quiet slice,
 * not read-only: list_and_count) and those the host wrote (loose): any
 * other still has in the store the bytes it was given at the switch in
 * or copied out with before. A store through the engine needs
 * a TLB entry, every entry since the switch in came from a page walk
 * (the CR3 load flushed the rest), and the walk set the accessed bit
 * that list_and_count reads and clears here; the kernel sets it too
 * wherever it writes a present PTE. Only one engine may have walked the
 * space's tables (--smp's spaces are all copied: as_switch).
 */
static void copy_out(struct addrspaces *as, struct as_space *from,
                     const struct page_list *out)
{
    bool all = !out->touched || as->loose_unknown;

    for (uint32_t k = 0; k < out->n; k++) {
        uint32_t va = out->va[k];
        if (!all && !out->touched[k] && !is_loose(as, va))
            continue;
        memcpy(from->store + va, as->window + va, PAGE_SIZE);
        as->stats.switch_pages++;
    }
}

/*
 * The window's bytes go to the outgoing store, the incoming ones in.
 * Changing the host's page tables costs far more than copying a page
 * (docs/performance.md, item 25), so the pages each space keeps are
 * copied; only a switch with more than AS_COPY_MAX of them to copy moves
 * the whole window out and the store in. Either way the window then holds
 * the incoming space's kept pages and each store its space's; after a
 * copy the window reads zero elsewhere, after a move it has what else the
 * store had (pages copied out before and given back since: no page table
 * keeps them, so only the host could read them).
 */
static int swap_window(struct addrspaces *as, const struct guest_memory *mem,
                       struct as_space *from, struct as_space *to, struct page_list out)
{
    struct page_list in = { as->in, 0, 0, NULL, false };
    int err;

    each_page(mem, to->pgd, list_page, &in);
    if (out.n + in.n > AS_COPY_MAX) {
        if ((err = move_space(as->window, from->store)) != 0 ||
            (err = move_space(to->store, as->window)) != 0)
            return err;
        as->stats.window_moves++;
        as->loose_unknown = true;   /* the store's other pages came along */
        return 0;
    }
    copy_out(as, from, &out);
    scrub(as, mem, from->pgd, to->pgd, &out);
    for (uint32_t k = 0; k < in.n; k++) {
        if (is_same(as, in.va[k]))
            continue;   /* hand_over_code found these bytes here already */
        memcpy(as->window + in.va[k], to->store + in.va[k], PAGE_SIZE);
        as->stats.switch_pages++;
    }
    return 0;
}

int as_switch(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
              uint32_t cr3, uint32_t pgd, uint32_t *refills)
{
    struct as_space *next;
    struct page_list out = { as->out, 0, 0, uc ? as->out_touched : NULL, false };
    int err;

    *refills = 0;
    if (!in_kernel_ram(pgd))
        return -EINVAL;
    if (!as->cur && !(as->cur = lookup(as, cr3)) && !(as->cur = create(as, cr3)))
        return -ENOMEM;
    if (as->cur->pgd == pgd)
        return 0;
    next = lookup(as, pgd);
    if (!next && !(next = create(as, pgd)))
        return -ENOMEM;

    /* One engine, which the switch's CR3 load emptied (as for the
     * accessed bits, copy_out); nothing ran that lowers a permission or
     * writes CR0, and CR0.WP holds the kernel to read-only entries. */
    out.quiet = uc && !as->loose_unknown && !as->paging_seen && as->cr3_seen == 0 &&
                !as->cr3_due && (engine_reg_read(uc, UC_X86_REG_CR0) & X86_CR0_WP);
    as->paging_seen = false;
    as->cr3_seen = 0;
    as->cr3_due = !as->own_load;
    as->own_load = false;
    uint64_t t0 = host_ns();
    hand_over_code(as, uc, mem, as->cur, next, out.quiet);
    if (uc)
        settle_held(as, uc, mem, next);
    uint64_t t1 = host_ns();
    each_page(mem, as->cur->pgd, list_and_count, &out);
    sync_pieces(as, mem, as->cur, true, 0, USER_SPACE_TOP);
    window_moving(as);
    as->epoch++;
    err = swap_window(as, mem, as->cur, next, out);
    forget_same(as);
    if (err)
        return err;
    as->cur = next;
    sync_pieces(as, mem, next, false, 0, USER_SPACE_TOP);
    as->stats.drop_ns += t1 - t0;
    as->stats.switch_ns += host_ns() - t1;
    as->stats.switches++;
    as->stats.refills += out.refills;
    *refills = out.refills;
    return 0;
}

uint32_t as_current(const struct addrspaces *as)
{
    return as->cur ? as->cur->pgd : 0;
}

/*
 * The bytes move as in as_switch, but no translation is dropped here: the
 * engine's page tables are the incoming space's, so a lookup of an
 * outgoing page through its MMU would fault inside the engine, outside a
 * run (and leave it executing a page that is not present). The caller
 * drops that engine's user translations with paging off.
 */
int as_switch_window(struct addrspaces *as, const struct guest_memory *mem, uint32_t pgd)
{
    struct as_space *next;
    int err;

    if (!in_kernel_ram(pgd) || !as->cur)
        return -EINVAL;
    if (as->cur->pgd == pgd)
        return 0;
    if (!(next = lookup(as, pgd)) && !(next = create(as, pgd)))
        return -ENOMEM;
    struct page_list out = { as->out, 0, 0, NULL, false };
    uint64_t t0 = host_ns();
    each_page(mem, as->cur->pgd, list_page, &out);
    sync_pieces(as, mem, as->cur, true, 0, USER_SPACE_TOP);
    if ((err = swap_window(as, mem, as->cur, next, out)) != 0)
        return err;
    as->cur = next;
    sync_pieces(as, mem, next, false, 0, USER_SPACE_TOP);
    as->stats.switch_ns += host_ns() - t0;
    return 0;
}

struct copy_ctx {
    struct addrspaces *as;
    struct as_space *parent;
    const uint8_t *from;
    uint8_t *to;
    uint32_t pages;
};

static void copy_page(void *ctx, uint32_t va, uint32_t *pte)
{
    struct copy_ctx *c = ctx;
    (void)pte;
    if (c->parent && piece_at(c->parent, va))
        return;   /* shared: the object has it */
    memcpy(c->to + va, c->from + va, PAGE_SIZE);
    c->pages++;
}

int as_clone(struct addrspaces *as, const struct guest_memory *mem, uint32_t child,
             uint32_t parent, uint32_t *pages)
{
    struct as_space *p = lookup(as, parent), *c;
    struct copy_ctx ctx;

    *pages = 0;
    if (!p || !in_kernel_ram(child) || lookup(as, child))
        return -EINVAL;
    if (!(c = create(as, child)))
        return -ENOMEM;
    for (uint32_t i = 0; i < p->npieces; i++)
        if (add_piece(c, p->pieces[i])) {
            as_space_drop(as, c);
            return -ENOMEM;
        }
    ctx = (struct copy_ctx){ as, p, p == as->cur ? as->window : p->store, c->store, 0 };
    /* The child's page tables are a copy of the parent's: same pages. */
    uint64_t t0 = host_ns();
    each_page(mem, child, copy_page, &ctx);
    as->stats.clone_ns += host_ns() - t0;
    as->stats.clones++;
    as->stats.pages_copied += ctx.pages;
    *pages = ctx.pages;
    return 0;
}

int as_destroy(struct addrspaces *as, uint32_t pgd)
{
    struct as_space *s = lookup(as, pgd);

    if (!s || s == as->cur)
        return -EINVAL;
    as_space_drop(as, s);
    as->epoch++;
    return 0;
}

void as_host_wrote(struct addrspaces *as, uint32_t addr, uint32_t len)
{
    uint64_t last = len ? (uint64_t)addr + len - 1 : 0;

    for (uint64_t va = addr & ~(PAGE_SIZE - 1); len && va <= last && va < USER_SPACE_TOP;
         va += PAGE_SIZE)
        note_loose(as, (uint32_t)va);
}

uint8_t *as_page(struct addrspaces *as, uint32_t addr)
{
    if (addr >= USER_SPACE_TOP)
        return NULL;
    note_loose(as, addr);
    return as->window + (addr & ~(PAGE_SIZE - 1));
}

int as_release(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
               uint32_t addr, uint32_t len)
{
    if (!as->cur || !user_range(addr, len))
        return -EINVAL;
    drop_code(as, uc, mem, as->cur->pgd, addr, addr + len, false);
    drop_held(as, uc, addr, addr + len);
    sync_pieces(as, mem, as->cur, true, addr, addr + len);
    as->epoch++;
    if (cut_pieces(as->cur, addr, addr + len))
        return -ENOMEM;
    window_discard(as, addr, len);
    return 0;
}

int as_invalidate(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
                  uint32_t addr, uint32_t len)
{
    if (!as->cur || !user_range(addr, len))
        return -EINVAL;
    drop_code(as, uc, mem, as->cur->pgd, addr, addr + len, false);
    return 0;
}

int as_move(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
            uint32_t from, uint32_t len, uint32_t to)
{
    struct as_space *s = as->cur;

    if (!s || !user_range(from, len) || !user_range(to, len) ||
        (to < from + len && from < to + len))
        return -EINVAL;
    drop_code(as, uc, mem, s->pgd, from, from + len, false);
    drop_held(as, uc, from, from + len);
    drop_held(as, uc, to, to + len);
    /* Only the pages the space has: the window must stay one mapping, so
     * no mremap inside it. */
    for (uint32_t off = 0; off < len; off += PAGE_SIZE)
        if (kept(mem, s->pgd, from + off)) {
            note_loose(as, to + off);
            memcpy(as->window + to + off, as->window + from + off, PAGE_SIZE);
        }
    for (uint32_t i = 0; i < s->npieces; i++) {
        struct as_piece *p = &s->pieces[i];
        if (p->start >= from && p->start < from + len)
            p->start = p->start - from + to;
        as->epoch++;
    }
    window_discard(as, from, len);
    return 0;
}

int as_shm_create(struct addrspaces *as, uint32_t npages)
{
    if (npages == 0 || npages > USER_SPACE_TOP / PAGE_SIZE)
        return -EINVAL;
    for (int i = 0; i < AS_SHM_MAX; i++) {
        struct shm_obj *o = &as->objs[i];
        if (o->used)
            continue;
        void *d = mmap(NULL, (size_t)npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (d == MAP_FAILED)
            return -ENOMEM;
        o->touched = calloc((npages + 7) / 8, 1);
        if (!o->touched) {
            munmap(d, (size_t)npages * PAGE_SIZE);
            return -ENOMEM;
        }
        o->data = d;
        o->npages = npages;
        o->held = 0;
        o->used = true;
        as->epoch++;
        return i;
    }
    return -ENOMEM;
}

int as_shm_free(struct addrspaces *as, uint32_t id, uint32_t *held)
{
    struct shm_obj *o = obj_of(as, id);

    *held = 0;
    if (!o)
        return -EINVAL;
    *held = o->held;
    as_obj_drop(o);
    as->epoch++;
    return 0;
}

int as_shm_map(struct addrspaces *as, uint32_t addr, uint32_t len, uint32_t id,
               uint32_t pgoff)
{
    struct shm_obj *o = obj_of(as, id);

    if (!as->cur || !o || !user_range(addr, len) || pgoff > o->npages ||
        len / PAGE_SIZE > o->npages - pgoff)
        return -EINVAL;
    as->epoch++;
    if (cut_pieces(as->cur, addr, addr + len))
        return -ENOMEM;
    return add_piece(as->cur, (struct as_piece){ addr, len / PAGE_SIZE, id, pgoff });
}

int as_shm_fault(struct addrspaces *as, uint32_t addr, bool may_alloc)
{
    struct as_piece *p = as->cur && addr < USER_SPACE_TOP ? piece_at(as->cur, addr) : NULL;
    struct shm_obj *o = p ? obj_of(as, p->obj) : NULL;
    uint32_t page, va = addr & ~(PAGE_SIZE - 1);

    if (!o)
        return -EINVAL;
    page = p->pgoff + (va - p->start) / PAGE_SIZE;
    if (page >= o->npages)
        return -EINVAL;
    if (touched(o, page)) {
        note_loose(as, va);
        memcpy(as->window + va, o->data + (size_t)page * PAGE_SIZE, PAGE_SIZE);
        return 0;
    }
    if (!may_alloc)
        return -ENOMEM;
    o->touched[page / 8] |= (uint8_t)(1u << (page % 8));
    as->epoch++;
    o->held++;
    note_loose(as, va);
    memset(as->window + va, 0, PAGE_SIZE);
    return 1;
}
