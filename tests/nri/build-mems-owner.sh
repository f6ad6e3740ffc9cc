#!/bin/bash
# Builds tests/nri/mems-owner (a second NRI plugin on containerd/nri's pkg/stub) with Debian's Go
# 1.24 and Debian's containerd/nri 0.8.0 source (tests/nri/fetch-nri-go.sh, cached), in GOPATH
# mode: no module download, nothing but those packages. The binary is a cache entry
# (tests/support/cache.sh, cache nri) keyed by its source, so a machine builds it once.
#   tests/nri/build-mems-owner.sh OUTPUT
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "${1:-}" = --fill ]; then
	# --fill ROOT PART: the cache entry's filler, a process of its own; Go's build cache is the
	# entry's own while it builds
	root=$2 part=$3
	export GOROOT=$root/usr/lib/go-1.24 GOPATH=$root/usr/share/gocode GO111MODULE=off CGO_ENABLED=0
	export GOCACHE=$part/gocache GOTOOLCHAIN=local GOFLAGS=
	cd "$here/mems-owner"
	"$GOROOT/bin/go" build -o "$part/mems-owner" .
	rm -rf "$GOCACHE"
	exit 0
fi
out=${1:?usage: build-mems-owner.sh OUTPUT}
# shellcheck source=../support/cache.sh
. "$here/../support/cache.sh"
root=$("$here/fetch-nri-go.sh")
key=$(cat "$here"/mems-owner/* | sha256sum | cut -c1-16)
dir=$(cache_fill "$(cache_dir nri)/mems-owner-$key" "$root" bash "$0" --fill "$root") || exit 2
cp "$dir/mems-owner" "$out"
