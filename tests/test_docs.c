/*
 * The documents: each sample of README.md marked
 *   <!-- sample: stdout|stderr emu ARGS... -->
 * is what that command prints (the first lines of it), and no link leaves
 * the repository's own tree (a clone has nothing beside it).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

#define MARK "<!-- sample: "

/* Does got begin with the lines of want? */
static bool begins_with_lines(const char *got, const char *want)
{
    return !strncmp(got, want, strlen(want));
}

START_TEST(readme_samples_are_what_the_commands_print)
{
    char *readme = read_file("README.md");
    ck_assert_msg(readme != NULL, "run the tests from the source tree");
    int samples = 0;
    for (char *p = strstr(readme, MARK); p; p = strstr(p + 1, MARK)) {
        char *end = strstr(p, " -->\n");
        ck_assert_ptr_nonnull(end);
        char *spec = strndup(p + strlen(MARK), (size_t)(end - p - strlen(MARK)));
        char *fence = end + 5;
        ck_assert_msg(!strncmp(fence, "```\n", 4), "no block after %s", spec);
        char *close = strstr(fence + 4, "\n```\n");
        ck_assert_ptr_nonnull(close);
        char *want = strndup(fence + 4, (size_t)(close - fence - 3));
        if (strncmp(spec, "none", 4)) {
            const char *args[32];
            int n = 0;
            char *save = NULL, *stream = strtok_r(spec, " ", &save);
            char *cmd = strtok_r(NULL, " ", &save);
            ck_assert_str_eq(cmd, "emu");
            for (char *a = strtok_r(NULL, " ", &save); a && n < 31; a = strtok_r(NULL, " ", &save))
                args[n++] = a;
            args[n] = NULL;
            struct emu_result r;
            run_emu(&r, args);
            const char *got = !strcmp(stream, "stdout") ? r.out : r.err;
            ck_assert_msg(begins_with_lines(got, want),
                          "README sample for emu %s ...\nREADME:\n%s\nemu prints:\n%.3000s",
                          args[0], want, got);
            emu_result_free(&r);
            samples++;
        }
        free(want);
        free(spec);
    }
    ck_assert_int_ge(samples, 3);
    free(readme);
}
END_TEST

START_TEST(no_link_leaves_the_repository)
{
    char *readme = read_file("README.md");
    ck_assert_ptr_nonnull(readme);
    ck_assert_msg(!strstr(readme, "](../") && !strstr(readme, "../shared"),
                  "README.md links outside the repository");
    /* the article and the release are cited where anyone can read them */
    ck_assert_ptr_nonnull(strstr(readme, "https://lwn.net/Articles/18411/"));
    ck_assert_ptr_nonnull(strstr(readme, "ChangeLog-2.5.53"));
    free(readme);
}
END_TEST

Suite *docs_suite(void)
{
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("readme");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, readme_samples_are_what_the_commands_print);
    tcase_add_test(tc, no_link_leaves_the_repository);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(docs_suite());
}
