#include "account/syscalls.h"
#include "machine/charge.h"
#include <string.h>
#include "machine/linux_names.h"
#include "machine/names.h"
#include "cpu/smp.h"
#include "machine/user_memory.h"

#define PT_REGS_EIP 0x28 /* guest/kernel/ptrace.h */

const char *sys_path_name(int path)
{
    static const char *const names[NPATHS] = { "int80", "sysenter", "trap", "user" };
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

const struct ext_work *syscalls_ext_work(const struct syscall_tracker *t)
{
    return &t->task->ext;
}

/* Centicycles the running CPU has spent idle in hlt (modeled time skipped). */
static uint64_t cpu_idle(const struct machine *m)
{
    uint64_t idle = m->cpu_id == 0 ? m->irq.idle_cycles : 0;
    return m->smp ? idle + m->smp->cpus[m->cpu_id].idle_cycles : idle;
}

uint64_t syscalls_run_cycles(const struct task_track *task, const struct machine *m, uint64_t now)
{
    return task->run.cycles + (now - task->seg_start - (cpu_idle(m) - task->seg_idle));
}

/* out[c] = base[c] + (counts[c] - since[c]): restrict lets the compiler
 * take two classes at a time. */
static void counts_since(uint64_t *restrict out, const uint64_t *restrict base,
                         const uint64_t *restrict counts, const uint64_t *restrict since)
{
    for (int c = 0; c < NCLASSES; c++)
        out[c] = base[c] + (counts[c] - since[c]);
}

void syscalls_run_until(const struct task_track *task, const struct machine *m, uint64_t now,
                        const uint64_t counts[NCLASSES], struct ext_work *out)
{
    out->ticks = task->run.ticks;
    out->cycles = syscalls_run_cycles(task, m, now);
    counts_since(out->counts, task->run.counts, counts, task->seg_counts);
}

/* The task's class counts from the since_run snapshot to end_counts, less
 * the external-interrupt work's from since to now, into row. */
static void add_classes(uint64_t *restrict row, const struct task_track *task,
                        const uint64_t *restrict end_counts, const uint64_t *restrict since_run,
                        const uint64_t *restrict now, const uint64_t *restrict since)
{
    const uint64_t *restrict run = task->run.counts, *restrict seg = task->seg_counts;
    for (int c = 0; c < NCLASSES; c++)
        row[c] += run[c] + (end_counts[c] - seg[c]) - since_run[c] - (now[c] - since[c]);
}

void syscalls_add_call(struct syscall_tracker *t, const struct machine *m,
                       const struct syscall_record *r,
                       uint64_t end, const uint64_t end_counts[NCLASSES],
                       const struct ext_work *since_run, const struct ext_work *since)
{
    const struct ext_work *now = &t->task->ext;
    uint64_t ran = syscalls_run_cycles(t->task, m, end);
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
    row->cycles += ran - since_run->cycles - (now->cycles - since->cycles);
    row->ext_ticks += now->ticks - since->ticks;
    row->ext_cycles += now->cycles - since->cycles;
    add_classes(row->classes, t->task, end_counts, since_run->counts, now->counts,
                since->counts);
}

/* The phase ends at now: the external-interrupt work since the record's
 * last phase change goes to it, and the task's time on a CPU less that
 * work is the phase's own. */
static void close_phase(struct task_track *task, const struct machine *m, uint64_t now)
{
    struct syscall_record *r = &task->rec;
    uint64_t ran = syscalls_run_cycles(task, m, now);
    uint64_t done = task->ext.cycles - task->phase_ext;
    uint64_t own = ran - task->phase_run - done;
    task->phase_ext = task->ext.cycles;
    task->phase_run = ran;
    if (task->phase == PHASE_ENTRY) {
        r->ext_entry += done;
        r->own_entry += own;
    } else if (task->phase == PHASE_BODY) {
        r->ext_body += done;
        r->own_body += own;
    } else if (task->phase == PHASE_EXIT) {
        r->ext_exit += done;
        r->own_exit += own;
    }
}

/* The task leaves its CPU at now: its segment there is closed, and an
 * interrupt's work under way too (the rest is done when it is back). */
static void switch_out(struct task_track *task, const struct machine *m, uint64_t now,
                       const uint64_t counts[NCLASSES])
{
    struct ext_work ran;
    syscalls_run_until(task, m, now, counts, &ran);
    task->run = ran;
    task->idle += cpu_idle(m) - task->seg_idle;
    if (task->ext_open) {
        task->ext.cycles += now - task->ext_start;
        for (int c = 0; c < NCLASSES; c++)
            task->ext.counts[c] += counts[c] - task->ext_start_counts[c];
    }
    task->out = true;
    task->out_at = now;
}

/* The task runs again from now on the running CPU: the time since it left
 * is its call's time switched out (0 if it left by another CPU's clock,
 * ahead of this one). */
static void switch_in(struct syscall_tracker *t, struct task_track *task, struct machine *m,
                      uint64_t now, const uint64_t counts[NCLASSES])
{
    task->seg_start = now;
    task->seg_idle = cpu_idle(m);
    memcpy(task->seg_counts, counts, sizeof task->seg_counts);
    if (task->ext_open) {
        task->ext_start = now;
        memcpy(task->ext_start_counts, counts, sizeof task->ext_start_counts);
        task->ext_cpu = m->cpu_id;
    }
    if (task->out && task->active && now > task->out_at)
        task->rec.switched += now - task->out_at;
    /* told of a task that has been in user mode (the idle task never is) */
    if (task->out && now > task->out_at && task->comm[0])
        for (int i = 0; i < t->nlisteners; i++)
            if (t->listeners[i].switched)
                t->listeners[i].switched(t->listeners[i].ctx, task->pid, task->out_at, now);
    if (task->user_open)
        task->user_since = now;
    task->out = false;
}

/* An external interrupt was delivered to the running task: its work
 * starts now, unless the work of an earlier one is still under way (the
 * kernel took it on the way back). */
static void ext_open(struct task_track *task, struct machine *m, const struct delivery_event *e)
{
    if (task->ext_open && task->ext_cpu != m->cpu_id)
        return;
    task->ext.ticks++;
    if (task->ext_open)
        return;
    task->ext_open = true;
    task->ext_user = e->from_cpl != 0;
    task->ext_eip = e->return_eip;
    task->ext_esp = e->return_esp;
    task->ext_rep = m->rep_live && m->rep_addr == e->return_eip;
    task->ext_start = m->cycles;
    task->ext_cpu = m->cpu_id;
    fold_counts(m);
    memcpy(task->ext_start_counts, m->class_count, sizeof task->ext_start_counts);
}

/* Block b of the running task is about to run: is it the interrupted
 * context again? Any user block is (the way back from an interrupt of
 * user mode may lead to a signal handler); in the kernel, the instruction
 * and stack the interrupt left. */
static void tell_handled(struct syscall_tracker *t, struct machine *m);

static void ext_check_close(struct syscall_tracker *t, struct machine *m, const struct block *b,
                            bool kernel)
{
    struct task_track *task = t->task;
    if (!task->ext_open || task->ext_cpu != m->cpu_id)
        return;
    if (kernel && (task->ext_user || b->addr != task->ext_eip ||
                   reg_read(m, UC_X86_REG_ESP) != task->ext_esp))
        return;
    uint64_t now[NCLASSES];
    counts_before(m, b->addr, now);
    task->ext.cycles += m->block_start_cycles - task->ext_start;
    for (int c = 0; c < NCLASSES; c++)
        task->ext.counts[c] += now[c] - task->ext_start_counts[c];
    /* A rep string op the interrupt cut pays its start-up again when it
     * resumes (machine.h): that start-up is the interrupt's doing too. */
    const struct insn *first = &b->insns[0];
    if (task->ext_rep && b->addr == task->ext_eip && b->ninsns && (first->flags & SPECIAL_REP)) {
        int cls = rep_start_class(first->cls);
        task->ext.counts[cls]++;
        task->ext.cycles += m->cpu.cost[cls];
    }
    task->ext_open = false;
    /* back to user mode elsewhere than it was interrupted: a handler */
    if (!kernel && task->ext_user && b->addr != task->ext_eip && !in_vsyscall_page(t, b->addr))
        tell_handled(t, m);
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

/* At __switch_to the kernel already runs on the next task's stack, but
 * the TSS still has the last one's esp0: the key is the stack's top. */
static uint32_t next_task_key(struct machine *m)
{
    uint32_t esp = 0;
    uc_reg_read(m->uc, UC_X86_REG_ESP, &esp);
    return (esp & ~(uint32_t)(THREAD_SIZE - 1)) + THREAD_SIZE;
}

/* The slot of the task with this kernel stack: its own, a free one, or
 * the one unused longest (a task that has exited). Slots are first taken
 * in order, so the search ends at the first never used (tasks_used): a
 * short run does not read, and fault in, the pages of the others. */
static struct task_track *slot_for(struct syscall_tracker *t, uint32_t key)
{
    int n = t->tasks_used < TRACK_TASKS ? t->tasks_used + 1 : TRACK_TASKS;
    struct task_track *oldest = &t->tasks[0];
    for (int i = 0; i < n; i++) {
        struct task_track *s = &t->tasks[i];
        if (s->key == key && (key || s->last_used))
            return s;
        if (s->last_used < oldest->last_used)
            oldest = s;
    }
    if (oldest == &t->tasks[t->tasks_used])
        t->tasks_used++;
    memset(oldest, 0, sizeof *oldest);
    oldest->key = key;
    oldest->born = ++t->tasks_seen;
    return oldest;
}

static void finish(struct syscall_tracker *t, struct machine *m, uint64_t end,
                   const uint64_t end_counts[NCLASSES], enum sys_return how);
static uint32_t ti_word(struct machine *m, uint32_t key, uint32_t offset);
static void tell_exit(struct syscall_tracker *t, const struct exit_record *x);

/* A word of the thread_info at the bottom of the kernel stack whose top is key. */
static uint32_t ti_word(struct machine *m, uint32_t key, uint32_t offset)
{
    uint32_t v = 0;
    const uint8_t *ti = key >= THREAD_SIZE && in_kernel_ram(key - THREAD_SIZE)
                        ? guest_ptr(&m->mem, key - THREAD_SIZE + offset, 4) : NULL;
    if (ti)
        memcpy(&v, ti, 4);
    return v;
}

/* The task's user mode ran from its user_since to now. */
static void tell_user(struct syscall_tracker *t, const struct task_track *task, uint64_t now)
{
    if (!task->user_open || task->user_since >= now || !task->pid)
        return;
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].user_span)
            t->listeners[i].user_span(t->listeners[i].ctx, task->pid, task->user_since, now);
}

