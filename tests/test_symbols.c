/*
 * Symbols (emu/observe/symbols.c): kernel, vsyscall-page and program addresses
 * are named symbol+offset; a stripped program takes its names from
 * --symbols FILE; a position-independent one is named where the kernel
 * loaded it; a broken symbol table is read without harm.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "../emu/observe/symbols.h"

/* The address of a symbol by name, as the table has it. */
static uint32_t address_of(const struct symtab *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (!strcmp(symtab_name(st, &st->v[i]), name))
            return st->v[i].addr;
    return 0;
}

START_TEST(kernel_vsyscall_and_program_addresses_have_names)
{
    static struct machine m;
    struct run_options opts = { .program = program("one_call") };
    struct symtab st = { 0 };
    char err[256], buf[128];
    m.opts = &opts;
    m.kernel = kernel_builtin(MARCH_PENTIUM4, KCONFIG_UP, 1);
    ck_assert_int_eq(symbols_load(&st, &m, NULL, err, sizeof err), 0);
    uint32_t entry = address_of(&st, "sysenter_entry"), main_ = address_of(&st, "main");
    ck_assert_uint_ne(entry, 0);
    ck_assert_uint_ne(main_, 0);
    ck_assert_str_eq(symtab_format(&st, entry + 5, buf, sizeof buf), "sysenter_entry+0x5");
    ck_assert_str_eq(symtab_format(&st, entry, buf, sizeof buf), "sysenter_entry");
    ck_assert_str_eq(symtab_format(&st, main_ + 0x12, buf, sizeof buf), "main+0x12");
    ck_assert_str_eq(symtab_format(&st, VSYSCALL_BASE + 5, buf, sizeof buf),
                     "__kernel_vsyscall+0x5");
    ck_assert(symtab_lookup(&st, entry)->flags & SYM_KERNEL);
    ck_assert(!(symtab_lookup(&st, main_)->flags & SYM_KERNEL));
    /* a label inside system_call names its part; nothing names data */
    uint32_t call = address_of(&st, "syscall_call");
    ck_assert_str_eq(symtab_format(&st, call + 1, buf, sizeof buf), "syscall_call+0x1");
    ck_assert_str_eq(symtab_format(&st, 0x00001000, buf, sizeof buf), "");
    ck_assert_str_eq(symtab_format(&st, KERNEL_BASE + 0x3000000, buf, sizeof buf), "");
    symtab_free(&st);
}
END_TEST

