/* Identity, uname, resource limits, and the project's own call. */
#include "kernel.h"
#include "spinlock.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

long sys_sysemu_args6(uint32_t a, uint32_t b, uint32_t c,
                      uint32_t d, uint32_t e, uint32_t f)
{
    return (long)(a * 1 + b * 3 + c * 5 + d * 7 + e * 11 + f * 13);
}

long sys_getpid(uint32_t a1, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return current->pid;
}

/* As Linux 2.5: current's parent's pid; init's parent is the idle task,
 * pid 0. */
/*
 * As kernel/timer.c's sys_getppid in 2.5.53: the thread group leader's
 * parent's pid. An SMP kernel reads the parent again after a read barrier
 * and starts over if it changed meanwhile (the parent exited and the
 * leader was given to init). The pid is the group's: tgid in 2.5.53, the
 * same as pid here, where there are no threads.
 */
long sys_getppid(uint32_t a1, uint32_t a2, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *me = current;
    struct task_struct *parent = me->group_leader->parent;
    uint32_t pid;

    for (;;) {
        pid = parent->pid;
#ifdef CONFIG_SMP
        struct task_struct *old = parent;
        rmb();
        parent = me->group_leader->parent;
        if (old != parent)
            continue;
#endif
        break;
    }
    return pid;
}

long sys_return_zero(uint32_t a1, uint32_t a2, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    return 0;
}

/* Known calls we choose not to support; unlike sys_ni_syscall, these are
 * not counted as unknown. */
long sys_enosys(uint32_t a1, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return -ENOSYS;
}

long sys_set_tid_address(uint32_t tidptr, uint32_t a2, uint32_t a3,
                         uint32_t a4, uint32_t a5, uint32_t a6)
{
    current->clear_child_tid = tidptr;
    return current->pid;
}

struct utsname {
    char field[6][65];
};

long sys_uname(uint32_t ubuf, uint32_t a2, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    static const char *const values[6] = {
        "Linux", "sysemu", "2.5.53", "#1 sysemu", "i686", "(none)",
    };
    struct utsname u;

    memset(&u, 0, sizeof(u));
    for (int i = 0; i < 6; i++)
        memcpy(u.field[i], values[i], strlen(values[i]));
    return copy_to_user(ubuf, &u, sizeof(u));
}

#define RLIM_NLIMITS     16
#define RLIMIT_STACK     3
#define RLIMIT_NOFILE    7
#define RLIM64_INFINITY  (~(uint64_t)0)

struct rlimit64 {
    uint64_t cur, max;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static struct rlimit64 rlimits[RLIM_NLIMITS] = {
    [0 ... RLIM_NLIMITS - 1] = { RLIM64_INFINITY, RLIM64_INFINITY },
    [RLIMIT_STACK] = { USER_STACK_MAX, USER_STACK_MAX },
    /* Not infinite: some programs close every descriptor up to this. */
    [RLIMIT_NOFILE] = { 1024, 1024 },
};
#pragma GCC diagnostic pop

long sys_prlimit64(uint32_t pid, uint32_t resource, uint32_t unew,
                   uint32_t uold, uint32_t a5, uint32_t a6)
{
    struct rlimit64 new, old;

    if (pid != 0 && pid != current->pid)
        return -ESRCH;
    if (resource >= RLIM_NLIMITS)
        return -EINVAL;
    if (unew) {
        if (copy_from_user(&new, unew, sizeof(new)) != 0)
            return -EFAULT;
        if (new.cur > new.max)
            return -EINVAL;
    }
    old = rlimits[resource];
    if (uold && copy_to_user(uold, &old, sizeof(old)) != 0)
        return -EFAULT;
    if (unew)
        rlimits[resource] = new;
    return 0;
}

long sys_ugetrlimit(uint32_t resource, uint32_t ulim, uint32_t a3,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t lim[2];

    if (resource >= RLIM_NLIMITS)
        return -EINVAL;
    lim[0] = rlimits[resource].cur > 0xffffffffu ? 0xffffffffu
                                                 : (uint32_t)rlimits[resource].cur;
    lim[1] = rlimits[resource].max > 0xffffffffu ? 0xffffffffu
                                                 : (uint32_t)rlimits[resource].max;
    return copy_to_user(ulim, lim, sizeof(lim));
}

/* ---- process groups and sessions ---- */

long sys_getpgid(uint32_t pid, uint32_t a2, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *t = pid ? find_task(pid) : current;

    return t ? (long)t->pgid : -ESRCH;
}

long sys_getpgrp(uint32_t a1, uint32_t a2, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    return current->pgid;
}

long sys_getsid(uint32_t pid, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *t = pid ? find_task(pid) : current;

    return t ? (long)t->sid : -ESRCH;
}

/* Is there a process in group pgid in session sid? */
static int group_in_session(uint32_t pgid, uint32_t sid)
{
    struct list_head *p;

    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (t->pgid == pgid && t->sid == sid && t->state != TASK_DEAD)
            return 1;
    }
    return 0;
}

