/* The machine behind the GDB stub (gdb_machine.h). */
#include "gdb/gdb_machine.h"
#include "cost/centi.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/debug.h"
#include "machine/names.h"
#include "cpu/run.h"
#include "cpu/trap.h"

struct gdbm {
    struct machine *m;
    struct syscall_tracker *sys;
    struct debug dbg;
    struct gdb_stub *g;
    bool caught;                  /* a fault was caught: */
    struct delivery_event fault;  /* the last one */
    uint32_t fault_cr2;
};

/* ---- registers and memory ---- */

static const int uc_regs[GDB_NCORE] = {
    [GDB_EAX] = UC_X86_REG_EAX, [GDB_ECX] = UC_X86_REG_ECX, [GDB_EDX] = UC_X86_REG_EDX,
    [GDB_EBX] = UC_X86_REG_EBX, [GDB_ESP] = UC_X86_REG_ESP, [GDB_EBP] = UC_X86_REG_EBP,
    [GDB_ESI] = UC_X86_REG_ESI, [GDB_EDI] = UC_X86_REG_EDI, [GDB_EIP] = UC_X86_REG_EIP,
    [GDB_EFLAGS] = UC_X86_REG_EFLAGS, [GDB_CS] = UC_X86_REG_CS, [GDB_SS] = UC_X86_REG_SS,
    [GDB_DS] = UC_X86_REG_DS, [GDB_ES] = UC_X86_REG_ES, [GDB_FS] = UC_X86_REG_FS,
    [GDB_GS] = UC_X86_REG_GS,
};

/* cr0..cr4, the segments' bases (from their descriptors), the MSRs. */
static int get_sys_reg(struct machine *m, int regno, uint32_t *val)
{
    static const int crs[] = { UC_X86_REG_CR0, UC_X86_REG_CR2, UC_X86_REG_CR3,
                               UC_X86_REG_CR4 };
    static const int segs[] = { UC_X86_REG_CS, UC_X86_REG_SS, UC_X86_REG_DS, UC_X86_REG_ES,
                                UC_X86_REG_FS, UC_X86_REG_GS };
    bool big;
    int i = regno - GDB_SYS;
    if (regno < GDB_CS_BASE) {
        *val = reg_read(m, crs[i]);
        return 0;
    }
    if (regno < GDB_SYSENTER_CS) {
        int seg = segs[regno - GDB_CS_BASE];
        *val = 0;
        /* a null selector has no descriptor: base 0, as the CPU's cache says */
        return !(reg_read(m, seg) & ~3u) || segment_of(m, seg, val, &big) ? 0 : -1;
    }
    *val = (uint32_t)engine_read_msr(m->uc, MSR_IA32_SYSENTER_CS + (uint32_t)(regno -
                                                                             GDB_SYSENTER_CS));
    return 0;
}

static int get_reg(void *ctx, int regno, uint32_t *val)
{
    struct gdbm *gm = ctx;
    if (regno >= GDB_SYS && regno < GDB_NREGS)
        return get_sys_reg(gm->m, regno, val);
    if (regno < 0 || regno >= GDB_NCORE)
        return -1;
    *val = reg_read(gm->m, uc_regs[regno]);
    return 0;
}

/* CS and SS change only with the privilege level, which a debugger does
 * not set; a data segment register loads with the CPU's checks. */
static int set_reg(void *ctx, int regno, uint32_t val)
{
    struct gdbm *gm = ctx;
    if (regno < 0 || regno >= GDB_NCORE || regno == GDB_CS || regno == GDB_SS)
        return -1;
    if (regno >= GDB_DS)
        return uc_reg_write(gm->m->uc, uc_regs[regno], &val) == UC_ERR_OK ? 0 : -1;
    reg_write(gm->m, uc_regs[regno], val);
    return 0;
}

static size_t read_mem(void *ctx, uint32_t addr, uint8_t *buf, size_t len)
{
    struct gdbm *gm = ctx;
    return debug_read_mem(&gm->dbg, addr, buf, len);
}

