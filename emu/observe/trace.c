#include "observe/trace.h"
#include "machine/machine.h"
#include "machine/charge.h"
#include "cost/centi.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "machine/names.h"

/* One schema for every row; a row leaves empty what it does not have. */
static const char csv_header[] =
    "kind,seq,name,path,return,nr,arg0,arg1,arg2,arg3,arg4,arg5,result,start_cycle,end_cycle,"
    "total_cycles,entry_cycles,body_cycles,exit_cycles,insns,addr,symbol,mode,text\n";

int trace_parse_format(const char *name, enum trace_format *out)
{
    if (!strcmp(name, "text"))
        *out = TRACE_TEXT;
    else if (!strcmp(name, "json"))
        *out = TRACE_JSON;
    else if (!strcmp(name, "csv"))
        *out = TRACE_CSV;
    else
        return -1;
    return 0;
}

int trace_parse_insns(const char *name, enum trace_insns *out)
{
    if (!strcmp(name, "user"))
        *out = INSNS_USER;
    else if (!strcmp(name, "kernel"))
        *out = INSNS_KERNEL;
    else if (!strcmp(name, "all"))
        *out = INSNS_ALL;
    else
        return -1;
    return 0;
}

static bool parse_cycles(const char *s, size_t len, uint64_t *out)
{
    char buf[32];
    char *end;
    if (len == 0 || len >= sizeof buf || s[0] == '-')
        return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || *end || v > UINT64_MAX / CENTI_PER_CYCLE)
        return false;
    *out = v;
    return true;
}

int trace_parse_window(const char *text, uint64_t *from, uint64_t *to)
{
    const char *colon = strchr(text, ':');
    *from = *to = 0;
    if (!colon || (colon == text && !colon[1]))
        return -1;
    if (colon > text && !parse_cycles(text, (size_t)(colon - text), from))
        return -1;
    if (colon[1] && !parse_cycles(colon + 1, strlen(colon + 1), to))
        return -1;
    return *to && *to <= *from ? -1 : 0;
}

/* Does [start, end) (centicycles) overlap the window? */
static bool trace_in_window(const struct trace *t, uint64_t start, uint64_t end)
{
    uint64_t from = cycles_to_centi(t->o.from), to = cycles_to_centi(t->o.to);
    return end >= from && (!t->o.to || start < to);
}

/* The symbol of addr, or "" */
static const char *trace_symbol(const struct trace *t, uint32_t addr, char *buf, size_t n)
{
    if (!t->syms) {
        buf[0] = 0;
        return buf;
    }
    return symtab_format(t->syms, addr, buf, n);
}

struct trace *trace_open(const struct trace_options *o, uint32_t clock_mhz, const char *name,
                         char *err, size_t errlen)
{
    struct trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (trace_out_open(&t->out, o->path)) {
        snprintf(err, errlen, "cannot write trace %s: %s", o->path, strerror(errno));
        free(t);
        return NULL;
    }
    t->o = *o;
    t->json = (struct json_trace){ &t->out, clock_mhz ? clock_mhz : 1, true };
    t->memo = (struct memo_maker){ o->format == TRACE_CSV, NULL, &t->last_sym, &t->line };
    if (o->format == TRACE_JSON)
        trace_json_begin(&t->json, name);
    else if (o->format == TRACE_CSV)
        trace_out_puts(&t->out, csv_header);
    return t;
}

static double cyc(uint64_t centi)
{
    return centi_to_cycles(centi);
}

/* A CSV field: quoted, with its quotes doubled, when it needs to be. */
static void csv_field(struct trace_out *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        trace_out_puts(f, s);
        return;
    }
    trace_out_putc(f, '"');
    for (; *s; s++) {
        if (*s == '"')
            trace_out_putc(f, '"');
        trace_out_putc(f, *s == '\n' ? ' ' : *s);
    }
    trace_out_putc(f, '"');
}

