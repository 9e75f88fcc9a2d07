#include "observe/progress.h"
#include "machine/machine.h"
#include "hypercall/hypercall.h"
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

/* The clock is read every this many instructions, not on every block. */
#define CHECK_EVERY (1u << 22)
#define REDRAW_NS 500000000ll

struct progress {
    FILE *f;
    bool tty, drawn;
    uint64_t next_check;
    int64_t last_ns;
    const struct syscall_tracker *sys;
};

/* The line on the terminal now, if any: whatever else writes to the
 * terminal clears it first (progress_clear). */
static struct progress *shown;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

struct progress *progress_open(FILE *f, bool tty)
{
    struct progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->f = f;
    p->tty = tty;
    p->next_check = CHECK_EVERY;
    p->last_ns = now_ns();
    return p;
}

static uint64_t calls(const struct progress *p)
{
    return p->sys ? p->sys->by_path[PATH_INT80] + p->sys->by_path[PATH_SYSENTER] : 0;
}

static void draw(struct progress *p, const struct machine *m, const char *what)
{
    fprintf(p->f, "%semu: %s%.1fM instructions, %.1fM cycles, %" PRIu64 " system calls%s",
            p->tty ? "\r" : "", what, (double)m->insns / 1e6, (double)m->cycles / 1e8,
            calls(p), p->tty ? "\033[K" : "\n");
    fflush(p->f);
    p->drawn = true;
    if (p->tty)
        shown = p;
}

void progress_clear(void)
{
    if (!shown)
        return;
    fputs("\r\033[K", shown->f);
    fflush(shown->f);
    shown = NULL;
}

static void on_block(void *ctx, struct machine *m, const struct block *b)
{
    struct progress *p = ctx;
    (void)b;
    if (m->insns < p->next_check)
        return;
    p->next_check = m->insns + CHECK_EVERY;
    int64_t now = now_ns();
    if (now - p->last_ns < REDRAW_NS)
        return;
    p->last_ns = now;
    draw(p, m, "");
}

int progress_attach(struct progress *p, struct machine *m, const struct syscall_tracker *sys)
{
    const struct machine_observer o = { .ctx = p, .block = on_block };
    p->sys = sys;
    hypercall_before_output(progress_clear);
    return machine_observe(m, &o);
}

void progress_finish(struct progress *p, const struct machine *m)
{
    if (!p)
        return;
    if (p->tty) {
        if (shown == p)
            progress_clear();
    } else {
        draw(p, m, "done: ");
    }
    fflush(p->f);
}

void progress_close(struct progress *p)
{
    if (shown == p)
        shown = NULL;
    free(p);
}
