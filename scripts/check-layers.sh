#!/bin/sh
# scripts/check-layers.sh [DIR]
#
# The emulator's units (DIR, default emu/: each NAME.c, NAME.h, NAME.S is
# unit NAME) and the layer each belongs to. A unit may include the headers
# of its own layer and the layers below, never one above; the includes
# among the units have no cycle; and every unit is in the table. Headers
# outside DIR (../guest/*.h, the generated syscall_nr.h, the system's) are
# not units. Prints one line naming the first offender and fails, or one
# line saying all is well.
#
#   0 engine      the engine, its quirks, guest memory
#   1 core        the machine, the CPU models and their costs (the cost
#                 model, its calibration data, the published figures), decoding,
#                 the kernel's symbols and source lines (dwarf_line), the file tree (vfs_*), the
#                 address spaces and what memory management costs, the
#                 names of things
#   2 mechanisms  what the CPU does: IDT delivery, the timer and interrupt
#                 controller (irq), sysenter, CPUID/MSR/TSC/
#                 ports, hypercalls (mmcall: the address-space ones;
#                 vfscall: the file tree's), booting, the execution loop,
#                 stopping it for a debugger (debug, debug_mem), snapshots
#   3 accounting  system calls and traps, from the machine's events
#   4 outputs     trace files, --strace, --report, emu compare and the
#                 metrics programs report to it, the GDB remote stub
#                 (gdb_*, gdbstub) and the machine behind it (gdb_machine)
#   5 main        the command line: its table of options (options), their
#                 parsing and --help (cli), what emu run writes (outputs)
set -eu

dir=${1:-emu}
[ -d "$dir" ] || { echo "check-layers: no directory $dir" >&2; exit 2; }

table='
engine        0
memory        0
centi         0
machine       1
cpu_models    1
tsc_skew      1
cost_classes  1
cost_tables   1
cost_model    1
calibration_data 1
published     1
interval      1
decode        1
ksyms         1
kconfig       1
symbols       1
dwarf_line    1
kernel_image  1
addrspace     1
addrspace_impl 1
addrspace_save 1
mm_costs      1
rep_count     1
vfs           1
vfs_impl      1
vfs_tree      1
vfs_clone     1
vfs_attr      1
vfs_dir       1
vfs_file      1
vfs_lower     1
vfs_namei     1
vfs_ops       1
names         1
linux_names   1
user_memory   1
trap          2
irq           2
sysenter      2
cpu_insns     2
hypercall     2
mmcall        2
vfscall       2
boot          2
run           2
smp           2
smp_code      2
debug         2
debug_mem     2
snapshot      2
syscalls      3
syscalls_page 3
spans         3
trace         4
trace_json    4
trace_line    4
trace_memo    4
trace_out     4
progress      4
profile       4
call_tree     4
strace        4
strace_args   4
strace_structs 4
strace_values 4
report        4
compare       4
metrics       4
compare_article 4
compare_svg   4
compare_validate 4
calibrate     4
gdb_packet    4
gdb_i386      4
gdb_target    4
gdb_session   4
gdb_commands  4
gdb_query     4
gdbstub       4
gdb_machine   4
main          5
outputs       5
options       5
cli           5
'

files=$(cd "$dir" && ls | grep -E '\.(c|h|S)$' || true)
includes=$(cd "$dir" && grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null || true)

printf '%s\n' "$table" | awk -v dir="$dir" -v files="$files" -v includes="$includes" '
function unit(file) {
    sub(/\.[chS]$/, "", file)
    return file
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
NF >= 2 { layer[$1] = $2 }
END {
    n = split(files, file, "\n")
    for (i = 1; i <= n; i++) {
        u = unit(file[i])
        present[file[i]] = 1
        if (!(u in layer))
            fail(dir "/" file[i] ": unit " u " is not in the layer table")
        exists[u] = 1
    }
    for (u in layer)
        if (!(u in exists))
            fail("the layer table lists " u ", which " dir " does not have")
    n = split(includes, line, "\n")
    for (i = 1; i <= n; i++) {
        if (line[i] == "")
            continue
        f = line[i]; sub(/:.*/, "", f)
        h = line[i]; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
        if (index(h, "/") || !(h in present))
            continue
        from = unit(f); to = unit(h)
        if (layer[to] > layer[from])
            fail(dir "/" f " (layer " layer[from] ") includes " h " (layer " layer[to] ")")
        if (from != to && !((from, to) in seen)) {
            seen[from, to] = 1
            edge[from, ++nedges[from]] = to
        }
    }
    for (u in exists)
        if (!state[u])
            visit(u, u)
    count = 0
    for (u in exists)
        count++
    printf "check-layers: %d units in %s, no include goes up a layer, no cycle\n", count, dir
}'