long sys_setpgid(uint32_t pid, uint32_t pgid, uint32_t a3,
                 uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *me = current, *t;

    if ((int32_t)pgid < 0)
        return -EINVAL;
    t = pid ? find_task(pid) : me;
    if (!t || (t != me && t->parent != me))
        return -ESRCH;
    if (t != me && (t->sid != me->sid))
        return -EPERM;
    if (t != me && t->did_exec)
        return -EACCES;
    if (t->sid == t->pid)
        return -EPERM;         /* a session leader */
    if (!pgid)
        pgid = t->pid;
    if (pgid != t->pid && !group_in_session(pgid, me->sid))
        return -EPERM;
    t->pgid = pgid;
    return 0;
}

long sys_setsid(uint32_t a1, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct task_struct *me = current;
    struct list_head *p;

    list_for_each(p, &task_list) {
        struct task_struct *t = list_entry(p, struct task_struct, tasks);
        if (t->pgid == me->pid && t->state != TASK_DEAD)
            return -EPERM;     /* it would lead a group it already leads */
    }
    me->sid = me->pgid = me->pid;
    return me->sid;
}

/* ---- credentials: the setuid family as 2.5.53's kernel/sys.c ---- */

#define NO_ID 0xffffffffu   /* -1: leave this id as it is */

/* CAP_SETUID and CAP_SETGID: here, an effective uid of root. */
static int capable_setid(void)
{
    return current->cred.euid == 0;
}

static int one_of(uint32_t id, uint32_t a, uint32_t b, uint32_t c)
{
    return id == a || id == b || id == c;
}

#define GET_ID(name, field)                                            \
    long sys_##name(uint32_t a1, uint32_t a2, uint32_t a3,             \
                    uint32_t a4, uint32_t a5, uint32_t a6)             \
    {                                                                  \
        return current->cred.field;                                    \
    }
GET_ID(getuid, uid)
GET_ID(geteuid, euid)
GET_ID(getgid, gid)
GET_ID(getegid, egid)

/* The one rule behind setresuid and setresgid: without the capability,
 * each new id must be one of the three the process has. */
static long set_res(uint32_t *r, uint32_t *e, uint32_t *s, uint32_t *fs,
                    uint32_t nr, uint32_t ne, uint32_t ns)
{
    if (!capable_setid()) {
        if ((nr != NO_ID && !one_of(nr, *r, *e, *s)) ||
            (ne != NO_ID && !one_of(ne, *r, *e, *s)) ||
            (ns != NO_ID && !one_of(ns, *r, *e, *s)))
            return -EPERM;
    }
    if (nr != NO_ID)
        *r = nr;
    if (ne != NO_ID)
        *e = ne;
    if (ns != NO_ID)
        *s = ns;
    *fs = *e;
    return 0;
}

long sys_setresuid(uint32_t r, uint32_t e, uint32_t s,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_res(&c->uid, &c->euid, &c->suid, &c->fsuid, r, e, s);
}

long sys_setresgid(uint32_t r, uint32_t e, uint32_t s,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_res(&c->gid, &c->egid, &c->sgid, &c->fsgid, r, e, s);
}

