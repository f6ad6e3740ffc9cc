# Shared by the shim and engine tests (sourced). The approach of tests/runtime/run-runtime-tests.sh:
# real runtimes and real cgroups; only the NVIDIA driver is faked, by a tmpfs over /proc/driver in
# a private mount namespace. Here that namespace also overlays /etc (writes land in the temp dir),
# so /etc/gpu-numa-hook/config.toml, which the shim and the hook read by default, is the test's:
# the production binaries read their production paths. The host's /etc is never touched.
# Needs before sourcing: nothing. Sets TMP, RUNID, GPU_BUS; defines pass/fail/skip/finish.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/tally.sh
. "$(dirname "${BASH_SOURCE[0]}")/../support/tally.sh"
need_tools() { # TOOL...: skip (FAIL under CI) the whole suite when one is missing
    local t
    if [ "$(id -u)" != 0 ]; then skip "all cases" "not root"; finish; fi
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || { skip "all cases" "required tool '$t' is missing (tests/run-all.sh installs it)"; finish; }
    done
}
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# GNH_TMP: a script run inside in_ns reuses its caller's temp dir (the caller cleans up).
TMP=${GNH_TMP:-$(mktemp -d /tmp/gnh-eng.XXXXXX)}
chmod 755 "$TMP"
RUNID=$(basename "$TMP" | sed 's/^gnh-eng\.//' | tr 'A-Z' 'a-z')
mkdir -p "$TMP"/{rootfs/bin,rootfs/proc,rootfs/dev,rootfs/sys,rootfs/etc,rootfs/tmp,drivers,cfg,logs,bundles,state,out}

