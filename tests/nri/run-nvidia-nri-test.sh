#!/bin/bash
# gpu-numa-nri beside NVIDIA's own NRI plugin (nvidia-ctk-installer 1.20.0 --enable-nri-plugin, the
# GPU operator's NRI mode), both real, on the real containerd 2.2 / 2.3 with CDI on, driven over
# CRI as kubelet does (tests/engine/cri/cri_client.py). NVIDIA's plugin gives a container its GPU
# from the pod annotation nvidia.cdi.k8s.io/container.<name> (or /pod, or the bare key) as CDI
# devices; NRI shows no other plugin those, and containerd resolves them through its CDI registry
# (a real spec file here: nvidia.com/gpu=0 -> the fake /dev/nvidia0, 195:0) only after every plugin
# answered. Our plugin reads the annotation itself:
#   annotated (container scope, pod scope) -> /dev/nvidia0 in the spec runc was handed, our hook in
#       it, and the hook ran and found the GPU there (its line, from the fake driver tree)
#   a pod without it                       -> no device, no hook
#   ours registered before NVIDIA's (05 vs 10) and after (99), each plugin restarted in between;
#       NVIDIA's toolkit pod ended (its plugin gone): an annotated pod then has no GPU
#   another plugin's CDI device (tests/nri/mems-owner -cdi-for), which ours cannot see at create:
#       PostCreateContainer shows the created container with /dev/nvidia0 and no hook, and ours
#       logs it as unprotected at once
#   NRI's default validator on (install --nri-require-for-gpu-pods), ours down: such a pod carrying
#       the require-plugin component's annotation is refused, not started without the hook
# At each step `gpu-numa-hook status` is judged, and at the end every GPU container started is
# accounted for: hooked, or named by status, check and the metrics.
# Harness: tests/engine/lib.sh (private mount namespace, fake driver, /etc overlay, own sockets);
# runc behind the recorder (tests/engine/runc_recorder.py). One containerd for the whole suite.
# Usage: tests/nri/run-nvidia-nri-test.sh HOOK PLUGIN SUITE     SUITE: v2.2 | v2.3
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
# shellcheck source=../engine/containerd-suite.sh
. "$ENGINE_DIR/containerd-suite.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
PLUGIN=$(abs "${2:-$REPO/build/gpu-numa-nri}")
SUITE=${3:-v2.3}
PY=/usr/bin/python3
TALLY_NAME="nri beside NVIDIA's NRI plugin ($SUITE)"
cleanup() {
    stop_pidfile "$TMP/plugin.pid"
    stop_pidfile "$TMP/nvidia.pid"
    stop_pidfile "$TMP/injector.pid"
    engine_cleanup "gnh-nv-$RUNID"
}
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox "$PY"
    mkdir -p "$TMP/bin"
    "$PY" -c 'import grpc, grpc_tools, yaml' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools / python3-yaml missing"; finish; }
    [ -x "$HOOK" ] && [ -x "$PLUGIN" ] || { fail "binaries" "$HOOK or $PLUGIN missing"; finish; }
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    # NVIDIA's installer and its artifacts, from shared/tools (a clone has none: loud skip, CI fails)
    rc=0; NV=$("$SCRIPT_DIR/fetch-nvidia-installer.sh") || rc=$?
    if [ "$rc" = 77 ]; then skip "every case: NOT RUN" "NVIDIA's nvidia-ctk-installer is not here (see the line above)"; finish
    elif [ "$rc" != 0 ]; then fail "fetch NVIDIA's installer" "tests/nri/fetch-nvidia-installer.sh failed (exit $rc)"; finish; fi
    echo "$NV" >"$TMP/nvidia-parts"
    # a second plugin that injects a CDI device by container name (tests/nri/mems-owner -cdi-for)
    OUT=$("$SCRIPT_DIR/build-mems-owner.sh" "$TMP/bin/mems-owner" 2>&1) ||
        fail "build tests/nri/mems-owner (containerd/nri 0.8.0 pkg/stub, Debian's Go 1.24)" "$(echo "$OUT" | tail -5 | one_line)"
    # The annotation the require-plugin component's policy adds, read out of the policy.
    "$PY" "$REPO/tests/k8s/check-require-plugin.py" --annotation \
        "$REPO/examples/kubernetes/nri/components/require-plugin/mutatingadmissionpolicy.yaml" >"$TMP/annotation" ||
        { fail "annotation" "$(one_line <"$TMP/annotation")"; finish; }
    make_rootfs
    make_driver online0 0 online
    mkdir -p "$TMP/rec"
    make_runc_recorder "$TMP/bin/runc-rec" "$TMP/rec"
    write_config nri
    rerun_in_ns nri "/run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri /var/run/cdi /etc/cdi" \
        "$SCRIPT_DIR/run-nvidia-nri-test.sh" "$HOOK" "$PLUGIN" "$SUITE"
