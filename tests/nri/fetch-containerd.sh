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
# Prints the unpacked root (its usr/bin/containerd, usr/bin/containerd-shim-runc-v2, usr/bin/ctr).
# Environment: NRI_PARTS_DIR (default /var/cache/gpu-numa-hook-nri). Every apt-get step is retried
# (tests/support/apt-fetch.sh).
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download

suite=${1:?usage: fetch-containerd.sh trixie|sid|v2.2|v2.3 [package]}
pkg=${2:-containerd}
base=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}
case $suite in
	trixie | sid) ;;
	v2.2 | v2.3)
		# shellcheck source=../support/shared-tools.sh
		. "$support/shared-tools.sh"
		ver=$([ "$suite" = v2.2 ] && echo 2.2.7 || echo 2.3.4)
		tarball=$(shared_tool_tarball containerd "containerd-$ver-amd64.tar.xz") || exit $?
		root=$(unpack_cached "$tarball" "$base/upstream-$ver") || exit 2
		# the Debian packages' layout, which the suites bind over /usr/bin
		[ -d "$root/usr/bin" ] || { mkdir -p "$root/usr" && mv "$root/bin" "$root/usr/bin"; } || exit 2
		echo "$root"
		exit 0 ;;
	*) echo "fetch-containerd: suite '$suite' is not trixie, sid, v2.2 or v2.3" >&2; exit 2 ;;
esac
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