stop_pidfile() { # FILE: TERM, wait up to 15 s, then KILL
    local pid i
    pid=$(cat "$1" 2>/dev/null) || return 0
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null
    for i in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
}
# engine_cleanup CGROUP...: what an engine suite's EXIT trap undoes: dockerd, containerd's runc shims
# of this run (their command line names our socket) and containerd, each by pid; the named cgroups
# in every hierarchy; the mounts under $TMP; $TMP itself (kept with GNH_RT_KEEP=1).
engine_cleanup() {
    local p d n
    stop_pidfile "$TMP/dockerd.pid"
    for p in $(pgrep -f "containerd-shim-runc-v2 .*$TMP/ctd" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    stop_pidfile "$TMP/containerd.pid"
    # A container outlives its killed shim: whatever still runs in this run's cgroups is ours (their
    # names carry the run's id), killed before the cgroups can go; bounded wait for them to exit.
    for n in "$@"; do
        for p in $(cat /sys/fs/cgroup/*/"$n"/cgroup.procs /sys/fs/cgroup/*/"$n"/*/cgroup.procs \
                       /sys/fs/cgroup/*/"$n"/*/*/cgroup.procs 2>/dev/null | sort -u); do
            kill -9 "$p" 2>/dev/null
        done
    done
    for n in "$@"; do
        for d in /sys/fs/cgroup/*/"$n"; do
            [ -d "$d" ] || continue
            for _ in $(seq 1 50); do
                find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
                [ -d "$d" ] || break
                sleep 0.1
            done
        done
    done
    grep -o " ${TMP}[^ ]*" /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    [ "${GNH_RT_KEEP:-}" = 1 ] && echo "kept $TMP" >&2 || rm -rf --one-file-system "$TMP" 2>/dev/null
}

# containerd_base_config: the start of a test containerd's config.toml: its own root, state and
# sockets under $CTD ($SOCK), nothing else; the suite appends its plugins.
containerd_base_config() {
    cat <<TOML
version = 2
root = "$CTD/root"
state = "$CTD/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
TOML
}
# containerd_cri_config SANDBOX_IMAGE CNI_BIN_DIR CNI_CONF_DIR [RUNC_BINARY]: the CRI plugin's
# table for a test containerd: our sandbox ("pause") image, images on the native snapshotter, runc
# the default runtime with the cgroupfs driver (PID 1 here is not systemd), RUNC_BINARY in its
# place when given (the recorder).
containerd_cri_config() {
    cat <<TOML
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$1"
  disable_apparmor = true
  # kubelet's sandboxes ask for oom_score_adj -998; lowering it needs CAP_SYS_RESOURCE, which this
  # test's host may not give root: keep it at containerd's own value or above.
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$2"
    conf_dir = "$3"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
TOML
    [ -n "${4:-}" ] && printf '        BinaryName = "%s"\n' "$4"
    return 0
}
# wait_for FILE PATTERN [COUNT]: until FILE has COUNT lines matching the ERE PATTERN (default 1),
# polled every 0.1 s, 60 s at most: the test goes on as soon as the program has said it.
wait_for() {
    local i
    for i in $(seq 1 600); do
        [ "$(grep -c -E -- "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
        sleep 0.1
    done
    return 1
}
# config_of ID: the config.json the runc recorder (make_runc_recorder, into $TMP/rec) kept for
# container ID.
config_of() {
    local a
    for a in "$TMP"/rec/*.argv; do
        [ -f "${a%.argv}.config.json" ] && [ "$(tail -n1 "$a")" = "$1" ] && { echo "${a%.argv}.config.json"; return; }
    done
}
# start_containerd: that containerd in the background, its pid in $TMP/containerd.pid (engine_cleanup
# stops it), its log in $TMP/containerd.log.
start_containerd() {
    containerd --config "$CTD/config.toml" >"$TMP/containerd.log" 2>&1 &
    echo $! >"$TMP/containerd.pid"
}

# rerun_in_ns CFG "DIR..." SCRIPT ARG...: the suite SCRIPT again inside in_ns (driver online0,
# config CFG), reusing $TMP; each host DIR the engines write beyond their own roots gets a mount
# point here when missing (removed afterwards) and, inside, a tmpfs (tmpfs_over). Exits with its status.
rerun_in_ns() {
    local cfg=$1 dirs=$2 d rc
    shift 2
    for d in $dirs; do
        [ -e "$d" ] || { mkdir -p "$d" && echo "$d" >>"$TMP/created-dirs"; }
    done
    GNH_TMP=$TMP in_ns online0 "$cfg" /bin/bash "$@"
    rc=$?
    [ -f "$TMP/created-dirs" ] && while read -r d; do rmdir "$d" 2>/dev/null; done <"$TMP/created-dirs"
    exit $rc
}
# tmpfs_over NAME DIR...: inside the namespace, a private tmpfs over each DIR.
tmpfs_over() {
    local name=$1 d
    shift
    for d in "$@"; do mount -t tmpfs -o mode=0711 "$name" "$d" || { fail "setup" "cannot mount a tmpfs over $d"; finish; }; done
}

make_rootfs() {
    local bb
    bb=$(command -v busybox)
    cp "$bb" "$TMP/rootfs/bin/busybox"
    for a in sh cat grep ls echo sleep true test; do ln -sf busybox "$TMP/rootfs/bin/$a"; done
}

# The fake GPU: a real 580.159.04 information file at a PCI address this host does not have.
GPU_BUS=""
for b in 0000:00:06.0 0000:00:07.0 0000:fe:1f.7; do [ -e "/sys/bus/pci/devices/$b" ] || { GPU_BUS=$b; break; }; done
make_driver() { # NAME [NODE STATUS]
    local d="$TMP/drivers/$1/nvidia/gpus/$GPU_BUS"
    mkdir -p "$d"
    printf 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-f0586c67-b718-ef40-6571-4caeff0ab99c\nVideo BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t 0\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n' "$GPU_BUS" >"$d/information"
    [ $# -ge 3 ] && printf 'Node:      %s\nStatus:    %s\n' "$2" "$3" >"$d/numa_status"
}

# write_nvidia_cdi_spec FILE DEVDIR: the fake GPU's CDI spec in nvidia-ctk cdi generate's layout,
# cut to what runc needs: GPU 0's node, the control and modeset nodes every device shares (host
# paths: DEVDIR/nvidia0, nvidiactl, nvidia-modeset), and NVIDIA_VISIBLE_DEVICES=void. The driver
# libraries' mounts and the nvidia-cdi-hook entries need the real driver.
write_nvidia_cdi_spec() {
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<JSON
{"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu",
 "devices": [{"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0", "hostPath": "$2/nvidia0"}]}}],
 "containerEdits": {"env": ["NVIDIA_VISIBLE_DEVICES=void"],
                    "deviceNodes": [{"path": "/dev/nvidiactl", "hostPath": "$2/nvidiactl"},
                                    {"path": "/dev/nvidia-modeset", "hostPath": "$2/nvidia-modeset"}]}}
JSON
}

# start_nvidia_nri_plugin INSTALLER RUNTIME ARTIFACTS: NVIDIA's NRI plugin (nvidia-ctk-installer
# --enable-nri-plugin, the GPU operator's NRI mode) as its README-installer.md runs it, at index
# 10 on $NRI_SOCK: its toolkit installed from ARTIFACTS under $TMP/nvidia, nothing of the host's
# configured (in NRI mode its RUNTIME configurer does nothing). In the background, its log
# appended to $NVLOG, its pid in $TMP/nvidia.pid; the caller waits for its registration.
start_nvidia_nri_plugin() {
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$1" --debug \
        --enable-nri-plugin --nri-socket "$NRI_SOCK" --nri-plugin-index 10 --nri-namespace gpu-operator \
        --runtime "$2" --no-runtime-config --cdi-enabled=false \
        --toolkit-install-dir "$TMP/nvidia/install" --toolkit-source-root "$3" \
        --pid-file "$TMP/nvidia/run/toolkit.pid" >>"$NVLOG" 2>&1 &
    echo $! >"$TMP/nvidia.pid"
}

# write_config NAME TOML...: $TMP/cfg/NAME.toml, logging to $TMP/logs/NAME.log
write_config() {
    local name=$1 extra
    shift
    { printf '[log]\nfile = "%s"\n\n[lock]\npath = "%s/hook.lock"\n\n' "$TMP/logs/$name.log" "$TMP"
      for extra in "$@"; do printf '%s\n' "$extra"; done; } >"$TMP/cfg/$name.toml"
    : >"$TMP/logs/$name.log"
}

# in_ns DRIVER CONFIGNAME CMD...: CMD in a private mount namespace with the fake driver over
# /proc/driver and /etc overlaid, holding $TMP/cfg/CONFIGNAME.toml as /etc/gpu-numa-hook/config.toml.
in_ns() {
    local v=$1 cfg=$2
    shift 2
    rm -rf "$TMP/etc-ovl"; mkdir -p "$TMP/etc-ovl/upper" "$TMP/etc-ovl/work"
    unshare -m --propagation private -- /bin/bash -c '
        mount -t tmpfs -o size=1m,mode=0555 gnh-fake-driver /proc/driver || exit 97
        cp -a "$1/." /proc/driver/ || exit 97
        mount -t overlay gnh-etc -o "lowerdir=/etc,upperdir=$2/upper,workdir=$2/work" /etc || exit 97
        mkdir -p /etc/gpu-numa-hook && cp "$3" /etc/gpu-numa-hook/config.toml || exit 97
        shift 3
        exec "$@"' gnh-ns "$TMP/drivers/$v" "$TMP/etc-ovl" "$TMP/cfg/$cfg.toml" "$@"
}

cpuset_mount() {
    awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup" && $(i+3) ~ /(^|,)cpuset(,|$)/) print $5; break } }' /proc/self/mountinfo | head -n1
}

# make_runc_recorder BIN RECDIR: BIN runs tests/engine/runc_recorder.py, which records each runc
# call (argv, a create's config.json, an update's resources) in RECDIR, then execs the real runc.
make_runc_recorder() {
    printf '#!/bin/sh\nexec %s %s %s "$@"\n' "$PY" "$(dirname "${BASH_SOURCE[0]}")/runc_recorder.py" "$2" >"$1"
    chmod 755 "$1"
}
# make_nvidia_cli_recorder BIN LOG: BIN stands in for NVIDIA's nvidia-container-cli, the one part of
# its legacy stack that needs the driver: it appends its arguments to LOG and exits 0.
make_nvidia_cli_recorder() {
    printf '#!/bin/sh\necho "$@" >>"%s"\n' "$2" >"$1" && chmod 755 "$1"
}
# nvidia_runtime_as_loaded WRAPPER BIN: the runtime wrapper NVIDIA's installer wrote (WRAPPER) as BIN,
# with its test for the nvidia module cut (its lines from `cat /proc/modules` to `fi`): it runs plain
# runc unless /proc/modules lists nvidia, and the kernels here have no /proc/modules. The rest is
# the installer's.
nvidia_runtime_as_loaded() {
    sed '/^cat \/proc\/modules/,/^fi$/d' "$1" >"$2" && chmod 755 "$2" &&
        grep -q '^NVIDIA_CTK_CONFIG_FILE_PATH=' "$2" && ! grep -q 'proc/modules' "$2"
}
