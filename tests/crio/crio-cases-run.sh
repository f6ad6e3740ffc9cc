# shellcheck shell=bash
# tests/crio/run-crio-tests.sh: CRI-O running our registrations (sourced by crio-cases.sh with crio
# up, pod $SB on the default handler, crio-runtime and crio-nri installed). First each path alone
# (runtime handler, NRI plugin), NVIDIA's own NRI plugin beside ours (crio-cases-nvidia.sh), then
# hooks.d installed into the running CRI-O and its cases, then hooks.d together with each of the
# others: the hook must run once per container, or harmlessly twice; last, hooks.d with NVIDIA's
# runtime as a runtime handler (crio-cases-nvidia-runtime.sh).
start_plugin() {
    "$PLUGIN" --socket "$NRI_SOCK" --hook "$HOOK" --config "$TMP/cfg/gnh.toml" >>"$TMP/plugin.log" 2>&1 &
    echo $! >"$TMP/plugin.pid"
}
# hooks_of FILE: config.json's hooks as {stage: [path...]}
hooks_of() { jq -c '(.hooks // {}) | map_values([.[] | .path])' "$1" 2>&1; }
# bundle_hooks ID: the hooks in the config.json CRI-O wrote for container ID (runc's bundle)
bundle_hooks() { hooks_of "$TMP/crio-state/run/storage/vfs-containers/$1/userdata/config.json"; }
ONLY_CR="{\"createRuntime\":[\"$HOOK\"]}"
ONLY_PS="{\"prestart\":[\"$HOOK\"]}"

# 1. runtime handler gpu-numa (RuntimeClass gpu-numa) alone: CRI-O runs our shim; the shim adds the
# hook (at prestart) to the config.json it hands its next runtime (the recorder), the hook runs once
SB2=$(cri run-sandbox shim-pod "uid-shim-$RUNID" gpu-numa "$CGP" "$TMP/podlogs"); RC=$?
[ "$RC" = 0 ] && [ -n "$SB2" ] || { fail "RunPodSandbox with handler gpu-numa" "rc $RC $SB2 crio: $(grep -E 'level=(error|fatal)' "$TMP/crio.log" | tail -3 | one_line)"; finish; }
shim_ctr() { cri create "$SB2" shim-pod "uid-shim-$RUNID" "$CGP" "$TMP/podlogs" "$1" "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"; }
C1=$(shim_ctr shim-only); RC=$?
OUT=$(cri start "$C1"); RC2=$?
HANDED=$(hooks_of "$(config_of "$C1")")
LINE=$(decisions "$C1")
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$HANDED" = "$ONLY_PS" ] && [ "$(echo "$LINE" | grep -c .)" = 1 ] &&
    echo "$LINE" | grep -q "stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " &&
    [ "$(cat "$CPUSET$CGP/crio-$C1/cpuset.mems" 2>/dev/null)" = 0 ] &&
    pass "runtime handler gpu-numa: CRI-O ran our shim, which handed runc hooks $HANDED; the hook ran once and allowed the GPU container (required=0, cpuset.mems 0)" ||
    fail "runtime handler gpu-numa" "create rc $RC ($C1) start rc $RC2 ($OUT) hooks handed on: $HANDED log: $(echo "$LINE" | one_line)"

# 2. gpu-numa-nri on CRI-O's NRI socket alone: it injects the hook at createRuntime, which runs once
start_plugin
if wait_for "$LOG" "gpu-numa-nri\[[0-9]+\] .*stage=nri-connect action=connected "; then
    pass "gpu-numa-nri registered with CRI-O: $(grep 'action=connected' "$LOG" | tail -1 | sed 's/.*msg=//' | cut -c1-160)"
