#define _GNU_SOURCE /* asprintf, open_memstream */
#include "observe/strace_args.h"
#include "machine/machine.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "linux_abi.h"
#include "machine/linux_names.h"
#include "machine/names.h"
#include "syscall_nr.h"
#include "machine/user_memory.h"

#define PATH_MAX_SHOWN 4096
#define FUTEX_CMD_MASK 127
#define FUTEX_PRIVATE 128

/* ---- one argument ---- */

static const struct syscall_info *info_of(uint32_t nr)
{
    return syscall_info(nr);
}

static bool is_call(uint32_t nr, uint32_t a, uint32_t b)
{
    return nr == a || nr == b;
}

static void print_open_flags(FILE *f, uint32_t v)
{
    fputs(xlat_name(open_access_modes, v & 3), f);
    if (v & ~3u) {
        fputc('|', f);
        print_flags(f, open_flags, v & ~3u, NULL);
    }
}

/* The text of an output buffer, once the call has filled it. */
static void print_buffer_out(FILE *f, struct machine *m, const struct syscall_record *r, int i)
{
    uint32_t addr = r->args[i], count = i < 5 ? r->args[i + 1] : 0;
    uint32_t got = (uint32_t)r->result < count ? (uint32_t)r->result : count;
    if (r->ret == RET_EXITED || syscall_failed(r->result)) {
        print_addr(f, addr);
    } else if (r->nr == SYS_getcwd) {
        print_user_string(f, m, addr, PATH_MAX_SHOWN);
    } else if (is_call(r->nr, SYS_readlink, SYS_readlinkat)) {
        print_user_bytes(f, m, addr, got, PATH_MAX_SHOWN, false);
    } else if (r->nr == SYS_getrandom) {
        print_user_bytes(f, m, addr, got, STRACE_STRLEN, true);
    } else if (is_call(r->nr, SYS_getdents, SYS_getdents64)) {
        /* struct linux_dirent(64): d_reclen after the ino and offset */
        uint32_t entries = 0, off = 0, reclen_at = r->nr == SYS_getdents ? 8 : 16;
        while (off + reclen_at + 2 <= got && entries < 100000) {
            uint16_t reclen = 0;
            if (user_read(m, addr + off + reclen_at, &reclen, 2) != 2 || !reclen)
                break;
            off += reclen;
            entries++;
        }
        fprintf(f, "%#x /* %u entries */", addr, entries);
    } else {
        print_user_bytes(f, m, addr, got, STRACE_STRLEN, false);
    }
}

static void print_iovec(FILE *f, struct machine *m, const struct syscall_record *r, int i,
                        bool out)
{
    uint32_t addr = r->args[i], n = i < 5 ? r->args[i + 1] : 0;
    uint32_t left = out ? (uint32_t)r->result : UINT32_MAX;
    if (!addr || (out && syscall_failed(r->result))) {
        print_addr(f, addr);
        return;
    }
    fputc('[', f);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t iov[2];
        if (k == STRACE_STRLEN) {
            fputs(", ...", f);
            break;
        }
        if (user_read(m, addr + 8 * k, iov, 8) != 8) {
            fprintf(f, "%s%#x", k ? ", ... /* " : "", addr + 8 * k);
            if (k)
                fputs(" */", f);
            break;
        }
        fprintf(f, "%s{iov_base=", k ? ", " : "");
        uint32_t len = iov[1] < left ? iov[1] : left;
        print_user_bytes(f, m, iov[0], len, STRACE_STRLEN, false);
        fprintf(f, ", iov_len=%u}", iov[1]);
        if (out)
            left -= len;
    }
    fputc(']', f);
}

static void print_strv(FILE *f, struct machine *m, uint32_t addr, bool count_only)
{
    uint32_t p, n = 0;
    if (!addr || !user_read_u32(m, addr, &p)) {
        print_addr(f, addr);
        return;
    }
    if (count_only) {
        while (n < 100000 && user_read_u32(m, addr + 4 * n, &p) && p)
            n++;
        fprintf(f, "%#x /* %u var%s */", addr, n, n == 1 ? "" : "s");
        return;
    }
    fputc('[', f);
    for (; n < STRACE_STRLEN && user_read_u32(m, addr + 4 * n, &p) && p; n++) {
        if (n)
            fputs(", ", f);
        print_user_string(f, m, p, STRACE_STRLEN);
    }
    if (n == STRACE_STRLEN)
        fputs(", ...", f);
    fputc(']', f);
}

