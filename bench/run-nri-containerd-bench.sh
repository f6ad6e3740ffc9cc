#!/bin/bash
# CRI CreateContainer through the real containerd 2.1 (sid), without and with gpu-numa-nri
# connected, in one run: N calls each (a GPU container, NVIDIA_VISIBLE_DEVICES=0, removed after
# each call), median and p99 of the gRPC round trip as kubelet sees it. The set-up is the NRI
# suite's (tests/nri/run-nri-tests.sh): private mount namespace, own root/state/sockets.
#   flock /tmp/gnh-heavy.lock bash bench/run-nri-containerd-bench.sh [HOOK] [PLUGIN] [N] [SUITE]
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
PLUGIN=$(abs "${2:-$REPO/build/gpu-numa-nri}")
N=${3:-200}
SUITE=${4:-sid}
PY=/usr/bin/python3
if [ -z "${GNH_TMP:-}" ]; then
    trap 'stop_pidfile "$TMP/plugin.pid"; engine_cleanup gnh-bench-$RUNID' EXIT
    CTD_ROOT=$("$REPO/tests/nri/fetch-containerd.sh" "$SUITE") || exit 2
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    make_rootfs
    make_driver online0 0 online
    write_config bench
    rerun_in_ns bench "/run/containerd /opt/containerd /run/gpu-numa-hook" "$SCRIPT_DIR/run-nri-containerd-bench.sh" "$HOOK" "$PLUGIN" "$N" "$SUITE"
fi
tmpfs_over gnh-nri-bench /run/containerd /opt/containerd /run/gpu-numa-hook
CTD_ROOT=$(cat "$TMP/ctd-root")
export PATH="$CTD_ROOT/usr/bin:$PATH"
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
mkdir -p "$CTD" "$TMP/gen" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf"
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto || exit 2
IMG=docker.io/gnh/busybox:bench-$RUNID
{ containerd_base_config; cat <<TOML; } >"$CTD/config.toml"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMG"
  disable_apparmor = true
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$TMP/cni/bin"
    conf_dir = "$TMP/cni/conf"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = false
[plugins."io.containerd.nri.v1.nri"]
  disable = false
  socket_path = "$TMP/nri.sock"
TOML
start_containerd
for i in $(seq 1 150); do [ -S "$SOCK" ] && break; sleep 0.2; done
"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 1000 >/dev/null &&
    ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$TMP/image.tar" >/dev/null 2>&1 ||
    ctr -a "$SOCK" -n k8s.io images import --snapshotter native "$TMP/image.tar" >/dev/null || exit 2
# One python process issues the calls (cri_client.py's messages), timing each CreateContainer.
cat >"$TMP/bench.py" <<PYB
import sys, time, statistics
label, phase = sys.argv[1], sys.argv[2]
sys.argv = ["bench", "$TMP/gen"]
sys.path.insert(0, "$ENGINE_DIR/cri")
import grpc, cri_client
from cri_client import api, api_grpc
stub = api_grpc.RuntimeServiceStub(grpc.insecure_channel("unix://$SOCK"))
sb_cfg = cri_client.sandbox_config("bench-" + phase, "uid-" + phase + "-$RUNID", "/gnh-bench-$RUNID", "$TMP/podlogs")
sb = stub.RunPodSandbox(api.RunPodSandboxRequest(config=sb_cfg), timeout=60).pod_sandbox_id
def run(label, n):
    times = []
    for i in range(n):
        cfg = api.ContainerConfig(metadata=api.ContainerMetadata(name="c%d" % i, attempt=0), image=api.ImageSpec(image="$IMG"),
                                  command=["/bin/sh"], envs=[api.KeyValue(key="NVIDIA_VISIBLE_DEVICES", value="0")],
                                  log_path="c.log", linux=api.LinuxContainerConfig())
        t0 = time.perf_counter()
        cid = stub.CreateContainer(api.CreateContainerRequest(pod_sandbox_id=sb, config=cfg, sandbox_config=sb_cfg), timeout=60).container_id
        times.append((time.perf_counter() - t0) * 1e3)
        stub.RemoveContainer(api.RemoveContainerRequest(container_id=cid), timeout=60)
    times.sort()
    print("%-28s median %.2f ms  p99 %.2f ms  (n=%d)" % (label, statistics.median(times), times[int(0.99 * (len(times) - 1))], n))
run(label, $N)
PYB
echo "CRI CreateContainer through $(containerd --version | awk '{print $1, $3}'), GPU container, $N calls each:"
"$PY" "$TMP/bench.py" "without gpu-numa-nri" a || exit 1
"$PLUGIN" --socket "$TMP/nri.sock" --hook "$HOOK" --config "$TMP/cfg/bench.toml" 2>/dev/null &
echo $! >"$TMP/plugin.pid"
for i in $(seq 1 100); do grep -q "action=connected" "$TMP/logs/bench.log" 2>/dev/null && break; sleep 0.1; done
grep -q "action=connected" "$TMP/logs/bench.log" || { echo "plugin did not connect" >&2; exit 1; }
"$PY" "$TMP/bench.py" "with gpu-numa-nri (hook added)" b || exit 1
