/*
 * Debian's gdb (batch mode) against "emu run --gdb" (emu/gdb/gdb_machine.c):
 * where the machine stops on each path into the kernel and back, what gdb
 * reads there, and that a debugged run counts exactly as a plain one.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu_gdb.h"
#include "support.h"
#include "../emu/image/ksyms.h"

#define GDB_PORT0 "127.0.0.1:0"

static uint32_t ksym(const char *name)
{
    return ksym_find(kernel_image_start, (size_t)(kernel_image_end - kernel_image_start), name);
}

/* The value gdb printed after a tag of a "printf" command. */
static unsigned long tagged(const char *text, const char *tag)
{
    char want[64];
    snprintf(want, sizeof want, "%s 0x", tag);
    const char *p = strstr(text, want);
    ck_assert_msg(p, "\"%s\" not in:\n%s", want, text);
    return strtoul(p + strlen(want), NULL, 16);
}

/* emu's --report lines. */
static char *report_of(const char *err)
{
    const char *p = strstr(err, "emu: report:");
    ck_assert_msg(p, "no report in: %s", err);
    return strdup(p);
}

/* The --report of the same run without a debugger. */
static char *plain_report(const char *cpu, const char *prog, const char *arg, const char *arg2)
{
    struct emu_result r;
    emu(&r, "run", "--report", "--cpu", cpu, program(prog), arg, arg2, NULL);
    char *rep = report_of(r.err);
    emu_result_free(&r);
    return rep;
}

/* ---- the two paths into the kernel ---- */

START_TEST(gdb_breaks_at_sysenter_entry_on_the_task_kernel_stack)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--report", "--cpu", "pentium4",
                  program("one_call"), "getpid", NULL);
    char *out = gdb_batch(&e, "one_call", "break sysenter_entry", "continue",
                          "printf \"esp 0x%x esp0 0x%x cs 0x%x ss 0x%x eax 0x%x\\n\", $esp, "
                          "init_tss.esp0, $cs, $ss, $eax",
                          "monitor cpu", "monitor syscalls", "continue", NULL);
    assert_has(out, "Breakpoint 1, sysenter_entry () at guest/kernel/entry.S:");
    ck_assert_uint_eq(tagged(out, "cs"), __KERNEL_CS);
    ck_assert_uint_eq(tagged(out, "ss"), __KERNEL_DS);
    ck_assert_uint_eq(tagged(out, "eax"), 20);   /* getpid */
    /* the trampoline has moved ESP from SYSENTER_ESP, the top of its own
     * page, to the task's kernel stack: the TSS's esp0 */
    ck_assert_uint_eq(tagged(out, "esp"), tagged(out, "esp0"));
    ck_assert_uint_ne(tagged(out, "esp"), tagged(out, "SYSENTER_ESP (msr 0x175):"));
    assert_has(out, "system calls: 1 via sysenter, 0 via int $0x80\n");
    assert_has(out, "open: getpid via sysenter, entry phase, pid 2\n");
    /* the exit call stops there too; batch mode then detaches */
    assert_has(out, "[Inferior 1 (Remote target) detached]");
    free(out);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 0);
    char *rep = report_of(err), *plain = plain_report("pentium4", "one_call", "getpid", NULL);
    ck_assert_str_eq(rep, plain);
    free(rep);
    free(plain);
    free(err);
}
END_TEST

/* The system registers in the target description: Debian's gdb reads
 * cr0 (as flags), cr3, the segment bases and the SYSENTER MSRs by name,
 * with the values "monitor info registers" and "monitor cpu" print. */
START_TEST(gdb_reads_the_system_registers)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--cpu", "pentium4", program("one_call"),
                  "getpid", NULL);
    char *out = gdb_batch(&e, "one_call", "break sysenter_entry", "continue",
                          "info registers cr0", "info registers cr3",
                          "printf \"cr3 0x%x sysenter_eip 0x%x ds_base 0x%x\\n\", $cr3, "
                          "$sysenter_eip, $ds_base",
                          "monitor info registers", "monitor cpu", "continue", NULL);
    /* paging and protection on, as the kernel set them */
    assert_has(out, "[ PE ET WP PG ]");
    char want[64];
    snprintf(want, sizeof want, "CR3=%08lx ", tagged(out, "cr3"));
    assert_has(out, want);
    ck_assert_msg(strstr(out, "\ncr3            0x"), "%s", out);
    ck_assert_uint_eq(tagged(out, "sysenter_eip"), tagged(out, "SYSENTER_EIP (msr 0x176):"));
    ck_assert_uint_eq(tagged(out, "ds_base"), 0);
    assert_has(out, "CS =0060 base 00000000\n");
    free(out);
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, NULL), 0);
}
END_TEST