/* kind,seq,name,path,return,nr,arg0..5,result: empty but the kind and name */
static void csv_span(struct trace *t, const char *kind, uint64_t start, uint64_t end)
{
    trace_out_printf(&t->out, "%s,,,,,,,,,,,,,%.2f,%.2f,%.2f,,,,,,,%s,\n", kind, cyc(start), cyc(end),
            cyc(end - start), !strcmp(kind, "user") ? "user" : "kernel");
}

/* A user span of process pid, or the boot (pid 0). */
static void write_span(struct trace *t, uint32_t pid, const char *kind, uint64_t start,
                       uint64_t end)
{
    if (!trace_in_window(t, start, end))
        return;
    if (t->o.format == TRACE_JSON && !strcmp(kind, "boot"))
        trace_json_boot(&t->json, end);
    else if (t->o.format == TRACE_JSON)
        trace_json_slice(&t->json, pid, kind, "user", start, end, NULL);
    else if (t->o.format == TRACE_CSV)
        csv_span(t, kind, start, end);
    else
        trace_out_printf(&t->out, "%6s %-8s from %.2f to %.2f: %.2f cycles\n", "-", kind, cyc(start),
                cyc(end), cyc(end - start));
}

static void write_line(struct trace *t, uint32_t pid, uint32_t addr, bool kernel,
                       const char *text, uint64_t start, uint64_t end)
{
    char sym[128] = "";
    if (!trace_in_window(t, start, end))
        return;
    if (t->syms)
        symtab_format_near(t->syms, addr, sym, sizeof sym, &t->last_sym);
    switch (t->o.format) {
    case TRACE_TEXT:
        trace_line_text(&t->line, addr, kernel, sym, text, end - start, end);
        trace_out_write(&t->out, t->line.buf, t->line.len);
        break;
    case TRACE_CSV:
        trace_line_csv(&t->line, addr, kernel, sym, text, start, end);
        trace_out_write(&t->out, t->line.buf, t->line.len);
        break;
    case TRACE_JSON:
        trace_json_insn(&t->json, pid, addr, kernel, text, sym, start, end);
        break;
    }
}

/* The index-th instruction of the current block's line, which ran in
 * [start, end), from its memo (*lm: the block's, once found): false if
 * there is none to make it from. */
static bool write_memo_line(struct trace *t, struct machine *m, const struct line_memo **lm_seen,
                            uint32_t index, uint64_t start, uint64_t end)
{
    /* a memo: the block means the same */
    if (!*lm_seen)
        *lm_seen = line_memo_of(&t->memo, &m->blocks, (struct block *)m->cur_block);
    const struct line_memo *lm = *lm_seen;
    if (!lm)
        return false;
    char *out = trace_out_room(&t->out, line_memo_max(lm, index));
    if (!out)
        return false;
    trace_out_commit(&t->out, line_memo_line(lm, index, out, t->times, start, end));
    return true;
}

static uint32_t sym_generation(const struct trace *t)
{
    return t->syms ? t->syms->generation : 0;
}

/* Keep the memo's part of the index-th instruction of the current block
 * with p, which ran whole with cost. */
static void keep_memo_part(struct trace *t, struct machine *m, uint32_t index, uint64_t cost,
                           struct trace_insn *p)
{
    size_t n;
    const struct line_memo *lm = line_memo_of(&t->memo, &m->blocks, (struct block *)m->cur_block);
    if (!lm)
        return;
    const char *part = line_memo_part(lm, index, &n);
    if (n > sizeof p->part)
        return;
    memcpy(p->part, part, n);
    p->memo_len = (uint32_t)n;
    p->memo_gen = sym_generation(t);
    p->memo_cost = cost;
}

/* From its memo part if it ran whole, under the symbols it was told under
 * (the same bytes as write_line's). */
static void write_insn(struct trace *t, const struct trace_insn *in)
{
    if (in->memo_len && in->end - in->start == in->memo_cost &&
        in->memo_gen == sym_generation(t)) {
        if (!trace_in_window(t, in->start, in->end))
            return;
        char *out = trace_out_room(&t->out, in->memo_len + TRACE_TIMES_MAX);
        if (out) {
            trace_out_commit(&t->out, line_memo_join(t->memo.csv, in->part, in->memo_len, out,
                                                     t->times, in->start, in->end));
            trace_out_sync(&t->out);
            return;
        }
    }
    write_line(t, in->pid, in->addr, in->kernel, in->text, in->start, in->end);
}

