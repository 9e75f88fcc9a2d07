/*
 * Address spaces on an engine that does not translate (engine.h, quirk
 * 12): the bytes of every process's user space [0, USER_SPACE_TOP), kept on
 * the host. The engine sees one host window H at guest address 0, which
 * holds the current space (the one whose page directory is in CR3); every
 * other space lives in its own reserved host area (its "store"), as
 * sparse as the window. A switch moves the outgoing space's pages out of H
 * and the incoming space's pages in with mremap: page tables move, bytes
 * do not. A fork copies only the pages the parent's page tables map.
 * Shared anonymous memory (MAP_SHARED) lives in shared objects and is
 * copied between an object and H when a space holding it is switched in or
 * out, and when a page of it is first touched. docs/address-spaces.md
 * gives the design and what each step costs on the host.
 *
 * Spaces are named by their page directory's address, the CR3 value. The
 * guest kernel's page tables (read from guest memory) say which pages a
 * space has: a PTE present, or kept with PTE_SW_PROTNONE.
 *
 * This unit knows nothing of the machine: it returns what happened (pages
 * copied, TLB refills) and the mechanism that called it charges for it.
 */
#ifndef EMU_ADDRSPACE_H
#define EMU_ADDRSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unicorn/unicorn.h>
#include "engine/memory.h"

#define AS_MAX          256   /* spaces at once (the kernel allows 64 tasks) */
#define AS_SHM_MAX      256   /* shared objects at once */
#define AS_CODE_PAGES   1024  /* user code pages tracked between switches */
#define AS_HELD_MAX     512u  /* code pages held aside at once (as_filled) */
#define AS_LOOSE_MAX    64u   /* host-written pages a switch remembers (as_page) */

struct as_stats {
    uint64_t switches;        /* the window changed hands */
    uint64_t clones, pages_copied;
    uint64_t refills;         /* TLB refills counted at switches */
    uint64_t code_pages_dropped;
    uint64_t code_pages_kept; /* the next space had the same bytes there */
    uint64_t code_pages_known;/* of those, known the same without a compare */
    uint64_t code_pages_held; /* kept aside at a switch until their bytes came back */
    uint64_t code_pages_back; /* of those, the ones that came back the same (kept) */
    uint64_t full_flushes;    /* switches that dropped every mapped page's */
    uint64_t shared_synced;   /* pages copied between H and shared objects */
    uint64_t switch_pages;    /* pages copied out of and into the window */
    uint64_t window_moves;    /* switches that moved the whole window instead */
    /* host time (CLOCK_MONOTONIC ns): for reports, never for the model */
    uint64_t switch_ns;       /* moving pages in and out of the window */
    uint64_t drop_ns;         /* dropping the outgoing space's translations */
    uint64_t clone_ns;        /* copying a forked space's pages */
};

struct addrspaces;

/* window: the engine's host memory for [0, USER_SPACE_TOP). NULL with the
 * reason in err if the host refuses. */
struct addrspaces *addrspaces_new(uint8_t *window, char *err, size_t errlen);
void addrspaces_free(struct addrspaces *as);
const struct as_stats *addrspaces_stats(const struct addrspaces *as);

/* Note code run at [addr, addr+size) in user space (from the block hook).
 * Without notes (no block hook), a switch drops the translations of every
 * page the outgoing space maps. */
void as_note_code(struct addrspaces *as, uint32_t addr, uint32_t size);
/* The same, inline where the block is on the page noted last (most
 * blocks): that page number is the first member of struct addrspaces. */
static inline void as_note_code_fast(struct addrspaces *as, uint32_t addr, uint32_t size)
{
    uint32_t first = addr >> PAGE_SHIFT;
    if (size && (addr + size - 1) >> PAGE_SHIFT == first && first == *(const uint32_t *)as)
        return;
    as_note_code(as, addr, size);
}
void as_track_code(struct addrspaces *as, bool on);
/* The user code pages noted since their translations were last dropped,
 * and those held aside at a switch, into out; their number, or -1 if
 * there are more than cap or too many were noted to keep. */
