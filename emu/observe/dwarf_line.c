#include "observe/dwarf_line.h"
#include "image/elf32.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits on what one table holds: beyond them the file is refused. */
#define MAX_ROWS (1u << 24)
#define MAX_FILES (1u << 20)
#define MAX_STRINGS (64u << 20)
#define MAX_UNIT_ENTRIES 65536   /* directories or files of one unit */
#define MAX_FORMATS 16           /* fields of a version 5 directory or file entry */
#define MAX_PATH 4096

/* DWARF 5, 7.22: the standard and extended opcodes */
enum {
    LNS_copy = 1, LNS_advance_pc, LNS_advance_line, LNS_set_file, LNS_set_column,
    LNS_negate_stmt, LNS_set_basic_block, LNS_const_add_pc, LNS_fixed_advance_pc,
    LNS_set_prologue_end, LNS_set_epilogue_begin, LNS_set_isa,
};
enum { LNE_end_sequence = 1, LNE_set_address = 2 };
/* 7.22: the content of a version 5 directory or file entry's field */
enum { LNCT_path = 1, LNCT_directory_index = 2 };
/* 7.5.6: the forms those fields come in */
enum {
    FORM_data2 = 0x05, FORM_data4 = 0x06, FORM_data8 = 0x07, FORM_string = 0x08,
    FORM_block = 0x09, FORM_data1 = 0x0b, FORM_sdata = 0x0d, FORM_strp = 0x0e,
    FORM_udata = 0x0f, FORM_strx = 0x1a, FORM_data16 = 0x1e, FORM_line_strp = 0x1f,
    FORM_strx1 = 0x25, FORM_strx2 = 0x26, FORM_strx3 = 0x27, FORM_strx4 = 0x28,
};

/* ---- reading bytes: a cursor that goes bad instead of past its end ---- */

struct cursor {
    const uint8_t *p, *end;
    bool bad;
};

static size_t left(const struct cursor *c)
{
    return c->bad ? 0 : (size_t)(c->end - c->p);
}

static const uint8_t *take(struct cursor *c, size_t n)
{
    if (left(c) < n) {
        c->bad = true;
        c->p = c->end;
        return NULL;
    }
    const uint8_t *at = c->p;
    c->p += n;
    return at;
}

/* n (at most 8) bytes, little-endian */
static uint64_t fixed(struct cursor *c, size_t n)
{
    const uint8_t *b = take(c, n);
    uint64_t v = 0;
    for (size_t i = n; b && i > 0; i--)
        v = v << 8 | b[i - 1];
    return v;
}

/* LEB128: 7 bits a byte, low first, the top bit set on all but the last;
 * a signed one extends the last byte's bit 6. A cut one reads as 0. */
static uint64_t leb(struct cursor *c, bool is_signed)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        const uint8_t *b = take(c, 1);
        if (!b)
            return 0;
        if (shift < 64)
            v |= (uint64_t)(*b & 0x7f) << shift;
        if (!(*b & 0x80)) {
            if (is_signed && shift + 7 < 64 && (*b & 0x40))
                v |= ~(uint64_t)0 << (shift + 7);
            return v;
        }
    }
}

static uint64_t uleb(struct cursor *c)
{
    return leb(c, false);
}

static int64_t sleb(struct cursor *c)
{
    return (int64_t)leb(c, true);
}

/* A NUL-terminated string inside the cursor's bytes. */
static const char *cstring(struct cursor *c)
{
    const uint8_t *nul = left(c) ? memchr(c->p, 0, left(c)) : NULL;
    if (!nul) {
        c->bad = true;
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p = nul + 1;
    return s;
}

/* The string at off in a string section; NULL if it is not one. */
static const char *string_at(const uint8_t *sec, size_t size, uint64_t off)
{
    if (off >= size || !memchr(sec + off, 0, size - off))
        return NULL;
    return (const char *)sec + off;
}

/* ---- the table ---- */

static int add_row(struct line_table *t, uint64_t addr, uint32_t file, uint32_t line)
{
    if (addr > UINT32_MAX)
        return 0;   /* not i386 code: nothing to name */
    if (t->nrows == MAX_ROWS)
        return -1;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct line_row *r = realloc(t->rows, cap * sizeof *r);
        if (!r)
            return -1;
        t->rows = r;
        t->cap = cap;
    }
    t->rows[t->nrows] = (struct line_row){ (uint32_t)addr, file, line, (uint32_t)t->nrows };
    t->nrows++;
    return 0;
}

