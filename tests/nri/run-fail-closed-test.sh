#!/bin/bash
# GPU pods fail closed: the real containerd 2.2 / 2.3 with NRI's default validator on, driven over
# CRI as kubelet does (tests/engine/cri/cri_client.py). The GPU pod carries the annotation that the
# require-plugin component's MutatingAdmissionPolicy adds, read out of the RENDERED component
# (kustomize build, tests/k8s/check-require-plugin.py --annotation), never typed here.
#   plugin absent   -> the GPU container is refused, naming the plugin; a pod without it starts
#   plugin present  -> the GPU container starts, our hook ran (its log line)
#   plugin SIGKILLed -> the next GPU container is refused, not started unprotected
#   plugin dies in the middle of a CreateContainer (gdb stops it in the handler, then SIGKILL), in a
#   pod already running:
#     runtime handler runc (the default)  -> the gap: that container is created without the hook
#     runtime handler gpu-numa (the shim) -> the workaround: the shim adds the hook, it runs once
#   and the next GPU container, in either pod, is refused again
# Harness: tests/engine/lib.sh (private mount namespace, fake driver, /etc overlay, own sockets).
# runc sits behind the recorder (tests/engine/runc_recorder.py): the spec runc was handed is kept.
# Usage: tests/nri/run-fail-closed-test.sh HOOK PLUGIN SUITE RUNTIME
#   SUITE: v2.2 | v2.3; RUNTIME: gpu-numa-runtime (default build/gpu-numa-runtime)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
# shellcheck source=../engine/containerd-suite.sh
. "$ENGINE_DIR/containerd-suite.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
PLUGIN=$(abs "${2:-$REPO/build/gpu-numa-nri}")
SUITE=${3:-v2.2}
SHIM=$(abs "${4:-$REPO/build/gpu-numa-runtime}")
PY=/usr/bin/python3
TALLY_NAME="nri fail-closed ($SUITE)"
cleanup() {
    stop_pidfile "$TMP/gdb.pid"
    stop_pidfile "$TMP/plugin.pid"
    engine_cleanup "gnh-fc-$RUNID"
}
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox "$PY"
    "$PY" -c 'import grpc, grpc_tools, yaml' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools / python3-yaml missing"; finish; }
    [ -x "$HOOK" ] && [ -x "$PLUGIN" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK, $PLUGIN or $SHIM missing"; finish; }
    # The annotation, from the component as kustomize renders it.
    TOOLS=$(bash "$REPO/tests/k8s/fetch-k8s-tools.sh") || { fail "kustomize" "fetch-k8s-tools.sh failed"; finish; }
    KUSTOMIZE=$(sed -n '1s/ .*//p' <<<"$TOOLS")
    "$KUSTOMIZE" build "$REPO/examples/kubernetes/nri/components/require-plugin" >"$TMP/component.yaml" ||
        { fail "kustomize build" "examples/kubernetes/nri/components/require-plugin"; finish; }
    "$PY" "$REPO/tests/k8s/check-require-plugin.py" --annotation "$TMP/component.yaml" >"$TMP/annotation" ||
        { fail "annotation" "$(one_line <"$TMP/annotation")"; finish; }
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    make_rootfs
    make_driver online0 0 online
    mkdir -p "$TMP/bin" "$TMP/rec"
    make_runc_recorder "$TMP/bin/runc-rec" "$TMP/rec"
    # The shim (runtime handler gpu-numa) reads /etc/gpu-numa-hook/config.toml: this file in the namespace.
    write_config nri "[runtime]" "hook = \"$HOOK\"" "next = [\"$TMP/bin/runc-rec\"]"
    rerun_in_ns nri "/run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri" "$SCRIPT_DIR/run-fail-closed-test.sh" "$HOOK" "$PLUGIN" "$SUITE" "$SHIM"
fi
tmpfs_over gnh-fc /run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri

# ---------------------------------------------------------------- inside the namespace
CTD_ROOT=$(cat "$TMP/ctd-root")
bind_containerd "$CTD_ROOT" || { fail "containerd $SUITE" "cannot bind $CTD_ROOT"; finish; }
check_containerd_release "$SUITE"
SUITE_REL=$CTD_RELEASE
read -r ANN_KEY ANN_VALUE <"$TMP/annotation"
GPU_ANN=$(jq -cn --arg k "$ANN_KEY" --arg v "$ANN_VALUE" '{($k): $v}')
echo "the rendered policy annotates GPU pods with $GPU_ANN"
LOG=$TMP/logs/nri.log
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
NRI_SOCK=$TMP/nri.sock
CGP=/gnh-fc-$RUNID
mkdir -p "$CTD" "$TMP/dev" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/gen"
mknod "$TMP/dev/nvidia0" c 195 0
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$SOCK" "$@"; }
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }

