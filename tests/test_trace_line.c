/*
 * Trace lines formatted by hand (emu/observe/trace_line.c) are the bytes glibc's
 * printf makes of the trace's format strings, for the same values:
 * widths, padding past and short of them, cycles as "%.2f", CSV quoting.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "support.h"
#include "../emu/observe/trace_line.h"
#include "../emu/observe/trace_memo.h"
#include <stdlib.h>

static const char *syms[] = { "", "main", "mini_start+0x18",
                              "a_symbol_name_longer_than_twenty_eight+0x1234" };
static const char *texts[] = { "nop", "mov eax, dword ptr [edx + 4]",
                               "vpermilps ymm0, ymmword ptr [eax + ecx*8 + 0x12345678], 0x55 x",
                               "a \"quoted\",\nline" };
/* Up to 7e13 cycles: below 2^46 cycles a double still holds every
 * hundredth, so printf's "%.2f" is exact (past it, the old printf lost
 * digits; the hand-made line never does). */
static const uint64_t centis[] = { 0, 5, 50, 199, 100000, 25552156, 999999999999ull,
                                   7000000000000099ull };

static double cyc(uint64_t c) { return (double)c / 100.0; }

START_TEST(a_text_line_is_what_printf_makes)
{
    char want[TRACE_LINE_MAX];
    struct trace_line l;
    for (size_t s = 0; s < sizeof syms / sizeof *syms; s++)
        for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
            for (size_t c = 0; c < sizeof centis / sizeof *centis; c++) {
                uint64_t cost = centis[c] % 100000, end = centis[c];
                int n = snprintf(want, sizeof want, "  %08x %c %-28s %-40s +%-7.2f %12.2f\n",
                                 0xc0100000u + (uint32_t)c, t & 1 ? 'k' : 'u', syms[s], texts[t],
                                 cyc(cost), cyc(end));
                trace_line_text(&l, 0xc0100000u + (uint32_t)c, t & 1, syms[s], texts[t], cost,
                                end);
                ck_assert_uint_eq(l.len, (size_t)n);
                ck_assert_msg(memcmp(l.buf, want, l.len) == 0, "%.*s|%s", (int)l.len, l.buf, want);
            }
}
END_TEST

/* csv_field's rule: quoted, quotes doubled, newlines as spaces, when the
 * field holds a comma, a quote or a newline. */
static void csv(char *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        strcat(out, s);
        return;
    }
    strcat(out, "\"");
    for (; *s; s++) {
        if (*s == '"')
            strcat(out, "\"");
        size_t n = strlen(out);
        out[n] = *s == '\n' ? ' ' : *s;
        out[n + 1] = 0;
    }
    strcat(out, "\"");
}

START_TEST(a_csv_line_is_what_printf_makes)
{
    char want[TRACE_LINE_MAX];
    struct trace_line l;
    for (size_t s = 0; s < sizeof syms / sizeof *syms; s++)
        for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
            for (size_t c = 0; c < sizeof centis / sizeof *centis; c++) {
                uint64_t start = centis[c], end = start + centis[(c + 3) % 8] % 100000;
                snprintf(want, sizeof want, "insn,,,,,,,,,,,,,%.2f,%.2f,%.2f,,,,,%08x,",
                         cyc(start), cyc(end), cyc(end - start), 0x08048000u + (uint32_t)t);
                csv(want, syms[s]);
                strcat(want, t & 1 ? ",kernel," : ",user,");
                csv(want, texts[t]);
                strcat(want, "\n");
                trace_line_csv(&l, 0x08048000u + (uint32_t)t, t & 1, syms[s], texts[t], start,
                               end);
                ck_assert_uint_eq(l.len, strlen(want));
                ck_assert(memcmp(l.buf, want, l.len) == 0);
            }
}
END_TEST

/* The times through a memo are printf's too, as the counts walk on by
 * small steps across hundreds and powers of ten, jump far on and back
 * (the memo's start is under 100 cycles); a CSV line mostly starts where
 * the one before ended, and now and then after a gap. */
START_TEST(times_through_a_memo_are_what_printf_makes)
{
    char want[TRACE_TIMES_MAX], got[TRACE_TIMES_MAX];
    struct cycles_memo text = { 0 }, csv[2] = { { 0 }, { 0 } };
    uint64_t c = 0, prev = 0;
    for (int i = 0; i < 60000; i++) {
        if (i % 20000 == 19999)
            c = c / 7;
        else if (i % 20000 == 9999)
            c = c * 1000 + 1;
        else
            c += (uint64_t)(i % 13) * 37;
        int n = snprintf(want, sizeof want, "%12.2f\n", cyc(c));
        size_t k = trace_line_text_times_memo(&text, got, c);
        ck_assert_uint_eq(k, (size_t)n);
        ck_assert_msg(memcmp(got, want, k) == 0, "%.*s|%s", (int)k, got, want);
        uint64_t start = i % 5 == 3 ? (prev + c) / 2 : prev;
        n = snprintf(want, sizeof want, "insn,,,,,,,,,,,,,%.2f,%.2f", cyc(start), cyc(c));
        k = trace_line_csv_times_memo(csv, got, start, c);
        ck_assert_uint_eq(k, (size_t)n);
        ck_assert_msg(memcmp(got, want, k) == 0, "%.*s|%s", (int)k, got, want);
        prev = c;
    }
}
END_TEST

