/*
 * System calls (the table is syscall_table.c, from ../syscalls.def). User
 * pointers are only ever touched through the uaccess helpers.
 */
#include "kernel.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"


#define MAX_RW_COUNT 0x7ffff000u
#define CHUNK        4096
#define IOV_MAX      1024

/* One bounce buffer: there is one task and system calls do not nest. */
static uint8_t bounce[CHUNK];

uint32_t unknown_syscalls;

long sys_ni_syscall(uint32_t a1, uint32_t a2, uint32_t a3,
                    uint32_t a4, uint32_t a5, uint32_t a6)
{
    unknown_syscalls++;
    return -ENOSYS;
}

long sys_sysemu_args6(uint32_t a, uint32_t b, uint32_t c,
                      uint32_t d, uint32_t e, uint32_t f)
{
    return (long)(a * 1 + b * 3 + c * 5 + d * 7 + e * 11 + f * 13);
}

/* ---- process ---- */

long sys_exit(uint32_t status, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    do_exit(status & 0xff);
}

long sys_getpid(uint32_t a1, uint32_t a2, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    return current->pid;
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
    current->tid_address = tidptr;
    return current->pid;
}

long sys_sched_yield(uint32_t a1, uint32_t a2, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    current->flags |= _TIF_NEED_RESCHED;
    return 0;
}

/* ---- file descriptors 0, 1, 2 ---- */

static long host_io(unsigned port, uint32_t fd, uint32_t len)
{
    struct hc_io io = { fd, (uint32_t)bounce, len, 0 };

    hypercall(port, &io);
    return io.result;
}

long sys_read(uint32_t fd, uint32_t buf, uint32_t count,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t done = 0;

    if (fd > 2)
        return fs_read(fd, buf, count);
    if (fd != 0)
        return -EBADF;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    /* A short chunk means the host had no more for now (a pipe or a
     * terminal): return what we have rather than block for more. */
    while (done < count) {
        uint32_t chunk = count - done < CHUNK ? count - done : CHUNK;
        long n = host_io(HC_PORT_READ, fd, chunk);

        if (n < 0)
            return done ? (long)done : n;
        if (n > (long)chunk)
            panic("read: host returned %ld for %u bytes", n, chunk);
        if (copy_to_user(buf + done, bounce, n) != 0)
            return done ? (long)done : -EFAULT;
        done += n;
        if ((uint32_t)n < chunk)
            break;
    }
    return done;
}

static long do_write(uint32_t fd, uint32_t buf, uint32_t count)
{
    uint32_t done = 0;

    if (fd != 1 && fd != 2)
        return -EBADF;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(buf, count))
        return -EFAULT;
    while (done < count) {
        uint32_t chunk = count - done < CHUNK ? count - done : CHUNK;
        long n;

        if (copy_from_user(bounce, buf + done, chunk) != 0)
            return done ? (long)done : -EFAULT;
        n = host_io(HC_PORT_WRITE, fd, chunk);
        if (n < 0)
            return done ? (long)done : n;
        if (n > (long)chunk)
            panic("write: host returned %ld for %u bytes", n, chunk);
        done += n;
        if ((uint32_t)n < chunk)
            break;
    }
    return done;
}

long sys_write(uint32_t fd, uint32_t buf, uint32_t count,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    return do_write(fd, buf, count);
}

struct iovec32 {
    uint32_t base, len;
};

long sys_writev(uint32_t fd, uint32_t uiov, uint32_t iovcnt,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct iovec32 iov;
    uint32_t total = 0, i;
    long n;

    if (fd != 1 && fd != 2)
        return -EBADF;
    if (iovcnt > IOV_MAX)
        return -EINVAL;
    if (!access_ok(uiov, iovcnt * sizeof(iov)))
        return -EFAULT;

    /* Check every vector before writing anything, as Linux does. */
    for (i = 0; i < iovcnt; i++) {
        if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)) != 0)
            return -EFAULT;
        if (iov.len > MAX_RW_COUNT - total)
            return -EINVAL;
        if (!access_ok(iov.base, iov.len))
            return -EFAULT;
        total += iov.len;
    }

    total = 0;
    for (i = 0; i < iovcnt; i++) {
        if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)) != 0)
            return total ? (long)total : -EFAULT;
        n = do_write(fd, iov.base, iov.len);
        if (n < 0)
            return total ? (long)total : n;
        total += n;
        if ((uint32_t)n < iov.len)
            break;
    }
    return total;
}

