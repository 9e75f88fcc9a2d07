/* Program-reported metrics (metrics.h). */
#include "observe/metrics.h"
#include <stdlib.h>
#include <string.h>

int metrics_parse(const char *text, struct metric *out, int max)
{
    int n = 0;
    for (const char *line = text; line && *line && n < max;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, "@metric ", 8)) {
            struct metric m = { { 0 }, { 0 }, 0 };
            char value[32];
            /* widths: METRIC_NAME_MAX - 1 and the value's buffer */
            if (sscanf(line + 8, "%31s %31s %31s", m.name, value, m.unit) >= 2) {
                char *stop;
                m.value = strtod(value, &stop);
                if (*stop == 0)
                    out[n++] = m;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

static const struct metric *find(const struct metric *ms, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(ms[i].name, name))
            return &ms[i];
    return NULL;
}

void metrics_print(FILE *f, const char *const *models, const struct metric *const *runs,
                   const int *counts, int nruns)
{
    const char *names[METRICS_MAX * 4];
    const char *units[METRICS_MAX * 4];
    int nnames = 0;
    for (int r = 0; r < nruns; r++)
        for (int i = 0; i < counts[r] && nnames < METRICS_MAX * 4; i++) {
            int k = 0;
            while (k < nnames && strcmp(names[k], runs[r][i].name))
                k++;
            if (k == nnames) {
                names[nnames] = runs[r][i].name;
                units[nnames++] = runs[r][i].unit;
            }
        }
    if (!nnames)
        return;
    fprintf(f, "\nreported by the program:\n%-16s %-8s", "metric", "unit");
    for (int r = 0; r < nruns; r++)
        fprintf(f, " %16s", models[r]);
    fputc('\n', f);
    for (int k = 0; k < nnames; k++) {
        fprintf(f, "%-16s %-8s", names[k], units[k]);
        for (int r = 0; r < nruns; r++) {
            const struct metric *m = find(runs[r], counts[r], names[k]);
            if (m)
                fprintf(f, " %16.1f", m->value);
            else
                fprintf(f, " %16s", "-");
        }
        fputc('\n', f);
    }
}
