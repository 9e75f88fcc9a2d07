#include "call_tree.h"
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
    t->nodes[0] = (struct call_node){ UINT32_MAX, 0, 0, 0 };
    t->nnodes = 1;
    return 0;
}

void call_tree_free(struct call_tree *t)
{
    free(t->nodes);
    free(t->fn_key);
    map_free(&t->fns);
    map_free(&t->children);
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

uint32_t call_tree_child(struct call_tree *t, uint32_t parent, uint32_t fn)
{
    uint64_t key = (uint64_t)parent << 32 | fn;
    uint32_t node;
    if (fn == UINT32_MAX)
        return parent;
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
    t->nodes[t->nnodes] = (struct call_node){ fn, parent, 0, 0 };
    return t->nnodes++;
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

struct edge {
    uint32_t from, to;
    uint64_t calls, inclusive;
};

static int by_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

static void write_fn_header(FILE *f, const char *prefix, bool kernel, const char *name)
{
    fprintf(f, "%sfl=%s\n%sfn=%s\n", prefix, kernel ? "kernel" : "user", prefix, name);
}

int call_tree_write_callgrind(const struct call_tree *t, const struct symtab *syms,
                              const char *cmd, FILE *f)
{
    uint64_t *total = subtree_totals(t);
    uint64_t *self = calloc(t->nfns ? t->nfns : 1, sizeof *self);
    struct edge *edges = malloc(t->nnodes * sizeof *edges);
    if (!total || !self || !edges) {
        free(total);
        free(self);
        free(edges);
        return -1;
    }
    uint32_t nedges = 0;
    for (uint32_t i = 1; i < t->nnodes; i++) {
        const struct call_node *n = &t->nodes[i];
        self[n->fn] += n->self;
        if (n->parent && !inner_recursion(t, i))
            edges[nedges++] = (struct edge){ t->nodes[n->parent].fn, n->fn, n->calls, total[i] };
    }
    qsort(edges, nedges, sizeof *edges, by_edge);
    fprintf(f, "# callgrind format\nversion: 1\ncreator: emu\ncmd: %s\npositions: line\n"
            "events: Cycles\nsummary: %" PRIu64 "\n", cmd, total[0]);
    if (t->truncated)
        fputs("# emu: the call tree reached its limit; deeper calls are in their callers\n", f);
    char a[32], b[32];
    uint32_t e = 0;
    if (t->nodes[0].self)
        fprintf(f, "\nfl=user\nfn=[unknown]\n0 %" PRIu64 "\n", t->nodes[0].self);
    for (uint32_t fn = 0; fn < t->nfns; fn++) {
        bool kernel, ckernel;
        const char *name = fn_name(t, syms, fn, &kernel, a, sizeof a);
        fputc('\n', f);
        write_fn_header(f, "", kernel, name);
        fprintf(f, "0 %" PRIu64 "\n", self[fn]);
        while (e < nedges && edges[e].from < fn)
            e++;
        /* a function's calls to the same callee from several paths add up */
        for (; e < nedges && edges[e].from == fn; e++) {
            uint64_t calls = edges[e].calls, incl = edges[e].inclusive;
            while (e + 1 < nedges && edges[e + 1].from == fn && edges[e + 1].to == edges[e].to) {
                e++;
                calls += edges[e].calls;
                incl += edges[e].inclusive;
            }
            const char *callee = fn_name(t, syms, edges[e].to, &ckernel, b, sizeof b);
            write_fn_header(f, "c", ckernel, callee);
            fprintf(f, "calls=%" PRIu64 " 0\n0 %" PRIu64 "\n", calls ? calls : 1, incl);
        }
    }
    free(total);
    free(self);
    free(edges);
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
