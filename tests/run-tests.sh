#!/bin/sh
# tests/run-tests.sh TEST...: run each test binary; each prints Check's
# summary line. Fails if any failed.
status=0
for t in "$@"; do
    echo "== $(basename "$t")"
    CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$t" || status=1
done
exit $status
