#!/bin/bash
# The real CRI-O for tests/crio/run-crio-tests.sh: the tarball the project keeps beside its clone
# (../shared/tools/cri-o/cri-o-*-amd64.tar.xz, relative to the repository root; built from upstream
# source by that directory's build.sh, since Debian has no cri-o package), checked against its
# .sha256 and unpacked once into a cache entry keyed by that digest (tests/support/cache.sh, cache
# crio): shared/ is read-only in CI, and a new tarball gets a new entry instead of mixing with an
# old one. conmon, which CRI-O needs
# beside runc, is Debian 12's (/usr/bin/conmon; tests/run-all.sh installs it); where it is missing
# it is fetched from bookworm through a private apt state (tests/support/apt-fetch.sh).
#
#   tests/crio/crio-tool.sh REPO     prints two lines: the unpacked tool's root, then conmon's path
#
# Exit 0; 3 when ../shared/tools/cri-o has no tarball (a user's clone: the caller skips loudly, or
# fails under CI=true); 2 on any other failure (a digest mismatch, an unpack or fetch that failed).
set -euo pipefail
if [ "${1:-}" = --fill-conmon ]; then
	# --fill-conmon PART: bookworm's conmon, the cache entry's filler
	part=$2
	# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
	APT_FETCH_NAME=crio-tool . "$(dirname "${BASH_SOURCE[0]}")/../support/apt-fetch.sh"
	apt_suite "$part" bookworm
	mkdir -p "$part/debs"
	(cd "$part/debs" && apt_download './conmon_*.deb' conmon) || { echo "crio-tool: apt-get download conmon failed" >&2; exit 2; }
	dpkg-deb -x "$part"/debs/conmon_*.deb "$part/root"
	rm -rf "$part/debs" "$part/apt-bookworm"
	exit 0
fi
repo=${1:?usage: crio-tool.sh REPO}
# shellcheck source=../support/shared-tools.sh
. "$repo/tests/support/shared-tools.sh"
# shellcheck source=../support/cache.sh
. "$repo/tests/support/cache.sh"
tools=$(shared_tools_dir)/cri-o  # GNH_SHARED_TOOLS points elsewhere, as for containerd 2.2/2.3
cache=$(cache_dir crio)
tarball=$(ls "$tools"/cri-o-*-amd64.tar.xz 2>/dev/null | sort | tail -n1) || true
if [ -z "$tarball" ]; then
	echo "crio-tool: no CRI-O tarball in $tools (it sits beside the project's clone, not in the repository)" >&2
	exit 3
fi
want=$(awk '{print $1; exit}' "$tarball.sha256" 2>/dev/null) || true
got=$(sha256sum "$tarball" | awk '{print $1}')
if [ -z "$want" ] || [ "$want" != "$got" ]; then
	echo "crio-tool: $tarball has sha256 $got, its .sha256 says '${want:-(missing)}'" >&2
	exit 2
fi
dir=$(cache_fill "$cache/$got" "$got" bash -ec 'tar -xJf "$1" -C "$2" --strip-components=1' unpack "$tarball") ||
	{ echo "crio-tool: cannot unpack $tarball" >&2; exit 2; }
echo "$dir"
if [ -x /usr/bin/conmon ]; then
	echo /usr/bin/conmon
	exit 0
fi
conmon_root=$(cache_fill "$cache/bookworm-conmon" "bookworm conmon" bash "$0" --fill-conmon) || exit 2
echo "$conmon_root/root/usr/bin/conmon"
