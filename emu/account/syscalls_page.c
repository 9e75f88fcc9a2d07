/*
 * The calls the caller makes into the vsyscall page, timed from its call
 * to its return: the page's system-call entry (a call row of the call made
 * inside), and the user-space clock of --vgettimeofday (a row of its own,
 * PATH_USER, when it made no system call on the way).
 */
#include "account/syscalls.h"
#include "syscall_nr.h"

/* Calls through the vsyscall page, timed from the call to the return, the
 * task's own time on a CPU (a process that blocks inside is not charged
 * the others' work in between: docs/cost-model.md, rule X). */
static void track_vsyscall(struct syscall_tracker *t, struct machine *m,
                           const struct block *b, const uint64_t at_block[NCLASSES])
{
    struct task_track *task = t->task;
    if (b->addr == t->page_entry && !task->in_vsyscall) {
        task->in_vsyscall = true;
        /* from the call, the last instruction of the block before */
        task->vsyscall_start = m->block_start_cycles - t->prev_last_cost;
        task->page_ext = task->ext;
        syscalls_run_until(task, m, task->vsyscall_start, at_block, &task->page_run);
        if (t->prev_last_cls >= 0)
            task->page_run.counts[t->prev_last_cls]--;
    } else if (task->in_vsyscall && !in_kernel_ram(b->addr) && !in_vsyscall_page(t, b->addr)) {
        uint64_t ran = syscalls_run_cycles(task, m, m->block_start_cycles);
        const struct syscall_record *r = &task->rec;
        task->in_vsyscall = false;
        t->vsyscall_calls++;
        t->vsyscall_cycles += ran - task->page_run.cycles -
                              (task->ext.cycles - task->page_ext.cycles);
        /* the call made inside the span is the last one recorded */
        if (r->path != PATH_TRAP && r->via == VIA_PAGE && r->ret != RET_EXITED)
            syscalls_add_call(t, m, r, m->block_start_cycles, at_block, &task->page_run,
                              &task->page_ext);
    }
}

/* The user-space clock of --vgettimeofday (guest/vsyscall/vgettimeofday.S):
 * a call into one of its entries, timed to the return like a page call; a
 * row of its own (PATH_USER) if it made no system call on the way. */
static void track_vclock(struct syscall_tracker *t, struct machine *m,
                         const struct block *b, const uint64_t at_block[NCLASSES])
{
    struct task_track *task = t->task;
    if (b->addr == t->vclock_retry)
        t->vclock_retries++;
    if (!task->in_vclock && (b->addr == t->vclock_gtod || b->addr == t->vclock_clock_gettime)) {
        task->in_vclock = true;
        task->vclock_nr = b->addr == t->vclock_gtod ? SYS_gettimeofday : SYS_clock_gettime;
        task->vclock_start = m->block_start_cycles - t->prev_last_cost;
        task->vclock_seq = t->seq;
        task->vclock_ext = task->ext;
        syscalls_run_until(task, m, task->vclock_start, at_block, &task->vclock_run);
        if (t->prev_last_cls >= 0)
            task->vclock_run.counts[t->prev_last_cls]--;
    } else if (task->in_vclock && !in_vsyscall_page(t, b->addr)) {
        uint64_t ran = syscalls_run_cycles(task, m, m->block_start_cycles);
        struct syscall_record r = { .nr = task->vclock_nr, .path = PATH_USER,
                                    .via = VIA_PAGE };
        task->in_vclock = false;
        if (t->seq != task->vclock_seq)
            return;
        t->vclock_calls++;
        t->vclock_cycles += ran - task->vclock_run.cycles -
                            (task->ext.cycles - task->vclock_ext.cycles);
        syscalls_add_call(t, m, &r, m->block_start_cycles, at_block, &task->vclock_run,
                          &task->vclock_ext);
    }
}

void syscalls_track_page(struct syscall_tracker *t, struct machine *m, const struct block *b,
                         const uint64_t at_block[NCLASSES])
{
    track_vsyscall(t, m, b, at_block);
    track_vclock(t, m, b, at_block);
}
