#include "observe/call_tree.h"
#include "../guest/abi.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- a map from 64-bit keys to indexes (open addressing) ---- */

static uint64_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static int map_grow(struct u64map *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        uint32_t j = (uint32_t)hash64(m->keys[i] - 1) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

/* The slot of key: its own, or the empty one where it would go. */
static uint32_t map_slot(const struct u64map *m, uint64_t key)
{
    uint32_t j = (uint32_t)hash64(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key + 1)
        j = (j + 1) & (m->cap - 1);
    return j;
}

static bool map_get(const struct u64map *m, uint64_t key, uint32_t *val)
{
    if (!m->cap)
        return false;
    uint32_t j = map_slot(m, key);
    if (!m->keys[j])
        return false;
    *val = m->vals[j];
    return true;
}

static int map_put(struct u64map *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m))
        return -1;
    uint32_t j = map_slot(m, key);
    if (!m->keys[j])
        m->n++;
    m->keys[j] = key + 1;
    m->vals[j] = val;
    return 0;
}

static void map_free(struct u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- the tree ---- */

int call_tree_init(struct call_tree *t)
{
    memset(t, 0, sizeof *t);
    t->cap = 1024;
    t->nodes = calloc(t->cap, sizeof *t->nodes);
    if (!t->nodes)
        return -1;
    t->nodes[0] = (struct call_node){ UINT32_MAX, 0, 0, 0, 0 };
    t->nnodes = 1;
    return 0;
}

void call_tree_free(struct call_tree *t)
{
    free(t->nodes);
    free(t->fn_key);
    map_free(&t->fns);
    map_free(&t->children);
    map_free(&t->sites);
    map_free(&t->cost_at);
    free(t->costs);
    memset(t, 0, sizeof *t);
}

uint32_t call_tree_fn(struct call_tree *t, uint64_t key)
{
    uint32_t fn;
    if (map_get(&t->fns, key, &fn))
        return fn;
    if (t->nfns == CALL_TREE_MAX_FNS) {
        t->truncated = true;
        return UINT32_MAX;
    }
    if (t->nfns == t->fn_cap) {
        uint32_t cap = t->fn_cap ? t->fn_cap * 2 : 256;
        uint64_t *k = realloc(t->fn_key, cap * sizeof *k);
        if (!k)
            return UINT32_MAX;
        t->fn_key = k;
        t->fn_cap = cap;
    }
    if (map_put(&t->fns, key, t->nfns))
        return UINT32_MAX;
    t->fn_key[t->nfns] = key;
    return t->nfns++;
}

/* The number of a call site (0 once there are too many to tell apart). */
static uint32_t site_number(struct call_tree *t, uint32_t site)
{
    uint32_t n;
    if (map_get(&t->sites, site, &n))
        return n;
    if (t->nsites == CALL_TREE_MAX_SITES || map_put(&t->sites, site, t->nsites + 1))
        return 0;
    return ++t->nsites;
}

uint32_t call_tree_child(struct call_tree *t, uint32_t parent, uint32_t fn, uint32_t site)
{
    if (fn == UINT32_MAX)
        return parent;
    uint64_t key = (uint64_t)parent << 44 | (uint64_t)fn << 24 | site_number(t, site);
    uint32_t node;
    if (map_get(&t->children, key, &node))
        return node;
    if (t->nnodes == CALL_TREE_MAX_NODES) {
        t->truncated = true;
        return parent;
    }
    if (t->nnodes == t->cap) {
        struct call_node *n = realloc(t->nodes, 2 * t->cap * sizeof *n);
        if (!n)
            return parent;
        t->nodes = n;
        t->cap *= 2;
    }
    if (map_put(&t->children, key, t->nnodes))
        return parent;
    t->nodes[t->nnodes] = (struct call_node){ fn, parent, site, 0, 0 };
    return t->nnodes++;
}

/* The (fn, addr) entry of the costs, added if new; NULL without room. */
static struct addr_cost *cost_entry(struct call_tree *t, uint32_t fn, uint32_t addr)
{
    uint64_t key = (uint64_t)fn << 32 | addr;
    uint32_t i;
    if (map_get(&t->cost_at, key, &i))
        return &t->costs[i];
    if (t->ncosts == CALL_TREE_MAX_COSTS)
        return NULL;
    if (t->ncosts == t->costs_cap) {
        uint32_t cap = t->costs_cap ? t->costs_cap * 2 : 1024;
        struct addr_cost *c = realloc(t->costs, cap * sizeof *c);
        if (!c)
            return NULL;
        t->costs = c;
        t->costs_cap = cap;
    }
    if (map_put(&t->cost_at, key, t->ncosts))
        return NULL;
    t->costs[t->ncosts] = (struct addr_cost){ fn, addr, 0 };
    return &t->costs[t->ncosts++];
}

/* Cycles not placed at an instruction are the function's all the same:
 * the file writes them at line 0. */
void call_tree_charge(struct call_tree *t, uint32_t node, bool at, uint32_t addr,
                      uint64_t cycles)
{
    t->nodes[node].self += cycles;
    struct addr_cost *c = at && node ? cost_entry(t, t->nodes[node].fn, addr) : NULL;
    if (c)
        c->cycles += cycles;
}

/* ---- writing it ---- */

/* The function's name, and whether it is kernel code. */
static const char *fn_name(const struct call_tree *t, const struct symtab *syms, uint32_t fn,
                           bool *kernel, char *buf, size_t n)
{
    uint64_t key = t->fn_key[fn];
    const struct symbol *s = key & FN_UNNAMED || !syms ? NULL : symtab_lookup(syms, (uint32_t)key);
    *kernel = s ? (s->flags & SYM_KERNEL) != 0 : (uint32_t)key >= KERNEL_BASE;
    if (s)
        return symtab_name(syms, s);
    snprintf(buf, n, "0x%08x", (uint32_t)key);
    return buf;
}

/* Each node's cycles with those of everything it called. */
static uint64_t *subtree_totals(const struct call_tree *t)
{
    uint64_t *total = malloc(t->nnodes * sizeof *total);
    if (!total)
        return NULL;
    for (uint32_t i = 0; i < t->nnodes; i++)
        total[i] = t->nodes[i].self;
    /* a child always comes after its parent */
    for (uint32_t i = t->nnodes - 1; i > 0; i--)
        total[t->nodes[i].parent] += total[i];
    return total;
}

/* Does a node above i also go from fn_of(parent) to fn_of(i)? Then i's
 * cycles are already in that outer call's inclusive cost (recursion). */
static bool inner_recursion(const struct call_tree *t, uint32_t i)
{
    uint32_t from = t->nodes[t->nodes[i].parent].fn, to = t->nodes[i].fn;
    for (uint32_t j = t->nodes[i].parent; j; j = t->nodes[j].parent)
        if (t->nodes[j].fn == to && t->nodes[t->nodes[j].parent].fn == from)
            return true;
    return false;
}

/* What the file says at one source line of a function: its own cycles
 * there (callee NO_CALLEE), or the calls it makes there. */
#define NO_CALLEE UINT32_MAX

struct item {
    uint32_t fn, callee;
    const char *file;   /* NULL: no line table covers it (line 0) */
    uint32_t line;
    uint64_t calls, cycles;
};

struct items {
    struct item *v;
    size_t n, cap;
};

static int add_item(struct items *it, struct item x)
{
    if (it->n == it->cap) {
        size_t cap = it->cap ? it->cap * 2 : 1024;
        struct item *v = realloc(it->v, cap * sizeof *v);
        if (!v)
            return -1;
        it->v = v;
        it->cap = cap;
    }
    it->v[it->n++] = x;
    return 0;
}

/* The source file and line of the code at addr; NULL and 0 if unknown. */
static const char *position(const struct symtab *syms, uint32_t addr, uint32_t *line)
{
    const char *file;
    if (syms && symtab_line(syms, addr, &file, line))
        return file;
    *line = 0;
    return NULL;
}

static int by_file(const char *a, const char *b)
{
    if (a == b)
        return 0;
    return !a ? -1 : !b ? 1 : strcmp(a, b);
}

static int by_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    int c;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    if ((c = by_file(x->file, y->file)))
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Each function's cycles by line, what no line holds at line 0, and the
 * calls from each call site. */
static int collect(const struct call_tree *t, const struct symtab *syms, const uint64_t *total,
                   struct items *it)
{
    uint64_t *rest = calloc(t->nfns ? t->nfns : 1, sizeof *rest);
    if (!rest)
        return -1;
    int rc = 0;
    for (uint32_t i = 1; i < t->nnodes; i++)
        rest[t->nodes[i].fn] += t->nodes[i].self;
    for (uint32_t i = 0; i < t->ncosts && !rc; i++) {
        const struct addr_cost *c = &t->costs[i];
        uint32_t line;
        const char *file = position(syms, c->addr, &line);
        rest[c->fn] -= c->cycles;
        rc = add_item(it, (struct item){ c->fn, NO_CALLEE, file, line, 0, c->cycles });
    }
    for (uint32_t fn = 0; fn < t->nfns && !rc; fn++)
        if (rest[fn])
            rc = add_item(it, (struct item){ fn, NO_CALLEE, NULL, 0, 0, rest[fn] });
    for (uint32_t i = 1; i < t->nnodes && !rc; i++) {
        const struct call_node *n = &t->nodes[i];
        uint32_t line;
        if (!n->parent || inner_recursion(t, i))
            continue;
        const char *file = position(syms, n->site, &line);
        rc = add_item(it, (struct item){ t->nodes[n->parent].fn, n->fn, file, line,
                                         n->calls ? n->calls : 1, total[i] });
    }
    free(rest);
    if (!rc)
        qsort(it->v, it->n, sizeof *it->v, by_item);
    return rc;
}

#define NO_FILE "???"

/* A function's name, its object, and the file and line it starts at. */
struct fn_place {
    char name[32];
    const char *shown, *object, *file;
    uint32_t line;
};

static void place(const struct call_tree *t, const struct symtab *syms,
                  const struct callgrind_names *names, uint32_t fn, struct fn_place *p)
{
    bool kernel;
    p->shown = fn_name(t, syms, fn, &kernel, p->name, sizeof p->name);
    p->object = kernel ? names->kernel_object : names->user_object;
    p->file = position(syms, (uint32_t)t->fn_key[fn], &p->line);
    if (!p->file)
        p->file = NO_FILE;
}

/* One function: its header, then its lines in order, fi=/fe= where the
 * file changes (code inlined from another file), merging equal lines. */
static size_t write_fn(const struct call_tree *t, const struct symtab *syms,
                       const struct callgrind_names *names, uint32_t fn, const struct items *it,
                       size_t k, FILE *f)
{
    struct fn_place home, callee;
    place(t, syms, names, fn, &home);
    fprintf(f, "\nob=%s\nfl=%s\nfn=%s\n", home.object, home.file, home.shown);
    const char *cur = home.file;
    while (k < it->n && it->v[k].fn == fn) {
        struct item x = it->v[k++];
        for (; k < it->n && !by_item(&x, &it->v[k]); k++) {
            x.calls += it->v[k].calls;
            x.cycles += it->v[k].cycles;
        }
        const char *file = x.file ? x.file : home.file;
        if (strcmp(file, cur))
            fprintf(f, "%s=%s\n", strcmp(file, home.file) ? "fi" : "fe", file);
        cur = file;
        if (x.callee == NO_CALLEE) {
            fprintf(f, "%" PRIu32 " %" PRIu64 "\n", x.line, x.cycles);
            continue;
        }
        place(t, syms, names, x.callee, &callee);
        fprintf(f, "cob=%s\ncfi=%s\ncfn=%s\ncalls=%" PRIu64 " %" PRIu32 "\n%" PRIu32 " %" PRIu64
                "\n", callee.object, callee.file, callee.shown, x.calls, callee.line, x.line,
                x.cycles);
    }
    return k;
}

int call_tree_write_callgrind(const struct call_tree *t, const struct symtab *syms,
                              const struct callgrind_names *names, FILE *f)
{
    uint64_t *total = subtree_totals(t);
    struct items it = { 0 };
    if (!total || collect(t, syms, total, &it)) {
        free(total);
        free(it.v);
        return -1;
    }
    fprintf(f, "# callgrind format\nversion: 1\ncreator: emu\ncmd: %s\npositions: line\n"
            "events: Cycles\nsummary: %" PRIu64 "\n", names->cmd, total[0]);
    if (t->truncated)
        fputs("# emu: the call tree reached its limit; deeper calls are in their callers\n", f);
    if (t->nodes[0].self)
        fprintf(f, "\nob=%s\nfl=" NO_FILE "\nfn=[unknown]\n0 %" PRIu64 "\n",
                names->user_object, t->nodes[0].self);
    size_t k = 0;
    for (uint32_t fn = 0; fn < t->nfns; fn++)
        k = write_fn(t, syms, names, fn, &it, k, f);
    free(total);
    free(it.v);
    return ferror(f) ? -1 : 0;
}

/* root;...;fn self, kernel functions marked _[k] as flamegraph.pl does. */
int call_tree_write_folded(const struct call_tree *t, const struct symtab *syms, FILE *f)
{
    uint32_t path[4096];
    char buf[32];
    for (uint32_t i = 1; i < t->nnodes; i++) {
        if (!t->nodes[i].self)
            continue;
        int depth = 0;
        for (uint32_t j = i; j && depth < 4096; j = t->nodes[j].parent)
            path[depth++] = j;
        for (int d = depth - 1; d >= 0; d--) {
            bool kernel;
            const char *name = fn_name(t, syms, t->nodes[path[d]].fn, &kernel, buf, sizeof buf);
            /* ';' and ' ' separate frames and the count */
            for (const char *c = name; *c; c++)
                fputc(*c == ';' || *c == ' ' ? '_' : *c, f);
            fputs(kernel ? "_[k]" : "", f);
            fputc(d ? ';' : ' ', f);
        }
        fprintf(f, "%" PRIu64 "\n", t->nodes[i].self);
    }
    if (t->nodes[0].self)
        fprintf(f, "[unknown] %" PRIu64 "\n", t->nodes[0].self);
    return ferror(f) ? -1 : 0;
}
