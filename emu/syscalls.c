#include "syscalls.h"
#include <string.h>
#include "linux_names.h"

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

const char *sys_via_name(int via)
{
    return via == VIA_PAGE ? "page" : via == VIA_INLINE ? "inline" : "?";
}

const struct call_row *call_row_of(const struct syscall_tracker *t, uint32_t nr, int path,
                                   int via)
{
    for (int i = 0; i < t->ncall_rows; i++) {
        const struct call_row *r = &t->call_rows[i];
        if (r->nr == nr && r->path == path && r->via == via)
            return r;
    }
    return NULL;
}

/* One call as its caller saw it: cycles and the class counts since start. */
static void add_call(struct syscall_tracker *t, const struct syscall_record *r,
                     uint64_t cycles, const uint64_t start[NCLASSES],
                     const uint64_t end[NCLASSES])
{
    struct call_row *row = (struct call_row *)call_row_of(t, r->nr, r->path, r->via);
    if (!row) {
        if (t->ncall_rows == MAX_CALL_ROWS) {
            t->calls_dropped++;
            return;
        }
        row = &t->call_rows[t->ncall_rows++];
        row->nr = r->nr;
        row->path = r->path;
        row->via = r->via;
    }
    row->calls++;
    row->cycles += cycles;
    for (int c = 0; c < NCLASSES; c++)
        row->classes[c] += end[c] - start[c];
}

/* The process running on the machine. There is one, and the machine does
 * not say which it is: 0 ("not known") until the kernel tells. */
static uint32_t current_pid(struct machine *m)
{
    (void)m;
    return 0;
}

static void note_pid(struct syscall_tracker *t, uint32_t pid)
{
    if (!t->seq)
        t->first_pid = pid;
    else if (pid != t->first_pid)
        t->several_pids = true;
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
    memset(&t->cur, 0, sizeof t->cur);
    t->cur.pid = current_pid(m);
    note_pid(t, t->cur.pid);
    t->cur.seq = ++t->seq;
    t->cur.nr = nr;
    t->cur.path = (uint8_t)path;
    t->cur.start = start;
    t->cur.insns_start = m->insns;
    t->cur.user_eip = user_eip;
    t->cur.via = t->in_vsyscall ? VIA_PAGE : VIA_INLINE;
    for (int i = 0; i < 6; i++)
        t->cur.args[i] = reg_read(m, arg_regs[i]);
    t->active = true;
    t->cur_unknown = false;
    t->phase = PHASE_ENTRY;
    t->by_path[path]++;
    t->begun[path][t->cur.via]++;
}

/* The record's arguments are complete: tell whoever looks at them then. */
static void announce(struct syscall_tracker *t)
{
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].enter)
            t->listeners[i].enter(t->listeners[i].ctx, &t->cur);
}

static void tracker_on_delivery(void *ctx, struct machine *m,
                                const struct delivery_event *e)
{
    struct syscall_tracker *t = ctx;
    if (e->from_cpl == 0) {
        if (t->active)
            t->cur.kernel_faults++;
        return;
    }
    if (e->kind == EVENT_SOFTWARE && e->vector == SYSCALL_VECTOR) {
        /* the int itself is charged after this, at its delivery */
        begin(t, m, PATH_INT80, reg_read(m, UC_X86_REG_EAX), m->cycles, e->return_eip);
        memcpy(t->rec_start_counts, m->class_count, sizeof t->rec_start_counts);
        announce(t);
        return;
    }
    begin(t, m, PATH_TRAP, (uint32_t)e->vector, m->cycles, e->return_eip);
    t->cur.error_code = e->error_code;
    announce(t);
}

static void tracker_on_sysenter(void *ctx, struct machine *m, uint32_t insn_addr)
{
    struct syscall_tracker *t = ctx;
    begin(t, m, PATH_SYSENTER, reg_read(m, UC_X86_REG_EAX),
          insn_addr ? cycles_before(m, insn_addr) : m->cycles, insn_addr);
    counts_before(m, insn_addr, t->rec_start_counts);
    /* The sixth argument is on the user stack, where EBP points. */
    const uint8_t *p = guest_ptr(&m->mem, t->cur.args[5], 4);
    if (p && t->cur.args[5] < USER_SPACE_TOP - 3)
        memcpy(&t->cur.args[5], p, 4);
    announce(t);
}

static void account(struct syscall_tracker *t)
{
    struct syscall_record *r = &t->cur;
    if (r->path == PATH_TRAP) {
        t->trap_cycles += r->end - r->start;
        return;
    }
    struct syscall_stat *s = r->nr < SYSCALL_STATS_MAX ? &t->stats[r->path][r->nr]
                                                       : &t->stats_beyond[r->path];
    uint64_t body = r->body_start ? r->body_start : r->end;
    uint64_t exit = r->exit_start ? r->exit_start : r->end;
    s->calls++;
    s->entry += body - r->start;
    s->body += exit - body;
    s->exit += r->end - exit;
    s->total += r->end - r->start;
    if (r->ret != RET_EXITED && syscall_failed(r->result))
        s->errors++;
}

