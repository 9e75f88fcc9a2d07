#include "harness.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../gdb_fake.h"

#ifndef BUILD_DIR
#error "BUILD_DIR must name the build directory (for guest/programs/syscall_fuzz)"
#endif

void (*fuzz_machine_hook)(struct machine *m);

static const char *const target_names[FUZZ_NTARGETS] = { "elf", "syscall", "gdb" };

static const char *const syscall_cpus[] = {
    "pentium4", "pentium3", "pentiumpro", "pentium4,-sep", "pentium3,-sep",
};
#define NCPUS (sizeof syscall_cpus / sizeof syscall_cpus[0])

const char *fuzz_target_name(enum fuzz_target t)
{
    return (unsigned)t < FUZZ_NTARGETS ? target_names[t] : "?";
}

int fuzz_target_by_name(const char *name)
{
    for (int t = 0; t < FUZZ_NTARGETS; t++)
        if (!strcmp(name, target_names[t]))
            return t;
    return -1;
}

static char *to_hex(const uint8_t *data, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    char *hex = malloc(2 * size + 1);
    if (!hex)
        return NULL;
    for (size_t i = 0; i < size; i++) {
        hex[2 * i] = digits[data[i] >> 4];
        hex[2 * i + 1] = digits[data[i] & 15];
    }
    hex[2 * size] = 0;
    return hex;
}

/* ---- gdb: the stub's session over the fake machine ---- */

struct gdb_fuzz {
    struct fake f;
    struct gdb_session s;
    struct gdb_rx check;   /* reads what the stub sends */
    int acks, replies;
    char why[256];
};

/* Everything the stub sends is acks and well-formed frames within the
 * packet size, and it agrees with the target about the points. */
static bool gdb_output_ok(struct gdb_fuzz *z)
{
    struct gdb_session *s = &z->s;
    for (size_t i = 0; i < s->out_len && !z->why[0]; i++) {
        uint8_t c = (uint8_t)s->out[i];
        if (!gdb_rx_partial(&z->check) && c != '+' && c != '-' && c != '$')
            snprintf(z->why, sizeof z->why, "stray byte 0x%02x from the stub", c);
        enum gdb_rx_event e = gdb_rx_byte(&z->check, c);
        if (e == GDB_RX_BAD)
            snprintf(z->why, sizeof z->why, "the stub sent a malformed frame");
        z->replies += e == GDB_RX_PACKET;
        z->acks += e == GDB_RX_ACK;
    }
    if (!z->why[0] && gdb_rx_partial(&z->check))
        snprintf(z->why, sizeof z->why, "the stub sent part of a frame");
    if (!z->why[0] && z->f.npoints != s->npoints)
        snprintf(z->why, sizeof z->why, "the stub counts %d points, the target %d",
                 s->npoints, z->f.npoints);
    s->out_len = 0;
    return !z->why[0];
}

static void gdb_new_client(struct gdb_fuzz *z)
{
    if (z->f.npoints != 0)
        snprintf(z->why, sizeof z->why, "%d points left behind by a client", z->f.npoints);
    gdb_session_init(&z->s, &z->f.target);
    gdb_rx_init(&z->check);
}

/* The program runs: the client may send more meanwhile (only Ctrl-C
 * counts), then the machine stops. */
static void gdb_run(struct gdb_fuzz *z, const struct gdb_resume *res, const uint8_t *data,
                    size_t size, size_t *i)
{
    size_t end = size - *i > FUZZ_GDB_RUNNING_BYTES ? *i + FUZZ_GDB_RUNNING_BYTES : size;
    while (*i < end && !z->s.interrupted && gdb_output_ok(z)) {
        struct gdb_resume again;
        *i += gdb_session_input(&z->s, data + *i, end - *i, &again);
        if (again.action != GDB_ACT_NONE)
            snprintf(z->why, sizeof z->why, "the stub resumed a running program");
    }
    struct gdb_stop stop = { .kind = GDB_STOP_SIGNAL, .signo = GDB_SIGINT };
    if (!z->s.interrupted)
        stop = fake_resume(&z->f, res, NULL, NULL, FUZZ_GDB_BUDGET);
    gdb_session_stop(&z->s, &stop);
    gdb_output_ok(z);
}

/* "#xx" stands for the right checksum of the packet it ends, so that
 * mutations inside a packet still reach the commands; any other two
 * characters after '#' go to the stub as they are. */
static void gdb_fix_checksums(uint8_t *d, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    uint8_t sum = 0;
    for (size_t i = 0; i < size; i++) {
        if (d[i] == '$') {
            sum = 0;
        } else if (d[i] == '#') {
            if (i + 2 < size && d[i + 1] == 'x' && d[i + 2] == 'x') {
                d[i + 1] = (uint8_t)digits[sum >> 4];
                d[i + 2] = (uint8_t)digits[sum & 15];
            }
            i += 2;
            sum = 0;
        } else {
            sum += d[i];
        }
    }
}