/* Did the instruction written ahead run whole under the same symbols? */
static bool ahead_right(const struct trace *t, const struct trace_insn *in)
{
    return in->end - in->start == in->memo_cost && in->memo_gen == sym_generation(t);
}

/* Written ahead: right if ahead_right; else taken back and written as
 * write_insn would. */
static void rewrite_insn(struct trace *t, const struct trace_insn *in)
{
    if (ahead_right(t, in))
        return;
    t->out.len = in->written_at;
    write_line(t, in->pid, in->addr, in->kernel, in->text, in->start, in->end);
}

/* The instruction seen last has completed (or, faulting, was refunded). */
static void flush_insn(struct trace *t)
{
    if (t->pending.valid && t->pending.written)
        rewrite_insn(t, &t->pending);
    else if (t->pending.valid)
        write_insn(t, &t->pending);
    t->pending.valid = false;
}

static const char *record_name(const struct syscall_record *r)
{
    return r->path == PATH_TRAP ? vector_name(r->nr) : syscall_name(r->nr);
}

/* A record's cycles are its own (rule X of docs/cost-model.md): each
 * phase less the interrupts' work in it and the time switched out; its
 * start and end are the wall clock's, so end - start is the three. */
static void write_record(struct trace *t, const struct syscall_record *r)
{
    uint64_t ext = r->ext_entry + r->ext_body + r->ext_exit;
    const char *kind = r->path == PATH_TRAP ? "trap" : "syscall";
    char sym[128];
    trace_symbol(t, r->user_eip, sym, sizeof sym);
    switch (t->o.format) {
    case TRACE_TEXT:
        trace_out_printf(&t->out, "%6" PRIu64 " %-8s %-9s %-16s nr=%-3u ret=%-8d in=%-8s out=%-7s "
                "entry=%8.2f body=%8.2f exit=%8.2f total=%8.2f interrupts=%.2f "
                "switched_out=%.2f insns=%" PRIu64 " start=%.2f from=%s\n",
                r->seq, kind, sys_path_name(r->path), record_name(r), r->nr, r->result,
                sys_path_name(r->path), sys_return_name(r->ret), cyc(r->own_entry),
                cyc(r->own_body), cyc(r->own_exit), cyc(record_own(r)), cyc(ext),
                cyc(r->switched), r->insns_end - r->insns_start, cyc(r->start),
                sym[0] ? sym : "?");
        if (r->kernel_faults)
            trace_out_printf(&t->out, "%6s %u fault(s) taken and fixed up in the kernel\n", "",
                    r->kernel_faults);
        break;
    case TRACE_CSV:
        trace_out_printf(&t->out, "%s,%" PRIu64 ",%s,%s,%s,%u,%u,%u,%u,%u,%u,%u,%d,%.2f,%.2f,%.2f,%.2f,%.2f,"
                "%.2f,%" PRIu64 ",%08x,", kind, r->seq, record_name(r), sys_path_name(r->path),
                sys_return_name(r->ret), r->nr, r->args[0], r->args[1], r->args[2], r->args[3],
                r->args[4], r->args[5], r->result, cyc(r->start), cyc(r->end),
                cyc(record_own(r)), cyc(r->own_entry), cyc(r->own_body), cyc(r->own_exit),
                r->insns_end - r->insns_start, r->user_eip);
        csv_field(&t->out, sym);
        trace_out_puts(&t->out, ",user,\n");
        break;
    case TRACE_JSON:
        trace_json_record(&t->json, r, sym);
        break;
    }
}

/* ---- listening ---- */

static void on_record(void *ctx, const struct syscall_record *r)
{
    struct trace *t = ctx;
    flush_insn(t);
    if (trace_in_window(t, r->start, r->end))
        write_record(t, r);
}

static void on_user_span(void *ctx, uint32_t pid, uint64_t start, uint64_t end)
{
    struct trace *t = ctx;
    flush_insn(t);
    write_span(t, pid, "user", start, end);
}

