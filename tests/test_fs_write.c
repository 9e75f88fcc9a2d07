/*
 * The writable file tree (guest/kernel/open.c, namei.c, stat.c, readdir.c
 * over emu/vfs/vfs.h): Debian's busybox creates, appends, truncates, links,
 * renames, removes and lists files natively and under emu, and prints the
 * same. As in test_processes.c, both runs work in a prepared scratch tree
 * (natively its cwd, under emu its --root); here each command gets a fresh
 * copy, so none sees what another left. Under emu nothing reaches the
 * host: the tree is unchanged after every run.
 *
 * Also: the in-memory layer has a size (--fs-size), and filling it is
 * ENOSPC for the writer, not trouble for the machine.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"

static void put(const char *tree, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tree, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void make_tree(char *tree)
{
    char path[256];
    strcpy(tree, "/tmp/sysemu_fsw_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tree));
    static const char *const dirs[] = { "tmp", "docs", "docs/old" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tree, dirs[i]);
        ck_assert_int_eq(mkdir(path, 0755), 0);
    }
    put(tree, "docs/a.txt", "alpha\n");
    put(tree, "docs/old/b.txt", "beta\n");
}

static void remove_tree(const char *tree)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    ck_assert_int_eq(system(cmd), 0);
}

/* What the tree holds, as one string: to see that emu left it alone. */
static char *listing(const char *tree)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -print0 | sort -z | xargs -0 ls -ld "
             "--time-style=+%%s | awk '{ print $1, $5, $6, $7 }'; cat docs/a.txt "
             "docs/old/b.txt", tree);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, p);
    text[n] = 0;
    pclose(p);
    return text;
}

static const char *const scripts[] = {
    "mkdir -p tmp/a/b; echo x > tmp/a/b/f; ls -R tmp/a; rm -r tmp/a; ls tmp; echo done",
    "echo one > tmp/f; echo two >> tmp/f; echo three >> tmp/f; cat tmp/f; wc -c < tmp/f",
    "set -C; echo first > tmp/n; echo second > tmp/n; echo $?; cat tmp/n",
    "echo hi > tmp/f; ln tmp/f tmp/g; ln -s f tmp/s; readlink tmp/s; cat tmp/g tmp/s; "
    "stat -c '%h %s %F' tmp/f tmp/s; rm tmp/g; stat -c %h tmp/f",
    "echo abcdef > tmp/t; truncate -s 3 tmp/t; cat tmp/t; echo; truncate -s 6 tmp/t; "
    "od -An -c tmp/t",
    "mkdir tmp/x; echo 1 > tmp/x/a; mv tmp/x/a tmp/b; ls tmp/x; cat tmp/b; mv tmp/b tmp/x/c; "
    "ls tmp/x; mv tmp/x tmp/y; ls tmp",
    "mkdir -p tmp/q/r; rmdir tmp/q 2>/dev/null; echo $?; rmdir tmp/q/r tmp/q; echo $?; ls tmp",
    "echo data > tmp/u; exec 4< tmp/u; rm tmp/u; cat <&4; ls tmp",
    "cd docs/old && ls && cd ../.. && ls docs && cd tmp && basename $(pwd)",
    "echo x > /dev/null; head -c 4 /dev/zero | od -An -tx1; cat /dev/null; echo end",
    "touch tmp/p; chmod 640 tmp/p; stat -c %a tmp/p; chmod u+x tmp/p; stat -c %A tmp/p",
    "echo keep > docs/a.txt; cat docs/a.txt; rm docs/old/b.txt; ls docs/old; echo .",
    "ls -a docs; ls -la docs/old | wc -l; find docs | sort",
};
#define NSCRIPTS (int)(sizeof scripts / sizeof scripts[0])

/* Two models, one per way into the kernel: the file calls are the same
 * kernel code on each (test_processes.c runs busybox on all five). */
static const char *const cpus[] = { "pentium4", "pentium3,-sep" };
#define NCPUS (int)(sizeof cpus / sizeof cpus[0])

START_TEST(busybox_changes_the_tree_as_natively)
{
    char tree[64];
    struct emu_result native, r;
    const char *argv[] = { fixture("busybox"), "sh", "-c", scripts[_i], NULL };
    make_tree(tree);
    run_native(&native, tree, argv);
    remove_tree(tree);
    for (int m = 0; m < NCPUS; m++) {
        make_tree(tree);
        char *before = listing(tree);
        const char *args[] = { "run", "--cpu", cpus[m], "--root", tree, fixture("busybox"),
                               "sh", "-c", scripts[_i], NULL };
        run_emu(&r, args);
        ck_assert_msg(r.status == native.status, "\"%s\" on %s: exit %d, natively %d: %s",
                      scripts[_i], cpus[m], r.status, native.status, r.err);
        ck_assert_msg(!strcmp(r.out, native.out), "\"%s\" on %s:\n%s\nnatively:\n%s",
                      scripts[_i], cpus[m], r.out, native.out);
        char *after = listing(tree);
        ck_assert_msg(!strcmp(before, after), "\"%s\" changed the host tree:\n%s\nwas:\n%s",
                      scripts[_i], after, before);
        free(before);
        free(after);
        remove_tree(tree);
        emu_result_free(&r);
    }
    emu_result_free(&native);
}
END_TEST

START_TEST(a_full_layer_is_enospc_and_the_space_comes_back)
{
    struct emu_result r;
    emu(&r, "run", "--fs-size", "1M", fixture("busybox"), "sh", "-c",
        "dd if=/dev/zero of=/tmp/big bs=65536 count=32 2>/dev/null; echo dd $?; "
        "dd if=/dev/zero of=/tmp/more bs=4096 count=1 2>/dev/null; echo again $?; "
        "rm /tmp/big /tmp/more; "
        "dd if=/dev/zero of=/tmp/small bs=65536 count=8 2>/dev/null; echo after rm $?", NULL);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "dd 1\nagain 1\nafter rm 0\n");
    ck_assert_msg(!strstr(r.err, "emu:"), "%s", r.err);
    emu_result_free(&r);
    emu(&r, "run", "--fs-size", "0", fixture("busybox"), "true", NULL);
    ck_assert_int_eq(r.status, 2);
    emu_result_free(&r);
}
END_TEST

Suite *fs_write_suite(void)
{
    Suite *s = suite_create("fs_write");
    TCase *tc = tcase_create("tree");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, busybox_changes_the_tree_as_natively, 0, NSCRIPTS);
    tcase_add_test(tc, a_full_layer_is_enospc_and_the_space_comes_back);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(fs_write_suite());
}