long sys_ioctl(uint32_t fd, uint32_t cmd, uint32_t arg,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    /* TCGETS and the rest: the standard streams are host pipes or files,
     * never a terminal of ours; nor is a file of the --root tree. */
    return fs_ioctl(fd);
}

/* ---- time ---- */

long sys_gettimeofday(uint32_t utv, uint32_t utz, uint32_t a3,
                      uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t tv[2], tz[2] = { 0, 0 };

    if (utv) {
        do_gettimeofday(&tv[0], &tv[1]);
        if (copy_to_user(utv, tv, sizeof(tv)) != 0)
            return -EFAULT;
    }
    if (utz && copy_to_user(utz, tz, sizeof(tz)) != 0)
        return -EFAULT;
    return 0;
}

long sys_time(uint32_t ut, uint32_t a2, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t sec, usec;

    do_gettimeofday(&sec, &usec);
    if (ut && put_user_u32(sec, ut) != 0)
        return -EFAULT;
    return sec;
}

#define CLOCK_REALTIME          0
#define CLOCK_REALTIME_COARSE   5
#define CLOCK_REALTIME_ALARM    8
#define CLOCK_SGI_CYCLE         10
#define CLOCK_TAI               11

/* Every clock is derived from gettimeofday; the non-wall clocks count from
 * TSC zero, i.e. from the start of the machine. */
static int read_clock(uint32_t id, uint32_t *sec, uint32_t *nsec)
{
    uint32_t usec;

    if (id > CLOCK_TAI || id == CLOCK_SGI_CYCLE)
        return -EINVAL;
    do_gettimeofday(sec, &usec);
    if (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE &&
        id != CLOCK_REALTIME_ALARM && id != CLOCK_TAI) {
        if (usec < boot->epoch_usec) {
            usec += 1000000;
            *sec -= 1;
        }
        usec -= boot->epoch_usec;
        *sec -= boot->epoch_sec;
    }
    *nsec = usec * 1000;
    return 0;
}

long sys_clock_gettime(uint32_t id, uint32_t uts, uint32_t a3,
                       uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t ts[2];
    int err = read_clock(id, &ts[0], &ts[1]);

    if (err)
        return err;
    return copy_to_user(uts, ts, sizeof(ts));
}

long sys_clock_gettime64(uint32_t id, uint32_t uts, uint32_t a3,
                         uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t sec, nsec;
    int64_t ts[2];
    int err = read_clock(id, &sec, &nsec);

    if (err)
        return err;
    ts[0] = sec;
    ts[1] = nsec;
    return copy_to_user(uts, ts, sizeof(ts));
}

/* ---- identity and limits ---- */

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

/* ---- memory ---- */

#define PROT_READ      0x1
#define PROT_WRITE     0x2
#define PROT_EXEC      0x4
#define PROT_SEM       0x8
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP   0x02000000
#define MAP_SHARED     0x01
#define MAP_PRIVATE    0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE       0x0f
#define MAP_FIXED      0x10
#define MAP_ANONYMOUS  0x20
#define MAP_FIXED_NOREPLACE 0x100000

/* Is no page of [start, start+len) mapped? */
static int range_free(uint32_t start, uint32_t len)
{
    for (uint32_t a = start; a - start < len; a += PAGE_SIZE)
        if (user_range_mapped(a, PAGE_SIZE))
            return 0;
    return 1;
}

/* The highest free range of len bytes below current->mmap_top and above the
 * heap; 0 if there is none. Usually the first try fits: only MAP_FIXED can
 * put pages in the way. */
static uint32_t find_area(uint32_t len)
{
    uint32_t top = current->mmap_top;
    uint32_t floor = PAGE_ALIGN(current->brk);

    if (floor < USER_SPACE_BASE)
        floor = USER_SPACE_BASE;
    while (top >= floor && top - floor >= len) {
        uint32_t start = top - len, a;

        for (a = top; a > start; a -= PAGE_SIZE)
            if (user_range_mapped(a - PAGE_SIZE, PAGE_SIZE))
                break;
        if (a == start)
            return start;
        top = a - PAGE_SIZE;
    }
    return 0;
}

