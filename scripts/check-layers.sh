#!/bin/sh
# scripts/check-layers.sh [DIR]
#
# The emulator (DIR, default emu/) is a folder per layer, and the table
# below ranks the folders. A unit is a folder's NAME.c, NAME.h or NAME.S,
# named folder/NAME; units include one another as "folder/NAME.h". A unit
# may include the headers of its own folder, of another folder of the same
# rank and of lower ranks, never of a higher rank; the includes among the
# units have no cycle; every folder is in the table and every source is in
# a folder. Headers outside DIR (../guest/*.h, the generated ones, the
# system's) are not units. Prints one line naming the first offender and
# fails, or one line saying all is well. docs/architecture.md says what
# each folder holds.
set -eu

dir=${1:-emu}
[ -d "$dir" ] || { echo "check-layers: no directory $dir" >&2; exit 2; }

table='
engine     0   Unicorn: the engine, its quirks, guest memory
image      1   the guest kernel images built in, their configuration, their symbols
cost       2   cycle costs: the unit, classes, tables, the CPU models, decoding
mm         3   the address spaces the host keeps for the guest kernel
vfs        3   the file tree the host keeps for the guest kernel
machine    4   the machine: one run, its CPUs, user memory, names of things
cpu        5   what the CPU does: IDT delivery, the timer, sysenter, CPUID/MSR/TSC, SMP, booting, the execution loop, debugger stops
hypercall  5   the guest kernel'"'"'s requests to the host: the port, mm, vfs
account    6   system calls and traps, from the machine'"'"'s events
observe    7   what a run writes: traces, --strace, --report, profiles
compare    7   emu compare, its figures and intervals, emu calibrate
gdb        7   the GDB remote stub and the machine behind it
cli        8   the command line: the option table, parsing, --help, main
'

files=$(cd "$dir" && find . -name '*.[chS]' | sed 's|^\./||' | sort)
includes=$(cd "$dir" && grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null || true)

printf '%s\n' "$table" | awk -v dir="$dir" -v files="$files" -v includes="$includes" '
function unit(file) {
    sub(/\.[chS]$/, "", file)
    return file
}
function folder(u) {
    return index(u, "/") ? substr(u, 1, index(u, "/") - 1) : ""
}
function fail(msg) {
    print "check-layers: " msg
    exit 1
}
# Depth-first search from u; path holds the units on the way to it.
function visit(u, path,    i, v) {
    state[u] = 1
    for (i = 1; i <= nedges[u]; i++) {
        v = edge[u, i]
        if (state[v] == 1)
            fail("include cycle: " substr(path, index(" -> " path " ", " -> " v " ") ) " -> " v)
        if (!state[v])
            visit(v, path " -> " v)
    }
    state[u] = 2
}
NF >= 2 { rank[$1] = $2 }
END {
    n = split(files, file, "\n")
    for (i = 1; i <= n; i++) {
        u = unit(file[i])
        d = folder(u)
        if (d == "")
            fail(dir "/" file[i] ": not in a layer folder")
        if (!(d in rank))
            fail(dir "/" file[i] ": folder " d " is not in the layer table")
        present[file[i]] = 1
        if (!(u in exists))
            order[++nunits] = u
        exists[u] = 1
        used[d] = 1
    }
    for (d in rank)
        if (!(d in used))
            fail("the layer table lists " d "/, which " dir " does not have")
    n = split(includes, line, "\n")
    for (i = 1; i <= n; i++) {
        if (line[i] == "")
            continue
        f = line[i]; sub(/:.*/, "", f)
        h = line[i]; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
        if (!(h in present)) {
            if (!index(h, "/") && (folder(unit(f)) "/" h) in present)
                fail(dir "/" f " includes " h " without its folder: write \"" folder(unit(f)) "/" h "\"")
            continue
        }
        from = unit(f); to = unit(h)
        if (rank[folder(to)] > rank[folder(from)])
            fail(dir "/" f " (" folder(from) "/, rank " rank[folder(from)] ") includes " h " (" folder(to) "/, rank " rank[folder(to)] ")")
        if (from != to && !((from, to) in seen)) {
            seen[from, to] = 1
            edge[from, ++nedges[from]] = to
        }
    }
    for (i = 1; i <= nunits; i++)
        if (!state[order[i]])
            visit(order[i], order[i])
    count = 0
    for (u in exists)
        count++
    nf = 0
    for (d in used)
        nf++
    printf "check-layers: %d units in %d folders of %s, no include goes up a layer, no cycle\n", count, nf, dir
}'
