#!/bin/bash
# Builds .device/ (git-ignored) for tests/gpu/device-setup-and-run.sh: everything a bare GPU machine
# (x86-64, glibc >= 2.34, NVIDIA driver, nvcc, python3) lacks to run tests/gpu/run-on-gpu-host.sh.
#   tests/gpu/make-device-carry.sh [BUILD_DIR]     (default build-gpu; run on Debian 12 with
#                                                   crun, runc, busybox-static and patchelf installed)
# Contents: gpu-numa-hook (RPATH $ORIGIN/lib), lib/ (its and crun's non-glibc libraries), bin/crun and
# bin/runc (wrappers setting LD_LIBRARY_PATH for the Debian binaries), busybox, cuda_alloc.prebuilt
# (used only when nvcc fails there), and glibc/ + alt/ (a hook and crun whose interpreter is a carried
# Debian glibc at /tmp/gnh-dev, for a machine whose glibc is too old; unused where the first runs).
set -eu
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-$REPO/build-gpu}
D=$REPO/.device
L=/lib/x86_64-linux-gnu
for t in patchelf crun runc busybox; do command -v $t >/dev/null || { echo "missing $t (apt-get install patchelf crun runc busybox-static)" >&2; exit 1; }; done
[ -x "$B/gpu-numa-hook" ] || { echo "no $B/gpu-numa-hook: build it first" >&2; exit 1; }
rm -rf "$D"
mkdir -p "$D/lib" "$D/bin" "$D/glibc" "$D/alt"
cp "$B/gpu-numa-hook" "$D/gpu-numa-hook"
# the runtime shim (static-pie, like the hook), for step h
[ -x "$B/gpu-numa-runtime" ] && cp "$B/gpu-numa-runtime" "$D/gpu-numa-runtime"
# hook_bench, static (the GPU machine's C++ library may be older than Debian's), for bench/gpu-host-bench.sh
g++ -O2 -std=c++20 -static -o "$D/hook_bench" "$REPO/bench/hook_bench.cc"
gcc -O2 -static -o "$D/exec_wrapper" "$REPO/bench/exec_wrapper.c"   # the floor of any shim
gcc -O2 -static -o "$D/start_cycle" "$REPO/bench/start_cycle.c"     # create, start, delete through a runtime
# the NVML probe (issue 20; dynamic, libc only), run against the host's real libnvidia-ml.so.1
[ -x "$B/gpu-numa-nvml-probe" ] && cp "$B/gpu-numa-nvml-probe" "$D/gpu-numa-nvml-probe"
# The hook is a static PIE by default (GNH_STATIC_HOOK): it needs nothing carried, and patchelf
# would break it. Only a dynamic build gets the RPATH and the glibc-carrying fallback below.
STATIC_HOOK=0
if ! ldd "$B/gpu-numa-hook" 2>&1 | grep -q '=>'; then STATIC_HOOK=1; fi
[ $STATIC_HOOK = 1 ] || patchelf --set-rpath '$ORIGIN/lib' "$D/gpu-numa-hook"
# every library the hook, crun and runc load, except glibc's and libstdc++/libgcc_s (the machine's own)
for l in $( (ldd "$B/gpu-numa-hook"; ldd "$(command -v crun)"; ldd "$(command -v runc)") | awk '$3 ~ /^\// { print $3 }' | sort -u); do
    case $(basename "$l") in libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) continue ;; esac
    cp -L "$l" "$D/lib/"
done
for l in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 libpthread.so.0 libdl.so.2 librt.so.1; do cp -L "$L/$l" "$D/glibc/"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$D/glibc/"
cp "$(command -v crun)" "$D/bin/crun.real"
cp "$(command -v runc)" "$D/bin/runc.real"
for r in crun runc; do
    printf '#!/bin/sh\n# Debian 12 %s with its libraries from ../lib\nd=$(dirname "$(readlink -f "$0")")\nLD_LIBRARY_PATH="$d/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/%s.real" "$@"\n' $r $r >"$D/bin/$r"
    chmod +x "$D/bin/$r"
done
cp "$B/gpu-numa-hook" "$D/alt/gpu-numa-hook"
cp "$(command -v crun)" "$D/alt/crun"
for b in "$D/alt/crun" $([ $STATIC_HOOK = 1 ] || echo "$D/alt/gpu-numa-hook"); do
    patchelf --set-interpreter /tmp/gnh-dev/glibc/ld-linux-x86-64.so.2 --set-rpath /tmp/gnh-dev/lib:/tmp/gnh-dev/glibc "$b"
done
cp "$(command -v busybox)" "$D/busybox"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$NVCC" ]; then
    "$NVCC" -O2 -cudart static -gencode 'arch=compute_90,code=[sm_90,compute_90]' -o "$D/cuda_alloc.prebuilt" "$REPO/tests/gpu/cuda_alloc.cu"
fi
# NVIDIA's real Container Toolkit for tests/gpu/run-toolkit-chains.sh: the tarballs as they are (6 MiB;
# unpacked there), and the libraries nvidia-container-cli needs that a bare GPU image may lack.
NCT=$REPO/../shared/tools/nvidia-container-toolkit
if [ -f "$NCT/nvidia-container-toolkit-1.20.0-amd64.tar.xz" ] && [ -f "$NCT/libnvidia-container-1.17.2-amd64.tar.xz" ]; then
    mkdir -p "$D/toolkit/libnvc-deps"
    cp "$NCT/nvidia-container-toolkit-1.20.0-amd64.tar.xz" "$NCT/libnvidia-container-1.17.2-amd64.tar.xz" "$D/toolkit/"
    # the GPU operator's toolkit container, for tests/gpu/run-operator-layout.sh
    [ -f "$NCT/nvidia-ctk-installer-1.20.0-amd64.tar.xz" ] && cp "$NCT/nvidia-ctk-installer-1.20.0-amd64.tar.xz" "$D/toolkit/"
    for l in libcap.so.2 libelf.so.1 libseccomp.so.2 libtirpc.so.3 libz.so.1 libgssapi_krb5.so.2 libkrb5.so.3 \
             libk5crypto.so.3 libcom_err.so.2 libkrb5support.so.0 libkeyutils.so.1; do
        cp -L "$L/$l" "$D/toolkit/libnvc-deps/" || exit 1
    done
else
    echo "WARNING: no NVIDIA toolkit tarballs in $NCT: the GPU run will skip run-toolkit-chains.sh" >&2
fi
# The node image's file tree (tests/gpu/run-operator-layout.sh runs its nvml-refresh command from
# it): built by the documented command from B's programs, its layers unpacked.
if [ -x "$B/gpu-numa-nri" ] && command -v buildah >/dev/null; then
    w=$(mktemp -d)
    printf '[storage]\ndriver = "vfs"\nrunroot = "%s/run"\ngraphroot = "%s/root"\n' "$w" "$w" >"$w/storage.conf"
    CONTAINERS_STORAGE_CONF=$w/storage.conf sh "$REPO/examples/kubernetes/build-image.sh" --binaries "$B" \
        --tag gnh-device:carry --save "$w/image.tar" >&2
    mkdir -p "$w/x" "$D/image-root"
    tar -xf "$w/image.tar" -C "$w/x"
    for l in $(jq -r '.[0].Layers[]' "$w/x/manifest.json"); do tar -xf "$w/x/$l" -C "$D/image-root"; done
    rm -rf "$w"
else
    echo "WARNING: no $B/gpu-numa-nri or no buildah: no image-root, run-operator-layout.sh will not run" >&2
fi
du -sh "$D"
