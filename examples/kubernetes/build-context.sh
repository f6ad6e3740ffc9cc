#!/bin/sh
# build-context.sh DIR [HOOK] [RUNTIME] [NRI-PLUGIN] [BUSYBOX]: fills DIR with what the Containerfile
# copies. build-image.sh uses it (stripped programs, one arch); or, with docker:
#   docker build -t gpu-numa-hook:0.1.0 -f examples/kubernetes/Containerfile DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=$1
mkdir -p "$dir"
cp "${2:-$repo/build/gpu-numa-hook}" "$dir/gpu-numa-hook"
cp "${3:-$repo/build/gpu-numa-runtime}" "$dir/gpu-numa-runtime"
cp "${4:-$repo/build/gpu-numa-nri}" "$dir/gpu-numa-nri"   # the NRI plugin (nri-daemonset.yaml)
cp "${5:-$(command -v busybox)}" "$dir/busybox"   # Debian: busybox-static (statically linked)
cp "$repo/config/config.toml" "$dir/config.toml"
cp "$repo/LICENSE" "$repo/NOTICE" "$dir/"   # the image carries its licence (Apache-2.0)