/* Names and the time switched out: on the JSON's tracks only. */
static void on_named(void *ctx, uint32_t pid, const char *comm)
{
    struct trace *t = ctx;
    if (t->o.format == TRACE_JSON)
        trace_json_name(&t->json, pid, comm);
}

static void on_switched(void *ctx, uint32_t pid, uint64_t out, uint64_t in)
{
    struct trace *t = ctx;
    flush_insn(t);
    if (t->o.format == TRACE_JSON && trace_in_window(t, out, in))
        trace_json_slice(&t->json, pid, "switched out", "sched", out, in, NULL);
}

static void on_boot(void *ctx, uint64_t end, uint32_t entry)
{
    struct trace *t = ctx;
    if (t->syms)
        symbols_note_start(t->syms, entry);
    write_span(t, 0, "boot", 0, end);
}

static void on_signal(void *ctx, const struct signal_record *s)
{
    struct trace *t = ctx;
    char args[128];
    flush_insn(t);
    if (!trace_in_window(t, s->when, s->when))
        return;
    if (t->o.format == TRACE_JSON) {
        snprintf(args, sizeof args, "{\"si_code\":%d,\"si_addr\":\"%08x\",\"handled\":%s}",
                 s->code, s->addr, s->handled ? "true" : "false");
        trace_json_instant(&t->json, s->pid, signal_name(s->signo), s->when, args);
    } else if (t->o.format == TRACE_CSV) {
        trace_out_printf(&t->out, "signal,,%s,,,%u,,,,,,,,%.2f,%.2f,0.00,,,,,%08x,,user,\n",
                signal_name(s->signo), s->signo, cyc(s->when), cyc(s->when), s->addr);
    } else {
        trace_out_printf(&t->out, "%6s signal   %s%s si_code=%d si_addr=%#x at %.2f\n", "-",
                signal_name(s->signo), s->handled ? " to its handler," : "", s->code, s->addr,
                cyc(s->when));
    }
}

static void on_exit_record(void *ctx, const struct exit_record *e)
{
    struct trace *t = ctx;
    char args[64];
    flush_insn(t);
    if (!trace_in_window(t, e->when, e->when))
        return;
    const char *how = e->killed ? "killed" : "exited";
    if (t->o.format == TRACE_JSON) {
        snprintf(args, sizeof args, "{\"%s\":%d}", e->killed ? "signal" : "status", e->status);
        trace_json_instant(&t->json, e->pid, how, e->when, args);
    } else if (t->o.format == TRACE_CSV) {
        trace_out_printf(&t->out, "%s,,,,,,,,,,,,%d,%.2f,%.2f,0.00,,,,,,,user,\n", how, e->status,
                cyc(e->when), cyc(e->when));
    } else {
        trace_out_printf(&t->out, "%6s %-8s %d at %.2f\n", "-", how, e->status, cyc(e->when));
    }
}

static bool wanted(const struct trace *t, bool kernel)
{
    return t->o.insns == INSNS_ALL || (t->o.insns == INSNS_KERNEL) == kernel;
}

/* An instruction starts at start: the one seen before has completed. It
 * was partly refunded (refund_current_insn) if it ended later: then it
 * ended here. */
static void settle_pending(struct trace *t, uint64_t start)
{
    if (!t->pending.valid)
        return;
    if (start >= t->pending.start && start < t->pending.end)
        t->pending.end = start;
    /* (the usual case, without flush_insn's call) */
    if (t->pending.written && ahead_right(t, &t->pending))
        t->pending.valid = false;
    else
        flush_insn(t);
}

/* The index-th instruction of the current block's text into to: once
 * the block has its texts, each is a whole INSN_TEXT_MAX, terminated. */
static void copy_insn_text(struct machine *m, uint32_t index, char to[INSN_TEXT_MAX])
{
    const struct block *b = m->cur_block;
    if (b->text && index < b->ninsns) {
        memcpy(to, b->text[index], INSN_TEXT_MAX);
        return;
    }
    const char *text = block_insn_text(&m->blocks, b, index);
    size_t n = strnlen(text, INSN_TEXT_MAX - 1);
    memcpy(to, text, n);
    to[n] = 0;
}

