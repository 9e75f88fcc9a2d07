/* Trace lines formatted by hand (trace_line.h). */
#include "observe/trace_line.h"
#include "cost/centi.h"
#include <string.h>

/* Every append stops short of the buffer's end; a line is far shorter. */
static void put(struct trace_line *l, const char *s, size_t n)
{
    if (n > TRACE_LINE_MAX - 1 - l->len)
        n = TRACE_LINE_MAX - 1 - l->len;
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void pad(struct trace_line *l, size_t n)
{
    if (n > TRACE_LINE_MAX - 1 - l->len)
        n = TRACE_LINE_MAX - 1 - l->len;
    memset(l->buf + l->len, ' ', n);
    l->len += n;
}

/* %-Ns */
static void put_left(struct trace_line *l, const char *s, size_t width)
{
    size_t n = strlen(s);
    put(l, s, n);
    if (n < width)
        pad(l, width - n);
}

static void put_hex8(struct trace_line *l, uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    char s[8];
    for (int i = 7; i >= 0; i--, v >>= 4)
        s[i] = digits[v & 15];
    put(l, s, 8);
}

const char trace_digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* A centicycle count as "%.2f" of its cycles does: the whole cycles, a
 * point, two digits. */
_Static_assert(CENTI_PER_CYCLE == 100, "two digits after the point");
static size_t cycles_text(char out[32], uint64_t centi)
{
    char rev[32], *p = rev + sizeof rev;
    uint64_t whole = centi_whole(centi);
    p -= 2;
    memcpy(p, trace_digit_pairs + 2 * centi_frac(centi), 2);
    *--p = '.';
    while (whole >= 100) {
        p -= 2;
        memcpy(p, trace_digit_pairs + 2 * (whole % 100), 2);
        whole /= 100;
    }
    if (whole >= 10) {
        p -= 2;
        memcpy(p, trace_digit_pairs + 2 * whole, 2);
    } else {
        *--p = (char)('0' + whole);
    }
    size_t n = (size_t)(rev + sizeof rev - p);
    memcpy(out, p, n);
    return n;
}

static void put_cycles(struct trace_line *l, uint64_t centi, int width)
{
    char s[32];
    size_t n = cycles_text(s, centi), w = (size_t)(width < 0 ? -width : width);
    if (width > 0 && n < w)
        pad(l, w - n);
    put(l, s, n);
    if (width < 0 && n < w)
        pad(l, w - n);
}

/* A CSV field: quoted, with its quotes doubled, when it needs to be. */
static void put_csv(struct trace_line *l, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        put(l, s, strlen(s));
        return;
    }
    put(l, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            put(l, "\"", 1);
        put(l, *s == '\n' ? " " : s, 1);
    }
    put(l, "\"", 1);
}

void trace_line_text_head(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                          const char *text, uint64_t cost)
{
    l->len = 0;
    put(l, "  ", 2);
    put_hex8(l, addr);
    put(l, kernel ? " k " : " u ", 3);
    put_left(l, sym, 28);
    put(l, " ", 1);
    put_left(l, text, 40);
    put(l, " +", 2);
    put_cycles(l, cost, -7);
    put(l, " ", 1);
}

/* centi right-aligned in width (0: as it is) into out; its length. */
static size_t cycles_right(char *out, uint64_t centi, size_t width)
{
    char s[32];
    size_t n = cycles_text(s, centi), k = n < width ? width - n : 0;
    memset(out, ' ', k);
    memcpy(out + k, s, n);
    return k + n;
}

size_t trace_line_text_times(char *out, uint64_t end)
{
    size_t n = cycles_right(out, end, 12);
    out[n] = '\n';
    return n + 1;
}

void trace_line_text(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                     const char *text, uint64_t cost, uint64_t end)
{
    char s[TRACE_TIMES_MAX];
    trace_line_text_head(l, addr, kernel, sym, text, cost);
    put(l, s, trace_line_text_times(s, end));
}

void trace_line_csv_tail(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                         const char *text, uint64_t cost)
{
    l->len = 0;
    put(l, ",", 1);
    put_cycles(l, cost, 0);
    put(l, ",,,,,", 5);
    put_hex8(l, addr);
    put(l, ",", 1);
    put_csv(l, sym);
    put(l, kernel ? ",kernel," : ",user,", kernel ? 8 : 6);
    put_csv(l, text);
    put(l, "\n", 1);
}

size_t trace_line_csv_times(char *out, uint64_t start, uint64_t end)
{
    size_t k = sizeof TRACE_CSV_LEAD - 1;
    memcpy(out, TRACE_CSV_LEAD, k);
    k += cycles_text(out + k, start);
    out[k++] = ',';
    k += cycles_text(out + k, end);
    return k;
}

void trace_line_csv(struct trace_line *l, uint32_t addr, bool kernel, const char *sym,
                    const char *text, uint64_t start, uint64_t end)
{
    struct trace_line tail;
    char s[TRACE_TIMES_MAX];
    trace_line_csv_tail(&tail, addr, kernel, sym, text, end - start);
    l->len = 0;
    put(l, s, trace_line_csv_times(s, start, end));
    put(l, tail.buf, tail.len);
}

/* cm's text one hundred cycles on, in place: false if that needs one
 * more digit than it has room or width for. */
static bool next_hundred(struct cycles_memo *cm)
{
    int i = (int)cm->len - 6;
    for (; i >= 0 && cm->text[i] == '9'; i--)
        cm->text[i] = '0';
    if (i < 0 || cm->text[i] == ' ')
        return false;
    cm->text[i]++;
    return true;
}

size_t cycles_memo_remake(struct cycles_memo *cm, char *out, uint64_t centi, size_t width)
{
    if (centi < 10000)
        return cycles_right(out, centi, width);
    uint64_t base = centi - centi % 10000;
    if (!cm->base || base != cm->base + 10000 || !next_hundred(cm))
        cm->len = (uint32_t)cycles_right(cm->text, centi, width);
    cm->base = base;
    return cycles_memo_text(cm, out, centi, width);
}
