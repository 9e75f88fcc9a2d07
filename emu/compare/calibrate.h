/* emu calibrate: replay the calibration experiments (cost_model.h,
 * calib_runs) and print emu/cost/calibration_data.h. */
#ifndef EMU_CALIBRATE_H
#define EMU_CALIBRATE_H

#include <stdint.h>
#include <stdio.h>
#include "cost/cost_model.h"

/* Run calib_runs[run] from programs_dir with N iterations (0: as listed),
 * spans into out[0..max); the number of spans, or -1 with a message. */
int calibrate_run(const char *programs_dir, int run, uint64_t n, struct calib_span *out,
                  int max, char *err, size_t errlen);
/* Every run as listed, printed as the header; 0, or an exit status. */
int calibrate_main(const char *programs_dir, FILE *out);

#endif
