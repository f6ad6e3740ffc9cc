#!/bin/bash
# Real dockerd (20.10) and a real containerd with gpu-numa-runtime registered by `gpu-numa-hook
# install`: started by this test (no systemd), in a private mount namespace holding the fake driver
# and an /etc overlay (lib.sh), with their own sockets, state and data under a temp dir
# (--iptables=false --bridge=none --storage-driver=vfs), stopped by pid.
# The Docker CLI is Debian's /usr/bin/docker (20.10, matching the daemon; /usr/local/bin/docker,
# a newer static CLI, may shadow it in PATH), talking to our daemon through DOCKER_HOST.
# The containerd is SUITE's (tests/engine/containerd-suite.sh): bookworm = Debian 12's 1.6, trixie =
# 1.7.24, sid = 2.1.9 (the last two fetched by tests/nri/fetch-containerd.sh, bound over /usr/bin in
# the namespace).
# Usage: tests/engine/run-engine-tests.sh [HOOK] [RUNTIME] [SUITE]
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
. "$SCRIPT_DIR/lib.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
SHIM=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
SUITE=${3:-bookworm}
TALLY_NAME="engine ($SUITE)"
. "$SCRIPT_DIR/containerd-suite.sh"
cleanup() { engine_cleanup "gnh-eng-$RUNID" "gnh-ctd-$RUNID"; }
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools dockerd containerd ctr runc jq unshare busybox python3
    [ -x /usr/bin/docker ] || { skip "all cases" "Debian's docker CLI /usr/bin/docker is missing (apt-get install docker.io)"; finish; }
    [ -x "$HOOK" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK or $SHIM missing"; finish; }
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    make_rootfs
    make_driver online0 0 online
    write_config engine "[runtime]" "hook = \"$HOOK\"" 'next = ["runc"]'
    # Host directories the engines write beyond their --root/--data-root (containerd's shim sockets
    # and runc root under /run/containerd, ctr's fifos, dockerd's /run/docker, containerd's
    # /opt/containerd): a tmpfs over each inside the namespace; the mount points we had to create
    # are removed afterwards.
    rerun_in_ns engine "/run/containerd /run/docker /opt/containerd" "$SCRIPT_DIR/run-engine-tests.sh" "$HOOK" "$SHIM" "$SUITE"
fi
tmpfs_over gnh-engine /run/containerd /run/docker /opt/containerd
bind_containerd "$(cat "$TMP/ctd-root")" || { fail "containerd $SUITE" "cannot bind the fetched containerd over /usr/bin"; finish; }
check_containerd_release "$SUITE"
Q="[\"']"   # config dump quotes values with " (1.x) or ' (2.x)

# ---------------------------------------------------------------- inside the namespace
DOCKER=/usr/bin/docker
LOG=$TMP/logs/engine.log
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
mkdir -p "$CTD" "$TMP/dev" "$TMP/docker"
mknod "$TMP/dev/nvidia0" c 195 0   # a host path for docker --device (never opened)
set_status() { printf 'Node:      0\nStatus:    %s\n' "$1" >"/proc/driver/nvidia/gpus/$GPU_BUS/numa_status"; }

# containerd: its own root, state and socket; our runtime added by install (CRI plugin config)
containerd_base_config >"$CTD/config.toml"
# containerd 2.x has NRI on by default: off here (its socket would be the host's /var/run/nri)
[ "$CTD_MAJOR" = 2 ] && printf '[plugins."io.containerd.nri.v1.nri"]\n  disable = true\n' >>"$CTD/config.toml"
OUT=$("$HOOK" install --runtime containerd --runtime-config "$CTD/config.toml" --runtime-path "$SHIM" 2>&1); RC=$?
DUMP=$(containerd --config "$CTD/config.toml" config dump 2>&1)
if [ "$RC" = 0 ] && echo "$DUMP" | sed -n '/containerd.runtimes.gpu-numa\]/,/^\[/p' | grep -qE "runtime_type = ${Q}io.containerd.runc.v2$Q" &&
    echo "$DUMP" | grep -A2 'runtimes.gpu-numa.options\]' | grep -qE "BinaryName = $Q$SHIM$Q"; then
    pass "containerd config dump shows the runtime install added (runc.v2, BinaryName = the shim)"
else fail "containerd install + config dump" "rc $RC: $(echo "$OUT" | one_line) dump: $(echo "$DUMP" | grep -A6 gpu-numa | one_line)"; fi

start_containerd
for i in $(seq 1 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { fail "containerd start" "no socket: $(tail -5 "$TMP/containerd.log" | one_line)"; finish; }
# the CRI plugin loads the configuration install wrote (our drop-in, imported by the main file)
CRI=$(ctr -a "$SOCK" plugins ls 2>&1 | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $NF }')
[ "$CRI" = ok ] && echo "$OUT" | grep -qF "strategy: containerd $CTD_RELEASE (" &&
    pass "containerd $CTD_RELEASE started with install's drop-in: its CRI plugin loads (status ok)" ||
    fail "CRI plugin with our drop-in" "status '$CRI': $(grep -i 'cri' "$TMP/containerd.log" | grep -i -m3 'error\|fail' | one_line)"

# ctr run through containerd's runc v2 shim, which calls our shim as its runc binary
CTR="ctr -a $SOCK -n gnh"
id=ctd-gpu-$RUNID
OUT=$(timeout 60 $CTR run --rm --runc-binary "$SHIM" --cgroup "/gnh-ctd-$RUNID/$id" \
      --rootfs "$TMP/rootfs" "$id" /bin/sh -c 'grep Mems_allowed_list /proc/self/status' 2>&1); RC=$?
# a non-GPU container first; GPU containers by a device node (195:0, the CDI form); a CUDA image's
# NVIDIA_VISIBLE_DEVICES alone, with no hook to read it, gives no GPU
line=$(grep "container=$id " "$LOG")
[ "$RC" = 0 ] && echo "$line" | grep -q 'gpu-numa-runtime\[[0-9]*\] container=[^ ]* stage=runtime-create action=allow gpus=- .*fast path' &&
    pass "ctr run --runc-binary gpu-numa-runtime, non-GPU container: passed to runc without the hook, the fast path logged by the shim: $(echo "$OUT" | one_line)" ||
    fail "ctr run --runc-binary" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"
id=ctd-dev-$RUNID
OUT=$(timeout 60 $CTR run --rm --runc-binary "$SHIM" --cgroup "/gnh-ctd-$RUNID/$id" \
      --device "$TMP/dev/nvidia0" --rootfs "$TMP/rootfs" "$id" /bin/sh -c 'grep Mems_allowed_list /proc/self/status' 2>&1); RC=$?
line=$(grep "container=$id " "$LOG")
[ "$RC" = 0 ] && echo "$line" | grep -q "action=allow gpus=/dev/nvidia0($GPU_BUS) required=0" &&
    pass "ctr run --runc-binary: GPU container (device 195:0), node 0 online: allowed and logged" ||
    fail "ctr run GPU container" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"
id=ctd-env-$RUNID
OUT=$(timeout 60 $CTR run --rm --runc-binary "$SHIM" --cgroup "/gnh-ctd-$RUNID/$id" --env NVIDIA_VISIBLE_DEVICES=all \
      --env CUDA_VERSION=12.4.1 --rootfs "$TMP/rootfs" "$id" /bin/sh -c 'echo container-ran' 2>&1); RC=$?
line=$(grep "container=$id " "$LOG")
[ "$RC" = 0 ] && echo "$OUT" | grep -q container-ran &&
    echo "$line" | grep -q 'gpu-numa-runtime\[[0-9]*\] container=[^ ]* stage=runtime-create action=allow gpus=- .*fast path' &&
    pass "ctr run: a CUDA image's NVIDIA_VISIBLE_DEVICES=all with no hook to read it: no GPU, passed to runc without the hook" ||
    fail "ctr run CUDA image without a GPU" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"
set_status online_in_progress
id=ctd-refused-$RUNID
OUT=$(timeout 60 $CTR run --rm --runc-binary "$SHIM" --cgroup "/gnh-ctd-$RUNID/$id" \
      --device "$TMP/dev/nvidia0" --rootfs "$TMP/rootfs" "$id" /bin/sh -c 'echo container-ran' 2>&1); RC=$?
[ "$RC" != 0 ] && echo "$OUT" | grep -qF "gpu-numa-hook: container $id: refusing start" && ! echo "$OUT" | grep -q container-ran &&
    pass "ctr run: GPU memory node not online: refused, ctr shows our line" ||
    fail "ctr run refused" "rc $RC $(echo "$OUT" | one_line)"
set_status online
$CTR containers rm "$id" >/dev/null 2>&1

# dockerd on that containerd, our runtime registered by install
start_dockerd() {
    dockerd --containerd="$SOCK" --config-file "$TMP/daemon.json" --data-root "$TMP/docker/data" \
        --exec-root "$TMP/docker/exec" --pidfile "$TMP/dockerd.pid" -H "unix://$TMP/docker.sock" \
        --iptables=false --ip-masq=false --bridge=none --storage-driver=vfs --cgroup-parent "/gnh-eng-$RUNID" \
        >>"$TMP/dockerd.log" 2>&1 &
    for i in $(seq 1 300); do DOCKER_HOST=unix://$TMP/docker.sock $DOCKER info >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}
echo '{"log-level": "warn"}' >"$TMP/daemon.json"
OUT=$("$HOOK" install --runtime docker --runtime-config "$TMP/daemon.json" --runtime-path "$SHIM" 2>&1) ||
    fail "install --runtime docker" "$(echo "$OUT" | one_line)"
start_dockerd || { fail "dockerd start" "$(tail -5 "$TMP/dockerd.log" | one_line)"; finish; }
export DOCKER_HOST=unix://$TMP/docker.sock
tar -C "$TMP/rootfs" -c . | $DOCKER import - gnh-busybox >/dev/null || { fail "docker import" "image"; finish; }
if $DOCKER info 2>/dev/null | grep -q 'Runtimes:.*gpu-numa'; then pass "docker info lists the gpu-numa runtime"; else fail "docker info" "$($DOCKER info 2>&1 | grep -i runtime | one_line)"; fi

drun() { # NAME [docker run args...]: sets RC, OUT; container name NAME-RUNID
    local n=$1-$RUNID
    shift
    OUT=$(timeout 90 $DOCKER run --rm --name "$n" "$@" 2>&1); RC=$?
    CID=$($DOCKER inspect -f '{{.Id}}' "$n" 2>/dev/null)
}
id_in_log() { grep -E "container=[0-9a-f]{64} " "$LOG" | tail -n1; }
: >"$LOG"
drun gpu --runtime gpu-numa --device "$TMP/dev/nvidia0:/dev/nvidia0" gnh-busybox sh -c 'grep Mems_allowed_list /proc/self/status; test -c /dev/nvidia0 && echo has-nvidia0'
line=$(id_in_log)
[ "$RC" = 0 ] && echo "$OUT" | grep -q has-nvidia0 && echo "$line" | grep -q "action=allow gpus=/dev/nvidia0($GPU_BUS) required=0" &&
    pass "docker run --runtime gpu-numa --device /dev/nvidia0, node 0 online: allowed and logged ($(echo "$OUT" | one_line))" ||
    fail "docker run GPU allowed" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"
: >"$LOG"
set_status offline
drun refused --runtime gpu-numa --device "$TMP/dev/nvidia0:/dev/nvidia0" gnh-busybox sh -c 'echo container-ran'
set_status online
if [ "$RC" != 0 ] && echo "$OUT" | grep -q "gpu-numa-hook: container [0-9a-f]\{64\}: refusing start: GPU /dev/nvidia0 ($GPU_BUS) memory NUMA node 0 is not online yet" &&
    ! echo "$OUT" | grep -q container-ran && grep -q 'action=refuse' "$LOG"; then
    pass "docker run, GPU memory node offline: refused; docker's error shows our line"
    echo "$OUT" >"$TMP/docker-refusal.txt"
else fail "docker run refused" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"; fi
[ -n "${GNH_ENGINE_EVIDENCE:-}" ] && cp "$TMP/docker-refusal.txt" "$GNH_ENGINE_EVIDENCE" 2>/dev/null
# An image requiring a CUDA the driver does not support: driver 535.104.05 (CUDA 12.2), image for 12.4
: >"$LOG"
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Sat Aug 19 01:13:15 UTC 2023\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n' >/proc/driver/nvidia/version
drun cuda --runtime gpu-numa --device "$TMP/dev/nvidia0:/dev/nvidia0" \
    --env 'NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471' gnh-busybox sh -c 'echo container-ran'
if [ "$RC" != 0 ] && echo "$OUT" | grep -qF "refusing start: the image requires cuda>=12.4 (NVIDIA_REQUIRE_CUDA=\"cuda>=12.4 brand=tesla,driver>=470,driver<471\") but driver 535.104.05, CUDA 12.2" &&
    ! echo "$OUT" | grep -q container-ran && grep -q 'action=refuse' "$LOG"; then
    pass "docker run, image requires CUDA 12.4 on driver 535 (CUDA 12.2): refused; docker's error shows our line"
else fail "docker run CUDA requirement refused" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"; fi
: >"$LOG"
drun cudaoff --runtime gpu-numa --device "$TMP/dev/nvidia0:/dev/nvidia0" --env NVIDIA_DISABLE_REQUIRE=true \
    --env 'NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471' gnh-busybox sh -c 'echo container-ran'
[ "$RC" = 0 ] && echo "$OUT" | grep -q container-ran && grep -q 'NVIDIA_DISABLE_REQUIRE is set' "$LOG" &&
    pass "docker run, the same image with NVIDIA_DISABLE_REQUIRE=true: starts, the log says the check was off" ||
    fail "docker run NVIDIA_DISABLE_REQUIRE" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"
rm -f /proc/driver/nvidia/version
: >"$LOG"
drun plain --runtime gpu-numa gnh-busybox sh -c 'echo plain-ran'
[ "$RC" = 0 ] && echo "$OUT" | grep -q plain-ran && id_in_log | grep -q 'gpu-numa-runtime\[[0-9]*\] container=[^ ]* stage=runtime-create action=allow gpus=- .*fast path' &&
    pass "docker run --runtime gpu-numa, non-GPU container: unaffected, passed to runc without the hook (the shim logged the fast path)" ||
    fail "docker run non-GPU" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"

# --set-default: no --runtime on docker run
OUT=$("$HOOK" install --runtime docker --runtime-config "$TMP/daemon.json" --runtime-path "$SHIM" --set-default 2>&1) ||
    fail "install --set-default" "$(echo "$OUT" | one_line)"
stop_pidfile "$TMP/dockerd.pid"
start_dockerd || { fail "dockerd restart" "$(tail -5 "$TMP/dockerd.log" | one_line)"; finish; }
: >"$LOG"
drun default --device "$TMP/dev/nvidia0:/dev/nvidia0" gnh-busybox sh -c 'echo default-ran'
[ "$RC" = 0 ] && echo "$OUT" | grep -q default-ran && id_in_log | grep -q "action=allow gpus=/dev/nvidia0" &&
    pass "install --set-default: docker run without --runtime goes through gpu-numa (hook logged)" ||
    fail "docker --set-default" "rc $RC $(echo "$OUT" | one_line) log: $(one_line <"$LOG")"

# NVIDIA's runtime displaced (issue 19): daemon.json as `nvidia-ctk runtime configure --set-as-default`
# leaves it, with a stand-in nvidia-container-runtime (it logs, then execs runc) found by name in the
# shim's fixed PATH: a tmpfs over /usr/local/sbin, in this namespace only. install --set-default
# must chain the shim to it; uninstall must give nvidia back as the default.
OUT=$("$HOOK" install --runtime docker --runtime-config "$TMP/daemon.json" --runtime-path "$SHIM" --uninstall 2>&1) ||
    fail "uninstall before the NVIDIA case" "$(echo "$OUT" | one_line)"
mount -t tmpfs -o size=1m,mode=0755 gnh-nvidia /usr/local/sbin || { fail "setup" "cannot mount a tmpfs over /usr/local/sbin"; finish; }
NVLOG=$TMP/logs/nvidia-stand-in.log
printf '#!/bin/sh
echo "nvidia-container-runtime stand-in: $*" >>%s
exec runc "$@"
' "$NVLOG" >/usr/local/sbin/nvidia-container-runtime
chmod 755 /usr/local/sbin/nvidia-container-runtime
printf '{\n  "default-runtime": "nvidia",\n  "log-level": "warn",\n  "runtimes": {\n    "nvidia": {\n      "args": [],\n      "path": "nvidia-container-runtime"\n    }\n  }\n}\n' >"$TMP/daemon.json"
cp "$TMP/daemon.json" "$TMP/daemon.nvidia"; cp /etc/gpu-numa-hook/config.toml "$TMP/ours.before"
OUT=$("$HOOK" install --runtime docker --runtime-config "$TMP/daemon.json" --runtime-path "$SHIM" --set-default 2>&1); RC=$?
[ "$RC" = 0 ] && grep -qxF 'next = ["/usr/local/sbin/nvidia-container-runtime", "runc", "crun"]' /etc/gpu-numa-hook/config.toml &&
    echo "$OUT" | grep -qxF "chain: docker's runtime '/usr/local/sbin/nvidia-container-runtime' is NVIDIA's: gpu-numa-runtime runs it next ([runtime] next in /etc/gpu-numa-hook/config.toml)" &&
    [ "$(jq -r '."default-runtime"' "$TMP/daemon.json")" = gpu-numa ] &&
    pass "daemon.json with default-runtime nvidia: install --set-default makes gpu-numa the default; our [runtime] next starts with nvidia's path, made absolute by the shim's PATH lookup" ||
    fail "install over nvidia default" "rc $RC $(echo "$OUT" | one_line) next: $(grep '^next' /etc/gpu-numa-hook/config.toml | one_line)"
stop_pidfile "$TMP/dockerd.pid"
start_dockerd || { fail "dockerd restart" "$(tail -5 "$TMP/dockerd.log" | one_line)"; finish; }
: >"$LOG"; : >"$NVLOG"
drun chained --device "$TMP/dev/nvidia0:/dev/nvidia0" gnh-busybox sh -c 'echo chained-ran'
CID=$(id_in_log | sed 's/.*container=\([0-9a-f]*\) .*/\1/')
[ "$RC" = 0 ] && echo "$OUT" | grep -q chained-ran && id_in_log | grep -q "action=allow gpus=/dev/nvidia0" &&
    grep -q "^nvidia-container-runtime stand-in: .*create .*$CID" "$NVLOG" &&
    pass "docker run (default runtime): gpu-numa-runtime -> NVIDIA's stand-in -> runc; our hook allowed and logged it" ||
    fail "shim -> nvidia -> runc" "rc $RC $(echo "$OUT" | one_line) nvidia log: $(one_line <"$NVLOG") hook log: $(one_line <"$LOG")"
OUT=$("$HOOK" install --runtime docker --runtime-config "$TMP/daemon.json" --runtime-path "$SHIM" --uninstall 2>&1); RC=$?
[ "$RC" = 0 ] && cmp -s "$TMP/daemon.json" "$TMP/daemon.nvidia" && cmp -s /etc/gpu-numa-hook/config.toml "$TMP/ours.before" &&
    [ "$(jq 'has("docker")' /etc/gpu-numa-hook/install-state.json)" = false ] &&
    pass "--uninstall: daemon.json back to default-runtime nvidia byte for byte, our config's next as it was, docker's install state gone" ||
    fail "uninstall nvidia default" "rc $RC $(echo "$OUT" | one_line) $(diff "$TMP/daemon.nvidia" "$TMP/daemon.json" | one_line) $(diff "$TMP/ours.before" /etc/gpu-numa-hook/config.toml | one_line) $(ls /etc/gpu-numa-hook | one_line)"
stop_pidfile "$TMP/dockerd.pid"
start_dockerd || { fail "dockerd restart" "$(tail -5 "$TMP/dockerd.log" | one_line)"; finish; }
: >"$LOG"; : >"$NVLOG"
drun unchained --device "$TMP/dev/nvidia0:/dev/nvidia0" gnh-busybox sh -c 'echo unchained-ran'
[ "$RC" = 0 ] && echo "$OUT" | grep -q unchained-ran && grep -q "^nvidia-container-runtime stand-in: .*create " "$NVLOG" && [ ! -s "$LOG" ] &&
    pass "after --uninstall: docker run goes to NVIDIA's runtime directly again, our hook not in the path" ||
    fail "after uninstall" "rc $RC $(echo "$OUT" | one_line) nvidia log: $(one_line <"$NVLOG") hook log: $(one_line <"$LOG")"

# examples/kubernetes: the image builds offline with this dockerd (FROM scratch), and every command
# of the DaemonSet runs for real in it, with its securityContext (read-only root, no capability, no
# privilege escalation) and its hostPath mounts pointed at a fake host directory.
K8S=$REPO/examples/kubernetes
PY=""
for p in /usr/bin/python3 python3; do "$p" -c 'import yaml' 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || fail "examples/kubernetes YAML" "no python3 with PyYAML (apt-get install python3-yaml)"
CMDS=$(${PY:-false} "$K8S/commands.py" 2>&1) || fail "examples/kubernetes YAML parses" "$(echo "$CMDS" | one_line)"
sh "$K8S/build-context.sh" "$TMP/k8s-ctx" "$HOOK" "$SHIM" &&
    OUT=$($DOCKER build -q -t gnh-k8s:test -f "$K8S/Containerfile" "$TMP/k8s-ctx" 2>&1) &&
    pass "examples/kubernetes/Containerfile builds offline (FROM scratch)" || fail "docker build Containerfile" "$(echo "$OUT" | one_line)"
H=$TMP/k8s-host
mkdir -p "$H/opt/gpu-numa-hook/bin" "$H/etc/gpu-numa-hook" "$H/textfile"
# The host's containerd files as nvidia-ctk >= 1.18 / the GPU operator lay them out: the main file
# imports an absolute conf.d glob, NVIDIA's drop-in holds the CRI table with nvidia the default.
# They live in this namespace's /etc overlay (the host's /etc is untouched), so that the absolute
# import resolves for `containerd config dump` here and beneath /host in the pod.
rm -rf /etc/containerd && mkdir -p /etc/containerd/conf.d
printf 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n' >/etc/containerd/config.toml
cat >/etc/containerd/conf.d/99-nvidia.toml <<'TOML'
version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "nvidia"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = true
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
    BinaryName = "/usr/bin/nvidia-container-runtime"
    SystemdCgroup = true
TOML
k8s_cmd() { # NAME: the DaemonSet container NAME's command, one argument a line
    echo "$CMDS" | ${PY:-python3} -c 'import json,sys
for l in sys.stdin:
    c = json.loads(l)
    if c["name"] == sys.argv[1]: print("\0".join(c["command"]))' "$1" | tr '\0' '\n'
}
k8s_run_argv() { # [docker run args] -- ARGV...: ARGV in the image as the DaemonSet runs it
    local a=()
    while [ "$1" != -- ]; do a+=("$1"); shift; done
    shift
    $DOCKER run --read-only --cap-drop ALL --security-opt no-new-privileges -u 0:0 --network none \
        -v "$H/opt/gpu-numa-hook/bin:/host/opt/gpu-numa-hook/bin" -v "$H/etc/gpu-numa-hook:/host/etc/gpu-numa-hook" \
        -v "/etc/containerd:/host/etc/containerd" -v "$H/textfile:/textfile" \
        "${a[@]}" --entrypoint "$1" gnh-k8s:test "${@:2}" 2>&1
}
k8s_run() { # NAME [docker run args]: the DaemonSet container NAME's command in the image
    local name=$1 cmd
    shift
    cmd=$(k8s_cmd "$name")
    [ -n "$cmd" ] || { echo "no container $name in the DaemonSet"; return 1; }
    mapfile -t argv <<<"$cmd"
    k8s_run_argv "$@" -- "${argv[@]}"
}
OUT=$(k8s_run install-files --rm); RC=$?
[ "$RC" = 0 ] && cmp -s "$H/opt/gpu-numa-hook/bin/gpu-numa-hook" "$HOOK" && cmp -s "$H/opt/gpu-numa-hook/bin/gpu-numa-runtime" "$SHIM" && cmp -s "$H/etc/gpu-numa-hook/config.toml" "$REPO/config/config.toml" &&
    pass "DaemonSet install-files: binaries land in the host's /opt/gpu-numa-hook/bin (not the package's /usr/bin), the default config in /etc/gpu-numa-hook" || fail "DaemonSet install-files" "rc $RC $(echo "$OUT" | one_line)"
# Without --host-root the pod cannot see the host's /etc/containerd/conf.d: install must refuse and
# change nothing (what the DaemonSet did before it passed --host-root: the host's file named as
# --runtime-config /host/etc/containerd/config.toml, its absolute imports read in the pod).
mapfile -t argv <<<"$(k8s_cmd register-containerd | grep -v -x -e --host-root -e /host)"
argv+=(--runtime-config /host/etc/containerd/config.toml)
cp -a /etc/containerd "$TMP/ctd-before"
OUT=$(k8s_run_argv --rm -- "${argv[@]}"); RC=$?
[ "$RC" != 0 ] && echo "$OUT" | grep -q "imports entry '/etc/containerd/conf.d/\*.toml' of /host/etc/containerd/config.toml names nothing here" &&
    diff -r /etc/containerd "$TMP/ctd-before" >/dev/null &&
    pass "DaemonSet register-containerd without --host-root: refused (the host's conf.d is not seen), nothing changed" ||
    fail "register-containerd without --host-root" "rc $RC $(echo "$OUT" | one_line)"
OUT=$(k8s_run register-containerd --rm); RC=$?
DUMP=$(containerd --config /etc/containerd/config.toml config dump 2>&1)
[ "$RC" = 0 ] && echo "$DUMP" | grep -qE "BinaryName = $Q/opt/gpu-numa-hook/bin/gpu-numa-runtime$Q" &&
    echo "$DUMP" | grep -qE "default_runtime_name = ${Q}nvidia$Q" &&
    echo "$DUMP" | sed -n '/runtimes\.gpu-numa\.options\]/,/^ *\[/p' | grep -q 'SystemdCgroup = true' &&
    grep -q '^next = \["/usr/bin/nvidia-container-runtime"' "$H/etc/gpu-numa-hook/config.toml" &&
    pass "DaemonSet register-containerd (--host-root /host) on the GPU operator's drop-in layout: config dump keeps nvidia the default and runc, gpu-numa carries SystemdCgroup, our next is NVIDIA's runtime" ||
    fail "DaemonSet register-containerd" "rc $RC $(echo "$OUT" | one_line) dump: $(echo "$DUMP" | grep -E 'default_runtime_name|BinaryName|SystemdCgroup' | one_line) next: $(grep '^next' "$H/etc/gpu-numa-hook/config.toml")"
OUT=$(k8s_run register-containerd --rm); echo "$OUT" | grep -q "nothing to do: already installed" &&
    pass "DaemonSet register-containerd again (pod restart): nothing to do" || fail "register-containerd twice" "$(echo "$OUT" | one_line)"
# check: the DaemonSet mounts the host's / at /host; here the whole / is bound read-only at /host
CID=$($DOCKER run -d --read-only --cap-drop ALL --security-opt no-new-privileges -u 0:0 --network none \
      -v "/:/host:ro" -v "$H/textfile:/textfile" --entrypoint /bin/busybox gnh-k8s:test \
      sh -c "$(echo "$CMDS" | ${PY:-python3} -c 'import json,sys
for l in sys.stdin:
    c = json.loads(l)
    if c["name"] == "check": print(c["command"][3])')" 2>&1)
for i in $(seq 1 100); do [ -s "$H/textfile/gpu_numa_hook.prom" ] && break; sleep 0.1; done
$DOCKER rm -f "$CID" >/dev/null 2>&1
grep -q '^gpu_numa' "$H/textfile/gpu_numa_hook.prom" 2>/dev/null &&
    pass "DaemonSet check: check --prometheus through --host-root /host writes $(grep -c '^gpu_numa' "$H/textfile/gpu_numa_hook.prom") metric lines" ||
    fail "DaemonSet check" "no metrics; $($DOCKER logs "$CID" 2>&1 | one_line) $CID"
stop_pidfile "$TMP/dockerd.pid"
finish
