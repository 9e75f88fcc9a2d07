#!/bin/sh
# make test-engines: the same machine on both engines. The default build's
# emu (Unicorn 2.1) and UNICORN=system's (the system's Unicorn, Debian 12's
# 2.0.1) run the same programs, from the same paths, and must write the same
# bytes: the reference traces (every instruction with its cycles; traces/),
# make run's three comparisons (every span's figures, the timer interrupts
# inside them, the totals) and a busybox md5sum long enough for timer
# interrupts, with its trace of every system call, trap and interrupt and
# its report.
#   sh tests/cross-engine.sh BUILD_A BUILD_B [REPLAY_N]
# The programs are BUILD_A's for both (a program's path is part of what the
# machine runs: its length moves the boot's and the program's instructions).
set -u
a=${1:?usage: cross-engine.sh BUILD_A BUILD_B [REPLAY_N]}
b=${2:?usage: cross-engine.sh BUILD_A BUILD_B [REPLAY_N]}
n=${3:-100000}
progs=$a/guest/programs
busybox=$a/i386/root/bin/busybox
work=$(mktemp -d /tmp/sysemu-engines-XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0

engine() { "$1/emu/emu" --version | sed -n 's/^Unicorn \([^ ]*\).*/\1/p'; }
echo "engines: $a Unicorn $(engine "$a"), $b Unicorn $(engine "$b")"
[ "$(engine "$a")" = "$(engine "$b")" ] &&
    echo "(the same version: the system's Unicorn is 2.1 or newer)"

# same NAME: the two outputs of NAME must be the same bytes
same() {
    if cmp -s "$work/$1.a" "$work/$1.b"; then
        echo "same: $1 ($(wc -c < "$work/$1.a") bytes)"
    else
        echo "DIFFERENT: $1"
        diff "$work/$1.a" "$work/$1.b" | head -n 6
        failed=1
    fi
}
# emu_at BUILD OUT EMU-ARGS...: that build's emu, @OUT@ in the arguments
# replaced by OUT
emu_at() {
    build=$1 out=$2; shift 2
    for x; do
        [ "$x" = @OUT@ ] && x=$out
        set -- "$@" "$x"; shift
    done
    "$build/emu/emu" "$@"
}
# both NAME EMU-ARGS...: run emu with these arguments on each engine; the
# output is the file @OUT@ names, or else what emu prints
both() {
    name=$1; shift
    for side in a b; do
        if [ $side = a ]; then build=$a; else build=$b; fi
        out=$work/$name.$side
        emu_at "$build" "$out" "$@" > "$work/$name.stdout.$side" 2>&1 ||
            { echo "FAILED ($?): $build/emu/emu $*"; cat "$work/$name.stdout.$side"; failed=1; }
        [ -f "$out" ] || mv "$work/$name.stdout.$side" "$out"
    done
    same "$name"
}

# the reference traces, as make traces writes them
for c in pentium4 pentium4,-sep pentium3 pentium3,-sep pentiumpro; do
    both "trace-$c" run --cpu "$c" --argv0 one_call --trace @OUT@ --trace-insns \
        "$progs/one_call" gettimeofday
done
for p in pentium4:up pentium4:smp pentium3:up pentium3:smp; do
    both "paths-$p" run --cpu "${p%:*}" --kernel-config "${p#*:}" --argv0 paths \
        --trace @OUT@ --trace-insns "$progs/paths"
done
# make run's comparisons
both run-gettimeofday compare --article --kernel-configs "up;smp" --cpus "pentium4;pentium3" \
    "$progs/linus_loop" gettimeofday "$n"
both run-getppid compare --article --kernel-configs "up;smp" --cpus "pentium4;pentium3" \
    "$progs/linus_loop" getppid "$n"
both run-lmbench compare --article --kernel-configs "up;smp" --cpus "pentium4;pentium3,-sep" \
    "$progs/lmbench_null" "$n"
# a real program through timer interrupts: its trace and its report
mkdir -p "$work/root"
seq 1 400000 > "$work/root/input"
both md5sum-trace run --root "$work/root" --trace @OUT@ "$busybox" md5sum /input
both md5sum-report run --root "$work/root" --report=json --report-file @OUT@ \
    "$busybox" md5sum /input
ticks=$(sed -n 's/.*"timer_interrupts": *\([0-9]*\).*/\1/p' "$work/md5sum-report.a" | head -n 1)
if [ "${ticks:-0}" -eq 0 ]; then
    echo "the md5sum run took no timer interrupt: make its input longer"
    failed=1
else
    echo "(the md5sum run took $ticks timer interrupts)"
fi
[ $failed -eq 0 ] && echo "the two engines ran the same machine"
exit $failed
