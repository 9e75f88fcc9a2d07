#!/bin/bash
# make bench: emu with and without the cycle model against qemu-i386 and the
# host, on the same static i386 binaries (docs/performance.md).
#   bash tests/bench.sh BUILD
# Each workload runs REPS times (BENCH_REPS, default 5), its variants one
# after another within a repetition, so that the machine's other load falls
# on all of them alike. Times are the CPU time (user + system) of the
# process. A per-operation figure is the difference between a long run and a
# short one of the same program, divided by the operations in between: the
# start-up cancels out. Each ratio is computed within one repetition and
# shown as the median with its min-max over the repetitions.
# BENCH_ONLY="ctx getpid ..." runs only those workloads (compute getpid
# gettimeofday touch md5 hello trace ctx forkexec; default all of these;
# also harness, which takes minutes a repetition: BENCH_ONLY=harness).
set -eu
build=${1:-build}
reps=${BENCH_REPS:-5}
emu=$build/emu/emu
progs=$build/guest/programs
busybox=$build/i386/root/bin/busybox
hello=$build/static/hello-glibc
work=$build/bench
qemu=qemu-i386
# Some host kernels run no i386 program (ia32_emulation=off: execve gives
# ENOEXEC); there the native column is left empty.
native_runs=true rc=0
"$progs/compute_loop" 1 >/dev/null 2>&1 || rc=$?
[ $rc -eq 126 ] && native_runs=false
natively() { if $native_runs; then "$@"; else "$qemu" "$@"; fi; }
only=" ${BENCH_ONLY:-compute getpid gettimeofday touch md5 hello trace ctx forkexec} "
want() { [[ $only == *" $1 "* ]]; }
mkdir -p "$work"
rm -f "$work"/*.s "$work"/*.fig

# cpu_time CMD...: the CPU seconds CMD took; fails the bench if CMD fails.
cpu_time() {
    local out rc=0
    out=$( { TIMEFORMAT='%3U %3S'; time "$@" >/dev/null 2>&1 || rc=$?; } 2>&1; exit $rc ) ||
        { echo "bench: failed ($?): $*" >&2; exit 1; }
    echo "$out" | awk '{ printf "%.3f\n", $1 + $2 }'
}
# wall_time OUT CMD...: the wall-clock seconds CMD took, its output in OUT
wall_time() {
    local out=$1 t0 t1 rc=0; shift
    t0=$(date +%s.%N)
    "$@" > "$out" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    [ $rc -eq 0 ] || { echo "bench: failed ($rc): $*" >&2; exit 1; }
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
# harness NAME CMD...: wall time and the printed figure of one run
harness() {
    local n=$1; shift
    wall_time "$work/$n.out" "$@" >> "$work/$n.s"
    sed -n 's/^Pipe latency: \([0-9.]*\) microseconds$/\1/p' "$work/$n.out" >> "$work/$n.fig"
}
# loop N CMD: a busybox shell running CMD N times (fork, exec, wait each)
loop() { echo "for i in \$(seq $1); do $2; done"; }
# sample NAME CMD...: one timing of CMD, added to NAME's samples
sample() { local n=$1; shift; cpu_time "$@" >> "$work/$n.s"; }
# stat: median [min-max] of the numbers on stdin, with printf format F
stat() {
    sort -g | awk -v f="$1" '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf f " [" f "-" f "]", m, v[1], v[NR] }'
}
# sample_median NAME CMD...: the median of HELLO_RUNS timings of CMD, as
# one sample. A start-up is a run of tens of ms whose CPU time alone moves
# by a factor of up to 1.7 between runs on a shared host (27-50 ms for the
# same deterministic run of emu): one run a repetition is mostly noise.
sample_median() {
    local n=$1 i; shift
    rm -f "$work/runs"
    for i in $(seq "$HELLO_RUNS"); do cpu_time "$@" >> "$work/runs"; done
    stat "%.4f" < "$work/runs" | cut -d' ' -f1 >> "$work/$n.s"
}
# insns EMU-ARGS...: the instructions emu's report counts for a run
insns() {
    "$emu" run --report "$@" 2>&1 >/dev/null |
        sed -n 's/.*: \([0-9]*\) instructions,.*/\1/p'
}

# ---- inputs ----
N_COMPUTE=20000000; N0_COMPUTE=100000
N_CALLS=200000; N0_CALLS=1000
N_TRACE=200000; N0_TRACE=10000
N_PIPE=2000; N0_PIPE=200   # lat pipe: one-byte round trips between two processes
N_EXEC=200; N0_EXEC=20     # busybox sh forking and executing busybox true
HELLO_RUNS=${HELLO_RUNS:-9} # runs of hello a repetition, their median its sample
root=$build/i386/root
lat_ppid=$build/static/lat_ppid-glibc
TOUCH_MIB=32
md5_file=$work/md5-input
[ -f "$md5_file" ] || head -c $((16 << 20)) /dev/urandom > "$md5_file"
md5_dir=$(cd "$work" && pwd)

