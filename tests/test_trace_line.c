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

Suite *trace_line_suite(void)
{
    Suite *s = suite_create("trace_line");
    TCase *tc = tcase_create("lines");
    tcase_add_test(tc, a_text_line_is_what_printf_makes);
    tcase_add_test(tc, a_csv_line_is_what_printf_makes);
    tcase_add_test(tc, times_through_a_memo_are_what_printf_makes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(trace_line_suite());
}
