#include "emu_gdb.h"
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "support.h"
#include "../emu/image/ksyms.h"

#define GDB "/usr/bin/gdb"

static char *drain_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (ssize_t n; (n = read(fd, buf + len, cap - len - 1)) > 0;) {
        len += (size_t)n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    return buf;
}

/* path argv..., stdin /dev/null, stdout and stderr into pipes (err may be
 * NULL: then both into out). */
static pid_t spawn(const char *path, char *const argv[], int *out, int *err)
{
    int o[2], e[2] = { -1, -1 };
    ck_assert_int_eq(pipe(o), 0);
    if (err)
        ck_assert_int_eq(pipe(e), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(o[1], 1);
        dup2(err ? e[1] : o[1], 2);
        close(o[0]);
        if (err)
            close(e[0]);
        setenv("DEBUGINFOD_URLS", "", 1);
        alarm(EMU_GDB_CHILD_SECONDS);   /* survives exec */
        execv(path, argv);
        _exit(127);
    }
    close(o[1]);
    *out = o[0];
    if (err) {
        close(e[1]);
        *err = e[0];
    }
    return pid;
}

void emu_gdb_start(struct emu_gdb *e, ...)
{
    const char *args[62];
    int n = 0;
    va_list ap;
    va_start(ap, e);
    for (const char *a; (a = va_arg(ap, const char *)) && n < 61;)
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    emu_gdb_start_list(e, args);
}

void emu_gdb_start_list(struct emu_gdb *e, const char *const *args)
{
    char *argv[64] = { (char *)EMU_PATH, (char *)"run" };
    int n = 2;
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    e->pid = spawn(EMU_PATH, argv, &e->out, &e->err);
    /* its first line on stderr names the port */
    char line[256];
    size_t len = 0;
    while (len < sizeof line - 1) {
        struct pollfd p = { .fd = e->err, .events = POLLIN };
        ck_assert_msg(poll(&p, 1, 20000) == 1, "emu said nothing for 20 s");
        if (read(e->err, line + len, 1) != 1 || line[len] == '\n')
            break;
        len++;
    }
    line[len] = 0;
    const char *p = strstr(line, "port "), *k = strstr(line, "kernel symbols: ");
    ck_assert_msg(p && sscanf(p, "port %u", &e->port) == 1, "emu said: %s", line);
    ck_assert_msg(k && sscanf(k, "kernel symbols: %63[^)]", e->kernel) == 1, "emu said: %s",
                  line);
}

int emu_gdb_finish(struct emu_gdb *e, char **out, char **err)
{
    int st;
    char *o = drain_fd(e->out), *r = drain_fd(e->err);
    close(e->out);
    close(e->err);
    ck_assert_int_eq(waitpid(e->pid, &st, 0), e->pid);
    if (out)
        *out = o;
    else
        free(o);
    if (err)
        *err = r;
    else
        free(r);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *gdb_batch(const struct emu_gdb *e, const char *prog, ...)
{
    const char *cmds[38];
    int n = 0;
    va_list ap;
    va_start(ap, prog);
    for (const char *c; (c = va_arg(ap, const char *)) && n < 37;)
        cmds[n++] = c;
    va_end(ap);
    cmds[n] = NULL;
    return gdb_batch_list(e, prog, cmds);
}

char *gdb_batch_list(const struct emu_gdb *e, const char *prog, const char *const *cmds)
{
    char target[64], symbols[256], kernel[256];
    snprintf(kernel, sizeof kernel, "%s/guest/%s", BUILD_DIR, e->kernel);
    char *argv[80] = { (char *)GDB, (char *)"-nx", (char *)"-batch", kernel };
    int n = 4, out, st;
    snprintf(target, sizeof target, "target remote 127.0.0.1:%u", e->port);
    argv[n++] = (char *)"-ex";
    argv[n++] = target;
    if (prog) {
        snprintf(symbols, sizeof symbols, "add-symbol-file %s/guest/programs/%s", BUILD_DIR,
                 prog);
        argv[n++] = (char *)"-ex";
        argv[n++] = symbols;
    }
    for (int i = 0; cmds[i] && n < 78; i++) {
        argv[n++] = (char *)"-ex";
        argv[n++] = (char *)cmds[i];
    }
    argv[n] = NULL;
    pid_t pid = spawn(GDB, argv, &out, NULL);
    char *text = drain_fd(out);
    close(out);
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st), "gdb died: %s", text);
    return text;
}

int emu_gdb_connect(const struct emu_gdb *e)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)e->port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void assert_has(const char *text, const char *needle)
{
    ck_assert_msg(strstr(text, needle), "\"%s\" not in:\n%s", needle, text);
}

uint32_t program_symbol(const char *prog, const char *name)
{
    FILE *f = fopen(program(prog), "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t image[1 << 20];
    size_t n = fread(image, 1, sizeof image, f);
    fclose(f);
    uint32_t a = ksym_find(image, n, name);
    ck_assert_msg(a, "%s has no %s", prog, name);
    return a;
}
