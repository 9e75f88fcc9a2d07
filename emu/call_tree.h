/*
 * The call tree of a profile (profile.h): one node per call path, each
 * with the cycles spent in its own code and how often the path was
 * entered, and the two ways of writing it: callgrind's per-function self
 * costs and call edges with inclusive costs, and folded stacks.
 */
#ifndef EMU_CALL_TREE_H
#define EMU_CALL_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "symbols.h"

#define CALL_TREE_MAX_NODES (1u << 20)
#define CALL_TREE_MAX_FNS (1u << 20)

/* A function: a symbol's start, or (FN_UNNAMED) the address it was called
 * at when no symbol covers it. */
#define FN_UNNAMED (1ull << 32)

struct u64map {
    uint64_t *keys;         /* key + 1; 0 is empty */
    uint32_t *vals;
    uint32_t cap, n;
};

struct call_node {
    uint32_t fn, parent;
    uint64_t self;          /* cycles */
    uint64_t calls;
};

struct call_tree {
    struct call_node *nodes;
    uint32_t nnodes, cap;
    uint64_t *fn_key;       /* by function index */
    uint32_t nfns, fn_cap;
    struct u64map fns;      /* key -> function */
    struct u64map children; /* parent << 32 | fn -> node */
    bool truncated;         /* a limit was reached: costs went to a parent */
};

/* Node 0 is the root, above everything. 0 or -1. */
int call_tree_init(struct call_tree *t);
void call_tree_free(struct call_tree *t);
/* The function of key, added if new; UINT32_MAX when there is no room. */
uint32_t call_tree_fn(struct call_tree *t, uint64_t key);
/* parent's child for fn, added if new (parent itself when there is no room). */
uint32_t call_tree_child(struct call_tree *t, uint32_t parent, uint32_t fn);

/* cmd: the command line, for the callgrind header. */
int call_tree_write_callgrind(const struct call_tree *t, const struct symtab *syms,
                              const char *cmd, FILE *f);
int call_tree_write_folded(const struct call_tree *t, const struct symtab *syms, FILE *f);

#endif
