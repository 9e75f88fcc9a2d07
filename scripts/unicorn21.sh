#!/bin/sh
# The engine of the default build: Unicorn 2.1.
#   sh scripts/unicorn21.sh DEST
# When the system's Unicorn (pkg-config) is 2.1 or newer, the build uses it:
# DEST/pkgconfig is left empty and pkg-config finds the system's. Otherwise
# Debian's next release's packages (libunicorn-dev, with libunicorn.a, and
# libunicorn2t64) are unpacked under DEST/root and DEST/pkgconfig/unicorn.pc
# points at them (an rpath to the shared library, which the test binaries
# link; emu links the archive).
# apt runs with a private state under DEST/apt: its own sources list, its own
# package lists for amd64, an empty dpkg status and its own cache, so the
# system's sources, lists and installed Unicorn are never changed and no root
# is needed. The mirror is the system's own: the one its apt sources name for
# the release it runs (e.g. bookworm), with the suite trixie.
set -eu
dest=${1:?usage: unicorn21.sh DEST}
PACKAGES="libunicorn-dev libunicorn2t64"
SUITE=${UNICORN21_SUITE:-trixie}
lib=$dest/root/usr/lib/x86_64-linux-gnu

mkdir -p "$dest/pkgconfig"
if pkg-config --atleast-version=2.1 unicorn 2>/dev/null; then
    rm -f "$dest/pkgconfig/unicorn.pc"
    echo "unicorn21: the system's Unicorn $(pkg-config --modversion unicorn) is 2.1 or newer: using it" >&2
    exit 0
fi

have_all() {
    [ -f "$lib/libunicorn.so.2" ] && [ -f "$lib/libunicorn.a" ] &&
    [ -f "$dest/root/usr/include/unicorn/unicorn.h" ]
}

# The URI apt's sources give for the Debian archive of the running release:
# apt itself reads sources.list, sources.list.d/*.list and the deb822
# *.sources, and prints where it would fetch each suite's InRelease from.
system_mirror() {
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || return 0
    mkdir -p "$1/partial"
    apt-get -o Dir::State::lists="$1" -o Debug::NoLocking=1 --print-uris update 2>/dev/null |
        sed -n "s|^'\([^']*\)/dists/$codename/InRelease' .*|\1|p" | head -n 1
}

if ! have_all; then
    apt_dir=$(cd "$dest" && pwd)/apt
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$dest/debs"
    [ -f "$apt_dir/state/status" ] || : > "$apt_dir/state/status"
    mirror=$(system_mirror "$apt_dir/system-lists")
    if [ -z "$mirror" ]; then
        echo "unicorn21: no Debian mirror for $(. /etc/os-release && echo "${VERSION_CODENAME:-this release}")" \
             "in the system's apt sources (/etc/apt/sources.list, sources.list.d/); or build with" \
             "make UNICORN=system" >&2
        exit 1
    fi
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $SUITE main" \
        > "$apt_dir/sources.list"
    private_apt() {
        apt-get -q -o APT::Architecture=amd64 -o APT::Architectures=amd64 \
            -o Dir::Etc::sourcelist="$apt_dir/sources.list" \
            -o Dir::Etc::sourceparts=/nonexistent \
            -o Dir::State="$apt_dir/state" -o Dir::State::status="$apt_dir/state/status" \
            -o Dir::Cache="$apt_dir/cache" -o Debug::NoLocking=1 "$@"
    }
    rm -f "$dest/debs"/*.deb
    echo "unicorn21: fetching $SUITE's $PACKAGES from $mirror" >&2
    # A list that fails (a mirror caught mid-sync, a suite the packages
    # are not in) is no failure while the packages still download.
    private_apt update >"$apt_dir/update.log" 2>&1 ||
        echo "unicorn21: some package lists did not download (see $apt_dir/update.log);" \
             "trying with those that did" >&2
    if ! (cd "$dest/debs" && private_apt download $PACKAGES) >"$apt_dir/download.log" 2>&1; then
        echo "unicorn21: could not download $SUITE's $PACKAGES (see $apt_dir/*.log)" >&2
        exit 1
    fi
    rm -rf "$dest/root"
    mkdir -p "$dest/root"
    for deb in "$dest/debs"/*.deb; do
        dpkg-deb -x "$deb" "$dest/root"
    done
    if ! have_all; then
        echo "unicorn21: $dest/root lacks libunicorn.a, libunicorn.so.2 or unicorn.h" >&2
        exit 1
    fi
fi
root=$(cd "$dest/root" && pwd)
version=$(sed -n 's/^Version: *//p' "$lib/pkgconfig/unicorn.pc")
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
echo "unicorn21: Unicorn $version in $root" >&2
