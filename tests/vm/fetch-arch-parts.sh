#!/bin/bash
# The guest parts of another architecture's VM test, from Debian's archive for that arch: the kernel
# (and its modules), runc with the libraries it links, and a static busybox. They cannot be
# installed beside the build machine's own packages (runc:arm64 conflicts with runc:amd64), so the
# .debs are fetched with `apt-get download` and unpacked into a cache directory, the sysroot the
# VM test copies from.
#
#   tests/vm/fetch-arch-parts.sh ARCH      ARCH: aarch64 | ppc64le
#
# Prints the sysroot directory, a cache entry (tests/support/cache.sh, cache vm).
# Needs: apt-get with the arch enabled (dpkg --add-architecture arm64|ppc64el; tests/run-all.sh
# does it), dpkg-deb.
set -euo pipefail

arch=${1:?usage: fetch-arch-parts.sh aarch64|ppc64le}
case $arch in
aarch64) deb_arch=arm64 kernel_meta=linux-image-arm64 ;;
ppc64le) deb_arch=ppc64el kernel_meta=linux-image-powerpc64le ;;
*) echo "fetch-arch-parts: unsupported arch '$arch' (aarch64, ppc64le)" >&2; exit 2 ;;
esac
# shellcheck source=../support/cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/../support/cache.sh"
if [ "${2:-}" = --fill ]; then
	# ARCH --fill PART: the cache entry's filler, a process of its own
	part=$3
	# Here-strings, not pipes: under pipefail a reader that leaves early (grep -q, awk's exit) can
	# kill the writer with SIGPIPE and make a present architecture look absent.
	grep -qx "$deb_arch" <<<"$(dpkg --print-foreign-architectures)" || {
		echo "fetch-arch-parts: dpkg has no $deb_arch architecture: dpkg --add-architecture $deb_arch && apt-get update" >&2
		exit 2
	}
	# The kernel metapackage names the versioned image package; its modules are in the same .deb.
	kernel_pkg=$(awk '/Depends: linux-image-/{print $2; exit}' <<<"$(apt-cache depends "$kernel_meta:$deb_arch" 2>/dev/null)")
	[ -n "$kernel_pkg" ] || { echo "fetch-arch-parts: no $kernel_meta:$deb_arch in the apt indexes (apt-get update)" >&2; exit 2; }
	pkgs=("$kernel_pkg" "runc:$deb_arch" "busybox-static:$deb_arch" "libc6:$deb_arch" "libseccomp2:$deb_arch")
	mkdir -p "$part/debs" "$part/sysroot"
	# apt-get download writes into the current directory as _apt when it can; a root-only cache
	# directory makes it warn and fetch as root, which is fine here.
	cd "$part/debs"
	apt-get download -qq "${pkgs[@]}" 2>&1 | grep -v 'Download is performed unsandboxed' >&2 || true
	cd - >/dev/null
	for p in "${pkgs[@]}"; do
		name=${p%%:*}
		ls "$part/debs/${name}_"*.deb >/dev/null 2>&1 || { echo "fetch-arch-parts: apt-get download $p failed" >&2; exit 2; }
	done
	for d in "$part"/debs/*.deb; do dpkg-deb -x "$d" "$part/sysroot"; done
	rm -rf "$part/debs"
	exit 0
fi
dir=$(cache_fill "$(cache_dir vm)/$arch" "$arch guest parts" bash "$0" "$arch" --fill) || exit 2
echo "$dir/sysroot"
