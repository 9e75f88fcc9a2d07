#include "gdb_fake.h"
#include <stdio.h>
#include <string.h>

const struct fake_insn fake_program[FAKE_NINSNS] = {
    { 0x08048000u, FAKE_NOP },   { 0x08048005u, FAKE_NOP },  { 0x0804800au, FAKE_NOP },
    { 0x0804800fu, FAKE_WRITE }, { 0x08048019u, FAKE_NOP },  { 0x0804801eu, FAKE_READ },
    { 0x08048024u, FAKE_NOP },
};

#define FAKE_VALUE 42u

/* ---- the target interface ---- */

static int get_reg(void *ctx, int regno, uint32_t *val)
{
    struct fake *f = ctx;
    if (regno < 0 || regno >= GDB_NCORE || regno == f->unreadable)
        return -1;
    *val = f->regs[regno];
    return 0;
}

/* Like a real machine, it keeps its own segments: CS and SS refuse. */
static int set_reg(void *ctx, int regno, uint32_t val)
{
    struct fake *f = ctx;
    if (regno < 0 || regno >= GDB_NCORE || regno == GDB_CS || regno == GDB_SS)
        return -1;
    f->regs[regno] = val;
    if (regno == GDB_EIP) {
        f->pc = FAKE_NINSNS;   /* off the program: it exits */
        for (int i = 0; i < FAKE_NINSNS; i++)
            if (fake_program[i].eip == val)
                f->pc = i;
    }
    return 0;
}

static size_t span(uint32_t addr, size_t len, uint32_t end)
{
    if (addr < FAKE_CODE || addr >= end)
        return 0;
    return len < end - addr ? len : end - addr;
}

static size_t read_mem(void *ctx, uint32_t addr, uint8_t *buf, size_t len)
{
    struct fake *f = ctx;
    size_t n = span(addr, len, FAKE_END);
    if (n)
        memcpy(buf, f->mem + (addr - FAKE_CODE), n);
    return n;
}

static size_t write_mem(void *ctx, uint32_t addr, const uint8_t *buf, size_t len)
{
    struct fake *f = ctx;
    size_t n = span(addr, len, FAKE_RO);
    if (n)
        memcpy(f->mem + (addr - FAKE_CODE), buf, n);
    return n;
}

static int insert_point(void *ctx, enum gdb_point_type type, uint32_t addr, uint32_t kind)
{
    struct fake *f = ctx;
    bool watch = type >= GDB_WATCH_WRITE;
    if (f->npoints == FAKE_MAX_POINTS || (!watch && kind != 1) ||
        (watch && kind != 1 && kind != 2 && kind != 4 && kind != 8))
        return -1;
    f->points[f->npoints++] = (struct gdb_point){ type, addr, kind };
    return 0;
}

static int remove_point(void *ctx, enum gdb_point_type type, uint32_t addr, uint32_t kind)
{
    struct fake *f = ctx;
    for (int i = 0; i < f->npoints; i++) {
        struct gdb_point *p = &f->points[i];
        if (p->type == type && p->addr == addr && p->kind == kind) {
            *p = f->points[--f->npoints];
            return 0;
        }
    }
    return -1;
}

static void mon_cycles(void *ctx, const char *args, struct gdb_text *out)
{
    struct fake *f = ctx;
    (void)args;
    gdb_printf(out, "cycles: %llu\n",
               (unsigned long long)(f->insns * FAKE_CYCLES_PER_INSN));
}

static void mon_points(void *ctx, const char *args, struct gdb_text *out)
{
    struct fake *f = ctx;
    (void)args;
    gdb_printf(out, "points: %d\n", f->npoints);
}

static void mon_echo(void *ctx, const char *args, struct gdb_text *out)
{
    (void)ctx;
    gdb_printf(out, "[%s]\n", args);
}

/* More text than one reply holds: it is cut, not overflowed. */
static void mon_flood(void *ctx, const char *args, struct gdb_text *out)
{
    (void)ctx;
    (void)args;
    for (int i = 0; i < 1000; i++)
        gdb_printf(out, "line %04d of a long answer\n", i);
}

static const struct gdb_monitor_cmd fake_monitor[] = {
    { "cycles", "modeled cycles so far", mon_cycles },
    { "points", "breakpoints and watchpoints inserted", mon_points },
    { "echo", "print the arguments", mon_echo },
    { "flood", "print too much", mon_flood },
};

void fake_init(struct fake *f)
{
    memset(f, 0, sizeof *f);
    static const uint32_t regs[GDB_NCORE] = {
        [GDB_EAX] = 0, [GDB_ECX] = 0x11, [GDB_EDX] = 0x22, [GDB_EBX] = 0x33,
        [GDB_ESP] = FAKE_STACK, [GDB_ESI] = 0x44, [GDB_EDI] = 0x55,
        [GDB_EFLAGS] = 0x246, [GDB_CS] = 0x73, [GDB_SS] = 0x7b, [GDB_DS] = 0x7b,
        [GDB_ES] = 0x7b,
    };
    memcpy(f->regs, regs, sizeof regs);
    f->regs[GDB_EIP] = fake_program[0].eip;
    for (uint32_t i = 0; i < FAKE_RO - FAKE_CODE; i++)
        f->mem[i] = (uint8_t)i;
    memset(f->mem + (FAKE_VAR - FAKE_CODE), 0, 4);
    memset(f->mem + (FAKE_RO - FAKE_CODE), 0xcc, FAKE_END - FAKE_RO);
    f->spin_at = -1;
    f->unreadable = -1;
    f->target = (struct gdb_target){
        .ctx = f,
        .get_reg = get_reg,
        .set_reg = set_reg,
        .read_mem = read_mem,
        .write_mem = write_mem,
        .insert_point = insert_point,
        .remove_point = remove_point,
        .monitor = fake_monitor,
        .nmonitor = sizeof fake_monitor / sizeof fake_monitor[0],
    };
}

