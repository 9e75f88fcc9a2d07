/*
 * The kernel variants (--kernel: the sysenter patch's history, docs/fidelity.md
 * "Kernel variants"): the shape of each one's entry path, context switch and
 * vsyscall page, seen in what runs (--trace) and in what a program is given
 * (the auxiliary vector), and the TF single-step over a sysenter call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const char *const kernels[] = { "2.5.53-seed", "2.5.53", "2.5.54", "2.6.0" };
#define NKERNELS (int)(sizeof kernels / sizeof kernels[0])
enum { SEED, K2553, K2554, K260 };

/* Where each step of the history had the page: the seed at the top page
 * (06ef00ba34's FIXADDR_TOP), from the next day on one page lower, the top
 * one a hole (81549d68c0's FIX_HOLE); 2.6.0's vsyscall.lds links it at
 * 0xffffe000 with the code from +0x400. */
static const uint32_t page_of[] = { 0xfffff000u, 0xffffe000u, 0xffffe000u, 0xffffe000u };

/* The page's entry (AT_SYSINFO, __kernel_vsyscall). */
static uint32_t entry_of(int k)
{
    return page_of[k] + (k == K260 ? 0x400 : 0);
}

/* The ELF image (AT_SYSINFO_EHDR): the page itself in 2.6.0, before it
 * this kernel's convenience in the page's second half. */
static uint32_t ehdr_of(int k)
{
    return page_of[k] + (k == K260 ? 0 : 0x800);
}

