/*
 * --strace (emu/observe/strace.c, strace_args.c, strace_structs.c): the lines of a
 * fixed program are exactly strace's, with our two columns; a program run
 * natively under Debian's strace prints the same lines; a fault that kills
 * the program is the signal line strace prints; -e trace= and -o.
 * "Natively" is the recording in traces/strace/ (make strace-reference: on
 * Debian's kernel under qemu-system-x86_64) where the host kernel runs no
 * i386 program; where it runs them, strace runs live and must still print
 * the recorded lines.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support.h"
#include "syscall_nr.h"
#include "../emu/observe/strace.h"

/* The path column is this wide: "[sysenter/sysexit] ". */
#define PATH_COLUMN 19

/* text with every "<N cycles>" made "<N cycles>" and the sub-second part
 * of a time, which moves with the cycle model, made "N". */
static char *normalized(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *p = text; *p;) {
        if (*p == '<' && p[1] >= '0' && p[1] <= '9') {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (!strncmp(q, " cycles>", 8)) {
                o += sprintf(o, "<N cycles>");
                p = q + 8;
                continue;
            }
        }
        if (!strncmp(p, "tv_nsec=", 8) || !strncmp(p, "tv_usec=", 8)) {
            memcpy(o, p, 8);
            o += 8;
            p += 8;
            *o++ = 'N';
            while (*p >= '0' && *p <= '9')
                p++;
            continue;
        }
        *o++ = *p++;
    }
    *o = 0;
    return out;
}

static const char expected_all[] =
    "[sysenter/sysexit] write(1, \"hello, strace\\n\", 14)         = 14 <N cycles>\n"
    "[sysenter/sysexit] write(1, \"\\0\\0012\\t\\\"\\\\\\177\\377\", 8)    = 8 <N cycles>\n"
    "[sysenter/sysexit] open(\"/nonexistent/file\", O_RDONLY)     = -1 ENOENT (No such file or "
    "directory) <N cycles>\n"
    "[sysenter/sysexit] openat(AT_FDCWD, \"/nonexistent\", O_RDONLY|O_DIRECTORY) = -1 ENOENT (No "
    "such file or directory) <N cycles>\n"
    "[sysenter/sysexit] close(99)                               = -1 EBADF (Bad file "
    "descriptor) <N cycles>\n"
    "[sysenter/sysexit] read(99, 0x804b060, 16)                 = -1 EBADF (Bad file "
    "descriptor) <N cycles>\n"
    "[sysenter/sysexit] lseek(99, 10, SEEK_END)                 = -1 EBADF (Bad file "
    "descriptor) <N cycles>\n"
    "[sysenter/sysexit] _llseek(99, 0, 0x804b060, SEEK_CUR)     = -1 EBADF (Bad file "
    "descriptor) <N cycles>\n"
    "[sysenter/sysexit] access(\"/nonexistent\", R_OK|W_OK)       = -1 ENOENT (No such file or "
    "directory) <N cycles>\n"
    "[sysenter/sysexit] readlink(\"/nonexistent\", 0x804b060, 64) = -1 ENOENT (No such file or "
    "directory) <N cycles>\n"
    "[sysenter/sysexit] mmap2(0x20000000, 8192, PROT_READ|PROT_WRITE, "
    "MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x20000000 <N cycles>\n"
    "[sysenter/sysexit] mprotect(0x20000000, 4096, PROT_READ)   = 0 <N cycles>\n"
    "[sysenter/sysexit] munmap(0x20000000, 8192)                = 0 <N cycles>\n"
    "[sysenter/sysexit] clock_gettime(0x7b /* CLOCK_??? */, 0x804b060) = -1 EINVAL (Invalid "
    "argument) <N cycles>\n"
    "[sysenter/sysexit] writev(1, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"c\\n\", "
    "iov_len=2}], 2) = 4 <N cycles>\n"
    "[sysenter/sysexit] rt_sigprocmask(SIG_SETMASK, [USR1 TERM], NULL, 8) = 0 <N cycles>\n"
    "[sysenter/sysexit] rt_sigprocmask(SIG_SETMASK, [], [USR1 TERM], 8) = 0 <N cycles>\n"
    "[sysenter/sysexit] rt_sigaction(SIGUSR1, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, "
    "NULL, 8) = 0 <N cycles>\n"
    "[sysenter/sysexit] rt_sigaction(SIGUSR1, NULL, {sa_handler=SIG_IGN, sa_mask=[], "
    "sa_flags=0}, 8) = 0 <N cycles>\n"
    "[sysenter/sysexit] ioctl(99, TCGETS, 0x804b060)            = -1 EBADF (Bad file "
    "descriptor) <N cycles>\n"
    "[sysenter/sysexit] sched_yield()                           = 0 <N cycles>\n"
    "[sysenter/iret]    syscall_0x1388(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = -1 ENOSYS (Function not "
    "implemented) <N cycles>\n"
    "[sysenter/sysexit] stat64(\"/hello.txt\", {st_mode=S_IFREG|0644, st_size=32, ...}) = 0 "
    "<N cycles>\n"
    "[sysenter/sysexit] openat(AT_FDCWD, \"/new-file\", O_WRONLY|O_CREAT|O_CLOEXEC, 0644) = 3 "
    "<N cycles>\n"
    "[sysenter/sysexit] clock_gettime(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=N}) = 0 <N cycles>\n"
    "[sysenter/sysexit] gettimeofday({tv_sec=1040103547, tv_usec=N}, NULL) = 0 <N cycles>\n"
    "[sysenter/sysexit] time(NULL)                              = 1040103547 "
    "(2002-12-17T05:39:07+0000) <N cycles>\n"
    "[sysenter/sysexit] uname({sysname=\"Linux\", nodename=\"sysemu\", ...}) = 0 <N cycles>\n"
    "[sysenter/sysexit] fcntl64(1, F_GETFD)                     = 0 <N cycles>\n"
    "[sysenter/sysexit] brk(NULL)                               = 0x804c000 <N cycles>\n"
    "[sysenter/exited]  exit_group(3)                           = ?\n"
    "                   +++ exited with 3 +++\n";

