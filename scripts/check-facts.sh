#!/bin/sh
# scripts/check-facts.sh [ROOT]
#
# Each fact the emulator and the guest share is defined once (TEAM.md):
# system-call numbers in guest/syscalls.def (everything else uses the
# generated SYS_* names), signal numbers in guest/signals.def, the x86
# facts (vectors, EFLAGS, CR0/CR4, PTE bits, gate types, MSRs) in
# guest/x86.h. Searches the C, header and assembly files under ROOT/emu,
# ROOT/guest and ROOT/tests (default ROOT: the current directory) for a
# second definition or a bare vector number, prints one line naming the
# first and fails, or prints one line saying all is well.
set -eu

root=${1:-.}
files=$(find "$root/emu" "$root/guest" "$root/tests" \
             -name '*.[chS]' -o -name '*.def' | LC_ALL=C sort)
[ -n "$files" ] || { echo "check-facts: no sources under $root" >&2; exit 2; }

# check WHAT PATTERN [FILE...]: fail on a match outside the FILEs (and not
# matching $except).
except='^$'
check() {
    what=$1 pattern=$2
    shift 2
    hit=$(grep -n -E "$pattern" $files /dev/null | grep -v -E "$except" || true)
    for allowed; do
        hit=$(printf '%s\n' "$hit" | grep -v -F "$allowed:" || true)
    done
    hit=$(printf '%s\n' "$hit" | sed -n '/./{p;q;}')
    if [ -n "$hit" ]; then
        echo "check-facts: $what: $hit"
        exit 1
    fi
}

# a number after the name: a definition of a fact, not a use or an alias
num='[[:space:]]+\(?(0x[0-9a-fA-F]+|[0-9]+)'
define='^[[:space:]]*#[[:space:]]*define[[:space:]]+'

check "a system-call number outside guest/syscalls.def" \
    "${define}(SYS|__NR|NR)_[A-Za-z0-9_]+$num|(^|[^A-Za-z0-9_])SYS_[a-z0-9_]+[[:space:]]*=[[:space:]]*[0-9]"
# syscallN(NUMBER, ...) with a number that syscalls.def names
hit=$(grep -n -o -E '(^|[^A-Za-z0-9_])syscall[0-6][[:space:]]*\([[:space:]]*[0-9]+' $files /dev/null |
      awk -v def="$root/guest/syscalls.def" '
          BEGIN { while ((getline l < def) > 0) if (l ~ /^SYSCALL\(/) {
                      sub(/^SYSCALL\([[:space:]]*/, "", l); sub(/,.*/, "", l); known[l + 0] = 1 } }
          { n = $0; sub(/.*\(/, "", n); if ((n + 0) in known) { print; exit } }')
if [ -n "$hit" ]; then
    echo "check-facts: a system call called by its bare number: $hit"
    exit 1
fi
check "a signal number outside guest/signals.def" "${define}SIG[A-Z0-9]+$num"
# (TF_VECTOR in guest/kernel/ptrace.h is a frame slot's offset)
except=':[0-9]+:#define[[:space:]]+TF_'
check "an exception vector outside guest/x86.h (and abi.h's SYSCALL_VECTOR)" \
    "${define}[A-Z0-9_]*VEC[A-Z0-9_]*$num" "$root/guest/x86.h" "$root/guest/abi.h"
except='^$'
check "an EFLAGS bit outside guest/x86.h" "${define}[A-Z0-9_]*EFLAGS_[A-Z0-9_]+$num" \
    "$root/guest/x86.h"
check "a CR0/CR4 bit outside guest/x86.h" "${define}[A-Z0-9_]*CR[04]_[A-Z0-9_]+$num" \
    "$root/guest/x86.h"
check "a page-table bit outside guest/x86.h" \
    "${define}[A-Z0-9_]*(PTE|PAGE)_(PRESENT|RW|USER|ACCESSED|DIRTY)$num" "$root/guest/x86.h"
check "a gate or descriptor type outside guest/x86.h" \
    "${define}[A-Z0-9_]*(GATE|TYPE_INTR|TYPE_TRAP|TYPE_TSS|TYPE_LDT)[A-Z0-9_]*$num" \
    "$root/guest/x86.h"
check "an MSR number outside guest/x86.h" "${define}MSR_[A-Z0-9_]+$num" "$root/guest/x86.h"
check "a bare exception vector" \
    'raise_fault\([^,]+,[[:space:]]*[0-9]|sysenter_fault\([^,]+,[^,]+,[[:space:]]*[0-9]|bare_halted_vector\([^)]*\),[[:space:]]*(0x)?[0-9]|(vector|intno)[[:space:]]*==[[:space:]]*[0-9]|set_gate\([[:space:]]*(0x)?[0-9]'

# (ELF* are the ELF header's, guest/kernel/elf.h)
except=':[0-9]+:[[:space:]]*#[[:space:]]*define[[:space:]]+ELF'
check "a Linux ABI value (errno, open, fcntl, mmap, wait) outside guest/linux_abi.def" \
    "${define}(LINUX_)?(E[A-Z0-9]+|ERESTART[A-Z_]*|O_[A-Z]+|__O_[A-Z]+|FASYNC|F_[A-Z_]+|FD_CLOEXEC|SEEK_[A-Z]+|AT_(FDCWD|SYMLINK_[A-Z]+|REMOVEDIR|EACCESS|NO_AUTOMOUNT|EMPTY_PATH|RECURSIVE)|[FRWX]_OK|S_IF[A-Z]+|PROT_[A-Z]+|MAP_[A-Z0-9_]+|MREMAP_[A-Z]+|_*W(NOHANG|UNTRACED|STOPPED|EXITED|CONTINUED|NOWAIT|NOTHREAD|ALL|CLONE)|P_(ALL|PID|PGID))$num"
except='^$'

# Every ABI row against the host's Linux headers, built for i386: the same
# name, the same value. (Without a 32-bit compiler: said, and skipped.)
abi_def="$root/guest/linux_abi.def"
if [ -f "$abi_def" ] && echo 'int x;' | gcc -m32 -x c -fsyntax-only - 2>/dev/null; then
    probe=$(mktemp -d)
    trap 'rm -rf "$probe"' EXIT
    {
        printf '#include <asm/errno.h>\n#include <asm/fcntl.h>\n#include <asm/mman.h>\n'
        printf '#include <linux/fcntl.h>\n#include <linux/fs.h>\n#include <linux/stat.h>\n'
        printf '#include <linux/mman.h>\n#include <linux/wait.h>\n#include <unistd.h>\n'
        sed -n 's/^ABI(\([A-Za-z0-9_]*\), *\(-*[0-9a-fA-Fx]*\))$/#ifndef \1\n#error \1: not in the host headers\n#endif\n_Static_assert(\1 == (\2), "\1");/p' "$abi_def"
    } > "$probe/abi.c"
    if ! gcc -m32 -fsyntax-only "$probe/abi.c" 2> "$probe/err"; then
        echo "check-facts: guest/linux_abi.def differs from the host's Linux headers: $(grep -m1 -E 'error:' "$probe/err")"
        exit 1
    fi
else
    echo "check-facts: no i386 compiler: guest/linux_abi.def not compared with the host's headers" >&2
fi

echo "check-facts: each system-call number, signal, vector, x86 bit and Linux ABI value is defined once"