/* A --trace --trace-insns of PROGRAM ARG ARG under kernel k, as text. */
static char *trace_of(int k, const char *cpu, const char *prog, const char *a1, const char *a2)
{
    const char *path = scratch("trace");
    struct emu_result r;
    emu(&r, "run", "--kernel", kernels[k], "--cpu", cpu, "--trace", path, "--trace-insns",
        program(prog), a1, a2, NULL);
    ck_assert_msg(r.status == 0, "%s %s on %s: exit %d: %s", prog, a1, kernels[k], r.status,
                  r.err);
    emu_result_free(&r);
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* The trace's instruction lines from the first one containing from up to
 * (not including) the first after it containing to, as a copy. */
static char *between(const char *text, const char *from, const char *to)
{
    const char *a = strstr(text, from);
    ck_assert_msg(a != NULL, "no '%s' in the trace", from);
    const char *b = strstr(a + 1, to);
    ck_assert_msg(b != NULL, "no '%s' after '%s' in the trace", to, from);
    return strndup(a, (size_t)(b - a));
}

/* What sysenter lands on: the seed's trampoline, from 2.5.53 on
 * sysenter_entry itself; 2.6.0's first instruction loads ESP from the
 * TSS (below SYSENTER_ESP). On the way out, 2.5.53 pops DS and ES before
 * sysexit, 2.5.54 only the general registers, 2.6.0 nothing. */
START_TEST(the_entry_path_has_each_variants_shape)
{
    char *t = trace_of(_i, "pentium4", "one_call", "gettimeofday", NULL);
    char *in = between(t, " sysenter  ", " push 0x7b ");
    char *out = between(strstr(t, " sysenter  "), "k sysenter_return ", " sysexit ");
    bool trampoline = strstr(in, "k sysenter_trampoline ") != NULL;
    bool tss_load = strstr(in, "k sysenter_entry               mov esp, dword ptr [esp - ") != NULL;
    int pops = count_lines_containing(out, " pop ");
    bool seg_pops = strstr(out, " pop ds ") || strstr(out, " pop es ");
    ck_assert_msg(trampoline == (_i == SEED), "%s: trampoline %d:\n%s", kernels[_i], trampoline, in);
    ck_assert_msg(tss_load == (_i == K260), "%s: esp from the TSS %d:\n%s", kernels[_i], tss_load,
                  in);
    ck_assert_msg(seg_pops == (_i <= K2553), "%s: segment pops %d:\n%s", kernels[_i], seg_pops, out);
    ck_assert_msg(pops == (_i <= K2553 ? 9 : _i == K2554 ? 7 : 0), "%s: %d pops:\n%s", kernels[_i],
                  pops, out);
    free(in);
    free(out);
    free(t);
}
END_TEST

/* 2.5.53 and 2.5.54 write SYSENTER_CS and SYSENTER_ESP at every switch
 * (load_esp0) where the CPU has SEP, the seed and 2.6.0 never; lat ctx
 * switches back and forth. */
START_TEST(the_switch_path_writes_the_msrs_in_2_5_53_and_2_5_54_only)
{
    static const char *const cpus[] = { "pentium4", "pentium3", "pentium4,-sep", "pentium3,-sep" };
    for (int c = 0; c < 4; c++) {
        char *t = trace_of(_i, cpus[c], "lat", "ctx", "3");
        int switches = 0, wrmsrs = 0;
        for (char *line = t; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
            size_t len = strcspn(line, "\n");
            char *l = strndup(line, len);
            if (strstr(l, " k __switch_to "))
                switches++;
            if (strstr(l, " k __switch_to") && strstr(l, " wrmsr "))
                wrmsrs++;
            free(l);
        }
        /* cpu_has_sep: without SEP nothing is written */
        int per = (_i == K2553 || _i == K2554) && !strstr(cpus[c], "-sep") ? 2 : 0;
        ck_assert_msg(switches > 0 && wrmsrs == per * switches, "%s on %s: %d switches, %d wrmsr",
                      kernels[_i], cpus[c], switches, wrmsrs);
        free(t);
    }
}
END_TEST

/* AT_SYSINFO and AT_SYSINFO_EHDR: 2.6.0's page is its ELF image from the
 * first byte, whose entry (and __kernel_vsyscall) is AT_SYSINFO; the
 * others keep the image in the page's second half (a convenience for
 * glibc: 2.5 had none) and the entry at the page's start. */
START_TEST(the_vsyscall_page_as_a_program_sees_it)
{
    struct emu_result r;
    emu(&r, "run", "--kernel", kernels[_i], "--cpu", "pentium3", program("vdso_probe"), NULL);
    char want[256];
    uint32_t entry = entry_of(_i), ehdr = ehdr_of(_i);
    snprintf(want, sizeof want,
             "AT_SYSINFO %08x AT_SYSINFO_EHDR %08x\nehdr bytes 7f ELF, e_entry %08x\n"
             "__kernel_vsyscall %08x\ngetpid through AT_SYSINFO: 2\n",
             entry, ehdr, entry, _i == K260 ? entry : 0);
    ck_assert_msg(r.status == 0 && !strcmp(r.out, want), "%s: exit %d:\n%s\nwant\n%s%s",
                  kernels[_i], r.status, r.out, want, r.err);
    emu_result_free(&r);
}
END_TEST

/* A program built for the seed's page (a direct call 0xfffff000, faults
 * vsyscall-jump 0) works on the seed; from 2.5.53 on that page is the
 * hole at the top, and the call dies there with SIGSEGV (error 4: a user
 * read of a page not present), as on 2.5.53 itself. */
START_TEST(the_seeds_page_address_is_a_hole_from_2_5_53_on)
{
    struct emu_result r;
    emu(&r, "run", "--kernel", kernels[_i], "--cpu", "pentium4", program("faults"),
        "vsyscall-jump", "0", NULL);
    if (_i == SEED)
        ck_assert_msg(r.status == 0 && strstr(r.out, "came back, eax=2"), "exit %d: %s%s",
                      r.status, r.out, r.err);
    else
        ck_assert_msg(r.status == 128 + 11 &&
                          strstr(r.err, "killed by SIGSEGV: #PF page fault at eip fffff000, "
                                        "cr2 fffff000, error 0x4\n"),
                      "%s: exit %d: %s", kernels[_i], r.status, r.err);
    emu_result_free(&r);
}
END_TEST

/* --vgettimeofday on each layout: the vDSO's symbols where the variant
 * has them (2.6.0's sigreturn stubs at +0x420 and +0x440, the clock after
 * them), and the time base the page below the vsyscall page, read-only. */
START_TEST(the_user_space_clock_follows_the_page)
{
    uint32_t page = page_of[_i], sig = page + (_i == K260 ? 0x420 : 0x400);
    uint32_t gtod = page + (_i == K260 ? 0x480 : 0x440);
    char want[512];
    snprintf(want, sizeof want,
             "__kernel_vsyscall at 0x%x\n__kernel_sigreturn at 0x%x\n"
             "__kernel_rt_sigreturn at 0x%x\n__vdso_gettimeofday at 0x%x\n"
             "__vdso_clock_gettime at 0x%x\n",
             entry_of(_i), sig, sig + 0x20, gtod, gtod + 0x80);
    struct emu_result r;
    emu(&r, "run", "--kernel", kernels[_i], "--cpu", "pentium3", "--vgettimeofday",
        program("vgtod"), "sym", NULL);
    ck_assert_msg(r.status == 0 && !strcmp(r.out, want), "%s: exit %d:\n%s\nwant\n%s%s",
                  kernels[_i], r.status, r.out, want, r.err);
    emu_result_free(&r);
    emu(&r, "run", "--kernel", kernels[_i], "--cpu", "pentium3", "--vgettimeofday",
        program("vgtod"), "check", "20", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "no disagreement"), "%s: exit %d: %s%s",
                  kernels[_i], r.status, r.out, r.err);
    emu_result_free(&r);
    emu(&r, "run", "--kernel", kernels[_i], "--cpu", "pentium3", "--vgettimeofday",
        program("vgtod"), "write", NULL);
    snprintf(want, sizeof want, "killed by SIGSEGV: #PF page fault at eip ");
    char cr2[64];
    snprintf(cr2, sizeof cr2, ", cr2 %08x, error 0x7\n", page - 0x1000);
    ck_assert_msg(r.status == 128 + 11 && strstr(r.err, want) && strstr(r.err, cr2),
                  "%s: exit %d: %s", kernels[_i], r.status, r.err);
    emu_result_free(&r);
}
END_TEST

