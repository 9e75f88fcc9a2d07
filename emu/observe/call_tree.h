/*
 * The call tree of a profile (profile.h): one node per call path (and
 * call site), each with the cycles spent in its own code and how often the
 * path was entered; each function's cycles by instruction address; and
 * the two ways of writing it: callgrind's self costs by source line (where
 * the symbols have line tables: symtab_line) and call edges with inclusive
 * costs from their call sites, and folded stacks.
 */
#ifndef EMU_CALL_TREE_H
#define EMU_CALL_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "observe/symbols.h"

#define CALL_TREE_MAX_NODES (1u << 20)
#define CALL_TREE_MAX_FNS (1u << 20)
#define CALL_TREE_MAX_SITES ((1u << 24) - 2)   /* a key is never all ones */
#define CALL_TREE_MAX_COSTS (1u << 22)

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
    uint32_t site;          /* the instruction that called it (or trapped) */
    uint64_t self;          /* cycles */
    uint64_t calls;
};

/* A function's cycles at one instruction. */
struct addr_cost {
    uint32_t fn, addr;
    uint64_t cycles;
};

struct call_tree {
    struct call_node *nodes;
    uint32_t nnodes, cap;
    uint64_t *fn_key;       /* by function index */
    uint32_t nfns, fn_cap;
    struct u64map fns;      /* key -> function */
    struct u64map children; /* parent << 44 | fn << 24 | site -> node */
    struct u64map sites;    /* call site address -> its number (from 1) */
    uint32_t nsites;
    struct addr_cost *costs;
    uint32_t ncosts, costs_cap;
    struct u64map cost_at;  /* fn << 32 | addr -> costs index */
    bool truncated;         /* a limit was reached: costs went to a parent */
};

/* Node 0 is the root, above everything. 0 or -1. */
int call_tree_init(struct call_tree *t);
void call_tree_free(struct call_tree *t);
/* The function of key, added if new; UINT32_MAX when there is no room. */
uint32_t call_tree_fn(struct call_tree *t, uint64_t key);
/* parent's child for fn called from the instruction at site, added if new
 * (parent itself when there is no room). */
uint32_t call_tree_child(struct call_tree *t, uint32_t parent, uint32_t fn, uint32_t site);
/* cycles spent in node's own code, at the instruction at addr if at. */
void call_tree_charge(struct call_tree *t, uint32_t node, bool at, uint32_t addr,
                      uint64_t cycles);

/* The callgrind file: cmd is the command line, for its header; objects
 * name the user code's ELF object and the kernel's (ob=, cob=). Code
 * that no line table covers is in file "???", at line 0, as valgrind
 * writes it. */
struct callgrind_names {
    const char *cmd, *user_object, *kernel_object;
};
int call_tree_write_callgrind(const struct call_tree *t, const struct symtab *syms,
                              const struct callgrind_names *names, FILE *f);
int call_tree_write_folded(const struct call_tree *t, const struct symtab *syms, FILE *f);

#endif
