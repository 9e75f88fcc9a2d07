/* The engine probe: finding Unicorn's hidden exception state. */
#include <check.h>
#include <stdlib.h>
#include "support.h"

START_TEST(probe_finds_error_code_before_in_flight_exception)
{
    struct engine_layout l;
    char err[256];
    ck_assert_int_eq(engine_probe_layout(&l, err, sizeof err), 0);
    ck_assert_uint_lt(l.error_code_offset, l.old_exception_offset);
    ck_assert_uint_lt(l.old_exception_offset + 4, l.context_size + 1);
    /* same answer every time */
    struct engine_layout again;
    ck_assert_int_eq(engine_probe_layout(&again, err, sizeof err), 0);
    ck_assert_uint_eq(again.error_code_offset, l.error_code_offset);
    ck_assert_uint_eq(again.old_exception_offset, l.old_exception_offset);
}
END_TEST

Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("probe");
    tcase_add_test(tc, probe_finds_error_code_before_in_flight_exception);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(engine_suite());
}
