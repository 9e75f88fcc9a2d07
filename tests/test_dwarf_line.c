/*
 * emu/observe/dwarf_line.c: the line tables of real files, read beside binutils'
 * addr2line at every instruction objdump finds (the built-in kernel image,
 * whose embedded copy keeps only its line table, and a guest program
 * whose own unit is DWARF 3, 4 or 5, a version 2 header made from the
 * version 3 one); and a corrupt .debug_line, mutated at random and field
 * by field, which is refused with the table left as it was, never read
 * past, never looped on.
 */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/observe/dwarf_line.h"
#include "../emu/image/ksyms.h"

struct file {
    uint8_t *data;
    size_t size;
};

static struct file load(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: run make", path);
    struct file r = { NULL, 0 };
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    r.size = (size_t)ftell(f);
    rewind(f);
    r.data = malloc(r.size ? r.size : 1);
    ck_assert_int_eq(fread(r.data, 1, r.size, f), r.size);
    fclose(f);
    return r;
}

/* A section of an ELF32 file, by name (the test's own reading). */
static struct file section(const struct file *elf, const char *name)
{
    Elf32_Ehdr eh;
    Elf32_Shdr names, sh;
    memcpy(&eh, elf->data, sizeof eh);
    memcpy(&names, elf->data + eh.e_shoff + eh.e_shstrndx * sizeof sh, sizeof sh);
    for (int i = 0; i < eh.e_shnum; i++) {
        memcpy(&sh, elf->data + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (!strcmp((char *)elf->data + names.sh_offset + sh.sh_name, name))
            return (struct file){ elf->data + sh.sh_offset, sh.sh_size };
    }
    return (struct file){ NULL, 0 };
}

/* Run a shell command line; its output. */
static char *shell(const char *cmd)
{
    const char *argv[] = { "sh", "-c", cmd, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "%s: %s", cmd, r.err);
    char *out = r.out;
    r.out = NULL;
    emu_result_free(&r);
    return out;
}

/* Every instruction's address and addr2line's "file:line" for it, one a
 * line: "ADDR FILE:LINE". */
static char *addr2line_all(const char *elf)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "objdump -d %s | sed -n 's/^ *\\([0-9a-f][0-9a-f]*\\):\t.*/\\1/p' > %s && "
             "addr2line -a -e %s < %s | paste - - && rm -f %s",
             elf, scratch("addrs"), elf, scratch("addrs"), scratch("addrs"));
    return shell(cmd);
}

/* The table's answers beside addr2line's, at every instruction; the
 * number compared. A path may be relative where addr2line adds the
 * compilation directory (DWARF 4 and older). */
static long compare_with_addr2line(const struct line_table *t, const char *elf)
{
    char *out = addr2line_all(elf);
    long compared = 0;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        unsigned addr;
        char want[1024];
        ck_assert_int_eq(sscanf(l, "0x%x %1023s", &addr, want), 2);
        char *colon = strrchr(want, ':');
        ck_assert_ptr_nonnull(colon);
        *colon = 0;
        const char *file;
        uint32_t line;
        bool found = line_table_find(t, addr, &file, &line);
        /* no line: "??:0", or "FILE:?" between a unit's functions */
        if (!strcmp(want, "??") || !strcmp(colon + 1, "?")) {
            ck_assert_msg(!found, "%#x: %s:%u, addr2line has none", addr, file, line);
            continue;
        }
        ck_assert_msg(found, "%#x: no line, addr2line %s:%s", addr, want, colon + 1);
        size_t n = strlen(file), w = strlen(want);
        ck_assert_msg(!strcmp(file, want) || (w > n && want[w - n - 1] == '/' &&
                                              !strcmp(want + w - n, file)),
                      "%#x: %s, addr2line %s", addr, file, want);
        ck_assert_msg(line == strtoul(colon + 1, NULL, 10), "%#x: line %u, addr2line %s",
                      addr, line, colon + 1);
        compared++;
    }
    free(out);
    return compared;
}

START_TEST(the_built_in_kernels_lines_are_addr2lines)
{
    struct line_table t = { 0 };
    char err[160];
    size_t size = (size_t)(kernel_image_end - kernel_image_start);
    ck_assert_int_eq(dwarf_line_load(&t, kernel_image_start, size, 0, err, sizeof err), 0);
    long n = compare_with_addr2line(&t, BUILD_DIR "/guest/kernel-pentium4-up.elf");
    ck_assert_int_gt(n, 10000);
    /* entry.S is assembled with its lines: sysenter_entry's first is "sti" */
    const char *file;
    uint32_t line;
    uint32_t entry = ksym_find(kernel_image_start, size, "sysenter_entry");
    ck_assert(line_table_find(&t, entry, &file, &line));
    ck_assert_msg(strlen(file) > 21 && !strcmp(file + strlen(file) - 21, "/guest/kernel/entry.S"),
                  "%s", file);
    line_table_free(&t);
}
END_TEST

