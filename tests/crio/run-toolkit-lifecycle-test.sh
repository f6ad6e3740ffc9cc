#!/bin/bash
# NVIDIA's toolkit container (the real nvidia-ctk-installer 1.20.0) in its non-NRI mode, its whole
# life beside `install --runtime crio-runtime --set-default`, on the real CRI-O 1.37 (OpenShift's
# file layout, tests/crio/crio-env.sh) driven over CRI as kubelet does. The installer reads CRI-O's
# effective config (`crio status config`, at this node's socket), writes crio.conf.d/99-nvidia.toml
# (`nvidia` the default runtime) and, for CRI-O, restarts it only through systemd (`systemctl
# restart crio`; a signal is refused for CRI-O): with no systemd here it runs with --restart-mode
# none and the test restarts crio where systemd would. On SIGTERM it unsets its default.
#   1. ours first; 2. the installer starts; 3. ours again (the shim chained to NVIDIA's runtime,
#   which runs it back); 4. the installer ends; 5. the installer again; 6. the installer ends and
#   ours is uninstalled. At each step: `crio config`, a GPU pod (/dev/nvidia0 as a CRI device),
#   `gpu-numa-hook status`; at the end every GPU container is accounted for (hooked, or named by
#   status, check and gpu_numa_hook_unprotected_gpu_containers).
# Without ../shared/tools (CRI-O, NVIDIA's installer) it is skipped loudly (exit 77); under CI=true
# that is a failure.
# Usage: tests/crio/run-toolkit-lifecycle-test.sh HOOK SHIM
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
SHIM=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
PY=/usr/bin/python3
TALLY_NAME="NVIDIA's toolkit container lifecycle beside install (CRI-O)"
CGP=/gnh-crtl-$RUNID
. "$SCRIPT_DIR/crio-env.sh"
cleanup() {
    stop_pidfile "$TMP/run-nvidia/toolkit.pid"
    stop_pidfile "$TMP/crio.pid"
    crio_kill_leftovers
    engine_cleanup "gnh-crtl-$RUNID"
}
finish_or_skip() {
    (finish)
    local rc=$?
    [ "$rc" = 0 ] && [ "$SKIPPED" -gt 0 ] && exit 77
    exit "$rc"
}
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox "$PY"
    "$PY" -c 'import grpc, grpc_tools, tomllib' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools missing"; finish_or_skip; }
    [ -x "$HOOK" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK or $SHIM missing"; finish; }
    OUT=$("$SCRIPT_DIR/crio-tool.sh" "$REPO" 2>&1); RC=$?
    case $RC in
        0) ;;
        3) skip "every case: NOT RUN" "$(echo "$OUT" | one_line); needs the CRI-O tarball in ../shared/tools/cri-o"; finish_or_skip ;;
        *) fail "CRI-O tool" "$(echo "$OUT" | one_line)"; finish ;;
    esac
    echo "$OUT" | tail -n2 >"$TMP/tool"
    rc=0; "$REPO/tests/nri/fetch-nvidia-installer.sh" >"$TMP/nvidia-parts" || rc=$?
    if [ "$rc" = 77 ]; then skip "every case: NOT RUN" "NVIDIA's nvidia-ctk-installer is not here (see the line above)"; finish_or_skip
    elif [ "$rc" != 0 ]; then fail "fetch NVIDIA's installer" "tests/nri/fetch-nvidia-installer.sh failed (exit $rc)"; finish; fi
    make_rootfs
    make_driver online0 0 online
    write_config gnh "[runtime]" "hook = \"$HOOK\""
    rerun_in_ns gnh "/run/gpu-numa-hook /run/runc /run/crun /run/nvidia" "$SCRIPT_DIR/run-toolkit-lifecycle-test.sh" "$HOOK" "$SHIM"
fi
tmpfs_over gnh-crtl /run/gpu-numa-hook /run/runc /run/crun /run/nvidia

