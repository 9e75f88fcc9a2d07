#include "observe/trace_json.h"
#include <inttypes.h>
#include "machine/names.h"

/* The boot's track: no guest process has pid 0 but the idle task, which
 * runs no user code (Linux's swapper). */
#define BOOT_PID 0

/* Centicycles as integer nanoseconds of the modeled clock. */
static uint64_t trace_ns(const struct json_trace *t, uint64_t centi)
{
    /* cycles * 1000 / MHz = centicycles * 10 / MHz, rounded to nearest */
    return (centi * 10 + t->clock_mhz / 2) / t->clock_mhz;
}

static void json_string(struct trace_out *f, const char *s)
{
    trace_out_putc(f, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            trace_out_printf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            trace_out_printf(f, "\\u%04x", (unsigned char)*s);
        else
            trace_out_putc(f, *s);
    }
    trace_out_putc(f, '"');
}

/* s as the inside of a JSON string, cut to fit out. */
static const char *escaped(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 7 < n; s++) {
        if (*s == '"' || *s == '\\')
            k += (size_t)snprintf(out + k, n - k, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            k += (size_t)snprintf(out + k, n - k, "\\u%04x", (unsigned char)*s);
        else
            out[k++] = *s;
    }
    out[k] = 0;
    return out;
}

static void event_start(struct json_trace *t)
{
    trace_out_puts(t->out, t->first_event ? "" : ",\n");
    t->first_event = false;
}

static void print_us(struct trace_out *f, uint64_t ns)
{
    trace_out_printf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void metadata(struct json_trace *t, const char *what, uint32_t pid, const char *name)
{
    event_start(t);
    trace_out_printf(t->out, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"args\":{\"name\":", what, pid, pid);
    json_string(t->out, name);
    trace_out_puts(t->out, "}}");
}

void trace_json_begin(struct json_trace *t, const char *name)
{
    trace_out_puts(t->out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"modeled cycles at the CPU "
          "model's clock\",\"program\":");
    json_string(t->out, name);
    trace_out_puts(t->out, "},\"traceEvents\":[\n");
    metadata(t, "process_name", BOOT_PID, "kernel");
    metadata(t, "thread_name", BOOT_PID, "boot");
}

void trace_json_name(struct json_trace *t, uint32_t pid, const char *comm)
{
    metadata(t, "process_name", pid, comm);
    metadata(t, "thread_name", pid, comm);
}

void trace_json_boot(struct json_trace *t, uint64_t end)
{
    trace_json_slice(t, BOOT_PID, "boot", "kernel", 0, end, NULL);
}

void trace_json_end(struct json_trace *t)
{
    trace_out_puts(t->out, "\n]}\n");
}

void trace_json_slice(struct json_trace *t, uint32_t pid, const char *name, const char *cat,
                      uint64_t start, uint64_t end, const char *args)
{
    uint64_t s = trace_ns(t, start), e = trace_ns(t, end);
    event_start(t);
    trace_out_puts(t->out, "{\"name\":");
    json_string(t->out, name);
    trace_out_printf(t->out, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"ts\":", cat, pid, pid);
    print_us(t->out, s);
    trace_out_puts(t->out, ",\"dur\":");
    print_us(t->out, e - s);
    if (args)
        trace_out_printf(t->out, ",\"args\":%s", args);
    trace_out_putc(t->out, '}');
}

void trace_json_instant(struct json_trace *t, uint32_t pid, const char *name, uint64_t when,
                        const char *args)
{
    event_start(t);
    trace_out_puts(t->out, "{\"name\":");
    json_string(t->out, name);
    trace_out_printf(t->out, ",\"cat\":\"process\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%" PRIu32
                     ",\"tid\":%" PRIu32 ",\"ts\":", pid, pid);
    print_us(t->out, trace_ns(t, when));
    if (args)
        trace_out_printf(t->out, ",\"args\":%s", args);
    trace_out_putc(t->out, '}');
}

void trace_json_record(struct json_trace *t, const struct syscall_record *r, const char *from)
{
    uint64_t body = r->body_start ? r->body_start : r->end;
    uint64_t exit = r->exit_start ? r->exit_start : r->end;
    char esym[256], args[768];
    escaped(esym, sizeof esym, from);
    /* the call's own cycles (rule X); the slice spans them and the rest */
    snprintf(args, sizeof args,
             "{\"nr\":%u,\"path\":\"%s\",\"return\":\"%s\",\"result\":%d,"
             "\"round_trip_cycles\":%.2f,\"entry_cycles\":%.2f,\"body_cycles\":%.2f,"
             "\"exit_cycles\":%.2f,\"interrupt_cycles\":%.2f,\"switched_out_cycles\":%.2f,"
             "\"from\":\"%s\",\"from_addr\":\"%08x\",\"cpu\":%u}",
             r->nr, sys_path_name(r->path), sys_return_name(r->ret), r->result,
             centi_to_cycles(record_own(r)), centi_to_cycles(r->own_entry),
             centi_to_cycles(r->own_body), centi_to_cycles(r->own_exit),
             centi_to_cycles(r->ext_entry + r->ext_body + r->ext_exit),
             centi_to_cycles(r->switched), esym, r->user_eip, r->cpu);
    bool trap = r->path == PATH_TRAP;
    trace_json_slice(t, r->pid, trap ? vector_name(r->nr) : syscall_name(r->nr),
                     trap ? "trap" : "syscall", r->start, r->end, args);
    if (trap)
        return;
    trace_json_slice(t, r->pid, "entry", "phase", r->start, body, NULL);
    if (r->body_start)
        trace_json_slice(t, r->pid, "body", "phase", body, exit, NULL);
    if (r->exit_start)
        trace_json_slice(t, r->pid, "exit", "phase", exit, r->end, NULL);
}

void trace_json_insn(struct json_trace *t, uint32_t pid, uint32_t addr, bool kernel,
                     const char *text, const char *symbol, uint64_t start, uint64_t end)
{
    char esym[256], args[384];
    escaped(esym, sizeof esym, symbol);
    snprintf(args, sizeof args, "{\"addr\":\"%08x\",\"symbol\":\"%s\",\"mode\":\"%s\","
             "\"cycles\":%.2f}", addr, esym, kernel ? "kernel" : "user",
             centi_to_cycles(end - start));
    trace_json_slice(t, pid, text, "insn", start, end, args);
}