else fail "plugin connects to CRI-O" "log: $(grep nri- "$LOG" | tail -3 | one_line) plugin: $(one_line <"$TMP/plugin.log") crio: $(grep -i nri "$TMP/crio.log" | tail -3 | one_line)"; finish; fi
C2=$(gpu_ctr nri-only); RC=$?
OUT=$(cri start "$C2"); RC2=$?
LINE=$(decisions "$C2")
BH=$(bundle_hooks "$C2")
[ "$RC" = 0 ] && [ "$OUT" = ok ] && grep -q "gpu-numa-nri\[[0-9]*\] container=$C2 stage=nri-create action=inject " "$LOG" &&
    [ "$BH" = "$ONLY_CR" ] && [ "$(echo "$LINE" | grep -c .)" = 1 ] &&
    echo "$LINE" | grep -q "stage=createRuntime action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " &&
    pass "gpu-numa-nri on CRI-O: injected the hook (config.json hooks $BH), which ran once at createRuntime and allowed the GPU container" ||
    fail "NRI plugin on CRI-O" "create rc $RC ($C2) start rc $RC2 ($OUT) hooks $BH log: $(grep "container=$C2" "$LOG" | one_line)"

# 3. the plugin and the runtime handler on one container: the shim finds the plugin's hook at
# createRuntime and adds none; the hook runs once
C3=$(shim_ctr shim-and-nri); RC=$?
OUT=$(cri start "$C3"); RC2=$?
HANDED=$(hooks_of "$(config_of "$C3")")
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$HANDED" = "$ONLY_CR" ] && [ "$(decisions "$C3" | grep -c .)" = 1 ] &&
    decisions "$C3" | grep -q "stage=createRuntime action=allow .*required=0 " &&
    pass "runtime handler gpu-numa with the NRI plugin: the shim saw the plugin's hook (handed on $HANDED, none added); the hook ran once" ||
    fail "runtime handler + NRI plugin" "create rc $RC ($C3) start rc $RC2 ($OUT) hooks handed on: $HANDED log: $(decisions "$C3" | one_line)"

# NVIDIA's own NRI plugin beside ours (still connected, at 99), on pods of the default handler
. "$SCRIPT_DIR/crio-cases-nvidia.sh"
stop_pidfile "$TMP/plugin.pid"

# 4. hooks.d installed into the running CRI-O, in the directory OpenShift's hooks_dir names
OUT=$("$HOOK" install --runtime crio --runtime-config "$HOOKS_D" --hook-path "$HOOK" 2>&1); RC=$?
EFF=$(crio_effective)
if [ "$RC" = 0 ] && [ "$(jq -r --arg d "$HOOKS_D" '.crio.runtime.hooks_dir | index($d)' <<<"$EFF")" != null ] &&
    [ "$(jq -r .hook.path "$HOOKS_D/gpu-numa-hook.json")" = "$HOOK" ] &&
    echo "$OUT" | grep -qF "nothing to restart if CRI-O's hooks_dir names $HOOKS_D" &&
    wait_for "$TMP/crio.log" "added hook $HOOKS_D/gpu-numa-hook.json"; then
    pass "install --runtime crio: $HOOKS_D/gpu-numa-hook.json, in a directory CRI-O $VERSION's effective hooks_dir names ($(jq -c .crio.runtime.hooks_dir <<<"$EFF")); as install said, no restart: the running crio logged 'added hook' for it"
else fail "install --runtime crio" "rc $RC: $(echo "$OUT" | one_line) hooks_dir: $(jq -c .crio.runtime.hooks_dir <<<"$EFF") crio: $(grep -i 'hook' "$TMP/crio.log" | tail -2 | one_line)"; fi

# 5. a container without GPUs starts; hooks.d's hook ran for it and took the fast path
C0=$(cri create "$SB" gpu-pod "uid-$RUNID" "$CGP" "$TMP/podlogs" plain "$IMG" 'exec sleep 600'); RC=$?
OUT=$(cri start "$C0"); RC2=$?
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ -d "$CPUSET$CGP/crio-$C0" ] &&
    decisions "$C0" | grep -q "action=allow gpus=- .*fast path" &&
    pass "container without GPUs: created and started; the hooks.d hook took its fast path (action=allow gpus=-)" ||
    fail "container without GPUs" "create rc $RC ($C0) start rc $RC2 ($OUT) log: $(decisions "$C0" | one_line) crio: $(grep -E 'level=error' "$TMP/crio.log" | tail -2 | one_line)"

