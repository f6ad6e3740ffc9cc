# shellcheck shell=bash
# The real builds in shared/tools beside the repository (containerd 2.2/2.3, CRI-O): CI has that
# folder, a user's clone does not. Sourced. shared_tool_tarball prints a tarball's path, or says
# loudly why there is none and returns 77, which the suites turn into a loud skip (a failure under
# CI=true: tests/support/tally.sh). GNH_SHARED_TOOLS points elsewhere.

# shared_tools_dir: where shared/tools is (it need not exist)
shared_tools_dir() {
	local repo
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	echo "${GNH_SHARED_TOOLS:-$repo/../shared/tools}"
}

# shared_tool_tarball SUBDIR NAME: the path of shared/tools/SUBDIR/NAME
shared_tool_tarball() {
	local f
	f=$(shared_tools_dir)/$1/$2
	if [ ! -f "$f" ]; then
		echo "$f is not here: these real builds come with the project's shared/ folder (CI has it, a clone does not; set GNH_SHARED_TOOLS to another copy)" >&2
		return 77
	fi
	echo "$f"
}

# unpack_cached TARBALL CACHE-ENTRY: TARBALL unpacked once into CACHE-ENTRY/root (a cache entry,
# tests/support/cache.sh, keyed by the tarball's sha256: a changed tarball is unpacked again);
# prints that root. CACHE-ENTRY is relative to the caches' root, e.g. nvidia/toolkit-1.20.0.
unpack_cached() {
	local tarball=$1 sum entry
	sum=$(sha256sum <"$tarball" | cut -d' ' -f1) || return 1
	# shellcheck source=cache.sh
	. "$(dirname "${BASH_SOURCE[0]}")/cache.sh"
	entry=$(cache_fill "$(cache_dir "${2%%/*}")/${2#*/}" "$sum" \
		bash -ec 'mkdir "$2/root"; tar -xJf "$1" -C "$2/root"' unpack "$tarball") ||
		{ echo "cannot unpack $tarball" >&2; return 1; }
	echo "$entry/root"
}
