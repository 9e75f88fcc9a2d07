#include "syscalls.h"
#include <string.h>
#include "names.h"

const char *sys_path_name(int path)
{
    static const char *const names[NPATHS] = { "int80", "sysenter", "trap" };
    return path >= 0 && path < NPATHS ? names[path] : "?";
}

const char *sys_return_name(int ret)
{
    static const char *const names[] = { "-", "iret", "sysexit", "exited" };
    return ret >= 0 && ret <= RET_EXITED ? names[ret] : "?";
}

/* The kernel stack's top of the task running now: the TSS's esp0. */
static uint32_t running_key(struct machine *m)
{
    uc_x86_mmr tr = { 0 };
    uint32_t esp0 = 0;
    uc_reg_read(m->uc, UC_X86_REG_TR, &tr);
    const uint8_t *tss = tr.base ? guest_ptr(&m->mem, (uint32_t)tr.base, 8) : NULL;
    if (tss)
        memcpy(&esp0, tss + 4, 4);
    return esp0;
}

/* Its pid, from the thread_info at the bottom of that stack. */
static uint32_t pid_of(struct machine *m, uint32_t key)
{
    uint32_t pid = 0;
    const uint8_t *ti = key >= THREAD_SIZE ? guest_ptr(&m->mem, key - THREAD_SIZE + TI_PID, 4)
                                           : NULL;
    if (ti && in_kernel_ram(key - THREAD_SIZE))
        memcpy(&pid, ti, 4);
    return pid;
}

/* The slot of the task with this kernel stack: its own, a free one, or
 * the one unused longest (a task that has exited). */
static struct task_track *slot_for(struct syscall_tracker *t, uint32_t key)
{
    struct task_track *oldest = &t->tasks[0];
    for (int i = 0; i < TRACK_TASKS; i++) {
        struct task_track *s = &t->tasks[i];
        if (s->key == key && (key || s->last_used))
            return s;
        if (s->last_used < oldest->last_used)
            oldest = s;
    }
    memset(oldest, 0, sizeof *oldest);
    oldest->key = key;
    return oldest;
}

static void finish(struct syscall_tracker *t, struct machine *m, uint64_t end,
                   enum sys_return how);

static uint32_t flags_of(struct machine *m, uint32_t key)
{
    uint32_t flags = 0;
    const uint8_t *ti = key >= THREAD_SIZE && in_kernel_ram(key - THREAD_SIZE)
                        ? guest_ptr(&m->mem, key - THREAD_SIZE + TI_FLAGS, 4) : NULL;
    if (ti)
        memcpy(&flags, ti, 4);
    return flags;
}

/* The kernel is about to run another task. The one leaving may have
 * exited: its call (exit, or the one a signal ended) is over. */
static void switch_task(struct syscall_tracker *t, struct machine *m)
{
    struct task_track *old = t->task;
    if (old && old->key && (flags_of(m, old->key) & TI_FLAG_EXITED)) {
        if (old->active)
            finish(t, m, m->block_start_cycles, RET_EXITED);
        memset(old, 0, sizeof *old);
    }
    t->task = slot_for(t, running_key(m));
    t->task->last_used = ++t->switches;
}

static void begin(struct syscall_tracker *t, struct machine *m, enum sys_path path,
                  uint32_t nr, uint64_t start, uint32_t user_eip)
{
    static const int arg_regs[6] = { UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX,
                                     UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EBP };
    if (t->user_since < start)
        for (int i = 0; i < t->nlisteners; i++)
            if (t->listeners[i].user_span)
                t->listeners[i].user_span(t->listeners[i].ctx, t->user_since, start);
    struct task_track *task = t->task;
    struct syscall_record *r = &task->rec;
    /* the first task runs before the kernel has a TSS: learn its stack now */
    if (!task->key)
        task->key = running_key(m);
    /* The last call returned to user mode, whose first instruction trapped
     * (an execve's entry point not yet paged in): it was over. */
    if (task->active)
        finish(t, m, start, r->ret == RET_SYSEXIT ? RET_SYSEXIT : RET_IRET);
    memset(r, 0, sizeof *r);
    r->seq = ++t->seq;
    if (!task->pid)
        task->pid = pid_of(m, task->key);
    r->pid = task->pid;
    r->nr = nr;
    r->path = (uint8_t)path;
    r->start = start;
    r->insns_start = m->insns;
    r->user_eip = user_eip;
    for (int i = 0; i < 6; i++)
        r->args[i] = reg_read(m, arg_regs[i]);
    task->active = true;
    task->unknown = false;
    task->phase = PHASE_ENTRY;
    t->by_path[path]++;
}

