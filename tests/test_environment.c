/*
 * The process environment a program expects around it (issue 26): init
 * as pid 1 with the program its child, descriptors 0-2 that are what the
 * host's are (a redirected file seekable with one shared offset, a pipe
 * not, a stdin that poll finds ready only when it is), the root's own
 * /tmp, credentials, /proc/self/exe, getcwd and execve's limits. Each
 * case runs the same i386 binary natively (or under qemu-i386) and under
 * emu and compares what they print.
 */
#include <check.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"

#define QEMU_I386 "/usr/bin/qemu-i386"

static char dir[128];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/sysemu_env_%d", (int)getpid());
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/root/bin %s/root/etc", dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void remove_dir(void)
{
    char cmd[192];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *name)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

static void put_file(const char *name, const char *text)
{
    FILE *f = fopen(in_dir(name), "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* sh -c CMD, where CMD has %E for emu run, %N for the native runner
 * (nothing on a host that runs i386 programs) and %D for the scratch
 * directory. */
static void shell(struct emu_result *r, const char *cmd)
{
    char text[2048];
    size_t n = 0;
    for (const char *c = cmd; *c && n < sizeof text - 300; c++) {
        if (c[0] == '%' && c[1] == 'E')
            n += (size_t)snprintf(text + n, sizeof text - n, "%s run", EMU_PATH);
        else if (c[0] == '%' && c[1] == 'N')
            n += (size_t)snprintf(text + n, sizeof text - n, "%s",
                                  native_is_host() ? "" : QEMU_I386);
        else if (c[0] == '%' && c[1] == 'D')
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", dir);
        else {
            text[n++] = *c;
            continue;
        }
        c++;
    }
    text[n] = 0;
    const char *argv[] = { "/bin/sh", "-c", text, NULL };
    run_command(r, argv);
}

/* The same command line, native and under emu: the same output. */
static void same_output(const char *native_cmd, const char *emu_cmd)
{
    struct emu_result nat, emu;
    shell(&nat, native_cmd);
    shell(&emu, emu_cmd);
    ck_assert_msg(nat.status == emu.status && !strcmp(nat.out, emu.out),
                  "%s:\nnatively (%s), exit %d:\n%s\nunder emu, exit %d:\n%s%s", emu_cmd,
                  native_runner(), nat.status, nat.out, emu.status, emu.out, emu.err);
    emu_result_free(&nat);
    emu_result_free(&emu);
}

static bool matches(const char *text, const char *pattern)
{
    regex_t re;
    ck_assert_int_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    bool ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* ---- 1. init is pid 1, the program its child ---- */

START_TEST(the_program_is_a_child_of_init)
{
    struct emu_result r;
    emu(&r, "run", fixture("busybox"), "sh", "-c", "echo $$ $PPID; sh -c 'echo $PPID'; true", NULL);
    ck_assert_msg(r.status == 0 && !strcmp(r.out, "2 1\n2\n"), "exit %d: %s%s", r.status,
                  r.out, r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(parents_and_orphans_as_natively)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%%N %s ppid", fixture("lat_ppid-glibc"));
    char ecmd[512];
    snprintf(ecmd, sizeof ecmd, "%%E %s ppid", fixture("lat_ppid-glibc"));
    same_output(cmd, ecmd);
}
END_TEST

/* lmbench's manner: workers that take getppid() == 1 for their parent's
 * death; run directly, the harness still prints its figure. */
START_TEST(a_benchmark_harness_prints_its_figure)
{
    const char *variants[] = { "lat_ppid-glibc", "lat_ppid-musl" };
    for (int i = 0; i < 2; i++) {
        struct emu_result r;
        emu(&r, "run", fixture(variants[i]), "pipe", "200", NULL);
        ck_assert_msg(r.status == 0 && matches(r.out, "^Pipe latency: [0-9]+\\.[0-9]{4} "
                                                      "microseconds\n$"),
                      "%s: exit %d: '%s' %s", variants[i], r.status, r.out, r.err);
        emu_result_free(&r);
    }
}
END_TEST

/* With no N the harness times itself as lmbench 3 does (11 runs of
 * "enough" each); LAT_PPID_ENOUGH shortens enough from lmbench's 1 s to
 * 5 ms of the guest's time, so that the test takes seconds. */
START_TEST(a_harness_with_lmbench_timing_prints_its_figure)
{
    const char *variants[] = { "lat_ppid-glibc", "lat_ppid-musl" };
    for (int i = 0; i < 2; i++) {
        struct emu_result r;
        emu(&r, "run", "--env", "LAT_PPID_ENOUGH=5000", fixture(variants[i]), "pipe", NULL);
        ck_assert_msg(r.status == 0 && matches(r.out, "^Pipe latency: [0-9]+\\.[0-9]{4} "
                                                      "microseconds\n$"),
                      "%s: exit %d: '%s' %s", variants[i], r.status, r.out, r.err);
        emu_result_free(&r);
    }
}
END_TEST

START_TEST(the_exit_status_and_strace_are_the_programs)
{
    struct emu_result r;
    emu(&r, "run", "--strace", fixture("busybox"), "sh", "-c", "exit 7", NULL);
    ck_assert_int_eq(r.status, 7);
    ck_assert_msg(strstr(r.err, "+++ exited with 7 +++") && !strstr(r.err, "[pid     1]"),
                  "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* ---- 2. descriptors 0-2 are the host's ---- */

static const char *const seek_variants[] = { "stdin_seek-glibc", "stdin_seek-musl" };

START_TEST(a_redirected_stdin_is_seekable_and_shared_across_fork)
{
    char nat[512], em[512];
    put_file("input.txt", "line one\nline two\nline three\n");
    snprintf(nat, sizeof nat, "%%N %s < %%D/input.txt", fixture(seek_variants[_i]));
    snprintf(em, sizeof em, "%%E %s < %%D/input.txt", fixture(seek_variants[_i]));
    same_output(nat, em);
}
END_TEST

START_TEST(a_piped_stdin_is_not_seekable)
{
    char nat[512], em[512];
    snprintf(nat, sizeof nat, "printf 'a\\nb\\n' | %%N %s", fixture(seek_variants[_i]));
    snprintf(em, sizeof em, "printf 'a\\nb\\n' | %%E %s", fixture(seek_variants[_i]));
    same_output(nat, em);
}
END_TEST

START_TEST(stdout_to_a_file_is_seekable_and_a_pipe_is_not)
{
    char nat[512], em[512];
    snprintf(nat, sizeof nat, "%%N %s < /dev/null > %%D/out-n; cat %%D/out-n",
             fixture("stdin_seek-glibc"));
    snprintf(em, sizeof em, "%%E %s < /dev/null > %%D/out-e; cat %%D/out-e",
             fixture("stdin_seek-glibc"));
    same_output(nat, em);
}
END_TEST

/* A terminal (script(1)'s pseudo-terminal) answers isatty, as natively. */
START_TEST(a_terminal_is_a_terminal)
{
    char nat[512], em[512];
    const char *probe = "sh -c 'test -t 0 && echo tty0; test -t 1 && echo tty1; test -t 2 || "
                        "echo stderr-not'";
    if (access("/usr/bin/script", X_OK) != 0) {
        fprintf(stderr, "a terminal: no script(1) here\n");
        return;
    }
    snprintf(nat, sizeof nat, "script -qec \"%%N %s %s 2>/dev/null\" /dev/null",
             fixture("busybox"), probe);
    snprintf(em, sizeof em, "script -qec \"%%E %s %s 2>/dev/null\" /dev/null",
             fixture("busybox"), probe);
    same_output(nat, em);
}
END_TEST

/* ---- 6. poll and select see stdin as it is ---- */

START_TEST(an_empty_pipe_on_stdin_is_not_ready)
{
    char nat[512], em[512];
    snprintf(nat, sizeof nat, "(sleep 1; echo hi) | %%N %s", fixture("poll_stdin-glibc"));
    snprintf(em, sizeof em, "(sleep 1; echo hi) | %%E %s", fixture("poll_stdin-glibc"));
    same_output(nat, em);
}
END_TEST

START_TEST(proc_self_exe_names_the_program)
{
    char nat[512], em[512];
    snprintf(nat, sizeof nat, "%%N %s readlink /proc/self/exe", fixture("busybox"));
    snprintf(em, sizeof em, "%%E %s readlink /proc/self/exe", fixture("busybox"));
    same_output(nat, em);
}
END_TEST

/* An exec'd program through symbolic links: the file itself. */
START_TEST(proc_self_exe_after_exec_follows_links)
{
    char cmd[1024];
    struct emu_result r;
    snprintf(cmd, sizeof cmd,
             "cp %s %%D/root/bin/busybox && mkdir -p %%D/root/usr/bin && "
             "ln -s ../../bin/busybox %%D/root/usr/bin/readlink && "
             "ln -s /usr/bin/readlink %%D/root/bin/rl-link && "
             "%%E --root %%D/root %%D/root/bin/busybox sh -c "
             "'cd /usr; bin/readlink /proc/self/exe; exec /usr/bin/readlink /proc/self/exe'",
             fixture("busybox"));
    shell(&r, cmd);
    ck_assert_msg(r.status == 0 && !strcmp(r.out, "/bin/busybox\n/bin/busybox\n"),
                  "exit %d: %s%s", r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* ---- 3. the root's /tmp ---- */

START_TEST(a_file_in_the_roots_tmp_is_seen)
{
    char cmd[1024];
    struct emu_result r;
    snprintf(cmd, sizeof cmd,
             "cp %s %%D/root/bin/busybox && mkdir -m 1777 %%D/root/tmp && "
             "echo 'left here' > %%D/root/tmp/x && "
             "%%E --root %%D/root %%D/root/bin/busybox sh -c "
             "'cat /tmp/x; echo new > /tmp/y; ls /tmp; stat -c %%a /tmp' && ls %%D/root/tmp",
             fixture("busybox"));
    shell(&r, cmd);
    /* the guest's new file stays in the writable layer: the host's tmp
     * holds x only */
    ck_assert_msg(r.status == 0 && !strcmp(r.out, "left here\nx\ny\n1777\nx\n"),
                  "exit %d: %s%s", r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* ---- Debian's zsh-static in pipelines (5: the machine halted) ---- */

/* zsh forks every element of a pipeline but the last, which runs in the
 * shell itself: builtins, a while loop and subshells joined by pipes,
 * $pipestatus, pipefail, the exit status; and an external command at the
 * end (the pipeline that stopped the machine, 125: natively the
 * host's sort, which qemu-i386's zsh can run, under emu busybox's). */
static const char *const zsh_lines[][2] = {
    { "print -l a b c | while read x; do echo $x$x; done | "
      "(while read y; do print -r -- ${(U)y}; done); echo $pipestatus", NULL },
    { "setopt pipefail; false | true; echo $? $pipestatus; "
      "for i in 1 2 3; do echo $i; done | (read a; read b; echo $b$a); exit 3", NULL },
    { "print -l c a b | sort; echo $pipestatus",
      "print -l c a b | /bin/busybox sort; echo $pipestatus" },
};

/* The tree's /bin/zsh and /bin/busybox: Debian's static builds. */
static void put_zsh_and_busybox(void)
{
    char setup[512];
    struct emu_result r;
    snprintf(setup, sizeof setup, "cp %s %%D/root/bin/zsh && cp %s %%D/root/bin/busybox",
             fixture("zsh"), fixture("busybox"));
    shell(&r, setup);
    ck_assert_int_eq(r.status, 0);
    emu_result_free(&r);
}

START_TEST(a_zsh_pipeline_as_natively)
{
    const char *line = zsh_lines[_i][0], *emu_line = zsh_lines[_i][1] ? zsh_lines[_i][1] : line;
    char nat[1024], em[1024];
    put_zsh_and_busybox();
    snprintf(nat, sizeof nat, "%%N %s -f -c '%s'", fixture("zsh"), line);
    for (int smp = 1; smp <= 2; smp++) {
        snprintf(em, sizeof em, "%%E --smp %d --root %%D/root %%D/root/bin/zsh -f -c '%s'", smp,
                 emu_line);
        same_output(nat, em);
    }
}
END_TEST

/* Execs of two programs at the same addresses, one after the other: each
 * runs its own code, never what is left translated of the other's (an
 * exec's code pages are held aside until their bytes come back:
 * emu/mm/addrspace.c). Natively each command runs on its own. */
START_TEST(busybox_and_zsh_in_turn_each_run_their_own_code)
{
    char nat[1024], em[1024];
    put_zsh_and_busybox();
    snprintf(nat, sizeof nat,
             "for i in 1 2 3; do %%N %s echo bb$i; %%N %s -f -c \"echo zsh$i\"; "
             "%%N %s expr $i + 40; done",
             fixture("busybox"), fixture("zsh"), fixture("busybox"));
    for (int smp = 1; smp <= 2; smp++) {
        snprintf(em, sizeof em,
                 "%%E --smp %d --root %%D/root %%D/root/bin/busybox sh -c 'for i in 1 2 3; do "
                 "/bin/busybox echo bb$i; /bin/zsh -f -c \"echo zsh$i\"; "
                 "/bin/busybox expr $i + 40; done'",
                 smp);
        same_output(nat, em);
    }
}
END_TEST

/* ---- 4. credentials ---- */

START_TEST(busybox_id_as_natively)
{
    char nat[1024], em[512];
    put_file("root/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"
                                "alice:x:1000:100:Alice:/home/alice:/bin/sh\n");
    put_file("root/etc/group", "root:x:0:\nwheel:x:10:root\nusers:x:100:alice\n");
    char copy[512];
    snprintf(copy, sizeof copy, "cp %s %%D/root/bin/busybox", fixture("busybox"));
    struct emu_result c;
    shell(&c, copy);
    ck_assert_int_eq(c.status, 0);
    emu_result_free(&c);
    /* natively the same files: qemu-i386 -L, or chroot on a host that
     * runs i386 programs */
    if (native_is_host())
        snprintf(nat, sizeof nat,
                 "chroot %%D/root /bin/busybox id; chroot %%D/root /bin/busybox id alice");
    else
        snprintf(nat, sizeof nat,
                 "%%N -L %%D/root %%D/root/bin/busybox id; "
                 "%%N -L %%D/root %%D/root/bin/busybox id alice");
    snprintf(em, sizeof em,
             "%%E --root %%D/root %%D/root/bin/busybox id; "
             "%%E --root %%D/root %%D/root/bin/busybox id alice");
    if (getuid() != 0) {
        fprintf(stderr, "busybox id: not root here; held to root's answer\n");
        struct emu_result r;
        shell(&r, em);
        ck_assert_str_eq(r.out, "uid=0(root) gid=0(root)\n"
                                "uid=1000(alice) gid=100(users) groups=100(users)\n");
        emu_result_free(&r);
        return;
    }
    same_output(nat, em);
}
END_TEST

static const char *const cred_variants[] = { "creds-glibc", "creds-musl" };

START_TEST(the_setuid_family_as_natively)
{
    char nat[512], em[512];
    if (getuid() != 0) {
        fprintf(stderr, "creds: not root here, nothing to compare with\n");
        return;
    }
    snprintf(nat, sizeof nat, "%%N %s", fixture(cred_variants[_i]));
    snprintf(em, sizeof em, "%%E %s", fixture(cred_variants[_i]));
    same_output(nat, em);
}
END_TEST

/* ---- 11. getcwd, execve's limits, the report file ---- */

START_TEST(getcwd_over_a_page_is_enametoolong)
{
    char nat[PATH_MAX + 64], em[512], real[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(fixture("getcwd_long-glibc"), real));
    snprintf(nat, sizeof nat, "mkdir %%D/cwd && cd %%D/cwd && %%N %s", real);
    snprintf(em, sizeof em, "%%E %s", fixture("getcwd_long-glibc"));
    same_output(nat, em);
}
END_TEST

static const struct {
    const char *n, *size, *out;
} arg_cases[] = {
    { "1", "131071", "got 1 arguments, 131072 bytes\n" },   /* 128 KiB with the NUL */
    { "1", "131072", "execve: Argument list too long\n" },  /* MAX_ARG_STRLEN + 1 */
    { "1", "200000", "execve: Argument list too long\n" },
    { "100000", "12", "got 100000 arguments, 1300000 bytes\n" },
    { "150000", "12", "execve: Argument list too long\n" }, /* 2.55 MB with pointers */
};

START_TEST(execve_argument_limits_are_linuxs)
{
    struct emu_result r;
    emu(&r, "run", fixture("arg_limits-glibc"), arg_cases[_i].n, arg_cases[_i].size, NULL);
    ck_assert_msg(r.status == 0 && !strcmp(r.out, arg_cases[_i].out), "%s x %s: exit %d: %s%s",
                  arg_cases[_i].n, arg_cases[_i].size, r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(an_unwritable_report_file_is_refused_up_front)
{
    struct emu_result r;
    emu(&r, "run", "--report-file", "/nonexistent/dir/report.txt", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(count_char(r.err, '\n') == 1 &&
                  strstr(r.err, "cannot write report /nonexistent/dir/report.txt: No such "
                                "file or directory"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("environment");
    TCase *tc = tcase_create("init");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, the_program_is_a_child_of_init);
    tcase_add_test(tc, parents_and_orphans_as_natively);
    tcase_add_test(tc, a_benchmark_harness_prints_its_figure);
    tcase_add_test(tc, a_harness_with_lmbench_timing_prints_its_figure);
    tcase_add_test(tc, the_exit_status_and_strace_are_the_programs);
    suite_add_tcase(s, tc);

    tc = tcase_create("descriptors");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_add_loop_test(tc, a_redirected_stdin_is_seekable_and_shared_across_fork, 0, 2);
    tcase_add_loop_test(tc, a_piped_stdin_is_not_seekable, 0, 2);
    tcase_add_test(tc, stdout_to_a_file_is_seekable_and_a_pipe_is_not);
    tcase_add_test(tc, a_terminal_is_a_terminal);
    tcase_add_test(tc, an_empty_pipe_on_stdin_is_not_ready);
    tcase_add_test(tc, proc_self_exe_names_the_program);
    tcase_add_test(tc, proc_self_exe_after_exec_follows_links);
    suite_add_tcase(s, tc);

    tc = tcase_create("tree and credentials");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, a_file_in_the_roots_tmp_is_seen);
    tcase_add_test(tc, busybox_id_as_natively);
    tcase_add_loop_test(tc, the_setuid_family_as_natively, 0, 2);
    tcase_add_test(tc, getcwd_over_a_page_is_enametoolong);
    tcase_add_loop_test(tc, execve_argument_limits_are_linuxs, 0,
                        (int)(sizeof arg_cases / sizeof arg_cases[0]));
    tcase_add_test(tc, an_unwritable_report_file_is_refused_up_front);
    tcase_add_loop_test(tc, a_zsh_pipeline_as_natively, 0,
                        (int)(sizeof zsh_lines / sizeof zsh_lines[0]));
    tcase_add_test(tc, busybox_and_zsh_in_turn_each_run_their_own_code);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
