#!/bin/sh
# Derive the cost classes that no one published per instruction - the ring
# crossings int/iret and sysenter/sysexit - from published round trips of a
# null system call (getppid), never from gettimeofday, which is what the
# model is then used to predict. docs/cost-model.md ("Calibration") gives
# the sources and the reasoning; this script does the arithmetic:
#
#   class cost = published cycles per call
#                - modeled cycles of everything else on the same path
#
# It prints the #defines for emu/cost_tables.h. Run it after any change to
# the kernel's entry or exit code or to the published-cost rows.
set -eu
build=${1:-build}
emu=$build/emu/emu
loop=$build/guest/programs/syscall_loop
n=100000

per_call() {
    "$emu" run "$@" | sed -n 's/.*: \([0-9.]*\) cycles\/call.*/\1/p'
}
cost_of() { # model column, class
    "$emu" --list-costs | awk -v c="$2" -v col="$1" '$1 == c { print $(col + 1) }'
}
zero="--cost int=0 --cost int_same=0 --cost iret=0 --cost sysenter=0 --cost sysexit=0"

# --- Pentium 4 (docs/cost-model.md P4-17) ---
# Linus Torvalds, 16 Dec 2002: getppid() is 641 cycles through the vsyscall
# page with sysenter/sysexit and 1761 with an inline int $0x80 / iret.
# INT itself is published (Agner Fog: 644), so the int path leaves IRET.
p4_rest_sysenter=$(per_call --cpu pentium4 $zero "$loop" getppid $n)
p4_rest_int=$(per_call --cpu pentium4 $zero --cost int=644 "$loop" getppid $n int80)

# --- P6 core: Pentium III and Pentium Pro (P6-12, P6-14) ---
# lmbench "null call" (getppid through glibc) on Pentium III kernels that
# trap with int $0x80: 0.32 us at 1000 MHz (OSDL, 2.4.18) = 320 cycles.
p6_rest_int=$(per_call --cpu pentium3,-sep $zero "$loop" getppid $n libc)

# No P6 sysenter/sysexit cost was published. Scale the P4 pair by how much
# faster the P6 runs the microcoded, serializing instructions measured on
# both cores: rdtsc, a locked op, a segment load, cpuid (geometric mean).
scale=$(for c in rdtsc locked segload cpuid; do
            echo "$(cost_of 1 $c) $(cost_of 2 $c)"
        done | awk '{ s += log($2 / $1); n++ } END { printf "%.4f", exp(s / n) }')

awk -v rs="$p4_rest_sysenter" -v ri="$p4_rest_int" -v r6="$p6_rest_int" -v k="$scale" 'BEGIN {
    p4_pair = 641 - rs; p4_iret = 1761 - ri;
    p6_gate = 320 - r6;
    # split the P6 int+iret pair in the proportion measured on the P4
    p6_int = p6_gate * 644 / (644 + p4_iret);
    p6_pair = p4_pair * k;
    printf "/* pentium4: modeled rest of path: sysenter %.2f, int %.2f (published 641, 1761) */\n", rs, ri;
    printf "/* pentium3: modeled rest of the int path %.2f (published 320); P6/P4 scale %.4f */\n", r6, k;
    printf "#define P4_IRET_CALIBRATED      CENTI(%.2f)\n", p4_iret;
    printf "#define P4_SYSENTER_CALIBRATED  CENTI(%.2f)\n", p4_pair / 2;
    printf "#define P4_SYSEXIT_CALIBRATED   CENTI(%.2f)\n", p4_pair / 2;
    printf "#define P6_INT_CALIBRATED       CENTI(%.2f)\n", p6_int;
    printf "#define P6_IRET_CALIBRATED      CENTI(%.2f)\n", p6_gate - p6_int;
    printf "#define P6_SYSENTER_CALIBRATED  CENTI(%.2f)\n", p6_pair / 2;
    printf "#define P6_SYSEXIT_CALIBRATED   CENTI(%.2f)\n", p6_pair / 2;
}'