/* The first path argument of call r, copied while the caller's memory is
 * in the window. */
static void capture_path(struct machine *m, struct syscall_record *r)
{
    const struct syscall_info *info = syscall_info(r->nr);
    r->path_arg = 0;
    for (int i = 0; info && i < info->nargs && i < 6; i++) {
        if (info->kind[i] != ARG_PATH)
            continue;
        uint32_t addr = r->args[i], n = 0;
        uint32_t room = addr < USER_SPACE_TOP ? USER_SPACE_TOP - addr : 0;
        const uint8_t *p = guest_ptr(&m->mem, addr, room < sizeof r->path_text ? room
                                                                           : sizeof r->path_text);
        if (!p || addr < USER_SPACE_BASE)
            return;
        while (n < sizeof r->path_text - 1 && n < room && p[n])
            n++;
        memcpy(r->path_text, p, n);
        r->path_text[n] = 0;
        r->path_arg = (uint8_t)(i + 1);
        return;
    }
}

static void tracker_on_delivery(void *ctx, struct machine *m,
                                const struct delivery_event *e)
{
    struct syscall_tracker *t = ctx;
    if (e->from_cpl == 0) {
        if (t->task->active)
            t->task->rec.kernel_faults++;
        return;
    }
    if (e->kind == EVENT_SOFTWARE && e->vector == SYSCALL_VECTOR) {
        begin(t, m, PATH_INT80, reg_read(m, UC_X86_REG_EAX), m->cycles, e->return_eip);
        capture_path(m, &t->task->rec);
        return;
    }
    begin(t, m, PATH_TRAP, (uint32_t)e->vector, m->cycles, e->return_eip);
    t->task->rec.error_code = e->error_code;
}

static void tracker_on_sysenter(void *ctx, struct machine *m, uint32_t insn_addr)
{
    struct syscall_tracker *t = ctx;
    begin(t, m, PATH_SYSENTER, reg_read(m, UC_X86_REG_EAX),
          insn_addr ? cycles_before(m, insn_addr) : m->cycles, insn_addr);
    /* The sixth argument is on the user stack, where EBP points. */
    uint32_t *arg6 = &t->task->rec.args[5];
    const uint8_t *p = guest_ptr(&m->mem, *arg6, 4);
    if (p && *arg6 < USER_SPACE_TOP - 3)
        memcpy(arg6, p, 4);
    capture_path(m, &t->task->rec);
}

static void account(struct syscall_tracker *t)
{
    struct syscall_record *r = &t->task->rec;
    if (r->path == PATH_TRAP || r->nr >= SYSCALL_STATS_MAX)
        return;
    struct syscall_stat *s = &t->stats[r->path][r->nr];
    uint64_t body = r->body_start ? r->body_start : r->end;
    uint64_t exit = r->exit_start ? r->exit_start : r->end;
    s->calls++;
    s->entry += body - r->start;
    s->body += exit - body;
    s->exit += r->end - exit;
    s->total += r->end - r->start;
}

static void finish(struct syscall_tracker *t, struct machine *m, uint64_t end,
                   enum sys_return how)
{
    struct syscall_record *r = &t->task->rec;
    r->end = end;
    r->insns_end = m->insns;
    if (how != RET_EXITED) {
        r->ret = (uint8_t)how;
        r->result = (int32_t)reg_read(m, UC_X86_REG_EAX);
    } else {
        r->ret = RET_EXITED;
    }
    if (how == RET_SYSEXIT)
        t->returns_sysexit++;
    else if (how == RET_IRET)
        t->returns_iret++;
    /* Unknown: the kernel ran sys_ni_syscall for it. A known call that
     * returns -ENOSYS on purpose (rseq) is not counted. */
    if (r->path != PATH_TRAP && t->task->unknown)
        t->enosys++;
    account(t);
    t->task->active = false;
    t->task->phase = PHASE_NONE;
    t->user_since = end;
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].record)
            t->listeners[i].record(t->listeners[i].ctx, r);
}