static void gdb_fuzz_run(const uint8_t *input, size_t size, struct fuzz_result *r)
{
    struct gdb_fuzz *z = calloc(1, sizeof *z);
    uint8_t *data = malloc(size ? size : 1);
    if (!z || !data) {
        free(z);
        free(data);
        r->init_status = 125;
        snprintf(r->message, sizeof r->message, "harness: out of memory");
        return;
    }
    memcpy(data, input, size);
    gdb_fix_checksums(data, size);
    fake_init(&z->f);
    gdb_new_client(z);
    for (size_t i = 0; i < size && gdb_output_ok(z);) {
        struct gdb_resume res;
        i += gdb_session_input(&z->s, data + i, size - i, &res);
        if (!gdb_output_ok(z))
            break;
        if (res.action == GDB_ACT_CONTINUE || res.action == GDB_ACT_STEP) {
            gdb_run(z, &res, data, size, &i);
        } else if (res.action == GDB_ACT_KILL || res.action == GDB_ACT_DETACH) {
            if (res.action == GDB_ACT_KILL)
                fake_init(&z->f);
            gdb_new_client(z);
        }
    }
    gdb_session_end(&z->s);   /* the client hangs up */
    if (!z->why[0] && z->f.npoints != 0)
        snprintf(z->why, sizeof z->why, "%d points left after a disconnect", z->f.npoints);
    snprintf(r->cpu, sizeof r->cpu, "none");
    r->stop = z->why[0] ? STOP_MACHINE : STOP_EXIT;
    r->status = z->why[0] ? 125 : 0;
    if (z->why[0])
        snprintf(r->message, sizeof r->message, "%s", z->why);
    else
        snprintf(r->message, sizeof r->message, "gdb: %d acks, %d replies", z->acks,
                 z->replies);
    free(z);
    free(data);
}

void fuzz_run(enum fuzz_target t, const uint8_t *data, size_t size, struct fuzz_result *r)
{
    static char elf_name[] = "fuzz-input", prog_name[] = "syscall_fuzz";
    static char env0[] = "PATH=/usr/bin:/bin";
    char *envp[] = { env0, NULL };
    char *argv[3] = { NULL, NULL, NULL };
    char *hex = NULL;
    struct run_options opts = {
        .cpu_spec = "pentium4",
        .epoch_sec = 1040103547u,
        .quiet = true,
        .envp = envp,
        .argv = argv,
    };

    memset(r, 0, sizeof *r);
    r->stop = STOP_NONE;
    if (t == FUZZ_GDB) {
        gdb_fuzz_run(data, size, r);
        return;
    }
    if (t == FUZZ_ELF) {
        opts.program = elf_name;
        opts.program_image = data;
        opts.program_size = size;
        opts.max_insns = FUZZ_ELF_BUDGET;
        argv[0] = elf_name;
        opts.argc = 1;
    } else {
        size_t n = size ? size - 1 : 0;
        if (n > FUZZ_SYSCALL_MAX_INPUT)
            n = FUZZ_SYSCALL_MAX_INPUT;
        opts.cpu_spec = syscall_cpus[size ? data[0] % NCPUS : 0];
        opts.program = BUILD_DIR "/guest/programs/syscall_fuzz";
        opts.max_insns = FUZZ_SYSCALL_BUDGET;
        hex = to_hex(size ? data + 1 : data, n);
        argv[0] = prog_name;
        argv[1] = hex;
        opts.argc = 2;
    }
    snprintf(r->cpu, sizeof r->cpu, "%s", opts.cpu_spec);

    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    if (!m || !sys || (t == FUZZ_SYSCALL && !hex)) {
        r->init_status = 125;
        snprintf(r->message, sizeof r->message, "harness: out of memory");
        free(m);
        free(sys);
        free(hex);
        return;
    }
    r->init_status = machine_init(m, &opts);
    /* the accounting runs too: it reads guest memory on every call */
    if (r->init_status == 0 && syscalls_attach(sys, m))
        r->init_status = machine_fail(m, 125, "harness: cannot track system calls");
    if (r->init_status == 0) {
        if (fuzz_machine_hook)
            fuzz_machine_hook(m);
        r->status = machine_run(m);
        r->stop = m->stop;
    } else {
        r->status = r->init_status;
    }
    snprintf(r->message, sizeof r->message, "%s", m->message);
    machine_destroy(m);
    free(m);
    free(sys);
    free(hex);
}

bool fuzz_clean(enum fuzz_target t, const struct fuzz_result *r, char *why, size_t cap)
{
    const char *what = NULL;

    if (r->init_status != 0) {
        /* Only a program file the emulator itself refuses (too large). */
        if (t == FUZZ_ELF && r->init_status == 126)
            return true;
        what = "the machine could not be set up";
    } else {
        switch (r->stop) {
        case STOP_EXIT:
        case STOP_KILLED:
        case STOP_BUDGET:
            return true;
        case STOP_EXEC_ERROR:
            if (t == FUZZ_ELF)
                return true;
            what = "the kernel refused the syscall_fuzz program";
            break;
        case STOP_PANIC:
            what = "guest kernel panic";
            break;
        case STOP_MACHINE:
            what = "machine failure";
            break;
        default:
            what = "the run ended for no reason";
            break;
        }
    }
    snprintf(why, cap, "%s target on %s: %s (status %d): %s", fuzz_target_name(t), r->cpu,
             what, r->status, r->message);
    return false;
}
