#!/bin/bash
# The NRI plugin (gpu-numa-nri) against the REAL containerd 2.1 (NRI on as shipped) or 1.7 (NRI
# enabled in its config), driven over CRI as kubelet does (tests/engine/cri/cri_client.py): no
# RuntimeClass, no shim, containerd's default runc; the plugin connects to containerd's NRI socket
# and adds our hook at createRuntime to the containers that get GPUs. containerd comes from
# Debian's trixie/sid (tests/nri/fetch-containerd.sh, cached), runs in a private mount namespace
# with the fake driver and /etc overlay (tests/engine/lib.sh), own root/state/sockets, stopped by
# pid. runc is Debian 12's behind a recorder that keeps what runc is handed (config.json at create,
# the resources of an update: containerd 2.x hands `runc update` a file, 1.x stdin).
# Usage: tests/nri/run-nri-tests.sh HOOK PLUGIN SUITE     SUITE: sid (containerd 2.1) | trixie (1.7)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
# shellcheck source=../engine/containerd-suite.sh
. "$ENGINE_DIR/containerd-suite.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
PLUGIN=$(abs "${2:-$REPO/build/gpu-numa-nri}")
SUITE=${3:-sid}
# 1.x ships NRI off and cannot split a synchronization; 2.x has NRI on and splits
REL=$(containerd_suite_release "$SUITE")
MAJOR=${REL%%.*}
PY=/usr/bin/python3
TALLY_NAME="nri ($SUITE)"
cleanup() {
    stop_pidfile "$TMP/plugin.pid"
    stop_pidfile "$TMP/plugin-fallback.pid"
    stop_pidfile "$TMP/plugin-pre.pid"
    engine_cleanup "gnh-nri-$RUNID"
}
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox "$PY"
    "$PY" -c 'import grpc, grpc_tools' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools missing (tests/run-all.sh installs them)"; finish; }
    [ -x "$HOOK" ] && [ -x "$PLUGIN" ] || { fail "binaries" "$HOOK or $PLUGIN missing"; finish; }
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    make_rootfs
    make_driver online0 0 online
    mkdir -p "$TMP/bin" "$TMP/rec"
    make_runc_recorder "$TMP/bin/runc-rec" "$TMP/rec"
    # the second NRI plugin of the coexistence case, on containerd/nri's own pkg/stub (Debian's Go)
    OUT=$("$SCRIPT_DIR/build-mems-owner.sh" "$TMP/bin/mems-owner" 2>&1) ||
        fail "build tests/nri/mems-owner (containerd/nri 0.8.0 pkg/stub, Debian's Go 1.24)" "$(echo "$OUT" | tail -5 | one_line)"
    write_config nri
    rerun_in_ns nri "/run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri" "$SCRIPT_DIR/run-nri-tests.sh" "$HOOK" "$PLUGIN" "$SUITE"
fi
tmpfs_over gnh-nri /run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri

# ---------------------------------------------------------------- inside the namespace
CTD_ROOT=$(cat "$TMP/ctd-root")
# This namespace's containerd is the fetched one, at the path a node has it: install asks
# /usr/bin/containerd --version (a fixed search path, never $PATH), containerd finds its shim on PATH.
for b in containerd containerd-shim-runc-v2 ctr; do
    [ -e "/usr/bin/$b" ] && mount --bind "$CTD_ROOT/usr/bin/$b" "/usr/bin/$b"
done
export PATH="$CTD_ROOT/usr/bin:$PATH"
LOG=$TMP/logs/nri.log
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
NRI_SOCK=$TMP/nri.sock
CGP=/gnh-nri-$RUNID
CPUSET=$(cpuset_mount)
mkdir -p "$CTD" "$TMP/dev" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/gen"
mknod "$TMP/dev/nvidia0" c 195 0
set_status() { printf 'Node:      0\nStatus:    %s\n' "$1" >"/proc/driver/nvidia/gpus/$GPU_BUS/numa_status"; }
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$SOCK" "$@"; }

"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }

VERSION=$(containerd --version)
IMG=docker.io/gnh/busybox:nri-$RUNID
{ containerd_base_config; containerd_cri_config "$IMG" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/bin/runc-rec"; cat <<TOML; } >"$CTD/config.toml"
[plugins."io.containerd.nri.v1.nri"]
  socket_path = "$NRI_SOCK"
  plugin_path = "$TMP/nri-plugins"
  plugin_config_path = "$TMP/nri-conf"
TOML
# install --runtime nri: on 2.x nothing of containerd's changes; on 1.7 our drop-in turns NRI on
# (keeping the main file's NRI keys: 1.x replaces a plugin's whole table with an imported one's)
DUMP_NRI() { containerd --config "$CTD/config.toml" config dump 2>&1 | grep -A12 'io.containerd.nri.v1.nri' | grep -E '^ *(disable|socket_path) ' | one_line; }
OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --dry-run 2>&1); RC=$?
BEFORE=$(md5sum <"$CTD/config.toml")
case $MAJOR in
    2)
        [ "$RC" = 0 ] && echo "$OUT" | grep -q "^unchanged: $CTD/config.toml (NRI is on with containerd $REL " &&
            [ ! -e "$CTD/conf.d" ] && [ "$(DUMP_NRI)" = "disable = false socket_path = '$NRI_SOCK'" ] &&
            pass "install --runtime nri on containerd $REL: nothing of containerd's changes (config dump: $(DUMP_NRI))" ||
            fail "install --runtime nri ($REL)" "rc $RC: $(echo "$OUT" | one_line) dump: $(DUMP_NRI)" ;;
    1)
        [ "$(DUMP_NRI)" = "disable = true socket_path = \"$NRI_SOCK\"" ] || fail "1.7 ships NRI off" "dump: $(DUMP_NRI)"
        [ "$RC" = 0 ] && echo "$OUT" | grep -q "^+disable = false$" && [ "$(md5sum <"$CTD/config.toml")" = "$BEFORE" ] &&
            pass "install --runtime nri --dry-run on containerd 1.7: prints the drop-in, writes nothing" ||
            fail "install --dry-run (1.7)" "rc $RC: $(echo "$OUT" | one_line)"
        OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" 2>&1); RC=$?
        [ "$RC" = 0 ] && echo "$OUT" | grep -q "restart containerd once to turn NRI on (containerd 1.7 " &&
            [ "$(DUMP_NRI)" = "disable = false socket_path = \"$NRI_SOCK\"" ] &&
            pass "install --runtime nri on containerd 1.7: our drop-in turns NRI on, socket_path kept (config dump: $(DUMP_NRI)); says one restart" ||
            fail "install --runtime nri (1.7)" "rc $RC: $(echo "$OUT" | one_line) dump: $(DUMP_NRI)" ;;
