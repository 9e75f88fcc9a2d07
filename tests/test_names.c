/*
 * The emulator's names for system calls, signals and vectors, and the
 * tables they come from, checked against the host's own headers: Linux's
 * i386 system-call numbers (<asm/unistd_32.h>, generated from the kernel's
 * syscall_32.tbl) and its signal numbers (<signal.h>).
 */
#include <asm/unistd_32.h>
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/machine/names.h"
#include "syscall_nr.h"

/* The one row that is this project's own, not Linux's. */
#define __NR_sysemu_args6 SYS_sysemu_args6

START_TEST(every_row_has_the_linux_i386_number)
{
    int rows = 0;
#define SYSCALL(nr, name, nargs, handler, ...) \
    ck_assert_msg((nr) == __NR_##name, "%s: %d in syscalls.def, %d in Linux", #name, nr, \
                  __NR_##name); \
    ck_assert_int_eq(SYS_##name, nr); \
    rows++;
#include "../guest/syscalls.def"
#undef SYSCALL
    ck_assert_int_gt(rows, 300);
}
END_TEST

START_TEST(every_row_is_found_by_its_number)
{
#define SYSCALL(nr, name_, nargs_, handler_, ...) \
    do { \
        const struct syscall_info *s = syscall_info(nr); \
        ck_assert_ptr_nonnull(s); \
        ck_assert_str_eq(s->name, #name_); \
        ck_assert_str_eq(s->handler, #handler_); \
        ck_assert_uint_eq(s->nargs, nargs_); \
        for (int i = 0; i < s->nargs; i++) \
            ck_assert_uint_lt(s->kind[i], NARG_KINDS); \
    } while (0);
#include "../guest/syscalls.def"
#undef SYSCALL
}
END_TEST

START_TEST(the_kinds_say_which_arguments_are_paths)
{
    ck_assert_uint_eq(syscall_info(SYS_open)->kind[0], ARG_PATH);
    ck_assert_uint_eq(syscall_info(SYS_openat)->kind[0], ARG_DIRFD);
    ck_assert_uint_eq(syscall_info(SYS_openat)->kind[1], ARG_PATH);
    ck_assert_uint_eq(syscall_info(SYS_renameat2)->kind[3], ARG_PATH);
    ck_assert_uint_eq(syscall_info(SYS_write)->kind[1], ARG_BUF_IN);
    ck_assert_uint_eq(syscall_info(SYS_read)->kind[1], ARG_BUF_OUT);
    ck_assert_uint_eq(syscall_info(SYS_mmap2)->kind[3], ARG_MMAP_FLAGS);
    ck_assert_uint_eq(syscall_info(SYS_kill)->kind[1], ARG_SIGNAL);
}
END_TEST

START_TEST(numbers_outside_the_table_have_a_made_up_name)
{
    ck_assert_ptr_null(syscall_info(17));          /* "break": never implemented */
    ck_assert_str_eq(syscall_name(17), "syscall_17");
    ck_assert_ptr_null(syscall_info(NR_syscalls));
    ck_assert_str_eq(syscall_name(NR_syscalls), "syscall_1000");
    ck_assert_str_eq(syscall_name(0xffffffffu), "syscall_4294967295");
    ck_assert_str_eq(syscall_name(SYS_gettimeofday), "gettimeofday");
}
END_TEST

START_TEST(the_table_ends_at_the_project_call)
{
    ck_assert_int_eq(NR_syscalls, SYS_sysemu_args6 + 1);
    ck_assert_str_eq(syscall_info(SYS_sysemu_args6)->handler, "sys_sysemu_args6");
    ck_assert_str_eq(syscall_info(SYS_acct)->handler, "sys_ni_syscall");
}
END_TEST

START_TEST(signals_have_the_linux_numbers_and_their_names)
{
    int rows = 0;
    /* the host's <signal.h> is Linux's: the same numbers on x86-64 */
#define SIGNAL(nr, name, action) \
    ck_assert_msg((nr) == name, "%s: %d in signals.def, %d on the host", #name, nr, name); \
    ck_assert_str_eq(signal_name(nr), #name); \
    rows++;
#include "../guest/signals.def"
#undef SIGNAL
    ck_assert_int_eq(rows, 31);
    ck_assert_str_eq(signal_name(0), "signal");
    ck_assert_str_eq(signal_name(40), "signal");
}
END_TEST

START_TEST(vector_names)
{
    ck_assert_str_eq(vector_name(X86_VEC_GP), "#GP general protection");
    ck_assert_str_eq(vector_name(X86_VEC_PF), "#PF page fault");
    ck_assert_str_eq(vector_name(X86_VEC_DE), "#DE divide error");
    ck_assert_str_eq(vector_name(X86_VEC_XM), "#XM SIMD error");
    ck_assert_str_eq(vector_name(X86_NR_EXCEPTIONS), "exception");
    for (uint32_t v = 0; v < X86_NR_EXCEPTIONS; v++)
        ck_assert_ptr_nonnull(vector_name(v));
}
END_TEST

Suite *names_suite(void)
{
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, every_row_has_the_linux_i386_number);
    tcase_add_test(tc, every_row_is_found_by_its_number);
    tcase_add_test(tc, the_kinds_say_which_arguments_are_paths);
    tcase_add_test(tc, numbers_outside_the_table_have_a_made_up_name);
    tcase_add_test(tc, the_table_ends_at_the_project_call);
    tcase_add_test(tc, signals_have_the_linux_numbers_and_their_names);
    tcase_add_test(tc, vector_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(names_suite());
}