/* The task's name, from its task_struct, if it changed since last told. */
static void tell_name(struct syscall_tracker *t, struct machine *m, struct task_track *task)
{
    if (!t->names_wanted)
        return;
    uint32_t ts = ti_word(m, task->key, TI_TASK);
    const uint8_t *at = in_kernel_ram(ts)
                        ? guest_ptr(&m->mem, ts + m->ksyms.task_comm, TASK_COMM_LEN) : NULL;
    const char *comm = (const char *)at;
    if (!comm || !task->pid || !strncmp(comm, task->comm, TASK_COMM_LEN - 1))
        return;
    memcpy(task->comm, comm, TASK_COMM_LEN - 1);
    task->comm[TASK_COMM_LEN - 1] = 0;
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].named)
            t->listeners[i].named(t->listeners[i].ctx, task->pid, task->comm);
}

/* The running task is in user mode from now, with no call in flight. */
static void open_user(struct syscall_tracker *t, struct machine *m, uint64_t now)
{
    struct task_track *task = t->task;
    if (!task->key)
        task->key = running_key(m);
    if (!task->pid)
        task->pid = ti_word(m, task->key, TI_PID);
    task->user_open = true;
    task->user_since = now;
    tell_name(t, m, task);
}

static void tell_exit(struct syscall_tracker *t, const struct exit_record *x)
{
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].exit)
            t->listeners[i].exit(t->listeners[i].ctx, x);
}

