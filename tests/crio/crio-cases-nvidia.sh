# shellcheck shell=bash
# tests/crio/run-crio-tests.sh: NVIDIA's own NRI plugin BESIDE ours on the real CRI-O, as
# tests/nri/run-nvidia-nri-test.sh runs it on containerd 2.2/2.3 (sourced by crio-cases-run.sh with
# crio up, ours connected at its default index 99, hooks.d not installed yet, so every hook in a
# bundle comes from a plugin). NVIDIA's plugin is the real nvidia-ctk-installer 1.20.0 run with
# --enable-nri-plugin (the GPU operator's NRI mode) at index 10, fetched before the namespace by
# tests/nri/fetch-nvidia-installer.sh from the shared caches ($TMP/nvidia-parts, -fetch.rc,
# -fetch.err). It answers CreateContainer with ContainerAdjustment.CDIDevices named by the pod
# annotation nvidia.cdi.k8s.io/container.<name>; CRI-O resolves them through its CDI registry
# (cdi_spec_dirs, crio-env.sh's $TMP/crio-state/cdi, which holds the spec below) while it applies
# the plugins' adjustments (server/nri-api.go: nrigen.WithCDIDeviceInjector -> cdi.InjectDevices).
# NRI shows no plugin another's CDI devices: ours reads the annotation itself.
#   annotated        -> /dev/nvidia0 (c 195:0), the spec's control nodes, and our hook at
#                       createRuntime in the bundle runc was handed; the hook ran once and found the
#                       GPU (its line; the bus is the fake driver tree's)
#   not annotated    -> no device, no hook in the bundle, no run of ours
#   NVIDIA's toolkit pod ended (its plugin gone) -> an annotated pod gets no GPU; ours hooks it and
#                       its hook finds none; started again (its toolkit installed again) -> as the first
#   `gpu-numa-hook status` after each step: protected, ours connected to CRI-O
# The pods and containers made here are torn down with the others (NV_SBS, NV_CTRS).
NV_SBS=()
NV_CTRS=()
NVLOG=$TMP/nvidia.log
NV_NODES='["/dev/nvidia-modeset c 195:254","/dev/nvidia0 c 195:0","/dev/nvidiactl c 195:255"]'
# nv_pod NAME ANNOTATIONS(JSON): a pod on the default handler (runc) and its container "cuda", as
# kubelet makes them, with no device of kubelet's; the container's id (or the CRI error) in NV_C,
# create's status in NV_RC, start's output in NV_STARTED
nv_pod() {
    local sb
    mkdir -p "$TMP/podlogs-$1"
    sb=$(CRI_POD_ANNOTATIONS=$2 cri run-sandbox "$1" "uid-$1-$RUNID" "" "$CGP" "$TMP/podlogs-$1"); NV_RC=$?
    NV_C="RunPodSandbox: $sb" NV_STARTED=""
    [ "$NV_RC" = 0 ] && [ -n "$sb" ] || return 1
    NV_SBS+=("$sb")
    NV_C=$(CRI_POD_ANNOTATIONS=$2 cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP" "$TMP/podlogs-$1" cuda "$IMG" 'exec sleep 600'); NV_RC=$?
    [ "$NV_RC" = 0 ] || return 1
    NV_CTRS+=("$NV_C")
    NV_STARTED=$(cri start "$NV_C")
}
# what the bundle CRI-O handed runc (its config.json) has for container $1: NVIDIA's device nodes
# (the control nodes come only from the CDI spec's kind-wide edits: CRI-O resolved it)
nv_gpu_node() {
    jq -c '[.linux.devices[]? | select(.path | startswith("/dev/nvidia")) | "\(.path) \(.type) \(.major):\(.minor)"] | sort' \
        "$TMP/crio-state/run/storage/vfs-containers/$1/userdata/config.json" 2>&1 | one_line
}

# nv_hooked NAME WHAT: pod NAME annotated for GPU 0 started with NVIDIA's GPU and our hook, which ran once
nv_hooked() {
    local want line bh
    nv_pod "$1" '{"nvidia.cdi.k8s.io/container.cuda": "nvidia.com/gpu=0"}'
    # (no pod= in the hook's line here: CRI-O copies a container's labels into its spec annotations,
    # internal/factory/container/container.go, and kubelet's io.kubernetes.pod.name & co. are labels
    # that tests/engine/cri/cri_client.py does not send)
    want="gpu-numa-hook\[[0-9]*\] container=$NV_C .*stage=createRuntime action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 "
    line=$(decisions "$NV_C")
    bh=$(bundle_hooks "$NV_C")
    if [ "$NV_RC" = 0 ] && [ "$NV_STARTED" = ok ] && [ "$(nv_gpu_node "$NV_C")" = "$NV_NODES" ] && [ "$bh" = "$ONLY_CR" ] &&
        [ "$(echo "$line" | grep -c .)" = 1 ] && [ "$(grep -c "$want" "$LOG")" = 1 ] &&
        grep -q "gpu-numa-nri\[[0-9]*\] container=$NV_C stage=nri-create action=inject " "$LOG" &&
        ! grep -q "container=$NV_C stage=nri-post-create action=unprotected " "$LOG" &&
        grep -qF "$1/cuda: injecting CDI devices [nvidia.com/gpu=0]" "$NVLOG" &&
        [ "$(cat "$CPUSET$CGP/crio-$NV_C/cpuset.mems" 2>/dev/null)" = 0 ]; then
        pass "$2: it injected nvidia.com/gpu=0, CRI-O's CDI resolution handed runc /dev/nvidia0 (c 195:0) with the spec's control nodes, and our hook ($bh); the hook ran once: $(echo "$line" | sed 's/.*\(stage=createRuntime\)/\1/' | cut -c1-110)"
    else fail "$2" "create rc $NV_RC ($NV_C) start $NV_STARTED node $(nv_gpu_node "$NV_C") hooks $bh hook: $(echo "$line" | one_line) plugin: $(grep "gpu-numa-nri\[[0-9]*\] container=$NV_C " "$LOG" | one_line) nvidia: $(grep "$1/cuda" "$NVLOG" | one_line) crio: $(grep -E 'level=(error|warning)' "$TMP/crio.log" | grep -i -E 'cdi|nri' | tail -2 | one_line)"; fi
}
# nv_started: NVIDIA's plugin (again), on until CRI-O has started it once more
nv_started() {
    local n
    n=$(grep -c "Started plugin 10-nvidia-ctk-installer" "$NVLOG")
    start_nvidia_nri_plugin "$installer" crio "$artifacts"
    wait_for "$NVLOG" "Started plugin 10-nvidia-ctk-installer" $((n + 1))
}
ENGINE=nri
# shellcheck source=../engine/status-checks.sh
. "$ENGINE_DIR/status-checks.sh"
PROTECTED=("^gpu-numa-hook status: protected" "^  nri: connected to cri-o " "!^not protected")

nvidia_cases() {
    local rc bh installer artifacts
    rc=$(cat "$TMP/nvidia-fetch.rc" 2>/dev/null)
    if [ "$rc" = 77 ]; then
        skip "NVIDIA's NRI plugin beside ours on CRI-O: NOT RUN" "NVIDIA's nvidia-ctk-installer is not here: $(one_line <"$TMP/nvidia-fetch.err")"
        return
    elif [ "$rc" != 0 ]; then
        fail "fetch NVIDIA's installer (tests/nri/fetch-nvidia-installer.sh)" "exit ${rc:-?}: $(one_line <"$TMP/nvidia-fetch.err")"
        return
    fi
    { read -r installer; read -r artifacts; } <"$TMP/nvidia-parts"   # (nv_started's)
    # The CDI spec nvidia-ctk writes, cut to what CRI-O needs: GPU 0's node, the control nodes every
    # device shares (host paths: this run's fake nodes)
    mknod "$TMP/dev/nvidiactl" c 195 255
    mknod "$TMP/dev/nvidia-modeset" c 195 254
    cat >"$TMP/crio-state/cdi/nvidia.json" <<JSON
{"cdiVersion": "0.6.0", "kind": "nvidia.com/gpu",
 "devices": [{"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0", "hostPath": "$TMP/dev/nvidia0"}]}}],
 "containerEdits": {"deviceNodes": [{"path": "/dev/nvidiactl", "hostPath": "$TMP/dev/nvidiactl"},
                                    {"path": "/dev/nvidia-modeset", "hostPath": "$TMP/dev/nvidia-modeset"}]}}
