/*
 * The structures strace decodes, in its abbreviated form: stat and statx,
 * timespec and timeval, utsname, rlimit, signal sets and sigaction, the TLS
 * descriptor, and the small out-parameters ([N]). The layouts are the
 * i386 kernel's (arch/x86/include/uapi/asm/stat.h, posix_types ...).
 */
#include <string.h>
#include "machine/linux_names.h"
#include "observe/strace_args.h"
#include "syscall_nr.h"
#include "machine/user_memory.h"

static uint32_t u32_at(const uint8_t *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

static void print_rdev(FILE *f, const char *field, uint32_t major, uint32_t minor)
{
    fprintf(f, "%s=makedev(%#x, %#x)", field, major, minor);
}

/* {st_mode=S_IFREG|0644, st_size=32, ...}; a device shows st_rdev. */
static void print_stat_fields(FILE *f, uint32_t mode, uint64_t size, uint64_t rdev, bool old)
{
    uint32_t type = mode & 0170000;
    fputs("{st_mode=", f);
    print_mode(f, mode);
    if (type == 0020000 || type == 0060000) {
        if (old)
            print_rdev(f, ", st_rdev", (uint32_t)(rdev >> 8) & 0xff, (uint32_t)rdev & 0xff);
        else
            print_rdev(f, ", st_rdev", (uint32_t)(rdev & 0xfff00) >> 8,
                       (uint32_t)((rdev & 0xff) | ((rdev >> 12) & 0xfff00)));
    } else {
        fprintf(f, ", st_size=%llu", (unsigned long long)size);
    }
    fputs(", ...}", f);
}

static bool print_stat64(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[96];
    if (user_read(m, addr, b, sizeof b) != sizeof b)
        return false;
    /* st_mode at 16, st_rdev at 32, st_size at 44 */
    print_stat_fields(f, u32_at(b, 16), u64_at(b, 44), u64_at(b, 32), false);
    return true;
}

static bool print_old_stat(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[64];
    if (user_read(m, addr, b, sizeof b) != sizeof b)
        return false;
    /* a 16-bit st_mode at 8, st_rdev at 16, st_size at 20 */
    print_stat_fields(f, u32_at(b, 8) & 0xffff, u32_at(b, 20), u32_at(b, 16), true);
    return true;
}

static bool print_statx(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[256];
    if (user_read(m, addr, b, sizeof b) != sizeof b)
        return false;
    fputs("{stx_mask=", f);
    print_flags(f, statx_masks, u32_at(b, 0), "0");
    fprintf(f, ", stx_attributes=%#llx, stx_mode=", (unsigned long long)u64_at(b, 8));
    print_mode(f, u32_at(b, 28) & 0xffff);
    fprintf(f, ", stx_size=%llu, ...}", (unsigned long long)u64_at(b, 40));
    return true;
}

static bool print_timespec(FILE *f, struct machine *m, uint32_t addr, bool wide)
{
    uint8_t b[16];
    size_t n = wide ? 16 : 8;
    if (user_read(m, addr, b, n) != n)
        return false;
    if (wide)
        fprintf(f, "{tv_sec=%lld, tv_nsec=%lld}", (long long)u64_at(b, 0),
                (long long)(int32_t)u32_at(b, 8));
    else
        fprintf(f, "{tv_sec=%d, tv_nsec=%d}", (int32_t)u32_at(b, 0), (int32_t)u32_at(b, 4));
    return true;
}

static bool print_two_words(FILE *f, struct machine *m, uint32_t addr, const char *a,
                            const char *b_name)
{
    uint8_t b[8];
    if (user_read(m, addr, b, 8) != 8)
        return false;
    fprintf(f, "{%s=%d, %s=%d}", a, (int32_t)u32_at(b, 0), b_name, (int32_t)u32_at(b, 4));
    return true;
}

static bool print_utsname(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[2 * 65];
    if (user_read(m, addr, b, sizeof b) != sizeof b)
        return false;
    fputs("{sysname=", f);
    print_quoted(f, b, strnlen((const char *)b, 65), false, false);
    fputs(", nodename=", f);
    print_quoted(f, b + 65, strnlen((const char *)b + 65, 65), false, false);
    fputs(", ...}", f);
    return true;
}

static void print_rlim(FILE *f, uint64_t v, bool wide)
{
    if (v == (wide ? UINT64_MAX : UINT32_MAX))
        fputs(wide ? "RLIM64_INFINITY" : "RLIM_INFINITY", f);
    else if (v && v % 1024 == 0)
        fprintf(f, "%llu*1024", (unsigned long long)(v / 1024));
    else
        fprintf(f, "%llu", (unsigned long long)v);
}

static bool print_rlimit(FILE *f, struct machine *m, uint32_t addr, bool wide)
{
    uint8_t b[16];
    size_t n = wide ? 16 : 8;
    if (user_read(m, addr, b, n) != n)
        return false;
    fputs("{rlim_cur=", f);
    print_rlim(f, wide ? u64_at(b, 0) : u32_at(b, 0), wide);
    fputs(", rlim_max=", f);
    print_rlim(f, wide ? u64_at(b, 8) : u32_at(b, 4), wide);
    fputc('}', f);
    return true;
}

static bool print_sigset(FILE *f, struct machine *m, uint32_t addr, uint32_t size)
{
    uint64_t set = 0;
    if (size != 8 || user_read(m, addr, &set, 8) != 8)
        return false;
    print_sigset_bits(f, set);
    return true;
}

/* The i386 kernel's struct sigaction: handler, flags, restorer, mask. */
static bool print_sigaction(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[20];
    if (user_read(m, addr, b, sizeof b) != sizeof b)
        return false;
    uint32_t handler = u32_at(b, 0), flags = u32_at(b, 4);
    fputs("{sa_handler=", f);
    if (handler <= 1)
        fputs(handler ? "SIG_IGN" : "SIG_DFL", f);
    else
        fprintf(f, "%#x", handler);
    fputs(", sa_mask=", f);
    print_sigset_bits(f, u64_at(b, 12));
    fputs(", sa_flags=", f);
    print_flags(f, sigact_flags, flags, "0");
    if (flags & 0x04000000) /* SA_RESTORER */
        fprintf(f, ", sa_restorer=%#x", u32_at(b, 8));
    fputc('}', f);
    return true;
}

/* struct user_desc, as the call received it. */
static bool print_user_desc(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[16];
    if (user_read(m, addr, b, sizeof b) != sizeof b)
        return false;
    uint32_t bits = u32_at(b, 12);
    fprintf(f, "{entry_number=%d, base_addr=%#x, limit=%#08x, seg_32bit=%u, contents=%u, "
            "read_exec_only=%u, limit_in_pages=%u, seg_not_present=%u, useable=%u}",
            (int32_t)u32_at(b, 0), u32_at(b, 4), u32_at(b, 8), bits & 1, (bits >> 1) & 3,
            (bits >> 3) & 1, (bits >> 4) & 1, (bits >> 5) & 1, (bits >> 6) & 1);
    return true;
}

/* [N]: one value the call stored. */
static bool print_boxed(FILE *f, struct machine *m, uint32_t addr, bool wide, bool date)
{
    uint8_t b[8];
    size_t n = wide ? 8 : 4;
    if (user_read(m, addr, b, n) != n)
        return false;
    int64_t v = wide ? (int64_t)u64_at(b, 0) : (int32_t)u32_at(b, 0);
    fprintf(f, "[%lld", (long long)v);
    if (date) {
        fputs(" /* ", f);
        print_date(f, v);
        fputs(" */", f);
    }
    fputc(']', f);
    return true;
}

/* A wait status as strace decodes it: [{WIFEXITED(s) && WEXITSTATUS(s) == 0}]. */
static bool print_wait_status(FILE *f, struct machine *m, uint32_t addr)
{
    uint32_t st;
    if (!user_read_u32(m, addr, &st))
        return false;
    uint32_t sig = st & 0x7f, code = (st >> 8) & 0xff;
    fputs("[{", f);
    if (!sig) {
        fprintf(f, "WIFEXITED(s) && WEXITSTATUS(s) == %u", code);
    } else if (sig == 0x7f) {
        fputs("WIFSTOPPED(s) && WSTOPSIG(s) == ", f);
        print_signal(f, code, false);
    } else {
        fputs("WIFSIGNALED(s) && WTERMSIG(s) == ", f);
        print_signal(f, sig, false);
        if (st & 0x80)
            fputs(" && WCOREDUMP(s)", f);
    }
    if (st >> 16)
        fprintf(f, " | 0x%x", st & 0xffff0000u);
    fputs("}]", f);
    return true;
}

static bool print_fd_pair(FILE *f, struct machine *m, uint32_t addr)
{
    uint8_t b[8];
    if (user_read(m, addr, b, 8) != 8)
        return false;
    fprintf(f, "[%d, %d]", (int32_t)u32_at(b, 0), (int32_t)u32_at(b, 4));
    return true;
}

bool strace_struct(FILE *f, struct machine *m, const struct syscall_record *r, int i,
                   bool at_exit)
{
    uint32_t a = r->args[i];
    (void)at_exit;
    switch (r->nr) {
    case SYS_stat64: case SYS_lstat64: case SYS_fstat64:
        return i == 1 && print_stat64(f, m, a);
    case SYS_fstatat64:
        return i == 2 && print_stat64(f, m, a);
    case SYS_stat: case SYS_lstat: case SYS_fstat:
        return i == 1 && print_old_stat(f, m, a);
    case SYS_statx:
        return i == 4 && print_statx(f, m, a);
    case SYS_clock_gettime: case SYS_clock_getres: case SYS_clock_settime:
        return i == 1 && print_timespec(f, m, a, false);
    case SYS_clock_gettime64: case SYS_clock_getres_time64: case SYS_clock_settime64:
        return i == 1 && print_timespec(f, m, a, true);
    case SYS_nanosleep:
        return print_timespec(f, m, a, false);
    case SYS_clock_nanosleep:
        return i >= 2 && print_timespec(f, m, a, false);
    case SYS_clock_nanosleep_time64:
        return i >= 2 && print_timespec(f, m, a, true);
    case SYS_futex:
        return i == 3 && print_timespec(f, m, a, false);
    case SYS_futex_time64:
        return i == 3 && print_timespec(f, m, a, true);
    case SYS_gettimeofday: case SYS_settimeofday:
        return i == 0 ? print_two_words(f, m, a, "tv_sec", "tv_usec")
                      : print_two_words(f, m, a, "tz_minuteswest", "tz_dsttime");
    case SYS_time:
        return print_boxed(f, m, a, false, true);
    case SYS_uname:
        return print_utsname(f, m, a);
    case SYS_ugetrlimit: case SYS_getrlimit: case SYS_setrlimit:
        return i == 1 && print_rlimit(f, m, a, false);
    case SYS_prlimit64:
        return i >= 2 && print_rlimit(f, m, a, true);
    case SYS_rt_sigprocmask:
        return print_sigset(f, m, a, r->args[3]);
    case SYS_rt_sigaction:
        return r->args[3] == 8 && print_sigaction(f, m, a);
    case SYS_set_thread_area: case SYS_get_thread_area:
        return print_user_desc(f, m, a);
    case SYS__llseek:
        return print_boxed(f, m, a, true, false);
    case SYS_wait4: case SYS_waitpid:
        return i == 1 && at_exit && r->result > 0 && print_wait_status(f, m, a);
    case SYS_pipe: case SYS_pipe2:
        return print_fd_pair(f, m, a);
    case SYS_prctl:
        print_user_string(f, m, a, 16);
        return true;
    }
    return false;
}