# The same work under each runner: the programs print the same.
check() { # label, then the outputs to compare
    local label=$1 first=$2; shift 2
    for o in "$@"; do
        [ "$o" = "$first" ] || { echo "bench: $label: outputs differ:"; echo "$first"; echo "$o"; exit 1; } >&2
    done
}
want compute && check "compute loop" "$("$emu" run "$progs/compute_loop" 1000)" \
    "$("$emu" run --no-cycle-model "$progs/compute_loop" 1000)" \
    "$($qemu "$progs/compute_loop" 1000)" "$(natively "$progs/compute_loop" 1000)"
want md5 && check "md5sum" "$("$emu" run --root "$md5_dir" "$busybox" md5sum /md5-input | cut -d' ' -f1)" \
    "$($qemu "$busybox" md5sum "$md5_file" | cut -d' ' -f1)" \
    "$(natively "$busybox" md5sum "$md5_file" | cut -d' ' -f1)"
want touch && check "touch" "$("$emu" run "$progs/vm" touch $TOUCH_MIB)" "$($qemu "$progs/vm" touch $TOUCH_MIB)" \
    "$(natively "$progs/vm" touch $TOUCH_MIB)"
# (the round trip's time in the guest's TSC differs by runner: only its name)
want forkexec && check "fork+exec" "$("$emu" run --root "$root" "$busybox" sh -c "$(loop 3 '/bin/busybox echo x')")" \
    "$($qemu "$busybox" sh -c "$(loop 3 "$qemu $busybox echo x")")"
want ctx && check "pipe round trips" "$("$emu" run "$progs/lat" pipe 10 | cut -d' ' -f1-2)" \
    "$("$emu" run --no-cycle-model "$progs/lat" pipe 10 | cut -d' ' -f1-2)" \
    "$($qemu "$progs/lat" pipe 10 | cut -d' ' -f1-2)" "$(natively "$progs/lat" pipe 10 | cut -d' ' -f1-2)"

want compute && compute_insns=$(( $(insns "$progs/compute_loop" $N_COMPUTE) - $(insns "$progs/compute_loop" $N0_COMPUTE) ))
want trace && trace_insns=$(( $(insns "$progs/compute_loop" $N_TRACE) - $(insns "$progs/compute_loop" $N0_TRACE) ))
want md5 && md5_insns=$(insns --root "$md5_dir" "$busybox" md5sum /md5-input)

echo "make bench: $($emu --version | head -1)"
"$emu" --version | sed -n 's/^/  /; /[Uu]nicorn/p'
echo "  $($qemu --version | head -1)"
$native_runs || echo "  this host's kernel runs no i386 program: no native column"
echo "  $reps alternating repetitions; CPU time (user+system); ratios are median [min-max]"
echo