static void finish(struct syscall_tracker *t, struct machine *m, uint64_t end,
                   const uint64_t end_counts[NCLASSES], enum sys_return how)
{
    struct syscall_record *r = &t->cur;
    if (how != RET_EXITED && r->via == VIA_INLINE && r->path != PATH_TRAP)
        add_call(t, r, end - r->start, t->rec_start_counts, end_counts);
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
    if (r->path != PATH_TRAP && t->cur_unknown) {
        t->enosys++;
        if (r->nr < SYSCALL_STATS_MAX)
            t->enosys_by_nr[r->nr]++;
    }
    account(t);
    t->active = false;
    t->phase = PHASE_NONE;
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

/* Calls through the vsyscall page, timed from the call to the return. */
static void track_vsyscall(struct syscall_tracker *t, struct machine *m,
                           const struct block *b, const uint64_t at_block[NCLASSES])
{
    if (b->addr == VSYSCALL_BASE && !t->in_vsyscall) {
        t->in_vsyscall = true;
        /* from the call, the last instruction of the block before */
        t->vsyscall_start = m->block_start_cycles - t->prev_last_cost;
        memcpy(t->page_start_counts, at_block, sizeof t->page_start_counts);
        if (t->prev_last_cls >= 0)
            t->page_start_counts[t->prev_last_cls]--;
    } else if (t->in_vsyscall && !in_kernel_ram(b->addr) && !in_vsyscall_page(b->addr)) {
        uint64_t span = m->block_start_cycles - t->vsyscall_start;
        t->in_vsyscall = false;
        t->vsyscall_calls++;
        t->vsyscall_cycles += span;
        /* the call made inside the span is the last one recorded */
        if (t->cur.path != PATH_TRAP && t->cur.via == VIA_PAGE && t->cur.ret != RET_EXITED)
            add_call(t, &t->cur, span, t->page_start_counts, at_block);
    }
}

static void tracker_on_block(void *ctx, struct machine *m, const struct block *b)
{
    struct syscall_tracker *t = ctx;
    bool kernel = in_kernel_ram(b->addr);
    uint64_t at_block[NCLASSES];

    if (!kernel) {
        counts_before(m, b->addr, at_block);
        if (!t->user_started) {
            t->user_started = true;
            t->boot_end = t->user_since = m->block_start_cycles;
            for (int i = 0; i < t->nlisteners; i++)
                if (t->listeners[i].boot)
                    t->listeners[i].boot(t->listeners[i].ctx, t->boot_end, b->addr);
        }
    }
    if (t->active) {
        if (kernel && b->addr == t->ni_syscall)
            t->cur_unknown = true;
        if (!kernel) {
            finish(t, m, m->block_start_cycles, at_block,
                   t->cur.ret == RET_SYSEXIT ? RET_SYSEXIT : RET_IRET);
        } else if (t->phase == PHASE_ENTRY &&
                   (block_contains(b, t->syscall_call) || block_contains(b, t->sysenter_call))) {
            t->cur.body_start = m->cycles;
            t->phase = PHASE_BODY;
        } else if (t->phase == PHASE_BODY &&
                   (b->addr == t->syscall_return || b->addr == t->sysenter_return)) {
            t->cur.exit_start = m->block_start_cycles;
            t->phase = PHASE_EXIT;
        }
        if (kernel && block_contains(b, t->sysenter_exit))
            t->cur.ret = RET_SYSEXIT;
    }
    if (!kernel)
        track_vsyscall(t, m, b, at_block);
    const struct insn *last = &b->insns[b->ninsns - 1];
    t->prev_last_cost = last->cost;
    t->prev_last_cls = insn_charged_later(last) ? -1 : last->cls;
}

static void tracker_on_exit(void *ctx, struct machine *m)
{
    struct syscall_tracker *t = ctx;
    const struct program_ending *e = &m->ending;
    uint32_t pid = t->active ? t->cur.pid : current_pid(m);
    if (t->active)
        finish(t, m, m->cycles, m->class_count, RET_EXITED);
    if (e->killed) {
        struct signal_record s = { .pid = pid, .signo = e->signal, .vector = e->vector,
                                   .when = m->cycles };
        fault_siginfo(e->signal, e->vector, e->error_code, e->eip, e->cr2, &s.code, &s.addr);
        for (int i = 0; i < t->nlisteners; i++)
            if (t->listeners[i].signal)
                t->listeners[i].signal(t->listeners[i].ctx, &s);
    }
    struct exit_record x = { .pid = pid, .killed = e->killed,
                             .status = e->killed ? (int)e->signal : m->exit_status,
                             .when = m->cycles };
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].exit)
            t->listeners[i].exit(t->listeners[i].ctx, &x);
}

int syscalls_attach(struct syscall_tracker *t, struct machine *m)
{
    memset(t, 0, sizeof *t);
    t->prev_last_cls = -1;
    t->syscall_call = m->ksyms.addr[KSYM_syscall_call];
    t->syscall_return = m->ksyms.addr[KSYM_syscall_return];
    t->sysenter_call = m->ksyms.addr[KSYM_sysenter_call];
    t->sysenter_return = m->ksyms.addr[KSYM_sysenter_return];
    t->sysenter_exit = m->ksyms.addr[KSYM_sysenter_exit];
    t->ni_syscall = m->ksyms.addr[KSYM_sys_ni_syscall];
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