int as_code_pages(const struct addrspaces *as, uint32_t *out, size_t cap);

/*
 * The results are 0 or -errno; -EIO means the host failed and the machine
 * cannot go on. as_switch with uc NULL drops no translation (--smp: the
 * engine's page tables may not be the outgoing space's, and a lookup
 * through its MMU would fault inside it; smp.c drops them). mem reads the page tables (kernel RAM); uc drops stale
 * translations; cr3 is the page directory loaded now (names the current
 * space the first time).
 */
int as_switch(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
              uint32_t cr3, uint32_t pgd, uint32_t *refills);
/* The page directory of the space in the window (0 before the first
 * switch). */
uint32_t as_current(const struct addrspaces *as);
/* For another CPU's turn (--smp, smp.c): the window takes the space that
 * CPU runs in. No switch or TLB refill is counted (that CPU's own TLB
 * still holds it) and no engine's translations are touched. */
int as_switch_window(struct addrspaces *as, const struct guest_memory *mem, uint32_t pgd);
int as_clone(struct addrspaces *as, const struct guest_memory *mem, uint32_t child,
             uint32_t parent, uint32_t *pages);
int as_destroy(struct addrspaces *as, uint32_t pgd);
int as_release(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
               uint32_t addr, uint32_t len);
int as_invalidate(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
                  uint32_t addr, uint32_t len);
int as_move(struct addrspaces *as, uc_engine *uc, const struct guest_memory *mem,
            uint32_t from, uint32_t len, uint32_t to);
/* The host bytes of a user page of the current space, for the host to
 * write (the next switch copies the page out, whether or not the
 * program touched it). */
uint8_t *as_page(struct addrspaces *as, uint32_t addr);
/* The host wrote [addr, addr + len) of the window some other way (a
 * debugger through the page tables): the same for those pages. */
void as_host_wrote(struct addrspaces *as, uint32_t addr, uint32_t len);
/*
 * The guest is about to run a block with an instruction that may lower a
 * page's permission below what the engine's TLB holds (paging: invlpg, a
 * CR0 or CR4 write, a far jump that may switch tasks) or a CR3 load. A
 * page whose entry is read-only at a switch is then known unwritten
 * since the last one only if none of the first and no CR3 load but the
 * switch's own ran: lowering a permission takes an invalidation.
 */
void as_note_paging(struct addrspaces *as, bool paging, bool cr3);
/* The block making the MM_SWITCH request has the switch's own CR3 load,
 * noted before the request (as_note_paging). */
void as_own_cr3_load(struct addrspaces *as);
/* The host wrote the page at addr (as_page, as_shm_fault): the engine
 * cannot see that (quirk 17). A code page held aside at a switch keeps
 * its translations if these are its bytes, else loses them. */
void as_filled(struct addrspaces *as, uc_engine *uc, uint32_t addr);
/* Off: every held page's translations dropped now, and none held until
 * on again (a debugger's new hooks only reach code translated after
 * them, through the page tables loaded then: quirk 15). */
void as_hold_code(struct addrspaces *as, uc_engine *uc, bool on);

int as_shm_create(struct addrspaces *as, uint32_t npages);           /* id */
int as_shm_free(struct addrspaces *as, uint32_t id, uint32_t *held);
int as_shm_map(struct addrspaces *as, uint32_t addr, uint32_t len, uint32_t id,
               uint32_t pgoff);
/* 1: a new zero page; 0: the object's bytes; -ENOMEM: new, not allowed. */
int as_shm_fault(struct addrspaces *as, uint32_t addr, bool may_alloc);

/* How many spaces exist (tests). */
int as_count(const struct addrspaces *as);

/*
 * The window's bytes are guest memory, which a caller keeping them (the
 * fuzz harness's snapshots, tests/fuzz/snapshot.h) is told about before
 * they move out of the window (a switch) or are dropped (munmap, mremap).
 */
struct as_window_watch {
    void (*moving)(void *ctx);
    void (*discarding)(void *ctx, uint8_t *host, size_t len);
};
void as_watch_window(struct addrspaces *as, const struct as_window_watch *w, void *ctx);

#endif
