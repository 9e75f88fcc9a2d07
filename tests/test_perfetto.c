/*
 * --trace-format json's tracks (emu/observe/trace_json.c, from emu/account/syscalls.c's
 * processes): one per guest process (pid = tid), named by its command as
 * the kernel holds it; on each, slices that nest; on one CPU no two
 * processes run at once, and a process switched out has a "switched out"
 * slice while another runs; the boot has a track of its own. A real
 * multi-process run: Debian's busybox sh with a pipe, forks and execs,
 * whose pids and execs its --strace tells.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chrome_trace.h"
#include "support.h"

#define MAX_PROCS 16
#define COMM_LEN 16   /* the kernel's TASK_COMM_LEN: 15 characters and the NUL */

struct proc {
    long pid;
    char comm[COMM_LEN];   /* as strace's calls say it must be */
    int switched;          /* calls strace says were switched out */
};

struct procs {
    int n;
    struct proc p[MAX_PROCS];
};

static struct proc *proc_of(struct procs *ps, long pid, const char *comm)
{
    for (int i = 0; i < ps->n; i++)
        if (ps->p[i].pid == pid)
            return &ps->p[i];
    ck_assert_int_lt(ps->n, MAX_PROCS);
    struct proc *p = &ps->p[ps->n++];
    *p = (struct proc){ .pid = pid };
    snprintf(p->comm, sizeof p->comm, "%s", comm);
    return p;
}

/* exec's name for a path: its last component, cut to 15 characters. */
static void comm_of(const char *path, size_t len, char *comm)
{
    for (size_t i = len; i > 0; i--)
        if (path[i - 1] == '/') {
            path += i;
            len -= i;
            break;
        }
    snprintf(comm, COMM_LEN, "%.*s", (int)len, path);
}

/* One strace line of process p: the children it forked (a clone's
 * result), the program it ran (a successful execve), a call switched out. */
static void strace_line(struct procs *ps, struct proc *p, const char *line)
{
    const char *res = strstr(line, ") = ");
    if (strstr(line, " clone(") && res && atol(res + 4) > 0)
        proc_of(ps, atol(res + 4), p->comm);
    const char *exec = strstr(line, " execve(\"");
    if (exec && res && !strncmp(res, ") = 0 ", 6)) {
        exec += 10;
        comm_of(exec, strcspn(exec, "\""), p->comm);
    }
    p->switched += strstr(line, " switched out>") != NULL;
}

/* The processes of strace's lines: "[pid N]" once there are several, the
 * first process's (first, the program's own pid) before. Each starts with
 * its parent's name; the first with the program's. */
static void strace_procs(const char *err, long first, const char *program, struct procs *ps)
{
    char comm[COMM_LEN];
    comm_of(program, strlen(program), comm);
    ps->n = 0;
    proc_of(ps, first, comm);
    for (const char *line = err; *line;) {
        size_t len = strcspn(line, "\n");
        char *l = strndup(line, len);
        long pid = !strncmp(l, "[pid ", 5) ? atol(l + 5) : first;
        strace_line(ps, proc_of(ps, pid, comm), l);
        free(l);
        line += len + (line[len] == '\n');
    }
}

/* The last name the metadata gives pid (what a viewer shows), or NULL. */
static const char *track_name(const char *path, long pid, const char *what)
{
    static char name[64];
    char filter[160];
    snprintf(filter, sizeof filter, "[.traceEvents[] | select(.ph == \"M\" and .name == \"%s\" "
             "and .pid == %ld and .tid == %ld) | .args.name] | last // \"\"", what, pid, pid);
    char *out = jq(filter, path);
    snprintf(name, sizeof name, "%.*s", (int)strcspn(out, "\n"), out);
    free(out);
    return name[0] ? name : NULL;
}

static bool running_cat(const char *cat)
{
    return !strcmp(cat, "user") || !strcmp(cat, "syscall") || !strcmp(cat, "trap");
}

struct span {
    long pid;
    long long start, end;   /* ns */
};

