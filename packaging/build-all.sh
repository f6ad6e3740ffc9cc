#!/bin/bash
# The six packages from one x86_64 Debian 12 machine: .deb for amd64, arm64, ppc64el and .rpm for
# x86_64, aarch64, ppc64le, made by cpack in the native tree (build/) and one cross tree per arch
# (build-aarch64/, build-ppc64le/, from cmake/toolchains/). A tree that exists is reused (as
# tests/run-all.sh leaves them); a missing one is configured (Release) and built.
#   packaging/build-all.sh [OUTDIR]          (default: dist/)
# Needs: the build dependencies, crossbuild-essential-arm64/-ppc64el, their :arm64/:ppc64el -dev
# packages (protobuf is fetched: cmake/fetch-cross-protobuf.sh), qemu-user-static (the seccomp filter generator runs for the target arch) and rpm;
# tests/run-all.sh installs them all.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(mkdir -p "${1:-$REPO/dist}" && cd "${1:-$REPO/dist}" && pwd)
for arch in native aarch64 ppc64le; do
    if [ "$arch" = native ]; then dir=$REPO/build; tc=(); else
        dir=$REPO/build-$arch; tc=(-DCMAKE_TOOLCHAIN_FILE="$REPO/cmake/toolchains/$arch-linux-gnu.cmake"); fi
    # A new cross tree takes the target's protobuf unpacked (cmake/fetch-cross-protobuf.sh).
    [ "$arch" = native ] || [ -f "$dir/CMakeCache.txt" ] ||
        tc+=(-DGNH_CROSS_PROTOBUF_ROOT="$(bash "$REPO/cmake/fetch-cross-protobuf.sh" "$arch")")
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        echo "== $arch: configure $dir"
        cmake -S "$REPO" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGNH_BUILD_TESTS=OFF "${tc[@]}" >/dev/null
    fi
    echo "== $arch: build and package ($dir)"
    cmake --build "$dir" -j"$(nproc)" --target gpu-numa-hook gpu-numa-runtime gpu-numa-nri gpu-numa-nvml-probe man-pages >/dev/null
    rm -rf "$OUT/cpack-$arch"
    (cd "$dir" && cpack -G "DEB;RPM" -B "$OUT/cpack-$arch" >/dev/null)
    mv "$OUT/cpack-$arch"/*.deb "$OUT/cpack-$arch"/*.rpm "$OUT/"
    rm -rf "$OUT/cpack-$arch"
done
ls -1 "$OUT"/*.deb "$OUT"/*.rpm
