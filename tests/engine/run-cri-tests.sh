#!/bin/bash
# Kubernetes as kubelet drives it: a real containerd's CRI server (SUITE: bookworm = Debian 12's 1.6,
# trixie = 1.7.24, sid = 2.1.9, the last two fetched by tests/nri/fetch-containerd.sh and bound over
# /usr/bin in the namespace: tests/engine/containerd-suite.sh), our runtime added by
# `gpu-numa-hook install --runtime containerd`, driven over its gRPC socket with the CRI runtime.v1
# calls kubelet makes (tests/engine/cri/cri_client.py; the messages from our own subset of the
# published API, tests/engine/cri/cri_subset.proto, compiled here with grpc_tools.protoc):
# RunPodSandbox on the host network (no CNI) with runtime handler gpu-numa, CreateContainer +
# StartContainer of a GPU container, UpdateContainerResources with a cpuset_mems that drops the
# GPU's memory node (kubelet's Memory Manager), and a refused start surfacing as the gRPC error.
# Images are built offline (busybox-static) and imported with ctr. containerd runs in a private mount
# namespace with the fake driver and /etc overlay (lib.sh), own root/state/socket, stopped by pid.
# This host has one memory node (0): the update's widened value ("0-1") is recorded by a wrapper in
# front of the real runc, which hands runc the part the host has (see the update case).
# Usage: tests/engine/run-cri-tests.sh [HOOK] [RUNTIME] [SUITE]
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
. "$SCRIPT_DIR/lib.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
SHIM=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
SUITE=${3:-bookworm}
TALLY_NAME="cri ($SUITE)"
. "$SCRIPT_DIR/containerd-suite.sh"
PY=/usr/bin/python3   # Debian's, with python3-grpcio (a pyenv python3 earlier in PATH has no grpc)
cleanup() { engine_cleanup "gnh-cri-$RUNID"; }
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools containerd ctr runc jq unshare busybox "$PY"
    "$PY" -c 'import grpc, grpc_tools' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools missing (tests/run-all.sh installs them)"; finish; }
    [ -x "$HOOK" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK or $SHIM missing"; finish; }
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    make_rootfs
    make_driver online0 0 online
    # The next runtime: a wrapper that records what our shim passes on, then execs the real runc.
    mkdir -p "$TMP/bin" "$TMP/rec"
    make_runc_recorder "$TMP/bin/runc-rec" "$TMP/rec"
    write_config cri "[runtime]" "hook = \"$HOOK\"" "next = [\"$TMP/bin/runc-rec\"]"
    rerun_in_ns cri "/run/containerd /opt/containerd /var/lib/nri /etc/nri /opt/nri" "$SCRIPT_DIR/run-cri-tests.sh" "$HOOK" "$SHIM" "$SUITE"
fi
tmpfs_over gnh-cri /run/containerd /opt/containerd /var/lib/nri /etc/nri /opt/nri
bind_containerd "$(cat "$TMP/ctd-root")" || { fail "containerd $SUITE" "cannot bind the fetched containerd over /usr/bin"; finish; }
check_containerd_release "$SUITE"

# ---------------------------------------------------------------- inside the namespace
LOG=$TMP/logs/cri.log
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
CGP=/gnh-cri-$RUNID
CPUSET=$(cpuset_mount)
mkdir -p "$CTD" "$TMP/dev" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/gen"
mknod "$TMP/dev/nvidia0" c 195 0   # the host path CRI's Device names (containerd stats it; never opened)
set_status() { printf 'Node:      0\nStatus:    %s\n' "$1" >"/proc/driver/nvidia/gpus/$GPU_BUS/numa_status"; }
cri() { "$PY" "$SCRIPT_DIR/cri/cri_client.py" "$TMP/gen" "$SOCK" "$@"; }

"$PY" -m grpc_tools.protoc -I"$SCRIPT_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }

# containerd with the CRI plugin (tests/engine/lib.sh): own root, state, socket; CNI directories
# empty (a host-network pod needs none).
IMG=docker.io/gnh/busybox:cri-$RUNID
containerd_base_config >"$CTD/config.toml"
containerd_cri_config "$IMG" "$TMP/cni/bin" "$TMP/cni/conf" >>"$CTD/config.toml"
# containerd 2.x has NRI on by default: off here (its socket would be the host's /var/run/nri)
[ "$CTD_MAJOR" = 2 ] && printf '[plugins."io.containerd.nri.v1.nri"]\n  disable = true\n' >>"$CTD/config.toml"
OUT=$("$HOOK" install --runtime containerd --runtime-config "$CTD/config.toml" --runtime-path "$SHIM" 2>&1); RC=$?
# The handler the pods name is whatever runtimes key install made; containerd's own view decides.
DUMP=$(containerd --config "$CTD/config.toml" config dump 2>&1)
# (2.x prints values in single quotes)
echo "$DUMP" | grep -q 'runtimes.gpu-numa\]' && echo "$DUMP" | grep -A3 'runtimes.gpu-numa.options\]' | grep -qE "BinaryName = [\"']$SHIM[\"']" ||
    { fail "install --runtime containerd (CRI)" "rc $RC $(echo "$OUT" | one_line) dump: $(echo "$DUMP" | grep -A6 gpu-numa | one_line)"; finish; }
# the strategy install chose is this release's: 1.x a whole CRI table in our drop-in, 2.x a minimal one
STRAT=$([ "$CTD_MAJOR" = 2 ] && echo "merges imported files key by key" || echo "replaces a plugin's whole table with an imported file's")
echo "$OUT" | grep -qF "strategy: containerd $CTD_RELEASE (\`/usr/bin/containerd --version\`) $STRAT" &&
    pass "install detected containerd $CTD_RELEASE and chose its strategy ($STRAT); config dump shows gpu-numa with the shim" ||
    fail "install strategy for $CTD_RELEASE" "$(echo "$OUT" | one_line)"

start_containerd
VER=""
for i in $(seq 1 150); do [ -S "$SOCK" ] && VER=$(cri version 2>/dev/null) && break; sleep 0.2; done
case "$VER" in
    containerd\ *\ v1) pass "containerd's CRI server answers runtime.v1 Version over its socket: $VER" ;;
    *) fail "CRI server up" "Version: '$VER'; containerd log: $(grep -i -E 'error|fatal' "$TMP/containerd.log" | tail -3 | one_line)"; finish ;;
