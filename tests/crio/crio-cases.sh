# shellcheck shell=bash
# The cases of tests/crio/run-crio-tests.sh, inside its private mount namespace (sourced).
CRIO_ROOT=$(sed -n 1p "$TMP/tool")
CONMON=$(sed -n 2p "$TMP/tool")
RUNC=$(command -v runc)
LOG=$TMP/logs/gnh.log
CRIO_SOCK=$TMP/crio.sock
NRI_SOCK=$TMP/nri.sock
IMG=localhost/gnh/busybox:crio-$RUNID
CPUSET=$(cpuset_mount)
HOOKS_D=/etc/containers/oci/hooks.d
mkdir -p "$TMP/dev" "$TMP/podlogs" "$TMP/gen"
mknod "$TMP/dev/nvidia0" c 195 0   # the host path CRI's Device names (CRI-O stats it; never opened)
set_status() { printf 'Node:      0\nStatus:    %s\n' "$1" >"/proc/driver/nvidia/gpus/$GPU_BUS/numa_status"; }
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$CRIO_SOCK" "$@"; }
# decisions ID: the hook's decision lines for container ID (one per run of the hook)
decisions() { grep -E "gpu-numa-hook\[[0-9]+\] container=$1 .*stage=(prestart|createRuntime) action=" "$LOG"; }
# gpu_ctr NAME [OPTION...]: CreateContainer of a GPU container (device 195:0) in pod $SB; prints the id
gpu_ctr() {
    local name=$1
    shift
    cri create "$SB" gpu-pod "uid-$RUNID" "$CGP" "$TMP/podlogs" "$name" "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0" "$@"
}
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }

crio_write_node_config
VERSION=$("$CRIO_ROOT/bin/crio" --version | sed -n 's/^crio version //p;s/^Version: *//p' | head -n1)
# the node before install: files and effective configuration, for the undo check at the end
cp -a /etc/crio "$TMP/pristine-crio" && cp -a "$HOOKS_D" "$TMP/pristine-hooks.d"
crio_effective >"$TMP/effective-before.json" ||
    { fail "crio config on the node's files" "$(tail -3 "$TMP/crio-config.err" | one_line)"; finish; }

# ---------------------------------------------------------------- install, judged by crio config
# (hooks.d's install comes later, with crio running: CRI-O watches its hooks directories and logs
# the file it adds, so the suite knows when it is in force without restarting crio)
# 1. the shim as runtime handler gpu-numa: a copy of OpenShift's default runtime (runc, set in
# crio.conf.d/00-default, a drop-in without .toml) with runtime_path = the shim
OUT=$("$HOOK" install --runtime crio-runtime --runtime-path "$SHIM" 2>&1); RC=$?
EFF=$(crio_effective)
RT=$(jq -c '.crio.runtime.runtimes["gpu-numa"] | {runtime_path, runtime_type, runtime_root, monitor_path}' <<<"$EFF")
WANT=$(jq -nc --arg p "$SHIM" --arg r "$TMP/crio-state/runc" --arg m "$CONMON" '{runtime_path: $p, runtime_type: "oci", runtime_root: $r, monitor_path: $m}')
if [ "$RC" = 0 ] && [ "$RT" = "$WANT" ] && [ "$(jq -r .crio.runtime.default_runtime <<<"$EFF")" = runc ]; then
    pass "install --runtime crio-runtime: crio config shows [crio.runtime.runtimes.gpu-numa] $RT, runc's root and monitor kept from 00-default; default_runtime still runc"
else fail "install --runtime crio-runtime" "rc $RC: $(echo "$OUT" | one_line) gpu-numa: $RT want $WANT; drop-in: $(one_line </etc/crio/crio.conf.d/99-zz-gpu-numa.toml 2>&1)"; fi

# 2. NRI: OpenShift's 00-default has it off here; our drop-in turns it on, the socket stays
NRI_BEFORE=$(crio_printed crio.nri enable_nri)
OUT=$("$HOOK" install --runtime crio-nri 2>&1); RC=$?
EFF=$(crio_effective)
NRI_AFTER=$(crio_printed crio.nri enable_nri)
# true is CRI-O's built-in default, which it prints commented out
[ "$RC" = 0 ] && [ "$NRI_BEFORE" = "enable_nri = false" ] && [ "$NRI_AFTER" = "# enable_nri = true" ] &&
    [ "$(jq -r .crio.nri.nri_listen <<<"$EFF")" = "$NRI_SOCK" ] &&
    pass "install --runtime crio-nri: crio config goes from '$NRI_BEFORE' to '$NRI_AFTER' (the default: on), nri_listen kept" ||
    fail "install --runtime crio-nri" "rc $RC: $(echo "$OUT" | one_line) before '$NRI_BEFORE' after '$NRI_AFTER' listen $(jq -r .crio.nri.nri_listen <<<"$EFF")"

# ---------------------------------------------------------------- crio, once for the suite
write_stale_hook
crio_load_image >"$TMP/copyimg.log" 2>&1 || { fail "image" "$(tail -3 "$TMP/copyimg.log" | one_line)"; finish; }
start_crio
VER=""
for i in $(seq 1 300); do
    [ -S "$CRIO_SOCK" ] && VER=$(cri version 2>/dev/null) && break
    kill -0 "$(cat "$TMP/crio.pid")" 2>/dev/null || break
    sleep 0.2
done
case "$VER" in
    cri-o\ *\ v1) pass "CRI-O answers runtime.v1 Version over its socket: $VER" ;;
    *) fail "CRI-O up" "Version: '$VER'; crio log: $(grep -E 'level=(fatal|error)' "$TMP/crio.log" | tail -3 | one_line)"; finish ;;
esac

# the pod: host network (no CNI), pid per container (kubelet's default: no infra container)
SB=$(cri run-sandbox gpu-pod "uid-$RUNID" "" "$CGP" "$TMP/podlogs"); RC=$?
[ "$RC" = 0 ] && [ -n "$SB" ] || { fail "RunPodSandbox" "rc $RC $SB crio: $(grep -E 'level=(error|fatal)' "$TMP/crio.log" | tail -3 | one_line)"; finish; }

. "$SCRIPT_DIR/crio-cases-run.sh"
. "$SCRIPT_DIR/crio-cases-undo.sh"
finish_or_skip