# ---------------------------------------------------------------- inside the namespace
T0=$(date +%s)
CRIO_ROOT=$(sed -n 1p "$TMP/tool")
CONMON=$(sed -n 2p "$TMP/tool")
RUNC=$(command -v runc)
{ read -r INSTALLER; read -r ARTIFACTS; } <"$TMP/nvidia-parts"
LOG=$TMP/logs/gnh.log
NVLOG=$TMP/installer.log
CRIO_SOCK=$TMP/crio.sock
NRI_SOCK=$TMP/nri.sock
IMG=localhost/gnh/busybox:crtl-$RUNID
TK=$TMP/usr/local/nvidia
mkdir -p "$TMP/dev" "$TMP/podlogs" "$TMP/gen" "$TMP/bin" "$TMP/run-nvidia" /run/nvidia/driver
mknod -m 666 "$TMP/dev/nvidia0" c 195 0
: >"$NVLOG"
install -m 755 "$SHIM" "$TMP/bin/gpu-numa-runtime"
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$CRIO_SOCK" "$@"; }
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }
crio_write_node_config
# runc's state where a node keeps it (CRI-O's default, /run/runc: a tmpfs here), so that status and
# check find the running containers as on a node
sed -i 's|^runtime_root = .*|runtime_root = "/run/runc"|' /etc/crio/crio.conf.d/00-default
crio_load_image >"$TMP/copyimg.log" 2>&1 || { fail "image" "$(tail -3 "$TMP/copyimg.log" | one_line)"; finish; }
# `crio` as the installer runs it for its config source (`crio status config`): at this node's socket
printf '#!/bin/sh\nsub=$1; shift\nexec %s "$sub" --socket %s "$@"\n' "$CRIO_ROOT/bin/crio" "$CRIO_SOCK" >"$TMP/bin/crio-here"
chmod 755 "$TMP/bin/crio-here"
# crio_up: crio (again), on until it answers over CRI
crio_up() {
    local _
    start_crio
    for _ in $(seq 1 300); do
        cri version >/dev/null 2>&1 && return 0
        kill -0 "$(cat "$TMP/crio.pid")" 2>/dev/null || break
        sleep 0.2
    done
    fail "CRI-O up" "$(grep -E 'level=(fatal|error)' "$TMP/crio.log" | tail -3 | one_line)"; finish
}
# restart: crio restarted as `systemctl restart crio` does (TERM, started again)
restart() { stop_pidfile "$TMP/crio.pid"; crio_up; }
crio_up

# installer_start: NVIDIA's toolkit container's entrypoint as the operator runs it for CRI-O
# (config mode, `nvidia` the default), every path private; on until it waits for its signal
installer_start() {
    local n
    n=$(grep -c "Waiting for signal" "$NVLOG")
    setsid env -i PATH="$PATH" HOME=/root "$INSTALLER" --runtime crio \
        --config /etc/crio/crio.conf --drop-in-config /etc/crio/crio.conf.d/99-nvidia.toml --socket "$CRIO_SOCK" \
        --restart-mode none --host-root / --executable-path "$TMP/bin/crio-here" \
        --toolkit-install-dir "$TK" --toolkit-source-root "$ARTIFACTS" --driver-root /run/nvidia/driver \
        --pid-file "$TMP/run-nvidia/toolkit.pid" >>"$NVLOG" 2>&1 &
    wait_for "$NVLOG" "Waiting for signal" $((n + 1)) || { fail "the installer starts" "$(tail -5 "$NVLOG" | one_line)"; finish; }
}
# installer_stop: SIGTERM, as kubelet ends its pod; on until it has cleaned up and exited
installer_stop() {
    local pid
    pid=$(cat "$TMP/run-nvidia/toolkit.pid")
    CLEANUPS=$(grep -c "Completed nvidia-ctk-installer" "$NVLOG")
    kill "$pid"
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    [ "$(grep -c "Completed nvidia-ctk-installer" "$NVLOG")" -gt "$CLEANUPS" ] || fail "the installer's cleanup" "$(tail -3 "$NVLOG" | one_line)"
}

