#!/bin/sh
# scripts/calibrate.sh [BUILD]
#
# Replays the published experiments the ring-crossing costs are calibrated
# on (emu/cost/cost_model.c, calib_runs: Linus's getppid loop through the
# vsyscall page and with an inline int $0x80 on the Pentium 4, in both loop
# shapes; lmbench's null call on the P6), once on each kernel
# configuration's image (up, smp), and writes the instruction counts of
# each timed span to emu/cost/calibration_data.h. The calibrated costs are
# solved from those counts and the published figures when the emulator
# starts (published figure minus the modeled rest of the same path), so
# nothing else needs editing. Run it after any change to the guest kernel's
# entry or exit code, the vsyscall page, the replays or the cost classes;
# tests/test_calibration.c fails until it has been run.
# docs/cost-model.md ("Calibration") gives the sources and the reasoning.
set -eu
build=${1:-build}
make --no-print-directory BUILD="$build" "$build/emu/emu" \
    "$build/guest/programs/linus_loop" "$build/guest/programs/lmbench_null" >&2
"$build/emu/emu" calibrate "$build/guest/programs" > emu/cost/calibration_data.h.tmp
mv emu/cost/calibration_data.h.tmp emu/cost/calibration_data.h
sed -n "s/^ \* \(P[46], .*\)/calibrated (cycles): \1/p" emu/cost/calibration_data.h
make --no-print-directory BUILD="$build" "$build/emu/emu" >&2