static size_t write_mem(void *ctx, uint32_t addr, const uint8_t *buf, size_t len)
{
    struct gdbm *gm = ctx;
    return debug_write_mem(&gm->dbg, addr, buf, len);
}

static const enum debug_watch_kind watch_kinds[] = {
    [GDB_WATCH_WRITE] = DEBUG_WATCH_WRITE,
    [GDB_WATCH_READ] = DEBUG_WATCH_READ,
    [GDB_WATCH_ACCESS] = DEBUG_WATCH_ACCESS,
};

static int insert_point(void *ctx, enum gdb_point_type type, uint32_t addr, uint32_t kind)
{
    struct gdbm *gm = ctx;
    if (type == GDB_SW_BREAK || type == GDB_HW_BREAK)
        return debug_insert_break(&gm->dbg, addr, type == GDB_HW_BREAK);
    return debug_insert_watch(&gm->dbg, watch_kinds[type], addr, kind);
}

static int remove_point(void *ctx, enum gdb_point_type type, uint32_t addr, uint32_t kind)
{
    struct gdbm *gm = ctx;
    if (type == GDB_SW_BREAK || type == GDB_HW_BREAK)
        return debug_remove_break(&gm->dbg, addr, type == GDB_HW_BREAK);
    return debug_remove_watch(&gm->dbg, watch_kinds[type], addr, kind);
}

/* ---- monitor commands ---- */

static void mon_cycles(void *ctx, const char *args, struct gdb_text *out)
{
    struct gdbm *gm = ctx;
    (void)args;
    gdb_printf(out, "cycles: %" PRIu64 ".%02u\ninstructions: %" PRIu64 "\n",
               centi_whole(gm->m->cycles), centi_frac(gm->m->cycles), gm->m->insns);
}

static void mon_cpu(void *ctx, const char *args, struct gdb_text *out)
{
    struct gdbm *gm = ctx;
    const struct cpu_config *c = &gm->m->cpu;
    (void)args;
    gdb_printf(out, "cpu: %s%s", c->model->name, c->sep_reported ? "" : ",-sep");
    if (c->stepping != c->model->stepping)
        gdb_printf(out, ",stepping=%u", c->stepping);
    gdb_printf(out, ", %u MHz (%s)\n", c->model->clock_mhz, c->model->description);
    /* with --smp the stop is on one CPU; the MSRs below are that CPU's */
    if (gm->m->ncpus > 1)
        gdb_printf(out, "stopped on CPU %d of %d\n", gm->m->cpu_id, gm->m->ncpus);
    gdb_printf(out, "SEP: %s\n",
               !c->sep_reported ? "not reported by CPUID"
               : c->sep_works   ? "reported by CPUID, sysenter works"
                                : "reported by CPUID on a part that does not support it "
                                  "(sysenter is #GP(0) while SYSENTER_CS is 0; a sysexit "
                                  "stops the machine)");
    /* The Pentium Pro has the MSRs too (cpu_insns.c). */
    if (!c->sep_works && !c->sep_unsupported) {
        gdb_printf(out, "SYSENTER MSRs: none on this model\n");
        return;
    }
    static const struct { const char *name; uint32_t msr; } msrs[] = {
        { "SYSENTER_CS ", MSR_IA32_SYSENTER_CS },
        { "SYSENTER_ESP", MSR_IA32_SYSENTER_ESP },
        { "SYSENTER_EIP", MSR_IA32_SYSENTER_EIP },
    };
    for (size_t i = 0; i < sizeof msrs / sizeof msrs[0]; i++)
        gdb_printf(out, "%s (msr %#x): %#" PRIx64 "\n", msrs[i].name, msrs[i].msr,
                   engine_read_msr(gm->m->uc, msrs[i].msr));
}

