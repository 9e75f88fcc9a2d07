/* Building a machine for one run, running it, and tearing it down. */
#include "machine.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace.h"

uint32_t reg_read(struct machine *m, int reg)
{
    uint32_t v = 0;
    uc_reg_read(m->uc, reg, &v);
    return v;
}

void reg_write(struct machine *m, int reg, uint32_t value)
{
    uc_reg_write(m->uc, reg, &value);
}

void machine_stop(struct machine *m, enum stop_reason why, const char *fmt, ...)
{
    if (m->stop != STOP_NONE)
        return;
    m->stop = why;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->message, sizeof m->message, fmt, ap);
    va_end(ap);
    uc_emu_stop(m->uc);
}

static int fail(struct machine *m, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct machine *m, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->message, sizeof m->message, fmt, ap);
    va_end(ap);
    return status;
}

/* The program's file image goes to FILE_AREA_ADDR; the kernel parses it. */
static int load_program_file(struct machine *m, struct boot_record *br)
{
    const char *path = m->opts->program;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return fail(m, errno == ENOENT ? 127 : 126, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(m, 126, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > FILE_AREA_MAX) {
        close(fd);
        return fail(m, 126, "%s: too large (%lld bytes; at most %u)", path,
                    (long long)st.st_size, FILE_AREA_MAX);
    }
    uint8_t *dst = guest_ptr(&m->mem, FILE_AREA_ADDR, (uint32_t)st.st_size);
    size_t done = 0;
    while (dst && done < (size_t)st.st_size) {
        ssize_t n = read(fd, dst + done, (size_t)st.st_size - done);
        if (n <= 0) {
            close(fd);
            return fail(m, 126, "%s: read error", path);
        }
        done += (size_t)n;
    }
    close(fd);
    br->image_addr = FILE_AREA_ADDR;
    br->image_size = (uint32_t)st.st_size;
    return 0;
}

static int pack_strings(struct machine *m, char *const *strs, int count, uint32_t *used)
{
    for (int i = 0; i < count; i++) {
        size_t len = strlen(strs[i]) + 1;
        if (len > BOOT_ARGS_MAX - *used)
            return fail(m, 126, "argument list too long (more than %u bytes)", BOOT_ARGS_MAX);
        memcpy(guest_ptr(&m->mem, BOOT_ARGS_ADDR + *used, (uint32_t)len), strs[i], len);
        *used += (uint32_t)len;
    }
    return 0;
}

static int write_boot_record(struct machine *m)
{
    struct boot_record br = {
        .magic = BOOT_MAGIC,
        .version = BOOT_VERSION,
        .cpu_khz = m->cpu.model->clock_mhz * 1000,
        .epoch_sec = m->opts->epoch_sec,
    };
    int rc = load_program_file(m, &br);
    if (rc)
        return rc;
    int envc = 0;
    while (m->opts->envp && m->opts->envp[envc])
        envc++;
    uint32_t used = 0;
    if ((rc = pack_strings(m, m->opts->argv, m->opts->argc, &used)) ||
        (rc = pack_strings(m, m->opts->envp, envc, &used)))
        return rc;
    br.args_addr = BOOT_ARGS_ADDR;
    br.args_size = used;
    br.argc = (uint32_t)m->opts->argc;
    br.envc = (uint32_t)envc;
    for (int i = 0; i < 16; i++)
        br.random[i] = (uint8_t)(0x5a ^ (i * 37));
    memcpy(guest_ptr(&m->mem, BOOT_RECORD_ADDR, sizeof br), &br, sizeof br);
    return 0;
}

static int add_hooks(struct machine *m)
{
    uc_hook h;
    uc_err e = UC_ERR_OK;
    if (!m->opts->no_cycle_model)
        e = uc_hook_add(m->uc, &h, UC_HOOK_BLOCK, on_block, m, 1, 0);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INTR, on_interrupt, m, 1, 0);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN_INVALID, on_invalid_insn, m, 1, 0);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN, on_sysenter, m, 1, 0, UC_X86_INS_SYSENTER);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN, on_cpuid, m, 1, 0, UC_X86_INS_CPUID);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_INSN, on_hypercall, m, 1, 0, UC_X86_INS_OUT);
    if (!e && m->opts->trace_insns && m->trace)
        e = uc_hook_add(m->uc, &h, UC_HOOK_CODE, on_trace_insn, m, 1, 0);
    return e == UC_ERR_OK ? 0 : -1;
}