/* What process ev[k] (a user span, call or trap) ran on a CPU: its slice
 * less the times it was switched out inside it. */
static int cut_holes(const struct event *ev, int n, int k, struct span *out)
{
    const struct event *b = &ev[k];
    long long at = b->ts, end = b->ts + b->dur;
    int m = 0;
    for (;;) {
        /* the first hole at or after at, inside b */
        const struct event *h = NULL;
        for (int i = 0; i < n; i++)
            if (ev[i].ph == 'X' && ev[i].pid == b->pid && !strcmp(ev[i].cat, "sched") &&
                ev[i].ts >= at && ev[i].ts + ev[i].dur <= end && (!h || ev[i].ts < h->ts))
                h = &ev[i];
        long long stop = h ? h->ts : end;
        if (stop > at)
            out[m++] = (struct span){ b->pid, at, stop };
        if (!h)
            return m;
        at = h->ts + h->dur;
    }
}

static int by_span_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The times each guest process ran (not the boot's track), by start. */
static int running_spans(const struct event *ev, int n, struct span **out)
{
    struct span *s = calloc((size_t)n * 2 + 1, sizeof *s);
    int m = 0;
    for (int k = 0; k < n; k++)
        if (ev[k].ph == 'X' && ev[k].pid != 0 && running_cat(ev[k].cat))
            m += cut_holes(ev, n, k, s + m);
    qsort(s, (size_t)m, sizeof *s, by_span_start);
    *out = s;
    return m;
}

/* One CPU: no two processes run at once; while one is switched out
 * another runs (in its hole, from end to end). */
static void check_one_at_a_time(const struct event *ev, int n, const char *path)
{
    struct span *s;
    int m = running_spans(ev, n, &s);
    for (int i = 1; i < m; i++)
        ck_assert_msg(s[i].start >= s[i - 1].end,
                      "%s: pid %ld runs at %lld, pid %ld until %lld", path, s[i].pid,
                      s[i].start, s[i - 1].pid, s[i - 1].end);
    for (int k = 0; k < n; k++) {
        if (ev[k].ph != 'X' || strcmp(ev[k].cat, "sched"))
            continue;
        bool other = false;
        for (int i = 0; i < m && !other; i++)
            other = s[i].pid != ev[k].pid && s[i].start >= ev[k].ts &&
                    s[i].end <= ev[k].ts + ev[k].dur;
        ck_assert_msg(other, "%s: no other process ran while pid %ld was switched out at %lld",
                      path, ev[k].pid, ev[k].ts);
    }
    free(s);
}

/* pid's slices of category cat. */
static int count_on(const struct event *ev, int n, long pid, const char *cat)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += ev[i].ph == 'X' && ev[i].pid == pid && !strcmp(ev[i].cat, cat);
    return c;
}

static bool known(const struct procs *ps, long pid)
{
    for (int i = 0; i < ps->n; i++)
        if (ps->p[i].pid == pid)
            return true;
    return false;
}

/* The boot's track, pid 0, has the boot alone, from 0; no process is pid 0. */
static void check_boot_track(const struct event *ev, int n, const struct procs *ps,
                             const char *path)
{
    int on_zero = 0, boot = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].ph == 'M' || ev[i].pid != 0)
            continue;
        on_zero++;
        boot += ev[i].ph == 'X' && !strcmp(ev[i].name, "boot") && ev[i].ts == 0 &&
                ev[i].dur > 0;
    }
    ck_assert_int_eq(on_zero, 1);
    ck_assert_int_eq(boot, 1);
    ck_assert(!known(ps, 0));
    ck_assert_ptr_nonnull(track_name(path, 0, "process_name"));
}