/* Add the path dir/name (name alone when it is absolute or dir is NULL or
 * empty; base/dir/name when dir is relative too). */
static int add_file(struct line_table *t, const char *base, const char *dir, const char *name)
{
    char path[MAX_PATH];
    int n;
    if (!name)
        name = "???";
    if (name[0] == '/' || !dir || !dir[0])
        n = snprintf(path, sizeof path, "%s", name);
    else if (dir[0] == '/' || !base || !base[0])
        n = snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        n = snprintf(path, sizeof path, "%s/%s/%s", base, dir, name);
    size_t len = (size_t)n + 1;
    if (n < 0 || len > sizeof path || t->nfiles == MAX_FILES || t->slen + len > MAX_STRINGS)
        return -1;
    if (t->nfiles == t->fcap) {
        size_t cap = t->fcap ? t->fcap * 2 : 64;
        uint32_t *f = realloc(t->files, cap * sizeof *f);
        if (!f)
            return -1;
        t->files = f;
        t->fcap = cap;
    }
    if (t->slen + len > t->scap) {
        size_t cap = t->scap ? t->scap : 4096;
        while (cap < t->slen + len)
            cap *= 2;
        char *s = realloc(t->strings, cap);
        if (!s)
            return -1;
        t->strings = s;
        t->scap = cap;
    }
    memcpy(t->strings + t->slen, path, len);
    t->files[t->nfiles++] = (uint32_t)t->slen;
    t->slen += len;
    return 0;
}

/* ---- one unit's header ---- */

struct sections {
    const uint8_t *line_str, *str;
    size_t line_str_size, str_size;
};

struct unit {
    unsigned version, offset_size;
    uint8_t min_insn, max_ops, line_range, opcode_base;
    int8_t line_base;
    const uint8_t *std_lengths;     /* opcode_base - 1 of them */
    const char **dirs;
    uint32_t ndirs;
    uint32_t first_file, nfiles;    /* the unit's files in the table */
    unsigned file_base;             /* the number of its first file: 0 (v5) or 1 */
};

/* A string-valued form (version 5 entries): the string, or NULL for an
 * index into .debug_str_offsets, which is not read. */
static const char *string_form(struct cursor *c, uint64_t form, const struct unit *u,
                               const struct sections *s)
{
    switch (form) {
    case FORM_string:
        return cstring(c);
    case FORM_line_strp:
    case FORM_strp: {
        uint64_t off = fixed(c, u->offset_size);
        const char *str = form == FORM_strp ? string_at(s->str, s->str_size, off)
                                            : string_at(s->line_str, s->line_str_size, off);
        if (!str)
            c->bad = true;
        return str;
    }
    case FORM_strx:
        uleb(c);
        return NULL;
    default:
        take(c, form - FORM_strx1 + 1);   /* strx1 ... strx4 */
        return NULL;
    }
}

/* One field of a version 5 entry: a string (*str) or a number (*num).
 * -1 for a form these fields do not come in. */
static int read_form(struct cursor *c, uint64_t form, const struct unit *u,
                     const struct sections *s, const char **str, uint64_t *num)
{
    static const uint8_t sizes[] = { [FORM_data1] = 1, [FORM_data2] = 2, [FORM_data4] = 4,
                                     [FORM_data8] = 8 };
    *str = NULL;
    *num = 0;
    if (form == FORM_string || form == FORM_line_strp || form == FORM_strp ||
        form == FORM_strx || (form >= FORM_strx1 && form <= FORM_strx4))
        *str = string_form(c, form, u, s);
    else if (form < sizeof sizes && sizes[form])
        *num = fixed(c, sizes[form]);
    else if (form == FORM_udata)
        *num = uleb(c);
    else if (form == FORM_sdata)
        sleb(c);
    else if (form == FORM_data16)
        take(c, 16);
    else if (form == FORM_block)
        take(c, uleb(c));
    else
        return -1;
    return c->bad ? -1 : 0;
}

struct format {
    uint64_t type, form;
};

static int read_formats(struct cursor *c, struct format *f, unsigned *n)
{
    *n = (unsigned)fixed(c, 1);
    if (*n > MAX_FORMATS)
        return -1;
    for (unsigned i = 0; i < *n; i++) {
        f[i].type = uleb(c);
        f[i].form = uleb(c);
    }
    return c->bad ? -1 : 0;
}