/* The kernel runs another task, whose kernel stack's top is key, from now
 * (counts: the classes so far). The one leaving may have exited: its call
 * (exit, or the one a signal ended) is over. */
static void switch_task(struct syscall_tracker *t, struct machine *m, uint32_t key,
                        uint64_t now, const uint64_t counts[NCLASSES])
{
    struct task_track *old = t->task;
    fold_counts(m);     /* counts may be m->class_count */
    if (old)
        tell_user(t, old, now);
    if (old && !(old->key && (ti_word(m, old->key, TI_FLAGS) & TI_FLAG_EXITED)))
        switch_out(old, m, now, counts);
    if (old && old->key && (ti_word(m, old->key, TI_FLAGS) & TI_FLAG_EXITED)) {
        if (old->active)
            finish(t, m, m->block_start_cycles, m->class_count, RET_EXITED);
        /* its wait status: the exit code in bits 8-15, or the signal */
        uint32_t code = ti_word(m, old->key, TI_EXIT_CODE);
        struct exit_record x = { .pid = old->pid, .killed = (code & 0x7f) != 0,
                                 .status = code & 0x7f ? (int)(code & 0x7f)
                                                       : (int)((code >> 8) & 0xff),
                                 .when = m->block_start_cycles };
        if (old->pid)
            tell_exit(t, &x);
        memset(old, 0, sizeof *old);
    }
    t->task = slot_for(t, key);
    if (!t->task->pid && key)
        t->task->pid = ti_word(m, key, TI_PID);
    t->task->last_used = ++t->switches;
    switch_in(t, t->task, m, now, counts);
}

