/*
 * fork, vfork and clone: a new process with a copy of the caller's
 * address space (the emulator copies the pages: MM_CLONE), descriptor
 * table, signal actions and TLS, and a kernel stack whose top holds a copy
 * of the caller's registers with EAX = 0. The child first runs at
 * ret_from_fork and leaves through iret even when the parent came in by
 * sysenter: that frame returns to SYSENTER_RETURN with the stub's stack, so
 * the child resumes inside the vsyscall stub, as on Linux 2.5.
 *
 * clone takes the flags glibc, musl and busybox use for fork, vfork and
 * posix_spawn. A thread (CLONE_THREAD, or CLONE_VM without CLONE_VFORK) is
 * EINVAL: there are no threads here.
 */
#include "kernel.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Only readers take it (kill's searches): no path here changes the list
 * while another CPU's searches it, under the --smp kernel's big lock. */
rwlock_t tasklist_lock = RW_LOCK_UNLOCKED;

#define CSIGNAL              0x000000ff
#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_PIDFD          0x00001000
#define CLONE_PTRACE         0x00002000
#define CLONE_VFORK          0x00004000
#define CLONE_PARENT         0x00008000
#define CLONE_THREAD         0x00010000
#define CLONE_NEWNS          0x00020000
#define CLONE_SYSVSEM        0x00040000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED       0x00400000
#define CLONE_CHILD_SETTID   0x01000000

#define CLONE_KNOWN (CSIGNAL | CLONE_VM | CLONE_VFORK | CLONE_SETTLS | CLONE_PARENT_SETTID | \
                     CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_DETACHED)

/* Undo a child that never ran. */
static void discard(struct task_struct *p)
{
    exit_files(p);
    if (p->cwd != NO_HANDLE)
        vfs_put(p->cwd);
    if (p->mm)
        mmput(p->mm);
    if (p->sighand)
        sighand_free(p->sighand);
    free_task(p);
}

/* The child's first switch resumes it at ret_from_fork, its stack
 * pointer at its pt_regs (the parent's, EAX = 0). */
static void setup_child_stack(struct task_struct *p, uint32_t newsp)
{
    struct pt_regs *regs = task_pt_regs(p);

    *regs = *task_pt_regs(current);
    regs->eax = 0;
    if (newsp)
        regs->esp = newsp;
    p->thread.esp = (uint32_t)regs;
    p->thread.eip = (uint32_t)ret_from_fork;
}

/* Parent and child share what is left of the parent's time slice, so
 * that forking gains no CPU time; a parent left with nothing ends its
 * slice now. */
static void share_time_slice(struct task_struct *p)
{
    struct task_struct *me = current;

    local_irq_disable();
    p->time_slice = (me->time_slice + 1) >> 1;
    p->first_time_slice = 1;
    me->time_slice >>= 1;
    p->sleep_timestamp = (uint32_t)jiffies;
    if (!me->time_slice) {
        me->time_slice = 1;
        scheduler_tick(0, 0);
    }
    local_irq_enable();
}

static long do_fork(uint32_t flags, uint32_t newsp, uint32_t parent_tid, uint32_t tls,
                    uint32_t child_tid)
{
    struct task_struct *me = current, *p;
    long err = -ENOMEM;

    if (flags & ~CLONE_KNOWN)
        return -EINVAL;
    if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
        return -EINVAL;       /* a thread */
    reap_orphans();
    if (nr_tasks >= TASK_LIMIT)
        return -EAGAIN;
    p = alloc_task();
    if (!p)
        return -EAGAIN;
    p->cwd = NO_HANDLE;
#ifdef CONFIG_SMP
    p->cpus_allowed = me->cpus_allowed;
#endif
    p->sighand = sighand_alloc(me->sighand);
    p->files = dup_files(me->files);
    if (flags & CLONE_VM) {
        p->mm = me->mm;
        p->mm->users++;
    } else {
        p->mm = dup_mm(me->mm);
    }
    if (!p->sighand || !p->files || !p->mm) {
        discard(p);
        return err;
    }
    p->active_mm = p->mm;
    p->cwd = me->cwd;
    vfs_get(p->cwd);
    p->umask = me->umask;
    p->cred = me->cred;
    p->sig_blocked = me->sig_blocked;
    p->prio = me->prio;
    p->static_prio = me->static_prio;
    p->sleep_avg = me->sleep_avg;
    memcpy(p->tls_array, me->tls_array, sizeof(p->tls_array));
    memcpy(p->comm, me->comm, sizeof(p->comm));
    __asm__ volatile("mov %%fs, %0" : "=r"(p->thread.fs));
    __asm__ volatile("mov %%gs, %0" : "=r"(p->thread.gs));
    if ((flags & CLONE_SETTLS) && (err = set_tls_of(p, tls)) != 0) {
        discard(p);
        return err;
    }
    setup_child_stack(p, newsp);

    p->pid = alloc_pid();
    p->ti->pid = p->pid;
    p->pgid = me->pgid;
    p->sid = me->sid;
    p->exit_signal = flags & CSIGNAL;
    p->parent = me;
    if (flags & CLONE_CHILD_SETTID)
        p->set_child_tid = child_tid;
    if (flags & CLONE_CHILD_CLEARTID)
        p->clear_child_tid = child_tid;
    if ((flags & CLONE_PARENT_SETTID) && put_user_u32(p->pid, parent_tid)) {
        discard(p);
        return -EFAULT;
    }
    list_add_tail(&p->sibling, &me->children);
    list_add_tail(&p->tasks, &task_list);
    nr_tasks++;
    share_time_slice(p);
    wake_up_forked_process(p);

    if (flags & CLONE_VFORK) {
        p->vfork_parent = me;
        /* Until the child execs or exits: it releases us (mm_release). */
        while (p->vfork_parent == me)
            sleep_on(&me->wait_vfork, TASK_UNINTERRUPTIBLE);
    }
    return p->pid;
}

long sys_fork(uint32_t a1, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_fork(SIGCHLD, 0, 0, 0, 0);
}

long sys_vfork(uint32_t a1, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_fork(CLONE_VFORK | CLONE_VM | SIGCHLD, 0, 0, 0, 0);
}

/* i386: clone(flags, newsp, parent_tidptr, tls, child_tidptr) */
long sys_clone(uint32_t flags, uint32_t newsp, uint32_t parent_tid,
               uint32_t tls, uint32_t child_tid, uint32_t a6)
{
    return do_fork(flags, newsp, parent_tid, tls, child_tid);
}

/* The child's first moments, on its own stack: CLONE_CHILD_SETTID. */
void fork_child_start(void)
{
    struct task_struct *me = current;

    if (me->set_child_tid) {
        put_user_u32(me->pid, me->set_child_tid);
        me->set_child_tid = 0;
    }
}