static void mon_syscalls(void *ctx, const char *args, struct gdb_text *out)
{
    struct gdbm *gm = ctx;
    const struct syscall_tracker *t = gm->sys;
    (void)args;
    gdb_printf(out, "system calls: %" PRIu64 " via sysenter, %" PRIu64 " via int $0x80\n",
               t->by_path[PATH_SYSENTER], t->by_path[PATH_INT80]);
    gdb_printf(out, "returns: %" PRIu64 " sysexit, %" PRIu64 " iret\n", t->returns_sysexit,
               t->returns_iret);
    gdb_printf(out, "unknown (ENOSYS): %" PRIu64 "; traps: %" PRIu64 "\n", t->enosys,
               t->by_path[PATH_TRAP]);
    static const char *const phases[] = {
        [PHASE_NONE] = "", [PHASE_ENTRY] = "entry", [PHASE_BODY] = "body", [PHASE_EXIT] = "exit",
    };
    const struct task_track *k = t->task;
    if (!k || !k->active)
        return;
    /* A record closes when user code runs again. */
    if (k->rec.path == PATH_TRAP)
        gdb_printf(out, "open: a trap, vector %u (%s)", k->rec.nr, vector_name(k->rec.nr));
    else
        gdb_printf(out, "open: %s via %s", syscall_name(k->rec.nr), sys_path_name(k->rec.path));
    gdb_printf(out, ", %s phase, pid %u\n", phases[k->phase], k->pid);
}

static void mon_catch_faults(void *ctx, const char *args, struct gdb_text *out)
{
    struct gdbm *gm = ctx;
    if (!strcmp(args, "on") || !strcmp(args, "off"))
        debug_catch_faults(&gm->dbg, !strcmp(args, "on"));
    else if (*args)
        gdb_printf(out, "usage: monitor catch-faults [on|off]\n");
    gdb_printf(out, "catch-faults: %s\n", gm->dbg.catch_faults
                   ? "on (a fault of the program's stops the machine with SIGSEGV: at its "
                     "handler, or for a page fault where do_page_fault finds it bad)"
                   : "off (faults go to the kernel unseen)");
    if (!gm->caught)
        return;
    const struct delivery_event *e = &gm->fault;
    gdb_printf(out, "last caught: vector %d (%s) from ring %u at eip %08x, error code %#x",
               e->vector, vector_name((uint32_t)e->vector), e->from_cpl, e->return_eip,
               e->error_code);
    if (e->vector == X86_VEC_PF)
        gdb_printf(out, ", cr2 %08x", gm->fault_cr2);
    gdb_printf(out, "\n");
}

/* "info registers", the CPU's whole state as a system debugger shows it:
 * the general registers, each segment's selector and base, the
 * descriptor tables, the control registers and the SYSENTER MSRs. */