static long put_three(uint32_t a, uint32_t b, uint32_t c, uint32_t ua, uint32_t ub,
                      uint32_t uc)
{
    if (put_user_u32(a, ua) || put_user_u32(b, ub) || put_user_u32(c, uc))
        return -EFAULT;
    return 0;
}

long sys_getresuid(uint32_t ur, uint32_t ue, uint32_t us,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    const struct cred *c = &current->cred;

    return put_three(c->uid, c->euid, c->suid, ur, ue, us);
}

long sys_getresgid(uint32_t ur, uint32_t ue, uint32_t us,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    const struct cred *c = &current->cred;

    return put_three(c->gid, c->egid, c->sgid, ur, ue, us);
}

/* setreuid/setregid: the real id may become the effective one, the
 * effective one any of the three; the saved id follows a change. */
static long set_re(uint32_t *r, uint32_t *e, uint32_t *s, uint32_t *fs,
                   uint32_t nr, uint32_t ne)
{
    uint32_t old_r = *r, new_r = *r, new_e = *e;

    if (nr != NO_ID) {
        if (!capable_setid() && nr != old_r && nr != *e)
            return -EPERM;
        new_r = nr;
    }
    if (ne != NO_ID) {
        if (!capable_setid() && !one_of(ne, old_r, *e, *s))
            return -EPERM;
        new_e = ne;
    }
    if (nr != NO_ID || (ne != NO_ID && ne != old_r))
        *s = new_e;
    *r = new_r;
    *fs = *e = new_e;
    return 0;
}

long sys_setreuid(uint32_t r, uint32_t e, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_re(&c->uid, &c->euid, &c->suid, &c->fsuid, r, e);
}

long sys_setregid(uint32_t r, uint32_t e, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_re(&c->gid, &c->egid, &c->sgid, &c->fsgid, r, e);
}

/* setuid/setgid: with the capability all three ids, else the effective
 * one, back to the real or saved id. */
static long set_one(uint32_t *r, uint32_t *e, uint32_t *s, uint32_t *fs, uint32_t id)
{
    if (capable_setid())
        *r = *s = id;
    else if (id != *r && id != *s)
        return -EPERM;
    *fs = *e = id;
    return 0;
}

long sys_setuid(uint32_t id, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_one(&c->uid, &c->euid, &c->suid, &c->fsuid, id);
}

long sys_setgid(uint32_t id, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_one(&c->gid, &c->egid, &c->sgid, &c->fsgid, id);
}

/* setfsuid/setfsgid answer the old id, changed or not. */
static long set_fs(uint32_t r, uint32_t e, uint32_t s, uint32_t *fs, uint32_t id)
{
    uint32_t old = *fs;

    if (capable_setid() || one_of(id, r, e, s) || id == old)
        *fs = id;
    return old;
}

long sys_setfsuid(uint32_t id, uint32_t a2, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_fs(c->uid, c->euid, c->suid, &c->fsuid, id);
}

long sys_setfsgid(uint32_t id, uint32_t a2, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct cred *c = &current->cred;

    return set_fs(c->gid, c->egid, c->sgid, &c->fsgid, id);
}

long sys_getgroups(uint32_t size, uint32_t ulist, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    const struct cred *c = &current->cred;

    if ((int32_t)size < 0)
        return -EINVAL;
    if (size) {
        if (size < c->ngroups)
            return -EINVAL;
        if (copy_to_user(ulist, c->groups, c->ngroups * sizeof(uint32_t)))
            return -EFAULT;
    }
    return c->ngroups;
}

long sys_setgroups(uint32_t n, uint32_t ulist, uint32_t a3,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t groups[NGROUPS];

    if (!capable_setid())
        return -EPERM;
    if (n > NGROUPS)
        return -EINVAL;
    if (copy_from_user(groups, ulist, n * sizeof(uint32_t)))
        return -EFAULT;
    memcpy(current->cred.groups, groups, n * sizeof(uint32_t));
    current->cred.ngroups = n;
    return 0;
}