static void print_futex_op(FILE *f, uint32_t op)
{
    const char *name = xlat_name(futex_ops, op & FUTEX_CMD_MASK);
    if (!name) {
        fprintf(f, "%#x /* FUTEX_??? */", op);
        return;
    }
    fprintf(f, "%s%s", name, op & FUTEX_PRIVATE ? "_PRIVATE" : "");
    op &= ~(uint32_t)(FUTEX_CMD_MASK | FUTEX_PRIVATE);
    if (op) {
        fputc('|', f);
        print_flags(f, futex_flags, op, NULL);
    }
}

/* Argument i of r by its kind; at_exit: the call has returned. */
static void print_arg(FILE *f, struct machine *m, const struct syscall_record *r, int i,
                      int kind, bool at_exit)
{
    uint32_t v = r->args[i];
    switch (kind) {
    case ARG_INT: case ARG_PID: case ARG_FD: fprintf(f, "%d", (int32_t)v); break;
    case ARG_UINT: fprintf(f, "%u", v); break;
    case ARG_HEX: fprintf(f, "%#x", v); break;
    case ARG_ADDR: print_addr(f, v); break;
    case ARG_DIRFD:
        if ((int32_t)v == -100)
            fputs("AT_FDCWD", f);
        else
            fprintf(f, "%d", (int32_t)v);
        break;
    case ARG_PATH: print_user_string(f, m, v, PATH_MAX_SHOWN); break;
    case ARG_STR: print_user_string(f, m, v, STRACE_STRLEN); break;
    case ARG_STRV: print_strv(f, m, v, r->nr == SYS_execve ? i == 2 : i == 3); break;
    case ARG_BUF_IN:
        print_user_bytes(f, m, v, i < 5 ? r->args[i + 1] : 0, STRACE_STRLEN, false);
        break;
    case ARG_BUF_OUT: print_buffer_out(f, m, r, i); break;
    case ARG_IOVEC: print_iovec(f, m, r, i, at_exit); break;
    case ARG_PTR_IN: case ARG_PTR_OUT: case ARG_PTR_INOUT:
        if (!v || (kind != ARG_PTR_IN && at_exit && syscall_failed(r->result)) ||
            !strace_struct(f, m, r, i, at_exit))
            print_addr(f, v);
        break;
    case ARG_OPEN_FLAGS: print_open_flags(f, v); break;
    case ARG_AT_FLAGS:
        if (r->nr == SYS_statx) {
            fputs(xlat_name(statx_sync_types, v & 0x6000) ? xlat_name(statx_sync_types, v & 0x6000)
                                                          : "0x6000",
                  f);
            v &= ~0x6000u;
            if (!v)
                break;
            fputc('|', f);
        }
        print_flags(f, at_flags, v, NULL);
        break;
    case ARG_MODE: print_mode(f, v); break;
    case ARG_ACCESS_MODE: print_flags(f, access_flags, v, "F_OK"); break;
    case ARG_WHENCE: print_xlat(f, whence_names, v, "SEEK_???"); break;
    case ARG_FCNTL_CMD: print_xlat(f, fcntl_cmds, v, "F_???"); break;
    case ARG_IOCTL_CMD: print_xlat(f, ioctl_cmds, v, "_IOC_???"); break;
    case ARG_PROT: print_flags(f, prot_flags, v, "PROT_NONE"); break;
    case ARG_MMAP_FLAGS: {
        /* the sharing type is a number in the low nibble, then flags */
        const char *type = (v & 0xf) && (v & 0xf) <= 3 ? xlat_name(mmap_flags, v & 0xf) : NULL;
        if (type)
            fputs(type, f);
        else if (v & 0xf)
            fprintf(f, "%#x", v & 0xf);
        if ((v & 0xf) && (v & ~0xfu))
            fputc('|', f);
        if (v & ~0xfu || !(v & 0xf))
            print_flags(f, mmap_flags + 3, v & ~0xfu, "0");
        break;
    }
    case ARG_SIGNAL: print_signal(f, v, false); break;
    case ARG_SIGMASK_HOW: print_xlat(f, sigmask_hows, v, "SIG_???"); break;
    case ARG_CLOCK: print_xlat(f, clock_names, v, "CLOCK_???"); break;
    case ARG_ITIMER: print_xlat(f, itimer_names, v, "ITIMER_???"); break;
    case ARG_WAIT_OPTIONS: print_flags(f, wait_flags, v, "0"); break;
    case ARG_CLONE_FLAGS:
        if (v & ~0xffu || !v)
            print_flags(f, clone_flags, v & ~0xffu, NULL);
        if (v & 0xff) {
            if (v & ~0xffu)
                fputc('|', f);
            print_signal(f, v & 0xff, false);
        }
        break;
    case ARG_FUTEX_OP: print_futex_op(f, v); break;
    case ARG_RLIMIT: print_xlat(f, rlimit_names, v, "RLIMIT_???"); break;
    case ARG_PRCTL_OP: print_xlat(f, prctl_ops, v, "PR_???"); break;
    case ARG_LO32: case ARG_HI32: default: fprintf(f, "%#x", v); break;
    }
}