START_TEST(a_broken_symbol_table_is_read_without_harm)
{
    FILE *f = fopen(program("one_call"), "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *buf = malloc((size_t)size);
    ck_assert_int_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    /* every truncation, and the tables' offsets and sizes scribbled on */
    for (long cut = 0; cut <= size; cut += cut < 64 ? 1 : 97) {
        struct symtab st = { 0 };
        symtab_add_elf(&st, buf, (size_t)cut, 0, 0);
        symtab_finish(&st);
        symtab_free(&st);
    }
    uint32_t seed = 12345;
    for (int round = 0; round < 2000; round++) {
        uint8_t *copy = malloc((size_t)size);
        memcpy(copy, buf, (size_t)size);
        for (int k = 0; k < 8; k++) {
            seed = seed * 1103515245u + 12345u;
            copy[(seed >> 8) % (uint32_t)size] = (uint8_t)(seed >> 24);
        }
        struct symtab st = { 0 };
        symtab_add_elf(&st, copy, (size_t)size, 0, 0);
        symtab_finish(&st);
        char name[128];
        for (size_t i = 0; i < st.n; i++)
            symtab_format(&st, st.v[i].addr + 1, name, sizeof name);
        symtab_free(&st);
        free(copy);
    }
    free(buf);
}
END_TEST

/* The user instruction lines of a text trace in symbol (at any offset). */
static int lines_naming(const char *trace, const char *symbol)
{
    char at[96], in[96];
    snprintf(at, sizeof at, " u %s ", symbol);
    snprintf(in, sizeof in, " u %s+0x", symbol);
    return count_lines_containing(trace, at) + count_lines_containing(trace, in);
}

START_TEST(a_stripped_program_takes_its_names_from_symbols_file)
{
    const char *stripped = scratch("stripped"), *trace = scratch("trace.txt");
    const char *strip[] = { "strip", "-o", stripped, program("one_call"), NULL };
    struct emu_result r;
    run_command(&r, strip);
    ck_assert_msg(r.status == 0, "strip: %s", r.err);
    emu_result_free(&r);

    emu(&r, "run", "--trace", trace, "--trace-insns=user", stripped, NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(trace);
    ck_assert_int_eq(lines_naming(text, "main"), 0);
    ck_assert_int_gt(lines_naming(text, "__kernel_vsyscall"), 0);
    free(text);
    emu_result_free(&r);

    emu(&r, "run", "--trace", trace, "--trace-insns=user", "--symbols", program("one_call"),
        stripped, NULL);
    ck_assert_int_eq(r.status, 0);
    text = read_file(trace);
    ck_assert_int_gt(lines_naming(text, "main"), 3);
    ck_assert_int_eq(lines_naming(text, "_start"), 6);
    free(text);
    emu_result_free(&r);
    unlink(stripped);
    unlink(trace);
}
END_TEST

START_TEST(a_position_independent_program_is_named_where_it_was_loaded)
{
    const char *trace = scratch("pie.txt");
    struct emu_result r;
    emu(&r, "run", "--trace", trace, "--trace-insns=user", fixture("hello-glibc-pie"), NULL);
    ck_assert_int_eq(r.status, 0);
    char *text = read_file(trace);
    char *first = line_with(text, " u _start ");
    ck_assert_msg(first != NULL, "%.400s", text);
    /* loaded away from its link address, 0 */
    ck_assert_uint_gt(strtoul(first, NULL, 16), 0x10000000u);
    ck_assert_int_gt(lines_naming(text, "main"), 0);
    free(first);
    free(text);
    emu_result_free(&r);
    unlink(trace);
}
END_TEST

START_TEST(a_symbols_file_without_symbols_is_a_usage_error)
{
    struct emu_result r;
    emu(&r, "run", "--trace", scratch("t"), "--symbols", "/etc/passwd", program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
    emu(&r, "run", "--symbols", program("one_call"), program("hello"), NULL);
    ck_assert_int_eq(r.status, 2);
    emu_result_free(&r);
    unlink(scratch("t"));
}
END_TEST

/* Nested and same-address symbols: whatever symbol was found last,
 * symtab_format_near names every address as symtab_format does. */
START_TEST(a_name_found_from_the_last_one_is_the_name_a_search_finds)
{
    struct symtab st = { 0 };
    ck_assert_int_eq(symtab_add(&st, "outer", 0x1000, 0x1100, 0), 0);
    ck_assert_int_eq(symtab_add(&st, "inner", 0x1040, 0x1050, 0), 0);
    ck_assert_int_eq(symtab_add(&st, "alias", 0x1080, 0x1090, 0), 0);
    ck_assert_int_eq(symtab_add(&st, "alias2", 0x1080, 0x10a0, 0), 0);
    ck_assert_int_eq(symtab_add(&st, "next", 0x1200, 0x1300, 0), 0);
    symtab_finish(&st);
    static const uint32_t order[] = { 0x1000, 0x1041, 0x1045, 0x1060, 0x1081, 0x1095, 0x10ff,
                                      0x1100, 0x1150, 0x1200, 0x1201, 0x1000, 0x12ff, 0x1300,
                                      0x1042, 0xfff, 0x1091 };
    size_t last = (size_t)-1;
    char a[128], b[128], shortbuf[8];
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        symtab_format(&st, order[i], a, sizeof a);
        ck_assert_str_eq(symtab_format_near(&st, order[i], b, sizeof b, &last), a);
    }
    symtab_format(&st, 0x1201, a, sizeof shortbuf);   /* cut as snprintf cuts */
    ck_assert_str_eq(symtab_format_near(&st, 0x1201, shortbuf, sizeof shortbuf, &last), a);
    symtab_free(&st);
}
END_TEST

Suite *symbols_suite(void)
{
    Suite *s = suite_create("symbols");
    TCase *tc = tcase_create("names");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, kernel_vsyscall_and_program_addresses_have_names);
    tcase_add_test(tc, a_broken_symbol_table_is_read_without_harm);
    tcase_add_test(tc, a_stripped_program_takes_its_names_from_symbols_file);
    tcase_add_test(tc, a_position_independent_program_is_named_where_it_was_loaded);
    tcase_add_test(tc, a_symbols_file_without_symbols_is_a_usage_error);
    tcase_add_test(tc, a_name_found_from_the_last_one_is_the_name_a_search_finds);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(symbols_suite());
}
