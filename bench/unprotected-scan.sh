#!/bin/bash
# The cost of `status` and `check` reading every running container's spec (the unprotected-GPU-
# container finding) on a node running N containers: a Grace-Hopper-like host tree (make_fixture gh)
# with N containers as containerd's runc shim leaves them (runc's state.json under
# /run/containerd/runc/k8s.io, a cgroup with a task, a bundle holding Docker's real config.json,
# tests/fixtures/docker-20.10; one in ten a GPU container with our hook). Each command is timed with
# and without the runtime state (the same tree, the same cgroups, the state roots moved away), in
# alternation; medians of ROUNDS runs of wall time and peak RSS (GNU time). Not a test.
#   bench/unprotected-scan.sh [BUILD_DIR] [N] [ROUNDS]      (default: build 1000 7)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$REPO/build}" && pwd)
N=${2:-1000}
ROUNDS=${3:-7}
HOOK=$BUILD/gpu-numa-hook
[ -x "$BUILD/bench/make_fixture" ] || cmake --build "$BUILD" --target make_fixture gpu-numa-hook >&2
OUT=$(mktemp -d /tmp/gnh-unprot-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
"$BUILD/bench/make_fixture" gh ok "$OUT" >/dev/null
R=$OUT/root
CFG=$REPO/tests/fixtures/docker-20.10/config.json
# Docker's fixture is a GPU container's (/dev/nvidia0): without its devices, an ordinary one.
plain=$(jq -c 'del(.linux.devices) | .process.env |= map(select(test("^(NVIDIA_|CUDA_VERSION=)") | not))' "$CFG")
gpu=$(jq -c '.linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0}]
             | .hooks.prestart = [{path: "/usr/bin/gpu-numa-hook", args: ["gpu-numa-hook", "prestart"]}]' "$CFG")
for i in $(seq 1 "$N"); do
    id=$(printf 'c%05d' "$i")
    cg=/kubepods.slice/$id
    mkdir -p "$R/sys/fs/cgroup$cg" "$R/run/containerd/io.containerd.runtime.v2.task/k8s.io/$id" "$R/run/containerd/runc/k8s.io/$id"
    echo 91 >"$R/sys/fs/cgroup$cg/cgroup.threads"
    : >"$R/sys/fs/cgroup$cg/cpuset.mems"
    if [ $((i % 10)) = 0 ]; then echo "$gpu"; else echo "$plain"; fi \
        >"$R/run/containerd/io.containerd.runtime.v2.task/k8s.io/$id/config.json"
    printf '{"id":"%s","init_process_pid":91,"config":{"labels":["bundle=/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s"]},"cgroup_paths":{"":"/sys/fs/cgroup%s"}}\n' \
        "$id" "$id" "$cg" >"$R/run/containerd/runc/k8s.io/$id/state.json"
done
# one run: "wall_ms rss_kib"
one() { local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -f '%M' -o "$OUT/t" "$HOOK" --host-root "$R" "$@" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        echo "$(( (t1 - t0) / 1000000 )) $(tail -n1 "$OUT/t")"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
{ "$HOOK" --host-root "$R" status || true; } | grep '^containers:' >&2
for cmd in status check; do
    : >"$OUT/with"; : >"$OUT/without"
    for _ in $(seq 1 "$ROUNDS"); do
        one $cmd >>"$OUT/with"
        mv "$R/run/containerd" "$R/run/containerd.off"
        one $cmd >>"$OUT/without"
        mv "$R/run/containerd.off" "$R/run/containerd"
    done
    printf '%s  %d containers: %s ms, peak RSS %s KiB;  without the state: %s ms, %s KiB\n' "$cmd" "$N" \
        "$(cut -d' ' -f1 "$OUT/with" | median)" "$(cut -d' ' -f2 "$OUT/with" | median)" \
        "$(cut -d' ' -f1 "$OUT/without" | median)" "$(cut -d' ' -f2 "$OUT/without" | median)"
done
