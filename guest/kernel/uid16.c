/*
 * The 16-bit forms of the credential calls (2.5.53's kernel/uid16.c): ids
 * go in and out as old_uid_t; -1 (0xffff) still means "leave it", and an
 * id above 65535 reads as the overflow id 65534.
 */
#include "kernel.h"
#include "sched.h"
#include "syscalls.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define OVERFLOW_ID 65534

static uint32_t low2high(uint32_t id)
{
    id &= 0xffff;
    return id == 0xffff ? 0xffffffffu : id;
}

static uint16_t high2low(uint32_t id)
{
    return id & ~0xffffu ? OVERFLOW_ID : (uint16_t)id;
}

#define GET_ID16(name, field)                                          \
    long sys_##name##16(uint32_t a1, uint32_t a2, uint32_t a3,         \
                        uint32_t a4, uint32_t a5, uint32_t a6)         \
    {                                                                  \
        return high2low(current->cred.field);                          \
    }
GET_ID16(getuid, uid)
GET_ID16(geteuid, euid)
GET_ID16(getgid, gid)
GET_ID16(getegid, egid)

#define SET_ID16(name, n)                                                      \
    long sys_##name##16(uint32_t a, uint32_t b, uint32_t c,                    \
                        uint32_t a4, uint32_t a5, uint32_t a6)                 \
    {                                                                          \
        return sys_##name(low2high(a), n > 1 ? low2high(b) : 0,                \
                          n > 2 ? low2high(c) : 0, 0, 0, 0);                   \
    }
SET_ID16(setuid, 1)
SET_ID16(setgid, 1)
SET_ID16(setreuid, 2)
SET_ID16(setregid, 2)
SET_ID16(setresuid, 3)
SET_ID16(setresgid, 3)

long sys_setfsuid16(uint32_t id, uint32_t a2, uint32_t a3,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    return high2low((uint32_t)sys_setfsuid(low2high(id), 0, 0, 0, 0, 0));
}

long sys_setfsgid16(uint32_t id, uint32_t a2, uint32_t a3,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    return high2low((uint32_t)sys_setfsgid(low2high(id), 0, 0, 0, 0, 0));
}

static long put_three16(uint32_t a, uint32_t b, uint32_t c, uint32_t ua, uint32_t ub,
                        uint32_t uc)
{
    uint16_t v[3] = { high2low(a), high2low(b), high2low(c) };

    if (copy_to_user(ua, &v[0], 2) || copy_to_user(ub, &v[1], 2) ||
        copy_to_user(uc, &v[2], 2))
        return -EFAULT;
    return 0;
}

long sys_getresuid16(uint32_t ur, uint32_t ue, uint32_t us,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    const struct cred *c = &current->cred;

    return put_three16(c->uid, c->euid, c->suid, ur, ue, us);
}

long sys_getresgid16(uint32_t ur, uint32_t ue, uint32_t us,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    const struct cred *c = &current->cred;

    return put_three16(c->gid, c->egid, c->sgid, ur, ue, us);
}

long sys_getgroups16(uint32_t size, uint32_t ulist, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    const struct cred *c = &current->cred;
    uint16_t groups[NGROUPS];

    if ((int32_t)size < 0)
        return -EINVAL;
    if (size) {
        if (size < c->ngroups)
            return -EINVAL;
        for (uint32_t i = 0; i < c->ngroups; i++)
            groups[i] = high2low(c->groups[i]);
        if (copy_to_user(ulist, groups, c->ngroups * sizeof(uint16_t)))
            return -EFAULT;
    }
    return c->ngroups;
}

long sys_setgroups16(uint32_t n, uint32_t ulist, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint16_t groups[NGROUPS];

    if (current->cred.euid != 0)
        return -EPERM;
    if (n > NGROUPS)
        return -EINVAL;
    if (copy_from_user(groups, ulist, n * sizeof(uint16_t)))
        return -EFAULT;
    for (uint32_t i = 0; i < n; i++)
        current->cred.groups[i] = low2high(groups[i]);
    current->cred.ngroups = n;
    return 0;
}