/* One version 5 directory or file entry: its path and directory index. */
static int read_entry(struct cursor *c, const struct format *f, unsigned n,
                      const struct unit *u, const struct sections *s, const char **path,
                      uint64_t *dir)
{
    *path = NULL;
    *dir = 0;
    for (unsigned i = 0; i < n; i++) {
        const char *str;
        uint64_t num;
        if (read_form(c, f[i].form, u, s, &str, &num))
            return -1;
        if (f[i].type == LNCT_path)
            *path = str;
        else if (f[i].type == LNCT_directory_index)
            *dir = num;
    }
    return 0;
}

/* A count of entries: no more than the bytes left (an entry without
 * fields says nothing, and may not make a count cost more than its bytes). */
static int entry_count(struct cursor *c, uint64_t *count)
{
    *count = uleb(c);
    if (c->bad || *count > MAX_UNIT_ENTRIES || *count > left(c))
        return -1;
    return 0;
}

static int v5_directories(struct cursor *c, struct unit *u, const struct sections *s)
{
    struct format f[MAX_FORMATS];
    unsigned n;
    uint64_t count, dir;
    if (read_formats(c, f, &n) || entry_count(c, &count))
        return -1;
    u->dirs = calloc(count ? count : 1, sizeof *u->dirs);
    if (!u->dirs)
        return -1;
    for (u->ndirs = 0; u->ndirs < count; u->ndirs++)
        if (read_entry(c, f, n, u, s, &u->dirs[u->ndirs], &dir))
            return -1;
    return 0;
}

/* The directory of a file, and the one a relative directory is under. */
static const char *dir_of(const struct unit *u, uint64_t index)
{
    return index < u->ndirs ? u->dirs[index] : NULL;
}

static int v5_files(struct cursor *c, struct line_table *t, struct unit *u,
                    const struct sections *s)
{
    struct format f[MAX_FORMATS];
    unsigned n;
    uint64_t count, dir;
    if (read_formats(c, f, &n) || entry_count(c, &count))
        return -1;
    for (uint64_t i = 0; i < count; i++) {
        const char *name;
        if (read_entry(c, f, n, u, s, &name, &dir) ||
            add_file(t, dir ? dir_of(u, 0) : NULL, dir_of(u, dir), name))
            return -1;
    }
    u->nfiles = (uint32_t)count;
    return 0;
}

/* Versions 2 to 4: include_directories, then file_names, each list ended
 * by an empty entry. Directory 0, the compilation's, is not in the table:
 * a name under it stays relative. */
static int v4_directories(struct cursor *c, struct unit *u)
{
    size_t cap = 16;
    u->dirs = calloc(cap, sizeof *u->dirs);
    u->ndirs = 1;
    while (u->dirs) {
        const char *d = cstring(c);
        if (!d || !d[0])
            return d ? 0 : -1;
        if (u->ndirs == MAX_UNIT_ENTRIES)
            return -1;
        if (u->ndirs == cap) {
            const char **more = realloc(u->dirs, 2 * cap * sizeof *more);
            if (!more)
                return -1;
            u->dirs = more;
            cap *= 2;
        }
        u->dirs[u->ndirs++] = d;
    }
    return -1;
}

static int v4_files(struct cursor *c, struct line_table *t, struct unit *u)
{
    for (;;) {
        const char *name = cstring(c);
        if (!name || !name[0])
            return name ? 0 : -1;
        uint64_t dir = uleb(c);
        uleb(c);   /* modification time */
        uleb(c);   /* length */
        if (c->bad || u->nfiles == MAX_UNIT_ENTRIES || add_file(t, NULL, dir_of(u, dir), name))
            return -1;
        u->nfiles++;
    }
}

/* The header's fixed fields after header_length. */
static int header_fields(struct cursor *c, struct unit *u)
{
    u->min_insn = (uint8_t)fixed(c, 1);
    u->max_ops = u->version >= 4 ? (uint8_t)fixed(c, 1) : 1;
    fixed(c, 1);   /* default_is_stmt: every row is used */
    u->line_base = (int8_t)fixed(c, 1);
    u->line_range = (uint8_t)fixed(c, 1);
    u->opcode_base = (uint8_t)fixed(c, 1);
    u->std_lengths = u->opcode_base ? take(c, u->opcode_base - 1u) : NULL;
    if (c->bad || !u->line_range || !u->opcode_base || !u->max_ops)
        return -1;
    return 0;
}