START_TEST(gdb_breaks_at_system_call_on_the_cpu_trap_frame)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--cpu", "pentium4,-sep", program("one_call"),
                  "getpid", NULL);
    char *out = gdb_batch(&e, "one_call", "break sysenter_entry", "break system_call",
                          "continue",
                          "printf \"esp 0x%x esp0 0x%x cs 0x%x ss 0x%x\\n\", $esp, "
                          "init_tss.esp0, $cs, $ss",
                          "printf \"eip 0x%x ucs 0x%x uss 0x%x\\n\", *(unsigned *)$esp, "
                          "*(unsigned *)($esp + 4), *(unsigned *)($esp + 16)",
                          "monitor cpu", "kill", NULL);
    /* without SEP the kernel never uses sysenter: the first stop is int $0x80's */
    assert_has(out, "Breakpoint 2, system_call () at guest/kernel/entry.S:");
    ck_assert_uint_eq(tagged(out, "cs"), __KERNEL_CS);
    ck_assert_uint_eq(tagged(out, "ss"), __KERNEL_DS);
    ck_assert_uint_eq(tagged(out, "esp"), tagged(out, "esp0") - 20);
    ck_assert_uint_eq(tagged(out, "eip"), VSYSCALL_BASE + 2);   /* after int $0x80 */
    ck_assert_uint_eq(tagged(out, "ucs"), __USER_CS);
    ck_assert_uint_eq(tagged(out, "uss"), __USER_DS);
    assert_has(out, "SEP: not reported by CPUID\nSYSENTER MSRs: none on this model\n");
    assert_has(out, "[Inferior 1 (Remote target) killed]");
    free(out);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 128 + 9);
    assert_has(err, "killed by the debugger");
    free(err);
}
END_TEST

START_TEST(gdb_stepi_from_sysenter_lands_on_sysenter_eip)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--cpu", "pentium4", program("one_call"),
                  "getpid", NULL);
    char *out = gdb_batch(&e, "one_call", "break *0xfffff005", "continue", "x/i $pc", "stepi",
                          "printf \"eip 0x%x esp 0x%x cs 0x%x\\n\", $pc, $esp, $cs",
                          "monitor cpu", "kill", NULL);
    assert_has(out, "=> 0xfffff005:\tsysenter");
    ck_assert_uint_eq(tagged(out, "eip"), tagged(out, "SYSENTER_EIP (msr 0x176):"));
    ck_assert_uint_eq(tagged(out, "esp"), tagged(out, "SYSENTER_ESP (msr 0x175):"));
    ck_assert_uint_eq(tagged(out, "cs"), __KERNEL_CS);
    /* SYSENTER_ESP is the top of the trampoline's own page, as the seed
     * patch set it (page + PAGE_SIZE: guest/kernel/sysenter.c) */
    uint32_t esp = (uint32_t)tagged(out, "esp"), eip = (uint32_t)tagged(out, "eip");
    ck_assert_uint_eq(esp % PAGE_SIZE, 0);
    ck_assert_uint_eq(esp - PAGE_SIZE, eip & ~(uint32_t)(PAGE_SIZE - 1));
    free(out);
    emu_gdb_finish(&e, NULL, NULL);
}
END_TEST

/* With --smp each CPU runs in an engine of its own, with its own SYSENTER
 * MSRs (the patch's per-CPU trampoline and stack). A breakpoint inside the
 * vsyscall page stops on whichever CPU gets there: the program's first
 * call on CPU 0, and after it pins itself to CPU 1, the next one there;
 * "monitor cpu" names the CPU, and a stepi from its sysenter lands on that
 * CPU's SYSENTER_EIP with its SYSENTER_ESP. */
