/* What the tests share: running emu and reading its output, the static
 * fixtures and the scratch tree for --root, a JSON checker. The machines
 * the tests drive in their own process are in machines.c. */
#include "support.h"
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *drain(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 1 >= cap)
            buf = realloc(buf, cap *= 2);
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = 0;
    return buf;
}

static void run_in(struct emu_result *r, const char *path, const char *const *argv,
                   const char *cwd, char *const *envp)
{
    int out[2], err[2];
    ck_assert(pipe(out) == 0 && pipe(err) == 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        /* descriptors 0-2 only: a native program's own (pipe2's numbers in
         * a recorded strace) must not depend on the test's */
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        if (envp) {
            /* the guest's starting point: the kernel's RLIMIT_NOFILE too */
            struct rlimit lim = { 1024, 1024 };
            setrlimit(RLIMIT_NOFILE, &lim);
        }
        if (envp)
            execve(path, (char *const *)argv, envp);
        else
            execvp(path, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    r->out = drain(out[0]);
    r->err = drain(err[0]);
    close(out[0]);
    close(err[0]);
    int st;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * Some host kernels run no i386 program (built or booted without 32-bit
 * support: ia32_emulation=off, and execve answers ENOEXEC). There the
 * reference is Debian's qemu-i386, which runs the same binary on the
 * host kernel's system calls; which one a run used is native_runner().
 */
#define QEMU_I386 "/usr/bin/qemu-i386"

bool native_is_host(void)
{
    static int known = -1;
    if (known < 0) {
        pid_t pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            char *const argv[] = { BUILD_DIR "/guest/programs/one_call", NULL };
            int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 1);
            dup2(devnull, 2);
            execv(argv[0], argv);
            _exit(errno == ENOEXEC ? 120 : 121);
        }
        int st;
        waitpid(pid, &st, 0);
        known = !(WIFEXITED(st) && WEXITSTATUS(st) == 120);
    }
    return known;
}

const char *native_runner(void)
{
    return native_is_host() ? "the host" : QEMU_I386;
}

void run_native(struct emu_result *r, const char *cwd, const char *const *argv)
{
    static char *const env[] = { "PATH=/usr/bin:/bin", "HOME=/", NULL };
    char path[512];
    /* a relative program name is the caller's, not cwd's */
    if (argv[0][0] != '/' && getcwd(path, sizeof path)) {
        strncat(path, "/", sizeof path - strlen(path) - 1);
        strncat(path, argv[0], sizeof path - strlen(path) - 1);
    } else {
        snprintf(path, sizeof path, "%s", argv[0]);
    }
    if (native_is_host()) {
        run_in(r, path, argv, cwd, env);
        return;
    }
    /* qemu-i386 -0 ARGV0 PATH ARGS...: the guest sees argv as given */
    const char *qargv[72] = { QEMU_I386, "-0", argv[0], path };
    int n = 4;
    for (int i = 1; argv[i] && n < 71; i++)
        qargv[n++] = argv[i];
    qargv[n] = NULL;
    ck_assert_msg(access(QEMU_I386, X_OK) == 0,
                  "this host runs no i386 program, and " QEMU_I386 " (qemu-user) is missing");
    run_in(r, QEMU_I386, qargv, cwd, env);
}

int run_emu_rusage(const char *const *argv, const char *out, struct rusage *ru)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        execv(EMU_PATH, (char *const *)argv);
        _exit(127);
    }
    int st;
    ck_assert_int_eq(wait4(pid, &st, 0, ru), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void run_command(struct emu_result *r, const char *const *argv)
{
    run_in(r, argv[0], argv, NULL, NULL);
}

void run_emu(struct emu_result *r, const char *const *args)
{
    const char *argv[64] = { EMU_PATH };
    int n = 1;
    while (args[n - 1] && n < 63) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    run_in(r, EMU_PATH, argv, NULL, NULL);
}

bool unicorn_at_least(unsigned major, unsigned minor)
{
    unsigned maj, min;
    uc_version(&maj, &min);
    return maj > major || (maj == major && min >= minor);
}

int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void emu_result_free(struct emu_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void emu(struct emu_result *r, ...)
{
    const char *args[33];
    int n = 0;
    va_list ap;
    va_start(ap, r);
    for (const char *a; (a = va_arg(ap, const char *)) && n < 32;)
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    run_emu(r, args);
}

int count_char(const char *s, char c)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == c;
    return n;
}

char *line_with(const char *text, const char *needle)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        if (strstr(copy, needle))
            return copy;
        free(copy);
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

long hex_after(const char *text, const char *key)
{
    const char *p = text ? strstr(text, key) : NULL;
    return p ? (long)strtoul(p + strlen(key), NULL, 16) : -1;
}

const char *program(const char *name)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 256, "%s/guest/programs/%s", BUILD_DIR, name);
    return p;
}

char *read_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    char *s = drain(fd);
    close(fd);
    return s;
}

const char *scratch(const char *tag)
{
    static char path[4][128];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "/tmp/sysemu_e2e_%d_%s", (int)getpid(), tag);
    return p;
}

/* ---- a copy of the tree for the check scripts ---- */

const char *copy_sources(const char *tag, const char *sources)
{
    static char dir[64];
    char cmd[256];
    snprintf(dir, sizeof dir, "/tmp/sysemu-%s-XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp -r %s %s/", sources, dir);
    ck_assert_int_eq(system(cmd), 0);
    return dir;
}

