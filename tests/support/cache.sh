# shellcheck shell=bash
# The one way a test, a fetch or a benchmark fills a cache that others share: ctest runs tests in
# parallel, and run-all.sh fetches while it builds, so two of them can start on the same empty
# cache. Sourced.
#
# A cache entry is a folder that is either absent or whole: it is built in a temporary folder
# beside it, under an flock on ENTRY.lock, stamped (ENTRY/complete holds its key) and renamed into
# place. A reader that finds it whole takes it without a lock; one that finds it missing, or of
# another key, waits for the lock, looks again, and builds it only if still needed. Nobody deletes
# an entry another is building. tests/lint/check-cache-writes.sh keeps every writer on this path.
#
# Where the caches live: GNH_CACHE_ROOT (default /var/cache), each cache a folder
# gpu-numa-hook-NAME there. GNH_COLD_CACHES=1 bash tests/run-all.sh points GNH_CACHE_ROOT at a
# fresh, empty folder: a run as a new machine's first.

# cache_dir NAME: the folder of cache NAME (not created)
cache_dir() {
	echo "${GNH_CACHE_ROOT:-/var/cache}/gpu-numa-hook-$1"
}

# cache_fill ENTRY KEY FILLER [ARG...]: makes ENTRY hold what FILLER builds for KEY, and prints
# ENTRY. FILLER runs as `FILLER ARG... PART`, PART an empty folder beside ENTRY that becomes ENTRY
# if FILLER exits 0; it writes nothing else. FILLER is a program (a fetch script run again as
# `bash SCRIPT --fill ...`, or `bash -ec '...'`), not a shell function: bash ignores `set -e` in a
# function whose caller tests its status, so a failing step would go on and be stamped whole.
# KEY is one line: what the entry was built from (a digest, a version), so a changed source builds
# it anew. Returns 1, PART removed, when FILLER fails or the lock is not had within GNH_CACHE_WAIT
# seconds (default 3600).
cache_fill() {
	local entry=$1 key=$2 part rc=0
	shift 2
	if [ "$(cat "$entry/complete" 2>/dev/null)" = "$key" ]; then
		echo "$entry"
		return 0
	fi
	mkdir -p "$(dirname "$entry")" || return 1
	(
		exec 9>>"$entry.lock"
		if ! flock -w "${GNH_CACHE_WAIT:-3600}" 9; then
			echo "cache: waited ${GNH_CACHE_WAIT:-3600} s for $entry, which another run is filling (lock $entry.lock held by pid(s) $(fuser "$entry.lock" 2>/dev/null | xargs))" >&2
			exit 1
		fi
		# Filled meanwhile by the run we waited for.
		[ "$(cat "$entry/complete" 2>/dev/null)" = "$key" ] && exit 0
		part=$(mktemp -d "$entry.part.XXXXXX") || exit 1
		# mktemp's 0700 would keep apt's _apt user and non-root readers out
		chmod 755 "$part" || exit 1
		("$@" "$part") || rc=$?
		if [ "$rc" != 0 ]; then
			rm -rf "$part"
			echo "cache: filling $entry failed (exit $rc)" >&2
			exit 1
		fi
		printf '%s\n' "$key" >"$part/complete" || { rm -rf "$part"; exit 1; }
		# An entry of another key is replaced; under the lock, nobody is building it.
		if [ -e "$entry" ]; then
			local old
			old=$(mktemp -d "$entry.old.XXXXXX") && mv "$entry" "$old/" && rm -rf "$old"
		fi
		mv "$part" "$entry"
	) || return 1
	echo "$entry"
}

# cache_drop ENTRY: removes ENTRY once nobody is filling it (an outdated build's leftovers).
cache_drop() {
	local entry=$1
	[ -e "$entry" ] || return 0
	(
		exec 9>>"$entry.lock"
		flock -w "${GNH_CACHE_WAIT:-3600}" 9 || exit 1
		rm -rf "$entry"
	)
}

# cache_key TEXT...: a short digest of TEXT, for entries whose source is a list of names
cache_key() {
	printf '%s\n' "$*" | sha256sum | cut -c1-16
}

# cache_go_cold: with GNH_COLD_CACHES=1, exports GNH_CACHE_ROOT as a new empty folder, so that
# every cache of this run starts empty, as on a new machine, and prints where; the caller removes
# it (cache_cold_done) when the run ends.
cache_go_cold() {
	[ "${GNH_COLD_CACHES:-}" = 1 ] || return 0
	GNH_CACHE_ROOT=$(mktemp -d /var/tmp/gnh-cold-caches.XXXXXX) || return 1
	export GNH_CACHE_ROOT
	echo "== GNH_COLD_CACHES=1: every cache starts empty, under $GNH_CACHE_ROOT (removed at the end)"
}

# cache_cold_done: removes the folder cache_go_cold made (nothing without GNH_COLD_CACHES=1)
cache_cold_done() {
	[ "${GNH_COLD_CACHES:-}" = 1 ] && [ -n "${GNH_CACHE_ROOT:-}" ] || return 0
	case $GNH_CACHE_ROOT in /var/tmp/gnh-cold-caches.*) rm -rf "$GNH_CACHE_ROOT" ;; esac
}
