/*
 * Debian's busybox-static, natively and under emu with the same arguments:
 * the same stdout and exit status, on every CPU model, for the shell work
 * that needs processes: pipelines, $(...), subshells, redirects, a
 * while-read loop, exec, a script with a function and a here-document,
 * gzip | gunzip | md5sum, find | sort | head, awk recursion 1000 deep.
 *
 * The comparison is honest by construction: both runs see one prepared
 * directory tree (mkdtemp) as their working directory: natively as the cwd,
 * under emu as --root, where the working directory is "/". Paths are
 * relative to it, so both name the same files. Writes go to the tree's
 * own tmp/ (natively into the scratch tree, under emu into the in-memory
 * layer): never to the host's /tmp. Only `(cd /tmp && pwd)` names /tmp,
 * and only to read its name. Both get stdin from /dev/null and the
 * environment PATH=/usr/bin:/bin HOME=/.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"

static char tree[64];

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tree, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void dir(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tree, name);
    ck_assert_int_eq(mkdir(path, 0755), 0);
}

static void make_tree(void)
{
    strcpy(tree, "/tmp/sysemu_procs_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tree));
    dir("tmp");
    dir("docs");
    dir("docs/old");
    put("input.txt", "pear\napple\napple\nfig\nfig\nfig\nkiwi\n");
    put("docs/a.txt", "a\n");
    put("docs/b.txt", "b\n");
    put("docs/old/c.txt", "c\n");
    put("docs/notes.md", "not text\n");
    put("script.sh", "greet() {\n    echo \"hello, $1\"\n}\ngreet world\n"
                     "cat <<END\nhere-document line\n$(greet \"from inside\")\nEND\n"
                     "exit 3\n");
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *const awk_1000 =
    "function f(n) { if (n == 0) return 0; return 1 + f(n - 1) } BEGIN { print f(1000) }";

/* Each command: busybox's argv after "busybox". */
static const char *const commands[][6] = {
    { "sh", "-c", "echo a | tr a b" },
    { "sh", "-c", "x=$(echo hi); echo $x" },
    { "sh", "-c", "(cd /tmp && pwd)" },
    { "sh", "-c", "echo one > tmp/f; echo two >> tmp/f; cat tmp/f; rm tmp/f; ls tmp" },
    { "sh", "-c", "while read l; do echo \"<$l>\"; done < input.txt" },
    { "sh", "-c", "false | true; echo $?" },
    { "sh", "-c", "exec echo replaced" },
    { "uniq", "-c", "input.txt" },
    { "sh", "-c", "find . -name '*.txt' | sort | head -3" },
    { "sh", "script.sh" },
    { "sh", "-c", "gzip -c input.txt | gunzip -c | md5sum" },
    { "awk", NULL },   /* awk_1000 */
    { "sh", "-c", "sort input.txt | uniq -c | sort -rn | head -1; echo ${PPID:+ppid}" },
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static const char *const cpus[] = { "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep",
                                    "pentiumpro" };
#define NCPUS (int)(sizeof cpus / sizeof cpus[0])

static int command_argv(int c, const char **argv)
{
    int n = 0;
    for (int i = 0; i < 6 && commands[c][i]; i++)
        argv[n++] = commands[c][i];
    if (!strcmp(commands[c][0], "awk"))
        argv[n++] = awk_1000;
    argv[n] = NULL;
    return n;
}

static char *describe(int c)
{
    static char text[256];
    const char *argv[8];
    command_argv(c, argv);
    text[0] = 0;
    for (int i = 0; argv[i]; i++) {
        strncat(text, " ", sizeof text - strlen(text) - 1);
        strncat(text, argv[i], sizeof text - strlen(text) - 1);
    }
    return text;
}

START_TEST(busybox_gives_what_it_gives_natively)
{
    const char *argv[10] = { fixture("busybox") };
    command_argv(_i, argv + 1);
    struct emu_result native, r;
    run_native(&native, tree, argv);
    ck_assert_msg(native.out[0], "busybox%s gave nothing natively: %s", describe(_i),
                  native.err);
    for (int m = 0; m < NCPUS; m++) {
        const char *args[16] = { "run", "--cpu", cpus[m], "--root", tree, fixture("busybox") };
        int n = 6;
        for (int i = 1; argv[i]; i++)
            args[n++] = argv[i];
        args[n] = NULL;
        run_emu(&r, args);
        ck_assert_msg(r.status == native.status, "busybox%s on %s: exit %d, natively %d: %s",
                      describe(_i), cpus[m], r.status, native.status, r.err);
        ck_assert_msg(!strcmp(r.out, native.out), "busybox%s on %s:\n%s\nnatively:\n%s",
                      describe(_i), cpus[m], r.out, native.out);
        emu_result_free(&r);
    }
    emu_result_free(&native);
}
END_TEST

/* The native runs are what the issue expects of Linux (so the comparison
 * compares something). */
START_TEST(the_native_runs_do_the_work)
{
    static const struct { int command; const char *out; int status; } want[] = {
        { 0, "b\n", 0 },
        { 3, "one\ntwo\n", 0 },
        { 5, "0\n", 0 },
        { 6, "replaced\n", 0 },
        { 7, "      1 pear\n      2 apple\n      3 fig\n      1 kiwi\n", 0 },
        { 9, "hello, world\nhere-document line\nhello, from inside\n", 3 },
        { 11, "1000\n", 0 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *argv[10] = { fixture("busybox") };
        struct emu_result r;
        command_argv(want[i].command, argv + 1);
        run_native(&r, tree, argv);
        ck_assert_msg(!strcmp(r.out, want[i].out) && r.status == want[i].status,
                      "busybox%s natively: exit %d: %s", describe(want[i].command), r.status,
                      r.out);
        emu_result_free(&r);
    }
}
END_TEST

Suite *processes_suite(void)
{
    Suite *s = suite_create("processes");
    TCase *tc = tcase_create("busybox");
    tcase_set_timeout(tc, 600);
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_add_loop_test(tc, busybox_gives_what_it_gives_natively, 0, NCOMMANDS);
    tcase_add_test(tc, the_native_runs_do_the_work);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(processes_suite());
}
