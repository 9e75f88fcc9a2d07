#!/bin/sh
# Debian's i386 musl (musl, musl-dev), busybox-static and zsh-static,
# unpacked under DEST/root, for the static-binary tests (tests/test_static.c)
# and the shells run beside their native runs (busybox sh, zsh).
#   sh scripts/i386-fixtures.sh DEST
# Debian's musl on amd64 is x86_64-only, so these come from the i386
# architecture. apt runs with a private state under DEST/apt (its own
# package lists for i386, an empty dpkg status, its own cache), so the
# system's dpkg architectures and package lists are never changed and no
# root is needed: only the network to the system's Debian mirrors.
set -eu
dest=${1:?usage: i386-fixtures.sh DEST}
PACKAGES="musl musl-dev busybox-static zsh-static"

have_all() {
    [ -f "$dest/root/usr/lib/i386-linux-musl/libc.a" ] &&
    [ -f "$dest/root/usr/lib/i386-linux-musl/crt1.o" ] &&
    [ -d "$dest/root/usr/include/i386-linux-musl" ] &&
    [ -x "$dest/root/bin/busybox" ] &&
    [ -x "$dest/root/bin/zsh-static" ]
}

have_all && exit 0

mkdir -p "$dest"
apt_dir=$(cd "$dest" && pwd)/apt
mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$dest/debs"
[ -f "$apt_dir/state/status" ] || : > "$apt_dir/state/status"
private_apt() {
    apt-get -q -o APT::Architecture=i386 -o APT::Architectures=i386 \
        -o Dir::State="$apt_dir/state" -o Dir::State::status="$apt_dir/state/status" \
        -o Dir::Cache="$apt_dir/cache" -o Debug::NoLocking=1 "$@"
}

if [ "$(ls "$dest/debs"/*.deb 2>/dev/null | wc -l)" -lt "$(echo $PACKAGES | wc -w)" ]; then
    rm -f "$dest/debs"/*.deb
    # A list that fails (a mirror caught mid-sync, a suite the packages
    # are not in) is no failure while the packages still download.
    private_apt update >"$apt_dir/update.log" 2>&1 ||
        echo "i386-fixtures: some package lists did not download (see $apt_dir/update.log);" \
             "trying with those that did" >&2
    if ! (cd "$dest/debs" && private_apt download $PACKAGES) >"$apt_dir/download.log" 2>&1; then
        echo "i386-fixtures: could not download i386 $PACKAGES from the system's" \
             "Debian mirrors (see $apt_dir/*.log)" >&2
        exit 1
    fi
fi

rm -rf "$dest/root"
mkdir -p "$dest/root"
for deb in "$dest/debs"/*.deb; do
    dpkg-deb -x "$deb" "$dest/root"
done
# Keep what the build uses: musl's libraries and headers, busybox and zsh.
rm -rf "$dest/root/etc" "$dest/root/usr/share" "$dest/root/usr/bin"
if ! have_all; then
    echo "i386-fixtures: $dest/root lacks musl's libc.a, crt1.o, headers, busybox or zsh" >&2
    exit 1
fi
echo "i386 fixtures: musl, busybox-static and zsh-static in $dest/root" >&2
