#!/bin/sh
# build-image.sh [--arch amd64|arm64|ppc64le] [--tag REF] [--binaries DIR] [--busybox FILE] [--libc-root DIR] [--save FILE]
#
# Builds the node image (Containerfile: the hook, the runtime shim, the NRI plugin, the default
# config, a static busybox, the NVML probe and its C library) offline with buildah and tags it, by
# default gpu-numa-hook:<version>, the name the manifests use. Nothing is pulled: the image is FROM scratch.
#   --arch      the image's architecture (default: this machine's); the binaries must be built for it
#   --binaries  the build directory holding gpu-numa-hook, gpu-numa-runtime, gpu-numa-nri and
#               gpu-numa-nvml-probe
#               (default: build/ for this machine's arch, build-aarch64/ or build-ppc64le/ otherwise)
#   --busybox   a static busybox for that arch (default: this machine's, for its own arch; Debian's
#               busybox-static:<arch> otherwise, e.g. from `apt-get download busybox-static:arm64`)
#   --libc-root a root holding that arch's glibc in lib/<multiarch> (default /: this machine's, or
#               another arch's installed by multiarch, e.g. `apt-get install libc6:arm64`)
#   --save      also write the image as a docker-archive FILE for `ctr -n k8s.io images import FILE`
# Then push it: buildah push gpu-numa-hook:<version> docker://registry.example.com/gpu-numa-hook:<version>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
version=$(sed -n 's/^project(gpu-numa-hook VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
host_arch=$(uname -m)
arch="" tag="" bin="" busybox="" libc_root=/ save=""
while [ $# -gt 0 ]; do
  case $1 in
  --arch) arch=$2 ;;
  --tag) tag=$2 ;;
  --binaries) bin=$2 ;;
  --busybox) busybox=$2 ;;
  --libc-root) libc_root=$2 ;;
  --save) save=$2 ;;
  *) echo "build-image.sh: unknown option '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift 2
done
case ${arch:-$host_arch} in
amd64 | x86_64) arch=amd64 machine=x86_64 triplet=x86_64-linux-gnu ;;
arm64 | aarch64) arch=arm64 machine=aarch64 triplet=aarch64-linux-gnu ;;
ppc64le | ppc64el) arch=ppc64le machine=ppc64le triplet=powerpc64le-linux-gnu ;;
*) echo "build-image.sh: unsupported arch '$arch' (amd64, arm64, ppc64le)" >&2; exit 2 ;;
esac
[ "$machine" = "$host_arch" ] && native=1 || native=0
[ -n "$bin" ] || { [ $native = 1 ] && bin=$repo/build || bin=$repo/build-$machine; }
[ -n "$busybox" ] || { [ $native = 1 ] && busybox=$(command -v busybox) || true; }
[ -n "$busybox" ] || { echo "build-image.sh: --busybox FILE: a static busybox for $arch (Debian: busybox-static:$arch)" >&2; exit 2; }
[ -n "$tag" ] || tag=gpu-numa-hook:$version
command -v buildah >/dev/null || { echo "build-image.sh: needs buildah (apt-get install buildah)" >&2; exit 2; }
strip=strip
[ $native = 1 ] || strip=$triplet-strip
command -v "$strip" >/dev/null || { echo "build-image.sh: needs $strip (binutils for $triplet)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The image must hold programs of its own arch: a mix-up would only show on the node.
for f in "$bin/gpu-numa-hook" "$bin/gpu-numa-runtime" "$bin/gpu-numa-nri" "$bin/gpu-numa-nvml-probe" "$busybox"; do
  [ -x "$f" ] || { echo "build-image.sh: no $f (build it first: cmake --build $bin)" >&2; exit 2; }
  m=$(od -An -tu2 -j18 -N2 "$f" | tr -d ' ')
  case $arch:$m in amd64:62 | arm64:183 | ppc64le:21) ;; *)
    echo "build-image.sh: $f is not an $arch program (ELF machine $m)" >&2; exit 2 ;;
  esac
done
for b in gpu-numa-hook gpu-numa-runtime gpu-numa-nri gpu-numa-nvml-probe; do
  "$strip" -o "$work/$b" "$bin/$b" # debug info stays in the build tree, not on every node
done
ctx=$work/context
sh "$here/build-context.sh" "$ctx" "$work/gpu-numa-hook" "$work/gpu-numa-runtime" "$work/gpu-numa-nri" "$busybox" \
  "$work/gpu-numa-nvml-probe" "$libc_root"
buildah build --quiet --network none --platform "linux/$arch" --build-arg "VERSION=$version" \
  -t "$tag" -f "$here/Containerfile" "$ctx" >/dev/null
if [ -n "$save" ]; then
  rm -f "$save"
  buildah push --quiet "$tag" "docker-archive:$save:$tag"
fi
echo "$tag ($arch)${save:+ saved as $save}"