static bool block_contains(const struct block *b, uint32_t addr)
{
    return addr && addr >= b->addr && addr - b->addr < b->size;
}

static bool in_vsyscall_page(uint32_t addr)
{
    return addr >= VSYSCALL_BASE;
}

/* Calls through the vsyscall page, timed from the call to the return (a
 * process that blocks inside is timed with the others' work in between,
 * as its own clock would show it). */
static void track_vsyscall(struct syscall_tracker *t, struct machine *m,
                           const struct block *b)
{
    struct task_track *task = t->task;
    if (b->addr == VSYSCALL_BASE && !task->in_vsyscall) {
        task->in_vsyscall = true;
        task->vsyscall_start = m->block_start_cycles - t->prev_last_cost;
    } else if (task->in_vsyscall && !in_kernel_ram(b->addr) && !in_vsyscall_page(b->addr)) {
        uint64_t span = m->block_start_cycles - task->vsyscall_start;
        const struct syscall_record *r = &task->rec;
        task->in_vsyscall = false;
        t->vsyscall_calls++;
        t->vsyscall_cycles += span;
        /* the call made inside the span is the last one recorded */
        if (r->path != PATH_TRAP && r->nr < SYSCALL_STATS_MAX) {
            t->vsyscall_by_nr[r->nr].calls++;
            t->vsyscall_by_nr[r->nr].cycles += span;
        }
    }
}

static void tracker_on_block(void *ctx, struct machine *m, const struct block *b)
{
    struct syscall_tracker *t = ctx;
    bool kernel = in_kernel_ram(b->addr);

    if (kernel && b->addr == t->switch_to)
        switch_task(t, m);
    struct task_track *task = t->task;
    if (!kernel) {
        t->user_started = true;
        track_vsyscall(t, m, b);
    }
    if (task->active) {
        struct syscall_record *r = &task->rec;
        if (kernel && b->addr == t->ni_syscall)
            task->unknown = true;
        if (!kernel) {
            finish(t, m, m->block_start_cycles,
                   r->ret == RET_SYSEXIT ? RET_SYSEXIT : RET_IRET);
        } else if (task->phase == PHASE_ENTRY &&
                   (block_contains(b, t->syscall_call) || block_contains(b, t->sysenter_call))) {
            r->body_start = m->cycles;
            task->phase = PHASE_BODY;
        } else if (task->phase == PHASE_BODY &&
                   (b->addr == t->syscall_return || b->addr == t->sysenter_return)) {
            r->exit_start = m->block_start_cycles;
            task->phase = PHASE_EXIT;
        }
        if (kernel && block_contains(b, t->sysenter_exit))
            r->ret = RET_SYSEXIT;
    }
    t->prev_last_cost = b->insns[b->ninsns - 1].cost;
}

static void tracker_on_exit(void *ctx, struct machine *m)
{
    struct syscall_tracker *t = ctx;
    if (t->task->active)
        finish(t, m, m->cycles, RET_EXITED);
}

int syscalls_attach(struct syscall_tracker *t, struct machine *m)
{
    memset(t, 0, sizeof *t);
    t->syscall_call = m->ksyms.addr[KSYM_syscall_call];
    t->syscall_return = m->ksyms.addr[KSYM_syscall_return];
    t->sysenter_call = m->ksyms.addr[KSYM_sysenter_call];
    t->sysenter_return = m->ksyms.addr[KSYM_sysenter_return];
    t->sysenter_exit = m->ksyms.addr[KSYM_sysenter_exit];
    t->ni_syscall = m->ksyms.addr[KSYM_sys_ni_syscall];
    t->switch_to = m->ksyms.addr[KSYM_switch_to_asm];
    switch_task(t, m);
    const struct machine_observer o = {
        .ctx = t, .delivery = tracker_on_delivery, .sysenter = tracker_on_sysenter,
        .block = tracker_on_block, .exit = tracker_on_exit,
    };
    return machine_observe(m, &o);
}

int syscalls_listen(struct syscall_tracker *t, const struct syscall_listener *l)
{
    if (t->nlisteners == SYSCALL_MAX_LISTENERS)
        return -1;
    t->listeners[t->nlisteners++] = *l;
    return 0;
}
