#!/bin/bash
# check-image.sh ARCH BUILD_DIR: the node image for ARCH (aarch64 | ppc64le), built from that
# arch's cross tree by examples/kubernetes/build-image.sh (the documented command), in storage of
# its own; then its manifest's architecture, and the plugin, hook, busybox and NVML probe it carries run under
# qemu-user (binfmt, tests/cross/register-binfmt.sh) and print their versions. Run by
# tests/run-all.sh after the cross build. Exit 0 when every check passes.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
arch=${1:?usage: check-image.sh aarch64|ppc64le BUILD_DIR}
bin=${2:?usage: check-image.sh aarch64|ppc64le BUILD_DIR}
case $arch in aarch64) oci=arm64 ;; ppc64le) oci=ppc64le ;; *) echo "check-image: unsupported arch $arch" >&2; exit 2 ;; esac
version=$(sed -n 's/^project(gpu-numa-hook VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
tmp=$(mktemp -d /tmp/gnh-image.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '[storage]\ndriver = "vfs"\nrunroot = "%s/run"\ngraphroot = "%s/root"\n' "$tmp" "$tmp" >"$tmp/storage.conf"
export CONTAINERS_STORAGE_CONF=$tmp/storage.conf
fail=0
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fail=1; fi; }
sysroot=$(bash "$repo/tests/vm/fetch-arch-parts.sh" "$arch") || { echo "FAIL: no $arch busybox (tests/vm/fetch-arch-parts.sh)"; exit 1; }
tag=gpu-numa-hook-$oci:$version
out=$(sh "$repo/examples/kubernetes/build-image.sh" --arch "$oci" --binaries "$bin" --busybox "$sysroot/bin/busybox" \
      --libc-root "$sysroot" --tag "$tag" --save "$tmp/image.tar" 2>&1)
check "build-image.sh --arch $oci: $out" '[ "$out" = "$tag ($oci) saved as $tmp/image.tar" ]'
check "the image's manifest says linux/$oci" \
      '[ "$(buildah inspect --format "{{.OCIv1.OS}}/{{.OCIv1.Architecture}}" "$tag" 2>&1)" = "linux/$oci" ]'
mkdir -p "$tmp/x" "$tmp/root"
tar -xf "$tmp/image.tar" -C "$tmp/x" && for l in $(jq -r '.[0].Layers[]' "$tmp/x/manifest.json"); do tar -xf "$tmp/x/$l" -C "$tmp/root"; done
check "its gpu-numa-nri runs (qemu-user): $("$tmp/root/usr/bin/gpu-numa-nri" --version 2>&1)" \
      '[ "$("$tmp/root/usr/bin/gpu-numa-nri" --version 2>&1)" = "gpu-numa-nri $version" ]'
check "its gpu-numa-hook runs (qemu-user): $("$tmp/root/usr/bin/gpu-numa-hook" --version 2>&1 | sed -n 1p)" \
      '[[ "$("$tmp/root/usr/bin/gpu-numa-hook" --version 2>&1)" == "gpu-numa-hook $version"* ]]'
check "its busybox runs (qemu-user)" '"$tmp/root/bin/busybox" true'
# The NVML probe is dynamic: under the image's own loader and C library (chroot), not this host's.
echo 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10 >"$tmp/root/boot_id"
probe_out=$(chroot "$tmp/root" /usr/bin/gpu-numa-nvml-probe --nvml /nowhere/libnvidia-ml.so.1 --boot-id-file /boot_id 2>&1)
check "its gpu-numa-nvml-probe runs on the image's own loader and C library (qemu-user, chroot): $probe_out" \
      '[[ "$probe_out" == "gpu-numa-nvml-probe: cannot load /nowhere/libnvidia-ml.so.1: "* ]]'
exit $fail
