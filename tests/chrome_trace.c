#include "chrome_trace.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static long long ns_of(const char *us)
{
    /* ts and dur are microseconds with at most 3 decimals: whole ns */
    const char *dot = strchr(us, '.');
    long long whole = atoll(us), frac = 0;
    if (dot) {
        char digits[4] = "000";
        for (int k = 0; k < 3 && dot[1 + k] >= '0' && dot[1 + k] <= '9'; k++)
            digits[k] = dot[1 + k];
        ck_assert_msg(strlen(dot + 1) <= 3, "more precision than a nanosecond: %s", us);
        frac = atoll(digits);
    }
    return whole * 1000 + frac;
}

/* One line of jq's @tsv: its 7 fields. */
static void parse_event(char *line, struct event *e)
{
    char *f[7];
    int nf = 0;
    for (char *p = line; nf < 7; nf++) {
        f[nf] = p;
        p = strchr(p, '\t');
        if (!p) {
            nf++;
            break;
        }
        *p++ = 0;
    }
    ck_assert_int_eq(nf, 7);
    e->ph = f[0][0];
    snprintf(e->name, sizeof e->name, "%s", f[1]);
    snprintf(e->cat, sizeof e->cat, "%s", f[2]);
    e->pid = atol(f[3]);
    e->tid = atol(f[4]);
    e->ts = strcmp(f[5], "-") ? ns_of(f[5]) : -1;
    e->dur = strcmp(f[6], "-") ? ns_of(f[6]) : -1;
}

int chrome_events(const char *path, struct event **out)
{
    char *tsv = jq(".traceEvents[] | [.ph, .name, (.cat // \"\"), .pid, .tid, "
                   "(if has(\"ts\") then .ts|tostring else \"-\" end), "
                   "(if has(\"dur\") then .dur|tostring else \"-\" end)] | @tsv", path);
    int n = count_char(tsv, '\n'), k = 0;
    struct event *ev = calloc((size_t)n + 1, sizeof *ev);
    for (char *save = NULL, *line = strtok_r(tsv, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        parse_event(line, &ev[k++]);
    free(tsv);
    *out = ev;
    return k;
}

/* By track, then start; of two that start together the longer contains. */
static int by_track_and_start(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->dur > y->dur ? -1 : x->dur < y->dur;
}

int chrome_check_nesting(const struct event *ev, int n, const char *path)
{
    struct event *x = calloc((size_t)n + 1, sizeof *x);
    int nx = 0;
    for (int i = 0; i < n; i++)
        if (ev[i].ph == 'X')
            x[nx++] = ev[i];
    qsort(x, (size_t)nx, sizeof *x, by_track_and_start);
    struct event *stack[64];
    int depth = 0;
    for (int i = 0; i < nx; i++) {
        if (i && (x[i].pid != x[i - 1].pid || x[i].tid != x[i - 1].tid))
            depth = 0;
        while (depth && x[i].ts >= stack[depth - 1]->ts + stack[depth - 1]->dur)
            depth--;
        if (depth) {
            const struct event *outer = stack[depth - 1];
            ck_assert_msg(x[i].ts + x[i].dur <= outer->ts + outer->dur,
                          "%s: pid %ld: %s [%lld, +%lld) overlaps %s [%lld, +%lld)", path,
                          x[i].pid, x[i].name, x[i].ts, x[i].dur, outer->name, outer->ts,
                          outer->dur);
        }
        ck_assert_int_lt(depth, 64);
        stack[depth++] = &x[i];
    }
    free(x);
    return nx;
}
