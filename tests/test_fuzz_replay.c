/*
 * Replays every fuzz input kept in the tree, the seed corpora
 * (tests/fuzz/corpus/TARGET/) and the reproducers of fixed findings
 * (tests/fuzz/crashes/TARGET/), through the harness the libFuzzer targets
 * use (tests/fuzz/harness.c): each must end cleanly, so a fixed crash
 * stays fixed. Under make test-asan this also runs them under ASan/UBSan.
 */
#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/harness.h"
#include "fuzz/tiny_elf.h"
#include "syscall_nr.h"
#include "support.h"

/* LeakSanitizer asks for this when the tests run under make test-asan:
 * the same suppression as tests/fuzz/lsan.supp, for the bitmap Unicorn 2.0.1
 * never frees (docs/unicorn.md, quirk 24), which the self-modifying inputs
 * of the cpu corpus reach. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:tb_invalidate_phys_page_fast\n";
}

#define FUZZ_DIR "tests/fuzz"
#define MAX_INPUTS 4096

struct input {
    enum fuzz_target target;
    char path[512];
};

static struct input inputs[MAX_INPUTS];
static int ninputs;
static int seeds[FUZZ_NTARGETS];

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct input *)a)->path, ((const struct input *)b)->path);
}

/* Every regular file in DIR (dot files aside: .gitkeep). */
static int scan(enum fuzz_target t, const char *kind)
{
    char dir[128];
    int n = 0;
    snprintf(dir, sizeof dir, FUZZ_DIR "/%s/%s", kind, fuzz_target_name(t));
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) && ninputs < MAX_INPUTS;) {
        if (e->d_name[0] == '.' || strlen(dir) + strlen(e->d_name) + 2 > sizeof inputs[0].path)
            continue;
        struct input *in = &inputs[ninputs++];
        in->target = t;
        snprintf(in->path, sizeof in->path, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    for (size_t n; (n = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += n;
        if (len == cap) {
            buf = realloc(buf, cap *= 2);
            ck_assert_ptr_nonnull(buf);
        }
    }
    fclose(f);
    *size = len;
    return buf;
}

/*
 * Every input of one target (_i), in order, on the machines the harness
 * keeps (as libFuzzer runs them): each must end cleanly. All failures are
 * listed, not only the first.
 */
START_TEST(replayed_inputs_end_cleanly)
{
    static char failures[16384];
    size_t used = 0;
    int bad = 0, runs = 0;
    failures[0] = 0;
    for (int i = 0; i < ninputs; i++) {
        const struct input *in = &inputs[i];
        if ((int)in->target != _i)
            continue;
        size_t size;
        uint8_t *data = slurp(in->path, &size);
        struct fuzz_result r;
        char why[768];
        fuzz_run(in->target, data, size, &r);
        free(data);
        runs++;
        if (!fuzz_clean(in->target, &r, why, sizeof why)) {
            bad++;
            used += (size_t)snprintf(failures + used, sizeof failures - used, "\n%s: %s",
                                     in->path, why);
            if (used >= sizeof failures)
                used = sizeof failures - 1;
        }
    }
    fuzz_release();
    ck_assert_msg(bad == 0, "%d of %d %s inputs did not end cleanly:%s", bad, runs,
                  fuzz_target_name((enum fuzz_target)_i), failures);
}
END_TEST

/* A seed written by make_seeds (a name), not one a fuzz session kept (a
 * 40-digit hash). */
static bool named_seed(const char *path)
{
    const char *name = strrchr(path, '/') + 1;
    return strspn(name, "0123456789abcdef") != 40 || name[40] != 0;
}

/*
 * A machine kept and restored for each input runs it exactly as a machine
 * booted for it alone: the same end, report, counts of instructions and
 * cycles. Each named seed of one target (_i) runs twice on the kept
 * machines, the second time restored after the first (and after every
 * seed before it) wrote memory, added code hooks and left translations
 * behind, and once on a fresh machine.
 */
START_TEST(a_restored_machine_runs_each_seed_as_a_fresh_one)
{
    for (int i = 0; i < ninputs; i++) {
        const struct input *in = &inputs[i];
        if ((int)in->target != _i || strstr(in->path, "/crashes/") || !named_seed(in->path))
            continue;
        size_t size;
        uint8_t *data = slurp(in->path, &size);
        struct fuzz_result kept, fresh;
        fuzz_run(in->target, data, size, &kept);
        fuzz_run(in->target, data, size, &kept);
        fuzz_fresh_boot = true;
        fuzz_run(in->target, data, size, &fresh);
        fuzz_fresh_boot = false;
        free(data);
        ck_assert_msg(kept.stop == fresh.stop && kept.status == fresh.status &&
                      kept.insns == fresh.insns && kept.cycles == fresh.cycles &&
                      !strcmp(kept.message, fresh.message),
                      "%s: kept machine: stop %d status %d, %llu insns, %llu cycles: %s; "
                      "fresh: stop %d status %d, %llu insns, %llu cycles: %s", in->path,
                      kept.stop, kept.status, (unsigned long long)kept.insns,
                      (unsigned long long)kept.cycles, kept.message, fresh.stop, fresh.status,
                      (unsigned long long)fresh.insns, (unsigned long long)fresh.cycles,
                      fresh.message);
    }
    fuzz_release();
}
END_TEST

/* ---- syscall_fuzz inputs that make processes, files, maps, signals ---- */

struct rec {
    uint8_t b[512];
    size_t len;
};

static void b8(struct rec *r, uint32_t v) { r->b[r->len++] = (uint8_t)v; }
static void b32(struct rec *r, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b8(r, v >> (8 * i));
}
/* syscall_fuzz's argument kinds: a small number, a raw one, an offset
 * into the scratch area (whose first page is the input, CPU byte aside) */
static void small_arg(struct rec *r, uint32_t v) { b8(r, 0); b8(r, v); }
static void raw_arg(struct rec *r, uint32_t v) { b8(r, 1); b32(r, v); }
static void scratch_arg(struct rec *r, uint32_t off) { b8(r, 2); b8(r, off); b8(r, off >> 8); }

/* A call by raw number through int $0x80 with up to six raw arguments;
 * a negative entry in path_args means "the scratch offset of string -1-i". */
#define PATH(i) (-1 - (i))
static void sys(struct rec *r, uint32_t nr, int nargs, const int64_t *args, const size_t *paths)
{
    b8(r, 4);          /* int $0x80, the number raw */
    b32(r, nr);
    for (int i = 0; i < 6; i++) {
        if (i >= nargs)
            small_arg(r, 0);
        else if (args[i] < 0 && args[i] >= -8)
            scratch_arg(r, (uint32_t)paths[-1 - args[i]]);
        else
            raw_arg(r, (uint32_t)args[i]);
    }
}
#define SYS(r, nr, paths, ...)                                                                \
    sys(r, nr, (int)(sizeof(int64_t[]){ __VA_ARGS__ } / sizeof(int64_t)),                     \
        (int64_t[]){ __VA_ARGS__ }, paths)

/* Strings go after the last call (an exit): where they will be is known
 * before the calls are written, as the calls have a fixed size. */
static void strings_at(struct rec *r, int ncalls, const char *const *strs, int n, size_t *paths)
{
    size_t at = 1 + (size_t)ncalls * 23 - 1;   /* each call 23 bytes; offsets skip byte 0 */
    for (int i = 0; i < n; i++) {
        paths[i] = at;
        at += strlen(strs[i]) + 1;
    }
    (void)r;
}

static void put_strings(struct rec *r, const char *const *strs, int n)
{
    for (int i = 0; i < n; i++) {
        memcpy(r->b + r->len, strs[i], strlen(strs[i]) + 1);
        r->len += strlen(strs[i]) + 1;
    }
}

enum { NR_EXIT = 1, NR_FORK = 2, NR_READ = 3, NR_WRITE = 4, NR_OPEN = 5, NR_CLOSE = 6,
       NR_UNLINK = 10, NR_GETPID = 20, NR_KILL = 37, NR_RENAME = 38, NR_MKDIR = 39,
       NR_PIPE = 42, NR_MUNMAP = 91, NR_WAIT4 = 114, NR_MREMAP = 163, NR_MMAP2 = 192 };

/* fork; each process makes a file (O_EXCL: only one of them can), writes
 * it, makes a directory, renames the file into it, waits, exits */
static void input_files(struct rec *r)
{
    static const char *const strs[] = { "/tmp/fz", "/tmp/dz", "/tmp/dz/moved" };
    size_t p[3];
    r->len = 0;
    b8(r, 0);   /* pentium4 */
    strings_at(r, 8, strs, 3, p);
    SYS(r, NR_FORK, p, 0);
    SYS(r, NR_OPEN, p, PATH(0), 0xc2, 0644);      /* O_CREAT | O_EXCL | O_RDWR */
    SYS(r, NR_WRITE, p, 3, PATH(0), 300);
    SYS(r, NR_MKDIR, p, PATH(1), 0755);
    SYS(r, NR_RENAME, p, PATH(0), PATH(2));
    SYS(r, NR_CLOSE, p, 3);
    SYS(r, NR_WAIT4, p, 0xffffffff, 0, 0, 0);
    SYS(r, NR_EXIT, p, 3);
    put_strings(r, strs, 3);
}

/* the same file made again: O_EXCL fails if the last input's is still there */
static void input_file_again(struct rec *r)
{
    static const char *const strs[] = { "/tmp/fz", "/tmp/dz/moved" };
    size_t p[2];
    r->len = 0;
    b8(r, 0);
    strings_at(r, 5, strs, 2, p);
    SYS(r, NR_OPEN, p, PATH(0), 0xc2, 0644);
    SYS(r, NR_WRITE, p, 3, PATH(0), 5000);
    SYS(r, NR_UNLINK, p, PATH(1));
    SYS(r, NR_OPEN, p, PATH(1), 0xc2, 0644);
    SYS(r, NR_EXIT, p, 4);
    put_strings(r, strs, 2);
}

/* a pipe between two processes; a signal to the group, ignored (SIGCHLD) */
static void input_pipe(struct rec *r)
{
    size_t p[1] = { 0 };
    r->len = 0;
    b8(r, 0);
    SYS(r, NR_PIPE, p, 0x20000800);
    SYS(r, NR_FORK, p, 0);
    SYS(r, NR_WRITE, p, 4, 0x20000000, 100);
    SYS(r, NR_READ, p, 3, 0x20000400, 60);
    SYS(r, NR_KILL, p, 0, 17);
    SYS(r, NR_WAIT4, p, 0xffffffff, 0, 0, 0);
    SYS(r, NR_EXIT, p, 5);
}

/* maps made, written by the kernel, moved, unmapped, in two processes;
 * then the stack's top page goes, which kills the program */
static void input_maps(struct rec *r)
{
    size_t p[1] = { 0 };
    r->len = 0;
    b8(r, 0);
    SYS(r, NR_MMAP2, p, 0x30000000, 0x4000, 3, 0x32, 0xffffffff, 0);
    SYS(r, NR_READ, p, 0, 0x30001000, 100);
    SYS(r, NR_WRITE, p, 1, 0x30001000, 100);
    SYS(r, NR_MREMAP, p, 0x30000000, 0x4000, 0x8000, 3, 0x31000000);
    SYS(r, NR_MUNMAP, p, 0x20001000, 0x3000);
    SYS(r, NR_FORK, p, 0);
    SYS(r, NR_MUNMAP, p, 0x31000000, 0x2000);
    SYS(r, NR_WAIT4, p, 0xffffffff, 0, 0, 0);
    SYS(r, NR_MUNMAP, p, USER_STACK_TOP - 0x1000, 0x1000);
    SYS(r, NR_GETPID, p, 0);
}

/* Where syscall_fuzz's code is: its executable segment. */
static uint32_t program_code(void)
{
    size_t size;
    uint8_t *elf = slurp(BUILD_DIR "/guest/programs/syscall_fuzz", &size);
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)elf;
    uint32_t at = 0;
    ck_assert(size >= sizeof *eh && eh->e_phoff + eh->e_phnum * sizeof(Elf32_Phdr) <= size);
    for (int i = 0; i < eh->e_phnum && !at; i++) {
        const Elf32_Phdr *ph = (const Elf32_Phdr *)(elf + eh->e_phoff) + i;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            at = ph->p_vaddr & ~(uint32_t)(PAGE_SIZE - 1);
    }
    free(elf);
    ck_assert(at != 0);
    return at;
}

/* before any switch: the program's code unmapped, the program killed
 * (the pages come back for the next input, though nothing wrote them) */
static void input_unmap_code(struct rec *r)
{
    size_t p[1] = { 0 };
    r->len = 0;
    b8(r, 0);
    SYS(r, NR_MUNMAP, p, program_code(), 0x1000);
    SYS(r, NR_GETPID, p, 0);
}

/* the parent exits first: the child's address space is left behind */
static void input_orphan(struct rec *r)
{
    size_t p[1] = { 0 };
    r->len = 0;
    b8(r, 0);
    SYS(r, NR_FORK, p, 0);
    SYS(r, NR_EXIT, p, 7);
}

static void result_str(const struct fuzz_result *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "stop %d status %d, %llu insns, %llu cycles: %s", r->stop, r->status,
             (unsigned long long)r->insns, (unsigned long long)r->cycles, r->message);
}