/* A file mapping is a private copy of the file (fs.c), which never changes:
 * the tree is read-only. It is filled through a writable mapping first. */
static long map_file(uint32_t addr, uint32_t len, int writable, uint32_t fd,
                     uint64_t offset)
{
    long err = fs_mmap_fill(fd, addr, len, offset);

    if (!err && !writable)
        err = protect_user_range(addr, len, 0);
    if (err)
        unmap_user_range(addr, len);
    return err;
}

static long do_mmap(uint32_t addr, uint32_t len, uint32_t prot, uint32_t flags,
                    uint32_t fd, uint64_t offset)
{
    uint32_t type = flags & MAP_TYPE;
    int writable = (prot & PROT_WRITE) != 0;
    int file = !(flags & MAP_ANONYMOUS);
    long err;

    if (len == 0)
        return -EINVAL;
    if (len > USER_SPACE_TOP)
        return -ENOMEM;
    len = PAGE_ALIGN(len);
    if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
        return -EINVAL;
    if (file && (err = fs_mmap_check(fd, type != MAP_PRIVATE, writable)) != 0)
        return err;

    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr & (PAGE_SIZE - 1))
            return -EINVAL;
        if (addr < USER_SPACE_BASE)
            return -EPERM;
        if (addr > USER_SPACE_TOP - len)
            return -ENOMEM;
        if (!range_free(addr, len)) {
            if (!(flags & MAP_FIXED))
                return -EEXIST;
            unmap_user_range(addr, len);
        }
    } else {
        addr = find_area(len);
        if (addr == 0)
            return -ENOMEM;
    }
    if (map_user_range(addr, len, writable || file) != 0)
        return -ENOMEM;
    if (file && (err = map_file(addr, len, writable, fd, offset)) != 0)
        return err;
    if (!(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
        current->mmap_top = addr;
    return addr;
}

long sys_mmap2(uint32_t addr, uint32_t len, uint32_t prot,
               uint32_t flags, uint32_t fd, uint32_t pgoff)
{
    return do_mmap(addr, len, prot, flags, fd, (uint64_t)pgoff << PAGE_SHIFT);
}

/* The old mmap takes one pointer to its six arguments. */
long sys_old_mmap(uint32_t uargs, uint32_t a2, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t arg[6];

    if (copy_from_user(arg, uargs, sizeof(arg)) != 0)
        return -EFAULT;
    if (arg[5] & (PAGE_SIZE - 1))
        return -EINVAL;
    return do_mmap(arg[0], arg[1], arg[2], arg[3], arg[4], arg[5]);
}

long sys_munmap(uint32_t addr, uint32_t len, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t top;

    if ((addr & (PAGE_SIZE - 1)) || len == 0 || len > USER_SPACE_TOP)
        return -EINVAL;
    len = PAGE_ALIGN(len);
    if (addr > USER_SPACE_TOP - len)
        return -EINVAL;
    unmap_user_range(addr, len);

    /* Give the space back to find_area if it was at the bottom of the
     * mmap region. */
    top = current->mmap_top;
    if (addr <= top && top < addr + len) {
        top = addr + len;
        while (top < USER_MMAP_TOP && !user_range_mapped(top, PAGE_SIZE))
            top += PAGE_SIZE;
        if (top > USER_MMAP_TOP)
            top = USER_MMAP_TOP;
        current->mmap_top = top;
    }
    return 0;
}

long sys_mprotect(uint32_t addr, uint32_t len, uint32_t prot,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    const uint32_t known = PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM |
                           PROT_GROWSDOWN | PROT_GROWSUP;

    if (addr & (PAGE_SIZE - 1))
        return -EINVAL;
    if (prot & ~known)
        return -EINVAL;
    if (len == 0)
        return 0;
    if (len > USER_SPACE_TOP)
        return -ENOMEM;
    len = PAGE_ALIGN(len);
    if (addr < USER_SPACE_BASE || addr > USER_SPACE_TOP - len)
        return -ENOMEM;
    if (!user_range_mapped(addr, len))
        return -ENOMEM;
    if (protect_user_range(addr, len, (prot & PROT_WRITE) != 0) != 0)
        return -ENOMEM;
    return 0;
}

/* brk: Linux semantics, return the new break or, on failure, the old one. */
long sys_brk(uint32_t newbrk, uint32_t a2, uint32_t a3,
             uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t old = current->brk;
    uint32_t oldend = PAGE_ALIGN(old), newend;

    if (newbrk < current->brk_start || newbrk > current->mmap_top)
        return old;
    newend = PAGE_ALIGN(newbrk);
    if (newend > oldend) {
        if (!range_free(oldend, newend - oldend))
            return old;
        if (map_user_range(oldend, newend - oldend, 1) != 0)
            return old;
    } else if (newend < oldend) {
        unmap_user_range(newend, oldend - newend);
    }
    current->brk = newbrk;
    return newbrk;
}

/* ---- signals: accepted and remembered, never delivered ---- */

#define SIG_DFL    0
#define SIG_IGN    1
#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define SS_ONSTACK  1
#define SS_DISABLE  2
#define SS_AUTODISARM (1u << 31)
#define MINSIGSTKSZ 2048

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

struct stack32 {
    uint32_t sp, flags, size;
};

static struct k_sigaction sigactions[NSIG + 1];
static uint64_t sig_blocked, sig_pending;
static struct stack32 altstack = { 0, SS_DISABLE, 0 };

static uint64_t sigbit(uint32_t sig)
{
    return (uint64_t)1 << (sig - 1);
}

/* Signals whose default action is to ignore them, or to stop: there is no
 * job control here, so stopping is ignoring too. */
static int default_ignored(uint32_t sig)
{
    return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH ||
           (sig >= SIGCONT && sig <= SIGTTOU);
}

static int ignored(uint32_t sig)
{
    uint32_t h = sigactions[sig].handler;

    if (sig == SIGKILL)
        return 0;
    return h == SIG_IGN || (h == SIG_DFL && default_ignored(sig));
}

/*
 * A signal to ourselves. With no delivery, a handler cannot run: a signal
 * that is not ignored kills the program, reported like kill_user does, as
 * exit status 128 + signal. A blocked one waits until it is unblocked.
 */
static void signal_self(uint32_t sig)
{
    if (sig == 0 || ignored(sig))
        return;
    if (sig != SIGKILL && sig != SIGSTOP && (sig_blocked & sigbit(sig))) {
        sig_pending |= sigbit(sig);
        return;
    }
    do_exit(128 + sig);
}

static void deliver_unblocked(void)
{
    uint64_t ready = sig_pending & ~sig_blocked;

    for (uint32_t sig = 1; sig <= NSIG; sig++) {
        if (ready & sigbit(sig)) {
            sig_pending &= ~sigbit(sig);
            signal_self(sig);
        }
    }
}

long sys_rt_sigaction(uint32_t sig, uint32_t uact, uint32_t uoact,
                      uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    struct k_sigaction act;

    if (sigsetsize != 8 || sig < 1 || sig > NSIG)
        return -EINVAL;
    if (uact) {
        if (sig == SIGKILL || sig == SIGSTOP)
            return -EINVAL;
        if (copy_from_user(&act, uact, sizeof(act)) != 0)
            return -EFAULT;
    }
    if (uoact && copy_to_user(uoact, &sigactions[sig], sizeof(act)) != 0)
        return -EFAULT;
    if (uact) {
        sigactions[sig] = act;
        if (ignored(sig))
            sig_pending &= ~sigbit(sig);
    }
    return 0;
}

long sys_rt_sigprocmask(uint32_t how, uint32_t uset, uint32_t uoset,
                        uint32_t sigsetsize, uint32_t a5, uint32_t a6)
{
    const uint64_t unblockable = sigbit(SIGKILL) | sigbit(SIGSTOP);
    uint64_t set, old = sig_blocked;

    if (sigsetsize != 8)
        return -EINVAL;
    if (uset) {
        if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
            return -EINVAL;
        if (copy_from_user(&set, uset, sizeof(set)) != 0)
            return -EFAULT;
    }
    if (uoset && copy_to_user(uoset, &old, sizeof(old)) != 0)
        return -EFAULT;
    if (uset) {
        if (how == SIG_BLOCK)
            sig_blocked |= set;
        else if (how == SIG_UNBLOCK)
            sig_blocked &= ~set;
        else
            sig_blocked = set;
        sig_blocked &= ~unblockable;
        deliver_unblocked();
    }
    return 0;
}

long sys_sigaltstack(uint32_t uss, uint32_t uoss, uint32_t a3,
                     uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct stack32 ss, old = altstack;

    if (uss) {
        uint32_t mode;

        if (copy_from_user(&ss, uss, sizeof(ss)) != 0)
            return -EFAULT;
        mode = ss.flags & ~SS_AUTODISARM;
        if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
            return -EINVAL;
        if (mode == SS_DISABLE) {
            ss.sp = ss.size = 0;
        } else if (ss.size < MINSIGSTKSZ) {
            return -ENOMEM;
        }
    }
    if (uoss && copy_to_user(uoss, &old, sizeof(old)) != 0)
        return -EFAULT;
    if (uss)
        altstack = ss;
    return 0;
}


long sys_kill(uint32_t pid, uint32_t sig, uint32_t a3,
              uint32_t a4, uint32_t a5, uint32_t a6)
{
    /* 0: our process group, -1: everyone we may signal; both are just us. */
    if (pid != 0 && pid != current->pid && pid != 0xffffffffu)
        return -ESRCH;
    if (sig > NSIG)
        return -EINVAL;
    signal_self(sig);
    return 0;
}

long sys_tkill(uint32_t tid, uint32_t sig, uint32_t a3,
               uint32_t a4, uint32_t a5, uint32_t a6)
{
    if ((int32_t)tid <= 0)
        return -EINVAL;
    if (tid != current->pid)
        return -ESRCH;
    if (sig > NSIG)
        return -EINVAL;
    signal_self(sig);
    return 0;
}

long sys_tgkill(uint32_t tgid, uint32_t tid, uint32_t sig,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    if ((int32_t)tgid <= 0 || (int32_t)tid <= 0)
        return -EINVAL;
    if (tgid != current->pid || tid != current->pid)
        return -ESRCH;
    if (sig > NSIG)
        return -EINVAL;
    signal_self(sig);
    return 0;
}

/* ---- randomness: deterministic, seeded from the boot record ---- */

#define GRND_NONBLOCK 0x1
#define GRND_RANDOM   0x2
#define GRND_INSECURE 0x4

static uint32_t rng[4];
static int rng_seeded;

static void rng_seed(void)
{
    memcpy(rng, boot->random, sizeof(rng));
    if ((rng[0] | rng[1] | rng[2] | rng[3]) == 0)
        rng[0] = 0x9e3779b9;
    rng_seeded = 1;
}

/* Marsaglia's xorshift128. */
static uint32_t rng_next(void)
{
    uint32_t t = rng[3], s = rng[0];

    rng[3] = rng[2];
    rng[2] = rng[1];
    rng[1] = s;
    t ^= t << 11;
    t ^= t >> 8;
    rng[0] = t ^ s ^ (s >> 19);
    return rng[0];
}

long sys_getrandom(uint32_t ubuf, uint32_t count, uint32_t flags,
                   uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t done = 0;

    if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
        return -EINVAL;
    if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
        return -EINVAL;
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    if (!access_ok(ubuf, count))
        return -EFAULT;
    if (!rng_seeded)
        rng_seed();
    while (done < count) {
        uint32_t chunk = count - done < CHUNK ? count - done : CHUNK;

        for (uint32_t i = 0; i < chunk; i += 4) {
            uint32_t r = rng_next();
            memcpy(bounce + i, &r, 4);
        }
        if (copy_to_user(ubuf + done, bounce, chunk) != 0)
            return done ? (long)done : -EFAULT;
        done += chunk;
    }
    return done;
}

/* Only the random generator wants the boot record. */
void syscall_init(void)
{
    rng_seed();
}