/* An inline call's row is added when it finishes (a page call's when the
 * page returns: syscalls_page.c), from its rec_run. */
static bool row_at_finish(const struct syscall_record *r)
{
    return r->via == VIA_INLINE && r->path != PATH_TRAP;
}

static void begin(struct syscall_tracker *t, struct machine *m, enum sys_path path,
                  uint32_t nr, uint64_t start, const uint64_t start_counts[NCLASSES],
                  uint32_t user_eip)
{
    static const int arg_regs[6] = { UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX,
                                     UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EBP };
    struct task_track *task = t->task;
    struct syscall_record *r = &task->rec;
    /* the first task runs before the kernel has a TSS: learn its stack now */
    if (!task->key)
        task->key = running_key(m);
    if (!task->pid)
        task->pid = ti_word(m, task->key, TI_PID);
    tell_user(t, task, start);
    /* The last call returned to user mode, whose first instruction trapped
     * (an execve's entry point not yet paged in): it was over. */
    if (task->active)
        finish(t, m, start, start_counts, r->ret == RET_SYSEXIT ? RET_SYSEXIT : RET_IRET);
    task->user_open = false;
    memset(r, 0, sizeof *r);
    r->seq = ++t->seq;
    r->pid = task->pid;
    r->cpu = (uint8_t)m->cpu_id;
    if (t->seq == 1)
        t->first_pid = r->pid;
    else if (r->pid != t->first_pid)
        t->several_pids = true;
    r->nr = nr;
    r->path = (uint8_t)path;
    r->start = start;
    r->insns_start = m->insns;
    r->user_eip = user_eip;
    r->via = task->in_vsyscall ? VIA_PAGE : VIA_INLINE;
    task->rec_ext = task->ext;
    task->phase_ext = task->ext.cycles;
    if (row_at_finish(r))
        syscalls_run_until(task, m, start, start_counts, &task->rec_run);
    else
        task->rec_run.cycles = syscalls_run_cycles(task, m, start);
    task->phase_run = task->rec_run.cycles;
    task->rec_idle = task->idle + cpu_idle(m) - task->seg_idle;
    for (int i = 0; i < 6; i++)
        r->args[i] = reg_read(m, arg_regs[i]);
    task->active = true;
    task->result_known = false;
    task->unknown = false;
    task->phase = PHASE_ENTRY;
    t->by_path[path]++;
    t->begun[path][r->via]++;
}

/* The record's arguments are complete: tell whoever looks at them then
 * (while the caller's memory is the one mapped). */
static void announce(struct syscall_tracker *t)
{
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].enter)
            t->listeners[i].enter(t->listeners[i].ctx, &t->task->rec);
}

/* A CPU that first ran before the kernel had its TSS took the slot of
 * key 0, which the first task's first call then named; the CPU's own
 * task is the one of its TSS's esp0 (an idle task, whose timer ticks are
 * no other CPU's task's). */
static void own_task(struct syscall_tracker *t, struct machine *m)
{
    for (int c = 0; c < MAX_CPUS; c++) {
        if (c == t->cpu || !t->cpus[c].seen || t->cpus[c].task != t->task)
            continue;
        uint32_t key = running_key(m);
        if (key && key != t->task->key)
            t->task = slot_for(t, key);
        return;
    }
}

/* --smp: another CPU runs now; its task, its user span and its last
 * block are its own. */