/* The header: c covers the unit after its version, and is left at the
 * header's end; prog is the program, up to the unit's end. */
static int read_header(struct cursor *c, struct cursor *prog, struct line_table *t,
                       struct unit *u, const struct sections *s)
{
    if (u->version >= 5 && fixed(c, 1) != 4)   /* address_size; segment_selector_size */
        return -1;
    if (u->version >= 5)
        fixed(c, 1);
    uint64_t header_length = fixed(c, u->offset_size);
    if (c->bad || header_length > left(c))
        return -1;
    *prog = (struct cursor){ c->p + header_length, c->end, false };
    c->end = c->p + header_length;
    u->first_file = (uint32_t)t->nfiles;
    u->file_base = u->version >= 5 ? 0 : 1;
    if (header_fields(c, u))
        return -1;
    if (u->version >= 5)
        return v5_directories(c, u, s) || v5_files(c, t, u, s) ? -1 : 0;
    return v4_directories(c, u) || v4_files(c, t, u) ? -1 : 0;
}

/* ---- the line-number program ---- */

struct state {
    uint64_t addr, file, line;
    uint32_t op_index;
    uint32_t bias;
};

static void reset(struct state *st)
{
    uint32_t bias = st->bias;
    *st = (struct state){ .file = 1, .line = 1, .bias = bias };
}

static void advance(struct state *st, const struct unit *u, uint64_t ops)
{
    uint64_t total = st->op_index + ops;
    st->addr += u->min_insn * (total / u->max_ops);
    st->op_index = (uint32_t)(total % u->max_ops);
}

static int emit(struct line_table *t, const struct unit *u, const struct state *st)
{
    uint32_t file = LINE_END;
    if (st->file >= u->file_base && st->file - u->file_base < u->nfiles)
        file = u->first_file + (uint32_t)(st->file - u->file_base);
    return add_row(t, st->addr + st->bias, file, (uint32_t)st->line);
}

static int extended(struct cursor *c, struct line_table *t, struct state *st)
{
    uint64_t len = uleb(c);
    const uint8_t *body = len ? take(c, len) : NULL;
    if (!body)
        return -1;
    struct cursor b = { body + 1, body + len, false };
    switch (body[0]) {
    case LNE_end_sequence: {
        int rc = add_row(t, st->addr + st->bias, LINE_END, 0);
        reset(st);
        return rc;
    }
    case LNE_set_address:
        if (len - 1 > 8)
            return -1;
        st->addr = fixed(&b, len - 1);
        st->op_index = 0;
        return 0;
    default:   /* define_file, set_discriminator, a vendor's: not needed */
        return 0;
    }
}

static void standard(struct cursor *c, const struct unit *u, struct state *st, uint8_t op)
{
    switch (op) {
    case LNS_advance_pc:
        advance(st, u, uleb(c));
        break;
    case LNS_advance_line:
        st->line += (uint64_t)sleb(c);
        break;
    case LNS_set_file:
        st->file = uleb(c);
        break;
    case LNS_const_add_pc:
        advance(st, u, (255u - u->opcode_base) / u->line_range);
        break;
    case LNS_fixed_advance_pc:
        st->addr += fixed(c, 2);
        st->op_index = 0;
        break;
    case LNS_set_column:
    case LNS_set_isa:
        uleb(c);
        break;
    case LNS_negate_stmt:
    case LNS_set_basic_block:
    case LNS_set_prologue_end:
    case LNS_set_epilogue_begin:
        break;
    default:   /* an opcode this reader does not know: skip its operands */
        for (unsigned i = 0; i < u->std_lengths[op - 1]; i++)
            uleb(c);
    }
}

static int run_program(struct cursor *c, struct line_table *t, const struct unit *u,
                       uint32_t bias)
{
    struct state st = { .bias = bias };
    reset(&st);
    while (left(c)) {
        uint8_t op = *take(c, 1);
        int rc = 0;
        if (op >= u->opcode_base) {
            unsigned adjusted = op - u->opcode_base;
            advance(&st, u, adjusted / u->line_range);
            st.line += (uint64_t)(int64_t)(u->line_base + (int)(adjusted % u->line_range));
            rc = emit(t, u, &st);
        } else if (op == 0) {
            rc = extended(c, t, &st);
        } else if (op == LNS_copy) {
            rc = emit(t, u, &st);
        } else {
            standard(c, u, &st, op);
        }
        if (rc || c->bad)
            return -1;
    }
    return 0;
}

