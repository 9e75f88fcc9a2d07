/*
 * Replays every fuzz input kept in the tree, the seed corpora
 * (tests/fuzz/corpus/TARGET/) and the reproducers of fixed findings
 * (tests/fuzz/crashes/TARGET/), through the harness the libFuzzer targets
 * use (tests/fuzz/harness.c): each must end cleanly, so a fixed crash
 * stays fixed. Under make test-asan this also runs them under ASan/UBSan.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/harness.h"
#include "fuzz/tiny_elf.h"
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
    r.stop = STOP_NONE;
    r.init_status = 125;
    ck_assert(!fuzz_clean(FUZZ_ELF, &r, why, sizeof why));
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

    tc = tcase_create("harness");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, elf_harness_runs_the_image);
    tcase_add_test(tc, syscall_harness_passes_the_input_to_the_guest);
    tcase_add_test(tc, gdb_harness_feeds_the_stream_to_the_stub);
    tcase_add_test(tc, cpu_harness_runs_the_code_in_ring3);
    tcase_add_test(tc, panics_and_machine_failures_are_findings);
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