/* The index-th instruction of the current block, which ran in [start,
 * end), is the one seen last. */
static struct trace_insn *hold_insn(struct trace *t, struct machine *m, uint32_t index,
                                    uint64_t start, uint64_t end)
{
    const struct insn *in = &m->cur_block->insns[index];
    struct trace_insn *p = &t->pending;
    copy_insn_text(m, index, p->text);
    p->pid = t->sys->task ? t->sys->task->pid : 0;
    p->addr = in->addr;
    p->kernel = in_kernel_ram(in->addr);
    p->start = start;
    p->end = end;
    p->valid = true;
    p->memo_len = 0;
    p->written = false;
    return p;
}

/*
 * The index-th instruction of the current block ran, with its cost, from
 * start (the block's start and the cost of those before it): it ends when
 * the next one starts (or faults, and was not charged: see on_delivery).
 * One the next is told with (last false) is written at once; the last one
 * told waits for the next event, which may cut it short.
 */
static void insn_ran(struct trace *t, struct machine *m, const struct line_memo **lm,
                     uint32_t index, uint64_t start, bool last)
{
    const struct insn *in = &m->cur_block->insns[index];
    settle_pending(t, start);
    /* Boot is the same every run; tracing starts with the program. */
    if (index >= m->cur_limit || !t->sys->user_started)
        return;
    bool kernel = in_kernel_ram(in->addr);
    if (!wanted(t, kernel))
        return;
    uint64_t end = start + in->cost;
    uint64_t cost = in->cost;
    /* A rep op, the last of its block, is charged run by run (machine.h):
     * this run's start-up and element, at the block's entry or by its code
     * hook (which acts after the instruction is told). */
    if (in->flags & SPECIAL_REP && m->rep_charged == in) {
        cost = rep_step_cost(m, in, m->rep_step);
        end = m->cycles;
    } else if (in->flags & SPECIAL_REP) {
        cost = rep_step_cost(m, in, rep_step_of(m, in));
        end = m->cycles + cost;
    }
    if (!trace_in_window(t, end - cost, end))
        return;
    if (!last && t->o.format != TRACE_JSON && cost == in->cost &&
        write_memo_line(t, m, lm, index, end - cost, end))
        return;
    trace_out_sync(&t->out);
    if (!last) {
        const char *text = block_insn_text(&m->blocks, m->cur_block, index);
        write_line(t, t->sys->task ? t->sys->task->pid : 0, in->addr, kernel, text, end - cost,
                   end);
        return;
    }
    struct trace_insn *p = hold_insn(t, m, index, end - cost, end);
    if (t->o.format != TRACE_JSON && cost == in->cost)
        keep_memo_part(t, m, index, cost, p);
}

/* Does every instruction of the current block's [from, to), the first
 * starting at start, make its memo's line as it is: wanted, in the
 * window, whole, and no rep op? */
static bool run_plain(const struct trace *t, const struct machine *m, const struct line_memo *lm,
                      uint32_t from, uint32_t to, uint64_t start)
{
    const struct block *b = m->cur_block;
    unsigned want = t->o.insns == INSNS_ALL ? MEMO_USER | MEMO_KERNEL
                    : t->o.insns == INSNS_KERNEL ? MEMO_KERNEL : MEMO_USER;
    if (lm->rep || (lm->modes & ~want) || to > m->cur_limit)
        return false;
    if (!t->o.from && !t->o.to)
        return true;
    uint64_t last = start + block_prefix_cost(b, to - 1) - block_prefix_cost(b, from);
    return trace_in_window(t, start, start + b->insns[from].cost) &&
           trace_in_window(t, last, last + b->insns[to - 1].cost);
}

/* The current block's [from, to), which ran from *start, written from its
 * memo in one go (*start moved past them, *last_at where the last line
 * is in the buffer); false if they must go one by one through insn_ran. */
