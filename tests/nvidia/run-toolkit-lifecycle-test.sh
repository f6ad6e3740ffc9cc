#!/bin/bash
# NVIDIA's toolkit container (the real nvidia-ctk-installer 1.20.0) in its non-NRI mode, its whole
# life beside gpu-numa-hook's runtime registration, on the real containerd 2.3 driven over CRI as
# kubelet does. The installer runs as the GPU operator runs it, with private paths: it lays the
# toolkit out under $TMP/usr/local/nvidia, writes its drop-in (conf.d/99-nvidia.toml, `nvidia` the
# default runtime) and its `imports` entry into containerd's config, and restarts containerd the way
# it does in production: SIGHUP to the pid behind the socket, which containerd does not handle, so
# it exits and its supervisor (systemd's Restart=always; a loop here) starts it again. On SIGTERM it
# undoes that and restarts containerd once more; started again, it deletes and re-creates its folder.
#
# Steps, each judged by `containerd config dump` (the default runtime, NVIDIA's entry, ours), a GPU
# pod started through CRI (its GPU from the device plugin, /dev/nvidia0 as a CRI device) and
# `gpu-numa-hook status`:
#   1. ours first: install --runtime containerd --set-default; the pod is hooked through the shim
#   2. the installer starts: its default is read after ours; status must say so, and the pod started
#      then is either hooked or named by status, check and the metrics
#   3. ours again: NVIDIA's runtime kept in the chain, gpu-numa the default again; hooked
#   4. the installer ends (undo, restart): hooked, NVIDIA's entry gone from the dump
#   5. the installer again (its folder deleted and re-created): hooked
#   6. ours uninstalled: containerd's config as the installer left it
# Every GPU container started during the run is accounted for at the end: hooked (its line in our
# log) or named by status, check and gpu_numa_hook_unprotected_gpu_containers.
# Without ../shared/tools it exits 77: NOT RUN, loudly (a failure under CI=true).
# Usage: tests/nvidia/run-toolkit-lifecycle-test.sh HOOK SHIM [SUITE]     SUITE: v2.2 | v2.3 (default)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
# shellcheck source=../engine/containerd-suite.sh
. "$ENGINE_DIR/containerd-suite.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
SHIM=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
SUITE=${3:-v2.3}
PY=/usr/bin/python3
TALLY_NAME="NVIDIA's toolkit container lifecycle beside install ($SUITE)"
cleanup() {
    : >"$TMP/ctd-stop"
    stop_pidfile "$TMP/run-nvidia/toolkit.pid"
    [ -f "$TMP/installer-group.pid" ] && kill -TERM -- -"$(cat "$TMP/installer-group.pid")" 2>/dev/null
    stop_pidfile "$TMP/supervisor.pid"
    engine_cleanup "gnh-tl-$RUNID"
}
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox "$PY"
    "$PY" -c 'import grpc, grpc_tools' 2>/dev/null || { skip "all cases" "python3-grpcio / python3-grpc-tools missing"; finish; }
    [ -x "$HOOK" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK or $SHIM missing"; finish; }
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    rc=0; NV=$("$REPO/tests/nri/fetch-nvidia-installer.sh") || rc=$?
    if [ "$rc" = 77 ]; then skip "every case: NOT RUN" "NVIDIA's nvidia-ctk-installer is not here (see the line above)"; finish
    elif [ "$rc" != 0 ]; then fail "fetch NVIDIA's installer" "tests/nri/fetch-nvidia-installer.sh failed (exit $rc)"; finish; fi
    echo "$NV" >"$TMP/nvidia-parts"
    make_rootfs
    make_driver online0 0 online
    # the shim and its hook where install names them
    write_config lifecycle "[runtime]" "hook = \"$HOOK\""
    rerun_in_ns lifecycle "/run/containerd /run/gpu-numa-hook /var/run/cdi /etc/cdi /run/nvidia" \
        "$SCRIPT_DIR/run-toolkit-lifecycle-test.sh" "$HOOK" "$SHIM" "$SUITE"
fi
tmpfs_over gnh-tl /run/containerd /run/gpu-numa-hook /var/run/cdi /etc/cdi /run/nvidia

# ---------------------------------------------------------------- inside the namespace
T0=$(date +%s)
CTD_ROOT=$(cat "$TMP/ctd-root")
bind_containerd "$CTD_ROOT" || { fail "containerd $SUITE" "cannot bind $CTD_ROOT"; finish; }
check_containerd_release "$SUITE"
{ read -r INSTALLER; read -r ARTIFACTS; } <"$TMP/nvidia-parts"
LOG=$TMP/logs/lifecycle.log
NVLOG=$TMP/installer.log
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
CFG=$CTD/config.toml
TK=$TMP/usr/local/nvidia
CGP=/gnh-tl-$RUNID
mkdir -p "$CTD" "$TMP/dev" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/gen" "$TMP/bin" "$TMP/rec" "$TMP/run-nvidia" \
    /run/nvidia/driver
mknod -m 666 "$TMP/dev/nvidia0" c 195 0
: >"$NVLOG"
install -m 755 "$SHIM" "$TMP/bin/gpu-numa-runtime"
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$SOCK" "$@"; }
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }
IMG=docker.io/gnh/busybox:tl-$RUNID
# containerd's config as `containerd config default` leaves it on a 2.x node (every default spelled
# out; version 3 on 2.2, version 4 with imports = ['/etc/containerd/conf.d/*.toml'] on 2.3), with
# this test's root, sockets, image and runc: the version 2 config of the other suites, migrated and
# dumped by the containerd under test. Its conf.d is $CTD/conf.d, beside the file, as on the node.
{ containerd_base_config; containerd_cri_config "$IMG" "$TMP/cni/bin" "$TMP/cni/conf"; } >"$CTD/v2.toml"
containerd --config "$CTD/v2.toml" config dump 2>"$TMP/dump.err" | sed "s|'/etc/containerd/conf.d/\*.toml'|'$CTD/conf.d/*.toml'|" >"$CFG" &&
    grep -q '^version = [34]$' "$CFG" || { fail "containerd config dump" "$(one_line <"$TMP/dump.err")"; finish; }