static void mon_info(void *ctx, const char *args, struct gdb_text *out)
{
    static const struct { const char *name; int reg, base; } segs[] = {
        { "ES", UC_X86_REG_ES, GDB_ES_BASE }, { "CS", UC_X86_REG_CS, GDB_CS_BASE },
        { "SS", UC_X86_REG_SS, GDB_SS_BASE }, { "DS", UC_X86_REG_DS, GDB_DS_BASE },
        { "FS", UC_X86_REG_FS, GDB_FS_BASE }, { "GS", UC_X86_REG_GS, GDB_GS_BASE },
    };
    static const struct { const char *name; int reg; } tables[] = {
        { "LDT", UC_X86_REG_LDTR }, { "TR ", UC_X86_REG_TR }, { "GDT", UC_X86_REG_GDTR },
        { "IDT", UC_X86_REG_IDTR },
    };
    struct gdbm *gm = ctx;
    struct machine *m = gm->m;
    if (strcmp(args, "registers") != 0) {
        gdb_printf(out, "usage: monitor info registers\n");
        return;
    }
    uint32_t r[GDB_NCORE], sys[GDB_NREGS - GDB_SYS];
    for (int i = 0; i < GDB_NCORE; i++)
        get_reg(gm, i, &r[i]);
    for (int i = GDB_SYS; i < GDB_NREGS; i++)
        if (get_reg(gm, i, &sys[i - GDB_SYS]))
            sys[i - GDB_SYS] = 0;
    gdb_printf(out, "EAX=%08x EBX=%08x ECX=%08x EDX=%08x\n", r[GDB_EAX], r[GDB_EBX],
               r[GDB_ECX], r[GDB_EDX]);
    gdb_printf(out, "ESI=%08x EDI=%08x EBP=%08x ESP=%08x\n", r[GDB_ESI], r[GDB_EDI],
               r[GDB_EBP], r[GDB_ESP]);
    gdb_printf(out, "EIP=%08x EFL=%08x CPL=%u\n", r[GDB_EIP], r[GDB_EFLAGS], r[GDB_CS] & 3);
    for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++)
        gdb_printf(out, "%s =%04x base %08x\n", segs[i].name, reg_read(m, segs[i].reg),
                   sys[segs[i].base - GDB_SYS]);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        uc_x86_mmr t = { 0 };
        uc_reg_read(m->uc, tables[i].reg, &t);
        gdb_printf(out, "%s=%04x base %08x limit %08x\n", tables[i].name, t.selector,
                   (uint32_t)t.base, t.limit);
    }
    gdb_printf(out, "CR0=%08x CR2=%08x CR3=%08x CR4=%08x\n", sys[0], sys[1], sys[2], sys[3]);
    gdb_printf(out, "SYSENTER_CS=%08x SYSENTER_ESP=%08x SYSENTER_EIP=%08x\n",
               sys[GDB_SYSENTER_CS - GDB_SYS], sys[GDB_SYSENTER_ESP - GDB_SYS],
               sys[GDB_SYSENTER_EIP - GDB_SYS]);
}

static const struct gdb_monitor_cmd monitor_cmds[] = {
    { "info", "info registers: every register, the system ones too", mon_info },
    { "cycles", "modeled cycles and instructions so far", mon_cycles },
    { "cpu", "the CPU model, SEP and the SYSENTER MSRs", mon_cpu },
    { "syscalls", "system calls so far, by path", mon_syscalls },
    { "catch-faults", "[on|off]: stop at a fault of the program's (SIGSEGV)",
      mon_catch_faults },
};

/* ---- running ---- */

static int poll_stub(void *g)
{
    return gdb_poll(g);
}

static struct gdb_stop trap(enum gdb_stop_cause cause, uint32_t addr)
{
    return (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGTRAP, .cause = cause,
                              .addr = addr };
}

static struct gdb_stop stop_reply(struct gdbm *gm, const struct debug_stop *s)
{
    static const enum gdb_stop_cause watch_causes[] = {
        [DEBUG_WATCH_WRITE] = GDB_CAUSE_WATCH,
        [DEBUG_WATCH_READ] = GDB_CAUSE_RWATCH,
        [DEBUG_WATCH_ACCESS] = GDB_CAUSE_AWATCH,
    };
    switch (s->why) {
    case DEBUG_BREAK:
        return trap(s->hw ? GDB_CAUSE_HWBREAK : GDB_CAUSE_SWBREAK, s->addr);
    case DEBUG_WATCH:
        return trap(watch_causes[s->kind], s->addr);
    case DEBUG_SIGNAL:
        return (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = s->signo };
    case DEBUG_FAULT:
        gm->caught = true;
        gm->fault = s->fault;
        gm->fault_cr2 = reg_read(gm->m, UC_X86_REG_CR2);
        return (struct gdb_stop){ .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGSEGV };
    case DEBUG_STEPPED:
        break;
    }
    return trap(GDB_CAUSE_NONE, 0);
}

/* GDB numbers the signals its own way (gdb/signals.def); these are the
 * ones a fault kills a program with. */