IMG=docker.io/gnh/busybox:fc-$RUNID
{ containerd_base_config; containerd_cri_config "$IMG" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/bin/runc-rec"; cat <<TOML; } >"$CTD/config.toml"
[plugins."io.containerd.nri.v1.nri"]
  socket_path = "$NRI_SOCK"
  plugin_path = "$TMP/nri-plugins"
  plugin_config_path = "$TMP/nri-conf"
TOML
cp "$CTD/config.toml" "$TMP/config.orig"
# Below containerd 2.2 there is no validator: the flag is refused, nothing written.
OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --containerd-version 2.1 --nri-require-for-gpu-pods 2>&1); RC=$?
[ "$RC" != 0 ] && [ "$OUT" = "gpu-numa-hook: error: install: --nri-require-for-gpu-pods needs containerd 2.2 or later (NRI's default validator, NRI 0.10); containerd 2.1 (--containerd-version) has none, so GPU pods fail open there while the plugin is not registered: upgrade containerd to 2.2 or later to fail closed (docs/nri.md, \"Failing closed\")" ] &&
    cmp -s "$CTD/config.toml" "$TMP/config.orig" && [ ! -e "$CTD/conf.d" ] &&
    pass "install --nri-require-for-gpu-pods with containerd 2.1: refused (exit $RC), nothing written: $OUT" ||
    fail "install refused below 2.2" "rc $RC: $OUT"
# On and off again: --uninstall leaves the files byte for byte as they were.
"$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --nri-require-for-gpu-pods >/dev/null 2>&1 &&
    OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --uninstall 2>&1) &&
    cmp -s "$CTD/config.toml" "$TMP/config.orig" && [ ! -e "$CTD/conf.d" ] && [ -z "$(ls "$CTD" | grep -v '^config.toml$')" ] &&
    pass "install --nri-require-for-gpu-pods, then --uninstall: config.toml byte for byte as before, conf.d gone" ||
    fail "uninstall byte-exact" "$(echo "$OUT" | one_line) $(diff "$TMP/config.orig" "$CTD/config.toml" | one_line) $(ls -A "$CTD" | one_line)"