# 6. a GPU container (device 195:0) through hooks.d: allowed. CRI-O 1.37 writes a hooks.d
# "prestart" hook into config.json's createRuntime (the runtime spec deprecates prestart; both run
# at the same point), which the bundle CRI-O wrote shows.
C4=$(gpu_ctr cuda); RC=$?
OUT=$(cri start "$C4"); RC2=$?
LINE=$(decisions "$C4")
BH=$(bundle_hooks "$C4")
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(echo "$LINE" | grep -c .)" = 1 ] && [ "$BH" = "$ONLY_CR" ] &&
    echo "$LINE" | grep -q "action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 .*cgroup=$CGP/crio-$C4 " &&
    [ "$(cat "$CPUSET$CGP/crio-$C4/cpuset.mems" 2>/dev/null)" = 0 ]; then
    pass "GPU container through hooks.d: CRI-O put our hook at createRuntime ($BH); it ran once and allowed it (required=0, cpuset.mems 0)"
else fail "GPU container through hooks.d" "create rc $RC ($C4) start rc $RC2 ($OUT) hooks $BH mems $(cat "$CPUSET$CGP/crio-$C4/cpuset.mems" 2>&1) log: $(echo "$LINE" | one_line)"; fi

# 7. patch: the container's cgroup chain is stale (write_stale_hook's stand-in: $CGP/stale/c, mems
# empty as a fresh v1 cpuset's, its parent too); the hook writes node 0 top-down and allows
C5=$(gpu_ctr patched --annotation gnh.test/stale-cpuset=true); RC=$?
OUT=$(cri start "$C5"); RC2=$?
LINE=$(decisions "$C5")
if [ "$RC" = 0 ] && [ "$OUT" = ok ] &&
    echo "$LINE" | grep -q "action=patch gpus=/dev/nvidia0($GPU_BUS) required=0 mems-before=- mems-after=0 cgroup=$CGP/stale/c " &&
    [ "$(cat "$CPUSET$CGP/stale/cpuset.mems")" = 0 ] && [ "$(cat "$CPUSET$CGP/stale/c/cpuset.mems")" = 0 ]; then
    pass "stale cpuset under CRI-O: the hooks.d hook patched $CGP/stale and $CGP/stale/c from empty to cpuset.mems 0 (read back), logged action=patch, the container started"
else fail "patch through hooks.d" "create rc $RC ($C5) start rc $RC2 ($OUT) mems $(cat "$CPUSET$CGP/stale/cpuset.mems" "$CPUSET$CGP/stale/c/cpuset.mems" 2>&1 | one_line) log: $(echo "$LINE" | one_line)"; fi

# 8. refusal: the GPU's memory node is offline. CRI-O creates the runc container at CreateContainer,
# so that call fails, and kubelet's event shows the gRPC error: our one line must be in it.
set_status offline
OUT=$(gpu_ctr refused); RC=$?
set_status online
RID=$(echo "$OUT" | sed -n 's/.*gpu-numa-hook: container \([0-9a-f]\{64\}\): refusing start.*/\1/p' | head -n1)
if [ "$RC" = 3 ] && echo "$OUT" | grep -qE "^grpc-error: [A-Z_]+: .*gpu-numa-hook: container [0-9a-f]{64}: refusing start: GPU /dev/nvidia0 \($GPU_BUS\) memory NUMA node 0 is not online yet \(numa_status: offline" &&
    decisions "$RID" | grep -q "action=refuse " && [ ! -d "$CPUSET$CGP/crio-$RID" ]; then
    pass "GPU memory node offline: CreateContainer failed with our line in the CRI error ($(echo "$OUT" | grep -o 'refusing start: .*not online yet')...); logged action=refuse; no cgroup left"