/* ---- running ---- */

static struct gdb_stop trap(enum gdb_stop_cause cause, uint32_t addr)
{
    return (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGTRAP,
                              .cause = cause, .addr = addr };
}

static bool break_at(const struct fake *f, uint32_t eip, struct gdb_stop *stop)
{
    for (int i = 0; i < f->npoints; i++) {
        const struct gdb_point *p = &f->points[i];
        if (p->type <= GDB_HW_BREAK && p->addr == eip) {
            *stop = trap(p->type == GDB_SW_BREAK ? GDB_CAUSE_SWBREAK : GDB_CAUSE_HWBREAK, eip);
            return true;
        }
    }
    return false;
}

static bool watch_hit(const struct fake *f, uint32_t addr, bool write, struct gdb_stop *stop)
{
    for (int i = 0; i < f->npoints; i++) {
        const struct gdb_point *p = &f->points[i];
        bool kind_ok = p->type == GDB_WATCH_ACCESS ||
                       p->type == (write ? GDB_WATCH_WRITE : GDB_WATCH_READ);
        if (!kind_ok || (uint64_t)p->addr + p->kind <= addr || p->addr >= (uint64_t)addr + 4)
            continue;
        enum gdb_stop_cause c = p->type == GDB_WATCH_ACCESS ? GDB_CAUSE_AWATCH
                                : write                     ? GDB_CAUSE_WATCH
                                                            : GDB_CAUSE_RWATCH;
        *stop = trap(c, addr > p->addr ? addr : p->addr);
        return true;
    }
    return false;
}

/* One entry of the program; true if it hit a watchpoint. */
static bool execute(struct fake *f, struct gdb_stop *stop)
{
    const struct fake_insn *in = &fake_program[f->pc];
    uint8_t *var = f->mem + (FAKE_VAR - FAKE_CODE);
    bool hit = false;

    f->regs[GDB_EAX]++;
    f->insns++;
    if (in->op == FAKE_WRITE) {
        var[0] = (uint8_t)FAKE_VALUE;
        var[1] = var[2] = var[3] = 0;
        hit = watch_hit(f, FAKE_VAR, true, stop);
    } else if (in->op == FAKE_READ) {
        f->regs[GDB_EBX] = var[0] | var[1] << 8 | var[2] << 16 | (uint32_t)var[3] << 24;
        hit = watch_hit(f, FAKE_VAR, false, stop);
    }
    if (f->pc != f->spin_at)
        f->pc++;
    if (f->pc < FAKE_NINSNS)
        f->regs[GDB_EIP] = fake_program[f->pc].eip;
    return hit;
}

struct gdb_stop fake_resume(struct fake *f, const struct gdb_resume *r,
                            int (*poll)(void *), void *pctx, uint64_t budget)
{
    const struct gdb_stop exited = { .kind = GDB_STOP_EXITED, .status = FAKE_EXIT_STATUS };
    struct gdb_stop stop;

    for (uint64_t n = 0;; n++) {
        if (f->pc >= FAKE_NINSNS)
            return exited;
        /* Resuming at a breakpoint runs its instruction: GDB steps over
         * its breakpoints itself, other clients expect this. */
        if (n > 0 && break_at(f, f->regs[GDB_EIP], &stop))
            return stop;
        if (execute(f, &stop))
            return stop;
        if (f->pc >= FAKE_NINSNS)
            return exited;
        if (r->action == GDB_ACT_STEP)
            return trap(GDB_CAUSE_NONE, 0);
        int sig;
        if (poll && (n + 1) % FAKE_POLL_EVERY == 0 && (sig = poll(pctx)) != 0)
            return (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = sig };
        if (budget && n + 1 >= budget)
            return (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGINT };
    }
}

static int poll_stub(void *g)
{
    return gdb_poll(g);
}

int fake_machine(struct fake *f, struct gdb_stub *g, bool wait)
{
    struct gdb_stop stop = trap(GDB_CAUSE_NONE, 0);
    bool stopped = wait;

    for (;;) {
        struct gdb_resume r = { .action = GDB_ACT_CONTINUE };
        if (stopped) {
            r = gdb_stopped(g, &stop);
            if (r.action == GDB_ACT_KILL)
                return FAKE_KILLED;
            if (r.action == GDB_ACT_DETACH)
                r.action = GDB_ACT_CONTINUE;   /* no points are left */
        }
        stop = fake_resume(f, &r, poll_stub, g, 0);
        stopped = true;
        if (stop.kind == GDB_STOP_EXITED) {
            gdb_stopped(g, &stop);
            return stop.status;
        }
    }
}
