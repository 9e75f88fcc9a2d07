#include "observe/strace.h"
#include "machine/machine.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "machine/linux_names.h"
#include "machine/names.h"
#include "observe/progress.h"
#include "syscall_nr.h"

/* The columns: "[sysenter/sysexit] " is the widest path column, and
 * strace puts " = " at column 40 of what follows. */
#define PATH_COLUMN 19
#define RESULT_COLUMN 40

/* ---- -e trace= ---- */

static bool has_kind(const struct syscall_info *s, int kind)
{
    for (int i = 0; i < s->nargs; i++)
        if (s->kind[i] == kind)
            return true;
    return false;
}

static bool named(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list))
            return true;
    return false;
}

static bool in_class(const char *cls, const struct syscall_info *s)
{
    static const char *const new_fd[] = {
        "open", "creat", "openat", "openat2", "pipe", "pipe2", "socket", "socketpair",
        "epoll_create", "epoll_create1", "eventfd", "eventfd2", "signalfd", "signalfd4",
        "timerfd_create", "inotify_init", "inotify_init1", "memfd_create", "pidfd_open",
        "accept4", "select", "_newselect", "poll", "ppoll", "pselect6", NULL,
    };
    static const char *const memory[] = {
        "brk", "mmap", "mmap2", "munmap", "mprotect", "mremap", "msync", "mlock", "munlock",
        "mlockall", "munlockall", "mincore", "madvise", "mlock2", NULL,
    };
    static const char *const process[] = {
        "exit", "exit_group", "fork", "vfork", "clone", "clone3", "execve", "execveat",
        "wait4", "waitid", "waitpid", "kill", "tkill", "tgkill", "rt_sigqueueinfo",
        "unshare", NULL,
    };
    static const char *const signal[] = {
        "pause", "sgetmask", "ssetmask", "signalfd", "signalfd4", NULL,
    };
    static const char *const clock[] = {
        "time", "gettimeofday", "settimeofday", "adjtimex", "clock_gettime",
        "clock_settime", "clock_getres", "clock_gettime64", "clock_settime64",
        "clock_getres_time64", NULL,
    };
    if (!strcmp(cls, "file"))
        return has_kind(s, ARG_PATH) || !strcmp(s->name, "getcwd");
    if (!strcmp(cls, "desc"))
        return has_kind(s, ARG_FD) || has_kind(s, ARG_DIRFD) || named(s->name, new_fd);
    if (!strcmp(cls, "memory"))
        return named(s->name, memory);
    if (!strcmp(cls, "process"))
        return named(s->name, process);
    if (!strcmp(cls, "signal"))
        return has_kind(s, ARG_SIGNAL) || has_kind(s, ARG_SIGMASK_HOW) ||
               !strncmp(s->name, "sig", 3) || !strncmp(s->name, "rt_sig", 6) ||
               named(s->name, signal);
    return named(s->name, clock);
}

static bool known_class(const char *cls)
{
    static const char *const classes[] = {
        "file", "desc", "memory", "process", "signal", "clock", NULL,
    };
    return named(cls, classes);
}

/* Mark the calls one item names in set; false if it names none. */
static bool choose(uint8_t *set, const char *item)
{
    bool any = false;
    bool all = !strcmp(item, "all");
    if (!strcmp(item, "none"))
        return true;
    if (item[0] == '%' && !known_class(item + 1))
        return false;
    for (uint32_t nr = 0; nr < SYSCALL_STATS_MAX; nr++) {
        const struct syscall_info *s = syscall_info(nr);
        if (!s)
            continue;
        if (all || (item[0] == '%' ? in_class(item + 1, s) : !strcmp(item, s->name))) {
            set[nr / 8] |= (uint8_t)(1u << (nr % 8));
            any = true;
        }
    }
    return any || item[0] == '%';
}

int strace_filter_add(struct strace_filter *f, const char *expr, char *err, size_t errlen)
{
    uint8_t set[sizeof f->chosen] = { 0 };
    const char *list = expr;
    if (!strncmp(list, "trace=", 6))
        list += 6;
    else if (strchr(list, '=')) {
        snprintf(err, errlen, "-e %s: only trace= is supported", expr);
        return -1;
    }
    bool invert = list[0] == '!';
    char *copy = strdup(list + invert);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        bool optional = item[0] == '?';
        item += optional;
        if (item[0] == '/') {
            snprintf(err, errlen, "-e trace=%s: regular expressions are not supported", item);
            rc = -1;
            break;
        }
        if (!choose(set, item) && !optional) {
            snprintf(err, errlen, "-e trace: invalid system call '%s'", item);
            rc = -1;
            break;
        }
    }
    free(copy);
    if (rc)
        return rc;
    for (size_t i = 0; i < sizeof set; i++)
        f->chosen[i] |= invert ? (uint8_t)~set[i] : set[i];
    f->given = true;
    return 0;
}