# config_says STEP DEFAULT NVIDIA GPU_NUMA: CRI-O's effective config (crio config): its default
# runtime, whether NVIDIA's runtime (the installer's wrapper) and ours are runtimes (yes|no)
config_says() {
    local eff got nv ours
    eff=$(crio_effective)
    got=$(jq -r '.crio.runtime.default_runtime // "crun"' <<<"$eff")
    [ "$(jq -r '.crio.runtime.runtimes.nvidia.runtime_path // ""' <<<"$eff")" = "$TK/toolkit/nvidia-container-runtime" ] && nv=yes || nv=no
    [ "$(jq -r '.crio.runtime.runtimes["gpu-numa"].runtime_path // ""' <<<"$eff")" = "$TMP/bin/gpu-numa-runtime" ] && ours=yes || ours=no
    if [ "$got" = "$2" ] && [ "$nv" = "$3" ] && [ "$ours" = "$4" ]; then
        pass "$1: crio config: default_runtime '$got', NVIDIA's runtime $nv, gpu-numa $ours"
    else fail "$1: crio config" "default '$got' (want '$2'), NVIDIA's runtime $nv (want $3), gpu-numa $ours (want $4)"; fi
}
ENGINE=crio-runtime
# shellcheck source=../engine/lifecycle-checks.sh
. "$ENGINE_DIR/lifecycle-checks.sh"
ours() { "$HOOK" install --runtime crio-runtime --runtime-path "$TMP/bin/gpu-numa-runtime" "$@" 2>&1; }

# 1. ours first
S="1. install before NVIDIA's toolkit"
OUT=$(ours --set-default) || { fail "$S: install --runtime crio-runtime --set-default" "$(echo "$OUT" | one_line)"; finish; }
restart
config_says "$S" gpu-numa no yes
status_says "$S" 0 "^gpu-numa-hook status: protected" "crio-runtime: runtime gpu-numa, the default,"
hooked before "$S"

# 2. the installer: its 99-nvidia.toml names `nvidia` the default; ours, 99-zz-gpu-numa.toml, is read after it
S="2. NVIDIA's toolkit container starts"
installer_start
restart
config_says "$S" gpu-numa yes yes
NVCFG=$TK/toolkit/.config/nvidia-container-runtime/config.toml
echo "NVIDIA's runtime's own runtimes: $(grep '^ *runtimes' "$NVCFG" | sed 's/^ *//')"
status_says "$S" 0 "^gpu-numa-hook status: protected" "crio-runtime: runtime gpu-numa, the default," \
    "^note: crio-runtime: NVIDIA's runtime $TK/toolkit/nvidia-container-runtime \\(.*\\) is not in gpu-numa-runtime's \\[runtime\\] next"
hooked with-nvidia "$S"

# 3. ours again: the shim runs NVIDIA's runtime next
S="3. install again beside NVIDIA's toolkit"
OUT=$(ours --set-default) || { fail "$S: install" "$(echo "$OUT" | one_line)"; finish; }
grep -q "^chain: crio-runtime's runtime '$TK/toolkit/nvidia-container-runtime' is NVIDIA's" <<<"$OUT" &&
    pass "$S: $(grep '^chain:' <<<"$OUT" | cut -c1-150)" || fail "$S: install chains NVIDIA's runtime" "$(echo "$OUT" | one_line)"
restart
config_says "$S" gpu-numa yes yes
status_says "$S" 0 "^gpu-numa-hook status: protected" "next runtime .*$TK/toolkit/nvidia-container-runtime: ok" \
    "!NVIDIA's runtime .* is not in gpu-numa-runtime's"
hooked ours-again "$S" via-nvidia

# 4. the installer ends: for CRI-O it unsets its default and leaves its runtimes
S="4. NVIDIA's toolkit container ends"
installer_stop
restart
config_says "$S" gpu-numa yes yes
status_says "$S" 0 "^gpu-numa-hook status: protected"
hooked after-nvidia "$S" via-nvidia

# 5. the installer again: its folder deleted and re-created
S="5. NVIDIA's toolkit container starts again"
installer_start
restart
config_says "$S" gpu-numa yes yes
hooked nvidia-again "$S" via-nvidia

# 6. the installer ends, ours uninstalled: a GPU pod then starts without the hook, and is named
S="6. NVIDIA's toolkit container ends, then install --uninstall"
installer_stop
OUT=$(ours --uninstall) || fail "$S: install --uninstall" "$(echo "$OUT" | one_line)"
restart
config_says "$S" runc yes no
unhooked_is_named "$S"
all_accounted
echo "wall time inside the namespace: $(($(date +%s) - T0)) s"
finish_or_skip