/* Each process has its track, named by its command; there are no others. */
static void check_tracks(const struct event *ev, int n, const struct procs *ps,
                         const char *path)
{
    for (int i = 0; i < ps->n; i++) {
        const struct proc *p = &ps->p[i];
        const char *name = track_name(path, p->pid, "process_name");
        ck_assert_msg(name && !strcmp(name, p->comm), "%s: pid %ld is named %s, not %s", path,
                      p->pid, name ? name : "(nothing)", p->comm);
        name = track_name(path, p->pid, "thread_name");
        ck_assert_msg(name && !strcmp(name, p->comm), "%s: pid %ld's thread is %s", path,
                      p->pid, name ? name : "(nothing)");
        ck_assert_int_gt(count_on(ev, n, p->pid, "user"), 0);
        ck_assert_int_gt(count_on(ev, n, p->pid, "syscall"), 0);
        /* each call switched out shows where */
        ck_assert_int_ge(count_on(ev, n, p->pid, "sched"), p->switched);
    }
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(ev[i].pid, ev[i].tid);
        ck_assert_msg(ev[i].pid == 0 || known(ps, ev[i].pid), "%s: pid %ld is no process",
                      path, ev[i].pid);
    }
}

START_TEST(each_guest_process_has_a_named_track_of_its_own)
{
    const char *path = scratch("procs.json");
    char root[512];
    snprintf(root, sizeof root, "%s/i386/root", BUILD_DIR);
    struct emu_result r;
    emu(&r, "run", "--strace", "--trace", path, "--trace-format", "json", "--root", root,
        fixture("busybox"), "sh", "-c", "echo $$; echo a | cat; /bin/busybox true; echo done",
        NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *text = read_file(path);
    ck_assert_msg(text && json_valid(text), "invalid JSON: %.300s", text);
    free(text);
    long sh = atol(r.out);
    ck_assert_msg(sh > 0 && strstr(r.out, "\na\ndone\n"), "%s", r.out);

    struct procs ps;
    strace_procs(r.err, sh, fixture("busybox"), &ps);
    /* the shell, echo's and cat's children (cat runs by an exec) and true's */
    ck_assert_int_eq(ps.n, 4);
    struct event *ev;
    int n = chrome_events(path, &ev);
    check_tracks(ev, n, &ps, path);
    check_boot_track(ev, n, &ps, path);
    chrome_check_nesting(ev, n, path);
    check_one_at_a_time(ev, n, path);
    /* the shell waited for its children: switched out while they ran */
    ck_assert_int_gt(count_on(ev, n, sh, "sched"), 0);
    free(ev);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

/* Several CPUs: the same tracks, each process's slices still nest on its
 * own, and each call says the CPU it began on, which is every CPU here
 * (three children that compute and call, on two CPUs). */
START_TEST(on_several_cpus_each_process_keeps_its_track_and_each_call_its_cpu)
{
    const char *path = scratch("smp.json");
    struct emu_result r;
    emu(&r, "run", "--smp", "2", "--strace", "--trace", path, "--trace-format", "json",
        program("smp"), "spread", "3", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *cpus = jq("[.traceEvents[] | select(.cat == \"syscall\") | .args.cpu] | unique | "
                    "map(tostring) | join(\" \")", path);
    ck_assert_str_eq(cpus, "0 1\n");
    free(cpus);
    /* the first process's pid: its first call's (strace names it once a
     * second one calls) */
    char *first = jq("[.traceEvents[] | select(.cat == \"syscall\")][0].pid", path);
    struct procs ps;
    strace_procs(r.err, atol(first), program("smp"), &ps);
    free(first);
    ck_assert_int_eq(ps.n, 4);
    struct event *ev;
    int n = chrome_events(path, &ev);
    check_tracks(ev, n, &ps, path);
    check_boot_track(ev, n, &ps, path);
    chrome_check_nesting(ev, n, path);
    free(ev);
    unlink(path);
    emu_result_free(&r);
}
END_TEST

Suite *perfetto_suite(void)
{
    Suite *s = suite_create("perfetto");
    TCase *tc = tcase_create("tracks");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, each_guest_process_has_a_named_track_of_its_own);
    tcase_add_test(tc, on_several_cpus_each_process_keeps_its_track_and_each_call_its_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(perfetto_suite());
}