static int gdb_signal(int linux_sig)
{
    static const struct { int linux_sig, gdb_sig; } map[] = {
        { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 10 }, { 8, 8 }, { 9, 9 }, { 11, 11 },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].linux_sig == linux_sig)
            return map[i].gdb_sig;
    return GDB_SIGKILL;
}

/* How the run ended, as GDB hears it: an exit status, or a signal (the
 * fault's; SIGXCPU for the instruction budget; SIGABRT for a machine
 * failure or a kernel panic). */
static struct gdb_stop end_reply(const struct machine *m, int status)
{
    switch (m->stop) {
    case STOP_EXIT:
    case STOP_EXEC_ERROR:
        return (struct gdb_stop){ .kind = GDB_STOP_EXITED, .status = status & 0xff };
    case STOP_KILLED:
        return (struct gdb_stop){ .kind = GDB_STOP_KILLED, .signo = gdb_signal(status - 128) };
    case STOP_BUDGET:
        return (struct gdb_stop){ .kind = GDB_STOP_KILLED, .signo = GDB_SIGXCPU };
    default:
        return (struct gdb_stop){ .kind = GDB_STOP_KILLED, .signo = GDB_SIGABRT };
    }
}

static int kill_program(struct machine *m)
{
    m->exit_status = 128 + GDB_SIGKILL;
    machine_notify_exit(m);
    machine_stop(m, STOP_KILLED, "killed by the debugger");
    return m->exit_status;
}

/* gdbstub.h's loop: report a stop and take the client's orders, run,
 * and so on until the program ends or the client kills it. */
static int serve(struct gdbm *gm, bool wait)
{
    struct gdb_stop stop = trap(GDB_CAUSE_NONE, 0);
    bool report = wait;
    for (;;) {
        bool step = false;
        if (report) {
            struct gdb_resume r = gdb_stopped(gm->g, &stop);
            if (r.action == GDB_ACT_KILL)
                return kill_program(gm->m);
            if (r.action == GDB_ACT_DETACH)
                debug_catch_faults(&gm->dbg, false);
            step = r.action == GDB_ACT_STEP;
        }
        struct debug_stop s;
        int status = debug_run(&gm->dbg, step, &s);
        if (status != MACHINE_PAUSED) {
            struct gdb_stop end = end_reply(gm->m, status);
            gdb_stopped(gm->g, &end);
            return status;
        }
        stop = stop_reply(gm, &s);
        /* A client that has left took its points with it: run on. */
        report = gdb_connected(gm->g);
    }
}

int gdb_machine_run(struct machine *m, struct syscall_tracker *sys, const char *spec, bool wait)
{
    char err[256];
    struct gdbm *gm = calloc(1, sizeof *gm);
    if (!gm)
        return machine_fail(m, 125, "gdb: out of memory");
    gm->m = m;
    gm->sys = sys;
    debug_attach(&gm->dbg, m);
    const struct gdb_target target = {
        .ctx = gm,
        .get_reg = get_reg,
        .set_reg = set_reg,
        .read_mem = read_mem,
        .write_mem = write_mem,
        .insert_point = insert_point,
        .remove_point = remove_point,
        .monitor = monitor_cmds,
        .nmonitor = sizeof monitor_cmds / sizeof monitor_cmds[0],
    };
    gm->g = gdb_listen(spec, &target, err, sizeof err);
    if (!gm->g) {
        debug_detach(&gm->dbg);
        free(gm);
        return machine_fail(m, 2, "%s", err);
    }
    fprintf(stderr, "emu: gdb: listening on port %u (target remote :%u; kernel symbols: "
            "kernel-%s.elf)%s\n", gdb_port(gm->g), gdb_port(gm->g), m->kernel->name,
            wait ? "; the machine waits before its first instruction" : "");
    debug_set_poll(&gm->dbg, poll_stub, gm->g);
    int status = serve(gm, wait);
    gdb_close(gm->g);
    debug_detach(&gm->dbg);
    free(gm);
    return status;
}
