#!/bin/sh
# make bench: guest instructions per second with cycle accounting on and off,
# best of three runs each (wall clock on a shared machine is noisy).
set -eu
build=${1:-build}
emu=$build/emu/emu
progs=$build/guest/programs

now() { date +%s.%N; }

best_time() { # command...: the shortest of three wall-clock times
    best=""
    for _ in 1 2 3; do
        t0=$(now)
        "$@" >/dev/null 2>&1
        t1=$(now)
        best=$(awk -v a="$t0" -v b="$t1" -v best="$best" \
               'BEGIN { t = b - a; print (best == "" || t < best) ? t : best }')
    done
    echo "$best"
}

bench() {
    label=$1; shift
    insns=$("$emu" run --report "$@" 2>&1 >/dev/null |
            sed -n 's/.*: \([0-9]*\) instructions.*/\1/p')
    on=$(best_time "$emu" run "$@")
    off=$(best_time "$emu" run --no-cycle-model "$@")
    awk -v l="$label" -v n="$insns" -v on="$on" -v off="$off" 'BEGIN {
        printf "%-34s %10d insns  accounting on %6.1f M/s  off %6.1f M/s  (%.0f%% of off)\n",
               l, n, n / on / 1e6, n / off / 1e6, 100 * off / on }'
}

echo "emulator speed, best of 3 (wall clock; includes boot, about 0.5 M insns):"
bench "compute loop (20M iterations)" "$progs/compute_loop" 20000000
bench "getpid via sysenter (200k calls)" --cpu pentium4 "$progs/syscall_loop" getpid 200000
bench "getpid via int \$0x80 (200k calls)" --cpu pentium4,-sep "$progs/syscall_loop" getpid 200000