# NRI's default validator, turned on the way an operator does it (the drop-in install writes).
OUT=$("$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --nri-require-for-gpu-pods 2>&1); RC=$?
DUMP=$(containerd --config "$CTD/config.toml" config dump 2>&1 | sed -n '/default_validator\]/,/^ *\[/p' | grep -E '^ *(enable|required_plugins) ' | one_line)
[ "$RC" = 0 ] && [ "$DUMP" = "enable = true required_plugins = []" ] &&
    pass "install --runtime nri --nri-require-for-gpu-pods: containerd's config dump shows the default validator on, nothing required node-wide ($DUMP)" ||
    { fail "install --nri-require-for-gpu-pods" "rc $RC: $(echo "$OUT" | one_line) dump: $DUMP"; finish; }
# The workaround's runtime handler, added as an operator adds it (RuntimeClass gpu-numa -> the shim);
# containerd's own view of the merged files decides (2.x prints values in single quotes).
OUT=$("$HOOK" install --runtime containerd --runtime-config "$CTD/config.toml" --runtime-path "$SHIM" 2>&1); RC=$?
DUMP=$(containerd --config "$CTD/config.toml" config dump 2>&1)
SHIM_LINE=$(sed -n "/runtimes.gpu-numa.options\]/,/^ *\[/p" <<<"$DUMP" | grep -E "^ *BinaryName = [\"']${SHIM}[\"']")
VALIDATOR=$(sed -n '/default_validator\]/,/^ *\[/p' <<<"$DUMP" | grep -E '^ *(enable|required_plugins) ' | one_line)
[ "$RC" = 0 ] && [ -n "$SHIM_LINE" ] && [ "$VALIDATOR" = "enable = true required_plugins = []" ] &&
    pass "install --runtime containerd beside it: config dump shows runtime handler gpu-numa with the shim ($(one_line <<<"$SHIM_LINE")), the validator still on" ||
    { fail "install --runtime containerd" "rc $RC: $(echo "$OUT" | one_line) dump: $(grep -A6 'gpu-numa' <<<"$DUMP" | one_line) validator: $VALIDATOR"; finish; }

start_containerd
VER=""
for _ in $(seq 1 150); do [ -S "$SOCK" ] && VER=$(cri version 2>/dev/null) && break; sleep 0.2; done
[ -n "$VER" ] || { fail "CRI server up" "containerd log: $(grep -i -E 'error|fatal' "$TMP/containerd.log" | tail -3 | one_line)"; finish; }
"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
    OUT=$(ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$TMP/image.tar" 2>&1) ||
    { fail "image import" "$(echo "$OUT" | one_line)"; finish; }

WANT="validator \"00-default-validator\" rejected container adjustment, reason: validation error: required plugin \"gpu-numa\" not present"
# gpu_pod NAME: a GPU pod as kubelet runs it once the policy annotated it; its container's id (or
# the CRI error) in $C, create's status in $RC, start's output in $STARTED
gpu_pod() {
    local sb
    sb=$(CRI_POD_ANNOTATIONS=$GPU_ANN cri run-sandbox "$1" "uid-$1-$RUNID" "" "$CGP" "$TMP/podlogs") ||
        { fail "RunPodSandbox $1" "$sb"; finish; }
    C=$(CRI_POD_ANNOTATIONS=$GPU_ANN cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP" "$TMP/podlogs" cuda "$IMG" 'exec sleep 600' \
        --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
    STARTED=""
    [ "$RC" = 0 ] && STARTED=$(cri start "$C")
}

# 1. plugin absent: the GPU pod's container is refused; a pod without the annotation starts
gpu_pod gpu-absent
WANT="grpc-error: UNKNOWN: failed to create containerd container: failed to get NRI adjustment for container: $WANT"
if [ "$RC" = 3 ] && [ "$C" = "$WANT" ]; then
    pass "plugin absent: CreateContainer of the annotated GPU pod refused: $C"
else fail "plugin absent: GPU pod refused" "rc $RC: $C"; fi
grep -qF -- "required plugin \\\"gpu-numa\\\" not present" "$TMP/containerd.log" &&
    pass "containerd logged the rejection: $(grep -F 'not present' "$TMP/containerd.log" | head -1 | sed 's/.*msg=//' | cut -c1-160)" ||
    fail "containerd's log" "no rejection line: $(grep -i valid "$TMP/containerd.log" | tail -3 | one_line)"
SB=$(cri run-sandbox plain "uid-plain-$RUNID" "" "$CGP" "$TMP/podlogs") &&
    C0=$(cri create "$SB" plain "uid-plain-$RUNID" "$CGP" "$TMP/podlogs" app "$IMG" 'exec sleep 600') &&
    OUT=$(cri start "$C0") && [ "$OUT" = ok ] &&
    pass "plugin absent: a pod without the annotation (no GPU) starts" ||
    fail "plugin absent: plain pod" "sandbox $SB create $C0 start $OUT"

# 2. plugin present: the GPU pod starts, with our hook
# start_plugin: the plugin (again), on until containerd has registered it once more
start_plugin() {
    local n
    n=$(grep -c "stage=nri-connect action=connected " "$LOG")
    "$PLUGIN" --socket "$NRI_SOCK" --hook "$HOOK" --config "$TMP/cfg/nri.toml" --metrics-address 127.0.0.1:0 \
        >>"$TMP/plugin.log" 2>&1 &
    echo $! >"$TMP/plugin.pid"
    wait_for "$LOG" "stage=nri-connect action=connected .*registered as 99-gpu-numa" $((n + 1)) ||
        { fail "plugin connects" "$(one_line <"$TMP/plugin.log")"; finish; }
}
start_plugin
gpu_pod gpu-present
if [ "$RC" = 0 ] && [ "$STARTED" = ok ] &&
    grep -q "gpu-numa-hook\[[0-9]*\] container=$C pod=default/gpu-present name=cuda stage=createRuntime action=allow " "$LOG"; then
    pass "plugin present: the GPU pod started, hooked: $(grep "gpu-numa-hook\[[0-9]*\] container=$C " "$LOG" | head -1 | cut -c1-200)"
else fail "plugin present: GPU pod hooked" "create rc $RC ($C) start $STARTED log: $(grep "container=$C" "$LOG" | one_line)"; fi

# status reads containerd's files at the node's paths (/etc is this namespace's overlay)
mkdir -p /etc/containerd && cp -r "$CTD/config.toml" "$CTD/conf.d" /etc/containerd/
OUT=$("$HOOK" status 2>&1)
NOTE="containerd $SUITE_REL runs NRI's default validator (/etc/containerd/conf.d/99-zz-gpu-numa-nri-validator.toml): GPU pods annotated required-plugins.noderesource.dev: [\"gpu-numa\"] (the require-plugin component) fail closed while gpu-numa-nri is not registered; pods without the annotation fail open"
grep -qF -- "$NOTE" <<<"$OUT" && pass "status says so: $NOTE" ||
    fail "status: fail-closed note" "$(grep -i -E 'validator|fail' <<<"$OUT" | one_line)"

# 3. plugin killed mid-run: the next GPU pod is refused, not started unprotected
PID=$(cat "$TMP/plugin.pid")
{ kill -9 "$PID"; wait "$PID"; } 2>/dev/null
for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && { fail "SIGKILL" "plugin $PID still alive"; finish; }
n_hooked=$(grep -c "stage=createRuntime action=" "$LOG")
gpu_pod gpu-killed
if [ "$RC" = 3 ] && [ "$C" = "$WANT" ] && [ "$(grep -c "stage=createRuntime action=" "$LOG")" = "$n_hooked" ]; then
    pass "plugin SIGKILLed: the next GPU pod's CreateContainer refused, nothing started: $C"
else fail "plugin killed: GPU pod refused" "rc $RC: $C start $STARTED"; fi

# 4. The plugin dies in the middle of a CreateContainer, in a GPU pod that already runs (kubelet
# restarting a crashed container, a pod's next container): driven by the event, not a clock. gdb
# attaches to the live plugin with a breakpoint in its CreateContainer handler; when containerd's
# call reaches it, gdb SIGKILLs the plugin there, so that call is the one left unanswered.
command -v gdb >/dev/null || { skip "the plugin killed mid-call (4a, 4b)" "gdb is missing (tests/run-all.sh installs it)"; finish; }
# The kill is gdb's own `kill` at top level, once `continue` has stopped at the breakpoint: it
# SIGKILLs every thread and waits until all are gone. gdb 13.1 crashed on `kill` inside breakpoint
# commands, and after `signal SIGKILL` it sometimes tried to detach from threads still exiting
# (internal-error in linux-nat.c detach: `num_lwps (pid) == 1'). No core file from gdb either way.
GDB_SCRIPT=$TMP/kill-mid-call.gdb
cat >"$GDB_SCRIPT" <<'GDB'
set pagination off
set confirm off
handle SIGPIPE nostop noprint pass
break gnh::nri::GpuNumaPlugin::create_container
commands
  silent
  printf "gdb: a CreateContainer reached the plugin's handler: SIGKILL\n"
end
printf "gdb: armed\n"
continue
kill
printf "gdb: killed\n"
GDB
# arm_kill: gdb attached to the running plugin, its breakpoint set (a script file stops at the
# first error, so "armed" means the breakpoint is in), the plugin running on
arm_kill() {
    : >"$TMP/gdb.out"
    (cd "$TMP" && ulimit -c 0 && exec gdb -batch -nx -p "$(cat "$TMP/plugin.pid")" -x "$GDB_SCRIPT") >"$TMP/gdb.out" 2>&1 &
    echo $! >"$TMP/gdb.pid"
    wait_for "$TMP/gdb.out" "^gdb: armed" ||
        { fail "gdb armed in the plugin" "$(one_line <"$TMP/gdb.out") (needs the plugin's symbols)"; finish; }
}
# killed_mid_call: gdb has done its part (bounded: it exits once the plugin is dead), and the
# plugin's exit status as its parent reaps it (137: SIGKILL); $KILLED says what happened
killed_mid_call() {
    local gpid ppid st gst
    gpid=$(cat "$TMP/gdb.pid"); ppid=$(cat "$TMP/plugin.pid")
    for _ in $(seq 1 300); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$gpid" 2>/dev/null && { kill -9 "$gpid"; fail "gdb" "still running 30 s after the call: $(one_line <"$TMP/gdb.out")"; finish; }
    wait "$gpid"; gst=$?
    wait "$ppid" 2>/dev/null; st=$?
    KILLED=""
    [ "$(grep -c "^gdb: a CreateContainer reached the plugin's handler: SIGKILL" "$TMP/gdb.out")" = 1 ] &&
        [ "$(grep -c "^gdb: killed" "$TMP/gdb.out")" = 1 ] && [ "$gst" = 0 ] && [ "$st" = 137 ] &&
        KILLED="the plugin was SIGKILLed inside its CreateContainer handler (exit status $st)"
    [ -n "$KILLED" ] || { fail "plugin killed mid-call" "plugin status $st, gdb's $gst: $(one_line <"$TMP/gdb.out")"; finish; }
}
# hook_runs ID: how many times the hook ran for container ID (its lines; the plugin's and the
# shim's own lines name gpu-numa-nri / gpu-numa-runtime)
hook_runs() { grep -c "gpu-numa-hook\[[0-9]*\] container=$1 " "$LOG"; }
# ours_at ID STAGE: how many hooks at STAGE of the spec runc was handed for ID are ours
ours_at() { jq --arg h "$HOOK" --arg s "$2" '[.hooks[$s][]? | select(.path == $h)] | length' "$(config_of "$1")" 2>/dev/null; }
CPUSET=$(cpuset_mount)
closed() { grep -c "closing plugin 99-gpu-numa, failed to handle CreateContainer request: ttrpc: closed" "$TMP/containerd.log"; }
# gpu_ctr SANDBOX POD NAME: a GPU container in a running annotated pod; Memory Manager gave it node
# 1, which is not the GPU's (node 0): only the hook can put node 0 back. Sets C, RC, STARTED.
# This host has node 0 only: the recorder hands runc what of "1" the host has (nothing, so the
# cgroup keeps its parent's 0) and keeps the spec as runc was handed it. So the cgroup reads 0
# with or without the hook here; what tells them apart is the spec's hooks and the hook's line.
gpu_ctr() {
    C=$(CRI_POD_ANNOTATIONS=$GPU_ANN cri create "$1" "$2" "uid-$2-$RUNID" "$CGP" "$TMP/podlogs" "$3" "$IMG" 'exec sleep 600' \
        --device "$TMP/dev/nvidia0:/dev/nvidia0" --mems 1); RC=$?
    STARTED=""
    [ "$RC" = 0 ] && STARTED=$(cri start "$C")
}

# 4a. The gap: runtime handler runc (the default). The pod runs; the plugin is back.
start_plugin
SB_RUNC=$(CRI_POD_ANNOTATIONS=$GPU_ANN cri run-sandbox gap-runc "uid-gap-runc-$RUNID" "" "$CGP" "$TMP/podlogs") ||
    { fail "RunPodSandbox gap-runc" "$SB_RUNC"; finish; }
n_closed=$(closed)
arm_kill
gpu_ctr "$SB_RUNC" gap-runc cuda
killed_mid_call
GAP_C=$C
SPEC=$(config_of "$C")
if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(hook_runs "$C")" = 0 ] && [ -n "$SPEC" ] &&
    [ "$(ours_at "$C" createRuntime)" = 0 ] && [ "$(ours_at "$C" prestart)" = 0 ] &&
    [ "$(jq -r .linux.resources.cpu.mems "$SPEC")" = 1 ] && [ "$(closed)" = $((n_closed + 1)) ]; then
    pass "the gap (runtime handler runc): $KILLED; containerd logged 'closing plugin 99-gpu-numa, failed to handle CreateContainer request: ttrpc: closed', the validator let it through: the GPU container was created and started WITHOUT the hook (no hook line; runc was handed cpuset.mems 1 and no hook of ours, so nothing put the GPU's node 0 back)"
else fail "the gap, runtime handler runc" "create rc $RC ($C) start $STARTED hook lines $(hook_runs "$C") spec hooks $(jq -c .hooks "$SPEC" 2>&1 | one_line) mems $(jq -r .linux.resources.cpu.mems "$SPEC" 2>&1) closing lines $n_closed -> $(closed); containerd: $(grep -i -E 'nri|valid' "$TMP/containerd.log" | tail -3 | one_line)"; fi
# one call is all that window takes: the pod's next GPU container is refused
gpu_ctr "$SB_RUNC" gap-runc cuda-next
[ "$RC" = 3 ] && [ "$C" = "$WANT" ] && pass "plugin still dead: the same pod's next GPU container refused: $C" ||
    fail "plugin dead: next container in the runc pod refused" "rc $RC: $C start $STARTED"

# 4b. The workaround: runtime handler gpu-numa (the shim), plugin back.
n_scans=$(grep -c "stage=nri-scan action=scanned " "$LOG")
start_plugin
# The lapse of 4a found by what runs: the plugin, back, scans the running containers' real specs at
# its start. gap-runc's GPU container (no hook in its spec) is named; gpu-present's (hooked) is not.
if wait_for "$LOG" "stage=nri-scan action=scanned " $((n_scans + 1)); then
    SCAN=$(grep "stage=nri-scan action=scanned " "$LOG" | tail -1 | sed 's/.*msg=//')
    PORT=$(grep -o "serving Prometheus metrics at http://127.0.0.1:[0-9]*/" "$LOG" | tail -1 | sed 's/.*:\([0-9]*\)\/$/\1/')
    GAUGE=$(curl -sf "http://127.0.0.1:$PORT/metrics" | awk '$1 == "gpu_numa_hook_unprotected_gpu_containers" {print $2}')
    UNPROT=$(grep "stage=nri-scan action=unprotected " "$LOG" | grep -c -- "container=$GAP_C pod=default/gap-runc name=cuda ")
    if [ -n "$GAP_C" ] && [ "$UNPROT" = 1 ] && [ "$GAUGE" = 1 ] &&
        [ "$(grep "stage=nri-scan action=unprotected " "$LOG" | grep -c "pod=default/gpu-present ")" = 0 ] &&
        grep -q "GPU container(s) without the hook" <<<"$SCAN"; then
        pass "the plugin back: its first scan of what runs names the GPU container started without the hook in the gap ($(grep "container=$GAP_C .*stage=nri-scan action=unprotected " "$LOG" | tail -1 | sed 's/.*msg=//' | cut -c1-150)...), not the hooked gpu-present one; /metrics: gpu_numa_hook_unprotected_gpu_containers $GAUGE; $SCAN"
    else fail "the plugin's scan finds the gap's container" "gap container '$GAP_C' lines $UNPROT gauge '$GAUGE' scan: $SCAN; $(grep "stage=nri-scan" "$LOG" | one_line)"; fi
else fail "the plugin's scan at start" "no scan line: $(grep "stage=nri-scan" "$LOG" | one_line)"; fi
SB_SHIM=$(CRI_POD_ANNOTATIONS=$GPU_ANN cri run-sandbox gap-shim "uid-gap-shim-$RUNID" gpu-numa "$CGP" "$TMP/podlogs") ||
    { fail "RunPodSandbox gap-shim (runtime handler gpu-numa)" "$SB_SHIM"; finish; }
# plugin alive: it adds the hook at createRuntime, the shim sees it there and adds nothing
gpu_ctr "$SB_SHIM" gap-shim alive
if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(hook_runs "$C")" = 1 ] &&
    [ "$(ours_at "$C" createRuntime)" = 1 ] && [ "$(ours_at "$C" prestart)" = 0 ] &&
    [ "$(grep -c "gpu-numa-hook\[[0-9]*\] container=$C .* stage=createRuntime action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " "$LOG")" = 1 ] &&
    [ "$(cat "$CPUSET$CGP/$C/cpuset.mems" 2>/dev/null)" = 0 ]; then
    pass "plugin alive, runtime handler gpu-numa: the hook ran once (the plugin's at createRuntime; the shim added none at prestart), cgroup cpuset.mems 0 (the GPU's node)"
else fail "plugin alive + shim: hook once" "create rc $RC ($C) start $STARTED hook lines $(hook_runs "$C") spec hooks $(jq -c .hooks "$(config_of "$C")" 2>&1 | one_line) mems $(cat "$CPUSET$CGP/$C/cpuset.mems" 2>&1) log: $(grep "container=$C" "$LOG" | one_line)"; fi
n_closed=$(closed)
arm_kill
gpu_ctr "$SB_SHIM" gap-shim cuda
killed_mid_call
SPEC=$(config_of "$C")
if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(hook_runs "$C")" = 1 ] &&
    [ "$(grep -c "gpu-numa-hook\[[0-9]*\] container=$C .* stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " "$LOG")" = 1 ] &&
    [ "$(ours_at "$C" createRuntime)" = 0 ] && [ "$(ours_at "$C" prestart)" = 1 ] &&
    [ "$(cat "$CPUSET$CGP/$C/cpuset.mems" 2>/dev/null)" = 0 ] && [ "$(closed)" = $((n_closed + 1)) ]; then
    pass "the workaround (runtime handler gpu-numa): $KILLED; the validator let the container through as before, and the shim added the hook at prestart: it ran once ($(grep "gpu-numa-hook\[[0-9]*\] container=$C " "$LOG" | sed 's/.* stage=/stage=/' | cut -c1-90)...), cgroup cpuset.mems 0 (the GPU's node)"
else fail "the workaround, runtime handler gpu-numa" "create rc $RC ($C) start $STARTED hook lines $(hook_runs "$C") spec hooks $(jq -c .hooks "$SPEC" 2>&1 | one_line) mems $(cat "$CPUSET$CGP/$C/cpuset.mems" 2>&1) closing lines $n_closed -> $(closed) log: $(grep "container=$C" "$LOG" | one_line)"; fi
# plugin still dead: the pod's next GPU container, and a new GPU pod, are refused
gpu_ctr "$SB_SHIM" gap-shim cuda-next
[ "$RC" = 3 ] && [ "$C" = "$WANT" ] && pass "plugin still dead: the gpu-numa pod's next GPU container refused: $C" ||
    fail "plugin dead: next container in the gpu-numa pod refused" "rc $RC: $C start $STARTED"
n_hooked=$(grep -c "gpu-numa-hook\[[0-9]*\] " "$LOG")
gpu_pod gpu-after-gap
[ "$RC" = 3 ] && [ "$C" = "$WANT" ] && [ "$(grep -c "gpu-numa-hook\[[0-9]*\] " "$LOG")" = "$n_hooked" ] &&
    pass "plugin still dead: a new GPU pod refused, nothing hooked: $C" ||
    fail "plugin dead: new GPU pod refused" "rc $RC: $C start $STARTED"

# 5. A flood of the metrics endpoint, which the DaemonSet serves on the pod network, while GPU pods
# start: 3,000 connections (idle, slowloris, 8 KiB of malformed header), the plugin with a
# descriptor limit of 128. The GPU pods are hooked, the plugin stays under the DaemonSet's memory
# limit (64 Mi) and uses at most half a core during the flood, the flood's connections get nothing
# but a close, and a scrape after it answers. Driven by what the flooder and the plugin print.
n=$(grep -c "stage=nri-connect action=connected " "$LOG")
prlimit --nofile=128:128 "$PLUGIN" --socket "$NRI_SOCK" --hook "$HOOK" --config "$TMP/cfg/nri.toml" \
    --metrics-address 127.0.0.1:0 >>"$TMP/plugin.log" 2>&1 &
echo $! >"$TMP/plugin.pid"
PID=$!
wait_for "$LOG" "stage=nri-connect action=connected .*registered as 99-gpu-numa" $((n + 1)) ||
    { fail "plugin connects (descriptor limit 128)" "$(one_line <"$TMP/plugin.log")"; finish; }
PORT=$(grep -o "serving Prometheus metrics at http://127.0.0.1:[0-9]*/" "$LOG" | tail -1 | sed 's/.*:\([0-9]*\)\/$/\1/')
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
CPU0=$(cpu_ticks); T0=$(date +%s.%N)
"$PY" "$(dirname "$0")/metrics_flood.py" 127.0.0.1 "$PORT" 3000 "$TMP/flood.stop" >"$TMP/flood.out" 2>&1 &
FLOOD=$!
wait_for "$TMP/flood.out" "^flooding: " 1 || { fail "flood" "$(one_line <"$TMP/flood.out")"; finish; }
hooked=0; pods=""
for k in 1 2 3; do
    gpu_pod "gpu-flood-$k"
    pods="$pods $RC/$STARTED"
    [ "$RC" = 0 ] && [ "$STARTED" = ok ] &&
        grep -q "gpu-numa-hook\[[0-9]*\] container=$C pod=default/gpu-flood-$k name=cuda stage=createRuntime action=allow " "$LOG" &&
        hooked=$((hooked + 1))
done
DURING=$(curl -s -o /dev/null -m 5 -w '%{http_code} in %{time_total} s' "http://127.0.0.1:$PORT/metrics")
touch "$TMP/flood.stop"
wait "$FLOOD"
CPU1=$(cpu_ticks); T1=$(date +%s.%N)
HWM_KB=$(awk '$1 == "VmHWM:" {print $2}' "/proc/$PID/status")
FLOODED=$(tail -n 1 "$TMP/flood.out")
AFTER_T=$(curl -s -o "$TMP/scrape-after" -m 20 -w '%{http_code} in %{time_total} s' "http://127.0.0.1:$PORT/metrics")
CPU_SHARE=$(awk -v c=$((CPU1 - CPU0)) -v hz="$(getconf CLK_TCK)" -v a="$T0" -v b="$T1" 'BEGIN { printf "%.2f", c / hz / (b - a) }')
NUMBERS="peak RSS $((HWM_KB / 1024)) MiB, CPU $CPU_SHARE of a core over the flood, scrape during the flood: $DURING, after: $AFTER_T; flood: $FLOODED"
if [ "$hooked" = 3 ] && [ "$HWM_KB" -lt $((64 * 1024)) ] && awk -v s="$CPU_SHARE" 'BEGIN { exit !(s <= 0.5) }' &&
    [ "$(jq '[.[].bytes_received] | add' <<<"$FLOODED")" = 0 ] && [ "${AFTER_T%% *}" = 200 ] &&
    grep -q '^gpu_numa_hook_nri_plugin_connected 1$' "$TMP/scrape-after" && kill -0 "$PID"; then
    pass "a flood of the metrics endpoint (3,000 connections, descriptor limit 128) while 3 GPU pods start: all hooked; $NUMBERS"
else fail "flood of the metrics endpoint" "GPU pods hooked $hooked of 3 (create/start:$pods); $NUMBERS; plugin alive: $(kill -0 "$PID" 2>&1 && echo yes)"; fi
finish