START_TEST(gdb_under_smp_stops_on_each_cpu_with_its_own_sysenter_msrs)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--smp", "2", "--cpu", "pentium4",
                  program("smp"), "pin", "1", NULL);
    char *out = gdb_batch(&e, "smp", "break *0xfffff005", "continue", "monitor cpu", "stepi",
                          "printf \"eip 0x%x esp 0x%x\\n\", $pc, $esp", "continue",
                          "monitor cpu", "stepi",
                          "printf \"eip 0x%x esp 0x%x\\n\", $pc, $esp", "kill", NULL);
    char *second = strstr(out, "stopped on CPU 1 of 2\n");
    ck_assert_msg(second, "no stop on CPU 1:\n%s", out);
    *second++ = 0;
    const char *first = strstr(out, "stopped on CPU 0 of 2\n");
    ck_assert_msg(first, "no first stop on CPU 0:\n%s", out);
    for (const char *at = first; at; at = at == first ? second : NULL) {
        ck_assert_uint_eq(tagged(at, "eip"), tagged(at, "SYSENTER_EIP (msr 0x176):"));
        ck_assert_uint_eq(tagged(at, "esp"), tagged(at, "SYSENTER_ESP (msr 0x175):"));
    }
    ck_assert_uint_ne(tagged(first, "SYSENTER_ESP (msr 0x175):"),
                      tagged(second, "SYSENTER_ESP (msr 0x175):"));
    free(out);
    emu_gdb_finish(&e, NULL, NULL);
}
END_TEST

/* With --smp a step is one instruction of the CPU the machine stopped on:
 * the other CPU's turns run through it. Two children compute on two CPUs;
 * gdb stops in the first and steps its CPU 12000 times (several turns). */
START_TEST(gdb_under_smp_steps_the_cpu_it_stopped_on)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--smp", "2", program("smp"), "spread", "2",
                  NULL);
    const char *cmds[40] = { "break spread_child", "continue", "monitor cpu", "delete" };
    int n = 4;
    for (int i = 0; i < 12; i++) {
        cmds[n++] = "stepi 1000";
        cmds[n++] = "monitor cpu";
    }
    cmds[n++] = "kill";
    cmds[n] = NULL;
    char *out = gdb_batch_list(&e, "smp", cmds);
    int stops = 0;
    for (const char *p = out; (p = strstr(p, "stopped on CPU ")); p++, stops++)
        ck_assert_msg(!strncmp(p, "stopped on CPU 0 of 2\n", 22), "a step moved CPU:\n%s",
                      out);
    ck_assert_int_eq(stops, 13);
    free(out);
    emu_gdb_finish(&e, NULL, NULL);
}
END_TEST

/* The instruction gdb stops before at the user's return from sysexit, and
 * the cycles "monitor cycles" says were counted before it: those of a
 * plain run's instruction trace. */
START_TEST(gdb_sees_sysexit_return_and_the_cycles_so_far)
{
    const char *trace = scratch("trace");
    struct emu_result r;
    emu(&r, "run", "--report", "--trace", trace, "--trace-insns", "--cpu", "pentium4",
        program("one_call"), "getpid", NULL);
    char *plain = report_of(r.err);
    emu_result_free(&r);
    /* the running total of the last instruction before the return */
    char *text = read_file(trace), total[32] = "", want[64];
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned addr;
        char mode;
        if (sscanf(line, "  %8x %c ", &addr, &mode) != 2 || (mode != 'u' && mode != 'k'))
            continue;   /* a system-call record */
        if (addr == SYSENTER_RETURN)
            break;
        snprintf(total, sizeof total, "%s", strrchr(line, ' ') + 1);
    }
    ck_assert_msg(total[0], "no instructions before the return in the trace");
    snprintf(want, sizeof want, "cycles: %s\n", total);

    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--report", "--cpu", "pentium4",
                  program("one_call"), "getpid", NULL);
    char *out = gdb_batch(&e, "one_call", "break *0xfffff007", "continue",
                          "printf \"eip 0x%x cs 0x%x ss 0x%x eax 0x%x\\n\", $pc, $cs, $ss, $eax",
                          "monitor cycles", "delete", "continue", NULL);
    ck_assert_uint_eq(tagged(out, "eip"), SYSENTER_RETURN);
    ck_assert_uint_eq(tagged(out, "cs"), __USER_CS);
    ck_assert_uint_eq(tagged(out, "ss"), __USER_DS);
    ck_assert_uint_eq(tagged(out, "eax"), 2);   /* getpid's result: the boot program */
    assert_has(out, want);
    assert_has(out, "[Inferior 1 (Remote target) exited normally]");
    free(out);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 0);
    char *rep = report_of(err);
    ck_assert_str_eq(rep, plain);
    free(rep);
    free(err);
    free(plain);
    free(text);
}
END_TEST

