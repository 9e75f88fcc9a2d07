/*
 * Hostile ring-3 CPU states, round two (docs/robustness.md, issue 13):
 * each of these once stopped the machine (exit 125), hung it or made it
 * misreport. Most cases are guest/programs/hostile.c, which prints the
 * EIP (and CR2) the kill report must name; the rest are tiny programs of
 * a few instruction bytes (fuzz/tiny_elf.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/tiny_elf.h"
#include "support.h"

static const char *const models[] = {
    "pentium4", "pentium3", "pentiumpro", "pentium4,-sep", "pentium3,-sep",
};
#define NMODELS (int)(sizeof models / sizeof models[0])
static const char *const sep_models[] = { "pentium4", "pentium3" };

/* Exactly one line on stderr, the emulator's, containing want. */
static void assert_one_report(const struct emu_result *r, int status, const char *want,
                              const char *what)
{
    ck_assert_msg(r->status == status, "%s: exit %d, want %d; out: %s err: %s", what,
                  r->status, status, r->out, r->err);
    ck_assert_msg(!strncmp(r->err, "emu: ", 5) && count_char(r->err, '\n') == 1,
                  "%s: stderr is not one emu: line: %s", what, r->err);
    ck_assert_msg(strstr(r->err, want), "%s: want \"%s\" in: %s", what, want, r->err);
}

/* hostile CASE [ARG] on cpu: the report must name the eip (and cr2) the
 * program printed, with this vector, error and signal. */
static void assert_kill(const char *cpu, const char *kase, const char *arg, int status,
                        const char *vector, int error)
{
    struct emu_result r;
    char want[192], what[96];
    emu(&r, "run", "--cpu", cpu, program("hostile"), kase, arg, NULL);
    long eip = hex_after(r.out, "eip="), cr2 = hex_after(r.out, "cr2=");
    ck_assert_msg(eip >= 0, "%s printed: %s", kase, r.out);
    if (cr2 >= 0)
        snprintf(want, sizeof want, "%s at eip %08lx, cr2 %08lx, error %#x\n", vector, eip,
                 cr2, error);
    else
        snprintf(want, sizeof want, "%s at eip %08lx, error %#x\n", vector, eip, error);
    snprintf(what, sizeof what, "%s %s on %s", kase, arg ? arg : "", cpu);
    assert_one_report(&r, status, want, what);
    emu_result_free(&r);
}

/* Is there a line in text with all of a, b and c in it? */
static bool a_line_with(const char *text, const char *a, const char *b, const char *c)
{
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        if (strstr(line, a) && strstr(line, b) && strstr(line, c))
            return true;
        p += n + (eol != NULL);
    }
    return false;
}

static const char *write_tiny(const char *tag, const uint8_t *code, uint32_t len)
{
    struct tiny_elf e;
    tiny_elf_init(&e, 0, 0);
    tiny_elf_set_code(&e, code, len);
    const char *path = scratch(tag);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(e.bytes, 1, e.size, f), e.size);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Row 1: a nop at 0xbfffffff (or 16 of them before it), then the first
 * byte of kernel space, a supervisor page: the fetch there faults, after
 * the nops ran, as on a CPU. */
START_TEST(running_into_kernel_space_is_a_page_fault_at_0xc0000000)
{
    const char *n = _i % 2 ? "1" : "16";
    assert_kill(models[_i / 2], "top-of-user", n, 139, "#PF page fault",
                X86_PF_USER | X86_PF_PROT);
}
END_TEST

/* Row 2: TF set as sysenter runs, by hand or on the vsyscall page's own
 * sysenter: the seed patch's kernel takes the step on its trampoline, on
 * the trampoline's page, finds no task there and oopses (docs/fidelity.md,
 * "Kernel variants"): the program dies of SIGSEGV, the call never made;
 * the kernel does not panic and the machine does not stop. */