static void follow_cpu(struct syscall_tracker *t, struct machine *m)
{
    if (m->cpu_id == t->cpu)
        return;
    t->cpus[t->cpu].task = t->task;
    t->cpus[t->cpu].prev_last_cost = t->prev_last_cost;
    t->cpus[t->cpu].prev_last_cls = t->prev_last_cls;
    t->cpus[t->cpu].seen = true;
    t->cpu = m->cpu_id;
    if (t->cpus[t->cpu].seen) {
        t->task = t->cpus[t->cpu].task;
        t->prev_last_cost = t->cpus[t->cpu].prev_last_cost;
        t->prev_last_cls = t->cpus[t->cpu].prev_last_cls;
        own_task(t, m);
    } else {
        t->task = slot_for(t, running_key(m));
        t->prev_last_cost = 0;
        t->prev_last_cls = -1;
    }
}

static void tracker_on_delivery(void *ctx, struct machine *m,
                                const struct delivery_event *e)
{
    struct syscall_tracker *t = ctx;
    follow_cpu(t, m);
    fold_counts(m);
    if (e->kind == EVENT_EXTERNAL) {
        /* not the program's doing: no record, and its work is not counted */
        ext_open(t->task, m, e);
        return;
    }
    if (e->from_cpl == 0) {
        if (t->task->active)
            t->task->rec.kernel_faults++;
        return;
    }
    if (e->kind == EVENT_SOFTWARE && e->vector == SYSCALL_VECTOR) {
        /* the int itself is charged after this, at its delivery */
        begin(t, m, PATH_INT80, reg_read(m, UC_X86_REG_EAX), m->cycles, m->class_count,
              e->return_eip);
        t->task->rec.user_esp = e->return_esp;
        announce(t);
        return;
    }
    begin(t, m, PATH_TRAP, (uint32_t)e->vector, m->cycles, m->class_count, e->return_eip);
    t->task->rec.error_code = e->error_code;
    announce(t);
}

static void tracker_on_sysenter(void *ctx, struct machine *m, uint32_t insn_addr)
{
    struct syscall_tracker *t = ctx;
    follow_cpu(t, m);
    uint64_t counts[NCLASSES];
    counts_before(m, insn_addr, counts);
    begin(t, m, PATH_SYSENTER, reg_read(m, UC_X86_REG_EAX),
          insn_addr ? cycles_before(m, insn_addr) : m->cycles, counts, insn_addr);
    /* The sixth argument is on the user stack, where EBP points. */
    uint32_t *arg6 = &t->task->rec.args[5];
    const uint8_t *p = guest_ptr(&m->mem, *arg6, 4);
    if (p && *arg6 < USER_SPACE_TOP - 3)
        memcpy(arg6, p, 4);
    announce(t);
}

static void account(struct syscall_tracker *t)
{
    struct syscall_record *r = &t->task->rec;
    uint64_t ext = r->ext_entry + r->ext_body + r->ext_exit;
    if (r->path == PATH_TRAP) {
        t->trap_cycles += record_own(r);
        return;
    }
    struct syscall_stat *s = r->nr < SYSCALL_STATS_MAX ? &t->stats[r->path][r->nr]
                                                       : &t->stats_beyond[r->path];
    s->calls++;
    s->entry += r->own_entry;
    s->body += r->own_body;
    s->exit += r->own_exit;
    s->total += record_own(r);
    s->switched += r->switched;
    s->ext_ticks += r->ext_ticks;
    s->ext_cycles += ext;
    if (r->ret != RET_EXITED && syscall_failed(r->result))
        s->errors++;
}

static void finish(struct syscall_tracker *t, struct machine *m, uint64_t end,
                   const uint64_t end_counts[NCLASSES], enum sys_return how)
{
    struct syscall_record *r = &t->task->rec;
    close_phase(t->task, m, end);
    r->switched += t->task->idle + cpu_idle(m) - t->task->seg_idle - t->task->rec_idle;
    r->ext_ticks = (uint32_t)(t->task->ext.ticks - t->task->rec_ext.ticks);
    if (how != RET_EXITED && row_at_finish(r))
        syscalls_add_call(t, m, r, end, end_counts, &t->task->rec_run, &t->task->rec_ext);
    r->end = end;
    r->insns_end = m->insns;
    if (how != RET_EXITED) {
        r->ret = (uint8_t)how;
        if (!t->task->result_known)
            r->result = (int32_t)reg_read(m, UC_X86_REG_EAX);
    } else {
        r->ret = RET_EXITED;
    }
    if (how == RET_SYSEXIT)
        t->returns_sysexit++;
    else if (how == RET_IRET)
        t->returns_iret++;
    if (how == RET_IRET && r->path == PATH_SYSENTER)
        t->sysenter_irets++;
    /* Unknown: the kernel ran sys_ni_syscall for it. A known call that
     * returns -ENOSYS on purpose (rseq) is not counted. */
    if (r->path != PATH_TRAP && t->task->unknown) {
        t->enosys++;
        if (r->nr < SYSCALL_STATS_MAX)
            t->enosys_by_nr[r->nr]++;
    }
    account(t);
    t->task->active = false;
    t->task->phase = PHASE_NONE;
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].record)
            t->listeners[i].record(t->listeners[i].ctx, r);
    if (how != RET_EXITED)
        open_user(t, m, end);
}