esac

# the images, built offline and imported as kubelet's images live (namespace k8s.io)
"$PY" "$SCRIPT_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
    OUT=$(ctr -a "$SOCK" -n k8s.io images import $([ "$CTD_MAJOR" = 2 ] && echo --local) --snapshotter native "$TMP/image.tar" 2>&1) ||
    { fail "image import" "$(echo "$OUT" | one_line)"; finish; }

# 1. the pod: host network, runtime handler gpu-numa (RuntimeClass gpu-numa), cgroup parent ours
SB=$(cri run-sandbox gpu-pod uid-$RUNID gpu-numa "$CGP" "$TMP/podlogs"); RC=$?
if [ "$RC" = 0 ] && grep -q "container=$SB pod=default/gpu-pod stage=prestart action=allow gpus=- .*fast path" "$LOG"; then
    pass "RunPodSandbox (network NODE, no CNI) with runtime_handler gpu-numa: the sandbox went through our shim and hook (fast path)"
else fail "RunPodSandbox gpu-numa" "rc $RC $SB log: $(one_line <"$LOG") containerd: $(grep -i error "$TMP/containerd.log" | tail -3 | one_line)"; finish; fi

# 2. a GPU container (linux device /dev/nvidia0, c 195:0): created, started, allowed and logged
C1=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" cuda "$IMG" 'grep Mems_allowed_list /proc/self/status; exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
OUT=$(cri start "$C1"); RC2=$?
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "container=$C1 pod=default/gpu-pod name=cuda stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " "$LOG" &&
    [ "$(cat "$CPUSET$CGP/$C1/cpuset.mems" 2>/dev/null)" = 0 ]; then
    pass "CreateContainer + StartContainer of a GPU container (device 195:0): the hook allowed it (required=0), cgroup $CGP/${C1:0:12}... cpuset.mems=0"
else fail "GPU container start" "create rc $RC ($C1) start rc $RC2 ($OUT) mems $(cat "$CPUSET$CGP/$C1/cpuset.mems" 2>&1) log: $(grep "container=$C1" "$LOG" | one_line)"; fi