START_TEST(single_step_into_sysenter_is_the_seeds_oops_not_a_machine_stop)
{
    const char *cpu = sep_models[_i / 2], *kase = _i % 2 ? "tf-vsyscall" : "tf-sysenter";
    struct emu_result r;
    emu(&r, "run", "--strace", "--cpu", cpu, program("hostile"), kase, NULL);
    ck_assert_msg(r.status == 139, "%s on %s: exit %d: %s", kase, cpu, r.status, r.err);
    ck_assert_msg(a_line_with(r.err, "[sysenter/exited]", " getpid() ", " = ?"),
                  "%s on %s: the call was not made through sysenter: %s", kase, cpu, r.err);
    ck_assert_msg(strstr(r.err, "killed by SIGSEGV: oops: kernel NULL pointer dereference in "
                                "do_debug "),
                  "%s on %s: %s", kase, cpu, r.err);
    ck_assert_msg(!strstr(r.err, "panic") && !strstr(r.err, "SIGTRAP"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* Without SEP, sysenter is #UD; on the Pentium Pro, which reports SEP
 * but whose MSRs the kernel leaves unset, #GP(0). Either way it faults,
 * and TF brings no trap after it. */
START_TEST(single_step_into_sysenter_without_sep_is_invalid_opcode)
{
    struct emu_result r;
    const char *cpu = _i ? "pentium3,-sep" : "pentiumpro";
    emu(&r, "run", "--cpu", cpu, program("hostile"), "tf-sysenter", NULL);
    if (_i)
        assert_one_report(&r, 132, "killed by SIGILL: #UD invalid opcode", cpu);
    else
        assert_one_report(&r, 139, "killed by SIGSEGV: #GP general protection at eip ", cpu);
    ck_assert_msg(!strstr(r.err, "SIGTRAP"), "%s: %s", cpu, r.err);
    emu_result_free(&r);
}
END_TEST

/* cpu_fuzz's input as hex: popf and jump, no TLS entries, EFLAGS 0x2,
 * then the code at 0x40000000 (guest/programs/cpu_fuzz.c). */
#define CPU_FUZZ_HEADER 77
static void cpu_fuzz_input(char *hex, const char *code, size_t n)
{
    uint8_t in[CPU_FUZZ_HEADER + 16] = { 0 };
    for (int i = 0; i < 3; i++)
        in[1 + 12 * i + 11] = 0x80;
    in[37] = 0x02;
    memcpy(in + CPU_FUZZ_HEADER, code, n);
    for (size_t i = 0; i < CPU_FUZZ_HEADER + n; i++)
        hex += sprintf(hex, "%02x", in[i]);
}

/* A sysenter with a prefix (66 0f 34, a cpu fuzz finding) that faults:
 * the engine steps over all 3 bytes after the hook (docs/unicorn.md,
 * quirk 9), so the handler must be entered at its first byte still, and
 * the fault names the sysenter, not a kernel page fault one byte into the
 * handler. #GP(0) on the Pentium Pro, #UD without SEP. */
START_TEST(a_prefixed_sysenter_that_faults_enters_the_handler_at_its_start)
{
    char hex[2 * (CPU_FUZZ_HEADER + 16) + 1];
    cpu_fuzz_input(hex, "\x66\x0f\x34", 3);
    const char *cpu = _i ? "pentium3,-sep" : "pentiumpro";
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("cpu_fuzz"), hex, NULL);
    if (_i)
        assert_one_report(&r, 132, "killed by SIGILL: #UD invalid opcode at eip 40000000", cpu);
    else
        assert_one_report(&r, 139, "killed by SIGSEGV: #GP general protection at eip 40000000, "
                          "error 0", cpu);
    emu_result_free(&r);
}
END_TEST

/* lock sysenter (f0 0f 34, a cpu fuzz finding): Capstone does not decode
 * it, the engine runs it as a sysenter; the CPU's answer to a lock prefix
 * on an instruction that cannot take one is #UD, at the instruction, on
 * every model (before: "sysenter outside a decoded block", exit 125). */
START_TEST(lock_sysenter_is_invalid_opcode)
{
    static const char *const cpus[] = { "pentium4", "pentiumpro", "pentium3,-sep" };
    char hex[2 * (CPU_FUZZ_HEADER + 16) + 1];
    struct emu_result r;
    cpu_fuzz_input(hex, _i < 3 ? "\xf0\x0f\x34" : "\x90\x66\xf0\x0f\x34", _i < 3 ? 3 : 5);
    emu(&r, "run", "--cpu", cpus[_i % 3], program("cpu_fuzz"), hex, NULL);
    assert_one_report(&r, 132, _i < 3 ? "killed by SIGILL: #UD invalid opcode at eip 40000000,"
                      : "killed by SIGILL: #UD invalid opcode at eip 40000001,", cpus[_i % 3]);
    emu_result_free(&r);
}
END_TEST

/* Row 3: IRET changes VM only at CPL 0; at CPL 3 the bit in the image is
 * ignored and the program runs on. The image in memory is the program's
 * again after each iret (the engine ran it with the bit hidden), the
 * second time at code the block hook knows. */
START_TEST(iret_with_vm_set_at_cpl3_is_ignored)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", models[_i], program("hostile"), "iret-vm", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "iret-vm: ran on, VM clear, the image in "
                                                 "memory 00020202 then 00020202"),
                  "on %s: exit %d: %s %s", models[_i], r.status, r.out, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

/* Row 4 and 10: set_thread_area installs code segments as Linux 2.5 did;
 * int n in one with a base (32-bit or 16-bit) is the #GP of its DPL-0
 * gate, with the IDT error code and EIP the offset in the segment. */
START_TEST(int_n_from_a_tls_code_segment_is_gp_with_the_idt_error)
{
    static const struct { const char *kase; int error; } c[] = {
        { "tls-code-int8", X86_IDT_ERROR(X86_VEC_DF, 0) },
        { "tls-code16-int8", X86_IDT_ERROR(X86_VEC_DF, 0) },
        { "tls-int13", X86_IDT_ERROR(X86_VEC_GP, 0) },
    };
    assert_kill(models[_i / 3], c[_i % 3].kase, NULL, 139, "#GP general protection",
                c[_i % 3].error);
}
END_TEST

/* Row 10: int $0x80 from a code segment with a base is a system call,
 * counted by path and traced. */
START_TEST(int80_from_a_based_code_segment_is_a_counted_traced_system_call)
{
    struct emu_result r, plain;
    const char *cpu = models[_i];
    emu(&r, "run", "--strace", "--report", "--cpu", cpu, program("hostile"), "tls-int80", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "getpid=2"), "on %s: exit %d: %s %s", cpu,
                  r.status, r.out, r.err);
    long offset = hex_after(r.out, "eip=");
    ck_assert_int_gt(offset, 0);
    ck_assert_msg(a_line_with(r.err, "[int80/iret]", " getpid() ", " = 2 <"),
                  "on %s: not traced: %s", cpu, r.err);
    struct report rep, rep0;
    ck_assert(parse_report(r.err, &rep));
    /* the same program without that call: one int $0x80 less */
    emu(&plain, "run", "--report", "--cpu", cpu, program("hostile"), "tls-conforming", NULL);
    ck_assert_int_eq(plain.status, 0);
    ck_assert(parse_report(plain.err, &rep0));
    ck_assert_msg(rep.int80 == rep0.int80 + 1 && rep.sysenter == rep0.sysenter,
                  "on %s: %ld/%ld int80, %ld/%ld sysenter", cpu, rep.int80, rep0.int80,
                  rep.sysenter, rep0.sysenter);
    emu_result_free(&r);
    emu_result_free(&plain);
}
END_TEST

