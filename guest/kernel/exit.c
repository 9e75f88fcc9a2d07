/*
 * Leaving: exit and exit_group (one thread per process, so the same), the
 * zombie a process becomes until its parent waits for it, orphans going
 * to pid 1, and the wait calls with Linux's status encoding (an exit:
 * status << 8; a signal: its number; no core is ever dumped, so never the
 * 0x80 flag; a stopped child: (signal << 8) | 0x7f once for WUNTRACED,
 * a continued one 0xffff once for WCONTINUED). When the boot program
 * leaves, the machine stops with its status; the other processes go with
 * it, as a shell's caller sees on a real system.
 *
 * init, pid 1, is the boot program's parent and never runs: it has no
 * program of its own, only the loop of Linux's init that waits for any
 * child, which the kernel does for it here (reap_orphans) as soon as a
 * child of init is a zombie that has left its CPU. It is in no task list,
 * so no signal reaches it (kill(1, ...) is ESRCH).
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"


/* The address space a zombie kept loaded until it left the CPU. */
void exit_mm_late(struct task_struct *t)
{
    if (!t->mm && t->active_mm) {
        mmput(t->active_mm);
        t->active_mm = NULL_PTR;
    }
}

/* A vfork parent waits until its child has its own memory or is gone. */
void mm_release(struct task_struct *t)
{
    struct task_struct *parent = t->vfork_parent;

    if (parent) {
        t->vfork_parent = NULL_PTR;
        wake_up(&parent->wait_vfork);
    }
}

void reaper_init(struct task_struct *parent)
{
    struct task_struct *t = child_reaper;

    t->pid = t->pgid = t->sid = 1;
    t->state = TASK_INTERRUPTIBLE;
    t->parent = parent;
    t->group_leader = t;
    INIT_LIST_HEAD(&t->children);
    INIT_LIST_HEAD(&t->sibling);
    INIT_LIST_HEAD(&t->tasks);
    INIT_LIST_HEAD(&t->run_list);
    init_waitqueue(&t->wait_chldexit, "a child to exit (wait)");
    memcpy(t->comm, "init", 5);
}

/*
 * A process group is orphaned when no member but `ignored` has a parent
 * outside it in the same session (init, pid 1, counts as none): nobody
 * there could continue it (2.5.53's will_become_orphaned_pgrp).
 */
static int will_become_orphaned_pgrp(uint32_t pgrp, const struct task_struct *ignored)
{
    struct list_head *l;

    list_for_each(l, &task_list) {
        struct task_struct *p = list_entry(l, struct task_struct, tasks);
        if (p == ignored || p->pgid != pgrp || p->state == TASK_ZOMBIE ||
            p->state == TASK_DEAD || p->parent == child_reaper)
            continue;
        if (p->parent->pgid != pgrp && p->parent->sid == p->sid)
            return 0;
    }
    return 1;
}

int is_orphaned_pgrp(uint32_t pgrp)
{
    int ret;

    read_lock(&tasklist_lock);
    ret = will_become_orphaned_pgrp(pgrp, NULL_PTR);
    read_unlock(&tasklist_lock);
    return ret;
}

static int has_stopped_jobs(uint32_t pgrp)
{
    struct list_head *l;

    list_for_each(l, &task_list) {
        struct task_struct *p = list_entry(l, struct task_struct, tasks);
        if (p->pgid == pgrp && p->state == TASK_STOPPED)
            return 1;
    }
    return 0;
}

/* A group this exit orphans, with a stopped member, gets SIGHUP then
 * SIGCONT (POSIX; 2.5.53's exit_notify), `leaving` being the group's
 * link to its parent's group. */
static void hup_orphaned_pgrp(uint32_t pgrp, const struct task_struct *leaving)
{
    if (will_become_orphaned_pgrp(pgrp, leaving) && has_stopped_jobs(pgrp)) {
        kill_pg(pgrp, SIGHUP);
        kill_pg(pgrp, SIGCONT);
    }
}

/* The children of a dying process go to init; their groups, and the
 * dying one's own, may be orphaned by it. */
static __attribute__((noinline)) void forget_children(struct task_struct *t)
{
    struct task_struct *parent = t->parent;

    if (parent != child_reaper && parent->pgid != t->pgid && parent->sid == t->sid)
        hup_orphaned_pgrp(t->pgid, t);
    while (!list_empty(&t->children)) {
        struct task_struct *c = list_entry(t->children.next, struct task_struct, sibling);
        list_del(&c->sibling);
        c->parent = child_reaper;
        list_add_tail(&c->sibling, &child_reaper->children);
        if (c->pgid != t->pgid && c->sid == t->sid)
            hup_orphaned_pgrp(c->pgid, NULL_PTR);
    }
}