esac

start_containerd
VER=""
for i in $(seq 1 150); do [ -S "$SOCK" ] && VER=$(cri version 2>/dev/null) && break; sleep 0.2; done
case "$VER" in
    containerd\ *\ v1) pass "real $VERSION: its CRI server answers runtime.v1 Version: $VER" ;;
    *) fail "CRI server up ($VERSION)" "Version: '$VER'; containerd log: $(grep -i -E 'error|fatal' "$TMP/containerd.log" | tail -3 | one_line)"; finish ;;
esac
[ -S "$NRI_SOCK" ] && pass "NRI is on: containerd listens on its NRI socket" ||
    { fail "NRI socket" "no $NRI_SOCK; containerd log: $(grep -i nri "$TMP/containerd.log" | tail -3 | one_line)"; finish; }

start_plugin() {
    "$PLUGIN" --socket "$NRI_SOCK" --hook "$HOOK" --config "$TMP/cfg/nri.toml" >>"$TMP/plugin.log" 2>&1 &
    echo $! >"$TMP/plugin.pid"
}
start_plugin
# 1. the plugin registers and containerd configures it
if wait_for "$LOG" "gpu-numa-nri\[[0-9]+\] .*stage=nri-connect action=connected .*registered as 99-gpu-numa with containerd"; then
    pass "gpu-numa-nri registered and was configured: $(grep 'action=connected' "$LOG" | tail -1 | sed 's/.*msg=//')"
else fail "plugin connects" "log: $(one_line <"$LOG") plugin: $(one_line <"$TMP/plugin.log") containerd: $(grep -i nri "$TMP/containerd.log" | tail -3 | one_line)"; finish; fi
# NRI 0.12 (containerd 2.3) exchanges versions: the runtime logs ours, Configure carries its own
if [ "$REL" = 2.3 ]; then
    NV=$(grep '99-gpu-numa' "$TMP/containerd.log" | grep -o 'registered as .* (with NRI version [^)]*)' | tail -1)
    [ -n "$NV" ] && ! echo "$NV" | grep -q unknown && grep -q "stage=nri-connect .*configured by containerd v2.3[^ ]* (NRI v0.12" "$LOG" &&
        pass "versions exchanged at registration (NRI 0.12): containerd logged ours ($NV); ours logged containerd's NRI release" ||
        fail "NRI version exchange" "containerd: $(grep -i 'registered as' "$TMP/containerd.log" | tail -1 | one_line) plugin: $(grep 'action=configured' "$LOG" | tail -1 | one_line)"
fi
STATE=/run/gpu-numa-hook/nri-state.json
[ "$(jq -r .connected "$STATE" 2>/dev/null)" = true ] && pass "the plugin's state file says connected ($(jq -r .runtime "$STATE"))" ||
    fail "state file" "$(cat "$STATE" 2>&1 | one_line)"

"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
    OUT=$(ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$TMP/image.tar" 2>&1 ||
          ctr -a "$SOCK" -n k8s.io images import --snapshotter native "$TMP/image.tar" 2>&1) ||
    { fail "image import" "$(echo "$OUT" | one_line)"; finish; }

# 2. the pod: the default runtime handler (no RuntimeClass), host network
SB=$(cri run-sandbox gpu-pod uid-$RUNID "" "$CGP" "$TMP/podlogs"); RC=$?
[ "$RC" = 0 ] && [ -n "$SB" ] && ! grep -q "container=$SB " "$LOG" &&
    pass "RunPodSandbox with the default handler: the sandbox got no hook (NRI does not show sandboxes as containers)" ||
    { fail "RunPodSandbox" "rc $RC $SB log: $(grep "container=$SB" "$LOG" | one_line) containerd: $(grep -i error "$TMP/containerd.log" | tail -3 | one_line)"; finish; }

# 3. a GPU container (device 195:0): the plugin injects the hook, runc runs it, the hook allows
C1=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" cuda "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
OUT=$(cri start "$C1"); RC2=$?
CFG=$(config_of "$C1")
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "gpu-numa-nri\[[0-9]*\] container=$C1 stage=nri-create action=inject " "$LOG" &&
    [ "$(jq -r '.hooks.createRuntime[0].path' "$CFG" 2>/dev/null)" = "$HOOK" ] &&
    grep -q "gpu-numa-hook\[[0-9]*\] container=$C1 pod=default/gpu-pod name=cuda stage=createRuntime action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " "$LOG" &&
    [ "$(cat "$CPUSET$CGP/$C1/cpuset.mems" 2>/dev/null)" = 0 ]; then
    pass "GPU container: the plugin added $(jq -c '.hooks.createRuntime[0] | {path, args, timeout}' "$CFG") to runc's config.json; the hook ran at createRuntime and allowed it (required=0)"
else fail "GPU container gets the hook" "create rc $RC ($C1) start rc $RC2 ($OUT) hooks: $(jq -c .hooks "$CFG" 2>&1 | one_line) log: $(grep "container=$C1" "$LOG" | one_line)"; fi

# 4. a container without GPUs: no adjustment, no hook in its config.json, no line
C0=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" plain "$IMG" 'exec sleep 600'); RC=$?
OUT=$(cri start "$C0"); RC2=$?
CFG=$(config_of "$C0")
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ -n "$CFG" ] && [ "$(jq -c '.hooks.createRuntime // []' "$CFG")" = "[]" ] &&
    ! grep -q "container=$C0 " "$LOG"; then
    pass "container without GPUs: no createRuntime hook in runc's config.json, nothing logged"
else fail "non-GPU container" "rc $RC/$RC2 ($OUT) cfg '$CFG' hooks: $(jq -c .hooks "$CFG" 2>&1 | one_line) log: $(grep "container=$C0" "$LOG" | one_line)"; fi

