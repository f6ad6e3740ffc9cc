#!/usr/bin/env bash
# The main job on an embedded example: an AC922 whose GPU memory came online after /docker was made.
# Installs the build dependencies (Debian 12, as root), builds, then runs the real binary on a copy of
# examples/ac922-stale with --host-root: first with the default policy (patch), then with refuse.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

# The build's Debian packages, one list for this script, the test command and the docs.
mapfile -t deps < <(grep -v -e '^#' -e '^$' cmake/debian-build-deps.txt)
# Per arch: a cross build's libseccomp-dev:arm64 is not the native one (cmake/missing-debian-packages.sh).
mapfile -t missing < <(bash cmake/missing-debian-packages.sh "${deps[@]}")
if ((${#missing[@]})); then
  echo "== installing build dependencies: ${missing[*]}"
  apt-get update -qq || echo "== apt-get update reported an error; going on with the indexes it has"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
      >/tmp/gnh-demo-apt.log 2>&1 || {
    tail -n 20 /tmp/gnh-demo-apt.log
    echo "demo.sh: could not install the build dependencies (log above, whole log in /tmp/gnh-demo-apt.log)" >&2
    exit 2
  }
fi

echo "== building"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target gpu-numa-hook >/dev/null
hook=$repo/build/gpu-numa-hook

work=$(mktemp -d /tmp/gnh-demo-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -a examples/ac922-stale "$work/host"
host=$work/host
cg=$host/sys/fs/cgroup/cpuset
show_mems() {
  for c in "" /docker /docker/3f2a9c1d /system.slice; do
    printf '   %-40s %s\n' "/sys/fs/cgroup/cpuset${c:-/}" "$(cat "$cg$c/cpuset.mems")"
  done
}

echo
echo "== the host: GPUs and their memory nodes (gpu-numa-hook topology)"
"$hook" --host-root "$host" topology
echo
echo "== cpuset.mems before the container starts"
show_mems
echo
echo "== what the hook will do (gpu-numa-hook explain)"
"$hook" --host-root "$host" explain --bundle "$host/run/bundles/3f2a9c1d" --pid 31337
echo
echo "== runc runs the prestart hook with the state on stdin (policy missing-node = patch)"
set +e
"$hook" --host-root "$host" prestart < examples/ac922-stale/state.json
rc=$?
set -e
echo "   exit code: $rc"
echo "   log: $(tail -n 1 "$host/var/log/gpu-numa-hook.log")"
echo
echo "== cpuset.mems after: /docker healed top-down, so later containers inherit node 252"
show_mems

echo
echo "== the same start with policy missing-node = refuse, on a fresh copy"
rm -rf "$host" && cp -a examples/ac922-stale "$host"
mkdir -p "$host/etc/gpu-numa-hook"
printf '[policy]\nmissing-node = "refuse"\n' > "$host/etc/gpu-numa-hook/config.toml"
set +e
"$hook" --host-root "$host" prestart < examples/ac922-stale/state.json
rc=$?
set -e
echo "   exit code: $rc (runc aborts the start and shows the line above)"
echo "   cpuset.mems untouched:"
show_mems