/* The call has returned to the kernel's exit path (syscall_return,
 * sysenter_return): EAX is its result, what strace shows, before a
 * signal's handler or a restart changes what user mode gets; pt_regs, at
 * ESP, holds the user address it returns to. */
static void note_result(struct task_track *task, struct machine *m)
{
    uint32_t esp = reg_read(m, UC_X86_REG_ESP);
    const uint8_t *eip = guest_ptr(&m->mem, esp + PT_REGS_EIP, 4);
    task->rec.result = (int32_t)reg_read(m, UC_X86_REG_EAX);
    task->result_known = eip != NULL;
    if (eip)
        memcpy(&task->ret_eip, eip, 4);
}

/*
 * User mode starts somewhere other than where the kernel was returning
 * to: a handler, if its frame is at ESP (pretcode, then the signal, which
 * EAX holds too). An rt frame's pinfo points at its siginfo just above.
 */
static void tell_handled(struct syscall_tracker *t, struct machine *m)
{
    uint32_t esp = reg_read(m, UC_X86_REG_ESP), sig = reg_read(m, UC_X86_REG_EAX);
    uint32_t w[3], info[8];
    if (sig < 1 || sig > 64 || user_read(m, esp, w, sizeof w) != sizeof w || w[1] != sig)
        return;
    struct signal_record s = { .pid = t->task->pid, .signo = sig, .handled = true,
                               .when = m->block_start_cycles };
    if (w[2] == esp + 16 && user_read(m, esp + 16, info, sizeof info) == sizeof info &&
        info[0] == sig) {
        s.has_info = true;
        s.code = (int32_t)info[2];
        s.addr = info[3];
        memcpy(s.fields, info + 3, sizeof s.fields);
    }
    for (int i = 0; i < t->nlisteners; i++)
        if (t->listeners[i].signal)
            t->listeners[i].signal(t->listeners[i].ctx, &s);
}

static bool block_contains(const struct block *b, uint32_t addr)
{
    return addr && addr >= b->addr && addr - b->addr < b->size;
}

static void note_last(struct syscall_tracker *t, const struct block *b)
{
    const struct insn *last = &b->insns[b->ninsns - 1];
    t->prev_last_cost = last->cost;
    t->prev_last_cls = insn_charged_later(last) ? -1 : last->cls;
}

/* Most blocks are user code outside any call and the vsyscall page, on
 * the CPU of the last block: none of the edges below, only its last
 * instruction to note. */
static bool nothing_to_track(const struct syscall_tracker *t, const struct machine *m,
                             const struct block *b)
{
    const struct task_track *task = t->task;
    return m->cpu_id == t->cpu && t->user_started && task->user_open &&
           !in_kernel_ram(b->addr) && !in_vsyscall_page(t, b->addr) && !task->active &&
           !task->ext_open &&
           !task->in_vsyscall && !task->in_vclock;
}

