/* Snapshots of a machine, restored at the cost of what a run wrote
 * (snapshot.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, madvise */
#include "snapshot.h"
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../../emu/cpu/run.h"
#include "../../emu/mm/addrspace.h"
#include "../../emu/vfs/vfs.h"

#define MAX_DIRTY 65536      /* pages one run may write before a rebuild */
#define MAX_TRACKED 64       /* guest regions under watch, all snapshots */
#define MAX_OPEN 256         /* pages left writable, compared at each restore */

struct saved_page {
    uint8_t *host;
    uint8_t *copy;
    bool dirty;              /* in the dirty list */
    bool open;               /* in the open list */
};

/* A page a run wrote, left writable after: each restore compares it with
 * what it held at the take (copy, or zeros), instead of a fault and two
 * mprotect calls (each a TLB flush) for each run that writes it again. */
struct open_page {
    uint8_t *host;
    const uint8_t *copy;     /* NULL: zeros */
    bool dropped;            /* a munmap or mremap dropped it since */
};

struct snapshot {
    struct machine machine;  /* the machine's own state at the take */
    struct machine scratch;  /* room for the state being replaced */
    uc_context *cpu;
    struct saved_page *pages; /* committed at the take, by host address */
    size_t npages;
    uint8_t *data;
    uint8_t **dirty;         /* host pages written since, from the handler */
    volatile size_t ndirty;
    struct open_page *open;  /* pages left writable */
    size_t nopen;
    volatile bool overflow;
    uint32_t *guest_pages;   /* the pages whose translations go, as guest addresses */
    size_t nguest;
    struct addrspaces *as;   /* the machine's, watched (addrspace.h) */
    struct as_saved *spaces; /* the address spaces outside the window */
    uint8_t *window;         /* guest memory's user region */
    bool window_moved;       /* a switch moved its pages out since */
    struct vfs *vfs;         /* the file tree at the take */
    struct vfs *vfs_live;    /* the machine's tree, and how many changes */
    uint64_t vfs_changes;    /* it had when the snapshot last gave it */
};

/* The guest code pages the address spaces noted, at most (as_code_pages),
 * and what else a restore may drop translations of. */
#define MAX_FORGET (MAX_DIRTY + MAX_OPEN + AS_CODE_PAGES)

/* What the write-fault handler watches: a guest region and its snapshot. */
static struct {
    uint8_t *host;
    size_t size;
    struct snapshot *snap;
} tracked[MAX_TRACKED];
static volatile int ntracked;
static struct sigaction previous;
static bool handler_installed;

static uint8_t *page_of(const void *p)
{
    return (uint8_t *)((uintptr_t)p & ~(uintptr_t)(PAGE_SIZE - 1));
}

static int by_host(const void *a, const void *b)
{
    const uint8_t *x = ((const struct saved_page *)a)->host;
    const uint8_t *y = ((const struct saved_page *)b)->host;
    return x < y ? -1 : x > y;
}

static struct saved_page *saved(const struct snapshot *s, uint8_t *host)
{
    struct saved_page key = { host, NULL, false, false };
    return bsearch(&key, s->pages, s->npages, sizeof *s->pages, by_host);
}

/* A write to a protected guest page: note it, open it, let it go again. */
static void on_write_fault(int sig, siginfo_t *si, void *ctx)
{
    uint8_t *addr = si->si_addr;
    for (int i = 0; i < ntracked; i++) {
        if (addr < tracked[i].host || addr >= tracked[i].host + tracked[i].size)
            continue;
        struct snapshot *s = tracked[i].snap;
        if (s->ndirty < MAX_DIRTY) {
            struct saved_page *p = saved(s, page_of(addr));
            if (p)
                p->dirty = true;
            s->dirty[s->ndirty++] = page_of(addr);
            mprotect(page_of(addr), PAGE_SIZE, PROT_READ | PROT_WRITE);
        } else {
            s->overflow = true;
            mprotect(tracked[i].host, tracked[i].size, PROT_READ | PROT_WRITE);
        }
        return;
    }
    /* not a guest page: whoever handled SIGSEGV before (the sanitizers,
     * libFuzzer) or the default, which the fault now meets again */
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(sig, si, ctx);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
               !(previous.sa_flags & SA_SIGINFO)) {
        previous.sa_handler(sig);
    } else {
        signal(SIGSEGV, SIG_DFL);
    }
}

