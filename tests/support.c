#include "support.h"
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

void run_emu(struct emu_result *r, const char *const *args)
{
    int out[2], err[2];
    const char *argv[64] = { EMU_PATH };
    int n = 1;
    while (args[n - 1] && n < 63) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
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
        execv(EMU_PATH, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    /* stderr is small; read stdout first, then stderr */
    r->out = drain(out[0]);
    r->err = drain(err[0]);
    close(out[0]);
    close(err[0]);
    int st;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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

/* ---- a guest program in this process ---- */

struct guest *guest_new(const char *cpu, const char *prog, ...)
{
    struct guest *g = calloc(1, sizeof *g);
    ck_assert_ptr_nonnull(g);
    g->opts.cpu_spec = cpu;
    g->opts.max_insns = 100000000;
    g->opts.epoch_sec = 1040103547u;
    g->opts.quiet = true;
    g->opts.program = program(prog);
    g->argv[0] = (char *)prog;
    int argc = 1;
    va_list ap;
    va_start(ap, prog);
    for (const char *a; argc < 7 && (a = va_arg(ap, const char *));)
        g->argv[argc++] = (char *)a;
    va_end(ap);
    g->opts.argc = argc;
    g->opts.argv = g->argv;
    g->opts.envp = g->envp;
    ck_assert_int_eq(machine_init(&g->m, &g->opts), 0);
    ck_assert_int_eq(syscalls_attach(&g->sys, &g->m), 0);
    return g;
}

int guest_run(struct guest *g)
{
    return machine_run(&g->m);
}

void guest_free(struct guest *g)
{
    machine_destroy(&g->m);
    free(g);
}

/* ---- bare machine ---- */
static const uint64_t patch_gdt[26] = {
    [12] = 0x00cf9a000000ffffull, [13] = 0x00cf92000000ffffull,
    [14] = 0x00cffa000000ffffull, [15] = 0x00cff2000000ffffull,
};

void bare_init(struct bare *b, const char *cpu_spec)
{
    memset(b, 0, sizeof *b);
    b->opts.cpu_spec = cpu_spec;
    b->opts.max_insns = 1000000;
    ck_assert_int_eq(machine_init_bare(&b->m, &b->opts), 0);
    ck_assert_int_eq(syscalls_attach(&b->sys, &b->m), 0);
    uint64_t gdt[32] = { 0 };
    memcpy(gdt, patch_gdt, sizeof patch_gdt);
    uint32_t tss = BARE_TSS;
    gdt[16] = (103 & 0xffff) | ((uint64_t)(tss & 0xffffff) << 16) | ((uint64_t)(X86_AR_P | X86_TYPE_TSS32) << X86_DESC_ACCESS_SHIFT) |
              ((uint64_t)(tss >> 24) << 56);
    bare_write(b, BARE_GDT, gdt, sizeof gdt);
    uint32_t tss_words[26] = { 0 };
    tss_words[1] = BARE_KSTACK;
    tss_words[2] = __KERNEL_DS;
    bare_write(b, BARE_TSS, tss_words, sizeof tss_words);
    for (int v = 0; v < 256; v++) {
        uint8_t hlt = 0xf4;
        bare_write(b, BARE_HANDLER + 16 * (uint32_t)v, &hlt, 1);
        bare_set_gate(b, v, X86_TYPE_TRAP_GATE32, 0);
    }
    uc_x86_mmr gdtr = { .base = BARE_GDT, .limit = sizeof gdt - 1 };
    uc_x86_mmr idtr = { .base = BARE_IDT, .limit = 256 * 8 - 1 };
    uc_x86_mmr tr = { .selector = __TSS_SEL, .base = BARE_TSS, .limit = 103,
                      .flags = X86_AR_P | X86_TYPE_TSS32 };
    uc_reg_write(b->m.uc, UC_X86_REG_GDTR, &gdtr);
    uc_reg_write(b->m.uc, UC_X86_REG_IDTR, &idtr);
    uc_reg_write(b->m.uc, UC_X86_REG_TR, &tr);
    uint32_t kcs = __KERNEL_CS, kds = __KERNEL_DS;
    ck_assert_int_eq(uc_reg_write(b->m.uc, UC_X86_REG_CS, &kcs), UC_ERR_OK);
    ck_assert_int_eq(uc_reg_write(b->m.uc, UC_X86_REG_SS, &kds), UC_ERR_OK);
    uc_reg_write(b->m.uc, UC_X86_REG_DS, &kds);
    uc_reg_write(b->m.uc, UC_X86_REG_ES, &kds);
}

void bare_destroy(struct bare *b)
{
    machine_destroy(&b->m);
}

void bare_set_gate(struct bare *b, int vector, int type, int dpl)
{
    uint32_t off = BARE_HANDLER + 16 * (uint32_t)vector;
    uint64_t gate = (off & 0xffff) | ((uint64_t)__KERNEL_CS << 16) |
                    ((uint64_t)(X86_AR_P | (dpl << X86_AR_DPL_SHIFT) | type) << X86_DESC_ACCESS_SHIFT) |
                    ((uint64_t)(off >> 16) << 48);
    bare_write(b, BARE_IDT + 8 * (uint32_t)vector, &gate, 8);
}

void bare_write(struct bare *b, uint32_t addr, const void *bytes, size_t n)
{
    ck_assert_int_eq(uc_mem_write(b->m.uc, addr, bytes, n), UC_ERR_OK);
}

/* Enter ring 3 the way an OS does: iret from ring 0 with a user frame. */
void bare_run(struct bare *b, uint32_t eip, bool user)
{
    uint32_t start = eip;
    if (user) {
        uint32_t frame[5] = { eip, __USER_CS, X86_EFLAGS_IF | X86_EFLAGS_FIXED, BARE_USTACK,
                              __USER_DS };
        uint8_t iret[] = { 0xcf };
        uint32_t kesp = BARE_KSTACK - 0x100;
        bare_write(b, kesp, frame, sizeof frame);
        bare_write(b, BARE_HANDLER - 16, iret, sizeof iret);
        reg_write(&b->m, UC_X86_REG_ESP, kesp);
        start = BARE_HANDLER - 16;
    } else {
        reg_write(&b->m, UC_X86_REG_ESP, BARE_KSTACK - 0x200);
    }
    reg_write(&b->m, UC_X86_REG_EIP, start);
    machine_run(&b->m);
}

uint32_t bare_reg(struct bare *b, int reg)
{
    return reg_read(&b->m, reg);
}

uint32_t bare_u32(struct bare *b, uint32_t addr)
{
    uint32_t v = 0;
    uc_mem_read(b->m.uc, addr, &v, 4);
    return v;
}

int bare_halted_vector(struct bare *b)
{
    /* hlt leaves EIP after the instruction */
    uint32_t eip = bare_reg(b, UC_X86_REG_EIP) - 1;
    if (eip < BARE_HANDLER || eip >= BARE_HANDLER + 16 * 256 || (eip - BARE_HANDLER) % 16)
        return -1;
    return (int)((eip - BARE_HANDLER) / 16);
}