static bool write_run(struct trace *t, struct machine *m, uint32_t from, uint32_t to,
                      uint64_t *start, size_t *last_at)
{
    const struct block *b = m->cur_block;
    if (t->o.format == TRACE_JSON || !t->sys->user_started)
        return false;
    settle_pending(t, *start);
    const struct line_memo *lm = line_memo_of(&t->memo, &m->blocks, (struct block *)b);
    if (!lm || !run_plain(t, m, lm, from, to, *start))
        return false;
    char *out = trace_out_room(&t->out, lm->off[to] - lm->off[from] +
                                        (to - from) * TRACE_TIMES_MAX + MEMO_SLACK);
    if (!out)
        return false;
    char *last, *p = line_memo_run(lm, b, from, to, t->times, &t->form, start, out,
                                           &last);
    *last_at = t->out.len + (size_t)(last - out);
    trace_out_commit(&t->out, (size_t)(p - out));
    return true;
}

/* The index-th instruction of the current block, which ended at end,
 * is the one seen last, and its line was written at out.len at. */
static void write_ahead(struct trace *t, struct machine *m, uint32_t index, uint64_t end,
                        size_t at)
{
    uint64_t cost = m->cur_block->insns[index].cost;
    struct trace_insn *p = hold_insn(t, m, index, end - cost, end);
    p->memo_cost = cost;
    p->memo_gen = sym_generation(t);
    p->written = true;
    p->written_at = at;
}

static void on_insns(void *ctx, struct machine *m, uint32_t from, uint32_t to)
{
    const struct block *b = m->cur_block;
    if (!b) {
        /* code with no decoded block ran: the one before it completed */
        flush_insn(ctx);
        return;
    }
    struct trace *t = ctx;
    const struct line_memo *lm = NULL;
    uint64_t start = m->block_start_cycles + (from ? block_prefix_cost(b, from) : 0);
    size_t at;
    /* the last told waits for the next event, which may cut it short:
     * written ahead to a file of its own (flush_insn), else not yet */
    if (!t->out.f && to > from && write_run(t, m, from, to, &start, &at)) {
        write_ahead(t, m, to - 1, start, at);
        return;
    }
    if (t->out.f && to > from + 1 && write_run(t, m, from, to - 1, &start, &at))
        from = to - 1;
    for (uint32_t i = from; i < to; i++) {
        insn_ran(ctx, m, &lm, i, start, i + 1 == to);
        start += b->insns[i].cost;
    }
    trace_out_sync(&((struct trace *)ctx)->out);
}

/* A fault: the instruction seen last did not complete, and its cost was
 * refunded. It stays in the trace, taking no time. */
static void on_delivery(void *ctx, struct machine *m, const struct delivery_event *e)
{
    struct trace *t = ctx;
    (void)m;
    if (e->kind == EVENT_FAULT && t->pending.valid)
        t->pending.end = t->pending.start;
    flush_insn(t);
}

static void on_sysenter(void *ctx, struct machine *m, uint32_t insn_addr)
{
    struct trace *t = ctx;
    (void)insn_addr;
    if (t->syms)
        symbols_note_sysenter(t->syms, m);
}

int trace_attach(struct trace *t, struct machine *m, struct syscall_tracker *sys,
                 struct symtab *syms)
{
    const struct syscall_listener l = {
        .ctx = t, .record = on_record, .user_span = on_user_span, .boot = on_boot,
        .signal = on_signal, .exit = on_exit_record, .named = on_named, .switched = on_switched,
    };
    const struct machine_observer o = {
        .ctx = t, .insns = t->o.insns != INSNS_NONE ? on_insns : NULL, .delivery = on_delivery,
        .sysenter = on_sysenter,
    };
    t->m = m;
    t->sys = sys;
    t->syms = syms;
    t->memo.syms = syms;
    if (syscalls_listen(sys, &l))
        return -1;
    return machine_observe(m, &o);
}

int trace_close(struct trace *t)
{
    if (!t)
        return 0;
    flush_insn(t);
    if (t->o.format == TRACE_JSON)
        trace_json_end(&t->json);
    int rc = trace_out_close(&t->out), why = errno;
    free(t);
    errno = why;
    return rc;
}
