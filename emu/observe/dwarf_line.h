/*
 * Source lines of guest code: the line-number programs of an ELF file's
 * .debug_line (DWARF versions 2 to 5, with .debug_line_str and
 * .debug_str for version 5's file names), run into one table of address
 * ranges, each with its source file and line. Read from the standard
 * (DWARF 5, section 6.2), for the profile's file and line positions.
 *
 * The input is untrusted (a program's own file): every read is bounded by
 * its section, every count by what is left of it, and a unit that does not
 * parse discards everything the file added; nothing loops without
 * consuming input.
 */
#ifndef EMU_DWARF_LINE_H
#define EMU_DWARF_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One row of the line-number matrix: from addr up to the next row, the
 * code is line `line` of file `file` (an index into the files); the end
 * of a sequence is a row with file LINE_END. */
#define LINE_END UINT32_MAX

struct line_row {
    uint32_t addr;
    uint32_t file;
    uint32_t line;
    uint32_t order;     /* its place in the programs, to keep ties in order */
};

struct line_table {
    struct line_row *rows;
    size_t nrows, cap;
    uint32_t *files;    /* offsets of the file paths in strings */
    size_t nfiles, fcap;
    char *strings;
    size_t slen, scap;
};

/*
 * Add the line table of an ELF32 i386 image, its addresses moved by bias.
 * 0; 1 when the image has no .debug_line; -1 with a reason in err when it
 * is malformed or beyond the limits (the table is then as it was before).
 */
int dwarf_line_load(struct line_table *t, const uint8_t *image, size_t size, uint32_t bias,
                    char *err, size_t errlen);
/* The same from the sections themselves (line_str and str may be empty). */
int dwarf_line_parse(struct line_table *t, const uint8_t *line, size_t line_size,
                     const uint8_t *line_str, size_t line_str_size, const uint8_t *str,
                     size_t str_size, uint32_t bias, char *err, size_t errlen);
/* The source position of the code at addr: false where no row covers it. */
bool line_table_find(const struct line_table *t, uint32_t addr, const char **file,
                     uint32_t *line);
void line_table_free(struct line_table *t);

#endif