/* A timer interrupt taken in a code segment with a base returns to the
 * instruction's offset in it (EIP), not to its linear address: the loop
 * there runs out through several ticks (one CPU and two). */
START_TEST(a_timer_interrupt_in_a_based_code_segment_returns_to_its_offset)
{
    struct emu_result r;
    const char *cpu = models[_i % NMODELS];
    const char *cpus = _i < NMODELS ? "1" : "2";
    emu(&r, "run", "--report", "--cpu", cpu, "--smp", cpus, program("hostile"), "tls-ticks",
        NULL);
    const char *ticks = strstr(r.err, "time: ");
    ck_assert_msg(ticks && atol(ticks + strlen("time: ")) > 0, "on %s: no tick: %s", cpu,
                  r.err);
    ck_assert_msg(r.status == 0 && strstr(r.out, "ecx=0"), "on %s x%s: exit %d: %s %s", cpu,
                  cpus, r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* A conforming TLS code segment (2.5.53 accepted it) runs at CPL 3. */
START_TEST(conforming_tls_code_runs_at_cpl3)
{
    struct emu_result r;
    emu(&r, "run", program("hostile"), "tls-conforming", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "tls-conforming: cs=33"), "exit %d: %s %s",
                  r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* Row 8: int $6 from ring 3 goes through gate 6, DPL 0: #GP, 0x32. */
START_TEST(int6_from_ring3_is_gp_on_its_dpl0_gate)
{
    static const uint8_t code[] = { 0x90, 0xcd, X86_VEC_UD };
    struct emu_result r;
    char want[96];
    emu(&r, "run", "--cpu", models[_i], write_tiny("int6", code, sizeof code), NULL);
    snprintf(want, sizeof want, "killed by SIGSEGV: #GP general protection at eip %08x, error 0x32\n",
             TINY_BASE + TINY_CODE + 1);
    assert_one_report(&r, 139, want, models[_i]);
    emu_result_free(&r);
}
END_TEST

/* Row 9: icebp (f1) is a #DB trap: SIGTRAP, EIP after it. */
START_TEST(icebp_is_a_debug_trap)
{
    static const uint8_t code[] = { 0x90, 0xf1, 0x90 };
    struct emu_result r;
    char want[96];
    emu(&r, "run", "--cpu", models[_i], write_tiny("icebp", code, sizeof code), NULL);
    snprintf(want, sizeof want, "killed by SIGTRAP: #DB debug at eip %08x, error 0\n",
             TINY_BASE + TINY_CODE + 2);
    assert_one_report(&r, 133, want, models[_i]);
    emu_result_free(&r);
}
END_TEST

/* Row 11: NT set across calls that return through iret (an unknown call,
 * one with exit work): they return, and the program keeps its NT. */
START_TEST(nt_across_calls_returning_through_iret_is_kept)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", models[_i], program("hostile"), "nt-sysenter", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "nt-sysenter: -38 0, NT kept"),
                  "on %s: exit %d: %s %s", models[_i], r.status, r.out, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

/* NT set, then a ring-3 iret: a return to the task in the TSS back link,
 * which is not there: #TS, named as such. */
START_TEST(iret_with_nt_set_is_an_invalid_tss_fault)
{
    assert_kill("pentium4", "iret-nt", NULL, 139, "#TS invalid TSS", 0);
}
END_TEST

/* The user-mode lines of an instruction trace at the page of addr. */
static int trace_lines_in_page(const char *trace, long addr)
{
    char prefix[16];
    snprintf(prefix, sizeof prefix, "  %05lx", (unsigned long)addr >> 12);
    int n = 0;
    for (const char *p = trace; (p = strstr(p, prefix)); p++)
        n += strncmp(p + 10, " u ", 3) == 0;
    return n;
}

/* The user-mode lines of an instruction trace for the instruction at addr
 * whose text has text in it. */
static int trace_lines_at(const char *trace, long addr, const char *text)
{
    char prefix[24];
    snprintf(prefix, sizeof prefix, "  %08lx u ", (unsigned long)addr);
    int n = 0;
    for (const char *p = strstr(trace, prefix); p; p = strstr(p + 1, prefix)) {
        const char *eol = strchr(p, '\n');
        const char *hit = strstr(p, text);
        n += hit && (!eol || hit < eol);
    }
    return n;
}

/* Row 12: a store that rewrites the next instruction of its own block.
 * The engine drops the block's rest and runs the store again; only what
 * ran is charged and traced: the same cycles (by the TSC) and the same
 * traced instructions as when the store goes to data and the instruction
 * is already there, and the store traced once. _i 1: the block goes on to
 * a rep stosb, which is charged run by run as it runs. */
START_TEST(a_store_into_its_own_block_is_charged_and_traced_once)
{
    const char *va = _i ? "C" : "A", *vb = _i ? "D" : "B";
    const char *ta = scratch(_i ? "selfmod-c.trace" : "selfmod-a.trace");
    const char *tb = scratch(_i ? "selfmod-d.trace" : "selfmod-b.trace");
    struct emu_result a, b;
    emu(&a, "run", "--trace", ta, "--trace-insns", program("hostile"), "selfmod", va, NULL);
    emu(&b, "run", "--trace", tb, "--trace-insns", program("hostile"), "selfmod", vb, NULL);
    ck_assert_msg(a.status == 0 && b.status == 0, "%s %s", a.err, b.err);
    const char *ca = strstr(a.out, "cycles"), *cb = strstr(b.out, "cycles");
    ck_assert_ptr_nonnull(ca);
    ck_assert_ptr_nonnull(cb);
    ck_assert_str_eq(strchr(a.out, ','), strchr(b.out, ','));   /* ", N cycles" */
    long code = hex_after(a.out, "code at ");
    ck_assert_int_gt(code, 0);
    char *tra = read_file(ta), *trb = read_file(tb);
    ck_assert_ptr_nonnull(tra);
    ck_assert_ptr_nonnull(trb);
    /* nop mov inc nop nop ret; or nop mov inc push mov mov, the rep stosb
     * once per run (3 bytes, then the run that finds ECX 0), pop ret */
    int want = _i ? 12 : 6;
    ck_assert_int_eq(trace_lines_in_page(tra, code), want);
    ck_assert_int_eq(trace_lines_in_page(trb, hex_after(b.out, "code at ")), want);
    ck_assert_int_eq(trace_lines_at(tra, code + 1, "mov byte ptr"), 1);
    free(tra);
    free(trb);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

/* More instructions that need a code hook (rdtsc here) than the machine
 * keeps hooks for: the run drops them all and goes on. */
START_TEST(more_hooked_instructions_than_hook_slots_run_on)
{
    enum { N = MAX_SPECIAL_HOOKS + 50 };
    static uint8_t code[2 * N + 12];
    for (int i = 0; i < N; i++) {
        code[2 * i] = 0x0f;
        code[2 * i + 1] = 0x31;
    }
    struct tiny_elf e;
    tiny_elf_init(&e, 7, 0);
    memcpy(code + 2 * N, e.bytes + TINY_CODE, 12);   /* then exit(7) */
    struct emu_result r;
    emu(&r, "run", write_tiny("rdtsc", code, sizeof code), NULL);
    ck_assert_msg(r.status == 7, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

/* A fuzz finding (cpu target): an access that runs past 0xffffffff used
 * to end the engine's run mid-instruction, with EIP at the block's start
 * and the lazily kept flags unworked (docs/unicorn.md, quirk 5); the
 * flags pushed for the #PF then had VM and IOPL set, and the kernel
 * faulted on its own handler until its stack ran into the GDT (125). The
 * #PF is now the engine's own: at the add, with CR2 0 (page 0). */
START_TEST(a_wrapping_access_after_a_flag_change_faults_at_its_own_instruction)
{
    assert_kill(models[_i], "wrap-rmw", NULL, 139, "#PF page fault", X86_PF_USER);
}
END_TEST

/* Two fuzz findings (cpu target): in a code segment based at 0xffff0000,
 * base + EIP passes 4 GiB, where the engine's 64-bit addresses found
 * nothing (125 on 2.0.1); run there (2.1), an iret ran without its code
 * hook, at the 32-bit address, and took VM (125 again). A CPU wraps the
 * linear address to 32 bits and runs the code there; so does the machine
 * on both engines, the memory backed again 4 GiB up and the code hooks at
 * the engine's address (docs/unicorn.md, quirk 5): the system call from
 * there is made and returns there, an iret there with VM in its image gets
 * its hook (VM stays clear, row 3), and the program exits. */
START_TEST(code_whose_segment_base_and_eip_pass_4gib_runs_at_the_wrapped_address)
{
    struct emu_result r;
    emu(&r, "run", "--strace", "--cpu", models[_i], program("hostile"), "tls-wrap", NULL);
    long eip = hex_after(r.out, "eip="), linear = hex_after(r.out, "linear=");
    ck_assert_msg(r.status == 0 && strstr(r.out, "tls-wrap: getpid=2\n"), "on %s: exit %d: %s %s",
                  models[_i], r.status, r.out, r.err);
    ck_assert_msg(eip > 0 && linear > 0 && 0xffff0000ul + (unsigned long)eip > 0xfffffffful &&
                  ((0xffff0000ul + (unsigned long)eip) & 0xfffffffful) == (unsigned long)linear,
                  "eip %lx, linear %lx: base + eip does not wrap to it", eip, linear);
    ck_assert_msg(a_line_with(r.err, " getpid() ", " = 2", ""), "on %s: not traced: %s",
                  models[_i], r.err);
    emu_result_free(&r);
}
END_TEST

Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("cpu states");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, running_into_kernel_space_is_a_page_fault_at_0xc0000000, 0,
                        2 * NMODELS);
    tcase_add_loop_test(tc, single_step_into_sysenter_is_the_seeds_oops_not_a_machine_stop, 0, 4);
    tcase_add_loop_test(tc, single_step_into_sysenter_without_sep_is_invalid_opcode, 0, 2);
    tcase_add_loop_test(tc, a_prefixed_sysenter_that_faults_enters_the_handler_at_its_start, 0,
                        2);
    tcase_add_loop_test(tc, lock_sysenter_is_invalid_opcode, 0, 6);
    tcase_add_loop_test(tc, iret_with_vm_set_at_cpl3_is_ignored, 0, NMODELS);
    tcase_add_loop_test(tc, int_n_from_a_tls_code_segment_is_gp_with_the_idt_error, 0,
                        3 * NMODELS);
    tcase_add_loop_test(tc, int80_from_a_based_code_segment_is_a_counted_traced_system_call, 0,
                        NMODELS);
    tcase_add_loop_test(tc, a_timer_interrupt_in_a_based_code_segment_returns_to_its_offset, 0,
                        2 * NMODELS);
    tcase_add_test(tc, conforming_tls_code_runs_at_cpl3);
    tcase_add_loop_test(tc, int6_from_ring3_is_gp_on_its_dpl0_gate, 0, NMODELS);
    tcase_add_loop_test(tc, icebp_is_a_debug_trap, 0, NMODELS);
    tcase_add_loop_test(tc, nt_across_calls_returning_through_iret_is_kept, 0, NMODELS);
    tcase_add_test(tc, iret_with_nt_set_is_an_invalid_tss_fault);
    tcase_add_loop_test(tc, a_store_into_its_own_block_is_charged_and_traced_once, 0, 2);
    tcase_add_test(tc, more_hooked_instructions_than_hook_slots_run_on);
    tcase_add_loop_test(tc, a_wrapping_access_after_a_flag_change_faults_at_its_own_instruction,
                        0, NMODELS);
    tcase_add_loop_test(tc, code_whose_segment_base_and_eip_pass_4gib_runs_at_the_wrapped_address,
                        0, NMODELS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(hostile_suite());
}
