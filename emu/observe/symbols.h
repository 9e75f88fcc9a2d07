/*
 * Code symbols, to name guest addresses: the built-in kernel's symbol
 * table, the program's (its ELF file, or another file with the symbols of
 * a stripped one), and names for code that no ELF file describes: the
 * vsyscall page (__kernel_vsyscall) and the per-CPU sysenter trampoline
 * the kernel writes at boot. An address belongs to the nearest symbol at or
 * below it in the same section, so labels inside a function
 * (syscall_call in system_call) name their part of it.
 */
#ifndef EMU_SYMBOLS_H
#define EMU_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "observe/dwarf_line.h"
struct machine;

#define SYM_FUNC   0x1   /* an ELF function (not a label) */
#define SYM_KERNEL 0x2   /* ring-0 code: the kernel and its trampoline */

struct symbol {
    uint32_t addr, end;   /* [addr, end): up to the next symbol or section end */
    uint32_t name;        /* offset in the strings */
    uint8_t flags;
};

struct symtab {
    struct symbol *v;
    size_t n, cap;
    char *strings;
    size_t slen, scap;
    bool sysenter_noted;
    uint8_t *pie;              /* a position-independent program's image, */
    size_t pie_size;           /* whose symbols wait for its load address */
    uint32_t pie_entry;
    const char *pie_name;      /* its file, for lines_note */
    uint32_t generation;       /* symtab_finish()es so far: names may change */
    bool want_lines;           /* read source lines too (set before symbols_load) */
    struct line_table lines;   /* the kernel's and the program's, if they have them */
    char lines_note[256];      /* why the program's could not be read, or "" */
};

/* Add the code symbols of an ELF32 i386 image (each flagged with flags),
 * moved by bias. 0, or -1 if it is not one or has no symbol table. */
int symtab_add_elf(struct symtab *st, const uint8_t *image, size_t size, uint32_t bias,
                   unsigned flags);
/* Add one symbol covering [addr, end). 0 or -1 (out of memory). */
int symtab_add(struct symtab *st, const char *name, uint32_t addr, uint32_t end, unsigned flags);
/* Sort, after the last add and before the first lookup. */
void symtab_finish(struct symtab *st);
const struct symbol *symtab_lookup(const struct symtab *st, uint32_t addr);
const char *symtab_name(const struct symtab *st, const struct symbol *s);
/* "sysenter_entry+0x5", "main", or "" when no symbol covers addr. */
const char *symtab_format(const struct symtab *st, uint32_t addr, char *buf, size_t n);
/* The same, trying symbol *last (the index found the time before) first
 * and leaving the one found there: a run of addresses in one function
 * costs no search and no printf. The table may have grown meanwhile. */
const char *symtab_format_near(const struct symtab *st, uint32_t addr, char *buf, size_t n,
                               size_t *last);
void symtab_free(struct symtab *st);

/*
 * The symbols of a run of m: the kernel's and the vsyscall page's, and
 * the program's from symbols_file, or else from the program's own file
 * (which may have none: stripped). 0, or -1 with a reason in err when
 * symbols_file cannot be read or has no symbols. With want_lines, the
 * source lines of the kernel and of that file too (.debug_line): a file
 * without them or with a malformed table has none (lines_note says why
 * when it is malformed), and is named by function only.
 */
int symbols_load(struct symtab *st, const struct machine *m, const char *symbols_file,
                 char *err, size_t errlen);
/* The source file and line of the code at addr (with want_lines set):
 * false where no line table covers it. */
bool symtab_line(const struct symtab *st, uint32_t addr, const char **file, uint32_t *line);
/* The sysenter trampoline is where SYSENTER_EIP points: name it once the
 * kernel has set it (call on each sysenter; it reads the MSR once). */
void symbols_note_sysenter(struct symtab *st, struct machine *m);
/* The program's first instruction ran at eip: a position-independent
 * program's symbols move to where the kernel loaded it. */
void symbols_note_start(struct symtab *st, uint32_t eip);

#endif
