#include "observe/profile.h"
#include "machine/machine.h"
#include "cost/centi.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "observe/call_tree.h"
#include "syscall_nr.h"

#define MAX_DEPTH 1024

struct frame {
    uint32_t node;
    uint32_t ret;          /* where a return to the caller goes; 0: none */
    bool ring_entry;       /* the kernel was entered from ring 3 here */
};

enum next { NEXT_NONE, NEXT_CALL, NEXT_RET, NEXT_ENTRY };

struct profile {
    FILE *f;
    enum profile_format format;
    struct call_tree tree;
    struct symtab *syms;
    struct machine *m;
    struct frame stack[MAX_DEPTH];
    int depth;
    uint64_t mark;         /* whole cycles already given to a function */
    enum next next;        /* what the last block's end does */
    uint32_t next_ret;     /* a call's return address, an entry's return EIP */
    uint32_t call_addr;    /* the call's own address */
    uint32_t entry_site;   /* the instruction that entered the kernel */
    bool entry_from_user;
    bool was_kernel;
    /* The last instruction told (its cycles given to its function): what
     * the model charges after it (a rep's further runs, an interrupt's
     * delivery) is placed there while its function is still on top. */
    uint32_t last_addr, last_node;
    bool last_valid;
    /* Each process has its stack: the one running is above, the others
     * are kept here, by the tracker's task (task_track.born). */
    const struct syscall_tracker *sys;
    uint64_t cur_task;
    struct task_stack {
        uint64_t task;     /* 0: free */
        int depth;
        struct frame *frames;
    } saved[TRACK_TASKS];
};

int profile_parse_format(const char *name, enum profile_format *out)
{
    if (!strcmp(name, "callgrind"))
        *out = PROFILE_CALLGRIND;
    else if (!strcmp(name, "folded"))
        *out = PROFILE_FOLDED;
    else
        return -1;
    return 0;
}

struct profile *profile_open(const char *path, enum profile_format format, char *err,
                             size_t errlen)
{
    struct profile *p = calloc(1, sizeof *p);
    if (!p || call_tree_init(&p->tree)) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->f = fopen(path, "w");
    if (!p->f) {
        snprintf(err, errlen, "cannot write profile %s: %s", path, strerror(errno));
        call_tree_free(&p->tree);
        free(p);
        return NULL;
    }
    p->format = format;
    return p;
}

static uint32_t top_node(const struct profile *p)
{
    return p->depth ? p->stack[p->depth - 1].node : 0;
}

/* The whole cycles of the running total up to centi, past those already
 * given, go to node: at the instruction at addr if at. */
static void give(struct profile *p, uint32_t node, bool at, uint32_t addr, uint64_t centi)
{
    uint64_t now = centi_whole(centi);
    if (now <= p->mark)
        return;
    call_tree_charge(&p->tree, node, at, addr, now - p->mark);
    p->mark = now;
}

/* The cycles up to now belong to the function on top of the stack. */
static void charge_to_top(struct profile *p, uint64_t centi)
{
    uint32_t node = top_node(p);
    give(p, node, p->last_valid && p->last_node == node, p->last_addr, centi);
}

/* Instructions [from, to) of the block ran: each one's cycles, at its
 * address, in the function on top. */
static void on_insns(void *ctx, struct machine *m, uint32_t from, uint32_t to)
{
    struct profile *p = ctx;
    const struct block *b = m->cur_block;
    uint32_t node = top_node(p);
    uint64_t centi = m->block_start_cycles + block_prefix_cost(b, from);
    for (uint32_t i = from; i < to; i++) {
        centi += b->insns[i].cost;
        give(p, node, true, b->insns[i].addr, centi);
    }
    p->last_addr = b->insns[to - 1].addr;
    p->last_node = node;
    p->last_valid = true;
}

/* A call of key's function from the instruction at site. */
static void push(struct profile *p, uint64_t key, uint32_t site, uint32_t ret, bool ring_entry)
{
    if (p->depth == MAX_DEPTH) {
        p->tree.truncated = true;
        return;
    }
    uint32_t node =
        call_tree_child(&p->tree, top_node(p), call_tree_fn(&p->tree, key), site);
    p->tree.nodes[node].calls++;
    p->stack[p->depth++] = (struct frame){ node, ret, ring_entry };
}

/* A return to target: down to the frame that returns there, not past the
 * kernel's entry; no such frame, no return (a jump by ret). */