# 3. kubelet's Memory Manager: UpdateContainerResources with cpuset_mems "1", which drops the GPU's
# memory node 0. Real: containerd's CRI server and runc shim deliver `runc update --resources -` to
# our shim, which logs the patch and passes "0-1" on (recorded); runc applies it on the real cgroup
# (intersected with this one-node host: "0") and the container keeps node 0.
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
OUT=$(cri update "$C1" 1); RC=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
FORM=$(cat "$TMP"/rec/*.update-form 2>/dev/null | one_line)
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] &&
    grep -q "gpu-numa-runtime\[[0-9]*\] container=$C1 stage=runtime-update action=patch gpus=/dev/nvidia0($GPU_BUS) required=0 .*update asked for cpuset.mems 1, which drops GPU memory node(s) 0" "$LOG" &&
    [ "$(cat "$CPUSET$CGP/$C1/cpuset.mems")" = 0 ]; then
    pass "UpdateContainerResources cpuset_mems=1 (drops the GPU node): our shim passed 0-1 to runc (recorded, handed as $FORM), logged stage=runtime-update action=patch, the container's cpuset.mems is still 0"
else fail "UpdateContainerResources keeps the GPU node" "rc $RC ($OUT) passed-on $(echo "$UPD" | one_line) mems $(cat "$CPUSET$CGP/$C1/cpuset.mems") log: $(grep "stage=runtime-update" "$LOG" | one_line)"; fi
# the same call with a value that keeps node 0: passed on untouched, no patch line
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
n_before=$(grep -c "action=patch" "$LOG")
OUT=$(cri update "$C1" 0); RC=$?
[ "$RC" = 0 ] && [ "$(jq -r .cpu.mems "$TMP"/rec/*.update 2>/dev/null)" = 0 ] && [ "$(grep -c "action=patch" "$LOG")" = "$n_before" ] &&
    pass "UpdateContainerResources cpuset_mems=0 (keeps the GPU node): passed on unchanged, nothing logged as a patch" ||
    fail "UpdateContainerResources cpuset_mems=0" "rc $RC ($OUT) passed-on $(cat "$TMP"/rec/*.update 2>/dev/null | one_line)"

# 4. the GPU memory node goes offline: the next GPU container (device 195:0) is refused
# at StartContainer (containerd creates the runc container there) with our line in the gRPC error
set_status offline
C2=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" refused "$IMG" 'echo container-ran; exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
OUT=$(cri start "$C2"); RC2=$?
if [ "$RC" = 0 ] && [ "$RC2" = 3 ] && echo "$OUT" | grep -q "^grpc-error: [A-Z_]*: .*gpu-numa-hook: container $C2: refusing start: GPU /dev/nvidia0 ($GPU_BUS) memory NUMA node 0 is not online yet (numa_status: offline"; then
    pass "StartContainer with the GPU memory node offline: the gRPC error carries our line: $(echo "$OUT" | one_line)"
else fail "refused start through CRI" "create rc $RC ($C2) start rc $RC2: $(echo "$OUT" | one_line)"; fi
set_status online

# 4b. an image requiring a CUDA the driver does not support (driver 535.104.05: CUDA 12.2): refused
# at StartContainer with our line in the gRPC error
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Sat Aug 19 01:13:15 UTC 2023\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n' >/proc/driver/nvidia/version
C3=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" cudareq "$IMG" 'echo container-ran; exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0" \
     --env 'NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471'); RC=$?
OUT=$(cri start "$C3"); RC2=$?
rm -f /proc/driver/nvidia/version
if [ "$RC" = 0 ] && [ "$RC2" = 3 ] && echo "$OUT" | grep -qF "gpu-numa-hook: container $C3: refusing start: the image requires cuda>=12.4 (NVIDIA_REQUIRE_CUDA=\"cuda>=12.4 brand=tesla,driver>=470,driver<471\") but driver 535.104.05, CUDA 12.2"; then
    pass "StartContainer of an image requiring CUDA 12.4 on driver 535 (CUDA 12.2): the gRPC error carries our line"
else fail "CUDA requirement refused through CRI" "create rc $RC ($C3) start rc $RC2: $(echo "$OUT" | one_line)"; fi

# 5. teardown as kubelet does it: containers stopped and removed, then the sandbox
ok=1
for c in "$C1" "$C2" "$C3"; do [ -n "$c" ] || continue; cri stop "$c" >/dev/null; cri remove "$c" >/dev/null || ok=0; done
cri stop-sandbox "$SB" >/dev/null && cri remove-sandbox "$SB" >/dev/null || ok=0
[ "$ok" = 1 ] && pass "StopContainer/RemoveContainer/StopPodSandbox/RemovePodSandbox through the shim" || fail "teardown" "a stop/remove call failed"
finish
