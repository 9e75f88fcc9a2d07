#!/bin/sh
# Record what Debian's strace prints for the i386 runs tests/test_strace.c
# compares emu's --strace with, on a Linux kernel that runs i386 programs:
# Debian's own amd64 kernel booted under qemu-system-x86_64 (TCG, so no KVM
# is needed) with a small initramfs holding a static busybox, the host's
# strace and its libraries, and the two guest programs. Writes one file per
# run under traces/strace/ (strace's bytes, nothing added) and
# traces/strace/README.md (where they came from). Slow: make strace-reference.
# Usage: record-strace-reference.sh [BUILD_DIR]   (default build)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=traces/strace
PROGS="$BUILD/guest/programs/strace_calls $BUILD/guest/programs/strace_signals $BUILD/guest/programs/faults"
FAULT_CASES="null kread ud2 div0 int3 hlt text-write"

fail() {
    echo "record-strace-reference: $*" >&2
    exit 1
}

sh scripts/ensure-deps.sh strace qemu-system-x86 cpio ||
    fail "the Debian packages it needs (strace qemu-system-x86 cpio) are missing"
for p in $PROGS; do
    [ -x "$p" ] || make --no-print-directory BUILD="$BUILD" "$p" >&2 || fail "could not build $p"
done

tmp=$(mktemp -d /tmp/strace-reference.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- Debian's kernel (the one linux-image-amd64 depends on) and busybox,
# unpacked in $tmp, not installed
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1)
[ -n "$kpkg" ] || fail "apt-cache names no kernel package for linux-image-amd64"
download() {
    (cd "$tmp" && apt-get download -q "$@" >/dev/null 2>&1) && return 0
    apt-get update -q >/dev/null 2>&1 || true
    (cd "$tmp" && apt-get download -q "$@" >&2)
}
download "$kpkg" busybox-static || fail "apt-get download $kpkg busybox-static failed"
kdeb=$(ls "$tmp"/linux-image-*.deb 2>/dev/null | head -n 1)
bdeb=$(ls "$tmp"/busybox-static_*.deb 2>/dev/null | head -n 1)
[ -n "$kdeb" ] && [ -n "$bdeb" ] || fail "apt-get download left no .deb in $tmp"
dpkg-deb -x "$kdeb" "$tmp/kernel" || fail "dpkg-deb -x $kdeb failed"
dpkg-deb -x "$bdeb" "$tmp/busybox" || fail "dpkg-deb -x $bdeb failed"
vmlinuz=$(ls "$tmp"/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$vmlinuz" ] || fail "$kdeb holds no boot/vmlinuz-*"
kversion=$(dpkg-deb -f "$kdeb" Version)
[ -x "$tmp/busybox/bin/busybox" ] || fail "$bdeb holds no bin/busybox"

# ---- the initramfs
root="$tmp/root"
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/build/guest/programs"
cp "$tmp/busybox/bin/busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
strace=$(command -v strace) || fail "no strace on PATH"
cp -L "$strace" "$root/bin/strace"
# every library ldd names, and the loader, at the paths ldd gives
libs=$(ldd "$strace" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
[ -n "$libs" ] || fail "ldd $strace lists no library"
for lib in $libs; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib" || fail "could not copy $lib"
done
for p in $PROGS; do
    cp "$p" "$root/build/guest/programs/"
done

# /init: run each case as the test does (stdin /dev/null, cwd /), then print
# strace's file between markers that carry its size
cases="strace_calls:portable strace_signals:handled"
for c in $FAULT_CASES; do
    cases="$cases faults:$c"
done
cat >"$root/init" <<EOF
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
# only emergencies on the console while the programs fault
echo 1 >/proc/sys/kernel/printk
cd /
for c in $cases; do
    prog=\${c%%:*}
    arg=\${c#*:}
    rm -f /tmp/out
    env -i PATH=/usr/bin:/bin HOME=/ strace -o /tmp/out /build/guest/programs/\$prog \$arg \\
        </dev/null >/dev/null 2>&1
    echo "@@@ sysemu-strace-begin \$prog-\$arg"
    cat /tmp/out
    echo "@@@ sysemu-strace-end \$prog-\$arg \$(wc -c </tmp/out)"
done
echo "@@@ sysemu-strace-strace \$(strace -V | head -n 1)"
echo "@@@ sysemu-strace-kernel \$(uname -r -v)"
echo "@@@ sysemu-strace-done"
poweroff -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) >"$tmp/initrd.gz" ||
    fail "could not pack the initramfs"

# ---- boot it
log="$tmp/console.log"
start=$(date +%s)
timeout 900 qemu-system-x86_64 -machine pc -accel tcg -cpu max -smp 1 -m 512 \
    -nodefaults -display none -no-reboot -serial "file:$log" \
    -kernel "$vmlinuz" -initrd "$tmp/initrd.gz" \
    -append "console=ttyS0 quiet panic=1" </dev/null >&2 ||
    fail "qemu-system-x86_64 failed or timed out (console: $(tail -n 3 "$log" 2>/dev/null | tr -d '\r' | tr '\n' ' '))"
seconds=$(($(date +%s) - start))
tr -d '\r' <"$log" >"$tmp/console.txt"
grep -q '^@@@ sysemu-strace-done$' "$tmp/console.txt" ||
    fail "the VM did not finish (console: $(tail -n 3 "$tmp/console.txt" | tr '\n' ' '))"

# ---- one file per case, exactly strace's bytes
mkdir -p "$OUT"
for c in $cases; do
    name="${c%%:*}-${c#*:}"
    awk -v b="@@@ sysemu-strace-begin $name" -v e="@@@ sysemu-strace-end $name " '
        $0 == b { on = 1; next }
        on && index($0, e) == 1 { exit }
        on { print }' "$tmp/console.txt" >"$tmp/$name.txt"
    want=$(sed -n "s/^@@@ sysemu-strace-end $name \([0-9]*\)\$/\1/p" "$tmp/console.txt")
    got=$(wc -c <"$tmp/$name.txt")
    [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" -eq "$want" ] ||
        fail "$name: strace wrote ${want:-nothing} bytes, the console gave $got"
    head -n 1 "$tmp/$name.txt" | grep -q '^execve(' || fail "$name: the first line is no execve"
    cp "$tmp/$name.txt" "$OUT/$name.txt"
    echo "wrote $OUT/$name.txt" >&2
done

straceversion=$(sed -n 's/^@@@ sysemu-strace-strace //p' "$tmp/console.txt")
kernelrun=$(sed -n 's/^@@@ sysemu-strace-kernel //p' "$tmp/console.txt")
spkg=$(dpkg-query -W -f='${Version}' strace)
qpkg=$(dpkg-query -W -f='${Version}' qemu-system-x86)
bpkg=$(dpkg-deb -f "$bdeb" Version)
cat >"$OUT/README.md" <<EOF
# Debian's strace of the i386 runs tests/test_strace.c compares with

Each file is exactly what \`strace -o FILE PROGRAM ARG\` wrote, for
\`build/guest/programs/strace_calls portable\`,
\`build/guest/programs/strace_signals handled\` and
\`build/guest/programs/faults CASE\`, run on a Linux kernel that runs i386
programs; its first line, the \`execve\`, is not compared. tests/test_strace.c
reads these files where the host kernel runs no i386 program
(ia32_emulation off); where it runs them, it runs strace live and checks that
the live lines are still these. The addresses in them are the programs' own
(static, not relocated): a change to either program that moves its code or
data needs a new recording, \`make strace-reference\`.

Recorded by scripts/record-strace-reference.sh on $(date -u +%Y-%m-%d):

- kernel: Debian's \`$kpkg\` $kversion, booted with an initramfs under
  \`qemu-system-x86_64 -cpu max\` (TCG; qemu-system-x86 $qpkg); the VM ran
  for ${seconds} s
- uname -r -v in the VM: $kernelrun
- strace: the host's, Debian's strace $spkg (\`strace -V\`: $straceversion)
- busybox-static $bpkg as the initramfs's shell
- each run: cwd /, stdin and stdout /dev/null, environment
  PATH=/usr/bin:/bin HOME=/
EOF
echo "wrote $OUT/README.md (the VM ran for ${seconds} s)" >&2