for r in $(seq "$reps"); do
    [ -t 2 ] && printf '\r  repetition %d of %d ' "$r" "$reps" >&2
    for mode in model nomodel; do
        flag=; [ $mode = nomodel ] && flag=--no-cycle-model
        if want compute; then
            sample compute.$mode.N  "$emu" run $flag "$progs/compute_loop" $N_COMPUTE
            sample compute.$mode.N0 "$emu" run $flag "$progs/compute_loop" $N0_COMPUTE
        fi
        for call in getpid gettimeofday; do
            want $call || continue
            sample $call.$mode.N  "$emu" run $flag "$progs/syscall_loop" $call $N_CALLS
            sample $call.$mode.N0 "$emu" run $flag "$progs/syscall_loop" $call $N0_CALLS
            sample $call-int80.$mode.N  "$emu" run $flag --cpu pentium4,-sep "$progs/syscall_loop" $call $N_CALLS
            sample $call-int80.$mode.N0 "$emu" run $flag --cpu pentium4,-sep "$progs/syscall_loop" $call $N0_CALLS
        done
        if want touch; then
            sample touch.$mode.N  "$emu" run $flag "$progs/vm" touch $TOUCH_MIB
            sample touch.$mode.N0 "$emu" run $flag "$progs/vm" touch 1
        fi
        want md5 && sample md5.$mode "$emu" run $flag --root "$md5_dir" "$busybox" md5sum /md5-input
        want hello && sample_median hello.$mode "$emu" run $flag "$hello"
        if want ctx; then
            sample ctx.$mode.N  "$emu" run $flag "$progs/lat" pipe $N_PIPE
            sample ctx.$mode.N0 "$emu" run $flag "$progs/lat" pipe $N0_PIPE
        fi
        if want forkexec; then
            sample forkexec.$mode.N  "$emu" run $flag --root "$root" "$busybox" sh -c \
                "$(loop $N_EXEC '/bin/busybox true')"
            sample forkexec.$mode.N0 "$emu" run $flag --root "$root" "$busybox" sh -c \
                "$(loop $N0_EXEC '/bin/busybox true')"
        fi
    done
    if want harness; then
        harness harness.model "$emu" run "$lat_ppid" pipe
        harness harness.qemu $qemu "$lat_ppid" pipe
    fi
    # Each run writes a new file (the old one's pages are not freed inside
    # the next run), and the host then writes as many bytes from /dev/zero
    # into a new file: what the host's kernel takes to accept the trace's
    # bytes (dd, in writes of 1 MiB as emu makes), which no tracer goes under.
    for fmt in text csv; do
        want trace || continue
        for n in N N0; do
            rm -f "$work/trace.out"
            [ $n = N ] && count=$N_TRACE || count=$N0_TRACE
            sample trace-$fmt.model.$n "$emu" run --trace "$work/trace.out" --trace-format $fmt \
                --trace-insns "$progs/compute_loop" $count
            bytes=$(wc -c < "$work/trace.out")
            rm -f "$work/trace.out"
            sample trace-$fmt.host.$n dd if=/dev/zero of="$work/trace.out" bs=1M count=$bytes \
                iflag=count_bytes status=none
        done
    done
    runners=qemu; $native_runs && runners="qemu native"
    for runner in $runners; do
        pre=; [ $runner = qemu ] && pre=$qemu
        if want compute; then
            sample compute.$runner.N  $pre "$progs/compute_loop" $N_COMPUTE
            sample compute.$runner.N0 $pre "$progs/compute_loop" $N0_COMPUTE
        fi
        for call in getpid gettimeofday; do
            want $call || continue
            sample $call.$runner.N  $pre "$progs/syscall_loop" $call $N_CALLS
            sample $call.$runner.N0 $pre "$progs/syscall_loop" $call $N0_CALLS
        done
        if want touch; then
            sample touch.$runner.N  $pre "$progs/vm" touch $TOUCH_MIB
            sample touch.$runner.N0 $pre "$progs/vm" touch 1
        fi
        want md5 && sample md5.$runner $pre "$busybox" md5sum "$md5_file"
        want hello && sample_median hello.$runner $pre "$hello"
        if want ctx; then
            sample ctx.$runner.N  $pre "$progs/lat" pipe $N_PIPE
            sample ctx.$runner.N0 $pre "$progs/lat" pipe $N0_PIPE
        fi
        # qemu-i386 runs no i386 program a guest executes (no binfmt
        # here): its guest shell executes qemu-i386 itself each time
        if want forkexec; then
            sample forkexec.$runner.N  $pre "$busybox" sh -c "$(loop $N_EXEC "$pre $busybox true")"
            sample forkexec.$runner.N0 $pre "$busybox" sh -c "$(loop $N0_EXEC "$pre $busybox true")"
        fi
    done
done
[ -t 2 ] && printf '\r%40s\r' '' >&2
rm -f "$work/trace.out"

# per NAME.VARIANT SCALE: one figure per repetition: (N - N0) * SCALE, or
# the plain sample * SCALE where there is no N0
per() {
    local f=$work/$1
    if [ -f "$f.N.s" ]; then
        paste "$f.N.s" "$f.N0.s" | awk -v k="$2" '{ d = $1 - $2; printf "%.9g\n", (d > 0 ? d : 1e-3) * k }'
    else
        awk -v k="$2" '{ printf "%.9g\n", $1 * k }' "$f.s"
    fi
}
# ratio A B: per-repetition A/B of two per-figures (files), as stat
ratio() { paste "$1" "$2" | awk '{ printf "%.9g\n", $1 / $2 }' | stat "%.2f"; }

row() { # label, unit scale, format, workload, ratio-direction (time|rate)
    local label=$1 scale=$2 fmt=$3 w=$4 v
    for v in model nomodel qemu native; do
        if [ -f "$work/$w.$v.s" ] || [ -f "$work/$w.$v.N.s" ]; then
            per "$w.$v" "$scale" > "$work/$w.$v.per"
        else
            rm -f "$work/$w.$v.per"
        fi
    done
    printf '%-34s' "$label"
    for v in model nomodel qemu native; do
        if [ -f "$work/$w.$v.per" ]; then
            printf ' %-24s' "$(stat "$fmt" < "$work/$w.$v.per")"
        else
            printf ' %-24s' "-"
        fi
    done
    echo
}
ratios() { # label, workload: emu/qemu (model, no model) and model/no model, as times
    local w=$2
    printf '  %-32s' "$1"
    [ -f "$work/$w.qemu.per" ] && printf ' emu/qemu %s, without the model %s;' \
        "$(ratio "$work/$w.model.per" "$work/$w.qemu.per")" \
        "$(ratio "$work/$w.nomodel.per" "$work/$w.qemu.per")"
    printf ' model/no model %s\n' "$(ratio "$work/$w.model.per" "$work/$w.nomodel.per")"
}