/* ---- which arguments, and when ---- */

static bool written_by_call(uint32_t nr, int kind)
{
    if (kind == ARG_IOVEC)
        return nr == SYS_readv || nr == SYS_preadv;
    if (nr == SYS_set_thread_area)
        return false;
    return kind == ARG_BUF_OUT || kind == ARG_PTR_OUT || kind == ARG_PTR_INOUT;
}

/* The kinds strace shows for r, where they depend on another argument. */
static int shown_kinds(const struct syscall_record *r, const struct syscall_info *s,
                       uint8_t kind[6])
{
    int n = s->nargs;
    memcpy(kind, s->kind, 6);
    uint32_t op = r->args[1];
    switch (r->nr) {
    case SYS_open:
        return r->args[1] & (LINUX_O_CREAT | LINUX___O_TMPFILE) ? 3 : 2;
    case SYS_openat:
        return r->args[2] & (LINUX_O_CREAT | LINUX___O_TMPFILE) ? 4 : 3;
    case SYS_fcntl: case SYS_fcntl64:
        switch (op) {
        case 1: case 3: case 9: case 11: case 1025: case 1032: case 1034: return 2;
        case 2: kind[2] = ARG_INT; return 3;   /* FD_CLOEXEC: below */
        case 4: kind[2] = ARG_OPEN_FLAGS; return 3;
        case 0: case 8: case 10: case 1024: case 1026: case 1030: case 1031: case 1033:
            kind[2] = ARG_INT;
            return 3;
        default: kind[2] = ARG_ADDR; return 3;
        }
    case SYS_futex: case SYS_futex_time64:
        op &= FUTEX_CMD_MASK;
        return op == 0 ? 4 : op == 1 ? 3 : n;
    case SYS_prctl:
        op = r->args[0];
        if (op == 15 || op == 16) {
            kind[1] = op == 15 ? ARG_STR : ARG_PTR_OUT;
            return 2;
        }
        if (op >= 1 && op <= 4) {
            kind[1] = ARG_INT;
            return op == 3 ? 1 : 2;
        }
        return n;
    }
    return n;
}

static char *format_arg(struct machine *m, const struct syscall_record *r, int i, int kind,
                        bool at_exit)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    if (r->nr == SYS_fcntl64 || r->nr == SYS_fcntl) {
        if (i == 2 && r->args[1] == 2) {
            print_flags(f, fd_flags, r->args[2], "0");
            fclose(f);
            return text;
        }
    }
    if (r->nr == SYS_mmap2 && i == 5)
        fprintf(f, "%#llx", (unsigned long long)r->args[5] * 4096);
    else if (r->nr == SYS_pipe2 && i == 1)
        print_flags(f, open_flags, r->args[1], "0");
    else if (r->nr == SYS_getrandom && i == 2)
        print_flags(f, grnd_flags, r->args[2], "0");
    else if (r->nr == SYS_statx && i == 3)
        print_flags(f, statx_masks, r->args[3], "0");
    else if (r->nr == SYS_prctl && i == 1 && r->args[0] == 16 && syscall_failed(r->result))
        print_addr(f, r->args[1]);
    else
        print_arg(f, m, r, i, kind, at_exit);
    fclose(f);
    return text;
}