grep '^imports' "$CFG"
# `containerd` as the installer runs it for its config source (`containerd config dump` on the
# host): this containerd with this config.
printf '#!/bin/sh\nexec containerd --config %s "$@"\n' "$CFG" >"$TMP/bin/containerd-here"
chmod 755 "$TMP/bin/containerd-here"
dump() { containerd --config "$CFG" config dump 2>&1; }
# default_runtime: what containerd's merged config makes the default

# containerd under a supervisor, as systemd's Restart=always runs it: every exit is counted in
# $TMP/ctd-exits, then it starts again until $TMP/ctd-stop exists.
: >"$TMP/ctd-exits"
(
    while [ ! -e "$TMP/ctd-stop" ]; do
        containerd --config "$CFG" >>"$TMP/containerd.log" 2>&1 &
        echo $! >"$TMP/containerd.pid"
        wait $!
        echo "containerd exited $?" >>"$TMP/ctd-exits"
    done
) &
echo $! >"$TMP/supervisor.pid"
# up N: containerd's CRI answers after N exits (the supervisor's N+1-th start)
up() {
    local _
    wait_for "$TMP/ctd-exits" "exited" "$1" || return 1
    for _ in $(seq 1 300); do cri version >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}
exits() { grep -c exited "$TMP/ctd-exits"; }
# restart: containerd restarted as `systemctl restart containerd` does (TERM, started again)
restart() {
    local n pid _
    n=$(exits) pid=$(cat "$TMP/containerd.pid")
    if kill "$pid" 2>/dev/null; then
        up $((n + 1)) || { fail "containerd restarts" "$(tail -3 "$TMP/containerd.log" | one_line)"; finish; }
        return
    fi
    # it had just exited (a SIGHUP): its supervisor starts it again, with the config as it is now
    for _ in $(seq 1 600); do [ "$(cat "$TMP/containerd.pid")" != "$pid" ] && break; sleep 0.1; done
    up "$n" || { fail "containerd restarts" "$(tail -3 "$TMP/containerd.log" | one_line)"; finish; }
}
up 0 || { fail "containerd $SUITE up" "$(grep -i -E 'error|fatal' "$TMP/containerd.log" | tail -3 | one_line)"; finish; }
"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
    OUT=$(ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$TMP/image.tar" 2>&1) ||
    { fail "image import" "$(echo "$OUT" | one_line)"; finish; }

# installer_start: NVIDIA's toolkit container's entrypoint, as the operator runs it (non-NRI mode,
# restart by signal, `nvidia` set as the default), every path private; on until it waits for its
# signal. It finds containerd's pid from the credentials of the first bytes containerd sends on its
# socket, but asks for credentials (SO_PASSCRED) only after connecting: when containerd's first
# frame was queued before that, they carry pid 0, and its kill(0, SIGHUP) hits its own process
# group instead of containerd (here about one signal in ten). So it runs in a process group of its
# own with a sentinel that notes each SIGHUP the group gets ($TMP/group-hups): every signal it sends
# is seen, by containerd's exit or by the sentinel. Killed by its own signal before it waits, it is
# started again, as kubelet restarts its pod.
: >"$TMP/group-hups"
cat >"$TMP/bin/hup-sentinel" <<'SH'
#!/bin/bash
# notes each SIGHUP its process group gets in the file $1
trap 'echo hup >>"$1"' HUP
while :; do sleep 3600 & wait $!; done
SH
chmod 755 "$TMP/bin/hup-sentinel"
# end_group: the last installer's process group, sentinel included, gone
end_group() {
    [ -f "$TMP/installer-group.pid" ] && kill -TERM -- -"$(cat "$TMP/installer-group.pid")" 2>/dev/null
    rm -f "$TMP/installer-group.pid"
}
installer_start() {
    local n pid
    CTD_PID=$(cat "$TMP/containerd.pid") CTD_EXITS=$(exits) HUPS=$(grep -c hup "$TMP/group-hups")
    n=$(grep -c "Waiting for signal" "$NVLOG")
    PHASES=$(grep -c "Completed 'setup'" "$NVLOG") CLEANS=$(grep -c "Completed 'cleanup'" "$NVLOG")
    end_group
    setsid bash -c '"$1" "$2" & shift 2; exec "$@"' group "$TMP/bin/hup-sentinel" "$TMP/group-hups" \
        env -i PATH="$PATH" HOME=/root "$INSTALLER" \
        --runtime containerd --config "$CFG" --drop-in-config "$CTD/conf.d/99-nvidia.toml" --socket "$SOCK" \
        --restart-mode signal --host-root / --executable-path "$TMP/bin/containerd-here" \
        --toolkit-install-dir "$TK" --toolkit-source-root "$ARTIFACTS" --driver-root /run/nvidia/driver \
        --pid-file "$TMP/run-nvidia/toolkit.pid" >>"$NVLOG" 2>&1 &
    pid=$!
    echo "$pid" >"$TMP/installer-group.pid"
    for _ in $(seq 1 600); do
        [ "$(grep -c "Waiting for signal" "$NVLOG")" -gt "$n" ] && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! kill -0 "$pid" 2>/dev/null && [ "$(grep -c hup "$TMP/group-hups")" -gt "$HUPS" ]; then
        echo "NOTE: NVIDIA's installer sent its setup SIGHUP to its own process group (pid 0) and died of it before it waited: started again, as kubelet restarts its pod"
        restart
        installer_start
        return
    fi
    fail "the installer starts" "$(tail -5 "$NVLOG" | one_line)"; finish
}
# signalled STEP PHASE: where the SIGHUP the installer's PHASE sent went. To containerd: it died of
# it and its supervisor started it again. To the installer's own group (pid 0): containerd runs on
# with its old config, so the test restarts it, as the node's next restart would, and says so. A
# SIGHUP is also the installer's own end (as its pod's end: it cleans up, then exits): after a setup
# it ends, and the test starts it again, as kubelet restarts its pod, and waits for that setup. The
# group is looked at first: that cleanup's own SIGHUP may reach containerd too.
signalled() {
    local _ pid
    for _ in $(seq 1 600); do
        [ "$(grep -c hup "$TMP/group-hups")" -gt "$HUPS" ] && break
        if [ "$(exits)" -gt "$CTD_EXITS" ]; then
            up $((CTD_EXITS + 1)) ||
                { fail "$1: the installer's SIGHUP restarts containerd" "exits: $(one_line <"$TMP/ctd-exits"); $(tail -3 "$TMP/containerd.log" | one_line)"; finish; }
            # the sentinel, signalled before the installer could even start its cleanup, has noted
            # a SIGHUP to the group by the time containerd answers again
            [ "$(grep -c hup "$TMP/group-hups")" -gt "$HUPS" ] && break
            grep -q "exited 129" <(tail -1 "$TMP/ctd-exits") && return 0
            fail "$1: the installer's SIGHUP restarts containerd" "exits: $(one_line <"$TMP/ctd-exits"); $(tail -3 "$TMP/containerd.log" | one_line)"; finish
        fi
        sleep 0.1
    done
    [ "$(grep -c hup "$TMP/group-hups")" -gt "$HUPS" ] ||
        { fail "$1: the installer's $2 SIGHUP" "neither containerd ($CTD_PID) nor the installer's group got it: $(tail -3 "$NVLOG" | one_line)"; finish; }
    if [ "$2" = setup ]; then
        AGAIN=$((${AGAIN:-0} + 1))
        [ "$AGAIN" -le 5 ] || { fail "$1: the installer's setup SIGHUP" "went to its own group 5 times in a row"; finish; }
        echo "NOTE: $1: NVIDIA's installer sent its setup SIGHUP to its own process group (pid 0), not to containerd ($CTD_PID), and ended on it: containerd restarted and the installer started again by the test"
        pid=$(cat "$TMP/installer-group.pid")
        for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && { fail "$1: the installer ends on its own SIGHUP" "$(tail -3 "$NVLOG" | one_line)"; finish; }
        # its cleanup, if it ran, sent a SIGHUP of its own: landed (on containerd or the group) first
        if [ "$(grep -c "Completed 'cleanup'" "$NVLOG")" -gt "$CLEANS" ]; then
            for _ in $(seq 1 600); do
                [ "$(exits)" -gt "$CTD_EXITS" ] || [ "$(grep -c hup "$TMP/group-hups")" -gt $((HUPS + 1)) ] && break
                sleep 0.1
            done
        fi
        restart
        installer_start
        installer_restarted "$1" setup
        return 0
    fi
    echo "NOTE: $1: NVIDIA's installer sent its $2 SIGHUP to its own process group (pid 0), not to containerd ($CTD_PID): containerd restarted by the test"
    restart
}
# dump_says STEP DEFAULT NVIDIA GPU_NUMA: containerd's merged config (config dump): its default
# runtime, whether NVIDIA's runtime (the installer's wrapper) and ours are runtimes (yes|no)
dump_says() {
    local d got nv ours
    d=$(dump)
    got=$(sed -n "s/^ *default_runtime_name = [\"']\(.*\)[\"']$/\1/p" <<<"$d" | head -1)
    grep -q "BinaryName = [\"']$TK/toolkit/nvidia-container-runtime[\"']" <<<"$d" && nv=yes || nv=no
    grep -q "BinaryName = [\"']$TMP/bin/gpu-numa-runtime[\"']" <<<"$d" && ours=yes || ours=no
    if [ "$got" = "$2" ] && [ "$nv" = "$3" ] && [ "$ours" = "$4" ]; then
        pass "$1: containerd config dump: default runtime '$got', NVIDIA's runtime $nv, gpu-numa $ours"
    else fail "$1: containerd config dump" "default '$got' (want '$2'), NVIDIA's runtime $nv (want $3), gpu-numa $ours (want $4)"; fi
}
# installer_restarted STEP PHASE: the installer's PHASE (setup after installer_start, cleanup after
# installer_stop) completed and containerd restarted
installer_restarted() {
    wait_for "$NVLOG" "Completed '$2' for nvidia-ctk-installer" $((PHASES + 1)) ||
        { fail "$1: the installer's $2" "$(tail -3 "$NVLOG" | one_line)"; finish; }
    signalled "$1" "$2"
}
# installer_stop: SIGTERM, as kubelet ends its pod; it cleans up, signals containerd and exits
installer_stop() {
    CTD_PID=$(cat "$TMP/containerd.pid") CTD_EXITS=$(exits) PHASES=$(grep -c "Completed 'cleanup'" "$NVLOG")
    HUPS=$(grep -c hup "$TMP/group-hups")
    kill "$(cat "$TMP/run-nvidia/toolkit.pid")"
}
ENGINE=containerd
# shellcheck source=../engine/lifecycle-checks.sh
. "$ENGINE_DIR/lifecycle-checks.sh"
ours() { "$HOOK" install --runtime containerd --runtime-path "$TMP/bin/gpu-numa-runtime" --runtime-config "$CFG" "$@" 2>&1; }
DUMP0=$(dump)

# 1. ours first: gpu-numa the default, runc after the shim
S="1. install before NVIDIA's toolkit"
OUT=$(ours --set-default) || { fail "$S: install --runtime containerd --set-default" "$(echo "$OUT" | one_line)"; finish; }
restart
dump_says "$S" gpu-numa no yes
status_says "$S" 0 "^gpu-numa-hook status: protected" "containerd: runtime gpu-numa, the default," "next runtime .*/runc: ok"
hooked before "$S"

# 2. the installer: its drop-in names `nvidia` the default, ours (99-zz) is read after it; it
# takes containerd's default runtime's binary, our shim, as NVIDIA's runtime's own runtime
S="2. NVIDIA's toolkit container starts"
installer_start
installer_restarted "$S" setup
dump_says "$S" gpu-numa yes yes
NVCFG=$TK/toolkit/.config/nvidia-container-runtime/config.toml
if grep -q "^ *runtimes = \[\"$TMP/bin/gpu-numa-runtime\", \"runc\", \"crun\"\]" "$NVCFG" && grep -q "exec $TMP/bin/gpu-numa-runtime " "$TK/toolkit/nvidia-container-runtime"; then
    pass "$S: the installer made gpu-numa-runtime NVIDIA's runtime's own runtime: $(grep '^ *runtimes' "$NVCFG" | sed 's/^ *//')"
else fail "$S: NVIDIA's low-level runtime" "$(grep '^ *runtimes' "$NVCFG" | one_line)"; fi
status_says "$S" 0 "^gpu-numa-hook status: protected" "containerd: runtime gpu-numa, the default," \
    "^note: containerd: NVIDIA's runtime $TK/toolkit/nvidia-container-runtime \\(.*\\) is not in gpu-numa-runtime's \\[runtime\\] next"
hooked with-nvidia "$S"

# 3. ours again: NVIDIA's runtime next in our chain; it runs the shim back, which passes on to runc
S="3. install again beside NVIDIA's toolkit"
OUT=$(ours --set-default) || { fail "$S: install" "$(echo "$OUT" | one_line)"; finish; }
grep -q "^chain: containerd's runtime '$TK/toolkit/nvidia-container-runtime' is NVIDIA's: gpu-numa-runtime runs it next" <<<"$OUT" &&
    pass "$S: $(grep '^chain:' <<<"$OUT" | cut -c1-150)" || fail "$S: install chains NVIDIA's runtime" "$(echo "$OUT" | one_line)"
restart
dump_says "$S" gpu-numa yes yes
status_says "$S" 0 "^gpu-numa-hook status: protected" "next runtime .*$TK/toolkit/nvidia-container-runtime: ok" \
    "!NVIDIA's runtime .* is not in gpu-numa-runtime's"
hooked ours-again "$S" via-nvidia

# 4. the installer ends: its entries removed, containerd restarted; its folder stays
S="4. NVIDIA's toolkit container ends"
installer_stop
installer_restarted "$S" cleanup
dump_says "$S" gpu-numa no yes
status_says "$S" 0 "^gpu-numa-hook status: protected"
hooked after-nvidia "$S" via-nvidia

# 5. the installer again: its folder deleted and re-created, its entries back
S="5. NVIDIA's toolkit container starts again"
installer_start
installer_restarted "$S" setup
dump_says "$S" gpu-numa yes yes
hooked nvidia-again "$S" via-nvidia

# 6. both undone, ours last: containerd's config as it was; a GPU pod then starts without the hook,
# and status, check and the metrics name it
S="6. NVIDIA's toolkit container ends, then install --uninstall"
installer_stop
installer_restarted "$S" cleanup
OUT=$(ours --uninstall) || fail "$S: install --uninstall" "$(echo "$OUT" | one_line)"
restart
[ "$(dump)" = "$DUMP0" ] && pass "$S: containerd config dump as before either was installed" ||
    fail "$S: config dump as before" "$(diff <(echo "$DUMP0") <(dump) | head -20 | one_line)"
unhooked_is_named "$S"

# 7. the installer first this time (NVIDIA's runtime the default, runc its own runtime), then ours
S="7. NVIDIA's toolkit container, then install"
installer_start
installer_restarted "$S" setup
dump_says "$S" nvidia yes no
OUT=$(ours --set-default) || { fail "$S: install" "$(echo "$OUT" | one_line)"; finish; }
restart
dump_says "$S" gpu-numa yes yes
status_says "$S" 1 "containerd: runtime gpu-numa, the default," "next runtime .*$TK/toolkit/nvidia-container-runtime: ok" "^not protected: .*$UNHOOKED"
hooked installer-first "$S"

all_accounted
echo "wall time inside the namespace: $(($(date +%s) - T0)) s"
finish
