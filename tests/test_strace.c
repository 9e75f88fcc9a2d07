/*
 * --strace (emu/strace.c): one line per call, with the entry and return
 * path, path arguments as strings (the PATH kind of guest/syscalls.def),
 * the result and the cycles.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "syscall_nr.h"
#include "../emu/strace.h"

START_TEST(strace_names_paths_and_the_entry_path)
{
    struct emu_result r;
    emu(&r, "run", "--strace", "--root", tree_root(), fixture("busybox"), "cat", "/hello.txt", NULL);
    ck_assert_int_eq(r.status, 0);
    char *open = line_with(r.err, "\"/hello.txt\"");
    ck_assert_msg(open && !strncmp(open, "[sysenter/sysexit] openat(0xffffff9c, \"/hello.txt\", ",
                                   52) && strstr(open, ") = 3 <"), "%s", r.err);
    free(open);
    char *tls = line_with(r.err, "set_thread_area(");
    ck_assert_msg(tls && !strncmp(tls, "[int80/iret] ", 13), "%s", r.err);
    free(tls);
    emu_result_free(&r);
}
END_TEST

/* Two processes: each call is shown whole, with its process; the parent's
 * wait4 lasts while the child runs; the child's execve names the path it
 * had before its memory went. */
START_TEST(each_process_has_its_own_call_in_flight)
{
    struct emu_result r;
    emu(&r, "run", "--strace", program("proc"), "exec", NULL);
    ck_assert_int_eq(r.status, 0);
    char *fork = line_with(r.err, "fork(");
    char *exec = line_with(r.err, "execve(");
    char *wait = line_with(r.err, "wait4(");
    char *child_exit = line_with(r.err, "[pid 2] [sysenter/exited] exit_group(0x3");
    ck_assert_msg(fork && !strncmp(fork, "[sysenter/sysexit] fork(", 24) &&
                  strstr(fork, ") = 2 <"), "%s", r.err);
    ck_assert_msg(exec && !strncmp(exec, "[pid 2] [sysenter/iret] execve(\"/proc/self/exe\", ",
                                   49) && strstr(exec, ") = 0 <"), "%s", r.err);
    ck_assert_msg(wait && !strncmp(wait, "[sysenter/sysexit] wait4(0x2, ", 30) &&
                  strstr(wait, ") = 2 <"), "%s", r.err);
    ck_assert_msg(child_exit, "%s", r.err);
    /* the wait spans the child's whole life, exec included */
    long wait_cycles = atol(strrchr(wait, '<') + 1), exec_cycles = atol(strrchr(exec, '<') + 1);
    ck_assert_int_gt(wait_cycles, exec_cycles);
    free(fork);
    free(exec);
    free(wait);
    free(child_exit);
    emu_result_free(&r);
}
END_TEST

/* strace_print of rec on a bare machine whose user memory holds text at
 * BARE_USTACK; what it wrote on stderr. */
static char *strace_line(const struct syscall_record *rec, const char *text)
{
    static struct bare b;
    char path[] = "/tmp/sysemu-strace-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    bare_init(&b, "pentium4");
    if (text)
        bare_write(&b, BARE_USTACK, text, strlen(text) + 1);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    strace_print(&b.m, rec);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    bare_destroy(&b);
    char *out = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(out);
    return out;
}

START_TEST(a_path_argument_is_printed_as_its_string)
{
    struct syscall_record r = { .nr = SYS_openat, .path = PATH_SYSENTER, .ret = RET_SYSEXIT,
                                .args = { 0xffffff9c, BARE_USTACK, 0, 0, 0x11, 0x22 },
                                .result = 3, .start = 100, .end = 100 + 123456 };
    char *out = strace_line(&r, "/etc/\"quoted\"");
    ck_assert_str_eq(out, "[sysenter/sysexit] openat(0xffffff9c, \"/etc/\\\"quoted\\\"\", 0, 0, "
                          "0x11, 0x22) = 3 <1235 cycles>\n");
    free(out);
}
END_TEST

START_TEST(only_path_arguments_are_read_and_only_from_user_memory)
{
    /* write's buffer is not a path; open of a kernel address is not read */
    struct syscall_record w = { .nr = SYS_write, .path = PATH_INT80, .ret = RET_IRET,
                                .args = { 1, BARE_USTACK, 5 }, .result = 5 };
    char *out = strace_line(&w, "hello");
    ck_assert_str_eq(out, "[int80/iret] write(0x1, 0x8100000, 0x5, 0, 0, 0) = 5 <0 cycles>\n");
    free(out);
    struct syscall_record o = { .nr = SYS_open, .path = PATH_INT80, .ret = RET_IRET,
                                .args = { KERNEL_BASE }, .result = -14 };
    out = strace_line(&o, NULL);
    ck_assert_str_eq(out, "[int80/iret] open(0xc0000000, 0, 0, 0, 0, 0) = -14 <0 cycles>\n");
    free(out);
}
END_TEST

START_TEST(unknown_numbers_exits_and_traps)
{
    struct syscall_record u = { .nr = 5000, .path = PATH_INT80, .ret = RET_EXITED };
    char *out = strace_line(&u, NULL);
    ck_assert_str_eq(out, "[int80/exited] syscall_5000(0, 0, 0, 0, 0, 0) = ?\n");
    free(out);
    struct syscall_record t = { .nr = X86_VEC_GP, .path = PATH_TRAP, .ret = RET_EXITED,
                                .user_eip = 0x08048123, .error_code = __KERNEL_DS };
    out = strace_line(&t, NULL);
    ck_assert_str_eq(out, "--- #GP general protection at 08048123 error 0x68 ---\n");
    free(out);
}
END_TEST

START_TEST(a_long_path_is_cut_at_96_bytes)
{
    char text[200];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = 0;
    struct syscall_record r = { .nr = SYS_stat64, .path = PATH_SYSENTER, .ret = RET_SYSEXIT,
                                .args = { BARE_USTACK }, .result = -2 };
    char *out = strace_line(&r, text);
    char want[256];
    snprintf(want, sizeof want, "[sysenter/sysexit] stat64(\"%.96s\"..., 0, 0, 0, 0, 0) = -2 "
             "<0 cycles>\n", text);
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

Suite *strace_suite(void)
{
    Suite *s = suite_create("strace");
    TCase *tc = tcase_create("lines");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, tree_make, tree_remove);
    tcase_add_test(tc, strace_names_paths_and_the_entry_path);
    tcase_add_test(tc, each_process_has_its_own_call_in_flight);
    tcase_add_test(tc, a_path_argument_is_printed_as_its_string);
    tcase_add_test(tc, only_path_arguments_are_read_and_only_from_user_memory);
    tcase_add_test(tc, unknown_numbers_exits_and_traps);
    tcase_add_test(tc, a_long_path_is_cut_at_96_bytes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(strace_suite());
}
