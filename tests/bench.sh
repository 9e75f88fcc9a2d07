#!/bin/sh
# make bench: guest instructions per second with cycle accounting on and off.
set -eu
build=${1:-build}
emu=$build/emu/emu
progs=$build/guest/programs

now() { date +%s.%N; }

bench() {
    label=$1; shift
    t0=$(now)
    report=$("$emu" run --report "$@" 2>&1 >/dev/null | grep 'instructions,')
    t1=$(now)
    "$emu" run --no-cycle-model "$@" >/dev/null
    t2=$(now)
    insns=$(echo "$report" | sed 's/.*: \([0-9]*\) instructions.*/\1/')
    awk -v l="$label" -v n="$insns" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
        on = n / (b - a) / 1e6; off = n / (c - b) / 1e6;
        printf "%-34s %12d insns  accounting on %7.1f M/s  off %7.1f M/s  (%.0f%% of off)\n",
               l, n, on, off, 100 * on / off }'
}

echo "emulator speed (wall clock, this machine; includes boot, about 0.5 M insns):"
bench "compute loop (20M iterations)" "$progs/compute_loop" 20000000
bench "getpid via sysenter (200k calls)" --cpu pentium4 "$progs/syscall_loop" getpid 200000
bench "getpid via int \$0x80 (200k calls)" --cpu pentium4,-sep "$progs/syscall_loop" getpid 200000