JSON
    # NVIDIA's plugin as README-installer.md runs it (--runtime crio: in NRI mode its runtime
    # configurer is a no-op, so nothing of CRI-O's is read or written; the undo check at the end
    # diffs /etc/crio), its toolkit installed under $TMP, on until CRI-O has configured it
    : >"$NVLOG"
    if nv_started; then
        pass "NVIDIA's NRI plugin (nvidia-ctk-installer 1.20.0) registered with CRI-O $VERSION beside ours: $(grep -o 'Configuring plugin 10-nvidia-ctk-installer for runtime [^"]*' "$NVLOG" | tail -1)"
    else
        fail "NVIDIA's NRI plugin registers with CRI-O" "its log: $(tail -5 "$NVLOG" | one_line) crio: $(grep -i 'nvidia' "$TMP/crio.log" | tail -3 | one_line)"
        return
    fi

    # 1. annotated: NVIDIA's plugin names nvidia.com/gpu=0, CRI-O resolves it; ours adds the hook
    nv_hooked nv-ctr "NVIDIA's plugin beside ours on CRI-O, nvidia.cdi.k8s.io/container.cuda"

    # 2. not annotated: NVIDIA's plugin adds nothing, ours neither
    nv_pod nv-plain '{}'
    bh=$(bundle_hooks "$NV_C")
    if [ "$NV_RC" = 0 ] && [ "$NV_STARTED" = ok ] && [ "$(nv_gpu_node "$NV_C")" = '[]' ] && [ "$bh" = '{}' ] &&
        ! grep -q "container=$NV_C " "$LOG" && grep -qF "nv-plain/cuda: no CDI devices annotated" "$NVLOG"; then
        pass "NVIDIA's plugin beside ours on CRI-O, a pod without the annotation: NVIDIA's plugin added nothing, runc was handed no /dev/nvidia0 and no hook (hooks $bh), nothing of ours ran"
    else fail "NVIDIA's plugin beside ours on CRI-O: pod without the annotation" "create rc $NV_RC ($NV_C) start $NV_STARTED node $(nv_gpu_node "$NV_C") hooks $bh ours: $(grep "container=$NV_C " "$LOG" | one_line) nvidia: $(grep "nv-plain/cuda" "$NVLOG" | one_line)"; fi
    status_says "NVIDIA's NRI plugin beside ours on CRI-O" 0 "${PROTECTED[@]}"

    # 3. NVIDIA's toolkit pod ends (SIGTERM): the annotation then gives no GPU; ours still hooks the
    # pod, and its hook finds none. Then it starts again (its toolkit installed again).
    stop_pidfile "$TMP/nvidia.pid"
    nv_pod nv-gone '{"nvidia.cdi.k8s.io/container.cuda": "nvidia.com/gpu=0"}'
    if [ "$NV_RC" = 0 ] && [ "$NV_STARTED" = ok ] && [ "$(nv_gpu_node "$NV_C")" = '[]' ] &&
        [ "$(decisions "$NV_C" | grep -c "stage=createRuntime action=allow gpus=- ")" = 1 ]; then
        pass "NVIDIA's toolkit pod ended, CRI-O: an annotated pod got no GPU (nothing injected it), ours hooked it and its hook found none: $(decisions "$NV_C" | sed 's/.*\(action=\)/\1/' | cut -c1-100)"
    else fail "NVIDIA's plugin gone, CRI-O: annotated pod" "create rc $NV_RC ($NV_C) start $NV_STARTED node $(nv_gpu_node "$NV_C") ours: $(grep "container=$NV_C " "$LOG" | one_line)"; fi
    status_says "NVIDIA's toolkit pod ended, CRI-O" 0 "${PROTECTED[@]}"
    if nv_started; then
        nv_hooked nv-again "NVIDIA's toolkit pod started again, CRI-O: nvidia.cdi.k8s.io/container.cuda"
        status_says "NVIDIA's toolkit pod started again, CRI-O" 0 "${PROTECTED[@]}"
    else fail "NVIDIA's NRI plugin registers again with CRI-O" "its log: $(tail -5 "$NVLOG" | one_line)"; fi
    stop_pidfile "$TMP/nvidia.pid"
}
nvidia_cases
