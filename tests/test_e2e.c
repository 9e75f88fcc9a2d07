/*
 * End to end: build/emu/emu running the guest programs (hello, whoami,
 * check_syscalls, faults, syscall_loop) under the guest kernel on each CPU
 * model, and the command line's handling of bad input.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

/* The counts of the "system calls: N via sysenter, M via int $0x80" line. */
static bool report_paths(const char *err, long *sysenter, long *int80, long *sysexits,
                         long *irets)
{
    char *line = line_with(err, "emu: report: system calls: ");
    if (!line)
        return false;
    int got = sscanf(line, "emu: report: system calls: %ld via sysenter, %ld via int $0x80; "
                     "returns: %ld sysexit, %ld iret", sysenter, int80, sysexits, irets);
    free(line);
    return got == 4;
}

/* A scratch file name for a trace. */
static const char *scratch(const char *tag)
{
    static char path[4][128];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "/tmp/sysemu_e2e_%d_%s", (int)getpid(), tag);
    return p;
}

/* ---------------------------------------------------------------- hello */

START_TEST(hello_prints_and_passes_exit_status)
{
    struct emu_result r;
    emu(&r, "run", program("hello"), "3", NULL);
    ck_assert_str_eq(r.out, "hello\n");
    ck_assert_msg(r.status == 3, "hello 3: exit %d, stderr: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);

    emu(&r, "run", program("hello"), NULL);
    ck_assert_str_eq(r.out, "hello\n");
    ck_assert_int_eq(r.status, 0);
    emu_result_free(&r);

    emu(&r, "run", "--cpu", "pentiumpro", program("hello"), "255", NULL);
    ck_assert_str_eq(r.out, "hello\n");
    ck_assert_int_eq(r.status, 255);
    emu_result_free(&r);
}
END_TEST

/* --------------------------------------------------------------- whoami */

#define SYSENTER_STUB "vsyscall=51 52 55 89 e5 0f 34 5d 5a 59 c3"
#define INT80_STUB "vsyscall=cd 80 c3 00 00 00 00 00 00 00 00"

static const struct {
    const char *cpu;
    const char *stub;
} whoami_cases[] = {
    { "pentium4", SYSENTER_STUB },
    { "pentium3", SYSENTER_STUB },
    { "pentiumpro", INT80_STUB },
    { "pentium4,-sep", INT80_STUB },
    { "pentium3,-sep", INT80_STUB },
};

START_TEST(whoami_segments_sysinfo_and_vsyscall_stub)
{
    const char *cpu = whoami_cases[_i].cpu;
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("whoami"), NULL);
    ck_assert_msg(r.status == 0, "whoami on %s: exit %d, stderr: %s", cpu, r.status, r.err);
    ck_assert_int_eq(count_char(r.out, '\n'), 1);
    ck_assert_msg(strstr(r.out, "cs=0073 ss=007b ds=007b es=007b sysinfo=fffff000"),
                  "whoami on %s: %s", cpu, r.out);
    ck_assert_msg(strstr(r.out, whoami_cases[_i].stub), "whoami on %s: %s (want %s)", cpu,
                  r.out, whoami_cases[_i].stub);
    const char *fl = strstr(r.out, "eflags=");
    ck_assert_ptr_nonnull(fl);
    unsigned long eflags = strtoul(fl + 7, NULL, 16);
    ck_assert_msg(eflags & X86_EFLAGS_IF, "IF clear in user mode: %08lx", eflags);
    ck_assert_msg((eflags & X86_EFLAGS_IOPL) == 0, "IOPL not 0 in user mode: %08lx", eflags);
    ck_assert_msg(eflags & X86_EFLAGS_FIXED, "EFLAGS bit 1 clear: %08lx", eflags);
    emu_result_free(&r);
}
END_TEST

/* ------------------------------------------------------- check_syscalls */

static const char *const models[] = {
    "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep", "pentiumpro",
};
#define NMODELS 5
static bool model_has_working_sep(int m)
{
    return m == 0 || m == 2;
}

