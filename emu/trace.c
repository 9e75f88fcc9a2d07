#include "trace.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "names.h"

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

struct trace *trace_open(const char *path, enum trace_format format, bool insns,
                         uint32_t clock_mhz, char *err, size_t errlen)
{
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write trace %s: %s", path, strerror(errno));
        return NULL;
    }
    struct trace *t = calloc(1, sizeof *t);
    if (!t) {
        if (f != stdout)
            fclose(f);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->f = f;
    t->format = format;
    t->insns = insns;
    t->first_event = true;
    t->cycles_per_us = clock_mhz;
    if (format == TRACE_JSON)
        fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
    else if (format == TRACE_CSV)
        fputs(insns ? "kind,seq,name,path,return,addr,text,nr,arg0,arg1,arg2,arg3,arg4,arg5,"
                      "result,start_cycle,entry_cycles,body_cycles,exit_cycles,total_cycles,"
                      "insns,cost\n"
                    : "kind,seq,name,path,return,nr,arg0,arg1,arg2,arg3,arg4,arg5,result,"
                      "start_cycle,entry_cycles,body_cycles,exit_cycles,total_cycles,insns\n",
              f);
    return t;
}

static double cyc(uint64_t centi)
{
    return centi_to_cycles(centi);
}

static void json_event(struct trace *t, const char *name, const char *cat, int tid,
                       uint64_t start, uint64_t end, const char *args)
{
    fprintf(t->f, "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,"
            "\"ts\":%.4f,\"dur\":%.4f%s%s}",
            t->first_event ? "" : ",\n", name, cat, tid,
            cyc(start) / t->cycles_per_us, cyc(end - start) / t->cycles_per_us,
            args ? ",\"args\":" : "", args ? args : "");
    t->first_event = false;
}

static const char *record_name(const struct syscall_record *r)
{
    return r->path == PATH_TRAP ? vector_name(r->nr) : syscall_name(r->nr);
}

void trace_syscall(struct trace *t, const struct syscall_record *r)
{
    uint64_t body = r->body_start ? r->body_start : r->end;
    uint64_t exit = r->exit_start ? r->exit_start : r->end;
    const char *name = record_name(r);
    const char *kind = r->path == PATH_TRAP ? "trap" : "syscall";

    switch (t->format) {
    case TRACE_TEXT:
        fprintf(t->f, "%6" PRIu64 " %-8s %-9s %-16s nr=%-3u ret=%-8d in=%-8s out=%-7s "
                "entry=%8.2f body=%8.2f exit=%8.2f total=%8.2f insns=%" PRIu64
                " start=%.2f\n",
                r->seq, kind, sys_path_name(r->path), name, r->nr, r->result,
                sys_path_name(r->path), sys_return_name(r->ret), cyc(body - r->start),
                cyc(exit - body), cyc(r->end - exit), cyc(r->end - r->start),
                r->insns_end - r->insns_start, cyc(r->start));
        if (r->kernel_faults)
            fprintf(t->f, "%6s %u fault(s) taken and fixed up in the kernel\n", "",
                    r->kernel_faults);
        break;
    case TRACE_CSV:
        fprintf(t->f, "%s,%" PRIu64 ",%s,%s,%s,", kind, r->seq, name, sys_path_name(r->path),
                sys_return_name(r->ret));
        if (t->insns)
            fputs(",,", t->f);
        fprintf(t->f, "%u,%u,%u,%u,%u,%u,%u,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%" PRIu64 "%s\n",
                r->nr, r->args[0], r->args[1], r->args[2], r->args[3], r->args[4],
                r->args[5], r->result, cyc(r->start), cyc(body - r->start),
                cyc(exit - body), cyc(r->end - exit), cyc(r->end - r->start),
                r->insns_end - r->insns_start, t->insns ? "," : "");
        break;
    case TRACE_JSON: {
        char args[256];
        snprintf(args, sizeof args,
                 "{\"nr\":%u,\"path\":\"%s\",\"return\":\"%s\",\"result\":%d,"
                 "\"cycles\":%.2f}",
                 r->nr, sys_path_name(r->path), sys_return_name(r->ret), r->result,
                 cyc(r->end - r->start));
        char label[64];
        snprintf(label, sizeof label, "kernel: %s", name);
        json_event(t, label, sys_path_name(r->path), 1, r->start, r->end, args);
        json_event(t, "entry", "phase", 1, r->start, body, NULL);
        if (r->body_start)
            json_event(t, "body", "phase", 1, body, exit, NULL);
        if (r->exit_start)
            json_event(t, "exit", "phase", 1, exit, r->end, NULL);
        break;
    }
    }
}