# 5. kubelet's Memory Manager drops the GPU's memory node: the plugin widens the update in NRI
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
OUT=$(cri update "$C1" 1); RC=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] &&
    grep -q "gpu-numa-nri\[[0-9]*\] container=$C1 stage=nri-update action=patch gpus=/dev/nvidia0($GPU_BUS) required=0 mems-before=0 mems-after=0-1 .*update asked for cpuset.mems 1, which drops GPU memory node(s) 0" "$LOG" &&
    [ "$(cat "$CPUSET$CGP/$C1/cpuset.mems")" = 0 ]; then
    pass "UpdateContainerResources cpuset_mems=1: the plugin widened it to 0-1 (runc update was handed $(cat "$TMP"/rec/*.update-form 2>/dev/null | head -1)), logged stage=nri-update action=patch; cpuset.mems still 0"
else fail "update widened" "rc $RC ($OUT) runc got $(echo "$UPD" | one_line) mems $(cat "$CPUSET$CGP/$C1/cpuset.mems") log: $(grep "stage=nri-update" "$LOG" | one_line)"; fi
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
n_before=$(grep -c "stage=nri-update" "$LOG")
OUT=$(cri update "$C1" 0); RC=$?
[ "$RC" = 0 ] && [ "$(jq -r .cpu.mems "$TMP"/rec/*.update 2>/dev/null)" = 0 ] && [ "$(grep -c "stage=nri-update" "$LOG")" = "$n_before" ] &&
    pass "UpdateContainerResources cpuset_mems=0 (keeps the GPU node): passed on unchanged, nothing logged" ||
    fail "update kept" "rc $RC ($OUT) runc got $(cat "$TMP"/rec/*.update 2>/dev/null | one_line)"

# 5b. kubelet's CPU Manager updates cpus only: containerd re-applies the stored spec's mems, the
# value from before the hook; the plugin answers with the container's mems now. The pod asked for
# mems 1 (Memory Manager); this host has node 0 only, so the recorder hands runc the value
# intersected with the host's nodes (the cgroup keeps 0, the GPU's node, as the hook would have made it).
C5=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" stale-spec "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0" --mems 1); RC=$?
OUT=$(cri start "$C5"); RC2=$?
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(jq -r .linux.resources.cpu.mems "$(config_of "$C5")")" = 1 ] &&
    [ "$(cat "$CPUSET$CGP/$C5/cpuset.mems" 2>/dev/null)" = 0 ] ||
    fail "GPU container with mems 1" "rc $RC/$RC2 ($OUT) spec mems $(jq -r .linux.resources.cpu.mems "$(config_of "$C5")" 2>&1) cgroup $(cat "$CPUSET$CGP/$C5/cpuset.mems" 2>&1)"
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
OUT=$(cri update-cpus "$C5" 0-1); RC=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] && [ "$(echo "$UPD" | jq -r .cpu.cpus)" = 0-1 ] &&
    grep -q "container=$C5 stage=nri-update action=patch .*mems-before=0 mems-after=0-1 .*update sets no cpuset.mems, so the runtime re-applies the spec's 1 (from before the hook widened it), which drops GPU memory node(s) 0" "$LOG" &&
    [ "$(cat "$CPUSET$CGP/$C5/cpuset.mems")" = 0 ]; then
    pass "cpus-only UpdateContainerResources (cpuset_cpus=0-1) of a GPU container whose spec says mems 1: runc update was handed cpus 0-1 and mems 0-1 (not the spec's 1), logged; cpuset.mems still 0"
else fail "cpus-only update keeps the GPU node" "rc $RC ($OUT) runc got $(echo "$UPD" | one_line) mems $(cat "$CPUSET$CGP/$C5/cpuset.mems") log: $(grep "container=$C5 stage=nri-update" "$LOG" | one_line)"; fi
# containerd merged our answer into the stored spec: the next cpus-only update carries 0-1 by itself
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
n_before=$(grep -c "container=$C5 stage=nri-update" "$LOG")
OUT=$(cri update-cpus "$C5" 1); RC=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
[ "$RC" = 0 ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] && [ "$(grep -c "container=$C5 stage=nri-update" "$LOG")" = "$n_before" ] &&
    pass "the next cpus-only update: containerd's stored spec now says mems 0-1 (it merged the plugin's answer): runc got 0-1, the plugin had nothing to add" ||
    fail "stored spec repaired" "rc $RC ($OUT) runc got $(echo "$UPD" | one_line) log: $(grep "container=$C5 stage=nri-update" "$LOG" | tail -1 | one_line)"
