#include "harness.h"
#include <stdio.h>
#include "../../emu/cpu/boot.h"
#include "snapshot.h"
#include <stdlib.h>
#include <string.h>
#include "../gdb_fake.h"

#ifndef BUILD_DIR
#error "BUILD_DIR must name the build directory (for guest/programs/syscall_fuzz)"
#endif

void (*fuzz_machine_hook)(struct machine *m);
void (*fuzz_input_hook)(struct machine *m);

static const char *const target_names[FUZZ_NTARGETS] = { "elf", "syscall", "gdb", "cpu" };

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

/* ---- elf, syscall, cpu: a machine per target and CPU model ---- */

/*
 * Booting the kernel and loading the program is most of what a short run
 * costs, so each target and CPU model keeps a machine that did it once,
 * and every input starts from there: the snapshot comes back
 * (tests/fuzz/snapshot.h) and the run goes on with the input.
 *   syscall, cpu  the machine is kept as the program, set up, reads its
 *                 input from stdin (the first sys_read); the input is
 *                 what that read returns
 *   elf           each input is a program, so the machine is kept as the
 *                 kernel is about to load it (exec_boot_program) and the
 *                 input goes into the boot record there; what the kernel
 *                 read of the record before (the clock, the epoch, the
 *                 random bytes) is the same for every input
 * A machine that cannot come back (a run that spent an engine abort) is
 * booted anew.
 */
struct kept {
    struct machine m;
    struct syscall_tracker sys, sys_then;
    struct snapshot *snap;
    struct run_options opts;
    char *argv[3];
    bool ready;
};

static struct kept *kept[FUZZ_NTARGETS][NCPUS];
bool fuzz_fresh_boot;
unsigned long fuzz_builds;

struct input {
    const char *cpu;
    const char *program;
    const uint8_t *image;
    size_t image_size;
    const uint8_t *stdin_data; /* the program's input, if it reads it */
    size_t stdin_size;
    uint64_t budget;
};

static char elf_name[] = "fuzz-input", syscall_name[] = "syscall_fuzz", cpu_name[] = "cpu_fuzz";
static char env0[] = "PATH=/usr/bin:/bin";
static char *envp[] = { env0, NULL };

/* The program files the syscall and cpu targets run, read once. */
static const uint8_t *guest_program(const char *name, size_t *size)
{
    static struct { const char *name; uint8_t *data; size_t size; } files[2];
    for (int i = 0; i < 2; i++) {
        if (files[i].name && !strcmp(files[i].name, name)) {
            *size = files[i].size;
            return files[i].data;
        }
    }
    char path[256];
    snprintf(path, sizeof path, BUILD_DIR "/guest/programs/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = malloc(PROGRAM_MAX);
    size_t n = data ? fread(data, 1, PROGRAM_MAX, f) : 0;
    fclose(f);
    for (int i = 0; i < 2; i++) {
        if (!files[i].name) {
            files[i].name = name;
            files[i].data = data;
            files[i].size = n;
            *size = n;
            return data;
        }
    }
    free(data);
    return NULL;
}

static void set_input(struct run_options *o, char **argv, const struct input *in)
{
    o->cpu_spec = in->cpu;
    o->program = in->program;
    o->harness.program_image = in->image;
    o->harness.program_size = in->image_size;
    o->max_insns = in->budget;
    o->harness.stdin_data = in->stdin_data;
    o->harness.stdin_size = in->stdin_size;
    o->argv = argv;
    argv[0] = (char *)in->program;
    argv[1] = NULL;
    o->argc = 1;
}

static void base_options(struct run_options *o)
{
    memset(o, 0, sizeof *o);
    o->epoch_sec = 1040103547u;
    o->quiet = true;
    o->envp = envp;
}

static void drop(struct kept *k)
{
    snapshot_free(k->snap);
    machine_destroy(&k->m);
    free(k);
}

/* A machine booted up to exec_boot_program, kept there. */
static struct kept *build(const struct input *in, char *err, size_t errlen)
{
    struct kept *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "harness: out of memory");
        return NULL;
    }
    base_options(&k->opts);
    set_input(&k->opts, k->argv, in);
    int rc = machine_init_bare(&k->m, &k->opts);
    if (!rc && syscalls_attach(&k->sys, &k->m))
        rc = machine_fail(&k->m, 125, "harness: cannot track system calls");
    if (!rc && fuzz_machine_hook)
        fuzz_machine_hook(&k->m);
    if (!rc)
        rc = machine_boot(&k->m);
    enum ksym at = in->stdin_data ? KSYM_sys_read : KSYM_exec_boot_program;
    if (!rc && !machine_run_until(&k->m, k->m.ksyms.addr[at])) {
        char why[sizeof k->m.message];
        snprintf(why, sizeof why, "%s", k->m.message);
        rc = machine_fail(&k->m, 125, "harness: the kernel did not reach %s: %s",
                          in->stdin_data ? "sys_read" : "exec_boot_program", why);
    }
    if (!rc && !(k->snap = snapshot_take(&k->m, err, errlen)))
        rc = 125;
    else if (rc)
        snprintf(err, errlen, "%s", k->m.message);
    if (rc) {
        drop(k);
        return NULL;
    }
    k->sys_then = k->sys;
    fuzz_builds++;
    return k;
}

