/* The kernel's slow exits: pending work after sysenter, and the fixup for a
 * segment register that cannot be restored. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const char *const models[] = { "pentium4", "pentium3", "pentium4,-sep", "pentiumpro" };

START_TEST(pending_work_returns_through_iret)
{
    const char *args[] = { "run", "--cpu", models[_i], "--strace",
                           program("entry_paths"), "yield", NULL };
    struct emu_result r;
    run_emu(&r, args);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "sched_yield=0 getpid=1\n");
    bool sep = _i < 2;
    /* sched_yield sets need_resched: iret even after sysenter; getpid: fast */
    ck_assert_ptr_nonnull(strstr(r.err, sep ? "[sysenter/iret] sched_yield"
                                            : "[int80/iret] sched_yield"));
    ck_assert_ptr_nonnull(strstr(r.err, sep ? "[sysenter/sysexit] getpid"
                                            : "[int80/iret] getpid"));
    emu_result_free(&r);
}
END_TEST

START_TEST(unrestorable_ds_is_fixed_up_to_null)
{
    const char *paths[] = { "vsyscall", "int80" };
    for (int p = 0; p < 2; p++) {
        char tracefile[] = "/tmp/sysemu-entry-XXXXXX";
        close(mkstemp(tracefile));
        const char *args[] = { "run", "--cpu", models[_i], "--trace", tracefile,
                               program("entry_paths"), "segfixup", paths[p], NULL };
        struct emu_result r;
        run_emu(&r, args);
        ck_assert_msg(r.status == 0, "%s %s: %s", models[_i], paths[p], r.err);
        ck_assert_ptr_nonnull(strstr(r.out, "ds after return = 0\n"));
        char *trace = read_file(tracefile);
        unlink(tracefile);
        /* the second set_thread_area returned through the fixup */
        ck_assert_int_eq(count_lines_containing(trace, "fixed up in the kernel"), 1);
        free(trace);
        emu_result_free(&r);
    }
}
END_TEST

Suite *entry_suite(void)
{
    Suite *s = suite_create("entry");
    TCase *tc = tcase_create("slow paths");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, pending_work_returns_through_iret, 0, 4);
    tcase_add_loop_test(tc, unrestorable_ds_is_fixed_up_to_null, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(entry_suite());
}