/* emu run -o FILE ARGS...: the strace lines. */
static char *strace_of(struct emu_result *r, const char *const *args)
{
    const char *path = scratch("strace.txt");
    const char *argv[24] = { "run", "-o", path };
    int n = 3;
    for (int i = 0; args[i] && n < 23; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    run_emu(r, argv);
    char *text = read_file(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    return text;
}

START_TEST(strace_of_a_fixed_program_is_exactly_this)
{
    char file[512];
    snprintf(file, sizeof file, "%s/hello.txt", tree_root());
    ck_assert_int_eq(chmod(file, 0644), 0);
    struct emu_result r;
    const char *args[] = { "--root", tree_root(), program("strace_calls"), "all", "/hello.txt",
                           NULL };
    char *text = strace_of(&r, args);
    ck_assert_int_eq(r.status, 3);
    ck_assert_msg(!strstr(r.err, "] write("), "-o left lines on stderr: %s", r.err);
    char *got = normalized(text);
    ck_assert_str_eq(got, expected_all);
    free(got);
    free(text);
    emu_result_free(&r);
}
END_TEST

/* Our line without the path column and the cycles: strace's line. */
static char *as_strace_line(const char *line, size_t len)
{
    ck_assert_msg(len > PATH_COLUMN, "short line: %.*s", (int)len, line);
    char *s = strndup(line + PATH_COLUMN, len - PATH_COLUMN);
    char *cycles = strrchr(s, '<');
    if (cycles && cycles > s && cycles[-1] == ' ' && strstr(cycles, " cycles") &&
        s[strlen(s) - 1] == '>')
        cycles[-1] = 0;
    return s;
}

/* The lines of text after skip, each put through as_strace_line if ours. */
static int split_lines(const char *text, char **lines, int max, bool ours, int skip)
{
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (skip > 0)
            skip--;
        else
            lines[n++] = ours ? as_strace_line(p, len) : strndup(p, len);
        p = end ? end + 1 : p + len;
    }
    return n;
}

/* traces/strace/BASE-ARG.txt (make strace-reference): what Debian's strace
 * wrote for prog (a program and one argument) on a kernel that runs i386
 * programs. */
static char *recorded_strace(const char *const *prog, char *path, size_t size)
{
    const char *base = strrchr(prog[0], '/');
    snprintf(path, size, "traces/strace/%s-%s.txt", base ? base + 1 : prog[0], prog[1]);
    char *text = read_file(path);
    ck_assert_msg(text && *text, "the recorded strace %s is missing or empty: "
                  "record it with make strace-reference", path);
    return text;
}

/* text after its first line (strace's execve, whose pointer and count of
 * environment variables are the run's own) */
static char *pid_normalized(const char *line, const char *text);

/* Where live and recorded differ, pids aside (a recording's are those of
 * the machine it was made on): 0, or the first line after the execve that
 * differs, that line of each in *x and *y (freed by the caller). */
static int first_difference(const char *live, const char *recorded, char **x, char **y)
{
    enum { MAX_LINES = 128 };
    char *a[MAX_LINES], *b[MAX_LINES];
    int na = split_lines(live, a, MAX_LINES, false, 1);
    int nb = split_lines(recorded, b, MAX_LINES, false, 1);
    /* every line compared, as a compare of the whole texts would */
    ck_assert_msg(na < MAX_LINES && nb < MAX_LINES, "more than %d lines to compare",
                  MAX_LINES - 1);
    bool pids = strstr(live, "\ngetpid(") && strstr(live, "\nclone(") &&
                strstr(recorded, "\ngetpid(") && strstr(recorded, "\nclone(");
    int diff = 0;
    *x = *y = NULL;
    for (int i = 0; !diff && i < (na > nb ? na : nb); i++) {
        free(*x);
        free(*y);
        *x = i >= na ? strdup("") : pids ? pid_normalized(a[i], live) : strdup(a[i]);
        *y = i >= nb ? strdup("") : pids ? pid_normalized(b[i], recorded) : strdup(b[i]);
        if (strcmp(*x, *y))
            diff = i + 1;
    }
    for (int i = 0; i < na; i++)
        free(a[i]);
    for (int i = 0; i < nb; i++)
        free(b[i]);
    return diff;
}

/* Debian's strace of prog: run live where the host kernel runs i386
 * programs, and then the same as the recording but for the execve line
 * and the pids; elsewhere the recording. */
static char *native_strace(const char *const *prog)
{
    char recorded_path[256];
    char *recorded = recorded_strace(prog, recorded_path, sizeof recorded_path);
    if (!native_is_host())
        return recorded;
    const char *path = scratch("native.txt");
    const char *argv[16] = { "strace", "-o", path };
    int n = 3;
    for (int i = 0; prog[i] && n < 15; i++)
        argv[n++] = prog[i];
    argv[n] = NULL;
    struct emu_result r;
    run_command(&r, argv);
    char *text = read_file(path);
    unlink(path);
    ck_assert_msg(text && *text, "Debian's strace did not run (%d): %s", r.status, r.err);
    emu_result_free(&r);
    char *x, *y;
    int diff = first_difference(text, recorded, &x, &y);
    ck_assert_msg(!diff, "Debian's strace now prints other lines than %s, from line %d after "
                  "the execve (make strace-reference records them again):\n  live: %.300s\n"
                  "  recorded: %.300s", recorded_path, diff, x, y);
    free(x);
    free(y);
    free(recorded);
    return text;
}

START_TEST(strace_lines_are_debian_strace_lines)
{
    const char *prog[] = { program("strace_calls"), "portable", NULL };
    char *native = native_strace(prog);
    struct emu_result r;
    char *ours = strace_of(&r, prog);
    ck_assert_int_eq(r.status, 3);
    char *a[64], *b[64];
    /* strace's first line is the execve that started the program */
    int na = split_lines(native, a, 64, false, 1), nb = split_lines(ours, b, 64, true, 0);
    ck_assert_int_gt(na, 20);
    for (int i = 0; i < na && i < nb; i++)
        ck_assert_msg(!strcmp(a[i], b[i]), "line %d:\nstrace: %s\nemu:    %s", i + 1, a[i],
                      b[i]);
    ck_assert_int_eq(na, nb);
    for (int i = 0; i < na; i++)
        free(a[i]);
    for (int i = 0; i < nb; i++)
        free(b[i]);
    free(native);
    free(ours);
    emu_result_free(&r);
}
END_TEST

/* The number the call named returned in text ("getpid()", "clone("). */
static long result_of(const char *text, const char *call)
{
    const char *c = strstr(text, call);
    const char *nl = c ? strchr(c, '\n') : NULL;
    const char *eq = nl;
    while (eq && eq > c && strncmp(eq, " = ", 3))
        eq--;
    ck_assert_msg(eq && eq > c, "no %s in %s", call, text);
    return strtol(eq + 3, NULL, 10);
}

/* s with every from made to. */
static char *replaced(char *s, const char *from, const char *to)
{
    char *out = malloc(strlen(s) * 2 + 64), *o = out;
    for (const char *p = s; *p;) {
        if (!strncmp(p, from, strlen(from))) {
            o += sprintf(o, "%s", to);
            p += strlen(from);
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    free(s);
    return out;
}

/* line with the pids the run's own (the process's, from getpid(), and its
 * child's, from clone()) made "PID" and "CHILD" where strace shows them,
 * and runs of spaces made one (the result's column moves with the digits). */
static char *pid_normalized(const char *line, const char *text)
{
    char pat[64], *out = strdup(line), *o = out;
    for (const char *p = out; *p; p++)
        if (!(*p == ' ' && o > out && o[-1] == ' '))
            *o++ = *p;
    *o = 0;
    const struct { long pid; const char *name; } pids[] = {
        { result_of(text, "getpid("), "PID" }, { result_of(text, "clone("), "CHILD" },
    };
    for (size_t i = 0; i < 2; i++) {
        static const char *const forms[] = { "kill(%ld,", "si_pid=%ld,", ") = %ld" };
        static const char *const to[] = { "kill(%s,", "si_pid=%s,", ") = %s" };
        /* a result is a pid only for the calls that return one */
        bool returns_pid = !strncmp(line, "getpid(", 7) || !strncmp(line, "clone(", 6) ||
                           !strncmp(line, "wait4(", 6);
        for (size_t k = 0; k < (returns_pid ? 3u : 2u); k++) {
            char rep[32];
            snprintf(pat, sizeof pat, forms[k], pids[i].pid);
            snprintf(rep, sizeof rep, to[k], pids[i].name);
            out = replaced(out, pat, rep);
        }
    }
    return out;
}

/* emu's lines of the first process only, without the "[pid N] " column
 * (strace without -f shows no other process). */
/* The program's own lines: it is pid 2, init's child. */
#define PROGRAM_PID 2

static char *first_process(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p + 1) : strlen(p);
        if (!strncmp(p, "[pid ", 5)) {
            if (strtol(p + 5, NULL, 10) == PROGRAM_PID) {
                memcpy(o, p + 12, len - 12);
                o += len - 12;
            }
        } else {
            memcpy(o, p, len);
            o += len;
        }
        p += len;
    }
    *o = 0;
    return out;
}

/* A handled SIGUSR1 the program sends itself, a pause() and a read that
 * SIGALRM interrupts (with and without SA_RESTART), a child's SIGCHLD:
 * kill's own result, the signal's line, the handler's call, rt_sigreturn
 * and its result, the ERESTART* texts, clone's arguments, wait4's status,
 * line for line as Debian's strace prints them. */
START_TEST(signals_are_the_lines_strace_prints)
{
    const char *prog[] = { program("strace_signals"), "handled", NULL };
    char *native = native_strace(prog);
    struct emu_result r;
    char *all = strace_of(&r, prog), *ours = first_process(all);
    free(all);
    ck_assert_int_eq(r.status, 4);
    char *a[64], *b[64];
    int na = split_lines(native, a, 64, false, 1), nb = split_lines(ours, b, 64, true, 0);
    ck_assert_int_ge(na, 28);
    for (int i = 0; i < na && i < nb; i++) {
        char *x = pid_normalized(a[i], native), *y = pid_normalized(b[i], ours);
        ck_assert_msg(!strcmp(x, y), "line %d:\nstrace: %s\nemu:    %s", i + 1, x, y);
        free(x);
        free(y);
    }
    ck_assert_int_eq(na, nb);
    for (int i = 0; i < na; i++)
        free(a[i]);
    for (int i = 0; i < nb; i++)
        free(b[i]);
    free(native);
    free(ours);
    emu_result_free(&r);
}
END_TEST

/* A wait4 that blocks while the child runs: its own cycles, then the time
 * it was switched out apart, "<N cycles, +K switched out>"; the child's
 * status as strace decodes it. */
START_TEST(time_switched_out_is_shown_apart)
{
    struct emu_result r;
    const char *prog[] = { program("proc"), "fork", NULL };
    char *text = strace_of(&r, prog);
    ck_assert_int_eq(r.status, 0);
    char *line = line_with(text, "wait4(3, [{WIFEXITED(s) && WEXITSTATUS(s) == 10}], 0, NULL) = 3");
    ck_assert_msg(line, "%s", text);
    double own, out;
    const char *c = strstr(line, " <");
    ck_assert_msg(c && sscanf(c, " <%lf cycles, +%lf switched out>", &own, &out) == 2, "%s",
                  line);
    ck_assert_msg(own > 0 && out > 0, "%s", line);
    /* the three waits for the three children each blocked */
    ck_assert_msg(count_lines_containing(text, "switched out>") >= 3, "%s", text);
    free(line);
    free(text);
    emu_result_free(&r);
}
END_TEST

/* The faults of guest/programs/faults that Linux and our kernel answer
 * with the same signal, si_code and si_addr. */
static const char *const fault_cases[] = { "null", "kread", "ud2", "div0", "int3", "hlt",
                                           "text-write" };

START_TEST(a_fatal_fault_is_the_signal_line_strace_prints)
{
    const char *prog[] = { program("faults"), fault_cases[_i], NULL };
    char *native = native_strace(prog);
    struct emu_result r;
    char *ours = strace_of(&r, prog);
    ck_assert_int_gt(r.status, 128);
    char *a[16], *b[16];
    int na = split_lines(native, a, 16, false, 1), nb = split_lines(ours, b, 16, true, 0);
    ck_assert_int_ge(na, 2);
    ck_assert_int_ge(nb, 2);
    for (int k = 1; k <= 2; k++)
        ck_assert_msg(!strcmp(a[na - k], b[nb - k]), "%s:\nstrace: %s\nemu:    %s",
                      fault_cases[_i], a[na - k], b[nb - k]);
    ck_assert_msg(strstr(ours, "\n                   +++ killed by SIG"), "%s", ours);
    for (int i = 0; i < na; i++)
        free(a[i]);
    for (int i = 0; i < nb; i++)
        free(b[i]);
    free(native);
    free(ours);
    emu_result_free(&r);
}
END_TEST

static int count_calls(const char *text, const char *name)
{
    char needle[64];
    snprintf(needle, sizeof needle, "] %s(", name);
    return count_lines_containing(text, needle);
}

START_TEST(trace_expressions_choose_calls_and_classes)
{
    struct emu_result r;
    const char *file[] = { "-e", "trace=%file", program("strace_calls"), "portable", NULL };
    char *text = strace_of(&r, file);
    /* open, openat, access, readlink; and the exit line */
    ck_assert_int_eq(count_char(text, '\n'), 5);
    ck_assert_int_eq(count_calls(text, "open") + count_calls(text, "openat") +
                     count_calls(text, "access") + count_calls(text, "readlink"), 4);
    ck_assert_ptr_nonnull(strstr(text, "+++ exited with 3 +++"));
    free(text);
    emu_result_free(&r);

    const char *not_write[] = { "-e", "trace=!write,exit_group", program("strace_calls"),
                                "portable", NULL };
    text = strace_of(&r, not_write);
    ck_assert_int_eq(count_calls(text, "write"), 0);
    ck_assert_int_eq(count_calls(text, "exit_group"), 0);
    ck_assert_int_eq(count_calls(text, "writev"), 1);
    ck_assert_int_eq(count_calls(text, "close"), 1);
    free(text);
    emu_result_free(&r);

    const char *two[] = { "-e", "close", "-e", "trace=%memory", program("strace_calls"),
                          "portable", NULL };
    text = strace_of(&r, two);
    ck_assert_int_eq(count_calls(text, "close"), 1);
    ck_assert_int_eq(count_calls(text, "mmap2") + count_calls(text, "mprotect") +
                     count_calls(text, "munmap"), 3);
    ck_assert_int_eq(count_char(text, '\n'), 5);
    free(text);
    emu_result_free(&r);
}
END_TEST

START_TEST(a_bad_trace_expression_is_a_usage_error)
{
    static const char *const bad[] = { "trace=nosuchcall", "trace=%nosuchclass",
                                       "signal=SIGSEGV", "trace=/open.*" };
    struct emu_result r;
    emu(&r, "run", "-e", bad[_i], program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
    emu(&r, "run", "-e", "trace=?nosuchcall,write", program("hello"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(count_calls(r.err, "write"), 1);
    emu_result_free(&r);
}
END_TEST

START_TEST(strace_names_paths_and_the_entry_path)
{
    struct emu_result r;
    emu(&r, "run", "--strace", "--root", tree_root(), fixture("busybox"), "cat", "/hello.txt",
        NULL);
    ck_assert_int_eq(r.status, 0);
    char *open = line_with(r.err, "\"/hello.txt\"");
    ck_assert_msg(open && !strncmp(open, "[sysenter/sysexit] openat(AT_FDCWD, \"/hello.txt\", "
                                         "O_RDONLY|O_LARGEFILE) = 3 <", 75), "%s", r.err);
    free(open);
    char *tls = line_with(r.err, "set_thread_area(");
    ck_assert_msg(tls && !strncmp(tls, "[int80/iret]       set_thread_area({entry_number=-1, ", 52)
                  && strstr(tls, ") = 0 (entry_number="), "%s", r.err);
    free(tls);
    char *read = line_with(r.err, "] read(3, ");
    ck_assert_msg(read && strstr(read, "read(3, \"hello from the tree\\nsecond line\\n\", 65536)"
                                       " = 32 <"), "%s", r.err);
    free(read);
    emu_result_free(&r);
}
END_TEST

/* strace_print of rec on a bare machine (paging off) whose memory holds
 * text at BARE_USTACK. */
static char *line_of(const struct syscall_record *rec, const struct syscall_tracker *sys,
                     const char *text)
{
    static struct bare b;
    bare_init(&b, "pentium4");
    if (text)
        bare_write(&b, BARE_USTACK, text, strlen(text) + 1);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    strace_print(f, &b.m, sys, rec);
    fclose(f);
    bare_destroy(&b);
    return out;
}

START_TEST(a_long_buffer_is_cut_at_32_bytes_and_a_path_is_not)
{
    char text[200];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = 0;
    struct syscall_record w = { .nr = SYS_write, .path = PATH_INT80, .ret = RET_IRET,
                                .args = { 1, BARE_USTACK, 199 }, .result = 199 };
    char *out = line_of(&w, NULL, text);
    char want[512];
    snprintf(want, sizeof want, "[int80/iret]       write(1, \"%.32s\"..., 199) = 199 "
             "<0 cycles>\n", text);
    ck_assert_str_eq(out, want);
    free(out);
    struct syscall_record s = { .nr = SYS_stat64, .path = PATH_SYSENTER, .ret = RET_SYSEXIT,
                                .args = { BARE_USTACK, 0 }, .result = -2 };
    out = line_of(&s, NULL, text);
    snprintf(want, sizeof want, "[sysenter/sysexit] stat64(\"%s\", NULL) = -1 ENOENT (No such "
             "file or directory) <0 cycles>\n", text);
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

START_TEST(memory_ring3_cannot_read_is_shown_as_its_address)
{
    struct syscall_record o = { .nr = SYS_open, .path = PATH_INT80, .ret = RET_IRET,
                                .args = { KERNEL_BASE, 0 }, .result = -14 };
    char *out = line_of(&o, NULL, NULL);
    ck_assert_str_eq(out, "[int80/iret]       open(0xc0000000, O_RDONLY)              = -1 "
                          "EFAULT (Bad address) <0 cycles>\n");
    free(out);
    struct syscall_record n = { .nr = SYS_open, .path = PATH_INT80, .ret = RET_IRET,
                                .args = { 0, 0 }, .result = -14 };
    out = line_of(&n, NULL, NULL);
    ck_assert_str_eq(out, "[int80/iret]       open(NULL, O_RDONLY)                    = -1 "
                          "EFAULT (Bad address) <0 cycles>\n");
    free(out);
}
END_TEST

START_TEST(several_processes_get_strace_f_pid_column)
{
    static struct syscall_tracker sys;
    sys.several_pids = true;
    struct syscall_record r = { .nr = SYS_getpid, .pid = 7, .path = PATH_SYSENTER,
                                .ret = RET_SYSEXIT, .result = 7, .end = 63700,
                                .own_body = 63700 };
    char *out = line_of(&r, &sys, NULL);
    /* without our column: strace -f's line, "[pid     7] getpid()", with
     * its " = " at column 40 */
    char want[128];
    snprintf(want, sizeof want, "[pid     7] [sysenter/sysexit] %-28s= 7 <637 cycles>\n",
             "getpid()");
    ck_assert_str_eq(out, want);
    free(out);
    out = line_of(&r, NULL, NULL);
    snprintf(want, sizeof want, "[sysenter/sysexit] %-40s= 7 <637 cycles>\n", "getpid()");
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

/* Two processes: each call is shown whole, with its process; the parent's
 * wait4 lasts while the child runs; the child's execve shows the path it
 * had before its memory went; each process's end has its line. */
START_TEST(each_process_has_its_own_call_in_flight)
{
    struct emu_result r;
    emu(&r, "run", "--strace", program("proc"), "exec", NULL);
    ck_assert_int_eq(r.status, 0);
    char *fork = line_with(r.err, "fork(");
    char *exec = line_with(r.err, "execve(");
    char *wait = line_with(r.err, "wait4(");
#define STARTS(s, prefix) ((s) && !strncmp((s), prefix, strlen(prefix)))
    ck_assert_msg(STARTS(fork, "[sysenter/sysexit] fork()") && strstr(fork, " = 3 <"), "%s",
                  r.err);
    ck_assert_msg(STARTS(exec, "[pid     3] [sysenter/iret]    execve(\"/proc/self/exe\", "
                               "[\"renamed\", ") && strstr(exec, ") = 0 <"), "%s", r.err);
    ck_assert_msg(STARTS(wait, "[pid     2] [sysenter/sysexit] wait4(3, ") &&
                  strstr(wait, ") = 3 <"), "%s", r.err);
#undef STARTS
    ck_assert_msg(strstr(r.err, "[pid     3] [sysenter/exited]  exit_group(3) "), "%s", r.err);
    ck_assert_msg(strstr(r.err, "\n[pid     3]                    +++ exited with 3 +++\n"),
                  "%s", r.err);
    ck_assert_msg(strstr(r.err, "\n[pid     2]                    +++ exited with 0 +++\n"),
                  "%s", r.err);
    /* the wait spans the child's whole life, exec included: as time
     * switched out, not as its own cycles */
    const char *out = strstr(wait, ", +");
    long exec_cycles = atol(strrchr(exec, '<') + 1);
    ck_assert_msg(out && strstr(wait, " switched out>"), "%s", wait);
    ck_assert_int_gt(atol(out + 3), exec_cycles);
    ck_assert_int_lt(atol(strrchr(wait, '<') + 1), exec_cycles);
    free(fork);
    free(exec);
    free(wait);
    emu_result_free(&r);
}
END_TEST

Suite *strace_suite(void)
{
    Suite *s = suite_create("strace");
    TCase *tc = tcase_create("lines");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, tree_make, tree_remove);
    tcase_add_test(tc, strace_of_a_fixed_program_is_exactly_this);
    tcase_add_test(tc, strace_lines_are_debian_strace_lines);
    tcase_add_test(tc, signals_are_the_lines_strace_prints);
    tcase_add_test(tc, time_switched_out_is_shown_apart);
    tcase_add_loop_test(tc, a_fatal_fault_is_the_signal_line_strace_prints, 0,
                        sizeof fault_cases / sizeof fault_cases[0]);
    tcase_add_test(tc, trace_expressions_choose_calls_and_classes);
    tcase_add_loop_test(tc, a_bad_trace_expression_is_a_usage_error, 0, 4);
    tcase_add_test(tc, strace_names_paths_and_the_entry_path);
    tcase_add_test(tc, a_long_buffer_is_cut_at_32_bytes_and_a_path_is_not);
    tcase_add_test(tc, memory_ring3_cannot_read_is_shown_as_its_address);
    tcase_add_test(tc, several_processes_get_strace_f_pid_column);
    tcase_add_test(tc, each_process_has_its_own_call_in_flight);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(strace_suite());
}
