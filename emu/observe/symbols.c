#define _GNU_SOURCE /* qsort_r */
#include "observe/symbols.h"
#include "machine/machine.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/engine.h"
#include "image/elf32.h"
#include "image/ksyms.h"

#define MAX_SYMBOL_FILE (512u << 20)
#define TRAMPOLINE_SIZE 16

int symtab_add(struct symtab *st, const char *name, uint32_t addr, uint32_t end, unsigned flags)
{
    size_t len = strlen(name) + 1;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 256;
        struct symbol *v = realloc(st->v, cap * sizeof *v);
        if (!v)
            return -1;
        st->v = v;
        st->cap = cap;
    }
    if (st->slen + len > st->scap) {
        size_t cap = st->scap ? st->scap * 2 : 4096;
        while (cap < st->slen + len)
            cap *= 2;
        char *s = realloc(st->strings, cap);
        if (!s)
            return -1;
        st->strings = s;
        st->scap = cap;
    }
    memcpy(st->strings + st->slen, name, len);
    st->v[st->n++] = (struct symbol){ addr, end, (uint32_t)st->slen, (uint8_t)flags };
    st->slen += len;
    return 0;
}

/* Which symbol names an address several share: a function before a
 * label, then a name without a leading underscore (startup_32, not _text). */
static int rank(const struct symtab *st, const struct symbol *s)
{
    return (s->flags & SYM_FUNC ? 0 : 2) + (st->strings[s->name] == '_' ? 1 : 0);
}

static int by_addr(const void *a, const void *b, void *ctx)
{
    const struct symtab *st = ctx;
    const struct symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    int rx = rank(st, x), ry = rank(st, y);
    if (rx != ry)
        return rx - ry;
    return strcmp(st->strings + x->name, st->strings + y->name);
}

void symtab_finish(struct symtab *st)
{
    st->generation++;
    if (!st->n)
        return;
    qsort_r(st->v, st->n, sizeof *st->v, by_addr, st);
    /* one symbol per address; each ends where the next begins */
    size_t k = 0;
    for (size_t i = 0; i < st->n; i++)
        if (!k || st->v[i].addr != st->v[k - 1].addr)
            st->v[k++] = st->v[i];
    st->n = k;
    for (size_t i = 0; i + 1 < st->n; i++)
        if (st->v[i].end > st->v[i + 1].addr)
            st->v[i].end = st->v[i + 1].addr;
}

const struct symbol *symtab_lookup(const struct symtab *st, uint32_t addr)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->v[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const struct symbol *s = &st->v[lo - 1];
    return addr < s->end ? s : NULL;
}

const char *symtab_name(const struct symtab *st, const struct symbol *s)
{
    return st->strings + s->name;
}

const char *symtab_format(const struct symtab *st, uint32_t addr, char *buf, size_t n)
{
    const struct symbol *s = symtab_lookup(st, addr);
    if (!s)
        snprintf(buf, n, "%s", "");
    else if (addr == s->addr)
        snprintf(buf, n, "%s", symtab_name(st, s));
    else
        snprintf(buf, n, "%s+%#x", symtab_name(st, s), addr - s->addr);
    return buf;
}

/* Symbol i answers for addr only if symtab_lookup would find it too: the
 * last symbol (of the sorted table) starting at or below addr. */
static const struct symbol *lookup_near(const struct symtab *st, uint32_t addr, size_t i)
{
    if (i < st->n && st->v[i].addr <= addr && addr < st->v[i].end &&
        (i + 1 == st->n || addr < st->v[i + 1].addr))
        return &st->v[i];
    return symtab_lookup(st, addr);
}

const char *symtab_format_near(const struct symtab *st, uint32_t addr, char *buf, size_t n,
                               size_t *last)
{
    static const char digits[] = "0123456789abcdef";
    const struct symbol *s = lookup_near(st, addr, *last);
    size_t k = 0;
    if (s)
        *last = (size_t)(s - st->v);
    if (n == 0)
        return buf;
    if (s) {
        const char *name = symtab_name(st, s);
        while (*name && k + 1 < n)
            buf[k++] = *name++;
        uint32_t off = addr - s->addr;
        if (off) {
            char hex[12] = "+0x";
            int h = 3, bits = 28;
            while (bits > 0 && !(off >> bits & 15))
                bits -= 4;
            for (; bits >= 0; bits -= 4)
                hex[h++] = digits[off >> bits & 15];
            for (int i = 0; i < h && k + 1 < n; i++)
                buf[k++] = hex[i];
        }
    }
    buf[k] = 0;
    return buf;
}

void symtab_free(struct symtab *st)
{
    free(st->v);
    free(st->strings);
    free(st->pie);
    line_table_free(&st->lines);
    memset(st, 0, sizeof *st);
}

bool symtab_line(const struct symtab *st, uint32_t addr, const char **file, uint32_t *line)
{
    return line_table_find(&st->lines, addr, file, line);
}

/* The source lines of an image, if wanted; a malformed table is noted. */
static void add_lines(struct symtab *st, const uint8_t *image, size_t size, uint32_t bias,
                      const char *what)
{
    char err[160];
    if (st->want_lines && dwarf_line_load(&st->lines, image, size, bias, err, sizeof err) < 0)
        snprintf(st->lines_note, sizeof st->lines_note,
                 "%s: %s: its code is named by function only", what, err);
}

/* Functions and labels in executable sections, each up to the end of its
 * section at most; not the assembler's local labels (.L...). */