static bool same_result(const struct fuzz_result *a, const struct fuzz_result *b)
{
    return a->init_status == b->init_status && a->stop == b->stop &&
           a->status == b->status && a->insns == b->insns && a->cycles == b->cycles &&
           !strcmp(a->message, b->message);
}

/*
 * Inputs that fork, make, write, rename and unlink files, use a pipe,
 * signal, map, move and unmap memory run on one kept machine, one after
 * the other in two orders, exactly as each runs on a machine booted for
 * it alone: nothing one input did (a file, a process, a map, a page it
 * dropped) is there for the next. And the kept machine is restored for
 * every one of them, never booted again.
 */
START_TEST(a_kept_machine_forgets_processes_files_and_maps_between_inputs)
{
    static void (*const make[])(struct rec *) = { input_files, input_file_again, input_pipe,
                                                  input_maps, input_unmap_code, input_orphan };
    enum { N = sizeof make / sizeof make[0] };
    static const int order[] = { 0, 1, 0, 1, 2, 3, 2, 4, 0, 3, 1, 4, 2, 5, 0, 0, 5, 1,
                                 1, 3, 3, 4, 4, 5, 2, 5, 3 };
    struct rec in[N];
    struct fuzz_result fresh[N], kept;
    char a[768], b[768];

    fuzz_release();
    fuzz_fresh_boot = true;
    for (int i = 0; i < N; i++) {
        make[i](&in[i]);
        fuzz_run(FUZZ_SYSCALL, in[i].b, in[i].len, &fresh[i]);
        ck_assert_msg(fuzz_clean(FUZZ_SYSCALL, &fresh[i], a, sizeof a), "%s", a);
    }
    fuzz_fresh_boot = false;
    /* what the inputs are for: the processes exit (files, pipe), the
     * unmapped stack kills */
    ck_assert_msg(fresh[0].stop == STOP_EXIT && fresh[2].stop == STOP_EXIT &&
                  fresh[5].stop == STOP_EXIT, "%d %d %d", fresh[0].stop, fresh[2].stop,
                  fresh[5].stop);
    ck_assert_msg(fresh[3].stop == STOP_KILLED && fresh[4].stop == STOP_KILLED, "%d %d",
                  fresh[3].stop, fresh[4].stop);
    ck_assert_msg(!same_result(&fresh[0], &fresh[1]), "the two file inputs do the same");

    unsigned long builds = fuzz_builds;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int i = order[k];
        fuzz_run(FUZZ_SYSCALL, in[i].b, in[i].len, &kept);
        result_str(&kept, a, sizeof a);
        result_str(&fresh[i], b, sizeof b);
        ck_assert_msg(same_result(&kept, &fresh[i]),
                      "input %d (step %zu) on the kept machine: %s; fresh: %s", i, k, a, b);
    }
    ck_assert_msg(fuzz_builds == builds + 1, "%lu machines booted for %zu inputs",
                  fuzz_builds - builds, sizeof order / sizeof order[0]);
    fuzz_release();
}
END_TEST