/* sigreturn's one argument, as strace shows it: the mask its frame puts
 * back ({mask=[]}), read at the caller's stack (int $0x80 only). The rt
 * frame's ucontext mask is 248 bytes above it (the handler's return popped
 * pretcode); the old frame's sigcontext oldmask 80, its extramask 200
 * (the retcode popped the signal number too). */
static char *sigreturn_text(struct machine *m, const struct syscall_record *r)
{
    uint32_t lo, hi;
    bool rt = r->nr == SYS_rt_sigreturn;
    char *text = NULL;
    size_t len = 0;
    if (!r->user_esp || !user_read_u32(m, r->user_esp + (rt ? 248 : 80), &lo) ||
        !user_read_u32(m, r->user_esp + (rt ? 252 : 200), &hi))
        return strdup("{mask=?}");
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fputs("{mask=", f);
    print_sigset_bits(f, (uint64_t)hi << 32 | lo);
    fputc('}', f);
    fclose(f);
    return text;
}

/* clone(flags, stack, parent_tid, tls, child_tid), shown by name as strace
 * does, the pointers only where the flags use them. */
static void clone_args(struct strace_call *c, const struct syscall_record *r)
{
    static const struct { uint32_t flags; int arg; const char *name; } opt[] = {
        { 0x00100000, 2, "parent_tid" },                /* CLONE_PARENT_SETTID */
        { 0x00080000, 3, "tls" },                       /* CLONE_SETTLS */
        { 0x01200000, 4, "child_tidptr" },              /* CLONE_CHILD_{CLEAR,SET}TID */
    };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    fputs("child_stack=", f);
    print_addr(f, r->args[1]);
    fputs(", flags=", f);
    print_arg(f, NULL, r, 0, ARG_CLONE_FLAGS, false);
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (r->args[0] & opt[i].flags) {
            fprintf(f, ", %s=", opt[i].name);
            print_addr(f, r->args[opt[i].arg]);
        }
    fclose(f);
    c->nargs = 1;
    c->text[0] = text;
}

void strace_call_enter(struct strace_call *c, struct machine *m, const struct syscall_record *r)
{
    memset(c, 0, sizeof *c);
    c->nr = r->nr;
    if (is_call(r->nr, SYS_rt_sigreturn, SYS_sigreturn)) {
        c->nargs = 1;
        c->text[0] = sigreturn_text(m, r);
        return;
    }
    if (r->nr == SYS_clone) {
        clone_args(c, r);
        return;
    }
    const struct syscall_info *s = info_of(r->nr);
    if (!s) {
        /* strace shows six raw words for a number it does not know */
        c->nargs = 6;
        for (int i = 0; i < 6; i++) {
            c->argi[i] = (uint8_t)i;
            if (asprintf(&c->text[i], "%#x", r->args[i]) < 0)
                c->text[i] = NULL;
        }
        return;
    }
    uint8_t kind[6];
    int n = shown_kinds(r, s, kind);
    for (int i = 0; i < n; i++) {
        int k = c->nargs++;
        c->argi[k] = (uint8_t)i;
        bool pair = i + 1 < n && ((kind[i] == ARG_LO32 && kind[i + 1] == ARG_HI32) ||
                                  (kind[i] == ARG_HI32 && kind[i + 1] == ARG_LO32));
        if (pair) {
            uint64_t v = kind[i] == ARG_LO32
                             ? r->args[i] | (uint64_t)r->args[i + 1] << 32
                             : r->args[i + 1] | (uint64_t)r->args[i] << 32;
            if (asprintf(&c->text[k], "%lld", (long long)v) < 0)
                c->text[k] = NULL;
            i++;
            continue;
        }
        if (written_by_call(r->nr, kind[i]))
            continue;
        uint64_t unpaged = m->user_reads_unpaged;
        c->text[k] = format_arg(m, r, i, kind[i], false);
        /* What the call reads from a page not paged in yet (a string in a
         * program's data the call is the first to touch): strace's ptrace
         * read would page it in; ours reads it when the call is over, when
         * the kernel has. Not after an execve, whose memory is gone. */
        if (m->user_reads_unpaged != unpaged && !is_call(r->nr, SYS_execve, SYS_execveat)) {
            free(c->text[k]);
            c->text[k] = NULL;
            c->deferred |= (uint8_t)(1u << k);
        }
    }
}

