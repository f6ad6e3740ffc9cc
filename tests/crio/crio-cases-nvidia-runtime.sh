# shellcheck shell=bash
# tests/crio/run-crio-tests.sh: CRI-O with NVIDIA's runtime (sourced by crio-cases-run.sh with crio
# up, hooks.d installed, no NRI plugin connected). The runtime handler "nvidia" is what the real
# nvidia-ctk 1.20.0 (shared/tools, unpacked into this suite's cache) writes with
# `nvidia-ctk runtime configure --runtime=crio`, its defaults (/etc/crio/crio.conf read,
# crio.conf.d/99-nvidia.toml written: this node's private /etc/crio) but for --nvidia-runtime-path,
# the real nvidia-container-runtime 1.20.0. crio is restarted, as nvidia-ctk says to (and as the GPU
# operator's installer does for CRI-O: systemd restart). A SIGHUP is not enough with CRI-O 1.37: it
# logs "Updating runtime configuration" and prints the new handler, but RunPodSandbox still answers
# "failed to find runtime handler nvidia from runtime list": the reload updates the server's copy of
# the configuration (server/server.go, Server.config, a value), while handlers are looked up in the
# one the OCI runtime holds (internal/lib/container_server.go oci.New(config),
# internal/oci/oci.go ValidateRuntimeHandler). CRI-O puts our hooks.d hook into the spec before
# NVIDIA's runtime edits it. NVIDIA's settings are /etc/nvidia-container-runtime/config.toml
# (this namespace's /etc overlay), set with the real nvidia-ctk; NVIDIA's runtime, its hook and ours
# read them there. Its low-level runtime is runc; its CDI spec ($TMP/nvrt-cdi) is nvidia-ctk's
# format for the fake nodes; in mode legacy its nvidia-container-cli records its arguments instead.
#   mode cdi, NVIDIA_VISIBLE_DEVICES=0   -> NVIDIA's runtime hands runc /dev/nvidia0 (c 195:0) and
#                                           the control nodes, the variable set to void, our hook
#                                           kept; the hook ran once and allowed GPU 0
#   mode cdi, no GPU                     -> nothing of NVIDIA's; our hook's fast path
#   mode legacy, NVIDIA_VISIBLE_DEVICES=0 -> NVIDIA's runtime adds its prestart hook, which asks its
#                                           cli for device 0; our hook, seeing it, counts the
#                                           variable and allows GPU 0
#   mode legacy, no GPU                  -> NVIDIA's hook is there and asks for nothing; fast path
#   mode legacy, GPU memory offline      -> CreateContainer fails with our line in the CRI error
# The pod and its containers are torn down here, then the drop-in and NVIDIA's settings removed
# (crio keeps the handler until it stops; the undo check reads the files).
NR_CTRS=()
NR_SB=""
NRLOG=$TMP/logs/nvidia-runtime.log
NR_CONF=/etc/nvidia-container-runtime/config.toml
NR_DROPIN=/etc/crio/crio.conf.d/99-nvidia.toml
NR_NODES='["/dev/nvidia-modeset c 195:254","/dev/nvidia0 c 195:0","/dev/nvidiactl c 195:255"]'
nr_json() { echo "$TMP/crio-state/run/storage/vfs-containers/$1/userdata/config.json"; }
# the config.json runc was handed for container $1 (NVIDIA's runtime rewrites the bundle's, then
# execs runc): its /dev/nvidia* nodes, and the value of NVIDIA_VISIBLE_DEVICES runc's init sets last
nr_nodes() {
    jq -c '[.linux.devices[]? | select(.path | startswith("/dev/nvidia")) | "\(.path) \(.type) \(.major):\(.minor)"] | sort' "$(nr_json "$1")" 2>&1 | one_line
}
nr_env() { jq -r '[.process.env[] | select(startswith("NVIDIA_VISIBLE_DEVICES="))] | last // "-"' "$(nr_json "$1")" 2>&1 | one_line; }
nr_set() { "$NR_TK/bin/nvidia-ctk" config --config-file="$NR_CONF" --in-place "${@/#/--set=}" >>"$TMP/nvrt-ctk.log" 2>&1; }
cli_args() { { one_line <"$TMP/nvrt-cli-ran"; } 2>/dev/null; }
# nr_nvlog ID: what NVIDIA's runtime logged for the create of container ID (it logs the bundle first)
nr_nvlog() { awk -v d="/$1/userdata" '/Using bundle directory: /{on = index($0, d) > 0} on' "$NRLOG" 2>/dev/null; }
# nr_hooks ID: the hooks in the config.json runc was handed, keys sorted
nr_hooks() { bundle_hooks "$1" | jq -cS . 2>&1; }
# nr_ctr NAME [OPTION...]: CreateContainer in the pod on handler nvidia, then StartContainer; the id
# (or the CRI error) in NR_C, create's status in NR_RC, start's output in NR_STARTED
nr_ctr() {
    local name=$1
    shift
    rm -f "$TMP/nvrt-cli-ran"
    NR_STARTED=""
    NR_C=$(cri create "$NR_SB" nvrt-pod "uid-nvrt-$RUNID" "$CGP" "$TMP/podlogs" "$name" "$IMG" 'exec sleep 600' "$@"); NR_RC=$?
    [ "$NR_RC" = 0 ] || return 1
    NR_CTRS+=("$NR_C")
    NR_STARTED=$(cri start "$NR_C")
}
nr_why() { # ID: what the FAIL line shows
    echo "create rc $NR_RC ($NR_C) start $NR_STARTED nodes $(nr_nodes "$1") env $(nr_env "$1") hooks $(bundle_hooks "$1") ours: $(decisions "$1" | one_line) nvidia: $(nr_nvlog "$1" | grep -v -E 'Using (bundle|OCI)' | sed 's/^time="[^"]*" //' | one_line) crio: $(grep -E 'level=error' "$TMP/crio.log" | tail -2 | one_line)"
}

nvidia_runtime_cases() {
    local tb out rc rt nvhook ver
    # shellcheck source=../support/shared-tools.sh
    . "$REPO/tests/support/shared-tools.sh"
    if ! tb=$(shared_tool_tarball nvidia-container-toolkit nvidia-container-toolkit-1.20.0-amd64.tar.xz 2>"$TMP/nvrt.err"); then
        skip "CRI-O with NVIDIA's runtime: NOT RUN" "$(one_line <"$TMP/nvrt.err")"
        return
    fi
    NR_TK=$(unpack_cached "$tb" nvidia/toolkit-1.20.0 2>"$TMP/nvrt.err") ||
        { fail "unpack NVIDIA's toolkit" "$tb: $(one_line <"$TMP/nvrt.err")"; return; }
    NVRT=$NR_TK/bin/nvidia-container-runtime
    nvhook=$NR_TK/bin/nvidia-container-runtime-hook

    # NVIDIA's settings, as an operator sets them with nvidia-ctk: mode cdi first, runc below it, the
    # CDI spec's directory, the legacy hook and its cli (used once the mode is legacy), a debug log
    mkdir -p /etc/nvidia-container-runtime "$TMP/nvrt-cdi"
    cp "$NR_TK/etc/nvidia-container-runtime/config.toml" "$NR_CONF"
    printf '#!/bin/sh\necho "$@" >>"%s/nvrt-cli-ran"\n' "$TMP" >"$TMP/bin/nvidia-container-cli" && chmod 755 "$TMP/bin/nvidia-container-cli"
    nr_set nvidia-container-runtime.mode=cdi "nvidia-container-runtime.runtimes=$RUNC" \
        "nvidia-container-runtime.modes.cdi.spec-dirs=$TMP/nvrt-cdi" \
        "nvidia-container-runtime.debug=$NRLOG" nvidia-container-runtime.log-level=debug \
        "nvidia-container-runtime-hook.path=$nvhook" "nvidia-container-cli.path=$TMP/bin/nvidia-container-cli" \
        nvidia-container-cli.load-kmods=false ||
        { fail "nvidia-ctk config --set (NVIDIA's settings)" "$(tail -3 "$TMP/nvrt-ctk.log" | one_line)"; return; }
    # the fake GPU's CDI spec (host paths: this run's fake nodes; the control nodes exist when
    # crio-cases-nvidia.sh ran)
    [ -e "$TMP/dev/nvidiactl" ] || mknod "$TMP/dev/nvidiactl" c 195 255
    [ -e "$TMP/dev/nvidia-modeset" ] || mknod "$TMP/dev/nvidia-modeset" c 195 254
    write_nvidia_cdi_spec "$TMP/nvrt-cdi/nvidia.json" "$TMP/dev"

    # the runtime handler, by nvidia-ctk at its defaults, then crio restarted (its log before kept)
    out=$("$NR_TK/bin/nvidia-ctk" runtime configure --runtime=crio --nvidia-runtime-path="$NVRT" 2>&1); rc=$?
    stop_pidfile "$TMP/crio.pid"
    mv "$TMP/crio.log" "$TMP/crio-before-nvidia.log"
    start_crio
    ver=""
    for _ in $(seq 1 300); do
        ver=$(cri version 2>/dev/null) && break
        kill -0 "$(cat "$TMP/crio.pid")" 2>/dev/null || break
        sleep 0.2
    done
    rt=$(crio_effective | jq -c '.crio.runtime.runtimes.nvidia | {runtime_path, runtime_type}' 2>&1)
    if [ "$rc" = 0 ] && [ -f "$NR_DROPIN" ] && cmp -s /etc/crio/crio.conf "$TMP/pristine-crio/crio.conf" &&
        [ "$rt" = "$(jq -nc --arg p "$NVRT" '{runtime_path: $p, runtime_type: "oci"}')" ] && [ -n "$ver" ] &&
        grep -q "Using runtime handler NVIDIA Container Runtime version 1.20.0" "$TMP/crio.log"; then
        pass "nvidia-ctk runtime configure --runtime=crio (1.20.0, its defaults): wrote $NR_DROPIN ([crio.runtime.runtimes.nvidia] $rt; it said: $(echo "$out" | grep -o 'Could not infer options from runtimes [^"]*' | head -n1)), crio.conf untouched; crio restarted as nvidia-ctk says, answers $ver and runs handler nvidia's $(grep -o 'NVIDIA Container Runtime version 1.20.0' "$TMP/crio.log" | head -n1)"
    else
        fail "nvidia-ctk runtime configure --runtime=crio, crio restarted" "rc $rc: $(echo "$out" | one_line) drop-in: $(one_line <"$NR_DROPIN" 2>&1) crio config: $rt version '$ver' crio: $(grep -E 'level=(fatal|error|warning)' "$TMP/crio.log" | tail -3 | one_line)"
        rm -f "$NR_DROPIN"
        return
    fi

    # the pod on RuntimeClass nvidia
    NR_SB=$(cri run-sandbox nvrt-pod "uid-nvrt-$RUNID" nvidia "$CGP" "$TMP/podlogs"); rc=$?
    if [ "$rc" != 0 ] || [ -z "$NR_SB" ]; then
        fail "RunPodSandbox with handler nvidia" "rc $rc $NR_SB crio: $(grep -E 'level=(error|fatal)' "$TMP/crio.log" | tail -3 | one_line)"
        NR_SB=""
    else
        nr_run_cases
    fi

    # teardown as kubelet does it, through NVIDIA's runtime; then the drop-in and NVIDIA's settings go
    local c ok=1
    for c in "${NR_CTRS[@]}"; do cri stop "$c" >/dev/null; cri remove "$c" >/dev/null || ok=0; done
    [ -z "$NR_SB" ] || { cri stop-sandbox "$NR_SB" >/dev/null && cri remove-sandbox "$NR_SB" >/dev/null; } || ok=0
    [ "$ok" = 1 ] || fail "teardown on handler nvidia" "a stop/remove call failed; crio: $(grep -E 'level=error' "$TMP/crio.log" | tail -2 | one_line)"
    rm -f "$NR_DROPIN"
    rm -rf /etc/nvidia-container-runtime
}

