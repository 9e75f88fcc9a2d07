/*
 * For the tests of --trace-format json (tests/test_trace.c,
 * tests/test_perfetto.c): a Chrome Trace Event file's events as Debian's
 * jq reads them, and the rule that the complete slices of each track nest.
 */
#ifndef TESTS_CHROME_TRACE_H
#define TESTS_CHROME_TRACE_H

struct event {
    char ph;
    char name[64], cat[16];
    long pid, tid;
    long long ts, dur;      /* ns; -1 if absent */
};

/* The file's events in its order; their number. Free *out. */
int chrome_events(const char *path, struct event **out);
/* The complete slices of each track (pid, tid) nest: each one that starts
 * inside another ends inside it too. Fails the test naming the two that
 * do not; returns how many slices were checked. */
int chrome_check_nesting(const struct event *ev, int n, const char *path);

#endif