fi
# /etc/cdi and /var/run/cdi: containerd's default CDI directories stay empty (ours is $TMP/cdi)
tmpfs_over gnh-nv /run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri /var/run/cdi /etc/cdi

# ---------------------------------------------------------------- inside the namespace
ENGINE=nri
# shellcheck source=../engine/status-checks.sh
. "$ENGINE_DIR/status-checks.sh"
T0=$(date +%s)
CTD_ROOT=$(cat "$TMP/ctd-root")
bind_containerd "$CTD_ROOT" || { fail "containerd $SUITE" "cannot bind $CTD_ROOT"; finish; }
check_containerd_release "$SUITE"
{ read -r INSTALLER; read -r ARTIFACTS; } <"$TMP/nvidia-parts"
read -r REQ_KEY REQ_VALUE <"$TMP/annotation"
LOG=$TMP/logs/nri.log
NVLOG=$TMP/nvidia.log
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
NRI_SOCK=$TMP/nri.sock
CGP=/gnh-nv-$RUNID
mkdir -p "$CTD" "$TMP/dev" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/gen" "$TMP/cdi" "$TMP/nvidia"
mknod "$TMP/dev/nvidia0" c 195 0
mknod "$TMP/dev/nvidiactl" c 195 255
mknod "$TMP/dev/nvidia-modeset" c 195 254
: >"$NVLOG"
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$SOCK" "$@"; }
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }

# The CDI spec nvidia-ctk writes, cut to what containerd needs: GPU 0's node, the control nodes
# every device shares (host paths: this test's fake nodes).
cat >"$TMP/cdi/nvidia.json" <<JSON
{"cdiVersion": "0.6.0", "kind": "nvidia.com/gpu",
 "devices": [{"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0", "hostPath": "$TMP/dev/nvidia0"}]}}],
 "containerEdits": {"deviceNodes": [{"path": "/dev/nvidiactl", "hostPath": "$TMP/dev/nvidiactl"},
                                    {"path": "/dev/nvidia-modeset", "hostPath": "$TMP/dev/nvidia-modeset"}]}}
JSON
IMG=docker.io/gnh/busybox:nv-$RUNID
{ containerd_base_config
  containerd_cri_config "$IMG" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/bin/runc-rec" |
      sed "/^\[plugins.\"io.containerd.grpc.v1.cri\"\]\$/a\\  enable_cdi = true\\n  cdi_spec_dirs = [\"$TMP/cdi\"]"
  cat <<TOML; } >"$CTD/config.toml"
[plugins."io.containerd.nri.v1.nri"]
  socket_path = "$NRI_SOCK"
  plugin_path = "$TMP/nri-plugins"
  plugin_config_path = "$TMP/nri-conf"
TOML
# NRI's default validator, on as an operator turns it on; pods without the annotation are not affected
OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --nri-require-for-gpu-pods 2>&1) ||
    { fail "install --nri-require-for-gpu-pods" "$(echo "$OUT" | one_line)"; finish; }
DUMP=$(containerd --config "$CTD/config.toml" config dump 2>&1)
CDI=$(grep -E "^ *(enable_cdi|cdi_spec_dirs) " <<<"$DUMP" | one_line)
case $CDI in
    *"enable_cdi = true"*"$TMP/cdi"*) echo "containerd's config dump: $CDI" ;;
    *) fail "CDI on" "config dump: $CDI"; finish ;;
esac

start_containerd
VER=""
for _ in $(seq 1 150); do [ -S "$SOCK" ] && VER=$(cri version 2>/dev/null) && break; sleep 0.2; done
[ -n "$VER" ] && [ -S "$NRI_SOCK" ] ||
    { fail "CRI server and NRI socket up" "containerd log: $(grep -i -E 'error|fatal' "$TMP/containerd.log" | tail -3 | one_line)"; finish; }
