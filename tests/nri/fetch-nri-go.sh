#!/bin/bash
# The Go side of the NRI coexistence test: trixie's Go 1.24 toolchain and sid's containerd/nri
# source (golang-github-containerd-nri-dev 0.8.0, the NRI containerd 2.1.9 is built with) with the
# Go library packages it depends on, as Debian ships them. Fetched like fetch-containerd.sh: a
# private sources list (the system's apt sources stay untouched), `apt-get download`, `dpkg-deb -x`
# into a cache entry (tests/support/cache.sh, cache nri). Prints the unpacked root: its
# usr/lib/go-1.24 is a GOROOT, its usr/share/gocode a GOPATH (build with GO111MODULE=off).
#
#   tests/nri/fetch-nri-go.sh
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download
# shellcheck source=../support/cache.sh
. "$support/cache.sh"

if [ "${1:-}" = --fill ]; then
	# --fill PART: the cache entry's filler (cache_fill), a process of its own
	part=$2
	mkdir -p "$part/debs" "$part/root"
	cd "$part/debs"
	# The toolchain: trixie's Go 1.24 (its standard library is golang-1.24-src).
	apt_suite "$part" trixie
	apt_download './golang-1.24-src_*.deb ./golang-1.24-go_*.deb' golang-1.24-go golang-1.24-src ||
		{ echo "fetch-nri-go: cannot download golang-1.24-go from trixie" >&2; exit 2; }
	# containerd/nri and the Go libraries it needs: the closure of its Depends over golang-* -dev
	# packages (the status file is empty, so apt resolves all of them).
	apt_suite "$part" sid
	pkgs=$(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances golang-github-containerd-nri-dev | grep -E '^golang-.*-dev$' | sort -u)
	echo "fetch-nri-go: $(echo "$pkgs" | wc -l) Go library packages from sid" >&2
	# shellcheck disable=SC2086
	apt_download './golang-github-containerd-nri-dev_*.deb' $pkgs ||
		{ echo "fetch-nri-go: cannot download the Go packages from sid" >&2; exit 2; }
	cd - >/dev/null
	for d in "$part"/debs/*.deb; do dpkg-deb -x "$d" "$part/root"; done
	rm -rf "$part/debs" "$part"/apt-*
	exit 0
fi

dir=$(cache_fill "$(cache_dir nri)/nri-go" "go 1.24 trixie, nri sid" bash "$0" --fill) || exit 2
echo "$dir/root"
