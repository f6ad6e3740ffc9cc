#!/bin/bash
# The real CRI-O for tests/crio/run-crio-tests.sh: the tarball the project keeps beside its clone
# (../shared/tools/cri-o/cri-o-*-amd64.tar.xz, relative to the repository root; built from upstream
# source by that directory's build.sh, since Debian has no cri-o package), checked against its
# .sha256 and unpacked once into a cache keyed by that digest: shared/ is read-only in CI, and a
# new tarball gets a new directory instead of mixing with an old one. conmon, which CRI-O needs
# beside runc, is Debian 12's (/usr/bin/conmon; tests/run-all.sh installs it); where it is missing
# it is fetched from bookworm through a private apt state (tests/support/apt-fetch.sh).
#
#   tests/crio/crio-tool.sh REPO     prints two lines: the unpacked tool's root, then conmon's path
#
# Exit 0; 3 when ../shared/tools/cri-o has no tarball (a user's clone: the caller skips loudly, or
# fails under CI=true); 2 on any other failure (a digest mismatch, an unpack or fetch that failed).
# Environment: GNH_CRIO_CACHE (default /var/cache/gpu-numa-hook-crio).
set -euo pipefail
repo=${1:?usage: crio-tool.sh REPO}
# shellcheck source=../support/shared-tools.sh
. "$repo/tests/support/shared-tools.sh"
tools=$(shared_tools_dir)/cri-o  # GNH_SHARED_TOOLS points elsewhere, as for containerd 2.2/2.3
cache=${GNH_CRIO_CACHE:-/var/cache/gpu-numa-hook-crio}
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
dir=$cache/$got
if [ ! -f "$dir/complete" ]; then
	# Unpacked beside the final place and renamed: a run killed half-way leaves no half tree behind
	# that a later run would take as complete.
	mkdir -p "$cache"
	part=$(mktemp -d "$cache/.unpack.XXXXXX")
	tar -xJf "$tarball" -C "$part" --strip-components=1 || { rm -rf "$part"; echo "crio-tool: cannot unpack $tarball" >&2; exit 2; }
	rm -rf "$dir"
	mv "$part" "$dir"
	touch "$dir/complete"
fi
echo "$dir"
if [ -x /usr/bin/conmon ]; then
	echo /usr/bin/conmon
	exit 0
fi
conmon_root=$cache/bookworm-conmon
if [ ! -f "$conmon_root/complete" ]; then
	# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
	APT_FETCH_NAME=crio-tool . "$(dirname "${BASH_SOURCE[0]}")/../support/apt-fetch.sh"
	apt_suite "$cache" bookworm
	rm -rf "$conmon_root"
	mkdir -p "$conmon_root/debs"
	(cd "$conmon_root/debs" && apt_download './conmon_*.deb' conmon) || { echo "crio-tool: apt-get download conmon failed" >&2; exit 2; }
	dpkg-deb -x "$conmon_root"/debs/conmon_*.deb "$conmon_root/root"
	rm -rf "$conmon_root/debs"
	touch "$conmon_root/complete"
fi
echo "$conmon_root/root/usr/bin/conmon"