static void pop_to(struct profile *p, uint32_t target)
{
    for (int d = p->depth - 1; d >= 0; d--) {
        if (p->stack[d].ret == target) {
            p->depth = d;
            return;
        }
        if (p->stack[d].ring_entry)
            return;
    }
}

/* Back in ring 3: the kernel's frames end, with the one that entered it. */
static void leave_kernel(struct profile *p)
{
    while (p->depth && !p->stack[p->depth - 1].ring_entry)
        p->depth--;
    if (p->depth)
        p->depth--;
}

/* The function of the code at addr; 0 when no symbol covers it. */
static uint64_t fn_key_at(const struct profile *p, uint32_t addr, bool *named)
{
    const struct symbol *s = p->syms ? symtab_lookup(p->syms, addr) : NULL;
    *named = s != NULL;
    return s ? s->addr : FN_UNNAMED | addr;
}

/* What the block's last instruction does to the stack. */
static void classify_end(struct profile *p, const struct block *b)
{
    const struct insn *last = &b->insns[b->ninsns - 1];
    p->next = NEXT_NONE;
    /* near calls, direct or through a register or memory (not far ones) */
    if (last->cls == CLASS_CALL || last->cls == CLASS_CALLMEM || last->cls == CLASS_CALLREG)
        p->next = NEXT_CALL;
    else if (last->cls == CLASS_RET || last->cls == CLASS_IRET)
        p->next = NEXT_RET;
    p->next_ret = last->addr + last->len;
    p->call_addr = last->addr;
}

/* A call that only fetches its own address (call 1f; 1: pop %ebx), to the
 * next instruction or elsewhere inside the calling function: not a call. */
static bool pc_fetch(const struct profile *p, uint32_t target, uint64_t key)
{
    if (target == p->next_ret)
        return true;
    return !(key & FN_UNNAMED) && (uint32_t)key != target && p->depth &&
           p->tree.fn_key[p->tree.nodes[top_node(p)].fn] == key;
}

static struct task_stack *saved_slot(struct profile *p, uint64_t task, bool take)
{
    struct task_stack *oldest = &p->saved[0];
    for (int i = 0; i < TRACK_TASKS; i++) {
        if (p->saved[i].task == task)
            return &p->saved[i];
        if (p->saved[i].task < oldest->task)
            oldest = &p->saved[i];
    }
    if (!take)
        return NULL;
    oldest->task = task;
    oldest->depth = 0;
    return oldest;
}

/* The kernel has switched to another process (the tracker says which):
 * keep the stack of the one leaving, take up the one coming back (a new
 * one starts empty, in the kernel that runs it). */
static void switch_stack(struct profile *p, uint64_t task)
{
    struct task_stack *out = saved_slot(p, p->cur_task, true);
    if (!out->frames)
        out->frames = malloc(MAX_DEPTH * sizeof *out->frames);
    if (out->frames) {
        memcpy(out->frames, p->stack, (size_t)p->depth * sizeof *p->stack);
        out->depth = p->depth;
    }
    struct task_stack *in = saved_slot(p, task, false);
    p->depth = 0;
    if (in && in->frames) {
        memcpy(p->stack, in->frames, (size_t)in->depth * sizeof *p->stack);
        p->depth = in->depth;
    }
    if (in)
        in->task = 0;
    p->cur_task = task;
}

static void on_block(void *ctx, struct machine *m, const struct block *b)
{
    struct profile *p = ctx;
    bool kernel = in_kernel_ram(b->addr), named;
    charge_to_top(p, m->block_start_cycles);
    uint64_t key = fn_key_at(p, b->addr, &named);

    if (p->next == NEXT_ENTRY)
        push(p, key, p->entry_site, p->entry_from_user ? 0 : p->next_ret, p->entry_from_user);
    else if (p->was_kernel && !kernel)
        leave_kernel(p);
    else if (p->next == NEXT_CALL && !pc_fetch(p, b->addr, key))
        push(p, key, p->call_addr, p->next_ret, false);
    else if (p->next == NEXT_RET)
        pop_to(p, b->addr);

    if (!p->depth) {
        push(p, key, 0, 0, false);
    } else if (named && p->tree.nodes[top_node(p)].fn != call_tree_fn(&p->tree, key)) {
        /* fell or jumped into another function: it takes the frame's place */
        struct frame *top = &p->stack[p->depth - 1];
        uint32_t parent = p->tree.nodes[top->node].parent;
        top->node = call_tree_child(&p->tree, parent, call_tree_fn(&p->tree, key),
                                    p->tree.nodes[top->node].site);
        p->tree.nodes[top->node].calls++;
    }
    classify_end(p, b);
    p->was_kernel = kernel;
    uint64_t task = p->sys && p->sys->task ? p->sys->task->born : 0;
    if (task != p->cur_task)
        switch_stack(p, task);
}