static int install_handler(void)
{
    if (handler_installed)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_write_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &previous))
        return -1;
    handler_installed = true;
    return 0;
}

/* Copy the pages the host has committed in each region. */
static int save_pages(struct snapshot *s, const struct guest_memory *mem)
{
    size_t cap = 0;
    for (int r = 0; r < mem->count; r++) {
        size_t n = mem->regions[r].size / PAGE_SIZE;
        unsigned char *vec = malloc(n);
        if (!vec || mincore(mem->regions[r].host, mem->regions[r].size, vec)) {
            free(vec);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (!(vec[i] & 1))
                continue;
            if (s->npages == cap) {
                cap = cap ? 2 * cap : 256;
                struct saved_page *p = realloc(s->pages, cap * sizeof *p);
                if (!p) {
                    free(vec);
                    return -1;
                }
                s->pages = p;
            }
            s->pages[s->npages++] =
                (struct saved_page){ mem->regions[r].host + i * PAGE_SIZE, NULL, false, false };
        }
        free(vec);
    }
    s->data = malloc(s->npages ? s->npages * PAGE_SIZE : 1);
    if (!s->data)
        return -1;
    for (size_t i = 0; i < s->npages; i++) {
        s->pages[i].copy = s->data + i * PAGE_SIZE;
        memcpy(s->pages[i].copy, s->pages[i].host, PAGE_SIZE);
    }
    qsort(s->pages, s->npages, sizeof *s->pages, by_host);
    return 0;
}

static int protect_all(const struct guest_memory *mem, int prot)
{
    for (int r = 0; r < mem->count; r++)
        if (mprotect(mem->regions[r].host, mem->regions[r].size, prot))
            return -1;
    return 0;
}

static void untrack(struct snapshot *s)
{
    int j = 0;
    for (int i = 0; i < ntracked; i++)
        if (tracked[i].snap != s)
            tracked[j++] = tracked[i];
    ntracked = j;
}

/* The first saved page at host or above (s->pages is sorted by host). */
static size_t first_saved_at(const struct snapshot *s, const uint8_t *host)
{
    size_t lo = 0, hi = s->npages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->pages[mid].host < host)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * A switch is about to move the window's pages out (mremap): the window
 * is made writable again, one mapping as the move needs, and from now on
 * not watched: the restore builds it anew from the saved pages.
 */
static void window_moving(void *ctx)
{
    struct snapshot *s = ctx;
    if (s->window_moved)
        return;
    s->window_moved = true;
    mprotect(s->window, USER_SPACE_TOP, PROT_READ | PROT_WRITE);
}

/* Pages of the window about to be dropped (munmap, mremap) are written
 * without a write: the saved ones among them come back at the restore. */
static void window_discarding(void *ctx, uint8_t *host, size_t len)
{
    struct snapshot *s = ctx;
    if (s->window_moved)
        return;
    for (size_t i = 0; i < s->nopen; i++)
        if (s->open[i].host >= host && s->open[i].host < host + len)
            s->open[i].dropped = true;
    for (size_t i = first_saved_at(s, host); i < s->npages && s->pages[i].host < host + len;
         i++) {
        if (s->pages[i].dirty || s->pages[i].open)
            continue;
        if (s->ndirty == MAX_DIRTY) {
            s->overflow = true;
            return;
        }
        mprotect(s->pages[i].host, PAGE_SIZE, PROT_READ | PROT_WRITE);
        s->pages[i].dirty = true;
        s->dirty[s->ndirty++] = s->pages[i].host;
    }
}

static const struct as_window_watch window_watch = { window_moving, window_discarding };

