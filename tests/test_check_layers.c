/*
 * scripts/check-layers.sh (run by make test): it passes on emu/, and it
 * fails, naming the offender, on a copy of emu/ with an include that goes
 * up a layer, with an include cycle, with a folder the table lacks, or with
 * a source outside the folders.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

#define SCRIPT "scripts/check-layers.sh"
#define SOURCES "emu/*"

START_TEST(emu_has_no_upward_include_and_no_cycle)
{
    char out[512];
    ck_assert_int_eq(run_script(SCRIPT, "emu", out, sizeof out), 0);
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_ptr_nonnull(strstr(out, "no include goes up a layer, no cycle"));
}
END_TEST

/* A copy of emu/ with line appended to file fails the check, in one line
 * that names the offence (what, and also if given). */
static void fails_naming(const char *file, const char *line, const char *what,
                         const char *also)
{
    char out[512];
    const char *dir = copy_sources("layers", SOURCES);
    copy_append(dir, file, line);
    ck_assert_int_ne(run_script(SCRIPT, dir, out, sizeof out), 0);
    copy_remove(dir);
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, what) && (!also || strstr(out, also)), "%s", out);
}

START_TEST(an_include_from_a_higher_layer_fails)
{
    fails_naming("machine/machine.c", "#include \"observe/trace.h\"",
                 "machine/machine.c (machine/, rank 4) includes observe/trace.h "
                 "(observe/, rank 7)", NULL);
}
END_TEST

START_TEST(an_include_cycle_fails)
{
    /* memory.h and engine.h are both in engine/, so only the cycle is wrong */
    fails_naming("engine/memory.h", "#include \"engine/engine.h\"", "include cycle: ",
                 "engine/engine -> engine/memory -> engine/engine");
}
END_TEST

START_TEST(a_folder_missing_from_the_table_fails)
{
    fails_naming("nowhere/unit.c", "#include \"machine/machine.h\"",
                 "nowhere/unit.c: folder nowhere is not in the layer table", NULL);
}
END_TEST

START_TEST(a_source_outside_the_folders_fails)
{
    fails_naming("loose.c", "#include \"machine/machine.h\"", "loose.c: not in a layer folder",
                 NULL);
}
END_TEST

Suite *check_layers_suite(void)
{
    Suite *s = suite_create("check_layers");
    TCase *tc = tcase_create("script");
    tcase_add_test(tc, emu_has_no_upward_include_and_no_cycle);
    tcase_add_test(tc, an_include_from_a_higher_layer_fails);
    tcase_add_test(tc, an_include_cycle_fails);
    tcase_add_test(tc, a_folder_missing_from_the_table_fails);
    tcase_add_test(tc, a_source_outside_the_folders_fails);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(check_layers_suite());
}