"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
    OUT=$(ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$TMP/image.tar" 2>&1) ||
    { fail "image import" "$(echo "$OUT" | one_line)"; finish; }

# start_nvidia: NVIDIA's plugin (again), as README-installer.md runs it: its toolkit installed under
# $TMP, nothing of the host's configured, on until containerd has started it once more
start_nvidia() {
    local n
    n=$(grep -c "Started plugin 10-nvidia-ctk-installer" "$NVLOG")
    start_nvidia_nri_plugin "$INSTALLER" containerd "$ARTIFACTS"
    wait_for "$NVLOG" "Started plugin 10-nvidia-ctk-installer" $((n + 1)) ||
        { fail "NVIDIA's plugin starts" "$(tail -5 "$NVLOG" | one_line)"; finish; }
}
# start_plugin IDX: ours (again) at index IDX, on until containerd has registered it
start_plugin() {
    local n
    n=$(grep -c "stage=nri-connect action=connected .*registered as $1-gpu-numa" "$LOG")
    "$PLUGIN" --socket "$NRI_SOCK" --idx "$1" --hook "$HOOK" --config "$TMP/cfg/nri.toml" >>"$TMP/plugin.log" 2>&1 &
    echo $! >"$TMP/plugin.pid"
    wait_for "$LOG" "stage=nri-connect action=connected .*registered as $1-gpu-numa" $((n + 1)) ||
        { fail "our plugin connects as $1-gpu-numa" "$(one_line <"$TMP/plugin.log")"; finish; }
}
# stop PIDFILE: SIGTERM, reaped
stop() { local p; p=$(cat "$1"); kill "$p"; wait "$p" 2>/dev/null; }

start_nvidia
start_plugin 99
pass "NVIDIA's plugin and ours registered with containerd $CTD_RELEASE: $(grep -o 'Configuring plugin 10-nvidia-ctk-installer for runtime [^"]*' "$NVLOG" | tail -1); ours: $(grep 'action=connected' "$LOG" | tail -1 | sed 's/.*msg=//' | cut -c1-90)"

