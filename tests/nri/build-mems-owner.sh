#!/bin/bash
# Builds tests/nri/mems-owner (a second NRI plugin on containerd/nri's pkg/stub) with Debian's Go
# 1.24 and Debian's containerd/nri 0.8.0 source (tests/nri/fetch-nri-go.sh, cached), in GOPATH
# mode: no module download, nothing but those packages.
#   tests/nri/build-mems-owner.sh OUTPUT
set -euo pipefail
out=${1:?usage: build-mems-owner.sh OUTPUT}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$("$here/fetch-nri-go.sh")
export GOROOT=$root/usr/lib/go-1.24 GOPATH=$root/usr/share/gocode GO111MODULE=off CGO_ENABLED=0
export GOCACHE=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}/go-build-cache GOTOOLCHAIN=local GOFLAGS=
mkdir -p "$GOCACHE"
cd "$here/mems-owner"
"$GOROOT/bin/go" build -o "$out" .