# 5c. the GPU's driver files hang (an unserved FUSE mount over its /proc/driver/nvidia/gpus entry,
# as a wedged driver's or a stuck filesystem's reads do): the plugin answers the update within
# containerd's 2 s request timeout with no adjustment and says so; containerd keeps it registered.
# Released (the mount's server gone), the stuck read fails and its line says it was never applied.
GPUDIR=/proc/driver/nvidia/gpus/$GPU_BUS
cp -a "$GPUDIR" "$TMP/gpu-files"
n_disc=$(grep -c "stage=nri-connect action=disconnected" "$LOG")
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form "$TMP/hang.ready"
"$PY" "$SCRIPT_DIR/hanging_mount.py" "$GPUDIR" "$TMP/hang.ready" &
HANG=$!
for i in $(seq 1 100); do [ -s "$TMP/hang.ready" ] && break; sleep 0.1; done
if [ -s "$TMP/hang.ready" ]; then
    OUT=$(cri update "$C1" 1); RC=$?
    if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(jq -r .cpu.mems "$TMP"/rec/*.update 2>/dev/null)" = 1 ] &&
        grep -q "gpu-numa-nri\[[0-9]*\] .*stage=nri-call .*UpdateContainer for container $C1 (pod default/gpu-pod) did not finish within 1500 ms .*answered with no adjustment: the update goes on unchanged" "$LOG" &&
        [ "$(grep -c "stage=nri-connect action=disconnected" "$LOG")" = "$n_disc" ]; then
        pass "driver files hang: UpdateContainerResources answered in time with no adjustment (runc got mems 1), logged '$(grep 'did not finish within' "$LOG" | tail -1 | sed 's/.*msg="//' | cut -c1-110)...'; the plugin stayed registered"
    else fail "hanging driver read" "rc $RC ($OUT) runc got $(cat "$TMP"/rec/*.update 2>/dev/null | one_line) log: $(grep -E "stage=nri-(call|connect|update)" "$LOG" | tail -3 | one_line)"; fi
    kill "$HANG"; wait "$HANG" 2>/dev/null
    wait_for "$LOG" "container=$C1 stage=nri-update .*not applied \(finished after the runtime's deadline" &&
        pass "released, the stuck read ended and its line says it was not applied: '$(grep 'not applied (finished' "$LOG" | tail -1 | sed 's/.*msg="//' | cut -c1-120)...'" ||
        fail "late line" "$(grep "container=$C1 stage=nri-update" "$LOG" | tail -1 | one_line)"
else fail "hanging mount" "not mounted: $(jobs -l | one_line)"; kill "$HANG" 2>/dev/null; fi
umount "$GPUDIR" 2>/dev/null || umount -l "$GPUDIR" 2>/dev/null
[ -f "$GPUDIR/information" ] || cp -a "$TMP/gpu-files/." "$GPUDIR/"
OUT=$(cri update "$C1" 0); RC=$?
[ "$RC" = 0 ] && [ "$(cat "$CPUSET$CGP/$C1/cpuset.mems")" = 0 ] || fail "restore mems 0" "rc $RC ($OUT) mems $(cat "$CPUSET$CGP/$C1/cpuset.mems")"

# 6. the GPU memory node offline: the hook refuses; StartContainer's error carries our line
set_status offline
C2=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" refused "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
OUT=$(cri start "$C2"); RC2=$?
if [ "$RC" = 0 ] && [ "$RC2" = 3 ] && echo "$OUT" | grep -q "^grpc-error: [A-Z_]*: .*gpu-numa-hook: container $C2: refusing start: GPU /dev/nvidia0 ($GPU_BUS) memory NUMA node 0 is not online yet" &&
    grep -q "container=$C2 pod=default/gpu-pod name=refused stage=createRuntime action=refuse" "$LOG"; then
    pass "GPU memory node offline: StartContainer failed with our line: $(echo "$OUT" | one_line | cut -c1-300)"
else fail "refused start" "create rc $RC ($C2) start rc $RC2: $(echo "$OUT" | one_line) log: $(grep "container=$C2" "$LOG" | one_line)"; fi
set_status online

# 7. containerd restarted: the plugin sees the connection end, reconnects, and the next GPU container gets the hook
n_conn=$(grep -c "stage=nri-connect action=connected" "$LOG")
stop_pidfile "$TMP/containerd.pid"
wait_for "$LOG" "stage=nri-connect action=disconnected" || fail "disconnect seen" "$(tail -3 "$LOG" | one_line)"
start_containerd
if wait_for "$LOG" "stage=nri-connect action=connected" $((n_conn + 1)); then
    C3=""
    for i in $(seq 1 150); do cri version >/dev/null 2>&1 && break; sleep 0.2; done
    C3=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" after-restart "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
    OUT=$(cri start "$C3"); RC2=$?
    [ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "container=$C3 pod=default/gpu-pod name=after-restart stage=createRuntime action=allow" "$LOG" &&
        pass "containerd restarted: the plugin logged '$(grep 'action=disconnected' "$LOG" | tail -1 | sed 's/.*msg="//; s/"$//' | cut -c1-120)', reconnected, and the next GPU container got the hook" ||
        fail "after restart" "create rc $RC ($C3) start $RC2 ($OUT) log: $(grep "container=$C3" "$LOG" | one_line)"
else fail "reconnect after containerd restart" "log: $(grep nri-connect "$LOG" | tail -3 | one_line) plugin: $(tail -3 "$TMP/plugin.log" | one_line)"; fi

# 7b. the plugin's container counts, over both connections: in its state file within a heartbeat
# (10 s), exported by check as counters, equal to what it logged; and the hook's decisions, counted
# by the hook runc ran (on this test's own /run/gpu-numa-hook), equal to the refusals it logged
n_ref=$(grep -c "gpu-numa-hook\[[0-9]*\] .*stage=createRuntime action=refuse " "$LOG")
n_inj=$(grep -c "gpu-numa-nri\[[0-9]*\] .*stage=nri-create action=inject " "$LOG")
n_failed=$(grep -c "gpu-numa-nri\[[0-9]*\] .*stage=nri-call .*answered with no adjustment" "$LOG")
for i in $(seq 1 150); do [ "$(jq -r .injections "$STATE" 2>/dev/null)" = "$n_inj" ] && break; sleep 0.1; done
"$HOOK" check --prometheus "$TMP/metrics.prom" >/dev/null 2>&1
if [ "$n_inj" -ge 3 ] && [ "$n_failed" -ge 1 ] && grep -qx "gpu_numa_hook_nri_injections_total $n_inj" "$TMP/metrics.prom" &&
    grep -qx "gpu_numa_hook_nri_calls_failed_total $n_failed" "$TMP/metrics.prom" &&
    grep -qx '# TYPE gpu_numa_hook_nri_injections_total counter' "$TMP/metrics.prom" &&
    [ "$n_ref" -ge 1 ] && grep -qx "gpu_numa_hook_decisions_total{action=\"refuse\"} $n_ref" "$TMP/metrics.prom"; then
    pass "check --prometheus: gpu_numa_hook_nri_injections_total $n_inj and gpu_numa_hook_nri_calls_failed_total $n_failed, as the plugin logged; gpu_numa_hook_decisions_total{action=\"refuse\"} $n_ref, as the hook logged"
else fail "NRI counters" "logged $n_inj injections, $n_failed failed calls, $n_ref refusals; state $(jq -c '{injections, calls_failed}' "$STATE" 2>&1) metrics: $(grep _total "$TMP/metrics.prom" 2>&1 | one_line)"; fi

# 8. the plugin killed: check and status report it (NRI fails open, so this must be visible)
OUT=$("$HOOK" status 2>&1)
echo "$OUT" | grep -q '^  nri: connected to containerd' && pass "status while connected: '$(echo "$OUT" | grep '^  nri:' | one_line)'" ||
    fail "status while connected" "$(echo "$OUT" | one_line)"
{ kill -9 "$(cat "$TMP/plugin.pid")"; wait "$(cat "$TMP/plugin.pid")"; } 2>/dev/null
OUT=$("$HOOK" check 2>&1); RC=$?
if echo "$OUT" | grep -q "NRI plugin not connected: .*gpu-numa-nri (pid $(cat "$TMP/plugin.pid")) is gone" && [ "$RC" = 1 ]; then
    pass "plugin killed: check exits 1 with '$(echo "$OUT" | grep 'NRI plugin' | one_line | cut -c1-160)'"
else fail "check after kill" "rc $RC: $(echo "$OUT" | one_line)"; fi
OUT=$("$HOOK" status 2>&1); RC=$?
[ "$RC" = 1 ] && echo "$OUT" | grep -q "^not protected: NRI plugin not connected: .*: GPU pods start without the hook" &&
    pass "plugin killed: status exits 1 with '$(echo "$OUT" | grep '^not protected: NRI' | one_line | cut -c1-160)'" ||
    fail "status after kill" "rc $RC: $(echo "$OUT" | one_line)"
"$HOOK" check --prometheus "$TMP/metrics.prom" >/dev/null 2>&1
grep -q '^gpu_numa_hook_nri_plugin_connected 0$' "$TMP/metrics.prom" && pass "check --prometheus: gpu_numa_hook_nri_plugin_connected 0" ||
    fail "prometheus" "$(grep -i nri "$TMP/metrics.prom" 2>&1 | one_line)"

# 8b. the hook the plugin injects is missing on the node (a wrong --hook, the init container
# failed): GPU pods start without it, the plugin's log says why, status and check say unprotected
MISSING=$TMP/no-such-dir/gpu-numa-hook
n_conn=$(grep -c "stage=nri-connect action=connected" "$LOG")
"$PLUGIN" --socket "$NRI_SOCK" --hook "$MISSING" --config "$TMP/cfg/nri.toml" >>"$TMP/plugin.log" 2>&1 &
echo $! >"$TMP/plugin.pid"
if wait_for "$LOG" "stage=nri-connect action=connected" $((n_conn + 1)) &&
    grep -q "gpu-numa-nri\[[0-9]*\] container=- stage=nri-hook action=missing .*the hook $MISSING is not usable on this node (No such file or directory)" "$LOG"; then
    C6=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" no-hook "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
    OUT=$(cri start "$C6"); RC2=$?
    CFG=$(config_of "$C6")
    if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(jq -c '.hooks.createRuntime // []' "$CFG")" = "[]" ] &&
        grep -q "gpu-numa-nri\[[0-9]*\] container=$C6 stage=nri-create action=unprotected .*the hook $MISSING is not usable on this node (No such file or directory): it starts WITHOUT the hook.*container no-hook" "$LOG"; then
        pass "hook missing ($MISSING): the GPU pod STARTED without it; the plugin logged '$(grep "container=$C6 stage=nri-create" "$LOG" | sed 's/.*msg="//' | cut -c1-150)'"
    else fail "GPU pod with the hook missing" "create rc $RC start rc $RC2 ($OUT) hooks $(jq -c .hooks "$CFG" 2>&1 | one_line) log: $(grep "container=$C6" "$LOG" | one_line)"; fi
    OUT=$("$HOOK" status 2>&1); RC=$?
    [ "$RC" = 1 ] && echo "$OUT" | grep -q "^not protected: NRI plugin injects no hook: $MISSING is not usable on this node (No such file or directory)" &&
        echo "$OUT" | grep -q '^  nri: connected to containerd' &&
        pass "hook missing: status exits 1, '$(echo "$OUT" | grep '^not protected: NRI plugin injects' | cut -c1-140)' while the plugin is connected" ||
        fail "status with the hook missing" "rc $RC: $(echo "$OUT" | one_line)"
    OUT=$("$HOOK" check --prometheus "$TMP/metrics.prom" 2>&1); RC=$?
    [ "$RC" = 1 ] && echo "$OUT" | grep -q "^NRI plugin injects no hook: $MISSING" && grep -q '^gpu_numa_hook_nri_hook_present 0$' "$TMP/metrics.prom" &&
        grep -q '^gpu_numa_hook_nri_plugin_connected 1$' "$TMP/metrics.prom" &&
        pass "hook missing: check exits 1 naming it; gpu_numa_hook_nri_hook_present 0 (connected 1)" ||
        fail "check with the hook missing" "rc $RC: $(echo "$OUT" | one_line) metrics: $(grep nri "$TMP/metrics.prom" 2>&1 | one_line)"
else fail "plugin with a missing hook connects and says so" "log: $(grep -E 'nri-connect|nri-hook' "$LOG" | tail -3 | one_line) plugin: $(tail -3 "$TMP/plugin.log" | one_line)"; fi
stop_pidfile "$TMP/plugin.pid"

# 8c. the hook is there but on a noexec mount (runc's exec would fail with EACCES): reached through
# a symlink, it is judged where the link leads; not usable, never injected, status says why
NOEXEC=$(realpath "$TMP")/noexec-mnt
mkdir -p "$NOEXEC" && mount -t tmpfs -o noexec gnh-noexec "$NOEXEC" && cp "$HOOK" "$NOEXEC/gpu-numa-hook" &&
    ln -sfn "$NOEXEC/gpu-numa-hook" "$TMP/hook-link" || fail "setup" "cannot mount a noexec tmpfs at $NOEXEC"
WHY="on a noexec mount ($NOEXEC, gnh-noexec)"
n_conn=$(grep -c "stage=nri-connect action=connected" "$LOG")
"$PLUGIN" --socket "$NRI_SOCK" --hook "$TMP/hook-link" --config "$TMP/cfg/nri.toml" >>"$TMP/plugin.log" 2>&1 &
echo $! >"$TMP/plugin.pid"
if wait_for "$LOG" "stage=nri-connect action=connected" $((n_conn + 1)) &&
    grep -qF "the hook $TMP/hook-link is not usable on this node ($WHY)" "$LOG"; then
    C7=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" noexec-hook "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
    OUT=$(cri start "$C7"); RC2=$?
    CFG=$(config_of "$C7")
    if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(jq -c '.hooks.createRuntime // []' "$CFG")" = "[]" ] &&
        grep "container=$C7 stage=nri-create action=unprotected" "$LOG" | grep -qF "($WHY): it starts WITHOUT the hook"; then
        pass "hook on a noexec mount: the GPU pod STARTED without it; the plugin logged '$WHY'"
    else fail "GPU pod with the hook on a noexec mount" "create rc $RC start rc $RC2 ($OUT) hooks $(jq -c .hooks "$CFG" 2>&1 | one_line) log: $(grep "container=$C7" "$LOG" | one_line)"; fi
    OUT=$("$HOOK" status 2>&1); RC=$?
    [ "$RC" = 1 ] && echo "$OUT" | grep -qF "not protected: NRI plugin injects no hook: $TMP/hook-link is not usable on this node ($WHY)" &&
        pass "hook on a noexec mount: status exits 1 saying '$WHY'" ||
        fail "status with the hook on a noexec mount" "rc $RC: $(echo "$OUT" | one_line)"
else fail "plugin with a noexec hook says so" "log: $(grep -E 'nri-connect|nri-hook' "$LOG" | tail -3 | one_line) plugin: $(tail -3 "$TMP/plugin.log" | one_line)"; fi
stop_pidfile "$TMP/plugin.pid"
umount "$NOEXEC" 2>/dev/null

# 10. another NRI plugin owns cpu.mems (a resource manager: mems-owner, on containerd/nri's own
# pkg/stub, sets mems 1 on every create and update, at index 90, before ours at 99, the default). Ours claims
# no mems at create (the hook checks the final mems at runc time) and marks its update
# ignore_failure: no create and no update fails; the GPU container keeps its GPU node (0) where
# ours can keep it, and our log says when the other plugin's value stood.
if [ -x "$TMP/bin/mems-owner" ]; then
    n_conn=$(grep -c "stage=nri-connect action=connected" "$LOG")
    start_plugin
    "$TMP/bin/mems-owner" -socket "$NRI_SOCK" -idx 90 -mems 1 >"$TMP/mems-owner.log" 2>&1 &
    echo $! >"$TMP/mems-owner.pid"
    if wait_for "$LOG" "stage=nri-connect action=connected" $((n_conn + 1)) && wait_for "$TMP/mems-owner.log" "^mems-owner: synchronized"; then
        C7=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" with-owner "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
        OUT=$(cri start "$C7"); RC2=$?
        CFG=$(config_of "$C7")
        if [ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "^mems-owner: create $C7 .* mems=1$" "$TMP/mems-owner.log" &&
            [ "$(jq -r .linux.resources.cpu.mems "$CFG")" = 1 ] && [ "$(jq -r '.hooks.createRuntime[0].path' "$CFG")" = "$HOOK" ] &&
            grep -q "container=$C7 pod=default/gpu-pod name=with-owner stage=createRuntime action=allow .*required=0 " "$LOG" &&
            [ "$(cat "$CPUSET$CGP/$C7/cpuset.mems")" = 0 ]; then
            pass "two plugins at create: mems-owner set cpu.mems 1, ours added the hook (no conflict: ours claims no mems); the container started, the hook checked it at runc time (cgroup 0, the GPU's node)"
        else fail "create with mems-owner" "create rc $RC start rc $RC2 ($OUT) spec mems $(jq -r .linux.resources.cpu.mems "$CFG" 2>&1) hooks $(jq -c .hooks "$CFG" 2>&1 | one_line) owner: $(one_line <"$TMP/mems-owner.log") containerd: $(grep -i -E 'error|fail' "$TMP/containerd.log" | tail -2 | one_line)"; fi
        for how in "update $C7 0" "update-cpus $C7 0-1"; do
            rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
            n_upd=$(grep -c "container=$C7 stage=nri-update action=patch" "$LOG")
            # shellcheck disable=SC2086
            OUT=$(cri $how); RC=$?
            UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
            if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 1 ] &&
                [ "$(grep -c "container=$C7 stage=nri-update action=patch .*mems-before=0 mems-after=0-1 .*ignore_failure" "$LOG")" = $((n_upd + 1)) ]; then
                pass "two plugins, UpdateContainerResources ($how): succeeded; mems-owner's mems 1 stood (runc got 1), ours asked for 0-1 with ignore_failure and logged that the other plugin's value may stand"
            else fail "update with mems-owner ($how)" "rc $RC ($OUT) runc got $(echo "$UPD" | one_line) log: $(grep "container=$C7 stage=nri-update" "$LOG" | tail -1 | one_line) owner: $(tail -1 "$TMP/mems-owner.log") containerd: $(grep -i -E 'both tried|conflict|error' "$TMP/containerd.log" | tail -2 | one_line)"; fi
        done
    else fail "mems-owner and gpu-numa-nri registered" "owner: $(one_line <"$TMP/mems-owner.log") log: $(grep nri-connect "$LOG" | tail -2 | one_line)"; fi
    stop_pidfile "$TMP/mems-owner.pid"
    stop_pidfile "$TMP/plugin.pid"
else fail "coexistence with a second NRI plugin" "tests/nri/mems-owner was not built (see the build failure above)"; fi

# 9. pre-registered mode: install puts 99-gpu-numa in containerd's plugin directory; containerd
# starts it at its own start with the connection on an fd; it registers and injects the hook
OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --nri-pre-registered --nri-plugin-dir "$TMP/nri-plugins" \
      --nri-plugin-path "$PLUGIN" --hook-path "$HOOK" 2>&1); RC=$?
n_conn=$(grep -c "stage=nri-connect action=connected" "$LOG")
stop_pidfile "$TMP/containerd.pid"
start_containerd
if [ "$RC" = 0 ] && [ -x "$TMP/nri-plugins/99-gpu-numa" ] && wait_for "$LOG" "stage=nri-connect action=connected" $((n_conn + 1)) &&
    grep -q "action=connecting .*connected on fd [0-9]* (pre-registered); registering as 99-gpu-numa" "$LOG"; then
    for i in $(seq 1 150); do cri version >/dev/null 2>&1 && break; sleep 0.2; done
    C4=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" pre-registered "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
    OUT=$(cri start "$C4"); RC2=$?
    [ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "container=$C4 stage=nri-create action=inject" "$LOG" &&
        grep -q "container=$C4 pod=default/gpu-pod name=pre-registered stage=createRuntime action=allow" "$LOG" &&
        pass "pre-registered: containerd started $TMP/nri-plugins/99-gpu-numa itself (connection on an fd), the next GPU container got the hook" ||
        fail "pre-registered GPU container" "rc $RC/$RC2 ($OUT) log: $(grep "container=$C4" "$LOG" | one_line)"
else fail "pre-registered plugin" "install rc $RC: $(echo "$OUT" | one_line) log: $(grep nri-connect "$LOG" | tail -2 | one_line) containerd: $(grep -i 'plugin' "$TMP/containerd.log" | grep -i nri | tail -3 | one_line)"; fi

# 10. the pre-registered plugin loses its connection (containerd killed, so it cannot stop it): it
# keeps protecting by dialing the NRI socket, registers as an external plugin once containerd is
# back, and the next GPU container gets the hook from it. With 99-gpu-numa in place again, the next
# containerd start launches a new instance, and the one dialing steps aside and exits.
P2=$(jq -r .pid "$STATE" 2>/dev/null)
echo "$P2" >"$TMP/plugin-fallback.pid"
n_p2=$(grep -c "gpu-numa-nri\[$P2\] .*stage=nri-connect action=connected" "$LOG")
mv "$TMP/nri-plugins/99-gpu-numa" "$TMP/99-gpu-numa.away"
kill -9 "$(cat "$TMP/containerd.pid")"
if wait_for "$LOG" "gpu-numa-nri\[$P2\] .*action=disconnected .*keeps protecting by dialing $NRI_SOCK as an external plugin"; then
    start_containerd
    for i in $(seq 1 150); do cri version >/dev/null 2>&1 && break; sleep 0.2; done
    if wait_for "$LOG" "gpu-numa-nri\[$P2\] .*stage=nri-connect action=connected" $((n_p2 + 1)); then
        C8=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" fallback "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
        OUT=$(cri start "$C8"); RC2=$?
        [ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "gpu-numa-nri\[$P2\] container=$C8 stage=nri-create action=inject" "$LOG" &&
            grep -q "container=$C8 pod=default/gpu-pod name=fallback stage=createRuntime action=allow" "$LOG" &&
            pass "pre-registered plugin's connection dropped: it went on dialing, registered as an external plugin (pid $P2) and the next GPU container got the hook" ||
            fail "fallback GPU container" "rc $RC/$RC2 ($OUT) log: $(grep "container=$C8" "$LOG" | one_line)"
    else fail "fallback registration" "log: $(grep "gpu-numa-nri\[$P2\]" "$LOG" | grep nri-connect | tail -3 | one_line)"; fi
else fail "fallback after drop" "pid $P2 alive: $(kill -0 "$P2" 2>&1 && echo yes); log: $(grep nri-connect "$LOG" | tail -3 | one_line)"; fi
mv "$TMP/99-gpu-numa.away" "$TMP/nri-plugins/99-gpu-numa"
kill -9 "$(cat "$TMP/containerd.pid")"
start_containerd
for i in $(seq 1 150); do cri version >/dev/null 2>&1 && break; sleep 0.2; done
if wait_for "$LOG" "gpu-numa-nri\[$P2\] .*action=exit .*another gpu-numa-nri \(pid [0-9]*\) now writes the state file"; then
    for i in $(seq 1 100); do kill -0 "$P2" 2>/dev/null || break; sleep 0.1; done
    P3=$(jq -r .pid "$STATE" 2>/dev/null)
    echo "$P3" >"$TMP/plugin-pre.pid"
    ! kill -0 "$P2" 2>/dev/null && [ "$P3" != "$P2" ] && grep -q "gpu-numa-nri\[$P3\] .*connected on fd [0-9]* (pre-registered)" "$LOG" &&
        pass "containerd launched a new pre-registered instance (pid $P3); the dialing one (pid $P2) saw it take over the state file and exited" ||
        fail "step aside" "P2 $P2 alive: $(kill -0 "$P2" 2>&1 && echo yes) P3 $P3 log: $(grep nri-connect "$LOG" | tail -3 | one_line)"
else fail "step aside" "log: $(grep "gpu-numa-nri\[$P2\]" "$LOG" | tail -3 | one_line)"; fi

# install --uninstall: what install added goes, the NRI table is as before
OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --nri-pre-registered --nri-plugin-dir "$TMP/nri-plugins" --uninstall 2>&1); RC=$?
if [ "$MAJOR" = 1 ]; then
    [ "$RC" = 0 ] && [ "$(md5sum <"$CTD/config.toml")" = "$BEFORE" ] && [ ! -e "$CTD/conf.d/99-zz-gpu-numa-nri.toml" ] &&
        [ ! -e "$TMP/nri-plugins/99-gpu-numa" ] && [ "$(DUMP_NRI)" = "disable = true socket_path = \"$NRI_SOCK\"" ] &&
        pass "install --runtime nri --nri-pre-registered --uninstall (1.7): drop-in, import and 99-gpu-numa gone, config.toml as before, NRI off again" ||
        fail "uninstall (1.7)" "rc $RC: $(echo "$OUT" | one_line) dump: $(DUMP_NRI)"
else
    [ "$RC" = 0 ] && echo "$OUT" | grep -q "^removed: $TMP/nri-plugins/99-gpu-numa" && [ ! -e "$TMP/nri-plugins/99-gpu-numa" ] &&
        [ "$(md5sum <"$CTD/config.toml")" = "$BEFORE" ] &&
        pass "install --runtime nri --nri-pre-registered --uninstall ($REL): 99-gpu-numa removed, containerd's config untouched" ||
        fail "uninstall ($REL)" "rc $RC: $(echo "$OUT" | one_line)"
fi

# 11. a busy node: 12 pods with 512 KiB annotations put NRI's state past 6 MiB. A plugin that
# registers now is synchronized in several messages (containerd 2.x, NRI >= 0.7): it registers once
# and stays, and a GPU container created afterwards gets the hook. containerd 1.7 (NRI 0.6) cannot
# split and drops every registration: check and status must say the plugin keeps being dropped.
BIG=()
for i in $(seq 1 12); do
    b=$(cri run-sandbox "big-$i" "uid-big-$i-$RUNID" "" "$CGP" "$TMP/podlogs" 524288) && BIG+=("$b") ||
        fail "big pod $i" "$(echo "$b" | one_line)"
done
stop_pidfile "$TMP/plugin-pre.pid"  # the pre-registered instance of step 10; a fresh external one registers now
: >"$TMP/plugin.log"
start_plugin
PB=$(cat "$TMP/plugin.pid")
if [ "$MAJOR" = 2 ]; then
    if wait_for "$LOG" "gpu-numa-nri\[$PB\] .*stage=nri-connect action=connected"; then
        C9=$(cri create "$SB" gpu-pod uid-$RUNID "$CGP" "$TMP/podlogs" busy-node "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
        OUT=$(cri start "$C9"); RC2=$?
        NREG=$(grep -c "gpu-numa-nri\[$PB\] .*stage=nri-connect action=connected" "$LOG")
        NDROP=$(grep -c "gpu-numa-nri\[$PB\] .*stage=nri-connect action=disconnected" "$LOG")
        SPLIT=$(grep -c "sending sync message\|plugin does not handle split sync" "$TMP/containerd.log")
        ST=$("$HOOK" status 2>&1)
        [ "${#BIG[@]}" = 12 ] && [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$NREG" = 1 ] && [ "$NDROP" = 0 ] &&
            [ "$(jq -r '.connects, .drops' "$STATE" | one_line)" = "1 0" ] &&
            ! grep -q "plugin does not handle split sync" "$TMP/containerd.log" &&
            grep -q "gpu-numa-nri\[$PB\] container=$C9 stage=nri-create action=inject" "$LOG" &&
            grep -q "container=$C9 pod=default/gpu-pod name=busy-node stage=createRuntime action=allow" "$LOG" &&
            echo "$ST" | grep -q '^  nri: connected to containerd' && ! echo "$ST" | grep -q "NRI plugin" &&
            pass "12 pods with 512 KiB annotations: the plugin registered once (state file: connects 1, drops 0; no split-sync refusal in containerd's log), status counts it; the next GPU container got the hook" ||
            fail "busy node ($REL)" "pods ${#BIG[@]} rc $RC/$RC2 ($OUT) registrations $NREG drops $NDROP state $(jq -c '{connects, drops, last_drop_reason}' "$STATE") status: $(echo "$ST" | grep -i nri | one_line) containerd: $(grep -i 'sync' "$TMP/containerd.log" | tail -2 | one_line)"
    else fail "busy node registration ($REL)" "plugin: $(grep "gpu-numa-nri\[$PB\]" "$LOG" | tail -3 | one_line) containerd: $(grep -i sync "$TMP/containerd.log" | tail -2 | one_line)"; fi
else
    if wait_for "$LOG" "gpu-numa-nri\[$PB\] .*stage=nri-connect action=disconnected" 3; then
        OUT=$("$HOOK" check 2>&1); RC=$?
        ST=$("$HOOK" status 2>&1); RCS=$?
        "$HOOK" check --prometheus "$TMP/metrics.prom" >/dev/null 2>&1
        # containerd 1.7's ttrpc sends the whole state as one frame over ttrpc's 4 MiB limit, which the
        # plugin refuses as Go's ttrpc does: the registration never completes, and the plugin says so.
        [ "$RC" = 1 ] && echo "$OUT" | grep -q -E "NRI plugin (not connected: .*frame announces [0-9]* bytes, over the 4 MiB limit \(the runtime ended its connection [0-9]* times in the last 10 min\)|keeps being dropped: the runtime ended its connection [0-9]* times in the last 10 min)" &&
            [ "$RCS" = 1 ] && echo "$ST" | grep -q "^not protected: NRI plugin" &&
            grep -q '^gpu_numa_hook_nri_plugin_connected 0$' "$TMP/metrics.prom" &&
            pass "12 pods with 512 KiB annotations on containerd 1.7 (no split sync): no registration completes; check and status say so (exit 1), the metric 0: '$(echo "$OUT" | grep 'NRI plugin' | one_line | cut -c1-260)'" ||
            fail "busy node (1.7)" "check rc $RC: $(echo "$OUT" | grep NRI | one_line) status rc $RCS: $(echo "$ST" | grep NRI | one_line)"
    else fail "busy node drops (1.7)" "plugin: $(grep "gpu-numa-nri\[$PB\]" "$LOG" | tail -3 | one_line) containerd: $(grep -i -E 'sync|nri' "$TMP/containerd.log" | tail -3 | one_line)"; fi
fi
for b in "${BIG[@]}"; do cri stop-sandbox "$b" >/dev/null; cri remove-sandbox "$b" >/dev/null; done

# NRI 0.12 calls each event by its own RPC and warns about plugins still answering StateChange:
# ours subscribes to CreateContainer and UpdateContainer only, never served through StateChange
if [ "$REL" = 2.3 ]; then
    DEP=$(grep -i 'deprecated StateChange\|does not implement a dedicated' "$TMP/containerd.log" | grep gpu-numa | head -2)
    N_CREATE=$(grep -c "stage=nri-create action=inject" "$LOG")
    [ -z "$DEP" ] && [ "$N_CREATE" -gt 0 ] &&
        pass "NRI 0.12: $N_CREATE CreateContainer calls served, and containerd logged no StateChange deprecation for our plugin" ||
        fail "NRI 0.12 deprecations" "injections $N_CREATE; containerd: $(echo "$DEP" | one_line)"
fi

# teardown
for c in "$C0" "$C1" "$C2" "${C3:-}" "${C4:-}" "${C5:-}" "${C6:-}" "${C7:-}" "${C8:-}" "${C9:-}"; do [ -n "$c" ] || continue; cri stop "$c" >/dev/null; cri remove "$c" >/dev/null; done
cri stop-sandbox "$SB" >/dev/null; cri remove-sandbox "$SB" >/dev/null
finish