/* ---- units, sections, files ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* One unit at c, which is left after it. */
static int read_unit(struct cursor *c, struct line_table *t, const struct sections *s,
                     uint32_t bias)
{
    struct unit u = { .offset_size = 4 };
    uint64_t length = fixed(c, 4);
    if (length == 0xffffffff) {
        u.offset_size = 8;
        length = fixed(c, 8);
    }
    const uint8_t *body = c->bad ? NULL : take(c, length);
    if (!body)
        return -1;
    struct cursor h = { body, body + length, false }, prog;
    u.version = (unsigned)fixed(&h, 2);
    int rc = u.version < 2 || u.version > 5 || read_header(&h, &prog, t, &u, s) ||
             run_program(&prog, t, &u, bias) ? -1 : 0;
    free(u.dirs);
    return rc;
}

static int by_addr(const void *a, const void *b)
{
    const struct line_row *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    /* at one address a sequence's end comes before what starts there */
    if ((x->file == LINE_END) != (y->file == LINE_END))
        return x->file == LINE_END ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int dwarf_line_parse(struct line_table *t, const uint8_t *line, size_t line_size,
                     const uint8_t *line_str, size_t line_str_size, const uint8_t *str,
                     size_t str_size, uint32_t bias, char *err, size_t errlen)
{
    const struct sections s = { line_str, str, line_str_size, str_size };
    size_t nrows = t->nrows, nfiles = t->nfiles, slen = t->slen;
    struct cursor c = { line, line + line_size, false };
    while (left(&c)) {
        size_t at = (size_t)(c.p - line);
        if (read_unit(&c, t, &s, bias)) {
            t->nrows = nrows;
            t->nfiles = nfiles;
            t->slen = slen;
            return fail(err, errlen, "malformed .debug_line (the unit at offset %#zx)", at);
        }
    }
    if (t->nrows)
        qsort(t->rows, t->nrows, sizeof *t->rows, by_addr);
    return 0;
}

/* The contents of the section called name: 1 if there is none, -1 if
 * it is not readable (outside the file, compressed). */
static int find_section(const struct elf32 *f, const char *name, const uint8_t **data,
                        size_t *len)
{
    Elf32_Shdr sh;
    *data = NULL;
    *len = 0;
    int rc = elf32_section_named(f, name, &sh);
    if (rc <= 0)
        return rc < 0 ? -1 : 1;
    if (!(*data = elf32_section_data(f, &sh)))
        return -1;
    *len = sh.sh_size;
    return 0;
}

int dwarf_line_load(struct line_table *t, const uint8_t *image, size_t size, uint32_t bias,
                    char *err, size_t errlen)
{
    struct elf32 f;
    const uint8_t *line, *line_str, *str;
    size_t line_size, line_str_size, str_size;
    if (!elf32_open(&f, image, size))
        return fail(err, errlen, size >= sizeof f.eh && !memcmp(image, ELFMAG, SELFMAG)
                                     ? "not an ELF32 file" : "not an ELF file");
    int rc = find_section(&f, ".debug_line", &line, &line_size);
    if (rc > 0)
        return 1;
    if (rc < 0 || find_section(&f, ".debug_line_str", &line_str, &line_str_size) < 0 ||
        find_section(&f, ".debug_str", &str, &str_size) < 0)
        return fail(err, errlen, "unreadable debug sections (outside the file or compressed)");
    return dwarf_line_parse(t, line, line_size, line_str, line_str_size, str, str_size, bias, err,
                            errlen);
}

bool line_table_find(const struct line_table *t, uint32_t addr, const char **file,
                     uint32_t *line)
{
    size_t lo = 0, hi = t->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || t->rows[lo - 1].file == LINE_END)
        return false;
    *file = t->strings + t->files[t->rows[lo - 1].file];
    *line = t->rows[lo - 1].line;
    return true;
}

void line_table_free(struct line_table *t)
{
    free(t->rows);
    free(t->files);
    free(t->strings);
    memset(t, 0, sizeof *t);
}
