#!/bin/bash
# A real containerd newer than Debian 12's 1.6: trixie's 1.7 or sid's 2.1, as Debian builds them
# (static Go binaries that run on Debian 12), fetched with `apt-get download` against a private
# sources list (the system's apt sources stay untouched), unpacked with `dpkg-deb -x` and cached, as
# tests/vm/fetch-arch-parts.sh does for the VMs' parts; or upstream's 2.2.7 and 2.3.4 (v2.2, v2.3),
# static builds from the upstream tags in shared/tools/containerd (tests/support/shared-tools.sh),
# unpacked into the same layout. Without shared/ it exits 77 and says why.
#
#   tests/nri/fetch-containerd.sh SUITE [PACKAGE]   SUITE: trixie | sid | v2.2 | v2.3; PACKAGE: containerd (default)
#
# Prints the unpacked root (its usr/bin/containerd, usr/bin/containerd-shim-runc-v2, usr/bin/ctr),
# a cache entry of tests/support/cache.sh (cache nri). Every apt-get step is retried
# (tests/support/apt-fetch.sh).
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download
# shellcheck source=../support/cache.sh
. "$support/cache.sh"

if [ "${1:-}" = --fill ]; then
	# --fill SUITE PACKAGE PART: the cache entry's filler (cache_fill), a process of its own
	suite=$2 pkg=$3 part=$4
	mkdir -p "$part/debs" "$part/root"
	apt_suite "$part" "$suite"
	cd "$part/debs"
	apt_download './*.deb' "$pkg" || { echo "fetch-containerd: apt-get download $pkg from $suite failed" >&2; exit 2; }
	cd - >/dev/null
	for d in "$part"/debs/*.deb; do dpkg-deb -x "$d" "$part/root"; done
	rm -rf "$part/debs" "$part/apt-$suite"
	exit 0
fi

suite=${1:?usage: fetch-containerd.sh trixie|sid|v2.2|v2.3 [package]}
pkg=${2:-containerd}
base=$(cache_dir nri)
case $suite in
	trixie | sid)
		dir=$(cache_fill "$base/$suite-$pkg" "$suite $pkg" bash "$0" --fill "$suite" "$pkg") || exit 2
		echo "$dir/root" ;;
	v2.2 | v2.3)
		# shellcheck source=../support/shared-tools.sh
		. "$support/shared-tools.sh"
		ver=$([ "$suite" = v2.2 ] && echo 2.2.7 || echo 2.3.4)
		tarball=$(shared_tool_tarball containerd "containerd-$ver-amd64.tar.xz") || exit $?
		sum=$(sha256sum <"$tarball" | cut -d' ' -f1)
		# the Debian packages' layout (usr/bin), which the suites bind over /usr/bin
		dir=$(cache_fill "$base/upstream-$ver" "$sum usr/bin" bash -ec \
			'mkdir -p "$2/root/usr"; tar -xJf "$1" -C "$2/root"; [ -d "$2/root/usr/bin" ] || mv "$2/root/bin" "$2/root/usr/bin"' \
			unpack "$tarball") || { echo "fetch-containerd: cannot unpack $tarball" >&2; exit 2; }
		echo "$dir/root" ;;
	*) echo "fetch-containerd: suite '$suite' is not trixie, sid, v2.2 or v2.3" >&2; exit 2 ;;
esac