static bool strace_filter_has(const struct strace_filter *f, uint32_t nr)
{
    if (!f->given)
        return true;
    return nr < SYSCALL_STATS_MAX && (f->chosen[nr / 8] & (1u << (nr % 8)));
}

/* ---- the lines ---- */

static void pad_to(FILE *f, long from, long col)
{
    for (long c = ftell(f) - from; c < col; c++)
        fputc(' ', f);
}

/* "[pid N] " (several processes), then the path column. */
static void begin_line(FILE *f, const struct syscall_tracker *sys, uint32_t pid,
                       const char *path)
{
    if (sys && sys->several_pids)
        fprintf(f, "[pid %5u] ", pid);
    long start = ftell(f);
    fputs(path, f);
    pad_to(f, start, PATH_COLUMN);
}

/* "#PF" of "#PF page fault". */
static void vector_short(char *out, size_t n, uint32_t vector)
{
    snprintf(out, n, "%s", vector_name(vector));
    out[strcspn(out, " ")] = 0;
}

/* " <N cycles>": the call's own (rule X of docs/cost-model.md), then what
 * else passed from its start to its end, if anything did: the interrupts'
 * work and the time other tasks ran while it was switched out. */
static void print_cycles(FILE *f, const struct syscall_record *r)
{
    uint64_t ext = r->ext_entry + r->ext_body + r->ext_exit;
    fprintf(f, " <%.0f cycles", centi_to_cycles(record_own(r)));
    if (ext)
        fprintf(f, ", +%.0f interrupts", centi_to_cycles(ext));
    if (r->switched)
        fprintf(f, ", +%.0f switched out", centi_to_cycles(r->switched));
    fputc('>', f);
}

static void print_record(FILE *f, const struct syscall_tracker *sys,
                         const struct strace_call *c, const struct syscall_record *r)
{
    char path[40];
    if (r->path == PATH_TRAP) {
        /* A fault that killed the program shows as its signal. */
        if (r->ret == RET_EXITED)
            return;
        char v[16];
        vector_short(v, sizeof v, r->nr);
        snprintf(path, sizeof path, "[%s/%s]", v, sys_return_name(r->ret));
        begin_line(f, sys, r->pid, path);
        fprintf(f, "--- %s at %#x, error %#x ---", vector_name(r->nr), r->user_eip,
                r->error_code);
        print_cycles(f, r);
        fputc('\n', f);
        return;
    }
    snprintf(path, sizeof path, "[%s/%s]", sys_path_name(r->path), sys_return_name(r->ret));
    /* strace's column counts from the start of its line, [pid N] and all;
     * ours has the path column besides */
    long line = ftell(f);
    begin_line(f, sys, r->pid, path);
    strace_print_call(f, c, r);
    fputc(' ', f);
    pad_to(f, line, PATH_COLUMN + RESULT_COLUMN);
    strace_print_result(f, c, r);
    if (r->ret != RET_EXITED)
        print_cycles(f, r);
    fputc('\n', f);
}

/* A finished line to the output (on stderr, the progress line gives way). */
static void put(struct strace *s, const char *text)
{
    if (!s->own_file)
        progress_clear();
    fputs(text, s->out);
}

/* Lines are built in memory (the columns need ftell) and written whole. */
static void emit(struct strace *s, const struct strace_call *c, const struct syscall_record *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    print_record(f, s->sys, c, r);
    fclose(f);
    put(s, text);
    free(text);
}

/* Traps are not shown: one the kernel resolves (a page paged in on
 * demand, the FPU handed over) is as invisible to strace as to the
 * program, and one that kills it shows as its signal (on_signal). The
 * --trace file has them all. */
static bool shown(const struct strace *s, const struct syscall_record *r)
{
    return r->path != PATH_TRAP && strace_filter_has(&s->filter, r->nr);
}

/* Each process has its call in flight; a record ends the one it began
 * (the same seq). A slot still taken when all are is the oldest call's,
 * whose end will not come (its process is gone). */
static struct strace_pending *pending_slot(struct strace *s, uint64_t seq)
{
    struct strace_pending *oldest = &s->pending[0];
    for (int i = 0; i < STRACE_PENDING; i++) {
        if (s->pending[i].seq == seq)
            return &s->pending[i];
        if (s->pending[i].seq < oldest->seq)
            oldest = &s->pending[i];
    }
    if (seq)
        return NULL;
    strace_call_free(&oldest->call);
    oldest->seq = 0;
    return oldest;
}

