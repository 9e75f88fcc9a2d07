#include "published.h"
#include <string.h>

#define LT_2002 "Linus Torvalds, linux-kernel, 16 Dec 2002"
#define P4_MHZ 2380.0   /* Linus's P4 as lmbench printed it, 25 Feb 2003 */

const struct published published[] = {
    { "LT-P4 getppid sysenter",
      LT_2002 " (Pine.LNX.4.44.0212162140500.1644-100000@home.transmeta.com)",
      "641 cycles", "linus_loop", "getppid", "pentium4", "sysenter", 1, 0,
      641, 640.5, 641.5, PUB_CALIBRATION },
    /* "something like 1761": an approximation by its author, +-1 % */
    { "LT-P4 getppid int80",
      LT_2002 " (Pine.LNX.4.44.0212162140500.1644-100000@home.transmeta.com)",
      "something like 1761 cycles", "linus_loop", "getppid", "pentium4", "int80", 2, 0,
      1761, 1761 * 0.99, 1761 * 1.01, PUB_CALIBRATION },
    { "lmbench P6 null call int80",
      "Cliff White (OSDL), linux-kernel, 25 Feb 2003, lmbench 2.0 on 2.4.18, "
      "host stp1-003, CPU not named (200302251711.h1PHBct16624@mail.osdl.org)",
      "0.32 us at Mhz 1000", "lmbench_null", NULL, "pentium3", "int80", 1, 2,
      320, 315, 325, PUB_CALIBRATION },
    { "LT-P4 gettimeofday sysenter",
      LT_2002 " 22:09 (Pine.LNX.4.44.0212162204300.1800-100000@home.transmeta.com)",
      "1280.425844 cycles", "linus_loop", "gettimeofday", "pentium4", "sysenter", 1, 0,
      1280.425844, 1280.425844, 1280.425844, PUB_PREDICTION },
    { "LT-P4 gettimeofday int80",
      LT_2002 " 22:09 (Pine.LNX.4.44.0212162204300.1800-100000@home.transmeta.com)",
      "2415.698224 cycles", "linus_loop", "gettimeofday", "pentium4", "int80", 2, 0,
      2415.698224, 2415.698224, 2415.698224, PUB_PREDICTION },
    { "LT-PIII gettimeofday sysenter",
      LT_2002 " 22:18 (Pine.LNX.4.44.0212162211110.1810-100000@home.transmeta.com)",
      "561.697236 cycles", "linus_loop", "gettimeofday", "pentium3", "sysenter", 1, 0,
      561.697236, 561.697236, 561.697236, PUB_PREDICTION },
    { "LT-PIII gettimeofday int80",
      LT_2002 " 22:18 (Pine.LNX.4.44.0212162211110.1810-100000@home.transmeta.com)",
      "686.170463 cycles", "linus_loop", "gettimeofday", "pentium3", "int80", 2, 0,
      686.170463, 686.170463, 686.170463, PUB_PREDICTION },
    /* one significant digit: +-0.05 us */
    { "LT-P4 lmbench null call int80",
      "Linus Torvalds, linux-kernel, 25 Feb 2003, lmbench on 2.5.30 "
      "(b3g9mn$27s$1@penguin.transmeta.com)",
      "0.8 us at Mhz 2380", "lmbench_null", NULL, "pentium4", "int80", 1, 2,
      0.8 * P4_MHZ, 0.75 * P4_MHZ, 0.85 * P4_MHZ, PUB_HOLDOUT },
    { "LT-P4 lmbench null call sysenter",
      "Linus Torvalds, linux-kernel, 25 Feb 2003, lmbench on 2.5.62 with a sysenter "
      "glibc (b3g9mn$27s$1@penguin.transmeta.com)",
      "0.2 us at Mhz 2380", "lmbench_null", NULL, "pentium4", "sysenter", 3, 4,
      0.2 * P4_MHZ, 0.15 * P4_MHZ, 0.25 * P4_MHZ, PUB_HOLDOUT },
};
const int npublished = sizeof published / sizeof published[0];

const struct published_ratio published_ratios[] = {
    { "LT-P4 getppid sysenter", "LT-P4 getppid int80",
      "the P4 calibration points (equal by construction)" },
    { "LT-P4 gettimeofday sysenter", "LT-P4 gettimeofday int80",
      "article: \"just over half the time\"" },
    { "LT-PIII gettimeofday sysenter", "LT-PIII gettimeofday int80",
      "article: \"a factor of 1.2\"" },
    { "LT-P4 lmbench null call sysenter", "LT-P4 lmbench null call int80",
      "held out: 0.8 -> 0.2 us, one digit" },
};
const int npublished_ratios = sizeof published_ratios / sizeof published_ratios[0];

const struct published *published_find(const char *id)
{
    for (int i = 0; i < npublished; i++)
        if (!strcmp(published[i].id, id))
            return &published[i];
    return 0;
}
