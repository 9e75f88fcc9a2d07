#include "observe/strace_values.h"
#include "machine/machine.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "machine/linux_names.h"
#include "machine/names.h"
#include "machine/user_memory.h"

void print_addr(FILE *f, uint32_t addr)
{
    if (addr)
        fprintf(f, "%#x", addr);
    else
        fputs("NULL", f);
}

/* As strace quotes: C escapes, other bytes in octal (three digits when a
 * digit follows, so that the escape cannot swallow it). */
void print_quoted(FILE *f, const uint8_t *p, size_t n, bool hex, bool cut)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (hex) {
            fprintf(f, "\\x%02x", c);
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", f); continue;
        case '\\': fputs("\\\\", f); continue;
        case '\f': fputs("\\f", f); continue;
        case '\n': fputs("\\n", f); continue;
        case '\r': fputs("\\r", f); continue;
        case '\t': fputs("\\t", f); continue;
        case '\v': fputs("\\v", f); continue;
        }
        if (c >= 0x20 && c < 0x7f)
            fputc(c, f);
        else if (i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7')
            fprintf(f, "\\%03o", c);
        else
            fprintf(f, "\\%o", c);
    }
    fputs(cut ? "\"..." : "\"", f);
}

void print_user_string(FILE *f, struct machine *m, uint32_t addr, size_t max)
{
    uint8_t *buf = malloc(max + 1);
    size_t n = buf && addr ? user_read(m, addr, buf, max + 1) : 0;
    size_t len = 0;
    while (len < n && len < max && buf[len])
        len++;
    if (len < n && buf[len] == 0)
        print_quoted(f, buf, len, false, false);
    else if (len == max)
        print_quoted(f, buf, len, false, true);   /* longer than shown */
    else
        print_addr(f, addr);   /* unreadable before its end */
    free(buf);
}

void print_user_bytes(FILE *f, struct machine *m, uint32_t addr, uint32_t len, size_t max,
                      bool hex)
{
    size_t want = len < max ? len : max;
    uint8_t *buf = malloc(want ? want : 1);
    if (!buf || !addr || user_read(m, addr, buf, want) != want)
        print_addr(f, addr);
    else
        print_quoted(f, buf, want, hex, want < len);
    free(buf);
}

void print_signal(FILE *f, uint32_t sig, bool short_name)
{
    const char *name = signal_name(sig);
    if (strcmp(name, "signal")) {
        fputs(short_name ? name + 3 : name, f);
    } else if (sig == 32) {
        fputs(short_name ? "RTMIN" : "SIGRTMIN", f);
    } else if (sig > 32 && sig <= 64) {
        fprintf(f, "%sRT_%u", short_name ? "" : "SIG", sig - 32);
    } else {
        fprintf(f, "%u", sig);
    }
}

/* strace prints the complement, ~[...], of a set with more than half the
 * signals in it. */
void print_sigset_bits(FILE *f, uint64_t set)
{
    int n = __builtin_popcountll(set);
    bool invert = n > 32;
    if (invert) {
        fputc('~', f);
        set = ~set;
    }
    fputc('[', f);
    const char *sep = "";
    for (uint32_t sig = 1; sig <= 64; sig++) {
        if (set & (1ull << (sig - 1))) {
            fputs(sep, f);
            print_signal(f, sig, true);
            sep = " ";
        }
    }
    fputc(']', f);
}

void print_octal(FILE *f, uint32_t v)
{
    if (v)
        fprintf(f, "%#o", v);
    else
        fputs("000", f);
}

void print_mode(FILE *f, uint32_t mode)
{
    const char *type = xlat_name(file_types, mode & 0170000);
    if (type)
        fprintf(f, "%s|", type);
    else if (mode & 0170000)
        fprintf(f, "%#o|", mode & 0170000);
    print_octal(f, mode & 07777);
}

void print_date(FILE *f, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];
    if (gmtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+0000", &tm))
        fputs(buf, f);
}

