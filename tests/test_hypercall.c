/*
 * The guest kernel's requests to the emulator (emu/hypercall/hypercall.c): the
 * console, the exit status, and that ring 3 can never make one.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

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

Suite *hypercall_suite(void)
{
    Suite *s = suite_create("hypercall");
    TCase *tc = tcase_create("ports");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hello_prints_and_passes_exit_status);
    tcase_add_test(tc, out_to_a_hypercall_port_from_ring3_never_reaches_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(hypercall_suite());
}
