#!/bin/sh
# build-context.sh DIR [HOOK] [RUNTIME] [NRI-PLUGIN] [BUSYBOX] [NVML-PROBE] [LIBC-ROOT]: fills DIR with
# what the Containerfile copies. The NVML probe is the one dynamic program: it loads the driver's
# libnvidia-ml.so.1 from the node's driver root, so the image carries the C library both need,
# from LIBC-ROOT (default /: this machine's; another arch's root, e.g. its libc6 unpacked). build-image.sh uses it (stripped programs, one arch); or, with docker:
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
probe=${6:-$repo/build/gpu-numa-nvml-probe}
libc_root=${7:-/}
# The loader at the path the probe names (PT_INTERP) and glibc's libraries in the multiarch
# folder that loader searches by default: NVML needs libm, libdl, libpthread and librt besides libc.
case $(od -An -tu2 -j18 -N2 "$probe" | tr -d ' ') in
62) triplet=x86_64-linux-gnu interp=/lib64/ld-linux-x86-64.so.2 ;;
183) triplet=aarch64-linux-gnu interp=/lib/ld-linux-aarch64.so.1 ;;
21) triplet=powerpc64le-linux-gnu interp=/lib64/ld64.so.2 ;;
*) echo "build-context.sh: $probe: not an NVML probe for amd64, arm64 or ppc64le" >&2; exit 2 ;;
esac
mkdir -p "$dir/probe-root/usr/bin" "$dir/probe-root/lib/$triplet" "$dir/probe-root$(dirname "$interp")"
cp "$probe" "$dir/probe-root/usr/bin/gpu-numa-nvml-probe"
for lib in "$(basename "$interp")" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
  src=$libc_root/lib/$triplet/$lib
  [ -e "$src" ] || src=$libc_root/usr/lib/$triplet/$lib
  [ -e "$src" ] || { echo "build-context.sh: no $lib for $triplet under $libc_root (lib/$triplet, usr/lib/$triplet)" >&2; exit 2; }
  cp -L "$src" "$dir/probe-root/lib/$triplet/$lib"
done
[ -e "$dir/probe-root$interp" ] || cp "$dir/probe-root/lib/$triplet/$(basename "$interp")" "$dir/probe-root$interp"
cp "$repo/LICENSE" "$repo/NOTICE" "$dir/"   # the image carries its licence (Apache-2.0)
