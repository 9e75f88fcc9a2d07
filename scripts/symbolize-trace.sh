#!/bin/sh
# scripts/symbolize-trace.sh KERNEL_ELF TRACE
#
# Print an instruction trace (emu run --trace FILE --trace-insns) with every
# guest-kernel address written as symbol+offset of KERNEL_ELF, the kernel
# that made the trace: a code address, a data operand, a negative
# displacement that wraps into the kernel. Traces of two kernel builds that
# differ only in where the linker put things then compare equal:
#
#   scripts/symbolize-trace.sh old/kernel-pentium4-up.elf old.txt > a
#   scripts/symbolize-trace.sh build/guest/kernel-pentium4-up.elf traces/pentium4.txt > b
#   diff a b
#
# Addresses past the kernel image (pages it allocated at boot) are _end+N.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 KERNEL_ELF TRACE" >&2; exit 2; }
nm -n "$1" | awk -v trace="$2" '
function hexval(s,    i, v) {
    v = 0
    s = tolower(s)
    for (i = 1; i <= length(s); i++)
        v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return v
}
# kernel RAM is 0xc0000000 to 0xc4000000 (guest/abi.h)
function name(a,    lo, hi, mid) {
    if (a < first || a >= 3288334336)
        return ""
    lo = 0; hi = n - 1
    while (lo < hi) {
        mid = int((lo + hi + 1) / 2)
        if (addr[mid] <= a) lo = mid; else hi = mid - 1
    }
    return a == addr[lo] ? sym[lo] : sprintf("%s+0x%x", sym[lo], a - addr[lo])
}
# a kernel address as a token: 8 hex digits starting c0, with or without 0x
function rewrite(line,    out, s, m, a) {
    out = ""
    while (match(line, /(0x)?c0[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]/)) {
        s = substr(line, RSTART, RLENGTH)
        a = hexval(substr(s, length(s) - 7))
        m = name(a)
        out = out substr(line, 1, RSTART - 1) (m == "" ? s : m)
        line = substr(line, RSTART + RLENGTH)
    }
    line = out line
    # [reg*4 - 0x3fef9000] addresses 0xc0107000
    out = ""
    while (match(line, / - 0x[0-9a-f]+\]/)) {
        s = substr(line, RSTART + 5, RLENGTH - 6)
        m = name(4294967296 - hexval(s))
        out = out substr(line, 1, RSTART - 1) (m == "" ? substr(line, RSTART, RLENGTH) : " + " m "]")
        line = substr(line, RSTART + RLENGTH)
    }
    return out line
}
$2 ~ /^[TtDdBbRrAaNn]$/ && $1 ~ /^c0/ && $3 !~ /^\.L/ {
    addr[n] = hexval($1); sym[n] = $3
    if (!n) first = addr[0]
    n++
}
END {
    while ((getline line < trace) > 0)
        print rewrite(line)
}'
