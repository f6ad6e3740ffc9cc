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
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source-path=SCRIPTDIR source=../support/apt-fetch.sh
. "$support/apt-fetch.sh"  # retry, apt_suite, apt_download

base=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}
dir=$base/nri-go
if [ -f "$dir/complete" ]; then
	echo "$dir/root"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
cd "$dir/debs"

# The toolchain: trixie's Go 1.24 (its standard library is golang-1.24-src).
apt_suite "$base" trixie
apt_download './golang-1.24-src_*.deb ./golang-1.24-go_*.deb' golang-1.24-go golang-1.24-src ||
	{ echo "fetch-nri-go: cannot download golang-1.24-go from trixie" >&2; exit 2; }

# containerd/nri and the Go libraries it needs: the closure of its Depends over golang-* -dev
# packages (the status file is empty, so apt resolves all of them).
apt_suite "$base" sid
pkgs=$(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances golang-github-containerd-nri-dev | grep -E '^golang-.*-dev$' | sort -u)
echo "fetch-nri-go: $(echo "$pkgs" | wc -l) Go library packages from sid" >&2
# shellcheck disable=SC2086
apt_download './golang-github-containerd-nri-dev_*.deb' $pkgs ||
	{ echo "fetch-nri-go: cannot download the Go packages from sid" >&2; exit 2; }
cd - >/dev/null
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
rm -rf "$dir/debs"
touch "$dir/complete"
echo "$dir/root"
