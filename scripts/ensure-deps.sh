#!/bin/sh
# Make sure the Debian packages this project builds with are installed,
# plus any named on the command line (e.g. for make fuzz).
# As root: install what is missing. Otherwise: print the command and fail.
set -u
PACKAGES="libunicorn-dev libcapstone-dev check pkg-config gcc-multilib make gdb $*"
missing=""
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "sysemu needs these Debian packages:$missing" >&2
    echo "install them with:  sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q $missing >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q $missing >&2 || { echo "apt-get install failed" >&2; exit 1; }
fi