void trace_user_span(struct trace *t, uint64_t start, uint64_t end)
{
    if (t->format == TRACE_JSON)
        json_event(t, "user", "user", 1, start, end, NULL);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void trace_insn(struct trace *t, uint32_t addr, bool kernel, const char *text,
                uint32_t cost, uint64_t total)
{
    switch (t->format) {
    case TRACE_TEXT:
        fprintf(t->f, "  %08x %c %-40s +%-7.2f %12.2f\n", addr, kernel ? 'k' : 'u', text,
                cyc(cost), cyc(total));
        break;
    case TRACE_CSV:
        fprintf(t->f, "insn,,,%s,,%08x,\"%s\",,,,,,,,,%.2f,,,,,,%.2f\n",
                kernel ? "kernel" : "user", addr, text, cyc(total), cyc(cost));
        break;
    case TRACE_JSON:
        fprintf(t->f, "%s{\"name\":", t->first_event ? "" : ",\n");
        json_string(t->f, text);
        fprintf(t->f, ",\"cat\":\"insn\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":2,"
                "\"ts\":%.4f,\"args\":{\"addr\":\"%08x\",\"cost\":%.2f,\"mode\":\"%s\"}}",
                cyc(total) / t->cycles_per_us, addr, cyc(cost), kernel ? "kernel" : "user");
        t->first_event = false;
        break;
    }
}

int trace_close(struct trace *t)
{
    if (!t)
        return 0;
    if (t->format == TRACE_JSON)
        fputs("\n]}\n", t->f);
    /* a write that failed on the way (the buffer went out and was lost)
     * leaves only the error indicator: fclose alone may not tell */
    int rc = ferror(t->f);
    if (t->f == stdout)
        rc |= fflush(t->f);
    else
        rc |= fclose(t->f);
    free(t);
    return rc ? -1 : 0;
}

/* An instruction about to run, with its cost and the total after it. */
static void trace_on_insn(void *ctx, struct machine *m, uint32_t addr, uint32_t size)
{
    struct trace *t = ctx;
    uint32_t index;
    const struct insn *in = block_find_insn(m->cur_block, addr, &index);
    /* Boot is the same every run; tracing starts with the program. */
    if (!in || index >= m->cur_limit || !t->sys->user_started)
        return;
    const uint8_t *code = guest_ptr(&m->mem, addr, size);
    char text[192] = "?";
    cs_insn *ci = NULL;
    if (code && cs_disasm(m->blocks.capstone, code, size, addr, 1, &ci) == 1) {
        snprintf(text, sizeof text, "%s %s", ci->mnemonic, ci->op_str);
        cs_free(ci, 1);
    }
    uint64_t total = m->block_start_cycles + block_prefix_cost(m->cur_block, index + 1);
    trace_insn(t, addr, in_kernel_ram(addr), text, in->cost, total);
}

static void trace_on_record(void *ctx, const struct syscall_record *r)
{
    trace_syscall(ctx, r);
}

static void trace_on_user_span(void *ctx, uint64_t start, uint64_t end)
{
    trace_user_span(ctx, start, end);
}

int trace_attach(struct trace *t, struct machine *m, struct syscall_tracker *sys)
{
    const struct syscall_listener l = {
        .ctx = t, .record = trace_on_record, .user_span = trace_on_user_span,
    };
    const struct machine_observer o = { .ctx = t, .insn = trace_on_insn };
    t->sys = sys;
    if (syscalls_listen(sys, &l))
        return -1;
    return t->insns ? machine_observe(m, &o) : 0;
}