struct snapshot *snapshot_take(struct machine *m, char *err, size_t errlen)
{
    if (m->opts->root || !m->opts->quiet) {
        snprintf(err, errlen, "snapshot: only a machine without --root and with quiet I/O");
        return NULL;
    }
    if (ntracked + m->mem.count > MAX_TRACKED) {
        snprintf(err, errlen, "snapshot: too many machines under watch");
        return NULL;
    }
    struct snapshot *s = calloc(1, sizeof *s);
    if (!s || !(s->dirty = malloc(MAX_DIRTY * sizeof *s->dirty)) ||
        !(s->open = malloc(MAX_OPEN * sizeof *s->open)) ||
        !(s->guest_pages = malloc(MAX_FORGET * sizeof *s->guest_pages)) ||
        !(s->spaces = as_save(m->as)) || (m->vfs && !(s->vfs = vfs_clone(m->vfs))) ||
        uc_context_alloc(m->uc, &s->cpu) != UC_ERR_OK || save_pages(s, &m->mem) ||
        install_handler()) {
        snprintf(err, errlen, "snapshot: out of memory");
        snapshot_free(s);
        return NULL;
    }
    uc_context_save(m->uc, s->cpu);
    s->machine = *m;
    s->window = guest_ptr(&m->mem, 0, USER_SPACE_TOP);
    s->vfs_live = m->vfs;
    s->vfs_changes = m->vfs ? vfs_changes(m->vfs) : 0;
    for (int r = 0; r < m->mem.count; r++) {
        tracked[ntracked].host = m->mem.regions[r].host;
        tracked[ntracked].size = m->mem.regions[r].size;
        tracked[ntracked].snap = s;
        ntracked++;
    }
    if (protect_all(&m->mem, PROT_READ)) {
        snprintf(err, errlen, "snapshot: cannot protect guest memory");
        protect_all(&m->mem, PROT_READ | PROT_WRITE);
        snapshot_free(s);
        return NULL;
    }
    s->as = m->as;
    as_watch_window(m->as, &window_watch, s);
    return s;
}

static uint32_t guest_address(const struct guest_memory *mem, const uint8_t *host)
{
    for (int r = 0; r < mem->count; r++) {
        const struct mem_region *g = &mem->regions[r];
        if (host >= g->host && host < g->host + g->size)
            return g->base + (uint32_t)(host - g->host);
    }
    return 0;
}

static bool in_window(const struct snapshot *s, const uint8_t *host)
{
    return host >= s->window && host < s->window + USER_SPACE_TOP;
}

/* A page the run wrote stays writable, if there is room: from now on
 * each restore compares it instead. */
static bool keep_open(struct snapshot *s, uint8_t *page, struct saved_page *p)
{
    if (s->nopen == MAX_OPEN)
        return false;
    s->open[s->nopen++] = (struct open_page){ page, p ? p->copy : NULL, false };
    if (p)
        p->open = true;
    return true;
}

/* Each page the run wrote, as it was at the take (the window's are done
 * already if it was built anew). */
static void restore_pages(struct snapshot *s, const struct guest_memory *mem)
{
    for (size_t i = 0; i < s->ndirty; i++) {
        uint8_t *page = s->dirty[i];
        struct saved_page *p = saved(s, page);
        s->guest_pages[s->nguest++] = guest_address(mem, page);
        if (p)
            p->dirty = false;
        if (s->window_moved && in_window(s, page))
            continue;
        bool open = keep_open(s, page, p);
        if (p)
            memcpy(page, p->copy, PAGE_SIZE);
        else if (open)
            memset(page, 0, PAGE_SIZE);
        else
            madvise(page, PAGE_SIZE, MADV_DONTNEED);   /* zero, and uncommitted */
        if (!open)
            mprotect(page, PAGE_SIZE, PROT_READ);
    }
    s->ndirty = 0;
}

static const uint8_t zero_page[PAGE_SIZE];

/* The open pages as they were at the take; the engine forgets the
 * translations of those that changed. A window built anew holds its
 * pages as they were, write-protected: they leave the list. */
static void restore_open(struct snapshot *s, const struct guest_memory *mem)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->nopen; i++) {
        struct open_page *o = &s->open[i];
        const uint8_t *then = o->copy ? o->copy : zero_page;
        bool rebuilt = s->window_moved && in_window(s, o->host);
        if (rebuilt || o->dropped || memcmp(o->host, then, PAGE_SIZE)) {
            s->guest_pages[s->nguest++] = guest_address(mem, o->host);
            if (!rebuilt)
                memcpy(o->host, then, PAGE_SIZE);
        }
        if (rebuilt) {
            struct saved_page *p = o->copy ? saved(s, o->host) : NULL;
            if (p)
                p->open = false;
            continue;
        }
        o->dropped = false;
        s->open[kept++] = *o;
    }
    s->nopen = kept;
}

/* The window anew: a fresh mapping (one, write-protected, as at the take)
 * with the saved pages in it. */