void copy_remove(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

void copy_append(const char *dir, const char *file, const char *line)
{
    char path[160];
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

int run_script(const char *script, const char *arg, char *out, size_t cap)
{
    char cmd[192];
    snprintf(cmd, sizeof cmd, "sh %s %s 2>&1", script, arg);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *jq(const char *filter, const char *path)
{
    const char *argv[] = { "jq", "-r", filter, path, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "jq '%s' %s failed (%d): %s", filter, path, r.status, r.err);
    free(r.err);
    return r.out;
}

bool parse_report(const char *err, struct report *rep)
{
    char *line = line_with(err, "emu: report: system calls: ");
    if (!line)
        return false;
    int got = sscanf(line, "emu: report: system calls: %ld via sysenter, %ld via int $0x80; "
                     "returns: %ld sysexit, %ld iret; %ld unknown", &rep->sysenter,
                     &rep->int80, &rep->sysexit, &rep->iret, &rep->unknown);
    free(line);
    return got == 5;
}

bool report_paths(const char *err, long *sysenter, long *int80, long *sysexits, long *irets)
{
    char *line = line_with(err, "emu: report: system calls: ");
    if (!line)
        return false;
    int got = sscanf(line, "emu: report: system calls: %ld via sysenter, %ld via int $0x80; "
                     "returns: %ld sysexit, %ld iret", sysenter, int80, sysexits, irets);
    free(line);
    return got == 4;
}

const char *fixture(const char *name)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    if (!strcmp(name, "busybox"))
        snprintf(p, 256, "%s/i386/root/bin/busybox", BUILD_DIR);
    else if (!strcmp(name, "zsh"))
        snprintf(p, 256, "%s/i386/root/bin/zsh-static", BUILD_DIR);
    else
        snprintf(p, 256, "%s/static/%s", BUILD_DIR, name);
    ck_assert_msg(access(p, X_OK) == 0, "fixture %s is missing: run make", p);
    return p;
}

/* ---- the scratch tree for --root ---- */

static char tree[256];
static char root[300];

const char *tree_dir(void)
{
    return tree;
}

const char *tree_root(void)
{
    return root;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void link_in(const char *target, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, name);
    ck_assert_int_eq(symlink(target, path), 0);
}

void tree_make(void)
{
    char path[512];
    snprintf(tree, sizeof tree, "/tmp/sysemu_static_%d", (int)getpid());
    snprintf(root, sizeof root, "%s/root", tree);
    tree_remove();   /* what a killed earlier run with our pid left */
    snprintf(path, sizeof path, "%s/sub", root);
    ck_assert_int_eq(mkdir(tree, 0755), 0);
    ck_assert_int_eq(mkdir(root, 0755), 0);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    write_file(tree, "secret.txt", SECRET "\n");
    write_file(root, "hello.txt", "hello from the tree\nsecond line\n");
    write_file(root, "sub/inner.txt", "inner\n");
    link_in("/etc/passwd", "abs-out");
    link_in("../secret.txt", "rel-out");
    snprintf(path, sizeof path, "%s/secret.txt", tree);
    link_in(path, "secret-abs");
    link_in("sub/inner.txt", "link-in");
    link_in("loop2", "loop1");
    link_in("loop1", "loop2");
    snprintf(path, sizeof path, "%s/fifo", root);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
}

void tree_remove(void)
{
    static const char *const names[] = {
        "root/sub/inner.txt", "root/sub", "root/hello.txt", "root/abs-out", "root/rel-out",
        "root/secret-abs", "root/link-in", "root/loop1", "root/loop2", "root/fifo", "root",
        "secret.txt",
    };
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tree, names[i]);
        if (unlink(path) != 0)
            rmdir(path);
    }
    rmdir(tree);
}

void no_secret(const struct emu_result *r)
{
    ck_assert_msg(!strstr(r->out, SECRET) && !strstr(r->err, SECRET),
                  "the secret outside the root leaked: %s%s", r->out, r->err);
    ck_assert_msg(!strstr(r->out, "root:x:0:0"), "/etc/passwd leaked: %s", r->out);
}

int count_lines_containing(const char *text, const char *needle)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        if (strstr(copy, needle))
            n++;
        free(copy);
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* ---- a small JSON checker: accepts exactly RFC 8259 values ---- */
static const char *json_value(const char *p);

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *json_string_at(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (!strchr("\"\\/bfnrtu", *p) || !*p)
                return NULL;
        }
        p++;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *json_number(const char *p)
{
    const char *start = p;
    if (*p == '-')
        p++;
    if (*p < '0' || *p > '9')
        return NULL;
    while ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
           *p == '+' || *p == '-')
        p++;
    return p > start ? p : NULL;
}

static const char *json_container(const char *p, char open, char close, bool object)
{
    if (*p++ != open)
        return NULL;
    p = ws(p);
    if (*p == close)
        return p + 1;
    for (;;) {
        p = ws(p);
        if (object) {
            if (!(p = json_string_at(p)))
                return NULL;
            p = ws(p);
            if (*p++ != ':')
                return NULL;
        }
        if (!(p = json_value(ws(p))))
            return NULL;
        p = ws(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *json_value(const char *p)
{
    p = ws(p);
    switch (*p) {
    case '{': return json_container(p, '{', '}', true);
    case '[': return json_container(p, '[', ']', false);
    case '"': return json_string_at(p);
    case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
    case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
    case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
    default: return json_number(p);
    }
}

bool json_valid(const char *text)
{
    const char *end = json_value(text);
    return end && *ws(end) == 0;
}
