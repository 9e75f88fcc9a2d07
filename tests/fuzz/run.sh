#!/bin/sh
# Run each libFuzzer target for a bounded time: run.sh BUILD SECONDS TARGET...
# FUZZ_FLAGS adds libFuzzer flags (-seed=1 to measure one session again).
# The working corpus grows in BUILD/fuzz/corpus-TARGET (seeded from
# tests/fuzz/corpus/TARGET and the old findings in tests/fuzz/crashes/TARGET);
# a finding is saved in BUILD/fuzz/findings-TARGET/
# and makes this script fail. Fix it, then copy the input to
# tests/fuzz/crashes/TARGET/ so that test_fuzz_replay keeps it fixed.
set -u
build=$1
seconds=$2
shift 2
status=0
total=0
for t in "$@"; do
    bin="$build/fuzz/fuzz_$t"
    work="$build/fuzz/corpus-$t"
    findings="$build/fuzz/findings-$t"
    log="$build/fuzz/fuzz-$t.log"
    mkdir -p "$work" "$findings"
    # ELF inputs start from real programs; syscall inputs get long at once
    # (longer means more calls per run).
    case "$t" in
        elf) limits="-max_len=16384" ;;
        # room for a packet past the 4096-byte maximum
        gdb) limits="-max_len=8192 -dict=tests/fuzz/gdb.dict" ;;
        # machine code: the instructions that reach the CPU's corners
        cpu) limits="-max_len=1024 -dict=tests/fuzz/cpu.dict" ;;
        *) limits="-max_len=1024 -len_control=0" ;;
    esac
    # A kept machine (harness.c) grows its caches as inputs run, which
    # libFuzzer's leak check after each input takes for a leak and answers
    # with a scan of the whole heap: a hundred times slower. make test-asan
    # replays every input under LeakSanitizer instead.
    case "$t" in
        gdb) ;;
        *) limits="$limits -detect_leaks=0" ;;
    esac
    echo "== fuzz $t for ${seconds}s (log: $log)"
    LSAN_OPTIONS="suppressions=tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
        $limits ${FUZZ_FLAGS:-} -print_final_stats=1 \
        -artifact_prefix="$findings/" "$work" "tests/fuzz/corpus/$t" \
        "tests/fuzz/crashes/$t" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    runs=${runs:-0}
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cpu=$(sed -n 's/^stat::cpu_seconds: *//p' "$log" | tail -n 1)
    builds=$(sed -n 's/^stat::machine_builds: *//p' "$log" | tail -n 1)
    total=$((total + runs))
    grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs)' "$log" | tail -n 1
    # executions per second of the session, and per second of CPU time
    # the target had (on a shared machine, its speed per core)
    per_cpu=$(awk -v r="$runs" -v c="${cpu:-0}" 'BEGIN { if (c > 0) printf "%.0f", r / c; else print "?" }')
    echo "fuzz $t: ${rate:-?} exec/s, $per_cpu per CPU second ($runs runs, ${cpu:-?} CPU seconds, ${builds:-?} machines booted)"
    if [ "$rc" -ne 0 ]; then
        echo "fuzz $t: FINDING after $runs runs (exit $rc):"
        grep -E 'FINDING|ERROR: (AddressSanitizer|libFuzzer|UndefinedBehaviorSanitizer)|runtime error|Test unit written' "$log" | head -n 5
        status=1
    else
        echo "fuzz $t: no findings"
    fi
done
echo "fuzz: $total runs in all"
exit $status
