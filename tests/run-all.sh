#!/usr/bin/env bash
# The test command: installs what the tests need (Debian 12, as root), builds, and runs every test
# through one ctest run: unit and fixture tests, real runc/crun/podman, the QEMU kernel test, and the
# hardening suites (sanitizers, fuzzers) where present.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

if [ "$(id -u)" != 0 ]; then
  echo "run-all.sh: must run as root (real cgroups, runtimes, mounts)" >&2
  exit 2
fi

packages=(
  # build
  cmake ninja-build g++ pkg-config libseccomp-dev nlohmann-json3-dev libcap-dev libspdlog-dev doctest-dev
  libtomlplusplus-dev libcli11-dev libbenchmark-dev
  # real runtimes and their container
  runc crun podman busybox-static e2fsprogs util-linux
  # the real kernel in QEMU
  qemu-system-x86 linux-image-amd64 cpio socat
  # fuzzers and sanitizers, unit-file validation, JSON in shell tests
  clang libclang-rt-14-dev systemd jq
  # the protocol model (tests/model): the spin model checker (pan is built with gcc)
  spin
  # issue 12: real engines, man pages, the package
  docker.io containerd scdoc man-db python3-yaml
)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/tmp/gnh-apt.log 2>&1 ||
    { tail -n 30 /tmp/gnh-apt.log; exit 2; }
fi

echo "== building"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

echo "== testing"
cd build
# Quick tests in parallel; the heavy ones are RUN_SERIAL in tests/CMakeLists.txt.
ctest --output-on-failure -j"$(nproc)" --timeout 1500
