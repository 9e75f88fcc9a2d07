#!/bin/sh
# Debian's i386 musl (musl, musl-dev) and busybox-static, unpacked under
# DEST/root, for the static-binary tests (tests/test_static.c).
#   sh scripts/i386-fixtures.sh DEST
# Debian's musl on amd64 is x86_64-only, so these come from the i386
# architecture: as root this adds it (dpkg --add-architecture i386),
# updates the package lists and downloads the packages; otherwise it prints
# the exact commands to run and fails.
set -eu
dest=${1:?usage: i386-fixtures.sh DEST}
PACKAGES="musl:i386 musl-dev:i386 busybox-static:i386"

have_all() {
    [ -f "$dest/root/usr/lib/i386-linux-musl/libc.a" ] &&
    [ -f "$dest/root/usr/lib/i386-linux-musl/crt1.o" ] &&
    [ -d "$dest/root/usr/include/i386-linux-musl" ] &&
    [ -x "$dest/root/bin/busybox" ]
}

have_i386() {
    dpkg --print-foreign-architectures | grep -qx i386
}

# Download into $dest/debs (apt-get download needs no root once the lists
# know the i386 packages).
download() {
    mkdir -p "$dest/debs"
    rm -f "$dest/debs"/*.deb
    (cd "$dest/debs" && apt-get download -q $PACKAGES) >/dev/null 2>&1
}

how_to() {
    abs=$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")
    echo "sysemu's static-binary tests need Debian's i386 musl and busybox-static." >&2
    echo "get them with:" >&2
    have_i386 || echo "  sudo dpkg --add-architecture i386" >&2
    echo "  sudo apt-get update" >&2
    echo "  mkdir -p $abs/debs && (cd $abs/debs && apt-get download $PACKAGES)" >&2
    echo "then run make again." >&2
    exit 1
}

have_all && exit 0

if ! ls "$dest/debs"/*.deb >/dev/null 2>&1 || [ "$(ls "$dest/debs"/*.deb | wc -l)" -lt 3 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        have_i386 && download || how_to
    else
        export DEBIAN_FRONTEND=noninteractive
        if ! have_i386; then
            echo "adding the i386 architecture to dpkg" >&2
            dpkg --add-architecture i386
        fi
        if ! download; then
            apt-get update -q >/dev/null 2>&1 || true
            download || { echo "apt-get download $PACKAGES failed" >&2; exit 1; }
        fi
    fi
fi

rm -rf "$dest/root"
mkdir -p "$dest/root"
for deb in "$dest/debs"/*.deb; do
    dpkg-deb -x "$deb" "$dest/root"
done
# Keep what the build uses: musl's libraries and headers, and busybox.
rm -rf "$dest/root/etc" "$dest/root/usr/share" "$dest/root/usr/bin"
if ! have_all; then
    echo "i386-fixtures: $dest/root lacks musl's libc.a, crt1.o, headers or busybox" >&2
    exit 1
fi
echo "i386 fixtures: musl and busybox-static in $dest/root" >&2
