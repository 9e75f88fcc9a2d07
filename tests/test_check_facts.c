/*
 * scripts/check-facts.sh (run by make test): it passes on the tree, and
 * fails, naming the file and line, on a copy with a second definition of
 * a system-call number, an EFLAGS bit, a vector, a signal or a Linux ABI
 * value (errno, open flags, mmap flags), or with a bare vector in a call;
 * and fails when guest/linux_abi.def gives a value that the host's Linux
 * headers, built for i386, do not.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

#define SCRIPT "scripts/check-facts.sh"
#define SOURCES "emu guest tests"

START_TEST(each_fact_is_defined_once_in_the_tree)
{
    char out[512];
    ck_assert_int_eq(run_script(SCRIPT, ".", out, sizeof out), 0);
    ck_assert_int_eq(count_char(out, '\n'), 1);
}
END_TEST

static const struct {
    const char *file, *line, *want;
} seeded[] = {
    { "emu/cpu/trap.c", "#define EFLAGS_IF 0x200", "an EFLAGS bit outside guest/x86.h" },
    { "guest/kernel/mm.c", "#define CR0_PG 0x80000000u", "a CR0/CR4 bit outside" },
    { "guest/programs/hello.c", "#define SYS_getpid 20", "a system-call number outside" },
    /* (the next seeds are split so that this file itself passes) */
    { "emu/compare/compare.c", "enum { SYS_gettimeofday =" " 78 };", "a system-call number outside" },
    { "guest/programs/hello.c", "long f(void) { return syscall0(" "20); }",
      "called by its bare number" },
    { "tests/test_trap.c", "#define GP_VECTOR 13", "an exception vector outside" },
    { "emu/cpu/cpu_insns.c", "void f(struct machine *m) { raise_fault(m," " 13, 1, 0, 0); }",
      "a bare exception vector" },
    { "tests/test_trap.c", "static void f(void) { ck_assert_int_eq(bare_halted_vector(&b)," " 14); }",
      "a bare exception vector" },
    { "guest/kernel/signal.h", "#define SIGKILL 9", "a signal number outside" },
    { "guest/kernel/kernel.h", "#define PTE_USER 0x004", "a page-table bit outside" },
    { "emu/cpu/trap.c", "#define GATE_TYPE_TRAP32 0xf", "a gate or descriptor type outside" },
    { "emu/cpu/sysenter.c", "#define MSR_IA32_SYSENTER_CS 0x174", "an MSR number outside" },
    { "guest/programs/hello.c", "#define EFAULT 14", "a Linux ABI value" },
    { "guest/kernel/mmap.c", "#define MAP_ANONYMOUS 0x20", "a Linux ABI value" },
    { "emu/vfs/vfs.h", "#define LINUX_O_CREAT 0100", "a Linux ABI value" },
};

START_TEST(a_second_definition_fails)
{
    char out[512], where[160];
    const char *dir = copy_sources("facts", SOURCES);
    copy_append(dir, seeded[_i].file, seeded[_i].line);
    int status = run_script(SCRIPT, dir, out, sizeof out);
    copy_remove(dir);
    ck_assert_msg(status != 0, "%s in %s passed: %s", seeded[_i].line, seeded[_i].file, out);
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, seeded[_i].want), "want \"%s\" in: %s", seeded[_i].want, out);
    snprintf(where, sizeof where, "%s/%s:", dir, seeded[_i].file);
    ck_assert_msg(strstr(out, where), "want \"%s\" in: %s", where, out);
}
END_TEST

START_TEST(an_abi_value_unlike_the_hosts_headers_fails)
{
    char out[512], cmd[256];
    const char *dir = copy_sources("facts", SOURCES);
    snprintf(cmd, sizeof cmd,
             "sed -i 's/^ABI(O_CREAT, .*/ABI(O_CREAT, 0200)/' %s/guest/linux_abi.def", dir);
    ck_assert_int_eq(system(cmd), 0);
    int status = run_script(SCRIPT, dir, out, sizeof out);
    copy_remove(dir);
    ck_assert_msg(status != 0, "O_CREAT 0200 passed: %s", out);
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, "differs from the host's Linux headers") && strstr(out, "O_CREAT"),
                  "want the differing row named in: %s", out);
}
END_TEST

Suite *check_facts_suite(void)
{
    Suite *s = suite_create("check_facts");
    TCase *tc = tcase_create("script");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, each_fact_is_defined_once_in_the_tree);
    tcase_add_test(tc, an_abi_value_unlike_the_hosts_headers_fails);
    tcase_add_loop_test(tc, a_second_definition_fails, 0, sizeof seeded / sizeof seeded[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(check_facts_suite());
}
