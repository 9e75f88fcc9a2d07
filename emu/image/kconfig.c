#include "image/kconfig.h"
#include <string.h>

static const char *const config_names[NKCONFIGS] = { "up", "smp" };
static const char *const march_names[NMARCHES] = { "pentium4", "pentium3", "i686",
                                                      "athlon" };
static const char *const history_names[NKHIST] = { "2.5.53-seed", "2.5.53", "2.5.54", "2.6.0" };

const char *kconfig_name(int config)
{
    return config >= 0 && config < NKCONFIGS ? config_names[config] : "?";
}

int kconfig_parse(const char *s)
{
    for (int c = 0; c < NKCONFIGS; c++)
        if (!strcmp(s, config_names[c]))
            return c;
    return -1;
}

int kconfig_parse_list(const char *list)
{
    int set = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int c = -1;
        for (int k = 0; k < NKCONFIGS; k++)
            if (strlen(config_names[k]) == len && !strncmp(p, config_names[k], len))
                c = k;
        if (c < 0)
            return -1;
        set |= 1 << c;
        if (!end)
            return set;
        p = end + 1;
    }
}

const char *kmarch_name(int march)
{
    return march >= 0 && march < NMARCHES ? march_names[march] : "?";
}

const char *khist_name(int history)
{
    return history >= 0 && history < NKHIST ? history_names[history] : "?";
}

int khist_parse(const char *s)
{
    for (int h = 0; h < NKHIST; h++)
        if (!strcmp(s, history_names[h]))
            return h;
    return -1;
}