int symtab_add_elf(struct symtab *st, const uint8_t *image, size_t size, uint32_t bias,
                   unsigned flags)
{
    struct elf32 f;
    Elf32_Shdr syms, strs, in;
    Elf32_Sym sym;
    if (!elf32_open(&f, image, size) || f.eh.e_machine != EM_386 ||
        !elf32_in_file(&f, f.eh.e_shoff, (uint64_t)f.eh.e_shnum * sizeof in) ||
        !elf32_symtab(&f, &syms, &strs))
        return -1;
    int found = -1;
    for (uint32_t j = 0; elf32_symbol(&f, &syms, j, &sym); j++) {
        int type = ELF32_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_NOTYPE) || sym.st_shndx == SHN_UNDEF ||
            !elf32_section(&f, sym.st_shndx, &in))
            continue;
        const char *name = elf32_string(&f, &strs, sym.st_name);
        uint64_t end = (uint64_t)in.sh_addr + in.sh_size + bias;
        if (!(in.sh_flags & SHF_EXECINSTR) || !name || !name[0] || !strncmp(name, ".L", 2) ||
            sym.st_value < in.sh_addr || sym.st_value - in.sh_addr >= in.sh_size ||
            end > UINT32_MAX)
            continue;
        if (symtab_add(st, name, sym.st_value + bias, (uint32_t)end,
                       flags | (type == STT_FUNC ? SYM_FUNC : 0)))
            return -1;
        found = 0;
    }
    return found;
}

static uint8_t *read_whole(const char *path, size_t *size, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > MAX_SYMBOL_FILE) {
        snprintf(err, errlen, "cannot read symbols from %s: %s", path,
                 fd < 0 || errno ? strerror(errno) : "not a regular file under 512 MiB");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    uint8_t *buf = malloc((size_t)sb.st_size + 1);
    size_t done = 0;
    while (buf && done < (size_t)sb.st_size) {
        ssize_t n = read(fd, buf + done, (size_t)sb.st_size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    if (!buf || done != (size_t)sb.st_size) {
        snprintf(err, errlen, "cannot read symbols from %s", path);
        free(buf);
        return NULL;
    }
    *size = done;
    return buf;
}

/* The program's symbols (and lines) now, or (position-independent) once
 * it runs. */
static int add_program(struct symtab *st, const uint8_t *image, size_t size, bool own,
                       const char *what)
{
    struct elf32 f;
    if (elf32_open(&f, image, size) && f.eh.e_type == ET_DYN) {
        st->pie = own ? (uint8_t *)image : malloc(size);
        if (!st->pie)
            return -1;
        if (!own)
            memcpy(st->pie, image, size);
        st->pie_size = size;
        st->pie_entry = f.eh.e_entry;
        st->pie_name = what;
        return 0;
    }
    int rc = symtab_add_elf(st, image, size, 0, 0);
    add_lines(st, image, size, 0, what);
    if (own)
        free((void *)image);
    return rc;
}

int symbols_load(struct symtab *st, const struct machine *m, const char *symbols_file,
                 char *err, size_t errlen)
{
    const struct run_options *o = m->opts;
    size_t ksize = (size_t)(m->kernel->end - m->kernel->start);
    symtab_add_elf(st, m->kernel->start, ksize, 0, SYM_KERNEL);
    add_lines(st, m->kernel->start, ksize, 0, "the built-in kernel");
    /* the page's entry to the next thing on the page: the ELF image in
     * the second half before 2.6.0, or 2.6.0's sigreturn stub */
    uint32_t entry = ksym_find(m->kernel->start, ksize, "vsyscall_page_entry");
    uint32_t base = ksym_find(m->kernel->start, ksize, "vsyscall_page_base");
    uint32_t sigreturn = ksym_find(m->kernel->start, ksize, "vsyscall_page_sigreturn");
    if (!entry || !base || !sigreturn) {
        entry = base = VSYSCALL_BASE;
        sigreturn = VSYSCALL_BASE + VSYSCALL_SIGRETURN_OFFSET;
    }
    symtab_add(st, "__kernel_vsyscall", entry,
               entry == base ? base + VSYSCALL_EHDR_OFFSET : sigreturn, 0);
    if (symbols_file) {
        size_t size;
        uint8_t *image = read_whole(symbols_file, &size, err, errlen);
        if (!image)
            return -1;
        if (add_program(st, image, size, true, symbols_file)) {
            snprintf(err, errlen, "%s: not an i386 ELF file with a symbol table", symbols_file);
            return -1;
        }
    } else if (o && o->harness.program_image) {
        add_program(st, o->harness.program_image, o->harness.program_size, false, o->program ? o->program : "the program");
    } else if (o && o->program) {
        size_t size;
        char ignored[256];
        uint8_t *image = read_whole(o->program, &size, ignored, sizeof ignored);
        if (image)
            add_program(st, image, size, true, o->program);   /* a stripped program has none */
    }
    symtab_finish(st);
    return 0;
}

void symbols_note_start(struct symtab *st, uint32_t eip)
{
    if (!st->pie)
        return;
    symtab_add_elf(st, st->pie, st->pie_size, eip - st->pie_entry, 0);
    add_lines(st, st->pie, st->pie_size, eip - st->pie_entry, st->pie_name);
    free(st->pie);
    st->pie = NULL;
    symtab_finish(st);
}

void symbols_note_sysenter(struct symtab *st, struct machine *m)
{
    if (st->sysenter_noted)
        return;
    st->sysenter_noted = true;
    uint32_t eip = (uint32_t)engine_read_msr(m->uc, MSR_IA32_SYSENTER_EIP);
    if (eip && !symtab_lookup(st, eip)) {
        symtab_add(st, "sysenter_trampoline", eip, eip + TRAMPOLINE_SIZE, SYM_KERNEL);
        symtab_finish(st);
    }
}