nr_run_cases() {
    local want line bh rid out rc nv legacy_hooks
    # 1. mode cdi, NVIDIA_VISIBLE_DEVICES=0: NVIDIA's runtime resolves nvidia.com/gpu=0 from its CDI
    # spec; our hook, put at createRuntime by CRI-O from hooks.d (its argv says prestart, the stage
    # its line names), stays and finds the GPU
    nr_ctr cdi-gpu --env NVIDIA_VISIBLE_DEVICES=0
    want="gpu-numa-hook\[[0-9]*\] container=$NR_C .*stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 "
    line=$(decisions "$NR_C")
    bh=$(nr_hooks "$NR_C")
    nv=$(nr_nvlog "$NR_C")
    if [ "$NR_RC" = 0 ] && [ "$NR_STARTED" = ok ] && [ "$(nr_nodes "$NR_C")" = "$NR_NODES" ] &&
        [ "$(nr_env "$NR_C")" = NVIDIA_VISIBLE_DEVICES=void ] && [ "$bh" = "$ONLY_CR" ] &&
        echo "$nv" | grep -qF "Using requested mode 'cdi'" && echo "$nv" | grep -qF "Injecting devices using CDI: [nvidia.com/gpu=0]" &&
        [ "$(echo "$line" | grep -c .)" = 1 ] && [ "$(grep -c "$want" "$LOG")" = 1 ] &&
        [ "$(cat "$CPUSET$CGP/crio-$NR_C/cpuset.mems" 2>/dev/null)" = 0 ]; then
        pass "CRI-O with NVIDIA's runtime, mode cdi, NVIDIA_VISIBLE_DEVICES=0: NVIDIA's runtime logged 'Injecting devices using CDI: [nvidia.com/gpu=0]' and handed runc /dev/nvidia0 (c 195:0) with the control nodes ($(nr_env "$NR_C")) and CRI-O's hooks.d hook kept ($bh); our hook ran once: $(echo "$line" | sed 's/.*\(stage=prestart\)/\1/' | cut -c1-110)"
    else fail "CRI-O with NVIDIA's runtime, mode cdi, NVIDIA_VISIBLE_DEVICES=0" "$(nr_why "$NR_C")"; fi

    # 3a. mode cdi, no GPU: NVIDIA's runtime leaves the spec alone; our hook's fast path
    nr_ctr cdi-plain
    bh=$(nr_hooks "$NR_C")
    if [ "$NR_RC" = 0 ] && [ "$NR_STARTED" = ok ] && [ "$(nr_nodes "$NR_C")" = '[]' ] && [ "$bh" = "$ONLY_CR" ] &&
        nr_nvlog "$NR_C" | grep -qF "No devices requested; no modification required." &&
        [ "$(decisions "$NR_C" | grep -c .)" = 1 ] && decisions "$NR_C" | grep -q "action=allow gpus=- .*no GPU requested (fast path)"; then
        pass "CRI-O with NVIDIA's runtime, mode cdi, a container without a GPU: started; NVIDIA's runtime: 'No devices requested; no modification required.', runc was handed no /dev/nvidia* (hooks $bh); our hook took its fast path (action=allow gpus=-)"
    else fail "CRI-O with NVIDIA's runtime, mode cdi, no GPU" "$(nr_why "$NR_C")"; fi

    # 2. mode legacy: NVIDIA's runtime adds its own prestart hook; runc runs it (its cli is asked for
    # device 0), then ours, which sees NVIDIA's hook in config.json and counts the variable
    nr_set nvidia-container-runtime.mode=legacy || { fail "nvidia-ctk config --set nvidia-container-runtime.mode=legacy" "$(tail -3 "$TMP/nvrt-ctk.log" | one_line)"; return; }
    legacy_hooks=$(jq -ncS --arg h "$HOOK" --arg n "$NR_TK/bin/nvidia-container-runtime-hook" '{createRuntime: [$h], prestart: [$n]}')
    nr_ctr legacy-gpu --env NVIDIA_VISIBLE_DEVICES=0
    want="gpu-numa-hook\[[0-9]*\] container=$NR_C .*stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 "
    line=$(decisions "$NR_C")
    bh=$(nr_hooks "$NR_C")
    nv=$(nr_nvlog "$NR_C")
    if [ "$NR_RC" = 0 ] && [ "$NR_STARTED" = ok ] && [ "$bh" = "$legacy_hooks" ] && [ "$(nr_nodes "$NR_C")" = '[]' ] &&
        echo "$nv" | grep -qF "Using requested mode 'legacy'" && echo "$nv" | grep -qF "Using prestart hook path: $NR_TK/bin/nvidia-container-runtime-hook" &&
        cli_args | grep -q -- '--device=0 ' && [ "$(echo "$line" | grep -c .)" = 1 ] && [ "$(grep -c "$want" "$LOG")" = 1 ] &&
        [ "$(cat "$CPUSET$CGP/crio-$NR_C/cpuset.mems" 2>/dev/null)" = 0 ]; then
        pass "CRI-O with NVIDIA's runtime, mode legacy, NVIDIA_VISIBLE_DEVICES=0: NVIDIA's runtime added its hook to the config.json runc was handed ($(jq -cS '.hooks | map_values([.[] | .path | split("/") | last])' "$(nr_json "$NR_C")"), no linux.devices of NVIDIA's), its hook asked its cli for $(cli_args | grep -o -- '--device=[^ ]*'); our hook counted the variable and ran once: $(echo "$line" | sed 's/.*\(stage=prestart\)/\1/' | cut -c1-110)"
    else fail "CRI-O with NVIDIA's runtime, mode legacy, NVIDIA_VISIBLE_DEVICES=0" "$(nr_why "$NR_C") cli: $(cli_args)"; fi

    # 3b. mode legacy, no GPU: NVIDIA's hook is in every container and asks for nothing; fast path
    nr_ctr legacy-plain
    bh=$(nr_hooks "$NR_C")
    if [ "$NR_RC" = 0 ] && [ "$NR_STARTED" = ok ] && [ "$bh" = "$legacy_hooks" ] && [ ! -e "$TMP/nvrt-cli-ran" ] &&
        [ "$(decisions "$NR_C" | grep -c .)" = 1 ] && decisions "$NR_C" | grep -q "action=allow gpus=- .*no GPU requested (fast path)"; then
        pass "CRI-O with NVIDIA's runtime, mode legacy, a container without a GPU: started with NVIDIA's hook beside ours (its cli not run); our hook took its fast path (action=allow gpus=-)"
    else fail "CRI-O with NVIDIA's runtime, mode legacy, no GPU" "$(nr_why "$NR_C") cli: $(cli_args)"; fi

    # 2b. mode legacy, GPU memory offline: CRI-O creates the runc container at CreateContainer, so
    # that call fails with runc's error, which carries our line
    set_status offline
    rm -f "$TMP/nvrt-cli-ran"
    out=$(cri create "$NR_SB" nvrt-pod "uid-nvrt-$RUNID" "$CGP" "$TMP/podlogs" legacy-refused "$IMG" 'exec sleep 600' --env NVIDIA_VISIBLE_DEVICES=0); rc=$?
    set_status online
    [ "$rc" = 0 ] && NR_CTRS+=("$out")
    rid=$(echo "$out" | sed -n 's/.*gpu-numa-hook: container \([0-9a-f]\{64\}\): refusing start.*/\1/p' | head -n1)
    nv=$(nr_nvlog "${rid:-none}")
    if [ "$rc" = 3 ] && echo "$out" | grep -qE "^grpc-error: [A-Z_]+: .*gpu-numa-hook: container [0-9a-f]{64}: refusing start: GPU /dev/nvidia0 \($GPU_BUS\) memory NUMA node 0 is not online yet \(numa_status: offline" &&
        echo "$nv" | grep -qF "Using prestart hook path: $NR_TK/bin/nvidia-container-runtime-hook" &&
        [ "$(decisions "$rid" | grep -c "action=refuse gpus=/dev/nvidia0($GPU_BUS) ")" = 1 ] && [ "$(decisions "$rid" | grep -c .)" = 1 ] &&
        [ ! -d "$CPUSET$CGP/crio-$rid" ]; then
        pass "CRI-O with NVIDIA's runtime, mode legacy, GPU memory node offline: CreateContainer (through NVIDIA's runtime, its hook added) failed with our line in the CRI error ($(echo "$out" | grep -o 'error running hook #[0-9]*'): ...$(echo "$out" | grep -o 'refusing start: .*not online yet')...); logged action=refuse; no cgroup left; NVIDIA's hook, at prestart, ran before ours: $(if [ -e "$TMP/nvrt-cli-ran" ]; then echo "its cli was asked for $(cli_args | grep -o -- '--device=[^ ]*')"; else echo "its cli was not run"; fi)"
    else fail "CRI-O with NVIDIA's runtime, mode legacy, refusal" "rc $rc: $(echo "$out" | one_line) ours: $(grep 'action=refuse' "$LOG" | tail -1 | one_line) nvidia: $(echo "$nv" | grep -c .) line(s)"; fi
}
nvidia_runtime_cases
