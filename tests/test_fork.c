/*
 * Processes (guest/kernel/fork.c, exit.c, exec.c, binfmt_*.c), run by
 * guest/programs/proc.c: fork gives a child its own memory, vfork shares
 * it, execve replaces the image (ELF, "#!", /proc/self/exe) or fails as
 * Linux fails, wait reports exits and signals, orphans go to pid 1, the
 * process limit turns a fork bomb into EAGAIN, MAP_SHARED memory is
 * shared across fork.
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

static void put(const char *name, const void *bytes, size_t n, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tree, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, bytes, n), (ssize_t)n);
    close(fd);
    chmod(path, mode);
}

static void put_copy(const char *name, const char *from, mode_t mode)
{
    char *bytes = NULL;
    size_t n = 0;
    FILE *f = fopen(from, "rb");
    ck_assert_msg(f != NULL, "%s", from);
    bytes = malloc(64 << 20);
    n = fread(bytes, 1, 64 << 20, f);
    fclose(f);
    put(name, bytes, n, mode);
    free(bytes);
}

/* garbage, a directory, an x86-64 ELF, a dynamic i386 ELF, a file without
 * an x bit, scripts, and proc itself as /bin/proc */
static void make_tree(void)
{
    char path[256];
    uint8_t junk[300];
    strcpy(tree, "/tmp/sysemu_fork_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tree));
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 7 + 3);
    put("garbage", junk, sizeof junk, 0755);
    snprintf(path, sizeof path, "%s/dir", tree);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/bin", tree);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/lib", tree);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    put_copy("elf64", "/bin/true", 0755);
    put_copy("dynamic", BUILD_DIR "/static/hello-dynamic", 0755);
    put("noexec", "plain\n", 6, 0644);
    put_copy("bin/proc", program("proc"), 0755);
    put("script", "#!/bin/proc args\necho never\n", 28, 0755);
    put("badscript", "#!/nonexistent\n", 15, 0755);
    put("loopscript", "#!/loopscript\n", 14, 0755);
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    ck_assert_int_eq(system(cmd), 0);
}

static void proc(struct emu_result *r, const char *cpu, const char *const *args)
{
    const char *argv[24] = { "run", "--cpu", cpu, "--root", tree, program("proc") };
    int n = 6;
    while (*args && n < 23)
        argv[n++] = *args++;
    argv[n] = NULL;
    run_emu(r, argv);
}

static const char *const cpus[] = { "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep",
                                    "pentiumpro" };
#define NCPUS (int)(sizeof cpus / sizeof cpus[0])

static void expect(const char *cpu, const char *const *args, int status, const char *out)
{
    struct emu_result r;
    proc(&r, cpu, args);
    ck_assert_msg(r.status == status, "proc %s on %s: exit %d, want %d: %s%s", args[0], cpu,
                  r.status, status, r.out, r.err);
    ck_assert_msg(!strcmp(r.out, out), "proc %s on %s:\n%s\nwant:\n%s", args[0], cpu, r.out,
                  out);
    emu_result_free(&r);
}

START_TEST(a_child_has_its_own_memory_and_its_exit_code_reaches_the_parent)
{
    const char *args[] = { "fork", NULL };
    expect(cpus[_i], args, 0,
           "child 0: exit 10, waited the right pid\nchild 1: exit 11, waited the right pid\n"
           "child 2: exit 12, waited the right pid\nparent still sees 1\n"
           "no children left: -10\n");
}
END_TEST

START_TEST(a_vfork_child_shares_memory_and_the_parent_waits)
{
    const char *args[] = { "vfork", NULL };
    expect(cpus[_i], args, 0, "after vfork: 2, child exit 7\n");
}
END_TEST

START_TEST(execve_replaces_the_image_with_new_arguments)
{
    const char *args[] = { "exec", NULL };
    expect(cpus[_i], args, 0,
           "argc 4: renamed args one two\nenv: WHO=exec'd\nexec'd child: exit 3\n");
    const char *script[] = { "script", "/script", NULL };
    expect(cpus[_i], script, 0, "argc 4: /bin/proc args /script x\nscript: exit 3\n");
}
END_TEST