static __attribute__((noinline)) void track_block(struct syscall_tracker *t, struct machine *m,
                                                  const struct block *b)
{
    bool kernel = in_kernel_ram(b->addr);
    uint64_t at_block[NCLASSES];

    follow_cpu(t, m);
    if (kernel && b->addr == t->switch_to) {
        uint64_t counts[NCLASSES];
        counts_before(m, b->addr, counts);
        switch_task(t, m, next_task_key(m), m->block_start_cycles, counts);
    }
    struct task_track *task = t->task;
    ext_check_close(t, m, b, kernel);
    /* The counts before a user block are only read at the edges of a call
     * or of the vsyscall page; most user blocks are neither. */
    if (!kernel && (task->active || in_vsyscall_page(t, b->addr) || task->in_vsyscall ||
                    task->in_vclock))
        counts_before(m, b->addr, at_block);
    if (!kernel) {
        if (!t->user_started) {
            t->user_started = true;
            t->boot_end = m->block_start_cycles;
            for (int i = 0; i < t->nlisteners; i++)
                if (t->listeners[i].boot)
                    t->listeners[i].boot(t->listeners[i].ctx, t->boot_end, b->addr);
        }
        /* a task's first user block (a fork's child, the boot program) */
        if (!task->user_open && !task->active)
            open_user(t, m, m->block_start_cycles);
    }
    if (task->active) {
        struct syscall_record *r = &task->rec;
        if (kernel && b->addr == t->ni_syscall)
            task->unknown = true;
        if (!kernel) {
            bool handler = r->path == PATH_TRAP
                           ? b->addr != r->user_eip && !in_vsyscall_page(t, b->addr)
                           : task->result_known && b->addr != task->ret_eip &&
                                 b->addr != task->ret_eip - 2 && !in_vsyscall_page(t, b->addr);
            finish(t, m, m->block_start_cycles, at_block,
                   r->ret == RET_SYSEXIT ? RET_SYSEXIT : RET_IRET);
            if (handler)
                tell_handled(t, m);
        } else if (task->phase == PHASE_ENTRY &&
                   (block_contains(b, t->syscall_call) || block_contains(b, t->sysenter_call))) {
            close_phase(task, m, m->cycles);
            r->body_start = m->cycles;
            task->phase = PHASE_BODY;
        } else if (task->phase == PHASE_BODY &&
                   (b->addr == t->syscall_return || b->addr == t->sysenter_return)) {
            close_phase(task, m, m->block_start_cycles);
            r->exit_start = m->block_start_cycles;
            task->phase = PHASE_EXIT;
            note_result(task, m);
        }
        if (kernel && block_contains(b, t->sysenter_exit))
            r->ret = RET_SYSEXIT;
    }
    if (!kernel) {
        syscalls_track_page(t, m, b, at_block);
    }
    note_last(t, b);
}

static void tracker_on_block(void *ctx, struct machine *m, const struct block *b)
{
    struct syscall_tracker *t = ctx;
    if (nothing_to_track(t, m, b))
        note_last(t, b);
    else
        track_block(t, m, b);
}

/* The machine stops: pid 1 exited or was killed (which ends the machine),
 * or every process waits (a deadlock: none exited). */
static void tracker_on_exit(void *ctx, struct machine *m)
{
    struct syscall_tracker *t = ctx;
    follow_cpu(t, m);
    fold_counts(m);
    const struct program_ending *e = &m->ending;
    if (!t->task->pid)
        t->task->pid = ti_word(m, t->task->key, TI_PID);
    uint32_t pid = t->task->pid;
    if (t->task->active)
        finish(t, m, m->cycles, m->class_count, RET_EXITED);
    tell_user(t, t->task, m->cycles);
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
    if (m->stop != STOP_DEADLOCK && m->stop != STOP_LOCKED)
        tell_exit(t, &x);
}

int syscalls_attach(struct syscall_tracker *t, struct machine *m)
{
    memset(t, 0, sizeof *t);
    return syscalls_attach_zeroed(t, m);
}

int syscalls_attach_zeroed(struct syscall_tracker *t, struct machine *m)
{
    t->prev_last_cls = -1;
    t->syscall_call = m->ksyms.addr[KSYM_syscall_call];
    t->syscall_return = m->ksyms.addr[KSYM_syscall_return];
    t->sysenter_call = m->ksyms.addr[KSYM_sysenter_call];
    t->sysenter_return = m->ksyms.addr[KSYM_sysenter_return];
    t->sysenter_exit = m->ksyms.addr[KSYM_sysenter_exit];
    t->ni_syscall = m->ksyms.addr[KSYM_sys_ni_syscall];
    t->switch_to = m->ksyms.addr[KSYM___switch_to];
    t->page_entry = m->ksyms.addr[KSYM_vsyscall_page_entry];
    t->page_base = m->ksyms.addr[KSYM_vsyscall_page_base];
    t->vclock_gtod = m->ksyms.addr[KSYM_vsyscall_page_gtod];
    t->vclock_clock_gettime = m->ksyms.addr[KSYM_vsyscall_page_clock_gettime];
    t->vclock_retry = m->ksyms.addr[KSYM_vsyscall_page_vgtod_retry];
    switch_task(t, m, running_key(m), m->cycles, m->class_count);
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
    t->names_wanted |= l->named != NULL;
    return 0;
}
