#!/bin/bash
# A real CRI-O (1.37, from ../shared/tools/cri-o: tests/crio/crio-tool.sh) on OpenShift's file layout
# (tests/crio/crio-env.sh), driven over its CRI socket with kubelet's calls (tests/engine/cri/
# cri_client.py): what `gpu-numa-hook install --runtime crio|crio-runtime|crio-nri` writes, judged by
# `crio config`, and then run by CRI-O itself: the hooks.d hook on GPU containers (allow, patch,
# refusal in the CRI error), a container without GPUs, the shim as runtime handler gpu-numa, the
# NRI plugin on CRI-O's NRI socket, NVIDIA's own NRI plugin (nvidia-ctk-installer 1.20.0) beside it
# with CRI-O's CDI, what happens when two of them meet one container, and hooks.d with NVIDIA's
# runtime (nvidia-container-runtime 1.20.0, modes cdi and legacy) as handler nvidia, configured by
# nvidia-ctk; at the end every install undone, byte for byte. One crio for the whole suite
# (restarted once, for NVIDIA's handler: tests/crio/crio-cases-nvidia-runtime.sh), in a private mount
# namespace with the fake NVIDIA driver and an /etc overlay (tests/engine/lib.sh); stopped by pid.
# Without ../shared/tools/cri-o (a user's clone) the suite is skipped loudly (exit 77, ctest's
# SKIP_RETURN_CODE); under CI=true that is a failure.
# Usage: tests/crio/run-crio-tests.sh HOOK SHIM PLUGIN
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
SHIM=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
PLUGIN=$(abs "${3:-$REPO/build/gpu-numa-nri}")
PY=/usr/bin/python3
TALLY_NAME="cri-o"
CGP=/gnh-crio-$RUNID
. "$SCRIPT_DIR/crio-env.sh"
cleanup() {
    stop_pidfile "$TMP/nvidia.pid"
    stop_pidfile "$TMP/plugin.pid"
    stop_pidfile "$TMP/crio.pid"
    crio_kill_leftovers
    engine_cleanup "gnh-crio-$RUNID"
}
# finish_or_skip: the tally; a suite that only skipped exits 77 (ctest shows it as skipped, not passed)
finish_or_skip() {
    (finish)
    local rc=$?
    [ "$rc" = 0 ] && [ "$SKIPPED" -gt 0 ] && exit 77
    exit "$rc"
}
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox "$PY"
    "$PY" -c 'import grpc, grpc_tools, tomllib' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools missing (tests/run-all.sh installs them)"; finish_or_skip; }
    [ -x "$HOOK" ] && [ -x "$SHIM" ] && [ -x "$PLUGIN" ] || { fail "binaries" "$HOOK, $SHIM or $PLUGIN missing"; finish; }
    OUT=$("$SCRIPT_DIR/crio-tool.sh" "$REPO" 2>&1); RC=$?
    case $RC in
        0) ;;
        3) skip "all cases (real CRI-O)" "$(echo "$OUT" | one_line); the CRI-O suite needs the tarball in ../shared/tools/cri-o beside the repository"
           finish_or_skip ;;
        *) fail "CRI-O tool" "$(echo "$OUT" | one_line)"; finish ;;
    esac
    echo "$OUT" | tail -n2 >"$TMP/tool"
    # NVIDIA's own NRI plugin for crio-cases-nvidia.sh (nvidia-ctk-installer 1.20.0 and the artifacts
    # it installs, from shared/tools, in the caches the containerd suites share); judged inside,
    # where the cases are counted
    "$REPO/tests/nri/fetch-nvidia-installer.sh" >"$TMP/nvidia-parts" 2>"$TMP/nvidia-fetch.err"
    echo $? >"$TMP/nvidia-fetch.rc"
    make_rootfs
    make_driver online0 0 online
    mkdir -p "$TMP/bin" "$TMP/rec"
    make_runc_recorder "$TMP/bin/runc-rec" "$TMP/rec"
    # the shim's next runtime is the recorder (it keeps the config.json the shim hands on)
    write_config gnh "[runtime]" "hook = \"$HOOK\"" "next = [\"$TMP/bin/runc-rec\"]"
    # /run/runc and /run/crun: where CRI-O points a runtime without runtime_root; a tmpfs over each
    # keeps such a slip of ours inside the namespace
    rerun_in_ns gnh "/run/gpu-numa-hook /run/runc /run/crun" "$SCRIPT_DIR/run-crio-tests.sh" "$HOOK" "$SHIM" "$PLUGIN"
fi
tmpfs_over gnh-crio /run/gpu-numa-hook /run/runc /run/crun
. "$SCRIPT_DIR/crio-cases.sh"
