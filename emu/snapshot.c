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
#include "run.h"
#include "addrspace.h"

#define MAX_DIRTY 65536      /* pages one run may write before a rebuild */
#define MAX_TRACKED 64       /* guest regions under watch, all snapshots */

struct saved_page {
    uint8_t *host;
    uint8_t *copy;
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
    volatile bool overflow;
    uint32_t *guest_pages;   /* the dirty pages as guest addresses */
    int spaces;              /* address spaces at the take (addrspace.h) */
};

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

/* A write to a protected guest page: note it, open it, let it go again. */
static void on_write_fault(int sig, siginfo_t *si, void *ctx)
{
    uint8_t *addr = si->si_addr;
    for (int i = 0; i < ntracked; i++) {
        if (addr < tracked[i].host || addr >= tracked[i].host + tracked[i].size)
            continue;
        struct snapshot *s = tracked[i].snap;
        if (s->ndirty < MAX_DIRTY) {
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

static int by_host(const void *a, const void *b)
{
    const uint8_t *x = ((const struct saved_page *)a)->host;
    const uint8_t *y = ((const struct saved_page *)b)->host;
    return x < y ? -1 : x > y;
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
            s->pages[s->npages++].host = mem->regions[r].host + i * PAGE_SIZE;
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
        !(s->guest_pages = malloc(MAX_DIRTY * sizeof *s->guest_pages)) ||
        uc_context_alloc(m->uc, &s->cpu) != UC_ERR_OK || save_pages(s, &m->mem) ||
        install_handler()) {
        snprintf(err, errlen, "snapshot: out of memory");
        snapshot_free(s);
        return NULL;
    }
    uc_context_save(m->uc, s->cpu);
    s->machine = *m;
    s->spaces = as_count(m->as);
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
    return s;
}

static const struct saved_page *saved(const struct snapshot *s, uint8_t *host)
{
    struct saved_page key = { host, NULL };
    return bsearch(&key, s->pages, s->npages, sizeof *s->pages, by_host);
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

/* Each page the run wrote, as it was at the take. */
static size_t restore_pages(struct snapshot *s, const struct guest_memory *mem)
{
    size_t n = s->ndirty;
    for (size_t i = 0; i < n; i++) {
        uint8_t *page = s->dirty[i];
        const struct saved_page *p = saved(s, page);
        if (p)
            memcpy(page, p->copy, PAGE_SIZE);
        else
            madvise(page, PAGE_SIZE, MADV_DONTNEED);   /* zero, and uncommitted */
        mprotect(page, PAGE_SIZE, PROT_READ);
        s->guest_pages[i] = guest_address(mem, page);
    }
    s->ndirty = 0;
    return n;
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
 * The address spaces live on the host, outside guest memory (addrspace.h),
 * and the snapshot does not hold them: with none at the take they start
 * again empty; a machine taken with some cannot come back (it boots
 * again), since their host state has moved on with the run.
 */
static bool spaces_restorable(struct machine *m, const struct snapshot *s)
{
    (void)m;
    return s->spaces == 0;
}

/* With none at the take, the code the run's spaces ran is translated
 * from bytes that are gone: the engine forgets those pages too. */
static int restore_spaces(struct machine *m, const struct snapshot *s)
{
    char err[256];
    static uint32_t code[AS_CODE_PAGES];
    if (s->spaces != 0)
        return 0;
    int n = as_code_pages(m->as, code, AS_CODE_PAGES);
    if (n < 0)
        return -1;
    engine_forget_pages(m->uc, code, (size_t)n);
    addrspaces_free(m->as);
    m->as = addrspaces_new(guest_ptr(&m->mem, 0, USER_SPACE_TOP), err, sizeof err);
    return m->as ? 0 : -1;
}

int snapshot_restore(struct machine *m, struct snapshot *s)
{
    if (s->overflow || m->engine_aborts != s->machine.engine_aborts ||
        !spaces_restorable(m, s))
        return -1;
    size_t n = restore_pages(s, &m->mem);
    restore_hooks(m, &s->machine);
    /* The machine's state as it was, but for what lives outside it or
     * belongs to the engine as it is now. */
    struct machine *now = &s->scratch;
    *now = *m;
    *m = s->machine;
    m->opts = now->opts;
    m->blocks = now->blocks;
    memcpy(m->observers, now->observers, sizeof m->observers);
    m->nobservers = now->nobservers;
    m->insn_hooked = now->insn_hooked;
    memcpy(m->special_addrs, now->special_addrs, sizeof m->special_addrs);
    memcpy(m->special_hooks, now->special_hooks, sizeof m->special_hooks);
    memcpy(m->special_slots, now->special_slots, sizeof m->special_slots);
    m->nspecial = now->nspecial;
    m->as = now->as;
    m->vfs = now->vfs;   /* the file tree is the harness's (boot.h) */
    /* the block cache may have let the block of the take go since */
    m->cur_block = NULL;
    m->cur_limit = 0;
    uc_context_restore(m->uc, s->cpu);
    engine_forget_pages(m->uc, s->guest_pages, n);
    return restore_spaces(m, s);
}

size_t snapshot_dirty_pages(const struct snapshot *s)
{
    return s->ndirty;
}

void snapshot_free(struct snapshot *s)
{
    if (!s)
        return;
    for (int i = 0; i < ntracked; i++) {
        if (tracked[i].snap == s)
            mprotect(tracked[i].host, tracked[i].size, PROT_READ | PROT_WRITE);
    }
    untrack(s);
    if (s->cpu)
        uc_context_free(s->cpu);
    free(s->pages);
    free(s->data);
    free(s->dirty);
    free(s->guest_pages);
    free(s);
}