static void run_kept(struct kept **slot, const struct input *in, struct fuzz_result *r)
{
    char err[512] = "";
    struct kept *k = *slot;
    if (k && snapshot_restore(&k->m, k->snap)) {
        drop(k);
        k = *slot = NULL;
    }
    if (!k && !(k = *slot = build(in, err, sizeof err))) {
        r->init_status = 125;
        snprintf(r->message, sizeof r->message, "%s", err);
        return;
    }
    set_input(&k->opts, k->argv, in);
    k->sys = k->sys_then;
    if (fuzz_input_hook)
        fuzz_input_hook(&k->m);
    r->init_status = in->stdin_data ? 0 : machine_write_boot_record(&k->m);
    if (r->init_status == 0) {
        r->status = machine_run(&k->m);
        r->stop = k->m.stop;
    } else {
        r->status = r->init_status;
    }
    r->insns = k->m.insns;
    r->cycles = k->m.cycles;
    snprintf(r->message, sizeof r->message, "%s", k->m.message);
}

/* The same run on a machine booted for it alone (fuzz_fresh_boot): what a
 * kept machine must match. */
static void run_fresh(const struct input *in, struct fuzz_result *r)
{
    struct machine *m = calloc(1, sizeof *m);
    struct syscall_tracker *sys = calloc(1, sizeof *sys);
    struct run_options opts;
    char *argv[3];
    base_options(&opts);
    set_input(&opts, argv, in);
    if (!m || !sys) {
        r->init_status = 125;
        snprintf(r->message, sizeof r->message, "harness: out of memory");
        free(m);
        free(sys);
        return;
    }
    r->init_status = machine_init(m, &opts);
    if (r->init_status == 0 && syscalls_attach(sys, m))
        r->init_status = machine_fail(m, 125, "harness: cannot track system calls");
    if (r->init_status == 0) {
        if (fuzz_machine_hook)
            fuzz_machine_hook(m);
        if (fuzz_input_hook)
            fuzz_input_hook(m);
        r->status = machine_run(m);
        r->stop = m->stop;
    } else {
        r->status = r->init_status;
    }
    r->insns = m->insns;
    r->cycles = m->cycles;
    snprintf(r->message, sizeof r->message, "%s", m->message);
    machine_destroy(m);
    free(m);
    free(sys);
}

void fuzz_run(enum fuzz_target t, const uint8_t *data, size_t size, struct fuzz_result *r)
{
    struct input in = { .cpu = "pentium4" };
    unsigned cpu = 0;

    memset(r, 0, sizeof *r);
    r->stop = STOP_NONE;
    if (t == FUZZ_GDB) {
        gdb_fuzz_run(data, size, r);
        return;
    }
    if (t == FUZZ_ELF) {
        in.program = elf_name;
        in.image = data;
        in.image_size = size;
        in.budget = FUZZ_ELF_BUDGET;
    } else {
        size_t n = size ? size - 1 : 0, max = t == FUZZ_CPU ? FUZZ_CPU_MAX_INPUT
                                                             : FUZZ_SYSCALL_MAX_INPUT;
        cpu = size ? data[0] % NCPUS : 0;
        in.cpu = syscall_cpus[cpu];
        in.program = t == FUZZ_CPU ? cpu_name : syscall_name;
        in.image = guest_program(in.program, &in.image_size);
        in.budget = t == FUZZ_CPU ? FUZZ_CPU_BUDGET : FUZZ_SYSCALL_BUDGET;
        /* never NULL: the program reads its input from stdin */
        in.stdin_data = size ? data + 1 : data;
        in.stdin_size = n > max ? max : n;
        if (!in.image) {
            r->init_status = 125;
            snprintf(r->message, sizeof r->message, "harness: cannot read %s", in.program);
            return;
        }
    }
    snprintf(r->cpu, sizeof r->cpu, "%s", in.cpu);
    if (fuzz_fresh_boot)
        run_fresh(&in, r);
    else
        run_kept(&kept[t][cpu], &in, r);
}

void fuzz_release(void)
{
    for (int t = 0; t < FUZZ_NTARGETS; t++) {
        for (unsigned c = 0; c < NCPUS; c++) {
            if (kept[t][c])
                drop(kept[t][c]);
            kept[t][c] = NULL;
        }
    }
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
        case STOP_DEADLOCK:
            return true;
        case STOP_EXEC_ERROR:
            if (t == FUZZ_ELF)
                return true;
            what = "the kernel refused the fuzz target's program";
            break;
        case STOP_PANIC:
            what = "guest kernel panic";
            break;
        case STOP_MACHINE:
            what = "machine failure";
            break;
        case STOP_LOCKED:
            what = "a kernel spinlock never released";
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