START_TEST(every_target_has_a_seed_corpus)
{
    for (int t = 0; t < FUZZ_NTARGETS; t++)
        ck_assert_msg(seeds[t] >= 5, "only %d seeds in " FUZZ_DIR "/corpus/%s", seeds[t],
                      fuzz_target_name((enum fuzz_target)t));
}
END_TEST

/* The harness runs what it is given: a tiny program's exit status comes
 * back, a loop meets the small budget, a broken file is refused. */
START_TEST(elf_harness_runs_the_image)
{
    struct tiny_elf e;
    struct fuzz_result r;
    char why[768];

    tiny_elf_init(&e, 42, 0);
    fuzz_run(FUZZ_ELF, e.bytes, e.size, &r);
    ck_assert_msg(r.stop == STOP_EXIT && r.status == 42, "%d %d %s", r.stop, r.status,
                  r.message);
    ck_assert(fuzz_clean(FUZZ_ELF, &r, why, sizeof why));

    tiny_elf_init(&e, 0, 1);
    fuzz_run(FUZZ_ELF, e.bytes, e.size, &r);
    ck_assert_msg(r.stop == STOP_BUDGET && r.status == 124, "%d %s", r.stop, r.message);

    fuzz_run(FUZZ_ELF, e.bytes, 10, &r);
    ck_assert_msg(r.stop == STOP_EXEC_ERROR && strstr(r.message, "not an ELF file"), "%d %s",
                  r.stop, r.message);
    ck_assert(fuzz_clean(FUZZ_ELF, &r, why, sizeof why));
}
END_TEST