START_TEST(execve_fails_as_linux_does)
{
    /* ENOEXEC 8, EACCES 13, ENOENT 2, ENOTDIR 20, ELOOP 40 */
    const char *args[] = { "exec-errors", "/garbage", "/dir", "/elf64", "/dynamic", "/noexec",
                           "/missing", "/badscript", "/bin/proc/x", "/loopscript", NULL };
    expect("pentium4", args, 0,
           "/garbage: 8\n/dir: 13\n/elf64: 8\n/dynamic: 2\n/noexec: 13\n/missing: 2\n"
           "/badscript: 2\n/bin/proc/x: 20\n/loopscript: 40\n");
    /* with its interpreter in the tree: ELIBBAD 80, and a line in the log */
    put("lib/ld-linux.so.2", "not a loader\n", 13, 0755);
    struct emu_result r;
    const char *argv[] = { "run", "-v", "--root", tree, program("proc"), "exec-errors",
                           "/dynamic", NULL };
    run_emu(&r, argv);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "/dynamic: 80\n");
    ck_assert_msg(strstr(r.err, "dynamic linking not supported"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(an_orphan_goes_to_pid_1)
{
    const char *args[] = { "orphan", NULL };
    expect(cpus[_i], args, 0, "the grandchild's parent is now 1\n");
}
END_TEST

START_TEST(a_child_stays_a_zombie_until_waited_for)
{
    const char *args[] = { "zombie", NULL };
    expect(cpus[_i], args, 0, "kill 0 while a zombie: 0\nwaited: exit 5\nkill 0 after: -3\n");
    const char *waitid[] = { "waitid", NULL };
    expect(cpus[_i], waitid, 0,
           "no children: -10\nnot yet: 0, si_pid 0\n"
           "waitid: 0 signo 17 code 1 pid right status 42\n");
}
END_TEST

START_TEST(signals_and_faults_kill_the_child_not_the_parent)
{
    const char *kill[] = { "kill", NULL };
    expect(cpus[_i], kill, 0, "kill: 0\nchild: signal 15\n");
    const char *segv[] = { "segv", NULL };
    expect(cpus[_i], segv, 0, "child: signal 11; parent goes on\n");
}
END_TEST

START_TEST(a_fork_bomb_meets_the_process_limit)
{
    /* 64 processes at most: the program and 63 children (init is not
     * counted: it is no process of the program's) */
    const char *args[] = { "bomb", NULL };
    expect(cpus[_i], args, 0, "forked 63, then errno 11\nreaped 63\nfork works again: yes\n");
}
END_TEST

START_TEST(process_groups_and_sessions)
{
    const char *args[] = { "pgid", NULL };
    expect("pentium4", args, 0,
           "pgrp 2 sid 2 (pid 2)\nsetsid as group leader: -1\n"
           "child setsid: its pid, pgid the same\nsetpgid(child, child): 0\n"
           "child's pgid is its pid: yes\nsetpgid(0, 0) as session leader: -1\n"
           "setpgid(1, 0), init: -3\nkill(1, 0), init: -3\ngetsid of a gone pid: -3\n");
}
END_TEST

START_TEST(shared_memory_is_shared_across_fork_private_memory_is_not)
{
    const char *args[] = { "shared", NULL };
    expect(cpus[_i], args, 0, "shared 2 3, private 1, child exit 0\nsecond child saw exit 4\n");
}
END_TEST

START_TEST(a_thread_is_refused)
{
    const char *args[] = { "clone-thread", NULL };
    expect("pentium4", args, 0, "clone(CLONE_VM|SIGCHLD): 22\n");
}
END_TEST

Suite *fork_suite(void)
{
    Suite *s = suite_create("fork");
    TCase *tc = tcase_create("processes");
    tcase_set_timeout(tc, 240);
    tcase_add_unchecked_fixture(tc, make_tree, remove_tree);
    tcase_add_loop_test(tc, a_child_has_its_own_memory_and_its_exit_code_reaches_the_parent, 0,
                        NCPUS);
    tcase_add_loop_test(tc, a_vfork_child_shares_memory_and_the_parent_waits, 0, NCPUS);
    tcase_add_loop_test(tc, execve_replaces_the_image_with_new_arguments, 0, NCPUS);
    tcase_add_test(tc, execve_fails_as_linux_does);
    tcase_add_loop_test(tc, an_orphan_goes_to_pid_1, 0, NCPUS);
    tcase_add_loop_test(tc, a_child_stays_a_zombie_until_waited_for, 0, NCPUS);
    tcase_add_loop_test(tc, signals_and_faults_kill_the_child_not_the_parent, 0, NCPUS);
    tcase_add_loop_test(tc, a_fork_bomb_meets_the_process_limit, 0, 2);
    tcase_add_test(tc, process_groups_and_sessions);
    tcase_add_loop_test(tc, shared_memory_is_shared_across_fork_private_memory_is_not, 0,
                        NCPUS);
    tcase_add_test(tc, a_thread_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(fork_suite());
}
