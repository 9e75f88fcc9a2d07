/*
 * --vgettimeofday: the user-space clock in the vsyscall page and its time
 * base page (guest/vsyscall/vgettimeofday.S, guest/kernel/timer_tsc.c,
 * guest/kernel/vdso.c), seen from guest programs: ours (guest/programs/
 * vgtod.c, mini libc) and Debian's static glibc and musl, under --strace,
 * --report and emu compare.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

#define LOOP_OUT "gettimeofday: 10000 calls, time never went backwards\n"

/* The count after key in text, or -1. */
static long count_after(const char *text, const char *key)
{
    const char *p = text ? strstr(text, key) : NULL;
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

START_TEST(time_base_page_is_read_only_from_ring3)
{
    struct emu_result r;
    emu(&r, "run", "--vgettimeofday", "--strace", program("vgtod"), "write", NULL);
    ck_assert_msg(!strstr(r.out, "took a store"), "%s", r.out);
    ck_assert_msg(strstr(r.err, "+++ killed by SIGSEGV +++"), "%s", r.err);
    /* present (bit 0), a write (bit 1), from user mode (bit 2): refused
     * for its protection, not for being absent */
    ck_assert_msg(strstr(r.err, "cr2 ffffe000, error 0x7"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(without_the_option_there_is_no_time_base_page)
{
    struct emu_result r;
    emu(&r, "run", "--strace", program("vgtod"), "write", NULL);
    ck_assert_msg(strstr(r.err, "+++ killed by SIGSEGV +++"), "%s", r.err);
    ck_assert_msg(strstr(r.err, "cr2 ffffe000, error 0x6"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(vdso_names_the_entries_only_with_the_option)
{
    static const char *const on =
        "__kernel_vsyscall at 0xfffff000\n__kernel_sigreturn at 0xfffff400\n"
        "__kernel_rt_sigreturn at 0xfffff420\n__vdso_gettimeofday at 0xfffff440\n"
        "__vdso_clock_gettime at 0xfffff4c0\n";
    static const char *const off =
        "__kernel_vsyscall absent\n__kernel_sigreturn absent\n__kernel_rt_sigreturn absent\n"
        "__vdso_gettimeofday absent\n__vdso_clock_gettime absent\n";
    struct emu_result r;
    emu(&r, "run", "--vgettimeofday", program("vgtod"), "sym", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, on);
    emu_result_free(&r);
    emu(&r, "run", program("vgtod"), "sym", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, off);
    emu_result_free(&r);
}
END_TEST

/* Ours: through __vdso_gettimeofday no call reaches the kernel; without
 * the option mini libc finds no symbol and makes the system call. */
START_TEST(user_space_gettimeofday_makes_no_system_call)
{
    struct emu_result r;
    emu(&r, "run", "--vgettimeofday", "--strace", "--report", program("vgtod"), "loop", "1000",
        NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "loop: 1000 calls through __vdso_gettimeofday, time never went "
                            "backwards\n");
    ck_assert_int_eq(count_lines_containing(r.err, "gettimeofday("), 0);
    ck_assert_msg(strstr(r.err, "emu: report: 1000 user-space clock calls"), "%s", r.err);
    emu_result_free(&r);
    /* a thousand strace lines: to a file, not through the pipe */
    emu(&r, "run", "--strace", "-o", scratch("loop-strace"), program("vgtod"), "loop", "1000",
        NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "loop: 1000 calls through the system call, time never went "
                            "backwards\n");
    char *trace = read_file(scratch("loop-strace"));
    ck_assert_int_eq(count_lines_containing(trace, "] gettimeofday("), 1000);
    free(trace);
    emu_result_free(&r);
}
END_TEST

/* Debian's static glibc 2.36 and musl find __vdso_clock_gettime (no symbol
 * versions needed) and stop making clock_gettime64 calls; the program's
 * own check that time never went backwards still passes. */
static const char *const libcs[] = { "gettimeofday_loop-glibc", "gettimeofday_loop-musl" };

START_TEST(static_libc_gettimeofday_leaves_the_kernel_out)
{
    struct emu_result r;
    emu(&r, "run", "--vgettimeofday", "--strace", "--report", fixture(libcs[_i]), NULL);
    ck_assert_msg(r.status == 0, "%s: %d %s", libcs[_i], r.status, r.err);
    ck_assert_str_eq(r.out, LOOP_OUT);
    ck_assert_int_eq(count_lines_containing(r.err, "clock_gettime"), 0);
    ck_assert_int_eq(count_lines_containing(r.err, "gettimeofday("), 0);
    ck_assert_msg(strstr(r.err, "emu: report: 10000 user-space clock calls"), "%s", r.err);
    emu_result_free(&r);
    emu(&r, "run", "--strace", "-o", scratch(libcs[_i]), fixture(libcs[_i]), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, LOOP_OUT);
    char *trace = read_file(scratch(libcs[_i]));
    ck_assert_int_eq(count_lines_containing(trace, "] clock_gettime64(CLOCK_REALTIME"), 10000);
    free(trace);
    emu_result_free(&r);
}
END_TEST

/* Debian's busybox date reads CLOCK_REALTIME_COARSE: the same date either way. */
START_TEST(busybox_date_is_the_same_with_the_option)
{
    struct emu_result a, b;
    emu(&a, "run", "--strace", fixture("busybox"), "date", NULL);
    emu(&b, "run", "--vgettimeofday", "--strace", fixture("busybox"), "date", NULL);
    ck_assert_int_eq(a.status, 0);
    ck_assert_int_eq(b.status, 0);
    ck_assert_str_eq(a.out, b.out);
    ck_assert_int_eq(count_lines_containing(a.err, "clock_gettime"), 1);
    ck_assert_int_eq(count_lines_containing(b.err, "clock_gettime"), 0);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

START_TEST(a_time_zone_goes_to_the_system_call)
{
    struct emu_result r;
    emu(&r, "run", "--vgettimeofday", "--strace", program("vgtod"), "tz", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "tz: ret 0 minuteswest 0 dsttime 0\n");
    ck_assert_int_eq(count_lines_containing(r.err, "] gettimeofday({tv_sec="), 1);
    emu_result_free(&r);
}
END_TEST

/*
 * vgtod check: each sample puts a user-space call and then the system call
 * just before a timer tick, sweeping the distance, and checks both against
 * the time the published base gives for the TSC reads around each call
 * (the exact microsecond where those reads agree). Some ticks land between
 * the reader's two reads of the sequence count: --report counts the
 * retries. The same run twice gives the same output and report.
 */
static const char *const check_cpus[] = { "pentiumpro", "pentium3", "pentium4" };
static const char *const check_samples[] = { "200", "200", "100" };

START_TEST(user_space_time_is_the_kernels_and_ticks_force_retries)
{
    struct emu_result r, again;
    const char *const args[] = { "run", "--cpu", check_cpus[_i], "--vgettimeofday", "--report",
                                 program("vgtod"), "check", check_samples[_i], NULL };
    run_emu(&r, args);
    ck_assert_msg(r.status == 0, "%s: %s%s", check_cpus[_i], r.out, r.err);
    char *line = line_with(r.out, "no disagreement");
    ck_assert_msg(line, "%s", r.out);
    long samples, exact, ticks;
    ck_assert_int_eq(sscanf(line, "check: %ld samples, %ld reads exact to the microsecond, "
                            "%ld ticks inside", &samples, &exact, &ticks), 3);
    ck_assert_int_eq(samples, atol(check_samples[_i]));
    ck_assert_msg(exact > 0 && ticks > 0, "%s", line);
    free(line);
    long retries = count_after(strstr(r.err, "clock calls"), "cycles per call; ");
    ck_assert_msg(retries > 0, "no sequence-lock retry:\n%s", r.err);
    run_emu(&again, args);
    ck_assert_str_eq(again.out, r.out);
    ck_assert_str_eq(again.err, r.err);
    emu_result_free(&r);
    emu_result_free(&again);
}
END_TEST

START_TEST(compare_prints_user_space_beside_sysenter_and_int80)
{
    struct emu_result r;
    emu(&r, "compare", "--vgettimeofday", "--syscall", "gettimeofday", "--cpus",
        "pentium4;pentium3", program("vgtod"), "compare", "500", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    static const char *const models[] = { "pentium4", "pentium3" };
    for (int m = 0; m < 2; m++) {
        double user = 0, sysenter = 0, int80 = 0;
        static const char *const paths[] = { "user      page", "sysenter  page",
                                             "int80     inline" };
        double *cycles[] = { &user, &sysenter, &int80 };
        for (int p = 0; p < 3; p++) {
            char want[64];
            snprintf(want, sizeof want, "%-16s on     %s", models[m], paths[p]);
            char *row = line_with(r.out, want);
            ck_assert_msg(row, "no row \"%s\" in:\n%s", want, r.out);
            long calls;
            double lo, hi;
            ck_assert_int_eq(sscanf(row + strlen(want), "%ld %lf [%lf, %lf]", &calls,
                                    cycles[p], &lo, &hi), 4);
            ck_assert_int_eq(calls, 500);
            /* every row's interval holds its figure and stays within a
             * factor of two of it (the cost rows' ranges are that narrow) */
            ck_assert_msg(lo <= *cycles[p] && *cycles[p] <= hi && hi < 2 * *cycles[p],
                          "%s: %f not in [%f, %f]", want, *cycles[p], lo, hi);
            free(row);
        }
        ck_assert_msg(user > 0 && user < sysenter && sysenter < int80, "%s: %f %f %f",
                      models[m], user, sysenter, int80);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s gettimeofday: user space", models[m]);
        ck_assert_int_eq(count_lines_containing(r.out, prefix), 2);
        /* the ratio printed is the quotient of the two figures */
        char *ratio = line_with(r.out, prefix);
        double num, den, q;
        ck_assert_int_eq(sscanf(ratio + strlen(prefix), " %lf / sysenter page %lf cycles = %lf",
                                &num, &den, &q), 3);
        ck_assert_msg(q > num / den - 0.001 && q < num / den + 0.001, "%s", ratio);
        free(ratio);
    }
    emu_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vgtod");
    TCase *tc = tcase_create("vgettimeofday");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, time_base_page_is_read_only_from_ring3);
    tcase_add_test(tc, without_the_option_there_is_no_time_base_page);
    tcase_add_test(tc, vdso_names_the_entries_only_with_the_option);
    tcase_add_test(tc, user_space_gettimeofday_makes_no_system_call);
    tcase_add_loop_test(tc, static_libc_gettimeofday_leaves_the_kernel_out, 0, 2);
    tcase_add_test(tc, busybox_date_is_the_same_with_the_option);
    tcase_add_test(tc, a_time_zone_goes_to_the_system_call);
    tcase_add_loop_test(tc, user_space_time_is_the_kernels_and_ticks_force_retries, 0, 3);
    tcase_add_test(tc, compare_prints_user_space_beside_sysenter_and_int80);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
