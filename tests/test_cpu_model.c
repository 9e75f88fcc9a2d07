/* CPU model names, flags and identity. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static int parse(const char *spec, bool no_sep, struct cpu_config *c, char *err)
{
    return cpu_config_parse(spec, no_sep, c, err, 256);
}

START_TEST(models_parse_with_and_without_sep)
{
    struct cpu_config c;
    char err[256];
    ck_assert_int_eq(parse("pentium4", false, &c, err), 0);
    ck_assert(c.sep_reported && c.sep_works);
    ck_assert_int_eq(parse("pentium4,-sep", false, &c, err), 0);
    ck_assert(!c.sep_reported && !c.sep_works);
    ck_assert_int_eq(parse("pentium3", true, &c, err), 0);
    ck_assert(!c.sep_reported && !c.sep_works);
    ck_assert_uint_eq(cpu_features(&c) & CPUID_FEATURE_SEP, 0);
    ck_assert_int_eq(parse("pentiumpro", false, &c, err), 0);
    ck_assert(c.sep_reported && !c.sep_works);
    ck_assert_uint_eq(c.model->family, 6);
    ck_assert_uint_eq(c.model->model, 1);
}
END_TEST

START_TEST(unknown_models_and_flags_are_errors)
{
    struct cpu_config c;
    char err[256];
    ck_assert_int_eq(parse("pentium5", false, &c, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "pentium5"));
    ck_assert_int_eq(parse("pentium4,+avx", false, &c, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "+avx"));
    ck_assert_int_eq(parse("", false, &c, err), -1);
}
END_TEST

START_TEST(signatures_are_the_real_parts)
{
    struct cpu_config c;
    char err[256];
    parse("pentium4", false, &c, err);
    ck_assert_uint_eq(cpu_signature(c.model), 0xf27);  /* Northwood */
    parse("pentium3", false, &c, err);
    ck_assert_uint_eq(cpu_signature(c.model), 0x686);  /* Coppermine */
    parse("pentiumpro", false, &c, err);
    ck_assert_uint_eq(cpu_signature(c.model), 0x611);  /* the SEP erratum range */
}
END_TEST

Suite *cpu_model_suite(void)
{
    Suite *s = suite_create("cpu_model");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, models_parse_with_and_without_sep);
    tcase_add_test(tc, unknown_models_and_flags_are_errors);
    tcase_add_test(tc, signatures_are_the_real_parts);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(cpu_model_suite());
}