/* Real libcs take the page's entry from AT_SYSINFO on every variant. */
START_TEST(static_glibc_and_musl_run_through_sysenter)
{
    static const char *const progs[] = { "hello-glibc", "hello-musl" };
    for (int p = 0; p < 2; p++) {
        char path[256];
        snprintf(path, sizeof path, "%s/static/%s", BUILD_DIR, progs[p]);
        struct emu_result r;
        emu(&r, "run", "--kernel", kernels[_i], "--cpu", "pentium4", "--report", path, NULL);
        long sysenter = 0, int80 = 0, sysexits = 0, irets = 0;
        ck_assert_msg(r.status == 0 && strstr(r.out, "hello, world") &&
                          report_paths(r.err, &sysenter, &int80, &sysexits, &irets) &&
                          sysenter > 0 && sysexits > 0,
                      "%s on %s: exit %d: %s%s", progs[p], kernels[_i], r.status, r.out, r.err);
        emu_result_free(&r);
    }
}
END_TEST

/*
 * TF set across a sysenter call through the page (sighostile step: one
 * SIGTRAP per user instruction, by offset in the page). No native run can
 * be compared here; each outcome is what the history's code implies on
 * this machine. The seed patch (06ef00ba34): sysenter leaves TF on, the
 * trap comes at CPL 0 on the trampoline with ESP at the top of the
 * trampoline's own page; do_debug's current, from ESP & ~8191, is the word
 * of the page below that this kernel keeps 0 (the fixmap's page table), so
 * its store is a NULL dereference: an oops, the task killed by SIGSEGV,
 * the machine on. From 2.5.53 (6439c70388, e2fb41343a) the trap is on the
 * task's own stack, only sets TIF_SINGLESTEP; the exit puts TF back in the
 * frame and iret's TF traps after the next instruction: the return
 * point's pop is never a step of its own.
 */
