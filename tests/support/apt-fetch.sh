# shellcheck shell=bash
# Debian packages of another suite (trixie, sid) fetched for the tests without touching the
# system's apt: a private sources list and lists per suite, `apt-get download`, and `dpkg-deb -x`
# by the caller. Sourced by the fetch scripts (tests/nri/fetch-containerd.sh and others), used inside
# their cache fillers. Messages name the script that sourced this (APT_FETCH_NAME).
# The mirror sometimes drops an index in the middle of a sync ("File has unexpected size"), the
# npm registry a connection: every network step goes through retry.
APT_FETCH_NAME=${APT_FETCH_NAME:-$(basename "$0" .sh)}

# retry COMMAND...: up to 5 tries, 5, 10, 15, 20 s apart.
retry() {
	local i
	for i in 1 2 3 4 5; do
		"$@" && return 0
		echo "$APT_FETCH_NAME: '$*' failed (try $i of 5), retrying in $((i * 5)) s" >&2
		sleep $((i * 5))
	done
	return 1
}

# The mirror the system already uses for bookworm.
debian_mirror() {
	local uri
	uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$uri" ] || uri=$(awk '$1=="deb" && $0 ~ /bookworm/ {for (i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
	echo "${uri:-http://deb.debian.org/debian}"
}

# apt_suite DIR SUITE: sets apt_opts, the options that make apt-get read SUITE's private sources
# and lists (DIR/apt-SUITE, DIR the folder a cache filler is building: tests/support/cache.sh; it
# removes them when done), and updates those lists.
# The status file is empty, so apt resolves every dependency from SUITE. Exits 2 when the update
# fails five times.
apt_suite() {
	local apt_dir=$1/apt-$2
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	# [arch=amd64]: the build machine has arm64 and ppc64el as foreign architectures too.
	echo "deb [arch=amd64] $(debian_mirror) $2 main" >"$apt_dir/sources.list"
	apt_opts=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Architecture=amd64
		-o Dir::State::status=/dev/null)
	retry apt-get -qq "${apt_opts[@]}" update >&2 || { echo "$APT_FETCH_NAME: apt-get update of $2 failed" >&2; exit 2; }
}

# apt_download EXPECTED PACKAGE...: `apt-get download` into the current directory with apt_opts,
# retried until EXPECTED (a glob of the .debs that must be there) matches. Fails (1) after five tries.
apt_download() {
	local expected=$1
	shift
	retry bash -c 'apt-get -qq "$@" 2>&1 | grep -v "unsandboxed" >&2; ls '"$expected"' >/dev/null 2>&1' \
		_ "${apt_opts[@]}" download "$@"
}
