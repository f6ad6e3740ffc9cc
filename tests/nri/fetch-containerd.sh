#!/bin/bash
# A real containerd newer than Debian 12's 1.6, for the NRI suite: trixie's 1.7 or sid's 2.1, as
# Debian builds them (static Go binaries that run on Debian 12). Fetched with `apt-get download`
# against a private sources list (the system's apt sources stay untouched), unpacked with
# `dpkg-deb -x` and cached, as tests/vm/fetch-arch-parts.sh does for the VMs' parts.
#
#   tests/nri/fetch-containerd.sh SUITE [PACKAGE]   SUITE: trixie | sid; PACKAGE: containerd (default)
#
# Prints the unpacked root (its usr/bin/containerd, usr/bin/containerd-shim-runc-v2). Environment:
# NRI_PARTS_DIR (default /var/cache/gpu-numa-hook-nri). Every apt-get step is retried
# (tests/support/apt-fetch.sh).
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download

suite=${1:?usage: fetch-containerd.sh trixie|sid [package]}
pkg=${2:-containerd}
case $suite in trixie | sid) ;; *) echo "fetch-containerd: suite '$suite' is not trixie or sid" >&2; exit 2 ;; esac
base=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}
dir=$base/$suite-$pkg
if [ -f "$dir/complete" ]; then
	echo "$dir/root"
	exit 0
fi

apt_suite "$base" "$suite"
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
cd "$dir/debs"
apt_download './*.deb' "$pkg" || { echo "fetch-containerd: apt-get download $pkg from $suite failed" >&2; exit 2; }
cd - >/dev/null
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
rm -rf "$dir/debs"
touch "$dir/complete"
echo "$dir/root"