static const char *const programs[] = { "dwarf/syscall_loop-dwarf2", "dwarf/syscall_loop-dwarf3",
                                        "dwarf/syscall_loop-dwarf4", "dwarf/syscall_loop-dwarf5",
                                        "guest/programs/hello" };

static const char *build_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", BUILD_DIR, name);
    return path;
}

START_TEST(a_programs_lines_are_addr2lines_in_each_dwarf_version)
{
    const char *path = build_path(programs[_i]);
    struct file elf = load(path);
    struct line_table t = { 0 };
    char err[160];
    ck_assert_int_eq(dwarf_line_load(&t, elf.data, elf.size, 0, err, sizeof err), 0);
    ck_assert_int_gt(compare_with_addr2line(&t, path), 100);
    line_table_free(&t);
    free(elf.data);
}
END_TEST

/* The offset of the first unit of .debug_line in version v. */
static size_t unit_of_version(const struct file *s, unsigned v)
{
    for (size_t off = 0; off + 6 <= s->size;) {
        uint32_t len;
        memcpy(&len, s->data + off, 4);
        if ((s->data[off + 4] | s->data[off + 5] << 8) == (int)v)
            return off;
        off += 4 + (size_t)len;
    }
    ck_abort_msg("no version %u unit", v);
    return 0;
}

START_TEST(a_version_2_header_reads_as_version_3)
{
    struct file elf = load(build_path("dwarf/syscall_loop-dwarf2"));
    struct file s = section(&elf, ".debug_line"), ls = section(&elf, ".debug_line_str");
    struct line_table v3 = { 0 }, v2 = { 0 };
    char err[160];
    ck_assert_int_eq(dwarf_line_parse(&v3, s.data, s.size, ls.data, ls.size, NULL, 0, 0, err,
                                      sizeof err), 0);
    s.data[unit_of_version(&s, 3) + 4] = 2;
    ck_assert_int_eq(dwarf_line_parse(&v2, s.data, s.size, ls.data, ls.size, NULL, 0, 0, err,
                                      sizeof err), 0);
    ck_assert_uint_eq(v2.nrows, v3.nrows);
    ck_assert_int_gt(v2.nrows, 0);
    for (size_t i = 0; i < v2.nrows; i++) {
        ck_assert_uint_eq(v2.rows[i].addr, v3.rows[i].addr);
        ck_assert_uint_eq(v2.rows[i].line, v3.rows[i].line);
    }
    line_table_free(&v2);
    line_table_free(&v3);
    free(elf.data);
}
END_TEST

/* A table holding the kernel's rows already: a refused file must leave
 * it as it was. */
static void parse_hostile(const uint8_t *line, size_t size, const struct file *ls, bool must_fail)
{
    static struct line_table t;
    static size_t kernel_rows;
    char err[160];
    if (!t.nrows) {
        ck_assert_int_eq(dwarf_line_load(&t, kernel_image_start,
                                         (size_t)(kernel_image_end - kernel_image_start), 0, err,
                                         sizeof err), 0);
        kernel_rows = t.nrows;
    }
    size_t nrows = t.nrows, nfiles = t.nfiles, slen = t.slen;
    int rc = dwarf_line_parse(&t, line, size, ls->data, ls->size, ls->data, ls->size, 0, err,
                              sizeof err);
    ck_assert_msg(rc == 0 || rc == -1, "rc %d", rc);
    if (must_fail)
        ck_assert_msg(rc == -1, "accepted");
    if (rc == -1) {
        ck_assert_uint_eq(t.nrows, nrows);
        ck_assert_uint_eq(t.nfiles, nfiles);
        ck_assert_uint_eq(t.slen, slen);
        ck_assert_msg(strstr(err, "malformed .debug_line"), "%s", err);
    }
    /* what it kept is still sorted and answers */
    for (size_t i = 1; i < t.nrows; i += 97)
        ck_assert_uint_le(t.rows[i - 1].addr, t.rows[i].addr);
    /* keep it from growing across the cases */
    if (t.nrows > 2 * kernel_rows) {
        line_table_free(&t);
        memset(&t, 0, sizeof t);
    }
}