/* loop index: model * 2 + (0 int80, 1 vsyscall) */
START_TEST(check_syscalls_passes)
{
    const char *cpu = models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("check_syscalls"), mode, NULL);
    char *fail = line_with(r.out, "FAIL");
    ck_assert_msg(!fail, "check_syscalls %s on %s: %s", mode, cpu, fail);
    ck_assert_msg(count_lines_containing(r.out, "ok ") >= 30,
                  "check_syscalls %s on %s: only %d ok lines; exit %d, stderr: %s", mode, cpu,
                  count_lines_containing(r.out, "ok "), r.status, r.err);
    ck_assert_msg(r.status == 0, "check_syscalls %s on %s: exit %d, stderr: %s", mode, cpu,
                  r.status, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(check_syscalls_output_is_the_same_everywhere)
{
    struct emu_result ref;
    emu(&ref, "run", "--cpu", models[0], program("check_syscalls"), "int80", NULL);
    ck_assert_msg(count_lines_containing(ref.out, "ok ") >= 30, "reference run: %s", ref.out);
    for (int i = 0; i < 2 * NMODELS; i++) {
        const char *cpu = models[i / 2], *mode = i % 2 ? "vsyscall" : "int80";
        struct emu_result r;
        emu(&r, "run", "--cpu", cpu, program("check_syscalls"), mode, NULL);
        ck_assert_msg(!strcmp(r.out, ref.out),
                      "check_syscalls %s on %s differs from int80 on pentium4:\n%s\n---\n%s",
                      mode, cpu, r.out, ref.out);
        emu_result_free(&r);
    }
    emu_result_free(&ref);
}
END_TEST

START_TEST(report_counts_sysenter_only_where_it_is_used)
{
    const char *cpu = models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    bool sysenter = model_has_working_sep(_i / 2) && _i % 2;
    long n_sysenter = -1, n_int80 = -1, n_sysexit = -1, n_iret = -1;
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, program("check_syscalls"), mode, NULL);
    ck_assert_msg(report_paths(r.err, &n_sysenter, &n_int80, &n_sysexit, &n_iret),
                  "no report line in: %s", r.err);
    if (sysenter) {
        ck_assert_msg(n_sysenter > 20 && n_int80 == 0 && n_sysexit > 20,
                      "%s on %s: %ld sysenter, %ld int80, %ld sysexit", mode, cpu,
                      n_sysenter, n_int80, n_sysexit);
    } else {
        ck_assert_msg(n_sysenter == 0 && n_int80 > 20 && n_sysexit == 0 && n_iret > 20,
                      "%s on %s: %ld sysenter, %ld int80, %ld sysexit, %ld iret", mode, cpu,
                      n_sysenter, n_int80, n_sysexit, n_iret);
    }
    char *cpu_line = line_with(r.err, "emu: report: cpu ");
    ck_assert_ptr_nonnull(cpu_line);
    ck_assert_msg(strstr(cpu_line, cpu), "report names %s for --cpu %s", cpu_line, cpu);
    free(cpu_line);
    emu_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------- faults */

#define NO_CR2 (-1L)
#define CR2_IS_EIP (-2L)
#define CR2_ON_STACK (-3L)
#define NO_EIP (-100)

static const struct fault_expect {
    const char *name;
    const char *cpu;
    int status;
    const char *signal;
    const char *vector;   /* as the report starts it: "#GP " */
    long error;           /* -1: do not check */
    long cr2;             /* an address, or NO_CR2 / CR2_IS_EIP / CR2_ON_STACK */
    int eip_delta;        /* report eip - printed eip, or NO_EIP */
} faults[] = {
    { "wrmsr", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "rdmsr", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "hlt", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "cli", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "sti", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "lgdt", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "lgdt-user", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "lidt", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "mov-cr3", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "out", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "outl", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "in", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "iret", "pentium4", 139, "SIGSEGV", "#GP ", __KERNEL_CS, NO_CR2, 0 },
    { "sysexit", "pentium4", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "sysexit", "pentium3", 139, "SIGSEGV", "#GP ", 0, NO_CR2, 0 },
    { "int13", "pentium4", 139, "SIGSEGV", "#GP ", X86_IDT_ERROR(X86_VEC_GP, 0), NO_CR2, 0 },
    { "kernel-ds", "pentium4", 139, "SIGSEGV", "#GP ", __KERNEL_DS, NO_CR2, 0 },
    { "far-call-bad", "pentium4", 139, "SIGSEGV", "#GP ", 0x1234, NO_CR2, 0 },
    { "ud2", "pentium4", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "ud2", "pentiumpro", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "sysenter-by-hand", "pentiumpro", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "sysenter-by-hand", "pentium4,-sep", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "sysenter-by-hand", "pentium3,-sep", 132, "SIGILL", "#UD ", 0, NO_CR2, 0 },
    { "div0", "pentium4", 136, "SIGFPE", "#DE ", 0, NO_CR2, 0 },
    { "int3", "pentium4", 133, "SIGTRAP", "#BP ", 0, NO_CR2, 1 },
    { "kread", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_PROT, 0xc0100000L, 0 },
    { "kread", "pentiumpro", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_PROT, 0xc0100000L, 0 },
    { "kwrite", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, 0xc0100000L, 0 },
    { "null", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER, 0, 0 },
    { "hole-read", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER, 0xe0000000L, 0 },
    { "vsyscall-write", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, 0xfffff000L, 0 },
    { "vsyscall-write", "pentiumpro", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, 0xfffff000L, 0 },
    { "text-write", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, CR2_IS_EIP, 0 },
    { "stack-overflow", "pentium4", 139, "SIGSEGV", "#PF ", X86_PF_USER | X86_PF_WRITE, CR2_ON_STACK, NO_EIP },
};

START_TEST(fault_is_reported_with_vector_error_and_cr2)
{
    const struct fault_expect *f = &faults[_i];
    struct emu_result r;
    emu(&r, "run", "--cpu", f->cpu, program("faults"), f->name, NULL);
    ck_assert_msg(r.status == f->status, "faults %s on %s: exit %d, want %d; stdout: %s"
                  "stderr: %s", f->name, f->cpu, r.status, f->status, r.out, r.err);
    ck_assert_msg(count_char(r.err, '\n') == 1, "faults %s: stderr is not one line: %s",
                  f->name, r.err);
    ck_assert_msg(!strncmp(r.err, "emu: ", 5), "faults %s: %s", f->name, r.err);

    char want[160];
    snprintf(want, sizeof want, "killed by %s: %s", f->signal, f->vector);
    ck_assert_msg(strstr(r.err, want), "faults %s on %s: want \"%s\" in: %s", f->name,
                  f->cpu, want, r.err);
    ck_assert_msg(!strstr(r.err, "#DF") && !strstr(r.err, "double"), "%s", r.err);

    long eip = hex_after(r.out, "eip=");
    if (f->eip_delta != NO_EIP) {
        ck_assert_msg(eip > 0, "faults %s printed no eip: %s", f->name, r.out);
        snprintf(want, sizeof want, " at eip %08lx,", eip + f->eip_delta);
        ck_assert_msg(strstr(r.err, want), "faults %s: want \"%s\" in: %s", f->name, want,
                      r.err);
    }
    if (f->error >= 0) {
        snprintf(want, sizeof want, ", error %#lx\n", f->error);
        ck_assert_msg(strstr(r.err, want), "faults %s: want \"%s\" in: %s", f->name, want,
                      r.err);
    }
    long cr2 = hex_after(r.err, "cr2 ");
    if (f->cr2 == NO_CR2) {
        ck_assert_msg(cr2 == -1, "cr2 reported for a non-#PF: %s", r.err);
    } else if (f->cr2 == CR2_IS_EIP) {
        ck_assert_msg(cr2 == eip, "faults %s: cr2 %lx, want %lx: %s", f->name, cr2, eip, r.err);
    } else if (f->cr2 == CR2_ON_STACK) {
        ck_assert_msg(cr2 >= 0xbf800000L && cr2 < 0xc0000000L,
                      "faults %s: cr2 %lx not just below a user stack: %s", f->name, cr2, r.err);
    } else {
        ck_assert_msg(cr2 == f->cr2, "faults %s: cr2 %lx, want %lx: %s", f->name, cr2, f->cr2,
                      r.err);
    }
    emu_result_free(&r);
}
END_TEST

START_TEST(out_to_a_hypercall_port_from_ring3_never_reaches_it)
{
    /* outl of a fake exit block's address to the exit port: a hypercall
     * from ring 3 would end the run with status 0. */
    struct emu_result r;
    emu(&r, "run", program("faults"), "outl", NULL);
    ck_assert_msg(r.status != 0, "user outl to the exit port exited 0: %s", r.err);
    ck_assert_msg(r.status == 139 && strstr(r.err, "#GP"),
                  "user outl: exit %d, stdout %s stderr %s", r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(sysenter_by_hand_returns_through_sysenter_return_on_sep)
{
    const char *cpu = _i ? "pentium3" : "pentium4";
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, program("faults"), "sysenter-by-hand", NULL);
    ck_assert_msg(r.status == 0, "sysenter-by-hand on %s: exit %d, %s", cpu, r.status, r.err);
    ck_assert_msg(strstr(r.out, "sysenter-by-hand: returned 1\n"), "%s", r.out);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    ck_assert_msg(s >= 1, "no sysenter counted: %s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(vsyscall_page_is_user_readable)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium4", program("faults"), "vsyscall-read", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "vsyscall-read: 51\n");
    emu_result_free(&r);
    emu(&r, "run", "--cpu", "pentiumpro", program("faults"), "vsyscall-read", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "vsyscall-read: cd\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(vsyscall_jump_odd_ends_cleanly)
{
    const char *cpu = models[_i];
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("faults"), "vsyscall-jump-odd", NULL);
    bool killed = r.status == 128 + 4 || r.status == 128 + 5 || r.status == 128 + 7 ||
                  r.status == 128 + 8 || r.status == 128 + 11;
    ck_assert_msg(r.status == 0 || killed,
                  "vsyscall-jump-odd on %s: exit %d (not a clean exit or kill): %s", cpu,
                  r.status, r.err);
    if (killed) {
        ck_assert_msg(strstr(r.err, "killed by") && count_char(r.err, '\n') == 1, "%s",
                      r.err);
    } else {
        ck_assert_str_eq(r.err, "");
    }
    emu_result_free(&r);
}
END_TEST

START_TEST(efault_storm_then_user_page_fault)
{
    const char *cpu = _i ? "pentiumpro" : "pentium4";
    struct emu_result r;
    emu(&r, "run", "--strace", "--cpu", cpu, program("faults"), "efault-storm", "50", NULL);
    ck_assert_msg(r.status == 139, "efault-storm on %s: exit %d; stdout %s", cpu, r.status,
                  r.out);
    ck_assert_int_eq(count_lines_containing(r.err, "= -14"), 50);
    ck_assert_int_eq(count_lines_containing(r.err, _i ? "[int80/iret] write(0x1, " :
                                                        "[sysenter/sysexit] write(0x1, "), 51);
    ck_assert_msg(!strstr(r.err, "#DF") && !strstr(r.err, "double fault"), "%s", r.err);
    long eip = hex_after(r.out, "eip=");
    char want[160];
    snprintf(want, sizeof want,
             "killed by SIGSEGV: #PF page fault at eip %08lx, cr2 c0100000, error 0x5\n", eip);
    char *kill = line_with(r.err, "emu: ");
    ck_assert_msg(kill && strstr(kill, "killed by SIGSEGV: #PF"), "%s", r.err);
    free(kill);
    ck_assert_msg(strstr(r.err, want), "want \"%s\" in: %s", want, r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(instruction_budget_stops_a_loop)
{
    struct emu_result r;
    emu(&r, "run", "--max-insns", "100000", program("faults"), "loop", NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_msg(strstr(r.err, "budget"), "%s", r.err);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);

    /* A budget the boot fits in: the loop itself is what runs out of it. */
    emu(&r, "run", "--max-insns", "5000000", program("faults"), "loop", NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_msg(strstr(r.out, "loop: eip="), "the program did not start: %s", r.out);
    ck_assert_msg(strstr(r.err, "budget"), "%s", r.err);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
}
END_TEST

/* ------------------------------------------------------------ bad input */

static void assert_one_line_error(const struct emu_result *r, int status)
{
    ck_assert_msg(r->status == status, "exit %d, want %d; stderr: %s", r->status, status,
                  r->err);
    ck_assert_msg(!strncmp(r->err, "emu:", 4), "stderr: %s", r->err);
    ck_assert_msg(count_char(r->err, '\n') == 1, "stderr is not one line: %s", r->err);
    ck_assert_str_eq(r->out, "");
}

START_TEST(missing_program_file_is_127)
{
    struct emu_result r;
    emu(&r, "run", "/nonexistent/sysemu/prog", NULL);
    assert_one_line_error(&r, 127);
    emu_result_free(&r);
}
END_TEST

START_TEST(non_elf_file_is_126)
{
    const char *path = scratch("notelf");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#!/bin/sh\necho this is not an ELF file\n", f);
    fclose(f);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    unlink(path);
    assert_one_line_error(&r, 126);
    ck_assert_msg(strstr(r.err, "ELF"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(truncated_elf_is_126)
{
    const char *path = scratch("truncated");
    char *hello = NULL;
    FILE *in = fopen(program("hello"), "rb");
    ck_assert_ptr_nonnull(in);
    hello = malloc(100);
    ck_assert_int_eq(fread(hello, 1, 100, in), 100);
    fclose(in);
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(fwrite(hello, 1, 100, out), 100);
    fclose(out);
    free(hello);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    unlink(path);
    assert_one_line_error(&r, 126);
    emu_result_free(&r);
}
END_TEST

START_TEST(x86_64_elf_is_126)
{
    struct emu_result r;
    emu(&r, "run", "/bin/true", NULL);
    assert_one_line_error(&r, 126);
    emu_result_free(&r);
}
END_TEST

START_TEST(unknown_option_is_2)
{
    struct emu_result r;
    emu(&r, "run", "--no-such-option", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

START_TEST(unknown_cpu_is_2_and_points_at_list_cpus)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium9", program("hello"), NULL);
    assert_one_line_error(&r, 2);
    ck_assert_msg(strstr(r.err, "--list-cpus"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(no_program_is_2)
{
    struct emu_result r;
    emu(&r, "run", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
    emu(&r, "run", "--cpu", "pentium4", NULL);
    assert_one_line_error(&r, 2);
    emu_result_free(&r);
}
END_TEST

START_TEST(list_cpus_gives_the_signatures)
{
    static const char *const want[3][2] = {
        { "pentium4 ", "0x00f27" }, { "pentium3 ", "0x00686" }, { "pentiumpro ", "0x00611" },
    };
    struct emu_result r;
    emu(&r, "--list-cpus", NULL);
    ck_assert_int_eq(r.status, 0);
    for (int i = 0; i < 3; i++) {
        char *line = NULL;
        for (const char *p = r.out; p && *p;) {
            if (!strncmp(p, want[i][0], strlen(want[i][0]))) {
                const char *end = strchr(p, '\n');
                line = strndup(p, end ? (size_t)(end - p) : strlen(p));
                break;
            }
            p = strchr(p, '\n');
            p = p ? p + 1 : NULL;
        }
        ck_assert_msg(line, "no line for %s in: %s", want[i][0], r.out);
        ck_assert_msg(strstr(line, want[i][1]), "%s: want %s", line, want[i][1]);
        free(line);
    }
    emu_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- determinism */

START_TEST(runs_are_deterministic)
{
    struct emu_result a, b;
    emu(&a, "run", "--report", program("syscall_loop"), "gettimeofday", "100", NULL);
    emu(&b, "run", "--report", program("syscall_loop"), "gettimeofday", "100", NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    ck_assert_msg(count_lines_containing(a.err, "emu: report:") >= 2, "%s", a.err);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_str_eq(a.err, b.err);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

/* --------------------------------------------------------------- traces */

/* Commas outside double quotes. */
static int csv_commas(const char *line, size_t len)
{
    int n = 0;
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == ',' && !quoted)
            n++;
    }
    return n;
}

static void check_csv(const char *text, int want_syscalls)
{
    const char *nl = strchr(text, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_msg(!strncmp(text, "kind,", 5), "no header: %.80s", text);
    int header = csv_commas(text, (size_t)(nl - text));
    int rows = 0, syscalls = 0;
    for (const char *line = nl + 1; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        ck_assert_msg(csv_commas(line, len) == header,
                      "row %d has %d commas, the header %d: %.*s", rows + 1,
                      csv_commas(line, len), header, (int)len, line);
        rows++;
        syscalls += !strncmp(line, "syscall,", 8);
        line = end ? end + 1 : line + len;
    }
    ck_assert_int_gt(rows, 0);
    ck_assert_int_eq(syscalls, want_syscalls);
}

START_TEST(csv_trace_rows_match_the_header)
{
    const char *path = scratch("trace.csv");
    struct emu_result r;
    emu(&r, "run", "--report", "--trace", path, "--trace-format", "csv",
        program("syscall_loop"), "getpid", "3", NULL);
    ck_assert_int_eq(r.status, 0);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    check_csv(text, (int)(s + i));
    free(text);
    emu_result_free(&r);
}
END_TEST

START_TEST(csv_trace_with_instructions_rows_match_the_header)
{
    const char *path = scratch("trace_insns.csv");
    struct emu_result r;
    emu(&r, "run", "--report", "--trace", path, "--trace-format", "csv", "--trace-insns",
        program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    check_csv(text, (int)(s + i));
    free(text);
    emu_result_free(&r);
}
END_TEST

START_TEST(json_trace_is_valid)
{
    const char *path = scratch("trace.json");
    struct emu_result r;
    emu(&r, "run", "--trace", path, "--trace-format", "json", program("syscall_loop"),
        "getpid", "3", NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(json_valid(text), "invalid JSON: %.300s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"traceEvents\""));
    ck_assert_ptr_nonnull(strstr(text, "kernel: getpid"));
    free(text);
    emu_result_free(&r);

    emu(&r, "run", "--trace", path, "--trace-format", "json", "--trace-insns",
        program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(json_valid(text), "invalid JSON with --trace-insns: %.300s", text);
    free(text);
    emu_result_free(&r);
}
END_TEST

static const struct {
    const char *cpu, *mode;
    const char *loop_in;   /* how the N calls of the loop enter */
    bool sep;              /* does the vsyscall page use sysenter? */
} text_trace_cases[] = {
    { "pentium4", "vsyscall", "in=sysenter", true },
    { "pentium4", "int80", "in=int80", true },
    { "pentium3", "vsyscall", "in=sysenter", true },
    { "pentium4,-sep", "vsyscall", "in=int80", false },
    { "pentium3,-sep", "vsyscall", "in=int80", false },
    { "pentiumpro", "vsyscall", "in=int80", false },
    { "pentiumpro", "int80", "in=int80", false },
};

START_TEST(text_trace_has_one_line_per_system_call)
{
    const char *cpu = text_trace_cases[_i].cpu, *mode = text_trace_cases[_i].mode;
    const char *path = scratch("trace.txt");
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, "--trace", path, program("syscall_loop"), "getpid",
        "3", mode, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    long s = 0, i = 0, x = 0, ir = 0;
    ck_assert(report_paths(r.err, &s, &i, &x, &ir));
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    int lines = count_char(text, '\n');
    ck_assert_msg(lines == s + i, "%s %s: %d trace lines, %ld system calls:\n%s", cpu, mode,
                  lines, s + i, text);
    ck_assert_int_eq(count_lines_containing(text, " syscall "), lines);
    ck_assert_msg(count_lines_containing(text, text_trace_cases[_i].loop_in) >= 3,
                  "%s %s: the loop's calls are not %s:\n%s", cpu, mode,
                  text_trace_cases[_i].loop_in, text);
    ck_assert_int_eq(count_lines_containing(text, "out=exited"), 1);
    if (!text_trace_cases[_i].sep) {
        ck_assert_int_eq(count_lines_containing(text, "sysenter"), 0);
        ck_assert_int_eq(count_lines_containing(text, "sysexit"), 0);
    } else if (!strcmp(mode, "vsyscall")) {
        ck_assert_int_ge(count_lines_containing(text, "out=sysexit"), 3);
    }
    /* each call leaves the way it came in (exit_group does not leave) */
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        char *l = strndup(line, end ? (size_t)(end - line) : strlen(line));
        bool exited = strstr(l, "out=exited") != NULL;
        if (strstr(l, "in=sysenter"))
            ck_assert_msg(exited || strstr(l, "out=sysexit"), "%s %s: %s", cpu, mode, l);
        else
            ck_assert_msg(strstr(l, "in=int80") && (exited || strstr(l, "out=iret")),
                          "%s %s: %s", cpu, mode, l);
        free(l);
        line = end ? end + 1 : line + strlen(line);
    }
    free(text);
    emu_result_free(&r);
}
END_TEST

Suite *e2e_suite(void)
{
    Suite *s = suite_create("e2e");
    TCase *tc;

    tc = tcase_create("programs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hello_prints_and_passes_exit_status);
    tcase_add_loop_test(tc, whoami_segments_sysinfo_and_vsyscall_stub, 0,
                        sizeof whoami_cases / sizeof whoami_cases[0]);
    suite_add_tcase(s, tc);

    tc = tcase_create("syscalls");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, check_syscalls_passes, 0, 2 * NMODELS);
    tcase_add_test(tc, check_syscalls_output_is_the_same_everywhere);
    tcase_add_loop_test(tc, report_counts_sysenter_only_where_it_is_used, 0, 2 * NMODELS);
    suite_add_tcase(s, tc);

    tc = tcase_create("faults");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, fault_is_reported_with_vector_error_and_cr2, 0,
                        sizeof faults / sizeof faults[0]);
    tcase_add_test(tc, out_to_a_hypercall_port_from_ring3_never_reaches_it);
    tcase_add_loop_test(tc, sysenter_by_hand_returns_through_sysenter_return_on_sep, 0, 2);
    tcase_add_test(tc, vsyscall_page_is_user_readable);
    tcase_add_loop_test(tc, vsyscall_jump_odd_ends_cleanly, 0, NMODELS);
    tcase_add_loop_test(tc, efault_storm_then_user_page_fault, 0, 2);
    tcase_add_test(tc, instruction_budget_stops_a_loop);
    suite_add_tcase(s, tc);

    tc = tcase_create("command line");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, missing_program_file_is_127);
    tcase_add_test(tc, non_elf_file_is_126);
    tcase_add_test(tc, truncated_elf_is_126);
    tcase_add_test(tc, x86_64_elf_is_126);
    tcase_add_test(tc, unknown_option_is_2);
    tcase_add_test(tc, unknown_cpu_is_2_and_points_at_list_cpus);
    tcase_add_test(tc, no_program_is_2);
    tcase_add_test(tc, list_cpus_gives_the_signatures);
    suite_add_tcase(s, tc);

    tc = tcase_create("output");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, runs_are_deterministic);
    tcase_add_test(tc, csv_trace_rows_match_the_header);
    tcase_add_test(tc, csv_trace_with_instructions_rows_match_the_header);
    tcase_add_test(tc, json_trace_is_valid);
    tcase_add_loop_test(tc, text_trace_has_one_line_per_system_call, 0,
                        sizeof text_trace_cases / sizeof text_trace_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(e2e_suite());
}
