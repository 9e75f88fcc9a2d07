#!/bin/sh
# Run every test binary; each prints Check's summary line.
build=${1:-build}
status=0
for t in "$build"/tests/test_*; do
    case "$t" in *.o|*.d) continue ;; esac
    [ -x "$t" ] || continue
    echo "== $(basename "$t")"
    CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$t" || status=1
done
exit $status