static void release_task_to(struct task_struct *reaper, struct task_struct *t);

/* init's wait loop: its zombies are released once off their CPU. */
void reap_orphans(void)
{
    struct list_head *p, *next;

    list_for_each_safe(p, next, &child_reaper->children) {
        struct task_struct *c = list_entry(p, struct task_struct, sibling);
        if (c->state == TASK_ZOMBIE && c != current && !task_busy(c))
            release_task_to(child_reaper, c);
    }
}

/* The boot program's end is the machine's: the emulator stops with its
 * status. */
static __attribute__((noreturn)) void init_exit(int code)
{
    if (code & 0x7f)
        kill_by_signal(code & 0x7f);
    halt_with_status((code >> 8) & 0xff);
}

void do_exit(int code)
{
    struct task_struct *me = current;

    if (me == init_task)
        init_exit(code);
    if (me->clear_child_tid)
        put_user_u32(0, me->clear_child_tid);
    exit_files(me);
    if (me->cwd != NO_HANDLE) {
        vfs_put(me->cwd);
        me->cwd = NO_HANDLE;
    }
    mm_release(me);
    /* The page directory stays loaded until the switch away: the zombie
     * keeps it in active_mm, and the next task drops it (exit_mm_late). */
    if (me->mm) {
        struct mm_struct *mm = me->mm;
        me->mm = NULL_PTR;
        if (mm != me->active_mm)
            mmput(mm);
    }
    forget_children(me);
    me->exit_code = code;
    me->state = TASK_ZOMBIE;
    me->ti->exit_code = (uint32_t)code;
    me->ti->flags |= TI_FLAG_EXITED;
    if (me->exit_signal == SIGCHLD && me->parent != child_reaper) {
        struct sig_info info = { (code & 0x7f) ? CLD_KILLED : CLD_EXITED,
                                 { me->pid, 0, (code & 0x7f) ? (uint32_t)(code & 0x7f)
                                                             : (uint32_t)(code >> 8) & 0xff } };
        send_signal_info(me->parent, SIGCHLD, &info);
    }
    wake_up(&me->parent->wait_chldexit);
    reap_orphans();
    schedule();
    panic("a zombie ran again");
}

long sys_exit(uint32_t status, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    do_exit((int)((status & 0xff) << 8));
}

/* A waited-for zombie is gone. */
static void release_task_to(struct task_struct *reaper, struct task_struct *t)
{
    list_del(&t->sibling);
    list_del(&t->tasks);
    reaper->cutime += t->utime + t->cutime;
    reaper->cstime += t->stime + t->cstime;
    sched_exit(t);
    t->state = TASK_DEAD;
    nr_tasks--;
    sighand_free(t->sighand);
    free_task(t);
}

static int matches(const struct task_struct *c, int32_t pid)
{
    if (pid > 0)
        return c->pid == (uint32_t)pid;
    if (pid == -1)
        return 1;
    if (pid == 0)
        return c->pgid == current->pgid;
    return c->pgid == (uint32_t)-pid;
}

/* What a wait reports: the pid, wait4's status word, and waitid's
 * si_code and si_status. */
struct wait_result {
    uint32_t pid;
    int status;
    int32_t code;
    uint32_t si_status;
};

/* A zombie: its exit or the signal that killed it. */
static int wait_zombie(struct task_struct *c, uint32_t options, struct wait_result *res)
{
    /* a zombie another CPU has not yet left is not ready (sched.c wakes
     * us when it is) */
    if (!(options & WEXITED) || c->state != TASK_ZOMBIE || task_busy(c))
        return 0;
    res->status = c->exit_code;
    res->code = (c->exit_code & 0x7f) ? CLD_KILLED : CLD_EXITED;
    res->si_status = (c->exit_code & 0x7f) ? (uint32_t)(c->exit_code & 0x7f)
                                           : (uint32_t)(c->exit_code >> 8) & 0xff;
    if (!(options & WNOWAIT))
        release_task_to(current, c);
    return 1;
}

/* Stopped and not yet reported (2.5.53's wait4: (signal << 8) | 0x7f,
 * once). */
static int wait_stopped(struct task_struct *c, uint32_t options, struct wait_result *res)
{
    if (!(options & WUNTRACED) || c->state != TASK_STOPPED || !c->exit_code)
        return 0;
    res->status = (c->exit_code << 8) | 0x7f;
    res->code = CLD_STOPPED;
    res->si_status = (uint32_t)c->exit_code;
    if (!(options & WNOWAIT))
        c->exit_code = 0;
    return 1;
}

