/*
 * emu compare --svg: the table as a bar chart. A bar per row (model, path,
 * via), split into the kernel's entry, body and exit and the rest of the
 * call as the caller sees it; a whisker over the row's interval; a dashed
 * mark at the published figure the row replays, if any; an axis in cycles;
 * the ratios the text printed, below.
 */
#include "compare/compare.h"
#include <math.h>
#include "machine/names.h"

#define SVG_W 860
#define SVG_LEFT 250
#define SVG_RIGHT 120
#define SVG_BAR 30
#define SVG_GAP 26
#define SVG_TOP 50

static const char *const part_color[4] = { "#d95f02", "#1b9e77", "#7570b3", "#bbbbbb" };
static const char *const part_name[4] = { "entry", "body", "exit", "user (stub and loop)" };

/* A tick step of 1, 2 or 5 times a power of ten giving at most 8 ticks. */
static double tick_step(double max)
{
    double step = pow(10, floor(log10(max > 1 ? max : 1)));
    while (max / step > 8)
        step *= max / (step * 2) > 8 ? 5 : 2;
    while (max / step < 3 && step > 1)
        step /= 2;
    return step;
}

static double chart_max(const struct compare_run *rs, int n)
{
    double max = 1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rs[i].nrows; k++) {
            struct interval iv;
            struct mover mv[NMOVERS];
            interval_of(&rs[i].rows[k].measure, NULL, &rs[i].point, &iv, mv);
            if (iv.high > max)
                max = iv.high;
        }
    return max;
}

static void bar(FILE *f, const struct compare_run *r, const struct compare_row *row,
                const struct run_options *base, int y, double scale)
{
    const struct syscall_stat *s = &row->stat;
    double parts[4] = { compare_mean(s->entry, s->calls), compare_mean(s->body, s->calls),
                        compare_mean(s->exit, s->calls), 0 };
    parts[3] = fmax(0, row->per_call - parts[0] - parts[1] - parts[2]);
    fprintf(f, "<text x=\"10\" y=\"%d\">%s %s/%s</text>\n", y + SVG_BAR / 2 + 5, r->spec,
            sys_path_name(row->path), sys_via_name(row->via));
    double x = SVG_LEFT;
    for (int p = 0; p < 4; p++) {
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", x,
                y, parts[p] * scale, SVG_BAR, part_color[p]);
        x += parts[p] * scale;
    }
    struct interval iv;
    struct mover mv[NMOVERS];
    interval_of(&row->measure, NULL, &r->point, &iv, mv);
    double lo = SVG_LEFT + iv.low * scale, hi = SVG_LEFT + iv.high * scale;
    int mid = y + SVG_BAR / 2;
    fprintf(f, "<path class=\"interval\" d=\"M%.1f %d v-6 v12 v-6 H%.1f v-6 v12\" "
            "stroke=\"black\" fill=\"none\"/>\n", lo, mid, hi);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.0f [%.0f, %.0f]</text>\n", hi + 6, mid + 5,
            row->per_call, iv.low, iv.high);
    const struct published *p = compare_published_for(r, row, base);
    if (p) {
        double px = SVG_LEFT + p->value * scale;
        fprintf(f, "<line class=\"published\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                "stroke=\"black\" stroke-dasharray=\"4 3\"/>\n", px, y - 4, px, y + SVG_BAR + 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">published %.0f (%s)</text>\n",
                px + 3, y + SVG_BAR + 14, p->value, p->id);
    }
}

static void axis(FILE *f, int y, double max, double scale)
{
    double step = tick_step(max);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
            "stroke=\"black\"/>\n", SVG_LEFT, y, SVG_LEFT + max * scale, y);
    for (double t = 0; t <= max + step / 1000; t += step) {
        double x = SVG_LEFT + t * scale;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n",
                x, y, x, y + 5, x, y + 19, t);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">cycles per call "
            "(modeled)</text>\n", SVG_LEFT + max * scale / 2, y + 38);
}

int compare_svg(const char *path, const struct compare_run *rs, int n,
                const struct run_options *base, char ratios[][160], int nratios)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bars = 0;
    for (int i = 0; i < n; i++)
        bars += rs[i].nrows;
    double max = chart_max(rs, n);
    double scale = (SVG_W - SVG_LEFT - SVG_RIGHT) / max;
    int axis_y = SVG_TOP + bars * (SVG_BAR + SVG_GAP);
    int h = axis_y + 80 + 18 * nratios;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"13\">\n", SVG_W, h);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"16\">cycles per %s call, as the caller "
            "sees it</text>\n", n ? syscall_name(rs[0].nr) : "");
    int y = SVG_TOP;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rs[i].nrows; k++, y += SVG_BAR + SVG_GAP)
            bar(f, &rs[i], &rs[i].rows[k], base, y, scale);
    axis(f, axis_y, max, scale);
    int ly = axis_y + 52;
    for (int p = 0; p < 4; p++) {
        int x = 10 + p * 150;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n", x, ly, part_color[p], x + 20, ly + 12,
                part_name[p]);
    }
    for (int k = 0; k < nratios; k++)
        fprintf(f, "<text class=\"ratio\" x=\"10\" y=\"%d\">%s</text>\n", ly + 34 + 18 * k,
                ratios[k]);
    fputs("</svg>\n", f);
    return fclose(f) ? -1 : 0;
}
