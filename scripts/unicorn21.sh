#!/bin/sh
# Debian trixie's Unicorn 2.1 (libunicorn-dev, libunicorn2t64), unpacked
# under DEST/root, for make test-unicorn21.
#   sh scripts/unicorn21.sh DEST
# apt runs with a private state under DEST/apt: its own sources list (trixie
# main), its own package lists for amd64, an empty dpkg status and its own
# cache, so the system's sources, lists and installed Unicorn are never
# changed and no root is needed. Writes DEST/pkgconfig/unicorn.pc for the
# unpacked library (with an rpath to it) and prints that directory, for
# PKG_CONFIG_PATH.
set -eu
dest=${1:?usage: unicorn21.sh DEST}
PACKAGES="libunicorn-dev libunicorn2t64"
SUITE=${UNICORN21_SUITE:-trixie}
lib=$dest/root/usr/lib/x86_64-linux-gnu

have_all() {
    [ -f "$lib/libunicorn.so.2" ] && [ -f "$dest/root/usr/include/unicorn/unicorn.h" ]
}

if ! have_all; then
    mkdir -p "$dest"
    apt_dir=$(cd "$dest" && pwd)/apt
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$dest/debs"
    [ -f "$apt_dir/state/status" ] || : > "$apt_dir/state/status"
    # The mirror the system uses for Debian, with trixie instead of bookworm.
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
         "http://deb.debian.org/debian $SUITE main" > "$apt_dir/sources.list"
    private_apt() {
        apt-get -q -o APT::Architecture=amd64 -o APT::Architectures=amd64 \
            -o Dir::Etc::sourcelist="$apt_dir/sources.list" \
            -o Dir::Etc::sourceparts=/nonexistent \
            -o Dir::State="$apt_dir/state" -o Dir::State::status="$apt_dir/state/status" \
            -o Dir::Cache="$apt_dir/cache" -o Debug::NoLocking=1 "$@"
    }
    rm -f "$dest/debs"/*.deb
    if ! private_apt update >"$apt_dir/update.log" 2>&1 ||
       ! (cd "$dest/debs" && private_apt download $PACKAGES) >"$apt_dir/download.log" 2>&1; then
        echo "unicorn21: could not download $SUITE's $PACKAGES (see $apt_dir/*.log)" >&2
        exit 1
    fi
    rm -rf "$dest/root"
    mkdir -p "$dest/root"
    for deb in "$dest/debs"/*.deb; do
        dpkg-deb -x "$deb" "$dest/root"
    done
    if ! have_all; then
        echo "unicorn21: $dest/root lacks libunicorn.so.2 or unicorn.h" >&2
        exit 1
    fi
fi
root=$(cd "$dest/root" && pwd)
version=$(sed -n 's/^Version: *//p' "$lib/pkgconfig/unicorn.pc")
mkdir -p "$dest/pkgconfig"
cat > "$dest/pkgconfig/unicorn.pc" <<PC
prefix=$root/usr
libdir=\${prefix}/lib/x86_64-linux-gnu
includedir=\${prefix}/include

Name: unicorn
Description: Unicorn emulator engine (Debian $SUITE's, unpacked by scripts/unicorn21.sh)
Version: $version
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lunicorn
Libs.private: -lpthread -lm
Cflags: -I\${includedir}
PC
echo "$(cd "$dest/pkgconfig" && pwd)"