/* A Pentium Pro whose stepping passes Linux 2.5.53's SEP check: the kernel
 * set the MSRs, the first sysenter works, and its sysexit stops the
 * machine (docs/cost-model.md, "Pentium Pro"), which gdb hears as SIGABRT. */
START_TEST(gdb_on_a_pentium_pro_sees_the_msrs_and_the_sysexit_that_stops_it)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--cpu", "pentiumpro,stepping=9",
                  program("one_call"), "getpid", NULL);
    char *out = gdb_batch(&e, "one_call", "break sysenter_entry", "continue", "monitor cpu",
                          "delete", "continue", NULL);
    assert_has(out, "Breakpoint 1, sysenter_entry () at guest/kernel/entry.S:");
    assert_has(out, "cpu: pentiumpro,stepping=9, 200 MHz");
    assert_has(out, "SEP: reported by CPUID on a part that does not support it");
    ck_assert_uint_eq(tagged(out, "SYSENTER_CS  (msr 0x174):"), __KERNEL_CS);
    ck_assert_uint_eq(tagged(out, "SYSENTER_EIP (msr 0x176):") & 0xfff, 0);  /* the trampoline */
    assert_has(out, "Program terminated with signal SIGABRT, Aborted.");
    free(out);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 125);
    assert_has(err, "double fault at the sysexit");
    free(err);
}
END_TEST

/* ---- watchpoints, the end, and the cycle model ---- */

START_TEST(gdb_watchpoint_stops_after_the_writing_instruction)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--report", "--cpu", "pentium4",
                  program("watched"), NULL);
    char *out = gdb_batch(&e, "watched", "break main", "continue", "watch watched", "continue",
                          "printf \"pc 0x%x\\n\", $pc", "continue", NULL);
    assert_has(out, "Hardware watchpoint 2: watched");
    assert_has(out, "Old value = 0\nNew value = 42\n");
    ck_assert_uint_eq(tagged(out, "pc"), program_symbol("watched", "after_store"));
    assert_has(out, "[Inferior 1 (Remote target) exited with code 052]");
    free(out);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 42);
    char *rep = report_of(err), *plain = plain_report("pentium4", "watched", NULL, NULL);
    ck_assert_str_eq(rep, plain);
    free(rep);
    free(plain);
    free(err);
}
END_TEST

/* Steps through system calls leave every count alone: the report, the
 * instruction trace, and what the program prints, which it measures with
 * the modeled TSC. */
static const char *const cpus[] = { "pentium4", "pentium4,-sep" };

START_TEST(gdb_stepping_leaves_the_cycle_count_alone)
{
    char plain_trace[256], gdb_trace[256];
    snprintf(plain_trace, sizeof plain_trace, "%s", scratch("plain"));
    snprintf(gdb_trace, sizeof gdb_trace, "%s", scratch("gdb"));
    struct emu_result r;
    emu(&r, "run", "--report", "--trace", plain_trace, "--trace-insns", "--cpu", cpus[_i],
        program("syscall_loop"), "gettimeofday", "4", NULL);
    char *plain = report_of(r.err), *plain_out = strdup(r.out);
    emu_result_free(&r);
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", "--report", "--trace", gdb_trace,
                  "--trace-insns", "--cpu", cpus[_i], program("syscall_loop"), "gettimeofday",
                  "4", NULL);
    char *out = gdb_batch(&e, "syscall_loop", "break *0xfffff000", "continue", "delete",
                          "stepi 300", "continue", NULL);
    assert_has(out, "[Inferior 1 (Remote target) exited normally]");
    free(out);
    char *emu_out, *err;
    ck_assert_int_eq(emu_gdb_finish(&e, &emu_out, &err), 0);
    char *rep = report_of(err);
    ck_assert_str_eq(rep, plain);
    ck_assert_str_eq(emu_out, plain_out);
    char *t1 = read_file(plain_trace), *t2 = read_file(gdb_trace);
    ck_assert_uint_gt(strlen(t1), 10000);
    ck_assert_msg(!strcmp(t1, t2), "the instruction traces differ");
    free(t1);
    free(t2);
    free(rep);
    free(plain);
    free(plain_out);
    free(emu_out);
    free(err);
}
END_TEST

/* ---- starting, attaching, faults ---- */