/* Continued by SIGCONT and not yet reported: 0xffff, once (later Linux's
 * wait_task_continued; 2.5.53 had no WCONTINUED). */
static int wait_continued(struct task_struct *c, uint32_t options, struct wait_result *res)
{
    if (!(options & WCONTINUED) || !(c->continued & CONT_WAIT) ||
        c->state == TASK_ZOMBIE || c->state == TASK_DEAD)
        return 0;
    res->status = 0xffff;
    res->code = CLD_CONTINUED;
    res->si_status = SIGCONT;
    if (!(options & WNOWAIT))
        c->continued &= ~CONT_WAIT;
    return 1;
}

/* The first child pid selects with something to report that options
 * ask for (WEXITED, WUNTRACED, WCONTINUED; WNOWAIT leaves it to report
 * again); -ECHILD if no child matches, 0 if none is ready and WNOHANG,
 * else it sleeps for one. */
static long do_wait(int32_t pid, uint32_t options, struct wait_result *res)
{
    struct task_struct *me = current;
    struct list_head *p;
    int err;

    for (;;) {
        int found = 0;
        list_for_each(p, &me->children) {
            struct task_struct *c = list_entry(p, struct task_struct, sibling);
            if (!matches(c, pid))
                continue;
            found = 1;
            res->pid = c->pid;
            if (wait_zombie(c, options, res) || wait_stopped(c, options, res) ||
                wait_continued(c, options, res))
                return (long)res->pid;
        }
        if (!found)
            return -ECHILD;
        if (options & WNOHANG)
            return 0;
        if ((err = sleep_on(&me->wait_chldexit, TASK_INTERRUPTIBLE)) != 0)
            return err;
    }
}

long sys_wait4(uint32_t upid, uint32_t ustatus, uint32_t options,
               uint32_t urusage, uint32_t a5, uint32_t a6)
{
    struct wait_result res = { 0, 0, 0, 0 };
    uint32_t ru[18] = { 0 };
    long r;

    if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE))
        return -EINVAL;
    if ((int32_t)upid == INT32_MIN)
        return -ESRCH;
    r = do_wait((int32_t)upid, options | WEXITED, &res);
    if (r <= 0)
        return r;
    if (ustatus && put_user_u32((uint32_t)res.status, ustatus))
        return -EFAULT;
    if (urusage && copy_to_user(urusage, ru, sizeof(ru)))
        return -EFAULT;
    return r;
}

long sys_waitpid(uint32_t upid, uint32_t ustatus, uint32_t options,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return sys_wait4(upid, ustatus, options, 0, 0, 0);
}

/* struct siginfo for SIGCHLD: signo, errno, code, then pid, uid, status. */
struct siginfo_chld {
    int32_t signo, err, code;
    int32_t pid, uid, status;
    uint32_t pad[26];
};

_Static_assert(sizeof(struct siginfo_chld) == 128, "siginfo layout");

long sys_waitid(uint32_t idtype, uint32_t id, uint32_t uinfo,
                uint32_t options, uint32_t urusage, uint32_t a6)
{
    struct wait_result res = { 0, 0, 0, 0 };
    struct siginfo_chld si;
    uint32_t ru[18] = { 0 };
    int32_t pid;
    long r;

    if (options & ~(WNOHANG | WUNTRACED | WEXITED | WCONTINUED | WNOWAIT | __WNOTHREAD |
                    __WALL | __WCLONE))
        return -EINVAL;
    if (!(options & (WEXITED | WUNTRACED | WCONTINUED)))
        return -EINVAL;
    switch (idtype) {
    case P_ALL: pid = -1; break;
    case P_PID: if ((int32_t)id <= 0) return -EINVAL; pid = (int32_t)id; break;
    case P_PGID: if ((int32_t)id < 0) return -EINVAL; pid = -(int32_t)id; break;
    default: return -EINVAL;
    }
    r = do_wait(pid, options, &res);
    if (r < 0)
        return r;
    memset(&si, 0, sizeof(si));
    if (r > 0) {
        si.signo = SIGCHLD;
        si.pid = (int32_t)res.pid;
        si.code = res.code;
        si.status = (int32_t)res.si_status;
    }
    if (uinfo && copy_to_user(uinfo, &si, sizeof(si)))
        return -EFAULT;
    if (urusage && copy_to_user(urusage, ru, sizeof(ru)))
        return -EFAULT;
    return 0;
}