# pod NAME ANNOTATIONS(JSON): a pod and its container "cuda" as kubelet makes them, no device of
# kubelet's; the container's id (or the CRI error) in $C, create's status in $RC, start's output in $STARTED
pod() {
    local sb
    sb=$(CRI_POD_ANNOTATIONS=$2 cri run-sandbox "$1" "uid-$1-$RUNID" "" "$CGP" "$TMP/podlogs") ||
        { fail "RunPodSandbox $1" "$sb"; finish; }
    C=$(CRI_POD_ANNOTATIONS=$2 cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP" "$TMP/podlogs" cuda "$IMG" 'exec sleep 600'); RC=$?
    STARTED=""
    [ "$RC" = 0 ] && STARTED=$(cri start "$C")
}
# what the spec runc was handed for container $1 has: the GPU's node, our hooks at createRuntime
gpu_node() { jq -c '[.linux.devices[]? | select(.path == "/dev/nvidia0") | "\(.type) \(.major):\(.minor)"]' "$(config_of "$1")" 2>/dev/null; }
ours() { jq --arg h "$HOOK" '[.hooks.createRuntime[]? | select(.path == $h)] | length' "$(config_of "$1")" 2>/dev/null; }
hook_line() { grep "gpu-numa-hook\[[0-9]*\] container=$1 " "$LOG"; }
# hooked NAME WHAT: the container started with NVIDIA's GPU and our hook, which ran and found the GPU
hooked() {
    local want="gpu-numa-hook\[[0-9]*\] container=$C pod=default/$1 name=cuda stage=createRuntime action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 "
    if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(gpu_node "$C")" = '["c 195:0"]' ] && [ "$(ours "$C")" = 1 ] &&
        [ "$(grep -c "$want" "$LOG")" = 1 ] && grep -q "gpu-numa-nri\[[0-9]*\] container=$C .*stage=nri-create action=inject " "$LOG" &&
        grep -q "$1/cuda: injecting CDI devices \[nvidia.com/gpu=0\]" "$NVLOG"; then
        ACCOUNT+=("$1 hooked")
        pass "$2: NVIDIA's plugin injected nvidia.com/gpu=0, runc was handed /dev/nvidia0 (c 195:0) and our hook at createRuntime, and the hook ran: $(hook_line "$C" | sed 's/.*\(stage=createRuntime\)/\1/' | cut -c1-110)"
    else
        ACCOUNT+=("$1 NOT accounted for")
        fail "$2" "create rc $RC ($C) start $STARTED node $(gpu_node "$C") ours $(ours "$C") hook: $(hook_line "$C" | one_line) plugin: $(grep "container=$C " "$LOG" | grep -v gpu-numa-hook | one_line) nvidia: $(grep "$1/cuda" "$NVLOG" | one_line)"; fi
}

# 1. ours after NVIDIA's (99 vs 10)
pod nv-ctr '{"nvidia.cdi.k8s.io/container.cuda": "nvidia.com/gpu=0"}'
hooked nv-ctr "ours at 99, after NVIDIA's 10: nvidia.cdi.k8s.io/container.cuda"
pod nv-pod '{"nvidia.cdi.k8s.io/pod": "nvidia.com/gpu=0"}'
hooked nv-pod "ours at 99, after NVIDIA's 10: nvidia.cdi.k8s.io/pod"
pod plain '{}'
if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(gpu_node "$C")" = '[]' ] && [ "$(ours "$C")" = 0 ] && [ -z "$(hook_line "$C")" ] &&
    grep -q "plain/cuda: no CDI devices annotated" "$NVLOG"; then
    pass "a pod without the annotation: NVIDIA's plugin added nothing, no /dev/nvidia0, no hook of ours"
else fail "plain pod" "create rc $RC ($C) start $STARTED node $(gpu_node "$C") ours $(ours "$C") hook: $(hook_line "$C" | one_line)"; fi
PROTECTED=("^gpu-numa-hook status: protected" "^  nri: connected to containerd" "!^not protected")
status_says "ours at 99, NVIDIA's at 10" 0 "${PROTECTED[@]}"

# 2. ours before NVIDIA's (05 vs 10): ours restarted at another index
stop "$TMP/plugin.pid"
start_plugin 05
pod nv-first '{"nvidia.cdi.k8s.io/container.cuda": "nvidia.com/gpu=0"}'
hooked nv-first "ours restarted at 05, before NVIDIA's 10: nvidia.cdi.k8s.io/container.cuda"
status_says "ours restarted at 05" 0 "${PROTECTED[@]}"

# 3. NVIDIA's toolkit pod ends (SIGTERM): its plugin leaves containerd, and the annotation gives no
# GPU; ours still hooks the pod, whose hook finds none. Then it starts again (its toolkit installed
# again, its plugin registered).
n_closed=$(grep -c 'connection to plugin \\"10-nvidia-ctk-installer\\" closed' "$TMP/containerd.log")
stop "$TMP/nvidia.pid"
wait_for "$TMP/containerd.log" 'connection to plugin \\"10-nvidia-ctk-installer\\" closed' $((n_closed + 1)) ||
    { fail "containerd drops NVIDIA's plugin" "$(grep -i 'nvidia' "$TMP/containerd.log" | tail -2 | one_line)"; finish; }
pod nv-gone '{"nvidia.cdi.k8s.io/pod": "nvidia.com/gpu=0"}'
if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(gpu_node "$C")" = '[]' ] &&
    grep -q "container=$C pod=default/nv-gone name=cuda stage=createRuntime action=allow gpus=- " <<<"$(hook_line "$C")"; then
    pass "NVIDIA's toolkit pod ended: an annotated pod got no GPU (nothing injected it), ours hooked it and its hook found none: $(hook_line "$C" | sed 's/.*\(action=\)/\1/' | cut -c1-110)"
else fail "annotated pod with NVIDIA's plugin gone" "create rc $RC ($C) start $STARTED node $(gpu_node "$C") ours $(ours "$C") hook: $(hook_line "$C" | one_line)"; fi
status_says "NVIDIA's toolkit pod ended" 0 "${PROTECTED[@]}"
start_nvidia
pod nv-again '{"nvidia.cdi.k8s.io/pod": "nvidia.com/gpu=0"}'
hooked nv-again "NVIDIA's plugin restarted, ours at 05: nvidia.cdi.k8s.io/pod"
status_says "NVIDIA's toolkit pod started again" 0 "${PROTECTED[@]}"

# 5. a GPU from a plugin whose injection ours cannot see: mems-owner -cdi-for injected (index 20)
# gives the container "injected" the CDI device nvidia.com/gpu=0 without any annotation; NRI shows
# no plugin another's CDI devices, so ours adds no hook. The container as created, in
# PostCreateContainer, has /dev/nvidia0: ours says at once that it runs unprotected.
if [ -x "$TMP/bin/mems-owner" ]; then
    "$TMP/bin/mems-owner" -socket "$NRI_SOCK" -name cdi-injector -idx 20 -mems "" -cdi-for injected >"$TMP/injector.log" 2>&1 &
    echo $! >"$TMP/injector.pid"
    if wait_for "$TMP/injector.log" "^mems-owner: synchronized"; then
        SB=$(cri run-sandbox injected-pod "uid-injected-$RUNID" "" "$CGP" "$TMP/podlogs") || { fail "RunPodSandbox injected-pod" "$SB"; finish; }
        C=$(cri create "$SB" injected-pod "uid-injected-$RUNID" "$CGP" "$TMP/podlogs" injected "$IMG" 'exec sleep 600'); RC=$?
        STARTED=""; [ "$RC" = 0 ] && STARTED=$(cri start "$C")
        LINE=$(grep "container=$C stage=nri-post-create action=unprotected " "$LOG")
        if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(gpu_node "$C")" = '["c 195:0"]' ] && [ "$(ours "$C")" = 0 ] &&
            grep -q "^mems-owner: create $C .* cdi=nvidia.com/gpu=0$" "$TMP/injector.log" &&
            [ "${LINE#*"from linux.devices"}" != "$LINE" ] && [ "${LINE#*"pod default/injected-pod, container injected"}" != "$LINE" ] &&
            [ "$(grep -c "stage=nri-post-create action=unprotected " "$LOG")" = 1 ]; then
            ACCOUNT+=("injected unhooked, named below")
            pass "another plugin's CDI GPU, invisible to ours at create: runc was handed /dev/nvidia0 and no hook; PostCreateContainer showed it and ours said so at once ($(echo "$LINE" | sed 's/.*msg=//' | cut -c1-120)...); no hooked container named"
        else
            ACCOUNT+=("injected NOT accounted for")
            fail "PostCreateContainer names the CDI-injected GPU container" "create rc $RC ($C) start $STARTED node $(gpu_node "$C") ours $(ours "$C") injector: $(tail -2 "$TMP/injector.log" | one_line) log: $(grep "container=$C " "$LOG" | one_line)"; fi
    else fail "the CDI injector registers" "$(one_line <"$TMP/injector.log")"; fi
    stop "$TMP/injector.pid"
    UNHOOKED=$C
    status_says "a GPU container started without our hook" 1 "^  nri: connected to containerd" "^not protected: .*$UNHOOKED"
    OUT=$("$HOOK" check --prometheus "$TMP/metrics.prom" 2>&1)
    if grep -q "^gpu_numa_hook_unprotected_gpu_containers 1$" "$TMP/metrics.prom" && grep -q "$UNHOOKED" <<<"$OUT"; then
        pass "check names the unhooked GPU container and gpu_numa_hook_unprotected_gpu_containers is 1"
    else fail "check and metrics name the unhooked container" "$(echo "$OUT" | one_line); metrics: $(grep unprotected "$TMP/metrics.prom" 2>&1 | one_line)"; fi
else fail "a second plugin's CDI injection" "tests/nri/mems-owner was not built (see the build failure above)"; fi

# 4. fail closed: ours down, the pod carries the policy's annotation too: refused, nothing started
n_closed=$(grep -c 'connection to plugin \\"05-gpu-numa\\" closed' "$TMP/containerd.log")
stop "$TMP/plugin.pid"
# containerd has dropped it (its line), so the create below is not sent to a closing connection
wait_for "$TMP/containerd.log" 'connection to plugin \\"05-gpu-numa\\" closed' $((n_closed + 1)) ||
    { fail "containerd drops our plugin" "$(grep -i 'gpu-numa' "$TMP/containerd.log" | tail -2 | one_line)"; finish; }
n_hooked=$(grep -c "gpu-numa-hook\[[0-9]*\] " "$LOG")
pod nv-closed "$(jq -cn --arg k "$REQ_KEY" --arg v "$REQ_VALUE" '{"nvidia.cdi.k8s.io/container.cuda": "nvidia.com/gpu=0", ($k): $v}')"
WANT="grpc-error: UNKNOWN: failed to create containerd container: failed to get NRI adjustment for container: validator \"00-default-validator\" rejected container adjustment, reason: validation error: required plugin \"gpu-numa\" not present"
if [ "$RC" = 3 ] && [ "$C" = "$WANT" ] && [ "$(grep -c "gpu-numa-hook\[[0-9]*\] " "$LOG")" = "$n_hooked" ]; then
    pass "ours down, NRI's validator on: the annotated pod ($REQ_KEY: $REQ_VALUE) with NVIDIA's GPU is refused, not started without the hook: $C"
else fail "fail closed while ours is down" "rc $RC: $C start $STARTED"; fi
status_says "ours down" 1 "^not protected: .*NRI plugin not connected"
all_accounted
echo "wall time inside the namespace: $(($(date +%s) - T0)) s"
finish