START_TEST(tf_single_step_over_sysenter_per_variant)
{
    struct emu_result r;
    emu(&r, "run", "--kernel", kernels[_i], "--cpu", _i % 2 ? "pentium3" : "pentium4",
        program("sighostile"), "step", NULL);
    uint32_t e = entry_of(_i) - page_of[_i], ret = 16;
    char want[256];
    if (_i == SEED) {
        const char *cr2 = strstr(r.err, ", cr2 ");
        ck_assert_msg(r.status == 128 + 11 && !*r.out && count_char(r.err, '\n') == 1 &&
                          strstr(r.err, "killed by SIGSEGV: oops: kernel NULL pointer "
                                        "dereference in do_debug ") &&
                          cr2 && strtoul(cr2 + 6, NULL, 16) < 0x1000,
                      "seed: exit %d: %s%s", r.status, r.out, r.err);
    } else {
        snprintf(want, sizeof want,
                 "getpid 2, 10 traps: prog +%u +%u +%u +%u +%u +%u +%u +%u prog\n", e, e + 1,
                 e + 2, e + 3, e + 5, e + ret + 1, e + ret + 2, e + ret + 3);
        ck_assert_msg(r.status == 0 && !strcmp(r.out, want), "%s: exit %d: %s want %s%s",
                      kernels[_i], r.status, r.out, want, r.err);
    }
    emu_result_free(&r);
}
END_TEST

/* The seed's oops kills the task, not the machine: under a shell the
 * stepping child dies of SIGSEGV and the shell goes on. */
START_TEST(the_seeds_oops_kills_the_task_and_the_machine_goes_on)
{
    char root[200], bin[210], cmd[1024];
    snprintf(root, sizeof root, "%s", scratch("root"));
    snprintf(bin, sizeof bin, "%s/bin", root);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s %s %s", bin, fixture("busybox"),
             program("sighostile"), bin);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/busybox", bin);
    struct emu_result r;
    emu(&r, "run", "--root", root, "--cpu", "pentium4", cmd, "sh", "-c",
        "/bin/sighostile step; echo status $?; echo on", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "status 139\non\n"), "exit %d: %s%s",
                  r.status, r.out, r.err);
    emu_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The later variants are built for up on the two cores only. */
START_TEST(unsupported_combinations_are_refused_in_one_line)
{
    static const char *const bad[][6] = {
        { "--kernel", "2.6.0", "--kernel-config", "smp", NULL },
        { "--kernel", "2.5.54", "--smp", "2", NULL },
        { "--kernel", "2.5.53", "--cpu", "pentiumpro", NULL },
        { "--kernel", "2.4.20", NULL },
    };
    for (int b = 0; b < 4; b++) {
        const char *args[10] = { "run" };
        int n = 1;
        for (int j = 0; bad[b][j]; j++)
            args[n++] = bad[b][j];
        args[n++] = program("hello");
        args[n] = NULL;
        struct emu_result r;
        run_emu(&r, args);
        ck_assert_msg(r.status == 2 && count_char(r.err, '\n') == 1 && !strncmp(r.err, "emu: ", 5),
                      "case %d: exit %d: %s", b, r.status, r.err);
        emu_result_free(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("variants");
    TCase *tc = tcase_create("variants");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, the_entry_path_has_each_variants_shape, 0, NKERNELS);
    tcase_add_loop_test(tc, the_switch_path_writes_the_msrs_in_2_5_53_and_2_5_54_only, 0, NKERNELS);
    tcase_add_loop_test(tc, the_vsyscall_page_as_a_program_sees_it, 0, NKERNELS);
    tcase_add_loop_test(tc, the_seeds_page_address_is_a_hole_from_2_5_53_on, 0, NKERNELS);
    tcase_add_loop_test(tc, the_user_space_clock_follows_the_page, 0, NKERNELS);
    tcase_add_loop_test(tc, static_glibc_and_musl_run_through_sysenter, 0, NKERNELS);
    tcase_add_loop_test(tc, tf_single_step_over_sysenter_per_variant, 0, NKERNELS);
    tcase_add_test(tc, the_seeds_oops_kills_the_task_and_the_machine_goes_on);
    tcase_add_test(tc, unsupported_combinations_are_refused_in_one_line);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