/* Byte 0 picks the CPU (pentiumpro); then one record: exit(7) through
 * AT_SYSINFO. */
START_TEST(syscall_harness_passes_the_input_to_the_guest)
{
    static const uint8_t exit7[] = { 2, 1, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    struct fuzz_result r;
    fuzz_run(FUZZ_SYSCALL, exit7, sizeof exit7, &r);
    ck_assert_msg(r.stop == STOP_EXIT && r.status == 7, "%d %d %s", r.stop, r.status,
                  r.message);
    ck_assert_str_eq(r.cpu, "pentiumpro");
}
END_TEST

/* The stream reaches the stub: '?' and 'c' are acked and answered (T05,
 * then W07 when the fake program ends); the Z0 comes while the program
 * runs, so it is acked and dropped (all-stop). */
START_TEST(gdb_harness_feeds_the_stream_to_the_stub)
{
    static const char stream[] = "$?#3f+$c#63+$Z0,804800a,1#a8";
    struct fuzz_result r;
    char why[768];
    fuzz_run(FUZZ_GDB, (const uint8_t *)stream, sizeof stream - 1, &r);
    ck_assert_msg(r.stop == STOP_EXIT, "%d %s", r.stop, r.message);
    ck_assert_str_eq(r.message, "gdb: 3 acks, 2 replies");
    ck_assert(fuzz_clean(FUZZ_GDB, &r, why, sizeof why));
}
END_TEST

/* Byte 0 picks the CPU (pentium3); the code runs in ring 3: int $0x80
 * with EAX 1 and EBX 9 is exit(9). */
START_TEST(cpu_harness_runs_the_code_in_ring3)
{
    uint8_t input[1 + 77 + 12] = { 1, 0 };
    for (int i = 0; i < 3; i++)
        input[2 + 12 * i + 11] = 0x80;   /* no TLS descriptors */
    input[2 + 36] = 0x02;                /* EFLAGS: the fixed bit */
    static const uint8_t code[] = { 0xb8, 1, 0, 0, 0, 0xbb, 9, 0, 0, 0, 0xcd, 0x80 };
    memcpy(input + 1 + 77, code, sizeof code);
    struct fuzz_result r;
    fuzz_run(FUZZ_CPU, input, sizeof input, &r);
    ck_assert_msg(r.stop == STOP_EXIT && r.status == 9, "%d %d %s", r.stop, r.status, r.message);
    ck_assert_str_eq(r.cpu, "pentium3");
}
END_TEST

START_TEST(panics_and_machine_failures_are_findings)
{
    struct fuzz_result r = { .stop = STOP_PANIC, .status = 125, .cpu = "pentium4" };
    char why[768];
    ck_assert(!fuzz_clean(FUZZ_ELF, &r, why, sizeof why));
    ck_assert_msg(strstr(why, "guest kernel panic"), "%s", why);
    r.stop = STOP_MACHINE;
    ck_assert(!fuzz_clean(FUZZ_SYSCALL, &r, why, sizeof why));
    ck_assert_msg(strstr(why, "machine failure"), "%s", why);
    /* The syscall_fuzz program is valid: the kernel refusing it is wrong. */
    r.stop = STOP_EXEC_ERROR;
    ck_assert(!fuzz_clean(FUZZ_SYSCALL, &r, why, sizeof why));
    ck_assert(fuzz_clean(FUZZ_ELF, &r, why, sizeof why));
    /* a kernel spinlock never released (--smp) is a kernel bug */
    r.stop = STOP_LOCKED;
    ck_assert(!fuzz_clean(FUZZ_CPU, &r, why, sizeof why));
    ck_assert_msg(strstr(why, "spinlock"), "%s", why);
    r.stop = STOP_NONE;
    r.init_status = 125;
    ck_assert(!fuzz_clean(FUZZ_ELF, &r, why, sizeof why));
}
END_TEST

/* pause() with no signal to come: every process waits for ever, the
 * emulator's documented 124 end (docs/robustness.md), not a finding. */
START_TEST(a_program_that_pauses_for_ever_ends_cleanly)
{
    uint8_t input[1 + 77 + 8] = { 0, 0 };
    for (int i = 0; i < 3; i++)
        input[2 + 12 * i + 11] = 0x80;   /* no TLS descriptors */
    input[2 + 36] = 0x02;                /* EFLAGS: the fixed bit */
    static const uint8_t code[] = { 0xb8, SYS_pause, 0, 0, 0, 0xcd, 0x80 };
    memcpy(input + 1 + 77, code, sizeof code);
    struct fuzz_result r;
    char why[768];
    fuzz_run(FUZZ_CPU, input, sizeof input, &r);
    ck_assert_msg(r.stop == STOP_DEADLOCK && r.status == 124 &&
                  strstr(r.message, "waits for a signal (pause)"), "%d %d %s", r.stop,
                  r.status, r.message);
    ck_assert_str_eq(r.cpu, "pentium4");
    ck_assert_msg(fuzz_clean(FUZZ_CPU, &r, why, sizeof why), "%s", why);
}
END_TEST

Suite *fuzz_replay_suite(void)
{
    Suite *s = suite_create("fuzz_replay");
    TCase *tc = tcase_create("replay");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_target_has_a_seed_corpus);
    tcase_add_loop_test(tc, replayed_inputs_end_cleanly, 0, FUZZ_NTARGETS);
    tcase_add_loop_test(tc, a_restored_machine_runs_each_seed_as_a_fresh_one, 0, FUZZ_NTARGETS);
    suite_add_tcase(s, tc);

    tc = tcase_create("snapshot");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_kept_machine_forgets_processes_files_and_maps_between_inputs);
    suite_add_tcase(s, tc);

    tc = tcase_create("harness");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, elf_harness_runs_the_image);
    tcase_add_test(tc, syscall_harness_passes_the_input_to_the_guest);
    tcase_add_test(tc, gdb_harness_feeds_the_stream_to_the_stub);
    tcase_add_test(tc, cpu_harness_runs_the_code_in_ring3);
    tcase_add_test(tc, panics_and_machine_failures_are_findings);
    tcase_add_test(tc, a_program_that_pauses_for_ever_ends_cleanly);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    for (int t = 0; t < FUZZ_NTARGETS; t++) {
        seeds[t] = scan((enum fuzz_target)t, "corpus");
        scan((enum fuzz_target)t, "crashes");
    }
    qsort(inputs, (size_t)ninputs, sizeof inputs[0], by_path);
    return run_suite(fuzz_replay_suite());
}