else fail "refusal through CRI-O" "rc $RC: $(echo "$OUT" | one_line) log: $(grep 'action=refuse' "$LOG" | tail -1 | one_line)"; fi

# 9. hooks.d and the runtime handler: the shim sees hooks.d's entry at createRuntime, adds none
C6=$(shim_ctr shim-and-hooks-d); RC=$?
OUT=$(cri start "$C6"); RC2=$?
HANDED=$(hooks_of "$(config_of "$C6")")
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$HANDED" = "$ONLY_CR" ] && [ "$(decisions "$C6" | grep -c "action=allow .*required=0 ")" = 1 ] &&
    [ "$(decisions "$C6" | grep -c .)" = 1 ] &&
    pass "runtime handler gpu-numa with hooks.d installed too: the shim saw hooks.d's hook (handed on $HANDED, none added); the hook ran once" ||
    fail "runtime handler + hooks.d" "create rc $RC ($C6) start rc $RC2 ($OUT) hooks handed on: $HANDED log: $(decisions "$C6" | one_line)"

# 10. hooks.d and the NRI plugin on one GPU container: which runs? (documented in docs/runtimes.md)
n_conn=$(grep -c "stage=nri-connect action=connected" "$LOG")
start_plugin
if wait_for "$LOG" "stage=nri-connect action=connected" $((n_conn + 1)); then
    C7=$(gpu_ctr hooks-d-and-nri); RC=$?
    OUT=$(cri start "$C7"); RC2=$?
    BH=$(bundle_hooks "$C7")
    INJ=$(grep -c "container=$C7 stage=nri-create action=inject" "$LOG")
    [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$BH" = "$ONLY_CR" ] && [ "$INJ" = 0 ] && [ "$(decisions "$C7" | grep -c .)" = 1 ] &&
        decisions "$C7" | grep -q "action=allow .*required=0 " &&
        pass "hooks.d and the NRI plugin on one CRI-O: the plugin saw hooks.d's hook at createRuntime and injected none (config.json $BH); the hook ran once" ||
        fail "hooks.d with the NRI plugin" "create rc $RC ($C7) start rc $RC2 ($OUT) hooks $BH plugin injected $INJ time(s); log: $(grep "container=$C7" "$LOG" | one_line)"
else fail "plugin reconnects" "log: $(grep nri-connect "$LOG" | tail -2 | one_line)"; fi
stop_pidfile "$TMP/plugin.pid"

# CRI-O with NVIDIA's runtime as handler nvidia (nvidia-ctk's drop-in, crio restarted), hooks.d's
# hook in the spec before NVIDIA's runtime edits it; its pod is torn down there
. "$SCRIPT_DIR/crio-cases-nvidia-runtime.sh"

# teardown as kubelet does it
ok=1
for c in "$C0" "$C1" "$C2" "$C3" "$C4" "$C5" "$C6" "${C7:-}" "${NV_CTRS[@]}"; do [ -n "$c" ] || continue; cri stop "$c" >/dev/null; cri remove "$c" >/dev/null || ok=0; done
for s in "$SB" "$SB2" "${NV_SBS[@]}"; do cri stop-sandbox "$s" >/dev/null && cri remove-sandbox "$s" >/dev/null || ok=0; done
[ "$ok" = 1 ] && pass "StopContainer/RemoveContainer/StopPodSandbox/RemovePodSandbox on CRI-O" || fail "teardown" "a stop/remove call failed"
stop_pidfile "$TMP/crio.pid"
OUT=$("$HOOK" install --runtime crio --runtime-config "$HOOKS_D" --uninstall 2>&1) || fail "install --runtime crio --uninstall" "$(echo "$OUT" | one_line)"