int machine_init_bare(struct machine *m, const struct run_options *opts)
{
    char err[256];
    memset(m, 0, sizeof *m);
    m->opts = opts;
    if (cpu_config_parse(opts->cpu_spec, opts->no_sep, &m->cpu, err, sizeof err))
        return fail(m, 2, "%s", err);
    for (int i = 0; i < opts->ncost_overrides; i++)
        if (cpu_cost_override(&m->cpu, opts->cost_overrides[i], err, sizeof err))
            return fail(m, 2, "%s", err);
    if (engine_probe_layout(&m->layout, err, sizeof err))
        return fail(m, 125, "%s", err);
    if (uc_open(UC_ARCH_X86, UC_MODE_32, &m->uc) != UC_ERR_OK)
        return fail(m, 125, "cannot open a Unicorn x86 engine");
    if (memory_map_all(m->uc, &m->mem))
        return fail(m, 125, "cannot map guest memory");
    if (uc_context_alloc(m->uc, &m->scratch_ctx) != UC_ERR_OK)
        return fail(m, 125, "cannot allocate an engine context");
    if (block_cache_init(&m->blocks, m->cpu.cost))
        return fail(m, 125, "cannot initialise Capstone");
    if (opts->trace_path) {
        enum trace_format fmt = TRACE_TEXT;
        if (opts->trace_format && trace_parse_format(opts->trace_format, &fmt))
            return fail(m, 2, "unknown trace format '%s' (text, json or csv)",
                        opts->trace_format);
        m->trace = trace_open(opts->trace_path, fmt, opts->trace_insns,
                              m->cpu.model->clock_mhz, err, sizeof err);
        if (!m->trace)
            return fail(m, 2, "%s", err);
    }
    if (add_hooks(m))
        return fail(m, 125, "cannot install engine hooks");
    return 0;
}

int machine_init(struct machine *m, const struct run_options *opts)
{
    char err[256];
    int rc = machine_init_bare(m, opts);
    if (rc)
        return rc;
    size_t ksize = (size_t)(kernel_image_end - kernel_image_start);
    if (ksyms_load(&m->ksyms, kernel_image_start, ksize, err, sizeof err) ||
        kernel_load(kernel_image_start, ksize, &m->mem, err, sizeof err))
        return fail(m, 125, "%s", err);
    syscalls_init(m);
    if ((rc = write_boot_record(m)))
        return rc;
    reg_write(m, UC_X86_REG_EBX, BOOT_RECORD_ADDR);
    reg_write(m, UC_X86_REG_EIP, m->ksyms.entry);
    return 0;
}

void machine_destroy(struct machine *m)
{
    if (m->trace)
        trace_close(m->trace);
    m->trace = NULL;
    block_cache_free(&m->blocks);
    ksyms_free(&m->ksyms);
    if (m->scratch_ctx)
        uc_context_free(m->scratch_ctx);
    if (m->uc)
        uc_close(m->uc);
    memory_unmap_all(&m->mem);
    m->uc = NULL;
    m->scratch_ctx = NULL;
}

/*
 * Run until something stops the machine. KERNEL_BASE is the "until"
 * address: kernel memory there holds no code and user mode cannot fetch
 * from a supervisor page, so reaching it never ends a run early.
 */
int machine_run(struct machine *m)
{
    while (m->stop == STOP_NONE) {
        uint32_t eip = reg_read(m, UC_X86_REG_EIP);
        uc_err e = uc_emu_start(m->uc, eip, KERNEL_BASE, 0, 0);
        if (m->stop != STOP_NONE)
            break;
        if (m->pending_ud) {
            deliver_pending_ud(m);
            continue;
        }
        eip = reg_read(m, UC_X86_REG_EIP);
        if (e != UC_ERR_OK)
            machine_stop(m, STOP_MACHINE, "engine error at eip %08x: %s", eip, uc_strerror(e));
        else
            machine_stop(m, STOP_MACHINE, "the machine halted at eip %08x", eip);
    }
    switch (m->stop) {
    case STOP_EXIT: return m->exit_status;
    case STOP_KILLED: return m->exit_status;
    case STOP_EXEC_ERROR: return 126;
    case STOP_BUDGET: return 124;
    default: return 125;
    }
}