static void on_enter(void *ctx, const struct syscall_record *r)
{
    struct strace *s = ctx;
    if (!shown(s, r))
        return;
    struct strace_pending *p = pending_slot(s, 0);
    memset(&p->call, 0, sizeof p->call);
    p->seq = r->seq;
    if (r->path != PATH_TRAP)
        strace_call_enter(&p->call, s->m, r);
}

static void on_record(void *ctx, const struct syscall_record *r)
{
    struct strace *s = ctx;
    struct strace_pending *p = r->seq ? pending_slot(s, r->seq) : NULL;
    if (!p)
        return;
    if (r->path != PATH_TRAP)
        strace_call_exit(&p->call, s->m, r);
    emit(s, &p->call, r);
    strace_call_free(&p->call);
    p->seq = 0;
}

static bool fault_signal(uint32_t signo)
{
    return signo == 4 || signo == 5 || signo == 7 || signo == 8 || signo == 11;
}

/* What strace shows after si_code: who sent it (SI_USER, tkill, queue:
 * code <= 0), the child's end (SIGCHLD), or the fault's address. */
static void print_siginfo_rest(FILE *f, const struct signal_record *sig)
{
    const uint32_t *w = sig->fields;
    if (!sig->handled || fault_signal(sig->signo)) {
        fputs(", si_addr=", f);
        print_addr(f, sig->addr);
    } else if (sig->code <= 0) {
        fprintf(f, ", si_pid=%d, si_uid=%u", (int32_t)w[0], w[1]);
    } else if (sig->signo == 17) {
        fprintf(f, ", si_pid=%d, si_uid=%u, si_status=%d, si_utime=%u, si_stime=%u",
                (int32_t)w[0], w[1], (int32_t)w[2], w[3], w[4]);
    }
}

static void on_signal(void *ctx, const struct signal_record *sig)
{
    struct strace *s = ctx;
    char v[16], path[40] = "";
    if (!sig->handled) {
        vector_short(v, sizeof v, sig->vector);
        snprintf(path, sizeof path, "[%s/exited]", v);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    begin_line(f, s->sys, sig->pid, path);
    fputs("--- ", f);
    print_signal(f, sig->signo, false);
    fputs(" {si_signo=", f);
    print_signal(f, sig->signo, false);
    if (sig->handled && !sig->has_info) {
        /* a handler without SA_SIGINFO: its frame has no siginfo to read */
        fputs("} ---\n", f);
    } else {
        const char *code = si_code_name(sig->signo, sig->code);
        if (code)
            fprintf(f, ", si_code=%s", code);
        else
            fprintf(f, ", si_code=%d", sig->code);
        print_siginfo_rest(f, sig);
        fputs("} ---\n", f);
    }
    fclose(f);
    put(s, text);
    free(text);
}

static void on_exit_record(void *ctx, const struct exit_record *e)
{
    struct strace *s = ctx;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    begin_line(f, s->sys, e->pid, "");
    if (e->killed) {
        fputs("+++ killed by ", f);
        print_signal(f, (uint32_t)e->status, false);
        fputs(" +++\n", f);
    } else {
        fprintf(f, "+++ exited with %d +++\n", e->status);
    }
    fclose(f);
    put(s, text);
    free(text);
}

struct strace *strace_open(const char *path, const struct strace_filter *filter, char *err,
                           size_t errlen)
{
    struct strace *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->out = stderr;
    if (path) {
        s->out = fopen(path, "w");
        if (!s->out) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            free(s);
            return NULL;
        }
        s->own_file = true;
    }
    if (filter)
        s->filter = *filter;
    return s;
}

int strace_attach(struct strace *s, struct machine *m, struct syscall_tracker *sys)
{
    const struct syscall_listener l = {
        .ctx = s, .enter = on_enter, .record = on_record, .signal = on_signal,
        .exit = on_exit_record,
    };
    s->m = m;
    s->sys = sys;
    return syscalls_listen(sys, &l);
}

int strace_close(struct strace *s)
{
    if (!s)
        return 0;
    for (int i = 0; i < STRACE_PENDING; i++)
        strace_call_free(&s->pending[i].call);
    int rc = s->own_file ? fclose(s->out) : fflush(s->out);
    free(s);
    return rc ? -1 : 0;
}

void strace_print(FILE *f, struct machine *m, const struct syscall_tracker *sys,
                  const struct syscall_record *r)
{
    struct strace_call c;
    memset(&c, 0, sizeof c);
    if (r->path != PATH_TRAP) {
        strace_call_enter(&c, m, r);
        strace_call_exit(&c, m, r);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    if (mf) {
        print_record(mf, sys, &c, r);
        fclose(mf);
        fputs(text, f);
        free(text);
    }
    strace_call_free(&c);
}