printf '%-34s %-24s %-24s %-24s %-24s\n' "workload" "emu" "emu --no-cycle-model" "qemu-i386" "native"
per_call=$(awk -v n=$((N_CALLS - N0_CALLS)) 'BEGIN { print 1e6 / n }')
if want compute; then
    row "compute loop, host ns per guest insn" "$(awk -v n=$compute_insns 'BEGIN { print 1e9 / n }')" "%.2f" compute
    printf '%-34s' "  = M guest insns/s"
    for v in model nomodel qemu native; do
        if [ -f "$work/compute.$v.per" ]; then
            printf ' %-24s' "$(awk '{ print 1000 / $1 }' "$work/compute.$v.per" | stat "%.0f")"
        else
            printf ' %-24s' "-"
        fi
    done
    echo
fi
want getpid && row "getpid (vsyscall), us per call" "$per_call" "%.2f" getpid
want getpid && row "  int \$0x80 (-sep), us per call" "$per_call" "%.2f" getpid-int80
want gettimeofday && row "gettimeofday (vsyscall), us" "$per_call" "%.2f" gettimeofday
want gettimeofday && row "  int \$0x80 (-sep), us per call" "$per_call" "%.2f" gettimeofday-int80
want touch && row "touch $TOUCH_MIB MiB fresh, s" "$(awk -v m=$TOUCH_MIB 'BEGIN { print m / (m - 1) }')" "%.3f" touch
want md5 && row "busybox md5sum 16 MiB, s" 1 "%.2f" md5
want hello && row "start-up: hello, ms" 1000 "%.1f" hello
want forkexec && row "fork+exec+wait of busybox, ms" "$(awk -v n=$((N_EXEC - N0_EXEC)) 'BEGIN { print 1e3 / n }')" "%.2f" forkexec
want ctx && row "pipe round trip (2 switches), us" "$(awk -v n=$((N_PIPE - N0_PIPE)) 'BEGIN { print 1e6 / n }')" "%.1f" ctx
echo
echo "ratios of host time (lower is faster), median [min-max]:"
want compute && ratios "compute loop" compute
want getpid && ratios "getpid (vsyscall)" getpid
want gettimeofday && ratios "gettimeofday (vsyscall)" gettimeofday
want getpid && ratios "getpid (int \$0x80)" getpid-int80
want gettimeofday && ratios "gettimeofday (int \$0x80)" gettimeofday-int80
want touch && ratios "touch fresh memory" touch
want md5 && ratios "busybox md5sum" md5
want hello && ratios "start-up (hello)" hello
want ctx && ratios "context switch (pipe round trip)" ctx
want forkexec && ratios "fork+exec (busybox true)" forkexec
if want harness; then
    for v in model qemu; do
        printf '  %-32s %s s wall, printed %s us (one run a repetition)\n' \
            "lat_ppid pipe, lmbench timing, $([ $v = model ] && echo emu || echo qemu-i386)" "$(stat "%.1f" < "$work/harness.$v.s")" \
            "$(stat "%.4f" < "$work/harness.$v.fig")"
    done
fi
for fmt in text csv; do
    want trace || continue
    for v in model host; do
        per trace-$fmt.$v 1 > "$work/trace-$fmt.$v.per"
    done
    printf '  %-32s %s M instructions/s written (%d per run)\n' "--trace-insns, $fmt" \
        "$(awk -v n=$trace_insns '{ print n / $1 / 1e6 }' "$work/trace-$fmt.model.per" | stat "%.2f")" "$trace_insns"
    printf '  %-32s %s M lines/s: the host writing the same bytes from /dev/zero\n' "" \
        "$(awk -v n=$trace_insns '{ print n / $1 / 1e6 }' "$work/trace-$fmt.host.per" | stat "%.2f")"
done
want hello && printf '  %-32s %s MiB maximum resident (one run)\n' "start-up memory (hello)" \
    "$(/usr/bin/time -f %M "$emu" run "$hello" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.1f", $1 / 1024 }')"
want md5 && printf '  %-32s %d guest instructions\n' "busybox md5sum 16 MiB" "$md5_insns"
true
