#!/usr/bin/env bash
# The test command: installs what the tests need (Debian 12, as root), builds, and runs every test
# through one ctest run: unit and fixture tests, real runc/crun/podman, the QEMU kernel test, and the
# hardening suites (sanitizers, fuzzers) where present.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# Where the time went, in CI's log: minutes since the start after each stage.
stamp() { printf '== %s: %dm%02ds since the start\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

if [ "$(id -u)" != 0 ]; then
  echo "run-all.sh: must run as root (real cgroups, runtimes, mounts)" >&2
  exit 2
fi

# The build's own list (cmake/debian-build-deps.txt, what examples/demo.sh installs), then what the
# tests run.
mapfile -t packages < <(grep -v -e '^#' -e '^$' cmake/debian-build-deps.txt)
packages+=(
  # real runtimes and their container
  runc crun podman busybox-static e2fsprogs util-linux
  # the real kernel in QEMU
  qemu-system-x86 linux-image-amd64 cpio socat
  # fuzzers and sanitizers, unit-file validation, JSON in shell tests
  clang libclang-rt-14-dev systemd jq
  # the hook's start-up code laid out together and checked (bench/hot-symbols.sh runs it under callgrind)
  valgrind
  # the protocol model (tests/model): the spin model checker (pan is built with gcc)
  spin
  # real engines, man pages, the package
  docker.io containerd scdoc man-db python3-yaml
  # the zsh and fish completions' syntax check (tests/fixture/completion_test.cc)
  zsh fish
  # containerd's CRI server driven as kubelet does (tests/engine/run-cri-tests.sh)
  python3-grpcio python3-grpc-tools
  # the NRI plugin stopped inside its CreateContainer handler and killed there (tests/nri/run-fail-closed-test.sh)
  gdb
  # the Kubernetes manifests' schema check (tests/k8s: node runs kubernetes-models from npm); the
  # node image built offline (examples/kubernetes/build-image.sh) and the DaemonSet's pods on a CNI
  # pod network (tests/k8s/run-daemonset-test.sh)
  nodejs buildah containernetworking-plugins iproute2
  # the real CRI-O (tests/crio, from ../shared/tools/cri-o): its monitor conmon, and the libraries
  # its Go binaries link (crio, copyimg: libsqlite3 and libseccomp)
  conmon libsqlite3-0 libseccomp2
  # the alert rules' unit tests (promtool) and the plugin's endpoint scraped by a real Prometheus
  prometheus
  # cross builds for aarch64 (Grace) and ppc64le (AC922), their tests under qemu-user, and the
  # .rpm packages
  crossbuild-essential-arm64 crossbuild-essential-ppc64el qemu-user-static rpm binutils
  # ... and the race VM on their kernels (qemu-system-aarch64 -M virt, qemu-system-ppc64 -M pseries)
  qemu-system-arm qemu-system-ppc
  # systemd as PID 1 in QEMU, and the fresh-root test of the README's commands: Debian root file
  # systems built with mmdebstrap
  mmdebstrap
  # the target arches' libraries; their protobuf (the NRI plugin) is fetched below instead
  libseccomp-dev:arm64 libcap-dev:arm64 libtomlplusplus-dev:arm64
  libseccomp-dev:ppc64el libcap-dev:ppc64el libtomlplusplus-dev:ppc64el
)
# The :arm64 and :ppc64el packages come from Debian's multiarch.
# Here-strings, not pipes into grep -q: under pipefail a grep that leaves at its first match can kill
# the writer with SIGPIPE and make the whole pipe "fail".
for a in arm64 ppc64el; do grep -qx $a <<<"$(dpkg --print-foreign-architectures)" || dpkg --add-architecture $a; done
# dpkg-query by arch (cmake/missing-debian-packages.sh): the :arm64 and :ppc64el -dev packages
# installed must not pass for the native ones.
mapfile -t missing < <(bash cmake/missing-debian-packages.sh "${packages[@]}")
# npm: Debian 12's nodejs comes without it (the npm package), while a machine whose nodejs is
# NodeSource's has npm inside and Debian's npm would conflict with it. Ask for it only when absent.
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  # One index failing to download (seen: bookworm-security ppc64el, "Mirror sync in progress") must
  # not stop the run: the install below fails if a package is really missing.
  apt-get update -qq || echo "== apt-get update reported an error; going on with the indexes it has"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/tmp/gnh-apt.log 2>&1 ||
    { tail -n 30 /tmp/gnh-apt.log; exit 2; }
fi
stamp "installed"

# GNH_COLD_CACHES=1: every cache the tests share (tests/support/cache.sh) starts empty, in a folder
# of this run's own, as on a fresh machine; without it they are the machine's, under /var/cache.
# shellcheck source=support/cache.sh
. tests/support/cache.sh
cache_go_cold
trap cache_cold_done EXIT

# Each fetch prints what it got or, loudly, that it got nothing: never an empty line. A failed fetch
# does not stop the run: the test that needs it fetches again and fails with its own reason.
fetch_step() {
  local what=$1 out rc=0
  shift
  out=$("$@" 2>/tmp/gnh-fetch.err) || rc=$?
  if [ "$rc" != 0 ] || [ -z "$out" ]; then
    echo "== $what: NOT FETCHED (\`$*\` exit $rc: $(tail -n 1 /tmp/gnh-fetch.err)); the tests that need it try again"
  else
    echo "== $what: $out"
  fi
}
# The fetches are mostly download and unpack, the native build is CPU: they run at the same time,
# the fetches' lines printed together once both are done.
fetch_all() {
  # The other arches' guest parts for the VM race (kernel, runc, busybox of that arch: .debs that
  # cannot be installed beside ours, so fetched and unpacked into a cache; tests/vm/fetch-arch-parts.sh).
  for arch in aarch64 ppc64le; do
    fetch_step "$arch VM guest parts" bash tests/vm/fetch-arch-parts.sh $arch
  done
  # The systemd VM's Debian 12 root file system (mmdebstrap, cached by package list).
  fetch_step "systemd VM root file system" bash tests/vm/fetch-systemd-rootfs.sh
  fetch_step "systemd VM root file system with Python gRPC (CRI test)" bash tests/vm/fetch-systemd-rootfs.sh cri
  # The real containerd 1.7 (trixie) and 2.1 (sid) for the NRI suite (tests/nri/fetch-containerd.sh:
  # a private apt sources list, retried, cached; the system's sources are untouched).
  for suite in trixie sid; do
    fetch_step "containerd from $suite" bash tests/nri/fetch-containerd.sh $suite
  done
  # upstream's containerd 2.2.7 and 2.3.4, unpacked from shared/tools beside the repository (a clone
  # without it says so here and in each suite that needs them)
  for suite in v2.2 v2.3; do
    fetch_step "containerd $suite (shared/tools)" bash tests/nri/fetch-containerd.sh $suite
  done
  # Go 1.24 (trixie) and containerd/nri's own source (sid) for the second NRI plugin of the NRI suite
  # (tests/nri/fetch-nri-go.sh, cached): fetched here, not inside that test's time limit.
  fetch_step "Go 1.24 and containerd/nri 0.8.0 source" bash tests/nri/fetch-nri-go.sh
  # trixie's kustomize and the npm packages kubernetes-models and js-yaml at tests/k8s's lock, for
  # the manifest test (tests/k8s/fetch-k8s-tools.sh, cached).
  fetch_step "kustomize and kubernetes-models" bash tests/k8s/fetch-k8s-tools.sh
  # Go 1.26 and k8s.io/apiserver's source (sid), and the admission evaluator built from them for the
  # require-plugin policy test (tests/k8s/fetch-k8s-admission.sh, cached: the cold build takes minutes).
  fetch_step "Kubernetes' admission plugin (k8s.io/apiserver 0.36, sid) and its evaluator" bash tests/k8s/fetch-k8s-admission.sh
}
fetch_all >/tmp/gnh-fetch.out 2>&1 &
fetch_pid=$!

echo "== building"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
stamp "built"

fetch_rc=0
wait "$fetch_pid" || fetch_rc=$?
cat /tmp/gnh-fetch.out
[ "$fetch_rc" = 0 ] || echo "== the fetches ended with exit $fetch_rc (above); the tests that need them fetch again"
stamp "fetched"

# Issue 21: the same unit and fixture tests for each target arch, cross-built and run under
# qemu-user (binfmt_misc runs the foreign executables the tests start; the build runs the seccomp
# filter generator that way too), plus that arch's VM race on Debian's kernel for it
# (tests/vm/run-vm-test.sh --arch, registered by tests/CMakeLists.txt), which also runs the sandbox
# cases left out below on that real kernel; then the six packages.
bash tests/cross/register-binfmt.sh
cross_build() {
  local arch=$1 protobuf_root
  # The target's libprotobuf-dev, unpacked, not installed: installing it pulls libc6-dev:<arch>,
  # which apt refuses whenever the mirror's indexes for the arches disagree on a shared package.
  protobuf_root=$(bash cmake/fetch-cross-protobuf.sh "$arch") || protobuf_root=NOT-FETCHED
  # Release: these trees make the packages, and debug information was a third of their compile time.
  # Unity: the libraries' files merged (the test files stay apart), each header parsed and each
  # template instantiated once per library: 46% less compile time on two libraries measured.
  cmake -S . -B "build-$arch" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON \
        -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchains/$arch-linux-gnu.cmake" \
        -DGNH_CROSS_PROTOBUF_ROOT="$protobuf_root" >/dev/null &&
    cmake --build "build-$arch" -j"$(nproc)"
}
# The cross trees build while the native tests run, at the lowest priority: those tests wait on
# daemons, VMs and downloads much of the time, and a nice 19 build takes only the CPU they leave.
# One after the other, the builds put the test command over CI's time limit.
(
  renice -n 19 -p "$BASHPID" >/dev/null
  for arch in aarch64 ppc64le; do
    echo "== cross build: $arch"
    if cross_build "$arch"; then stamp "$arch built"; else echo "== cross build: $arch FAILED"; fi
  done
) >/tmp/gnh-cross-build.log 2>&1 &
cross_pid=$!

echo "== testing"
cd build
# Quick tests in parallel, one per core or GNH_TEST_JOBS at a time; the heavy ones are RUN_SERIAL in
# tests/CMakeLists.txt.
rc=0
ctest --output-on-failure -j"${GNH_TEST_JOBS:-$(nproc)}" --timeout 1500 || rc=$?
cd "$repo"
stamp "native tests done"

wait "$cross_pid" || true
cat /tmp/gnh-cross-build.log
stamp "cross builds waited for"
sandbox_cases='inside the sandbox|sandboxed|the filter the kernel holds'
for arch in aarch64 ppc64le; do
  if grep -qx "== cross build: $arch FAILED" /tmp/gnh-cross-build.log; then
    echo "== $arch: NOT TESTED, its build failed (above)"
    rc=1
    continue
  fi
  echo "== testing: $arch under qemu-user"
  # qemu-user implements no seccomp(2) (ENOSYS): the cases that assert the kernel holds our filter
  # cannot pass under it and are left out here, loudly. They run in the native build, and for this
  # arch inside its VM race test (the "vm: ... real $arch kernel" entry of this ctest run).
  echo "NOT RUN under qemu-user ($arch): $sandbox_cases (qemu-user has no seccomp; they run in the $arch VM instead)"
  # Not registered in a cross tree at all (tests/CMakeLists.txt): they need this machine's engines.
  echo "NOT RUN for $arch: runtimes, engines, gpu-numa-nri with real containerd, package install, hardening, model (native build only)"
  (cd "build-$arch" && ctest --output-on-failure -j"$(nproc)" --timeout 600 -E "$sandbox_cases") || rc=1
  echo "== the node image for $arch (examples/kubernetes/build-image.sh), its programs run under qemu-user"
  bash tests/cross/check-image.sh "$arch" "build-$arch" || rc=1
  stamp "$arch tested"
done
echo "== packages: .deb and .rpm for amd64/x86_64, arm64/aarch64, ppc64el/ppc64le"
bash packaging/build-all.sh "$repo/build/dist" || rc=1
bash tests/package/check-packages.sh "$repo/build/dist" || rc=1
stamp "packages done"
exit $rc
