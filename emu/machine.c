/* Building a machine for one run, running it, and tearing it down. */
#include "machine.h"
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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
    if (m->opts->program_image) {
        size_t size = m->opts->program_size;
        if (size > FILE_AREA_MAX)
            return fail(m, 126, "%s: too large (%zu bytes; at most %u)", path, size,
                        FILE_AREA_MAX);
        if (size)
            memcpy(guest_ptr(&m->mem, FILE_AREA_ADDR, (uint32_t)size),
                   m->opts->program_image, size);
        br->image_addr = FILE_AREA_ADDR;
        br->image_size = (uint32_t)size;
        return 0;
    }
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
    char *const *argv = m->opts->argv;
    if (m->opts->argv0 && m->opts->argc > 0) {
        char *const first[1] = { (char *)m->opts->argv0 };
        if ((rc = pack_strings(m, first, 1, &used)))
            return rc;
        argv++;
    }
    int rest = m->opts->argc - (argv - m->opts->argv);
    if ((rc = pack_strings(m, argv, rest, &used)) ||
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

/*
 * Every 32-bit address is backed (memory.c), yet the engine, whose
 * addresses are 64-bit, finds an access unmapped when it runs past
 * 0xffffffff: a 4-byte read at 0xfffffffe, code at the end of the vsyscall
 * page. A 32-bit CPU wraps to page 0, the NULL guard that is never mapped,
 * and raises #PF there; machine_run delivers that instead of failing.
 */
static bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                        int64_t value, void *user)
{
    struct machine *m = user;
    (void)uc;
    (void)size;
    (void)value;
    if (address > UINT32_MAX) {
        m->pending_wrap = true;
        m->wrap_write = type == UC_MEM_WRITE_UNMAPPED;
        m->wrap_addr = (uint32_t)address;
    }
    return false;
}

/* Not present; a write or a read (an instruction fetch reads); user or
 * supervisor by the CPL. */
static void deliver_pending_wrap(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP), index;
    bool user = (reg_read(m, UC_X86_REG_CS) & X86_SEL_RPL) != 0;
    m->pending_wrap = false;
    if (block_find_insn(m->cur_block, eip, &index))
        truncate_current_block(m, index);
    reg_write(m, UC_X86_REG_CR2, m->wrap_addr);
    m->delivery_depth = 0;
    raise_fault(m, X86_VEC_PF, true, (user ? X86_PF_USER : 0) | (m->wrap_write ? X86_PF_WRITE : 0), eip);
}

static int add_hooks(struct machine *m)
{
    uc_hook h;
    uc_err e = UC_ERR_OK;
    if (!m->opts->no_cycle_model)
        e = uc_hook_add(m->uc, &h, UC_HOOK_BLOCK, on_block, m, 1, 0);
    if (!e)
        e = uc_hook_add(m->uc, &h, UC_HOOK_MEM_UNMAPPED, on_unmapped, m, 1, 0);
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
    if (hostfs_init(&m->fs, opts->root, err, sizeof err))
        return fail(m, 2, "%s", err);
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
    hostfs_destroy(&m->fs);
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
/*
 * Unicorn 2.0.1's translator aborts the whole process ("tcg fatal error")
 * on a few encodings a CPU rejects with #UD: lock cmp and lock cmps
 * (f0 38/39/a6/a7, f0 80-83 /7) and a far call or jump through a register
 * (ff /3, ff /5 with mod 3). Any program can write those bytes and jump to
 * them, so the engine runs with SIGABRT caught. The abort comes from
 * translating the block at EIP; the culprit is the first instruction there
 * that Capstone cannot decode (it rejects all of these). machine_run then
 * runs up to it and raises #UD, as the CPU would. The engine prints its
 * own line on stderr first; that cannot be helped. Each recovery keeps one
 * of the engine's 64 nested-run slots, so a run gets only a few (the
 * kernel kills a program on its first #UD anyway).
 */
#define MAX_ENGINE_ABORTS 8

static sigjmp_buf *volatile engine_abort_target;

static void on_engine_abort(int sig)
{
    (void)sig;
    siglongjmp(*engine_abort_target, 1);
}

/* uc_emu_start, but false if the engine aborted instead of returning. */
static bool run_engine(struct machine *m, uint32_t begin, uint32_t until, uc_err *err)
{
    sigjmp_buf env;
    struct sigaction sa, old;
    volatile bool returned = false;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_engine_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, &old);
    if (sigsetjmp(env, 1) == 0) {
        engine_abort_target = &env;
        *err = uc_emu_start(m->uc, begin, until, 0, 0);
        returned = true;
    }
    engine_abort_target = NULL;
    sigaction(SIGABRT, &old, NULL);
    return returned;
}

static bool decodable(struct machine *m, uint32_t addr, cs_insn **insn)
{
    const uint8_t *code = guest_ptr(&m->mem, addr, 16);
    return code && cs_disasm(m->blocks.capstone, code, 16, addr, 1, insn) == 1;
}

/* The first instruction of the block at eip that Capstone cannot decode;
 * eip itself if the block ends (a jump, a call, an int) before one. */
static uint32_t first_undecodable(struct machine *m, uint32_t eip)
{
    static const uint8_t enders[] = { CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET, CS_GRP_INT,
                                      CS_GRP_IRET };
    uint32_t addr = eip;
    while (addr - eip < PAGE_SIZE) {
        cs_insn *insn = NULL;
        if (!decodable(m, addr, &insn))
            return addr;
        bool ends = false;
        for (size_t i = 0; i < sizeof enders; i++)
            ends = ends || cs_insn_group(m->blocks.capstone, insn, enders[i]);
        addr += insn->size;
        cs_free(insn, 1);
        if (ends)
            break;
    }
    return eip;
}

static void engine_aborted(struct machine *m)
{
    uint32_t eip = reg_read(m, UC_X86_REG_EIP);
    if (++m->engine_aborts > MAX_ENGINE_ABORTS) {
        machine_stop(m, STOP_MACHINE, "the engine failed to translate code at eip %08x", eip);
        return;
    }
    m->ud_at = first_undecodable(m, eip);
    m->ud_pending = true;
}

/* Stopped at ud_at: raise #UD there, unless the code has changed since. */
static void deliver_ud_at(struct machine *m)
{
    cs_insn *insn = NULL;
    m->ud_pending = false;
    if (decodable(m, m->ud_at, &insn)) {
        cs_free(insn, 1);
        return;
    }
    m->delivery_depth = 0;
    raise_fault(m, X86_VEC_UD, false, 0, m->ud_at);
}

int machine_run(struct machine *m)
{
    while (m->stop == STOP_NONE) {
        uint32_t eip = reg_read(m, UC_X86_REG_EIP);
        uc_err e = UC_ERR_OK;
        if (!run_engine(m, eip, m->ud_pending ? m->ud_at : KERNEL_BASE, &e)) {
            engine_aborted(m);
            continue;
        }
        if (m->stop != STOP_NONE)
            break;
        if (m->pending_ud) {
            deliver_pending_ud(m);
            continue;
        }
        if (m->pending_wrap) {
            deliver_pending_wrap(m);
            continue;
        }
        if (m->ud_pending && reg_read(m, UC_X86_REG_EIP) == m->ud_at) {
            deliver_ud_at(m);
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