/* An interrupt or exception: a call into the kernel from wherever it was. */
static void on_delivery(void *ctx, struct machine *m, const struct delivery_event *e)
{
    struct profile *p = ctx;
    (void)m;
    /* A call whose target faulted (a page not paged in yet): the call was
     * made, and the fault comes from the callee. */
    if (p->next == NEXT_CALL && e->kind == EVENT_FAULT && e->return_eip != p->call_addr) {
        bool named;
        uint64_t key = fn_key_at(p, e->return_eip, &named);
        if (!pc_fetch(p, e->return_eip, key))
            push(p, key, p->call_addr, p->next_ret, false);
    }
    p->next = NEXT_ENTRY;
    p->entry_site = p->last_valid ? p->last_addr : e->return_eip;
    p->entry_from_user = e->from_cpl != 0;
    p->next_ret = e->return_eip;
}

static void on_sysenter(void *ctx, struct machine *m, uint32_t insn_addr)
{
    struct profile *p = ctx;
    if (p->syms)
        symbols_note_sysenter(p->syms, m);
    p->next = NEXT_ENTRY;
    p->entry_from_user = true;
    p->next_ret = 0;
    p->entry_site = insn_addr;
}

static void on_boot(void *ctx, uint64_t end, uint32_t entry)
{
    struct profile *p = ctx;
    (void)end;
    /* The program starts here, whatever the kernel's boot left on the
     * stack (its first instruction may have faulted to be paged in, a
     * kernel entry on top of the boot's frames). */
    charge_to_top(p, end);
    p->depth = 0;
    if (p->syms)
        symbols_note_start(p->syms, entry);
}

/* An execve that succeeded returns to a new program: the old one's user
 * frames are gone (the kernel's go as it returns). */
static void on_record(void *ctx, const struct syscall_record *r)
{
    struct profile *p = ctx;
    if (r->path == PATH_TRAP || r->ret == RET_EXITED || r->result != 0 ||
        (r->nr != SYS_execve && r->nr != SYS_execveat))
        return;
    charge_to_top(p, r->end);
    p->depth = 0;
}

int profile_attach(struct profile *p, struct machine *m, struct syscall_tracker *sys,
                   struct symtab *syms)
{
    const struct machine_observer o = {
        .ctx = p, .block = on_block, .delivery = on_delivery, .sysenter = on_sysenter,
        .insns = on_insns,
    };
    const struct syscall_listener l = { .ctx = p, .boot = on_boot, .record = on_record };
    p->m = m;
    p->syms = syms;
    p->sys = sys;
    p->cur_task = sys->task ? sys->task->born : 0;
    if (syscalls_listen(sys, &l))
        return -1;
    return machine_observe(m, &o);
}

/* The program's command line, for callgrind's cmd: line. */
static void command_line(const struct machine *m, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; m->opts && i < m->opts->argc && k + 2 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? " " : "", m->opts->argv[i]);
    for (char *c = buf; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

int profile_write(struct profile *p, struct machine *m)
{
    char cmd[512];
    charge_to_top(p, m->cycles);
    command_line(m, cmd, sizeof cmd);
    char kernel[64];
    snprintf(kernel, sizeof kernel, "kernel-%s.elf", m->kernel->name);
    const struct callgrind_names names = {
        cmd, m->opts && m->opts->program ? m->opts->program : "user", kernel,
    };
    int rc = p->format == PROFILE_FOLDED ? call_tree_write_folded(&p->tree, p->syms, p->f)
                                         : call_tree_write_callgrind(&p->tree, p->syms, &names, p->f);
    return rc || fflush(p->f) ? -1 : 0;
}

void profile_close(struct profile *p)
{
    if (!p)
        return;
    fclose(p->f);
    for (int i = 0; i < TRACK_TASKS; i++)
        free(p->saved[i].frames);
    call_tree_free(&p->tree);
    free(p);
}
