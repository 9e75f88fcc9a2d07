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

static char dir[64];

static void copy_emu(void)
{
    char cmd[256];
    strcpy(dir, "/tmp/sysemu-layers-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp -R emu/. %s/", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void remove_copy(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Append line to dir/file. */
static void append(const char *file, const char *line)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (strchr(file, '/')) {
        char mk[192];
        snprintf(mk, sizeof mk, "mkdir -p $(dirname %s)", path);
        ck_assert_int_eq(system(mk), 0);
    }
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%s\n", line);
    ck_assert_int_eq(fclose(f), 0);
}

/* Run the script on d; its exit status and its output. */
static int check_layers(const char *d, char *out, size_t cap)
{
    char cmd[192];
    snprintf(cmd, sizeof cmd, "sh scripts/check-layers.sh %s 2>&1", d);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(emu_has_no_upward_include_and_no_cycle)
{
    char out[512];
    ck_assert_int_eq(check_layers("emu", out, sizeof out), 0);
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_ptr_nonnull(strstr(out, "no include goes up a layer, no cycle"));
}
END_TEST

START_TEST(an_include_from_a_higher_layer_fails)
{
    char out[512];
    copy_emu();
    append("machine/machine.c", "#include \"observe/trace.h\"");
    ck_assert_int_ne(check_layers(dir, out, sizeof out), 0);
    remove_copy();
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, "machine/machine.c (machine/, rank 4) includes observe/trace.h "
                              "(observe/, rank 7)"), "%s", out);
}
END_TEST

START_TEST(an_include_cycle_fails)
{
    char out[512];
    copy_emu();
    /* memory.h and engine.h are both in engine/, so only the cycle is wrong */
    append("engine/memory.h", "#include \"engine/engine.h\"");
    ck_assert_int_ne(check_layers(dir, out, sizeof out), 0);
    remove_copy();
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, "include cycle: ") && strstr(out, "engine/engine -> engine/memory -> engine/engine"),
                  "%s", out);
}
END_TEST

START_TEST(a_folder_missing_from_the_table_fails)
{
    char out[512];
    copy_emu();
    append("nowhere/unit.c", "#include \"machine/machine.h\"");
    ck_assert_int_ne(check_layers(dir, out, sizeof out), 0);
    remove_copy();
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, "nowhere/unit.c: folder nowhere is not in the layer table"), "%s", out);
}
END_TEST

START_TEST(a_source_outside_the_folders_fails)
{
    char out[512];
    copy_emu();
    append("loose.c", "#include \"machine/machine.h\"");
    ck_assert_int_ne(check_layers(dir, out, sizeof out), 0);
    remove_copy();
    ck_assert_int_eq(count_char(out, '\n'), 1);
    ck_assert_msg(strstr(out, "loose.c: not in a layer folder"), "%s", out);
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