/* A block of eight user instructions with these costs (centicycles): a
 * hundred cycles crossed inside a run, by one instruction or several. */
static const uint32_t run_costs[] = { 50, 1400, 800, 9999, 10000, 3, 25000, 1 };

/* Its texts: the four above, and once one making a part longer than a
 * memo's slack (such a block's lines go one by one). */
static const char *run_text(bool long_one, uint32_t i)
{
    static const char longest[] =
        "an instruction text of more than one hundred and sixty characters once its line's "
        "fixed columns are added, as a long symbol with a long operand list can make it";
    return long_one && i == 5 ? longest : texts[i % 4];
}

static void make_block(struct block *b, struct insn *insns, char (*text)[INSN_TEXT_MAX],
                       bool long_one)
{
    memset(b, 0, sizeof *b);
    b->ninsns = 8;
    b->insns = insns;
    b->text = text;
    for (uint32_t i = 0; i < 8; i++) {
        insns[i] = (struct insn){ .addr = 0x08049000u + 3 * i, .cost = run_costs[i] };
        snprintf(text[i], INSN_TEXT_MAX, "%s", run_text(long_one, i));
    }
}

/* [from, to) of b from start, one printf-checked line at a time. */
static size_t lines_one_by_one(bool csv, const struct block *b, uint32_t from, uint32_t to,
                               uint64_t start, char *out)
{
    struct trace_line l;
    size_t k = 0;
    for (uint32_t i = from; i < to; i++) {
        uint64_t end = start + b->insns[i].cost;
        if (csv)
            trace_line_csv(&l, b->insns[i].addr, false, "", b->text[i], start, end);
        else
            trace_line_text(&l, b->insns[i].addr, false, "", b->text[i], b->insns[i].cost,
                            end);
        memcpy(out + k, l.buf, l.len);
        k += l.len;
        start = end;
    }
    return k;
}

/* 3 000 runs of b's [from, to) in one format against its lines one by one. */
static void check_runs(struct block *b, bool csv)
{
    static char got[1 << 16], want[1 << 16];
    struct trace_line line;
    size_t last_sym = 0;
    struct memo_maker mk = { csv, NULL, &last_sym, &line };
    const struct line_memo *lm = line_memo_make(&mk, NULL, b);
    ck_assert_ptr_nonnull(lm);
    struct cycles_memo times[2] = { { 0 }, { 0 } };
    struct times_form form = { 0 };
    uint64_t start = 999990000ull - 500000;
    for (int r = 0; r < 3000; r++) {
        uint32_t from = (uint32_t)(r % 8), to = from + 1 + (uint32_t)(r * 7 % (8 - from));
        if (r % 11 == 5)
            start += (uint64_t)r * 13;
        char *last;
        uint64_t s = start;
        char *end = line_memo_run(lm, b, from, to, times, &form, &s, got, &last);
        size_t n = lines_one_by_one(csv, b, from, to, start, want);
        ck_assert_uint_eq((size_t)(end - got), n);
        ck_assert_msg(memcmp(got, want, n) == 0, "run %d: %.*s|%.*s", r, (int)n, got, (int)n,
                      want);
        size_t tail = lines_one_by_one(csv, b, to - 1, to, s - b->insns[to - 1].cost, want);
        ck_assert_uint_eq((size_t)(end - last), tail);
        start = s;
    }
    free(b->memo);
    b->memo = NULL;
}

/* A run written from the memo at once (the template of its hundred, the
 * end digits by table) is the lines one by one, through hundreds and
 * powers of ten, after gaps (CSV: a start not where the last ended). */
START_TEST(a_run_of_lines_from_the_memo_is_its_lines_one_by_one)
{
    struct insn insns[8];
    char text[8][INSN_TEXT_MAX];
    struct block b;
    for (int long_one = 0; long_one < 2; long_one++) {
        make_block(&b, insns, text, long_one);
        check_runs(&b, false);
        check_runs(&b, true);
    }
}
END_TEST

Suite *trace_line_suite(void)
{
    Suite *s = suite_create("trace_line");
    TCase *tc = tcase_create("lines");
    tcase_add_test(tc, a_text_line_is_what_printf_makes);
    tcase_add_test(tc, a_csv_line_is_what_printf_makes);
    tcase_add_test(tc, times_through_a_memo_are_what_printf_makes);
    tcase_add_test(tc, a_run_of_lines_from_the_memo_is_its_lines_one_by_one);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(trace_line_suite());
}
