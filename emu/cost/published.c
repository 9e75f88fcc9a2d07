#include "cost/published.h"
#include <string.h>

#define LT_2002 "Linus Torvalds, linux-kernel, 16 Dec 2002"
#define P4_MHZ 2380.0   /* Linus's P4 as lmbench printed it, 25 Feb 2003 */

/* Rule P: +-half a unit of the last printed digit, a printed range is its
 * range; microseconds become cycles at the clock the source printed. */
#define MAU_MHZ 2400.0
#define MAU "Patrick Mau, linux-kernel, 2 Oct 2002, \"LMbench results for 2.5.40\": " \
    "lmbench 2.0, Linux 2.4.18, P4 at 2400 MHz (20021001220853.GA20022@oscar.dorf.de)"
#define CHECK_P4(op, what, printed, us, lo, hi) \
    { "Mau P4 " what, MAU, printed " us at 2400 MHz", "lmbench_validate", op, \
      "pentium4", "int80", 1, 0, (us) * MAU_MHZ, (lo) * MAU_MHZ, (hi) * MAU_MHZ, PUB_CHECK }
#define MARATHE_MHZ 790.0
#define MARATHE "Aniruddha Marathe (Wipro), linux-kernel, 16 Dec 2002: lmbench 2.0, " \
    "Linux 2.5.52, a 790 MHz part whose CPU model the post does not state " \
    "(94F20261551DC141B6B559DC4910867201DFF2@blr-m3-msg.wipro.com)"
#define CHECK_P6(op, what, printed, us, lo, hi) \
    { "Marathe P6 " what, MARATHE, printed " us at 790 MHz", "lmbench_validate", op, \
      "pentium3", "int80", 1, 0, (us) * MARATHE_MHZ, (lo) * MARATHE_MHZ, (hi) * MARATHE_MHZ, \
      PUB_CHECK }

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
    /* lmbench 2.0 summaries on int $0x80 kernels and C libraries, replayed
     * by lmbench_validate (docs/validation.md): the validation table */
    CHECK_P4("null", "null call", "0.67", 0.67, 0.665, 0.675),
    CHECK_P4("io", "null I/O", "0.75", 0.75, 0.745, 0.755),
    CHECK_P4("stat", "stat", "1.42", 1.42, 1.415, 1.425),
    CHECK_P4("open", "open/close", "2.29", 2.29, 2.285, 2.295),
    CHECK_P4("sigi", "sig inst", "1.12", 1.12, 1.115, 1.125),
    CHECK_P4("sigc", "sig hndl", "2.71", 2.71, 2.705, 2.715),
    CHECK_P4("prot", "prot fault", "1.310", 1.310, 1.3095, 1.3105),
    CHECK_P4("pipe", "pipe", "4.979", 4.979, 4.9785, 4.9795),
    CHECK_P4("ctx", "ctxsw 2p/0K", "0.750", 0.750, 0.7495, 0.7505),
    CHECK_P4("fork", "fork proc", "93.5", 93.5, 93.45, 93.55),
    CHECK_P4("exec", "exec proc", "445", 445, 444.5, 445.5),
    CHECK_P6("null", "null call", "0.44", 0.44, 0.435, 0.445),
    CHECK_P6("io", "null I/O", "0.80", 0.80, 0.795, 0.805),
    CHECK_P6("sigi", "sig inst", "1.28", 1.28, 1.275, 1.285),
    CHECK_P6("sigc", "sig hndl", "5.12-5.35", 5.235, 5.12, 5.35),
    CHECK_P6("pipe", "pipe", "7.9-8.2", 8.05, 7.9, 8.2),
    CHECK_P6("ctx", "ctxsw 2p/0K", "1.19-1.35", 1.27, 1.19, 1.35),
    CHECK_P6("fork", "fork proc", "355-404", 379.5, 355, 404),
    CHECK_P6("exec", "exec proc", "1570-1591", 1580.5, 1570, 1591),
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

double published_check_clock(const char *model)
{
    return !strcmp(model, "pentium4") ? MAU_MHZ : !strcmp(model, "pentium3") ? MARATHE_MHZ : 0;
}
