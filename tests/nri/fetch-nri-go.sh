#!/bin/bash
# The Go side of the NRI coexistence test: trixie's Go 1.24 toolchain and sid's containerd/nri
# source (golang-github-containerd-nri-dev 0.8.0, the NRI containerd 2.1.9 is built with) with the
# Go library packages it depends on, as Debian ships them. Fetched like fetch-containerd.sh: a
# private sources list (the system's apt sources stay untouched), `apt-get download`, `dpkg-deb -x`
# into a cache. Prints the unpacked root: its usr/lib/go-1.24 is a GOROOT, its usr/share/gocode a
# GOPATH (build with GO111MODULE=off).
#
#   tests/nri/fetch-nri-go.sh
#
# Environment: NRI_PARTS_DIR (default /var/cache/gpu-numa-hook-nri).
set -euo pipefail

base=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}
dir=$base/nri-go
if [ -f "$dir/complete" ]; then
	echo "$dir/root"
	exit 0
fi
uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian
retry() {
	local i
	for i in 1 2 3 4 5; do
		"$@" && return 0
		echo "fetch-nri-go: '$*' failed (try $i of 5), retrying in $((i * 5)) s" >&2
		sleep $((i * 5))
	done
	return 1
}
# apt options for SUITE, with the same private lists fetch-containerd.sh keeps
apt_for() {
	local apt_dir=$base/apt-$1
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	echo "deb [arch=amd64] $uri $1 main" >"$apt_dir/sources.list"
	opts=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Architecture=amd64
		-o Dir::State::status=/dev/null)
}
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
cd "$dir/debs"

# The toolchain: trixie's Go 1.24 (its standard library is golang-1.24-src).
apt_for trixie
retry apt-get -qq "${opts[@]}" update >&2 || { echo "fetch-nri-go: apt-get update of trixie failed" >&2; exit 2; }
retry bash -c 'apt-get -qq "$@" download golang-1.24-go golang-1.24-src 2>&1 | grep -v "unsandboxed" >&2; ls ./golang-1.24-src_*.deb ./golang-1.24-go_*.deb >/dev/null 2>&1' \
	_ "${opts[@]}" || { echo "fetch-nri-go: cannot download golang-1.24-go from trixie" >&2; exit 2; }

# containerd/nri and the Go libraries it needs: the closure of its Depends over golang-* -dev
# packages (the status file is empty, so apt resolves all of them).
apt_for sid
retry apt-get -qq "${opts[@]}" update >&2 || { echo "fetch-nri-go: apt-get update of sid failed" >&2; exit 2; }
pkgs=$(apt-cache "${opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances golang-github-containerd-nri-dev | grep -E '^golang-.*-dev$' | sort -u)
echo "fetch-nri-go: $(echo "$pkgs" | wc -l) Go library packages from sid" >&2
# shellcheck disable=SC2086
retry bash -c 'apt-get -qq "$@" 2>&1 | grep -v "unsandboxed" >&2; ls ./golang-github-containerd-nri-dev_*.deb >/dev/null 2>&1' \
	_ "${opts[@]}" download $pkgs || { echo "fetch-nri-go: cannot download the Go packages from sid" >&2; exit 2; }
cd - >/dev/null
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
rm -rf "$dir/debs"
touch "$dir/complete"
echo "$dir/root"