static int rebuild_window(struct snapshot *s)
{
    if (mmap(s->window, USER_SPACE_TOP, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
        return -1;
    madvise(s->window, USER_SPACE_TOP, MADV_NOHUGEPAGE);
    for (size_t i = first_saved_at(s, s->window); i < s->npages && in_window(s, s->pages[i].host);
         i++)
        memcpy(s->pages[i].host, s->pages[i].copy, PAGE_SIZE);
    return mprotect(s->window, USER_SPACE_TOP, PROT_READ);
}

/* The code hooks the snapshot had stay in; any added since go. */
static void restore_hooks(struct machine *m, const struct machine *then)
{
    bool kept = m->nspecial >= then->nspecial &&
                !memcmp(m->special_addrs, then->special_addrs,
                        (size_t)then->nspecial * sizeof then->special_addrs[0]);
    forget_special_hooks(m, kept ? then->nspecial : 0);
}

/*
 * The address spaces outside the window (stores, shared objects, which is
 * current) come back if the run changed them, and the window's bytes are
 * those of the space current at the take again. The engine then forgets
 * the user code it translated since the last switch (the spaces' notes)
 * as well as the pages the restore rewrote.
 */
static int restore_spaces(struct machine *m, struct snapshot *s)
{
    if (s->window_moved || as_changed_since(m->as, s->spaces)) {
        int n = as_code_pages(m->as, s->guest_pages + s->nguest, AS_CODE_PAGES);
        if (n < 0)
            return -1;
        s->nguest += (size_t)n;
    }
    if (s->window_moved && rebuild_window(s))
        return -1;
    restore_open(s, &m->mem);
    restore_pages(s, &m->mem);
    s->window_moved = false;
    return as_restore(m->as, s->spaces) ? -1 : 0;
}

/* The file tree as it was, if the run changed it: a copy of the saved one. */
static int restore_tree(struct machine *m, struct snapshot *s, struct vfs *now)
{
    if (!now || (now == s->vfs_live && vfs_changes(now) == s->vfs_changes)) {
        m->vfs = now;
        return 0;
    }
    struct vfs *copy = s->vfs ? vfs_clone(s->vfs) : NULL;
    if (s->vfs && !copy) {
        m->vfs = now;
        return -1;
    }
    vfs_free(now);
    m->vfs = copy;
    s->vfs_live = copy;
    s->vfs_changes = copy ? vfs_changes(copy) : 0;
    return 0;
}

int snapshot_restore(struct machine *m, struct snapshot *s)
{
    if (s->overflow || m->engine_aborts != s->machine.engine_aborts)
        return -1;
    s->nguest = 0;
    if (restore_spaces(m, s))
        return -1;
    restore_hooks(m, &s->machine);
    unhook_cut(m);   /* the engine's, like the code hooks above */
    /* The machine's state as it was, but for what lives outside it or
     * belongs to the engine as it is now. */
    struct machine *now = &s->scratch;
    *now = *m;
    *m = s->machine;
    m->opts = now->opts;
    m->blocks = now->blocks;
    memcpy(m->observers, now->observers, sizeof m->observers);
    m->nobservers = now->nobservers;
    m->insn_observed = now->insn_observed;
    memcpy(m->special_addrs, now->special_addrs, sizeof m->special_addrs);
    memcpy(m->special_hooks, now->special_hooks, sizeof m->special_hooks);
    memcpy(m->special_slots, now->special_slots, sizeof m->special_slots);
    m->nspecial = now->nspecial;
    m->cut = now->cut;
    m->as = now->as;
    /* the block cache may have let the block of the take go since */
    m->cur_block = NULL;
    m->cur_limit = 0;
    uc_context_restore(m->uc, s->cpu);
    engine_forget_pages(m->uc, s->guest_pages, s->nguest);
    return restore_tree(m, s, now->vfs);
}

void snapshot_free(struct snapshot *s)
{
    if (!s)
        return;
    if (s->as)
        as_watch_window(s->as, NULL, NULL);
    for (int i = 0; i < ntracked; i++) {
        if (tracked[i].snap == s)
            mprotect(tracked[i].host, tracked[i].size, PROT_READ | PROT_WRITE);
    }
    untrack(s);
    if (s->cpu)
        uc_context_free(s->cpu);
    as_saved_free(s->spaces);
    vfs_free(s->vfs);
    free(s->pages);
    free(s->data);
    free(s->dirty);
    free(s->open);
    free(s->guest_pages);
    free(s);
}
