#include "strace.h"
#include <stdio.h>
#include "names.h"

/* Is argument i of system call nr a path name? (The other kinds are shown
 * in hex, for now.) */
static bool is_path(uint32_t nr, int i)
{
    const struct syscall_info *s = syscall_info(nr);
    return s && i < s->nargs && s->kind[i] == ARG_PATH;
}

/* A user string argument, quoted, at most 96 bytes of it. */
static void print_user_string(const struct machine *m, uint32_t addr)
{
    const uint32_t max = 96;
    const uint8_t *p = NULL;
    uint32_t n = 0;
    if (addr >= USER_SPACE_BASE && addr < USER_SPACE_TOP)
        p = guest_ptr(&m->mem, addr, USER_SPACE_TOP - addr < max ? USER_SPACE_TOP - addr : max);
    if (!p) {
        fprintf(stderr, "%#x", addr);
        return;
    }
    fputc('"', stderr);
    for (; n < max && addr + n < USER_SPACE_TOP && p[n]; n++) {
        if (p[n] == '"' || p[n] == '\\')
            fprintf(stderr, "\\%c", p[n]);
        else if (p[n] >= 0x20 && p[n] < 0x7f)
            fputc(p[n], stderr);
        else
            fprintf(stderr, "\\x%02x", p[n]);
    }
    fputs(n == max && p[n - 1] ? "\"..." : "\"", stderr);
}

static void print_text(const char *s)
{
    fputc('"', stderr);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(stderr, "\\%c", *s);
        else if (*s >= 0x20 && *s < 0x7f)
            fputc(*s, stderr);
        else
            fprintf(stderr, "\\x%02x", (uint8_t)*s);
    }
    fputc('"', stderr);
}

void strace_print(const struct machine *m, const struct syscall_record *r)
{
    /* as strace -f: the first process plain, the others named */
    if (r->pid > 1)
        fprintf(stderr, "[pid %u] ", r->pid);
    if (r->path == PATH_TRAP) {
        fprintf(stderr, "--- %s at %08x error %#x ---\n", vector_name(r->nr), r->user_eip,
                r->error_code);
        return;
    }
    fprintf(stderr, "[%s/%s] %s(", sys_path_name(r->path), sys_return_name(r->ret),
            syscall_name(r->nr));
    for (int i = 0; i < 6; i++) {
        if (i)
            fputs(", ", stderr);
        if (r->path_arg == i + 1)
            print_text(r->path_text);
        else if (is_path(r->nr, i))
            print_user_string(m, r->args[i]);
        else
            fprintf(stderr, "%#x", r->args[i]);
    }
    fputc(')', stderr);
    if (r->ret == RET_EXITED)
        fputs(" = ?\n", stderr);
    else
        fprintf(stderr, " = %d <%.0f cycles>\n", r->result, centi_to_cycles(r->end - r->start));
}

static void strace_on_record(void *ctx, const struct syscall_record *r)
{
    strace_print(ctx, r);
}

int strace_attach(struct machine *m, struct syscall_tracker *sys)
{
    const struct syscall_listener l = { .ctx = m, .record = strace_on_record };
    return syscalls_listen(sys, &l);
}