START_TEST(a_corrupt_line_table_is_refused_field_by_field)
{
    struct file elf = load(build_path("guest/programs/syscall_loop"));
    struct file s = section(&elf, ".debug_line"), ls = section(&elf, ".debug_line_str");
    /* version 5 header: unit_length 0, version 4, address_size 6,
     * header_length 8, maximum_operations_per_instruction 13,
     * line_range 16, opcode_base 17 */
    static const struct { size_t at, size; uint32_t value; } bad[] = {
        { 0, 4, 0xfffffff0u },   /* past the section */
        { 0, 4, 0 },             /* no room for a version */
        { 4, 2, 1 }, { 4, 2, 6 }, { 4, 2, 0xffff },
        { 6, 1, 8 },             /* 8-byte addresses on i386 */
        { 8, 4, 0xffffff00u },   /* header past the unit */
        { 13, 1, 0 },            /* no operation per instruction */
        { 16, 1, 0 },            /* line_range 0: a division by zero */
        { 17, 1, 0 },            /* opcode_base 0 */
    };
    uint8_t *copy = malloc(s.size);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(copy, s.data, s.size);
        memcpy(copy + bad[i].at, &bad[i].value, bad[i].size);
        parse_hostile(copy, s.size, &ls, true);
    }
    /* a unit_length of 0xffffffff: 64-bit DWARF, whose length is past it */
    memcpy(copy, s.data, s.size);
    memset(copy, 0xff, 12);
    parse_hostile(copy, s.size, &ls, true);
    /* cut anywhere inside the first unit */
    uint32_t first;
    memcpy(&first, s.data, 4);
    for (size_t cut = 1; cut < 4 + first && cut < s.size; cut += 7)
        parse_hostile(s.data, cut, &ls, true);
    free(copy);
    free(elf.data);
}
END_TEST

/* A deterministic generator for the mutations. */
static uint32_t next_random(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

START_TEST(random_mutations_never_read_past_or_loop)
{
    static const char *const files[] = { "guest/programs/syscall_loop",
                                         "dwarf/syscall_loop-dwarf4" };
    struct file elf = load(build_path(files[_i]));
    struct file s = section(&elf, ".debug_line"), ls = section(&elf, ".debug_line_str");
    uint8_t *copy = malloc(s.size);
    uint32_t state = 0x2002u + (uint32_t)_i;
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, s.data, s.size);
        int flips = 1 + (int)(next_random(&state) % 8);
        for (int k = 0; k < flips; k++) {
            uint32_t r = next_random(&state);
            copy[r % s.size] = (uint8_t)(r >> 8 & 3 ? r >> 16 : (r >> 8 & 4 ? 0xff : 0));
        }
        size_t size = round % 5 ? s.size : next_random(&state) % s.size;
        parse_hostile(copy, size, &ls, false);
    }
    /* nothing but noise */
    uint8_t noise[4096];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)next_random(&state);
    parse_hostile(noise, sizeof noise, &ls, false);
    free(copy);
    free(elf.data);
}
END_TEST

START_TEST(no_line_table_is_not_an_error)
{
    struct file elf = load(build_path("guest/programs/syscall_loop"));
    const char *stripped = scratch("stripped");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "objcopy --strip-debug %s %s", build_path("guest/programs/syscall_loop"),
             stripped);
    free(shell(cmd));
    struct file s = load(stripped);
    struct line_table t = { 0 };
    char err[160];
    ck_assert_int_eq(dwarf_line_load(&t, s.data, s.size, 0, err, sizeof err), 1);
    ck_assert_uint_eq(t.nrows, 0);
    /* not an ELF file at all */
    ck_assert_int_eq(dwarf_line_load(&t, (const uint8_t *)"#!/bin/sh\n", 10, 0, err, sizeof err),
                     -1);
    /* an empty section is an empty table */
    ck_assert_int_eq(dwarf_line_parse(&t, elf.data, 0, NULL, 0, NULL, 0, 0, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, 0);
    unlink(stripped);
    free(s.data);
    free(elf.data);
}
END_TEST

Suite *dwarf_line_suite(void)
{
    Suite *s = suite_create("dwarf_line");
    TCase *tc = tcase_create("tables");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, the_built_in_kernels_lines_are_addr2lines);
    tcase_add_loop_test(tc, a_programs_lines_are_addr2lines_in_each_dwarf_version, 0,
                        sizeof programs / sizeof programs[0]);
    tcase_add_test(tc, a_version_2_header_reads_as_version_3);
    tcase_add_test(tc, a_corrupt_line_table_is_refused_field_by_field);
    tcase_add_loop_test(tc, random_mutations_never_read_past_or_loop, 0, 2);
    tcase_add_test(tc, no_line_table_is_not_an_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(dwarf_line_suite());
}