START_TEST(gdb_wait_stops_before_the_first_kernel_instruction)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "--gdb-wait", program("one_call"), NULL);
    char *out = gdb_batch(&e, NULL, "printf \"pc 0x%x\\n\", $pc", "monitor cycles",
                          "monitor help", "continue", NULL);
    ck_assert_uint_eq(tagged(out, "pc"), ksym("startup_32"));
    assert_has(out, "startup_32 () at guest/kernel/head.S:");
    assert_has(out, "cycles: 0.00\ninstructions: 0\n");
    assert_has(out, "catch-faults");
    assert_has(out, "[Inferior 1 (Remote target) exited normally]");
    free(out);
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, NULL), 0);
}
END_TEST

/* Without -S the machine runs; gdb attaching stops it where it is (which
 * depends on when it attaches), and it goes on from there. */
START_TEST(gdb_attaches_to_a_running_machine)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "--max-insns", "4000000000", program("faults"),
                  "loop", NULL);
    char *out = gdb_batch(&e, "faults", "printf \"attached at 0x%x\\n\", $pc",
                          "break *at_loop", "continue",
                          "printf \"pc 0x%x cs 0x%x\\n\", $pc, $cs", "kill", NULL);
    tagged(out, "attached at");
    ck_assert_uint_eq(tagged(out, "pc"), program_symbol("faults", "at_loop"));
    ck_assert_uint_eq(tagged(out, "cs"), __USER_CS);
    free(out);
    char *err;
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, &err), 128 + 9);
    assert_has(err, "killed by the debugger");
    free(err);
}
END_TEST

/* Demand paging resolves most page faults; catch-faults stops at the one
 * the kernel finds is the program's, in do_page_fault. */
START_TEST(gdb_catches_a_fault_at_its_handler_when_asked)
{
    struct emu_gdb e;
    emu_gdb_start(&e, "--gdb", GDB_PORT0, "-S", program("faults"), "null", NULL);
    char *out = gdb_batch(&e, "faults", "monitor catch-faults on", "continue",
                          "printf \"pc 0x%x\\n\", $pc", "monitor catch-faults", "continue",
                          NULL);
    assert_has(out, "catch-faults: on");
    assert_has(out, "Program received signal SIGSEGV, Segmentation fault.");
    assert_has(out, "do_page_fault (");
    uint32_t pc = (uint32_t)tagged(out, "pc");
    ck_assert_uint_gt(pc, ksym("do_page_fault"));
    ck_assert_uint_lt(pc, ksym("do_page_fault") + 0x400);
    char want[96];
    snprintf(want, sizeof want, "last caught: vector 14 (#PF page fault) from ring 3 at eip %08x",
             (unsigned)program_symbol("faults", "at_null"));
    assert_has(out, want);
    assert_has(out, ", cr2 00000000\n");
    /* gdb passes the signal on; the kernel kills the program with it */
    assert_has(out, "Program terminated with signal SIGSEGV, Segmentation fault.");
    free(out);
    ck_assert_int_eq(emu_gdb_finish(&e, NULL, NULL), 128 + 11);
}
END_TEST

Suite *gdb_machine_suite(void)
{
    Suite *s = suite_create("gdb_machine");
    TCase *tc = tcase_create("debian_gdb");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gdb_breaks_at_sysenter_entry_on_the_task_kernel_stack);
    tcase_add_test(tc, gdb_breaks_at_system_call_on_the_cpu_trap_frame);
    tcase_add_test(tc, gdb_reads_the_system_registers);
    tcase_add_test(tc, gdb_stepi_from_sysenter_lands_on_sysenter_eip);
    tcase_add_test(tc, gdb_under_smp_stops_on_each_cpu_with_its_own_sysenter_msrs);
    tcase_add_test(tc, gdb_under_smp_steps_the_cpu_it_stopped_on);
    tcase_add_test(tc, gdb_sees_sysexit_return_and_the_cycles_so_far);
    tcase_add_test(tc, gdb_on_a_pentium_pro_sees_the_msrs_and_the_sysexit_that_stops_it);
    tcase_add_test(tc, gdb_watchpoint_stops_after_the_writing_instruction);
    tcase_add_loop_test(tc, gdb_stepping_leaves_the_cycle_count_alone, 0, 2);
    tcase_add_test(tc, gdb_wait_stops_before_the_first_kernel_instruction);
    tcase_add_test(tc, gdb_attaches_to_a_running_machine);
    tcase_add_test(tc, gdb_catches_a_fault_at_its_handler_when_asked);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    return run_suite(gdb_machine_suite());
}