void strace_call_exit(struct strace_call *c, struct machine *m, const struct syscall_record *r)
{
    const struct syscall_info *s = info_of(r->nr);
    if (!s || is_call(r->nr, SYS_rt_sigreturn, SYS_sigreturn) || r->nr == SYS_clone)
        return;
    uint8_t kind[6];
    shown_kinds(r, s, kind);
    for (int k = 0; k < c->nargs; k++)
        if (!c->text[k])
            c->text[k] = format_arg(m, r, c->argi[k], kind[c->argi[k]],
                                    !(c->deferred & (1u << k)));
    if (r->nr == SYS_set_thread_area && r->result == 0) {
        uint32_t entry;
        if (user_read_u32(m, r->args[0], &entry) &&
            asprintf(&c->note, " (entry_number=%u)", entry) < 0)
            c->note = NULL;
    }
}

void strace_print_call(FILE *f, const struct strace_call *c, const struct syscall_record *r)
{
    if (info_of(r->nr))
        fprintf(f, "%s(", syscall_name(r->nr));
    else
        fprintf(f, "syscall_%#x(", r->nr);
    for (int k = 0; k < c->nargs; k++)
        fprintf(f, "%s%s", k ? ", " : "", c->text[k] ? c->text[k] : "?");
    fputc(')', f);
}

void strace_print_result(FILE *f, const struct strace_call *c, const struct syscall_record *r)
{
    int32_t v = r->result;
    if (r->ret == RET_EXITED) {
        fputs("= ?", f);
        return;
    }
    if (v <= -512 && v >= -516 && v != -515) {
        /* the kernel's own, which a signal turns into a restart or EINTR */
        static const char *const restart[] = {
            "ERESTARTSYS (To be restarted if SA_RESTART is set)",
            "ERESTARTNOINTR (To be restarted)",
            "ERESTARTNOHAND (To be restarted if no handler)", NULL,
            "ERESTART_RESTARTBLOCK (Interrupted by signal)",
        };
        fprintf(f, "= ? %s", restart[-v - 512]);
        return;
    }
    if (syscall_failed(v)) {
        const char *name = errno_name(-v), *text = errno_text(-v);
        if (name)
            fprintf(f, "= -1 %s (%s)", name, text ? text : "");
        else
            fprintf(f, "= -1 (errno %d)", -v);
        return;
    }
    switch (r->nr) {
    case SYS_brk: case SYS_mmap: case SYS_mmap2: case SYS_mremap:
        fprintf(f, "= %#x", (uint32_t)v);
        break;
    case SYS_umask:
        fputs("= ", f);
        print_octal(f, (uint32_t)v);
        break;
    case SYS_time:
        fprintf(f, "= %d (", v);
        print_date(f, v);
        fputc(')', f);
        break;
    case SYS_fcntl: case SYS_fcntl64:
        if (r->args[1] == 1 && v) {       /* F_GETFD */
            fprintf(f, "= %#x (flags ", (uint32_t)v);
            print_flags(f, fd_flags, (uint32_t)v, "0");
            fputc(')', f);
            break;
        }
        if (r->args[1] == 3) {            /* F_GETFL */
            fprintf(f, "= %#x (flags ", (uint32_t)v);
            print_open_flags(f, (uint32_t)v);
            fputc(')', f);
            break;
        }
        /* fall through */
    default:
        fprintf(f, "= %d", v);
    }
    if (c->note)
        fputs(c->note, f);
}

void strace_call_free(struct strace_call *c)
{
    for (int i = 0; i < 6; i++)
        free(c->text[i]);
    free(c->note);
    memset(c, 0, sizeof *c);
}
