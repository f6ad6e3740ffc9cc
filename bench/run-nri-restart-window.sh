#!/bin/bash
# What a GPU pod meets while gpu-numa-nri restarts, fail-closed against fail-open, on the real
# containerd 2.2 / 2.3 with NRI's default validator on (gpu-numa-hook install
# --nri-require-for-gpu-pods, as tests/nri/run-fail-closed-test.sh sets it up). One containerd,
# two kinds of GPU pod: annotated with required-plugins.noderesource.dev as the require-plugin
# component's policy annotates them (read out of the rendered component), so they fail closed;
# and without it, so they fail open. Each repetition, for each kind: the plugin registered, then
# SIGKILLed and reaped (its death), one CreateContainer of a GPU container at once, the plugin
# started again (as kubelet restarts a container whose process died, minus kubelet's own delay),
# then CreateContainer again and again, each as soon as the last returned, until a GPU container
# is created with the hook. Timing comes from what the programs print: the plugin's registration
# line (its microsecond timestamp) and each call's return; whether a container got the hook is
# the plugin's "stage=nri-create action=inject" line for it. Every container is removed again.
# Harness: tests/engine/lib.sh (private mount namespace, fake driver, own sockets); not run by ctest.
#   flock /tmp/gnh-heavy.lock bash bench/run-nri-restart-window.sh [HOOK] [PLUGIN] [REPS] [SUITE]
#   (build/gpu-numa-hook, build/gpu-numa-nri, 5, v2.3)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
# shellcheck source=../tests/engine/containerd-suite.sh
. "$ENGINE_DIR/containerd-suite.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
PLUGIN=$(abs "${2:-$REPO/build/gpu-numa-nri}")
REPS=${3:-5}
SUITE=${4:-v2.3}
PY=/usr/bin/python3
if [ -z "${GNH_TMP:-}" ]; then
    trap 'engine_cleanup gnh-rw-$RUNID' EXIT
    TOOLS=$(bash "$REPO/tests/k8s/fetch-k8s-tools.sh") || exit 2
    KUSTOMIZE=$(sed -n '1s/ .*//p' <<<"$TOOLS")
    "$KUSTOMIZE" build "$REPO/examples/kubernetes/nri/components/require-plugin" >"$TMP/component.yaml" || exit 2
    "$PY" "$REPO/tests/k8s/check-require-plugin.py" --annotation "$TMP/component.yaml" >"$TMP/annotation" || exit 2
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    make_rootfs
    make_driver online0 0 online
    write_config nri
    rerun_in_ns nri "/run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri" "$SCRIPT_DIR/run-nri-restart-window.sh" "$HOOK" "$PLUGIN" "$REPS" "$SUITE"
fi
tmpfs_over gnh-rw /run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri

# ---------------------------------------------------------------- inside the namespace
CTD_ROOT=$(cat "$TMP/ctd-root")
bind_containerd "$CTD_ROOT" || exit 2
check_containerd_release "$SUITE"
read -r ANN_KEY ANN_VALUE <"$TMP/annotation"
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
NRI_SOCK=$TMP/nri.sock
mkdir -p "$CTD" "$TMP/podlogs" "$TMP/cni/bin" "$TMP/cni/conf" "$TMP/gen"
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto || exit 2
IMG=docker.io/gnh/busybox:rw-$RUNID
{ containerd_base_config; containerd_cri_config "$IMG" "$TMP/cni/bin" "$TMP/cni/conf"; cat <<TOML; } >"$CTD/config.toml"
[plugins."io.containerd.nri.v1.nri"]
  socket_path = "$NRI_SOCK"
  plugin_path = "$TMP/nri-plugins"
  plugin_config_path = "$TMP/nri-conf"
TOML
"$HOOK" install --runtime nri --runtime-config "$CTD/config.toml" --nri-require-for-gpu-pods >/dev/null || exit 2
start_containerd
for _ in $(seq 1 150); do [ -S "$SOCK" ] && break; sleep 0.2; done
"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 1000 >/dev/null &&
    ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$TMP/image.tar" >/dev/null || exit 2

"$PY" - "$TMP" "$ENGINE_DIR/cri" "$SOCK" "$IMG" "$PLUGIN" "$HOOK" "$NRI_SOCK" "$ANN_KEY" "$ANN_VALUE" "$REPS" "$CTD_VERSION" "/gnh-rw-$RUNID" <<'PY'
import datetime, re, statistics, subprocess, sys, time
tmp, cri_dir, sock, img, plugin, hook, nri_sock, ann_key, ann_value, reps, version, cgroup_parent = sys.argv[1:]
reps = int(reps)
sys.argv = ["bench", tmp + "/gen"]
sys.path.insert(0, cri_dir)
import grpc, cri_client
from cri_client import api, api_grpc
stub = api_grpc.RuntimeServiceStub(grpc.insecure_channel("unix://" + sock))
log = tmp + "/logs/nri.log"

def lines(pattern):
    return [l for l in open(log, errors="replace") if re.search(pattern, l)]

def stamp(line):  # the record's own UTC timestamp, as seconds since the epoch
    m = re.search(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6})Z", line)
    return datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()

def start_plugin():
    n = len(lines(r"stage=nri-connect action=connected"))
    p = subprocess.Popen([plugin, "--socket", nri_sock, "--hook", hook, "--config", tmp + "/cfg/nri.toml"],
                         stdout=subprocess.DEVNULL, stderr=open(tmp + "/plugin.err", "a"))
    return p, n

def wait_connected(n, bound=60):
    end = time.monotonic() + bound
    while time.monotonic() < end:
        got = lines(r"gpu-numa-nri\[\d+\] .*stage=nri-connect action=connected")
        if len(got) > n:
            return stamp(got[n])
        time.sleep(0.01)
    sys.exit("the plugin did not register within %d s" % bound)

sandboxes = {}
def sandbox(kind):
    if kind not in sandboxes:
        cfg = cri_client.sandbox_config("gpu-" + kind, "uid-" + kind, cgroup_parent, tmp + "/podlogs")
        if kind == "closed":
            cfg.annotations[ann_key] = ann_value
        sandboxes[kind] = (stub.RunPodSandbox(api.RunPodSandboxRequest(config=cfg), timeout=60).pod_sandbox_id, cfg)
    return sandboxes[kind]

seq = [0]
def create(kind):
    """One GPU container's CreateContainer: (returned at, id or None, error text, call's own ms)."""
    sb, sb_cfg = sandbox(kind)
    t0 = time.time()
    seq[0] += 1
    cfg = api.ContainerConfig(metadata=api.ContainerMetadata(name="cuda-%d" % seq[0], attempt=0), image=api.ImageSpec(image=img),
                              command=["/bin/sh"], envs=[api.KeyValue(key="NVIDIA_VISIBLE_DEVICES", value="0")],
                              log_path="c.log", linux=api.LinuxContainerConfig())
    try:
        cid = stub.CreateContainer(api.CreateContainerRequest(pod_sandbox_id=sb, config=cfg, sandbox_config=sb_cfg), timeout=60).container_id
        return time.time(), cid, "", (time.time() - t0) * 1e3
    except grpc.RpcError as e:
        return time.time(), None, "%s: %s" % (e.code().name, e.details()), (time.time() - t0) * 1e3

def closed_calls():  # containerd's own line for a call that found the plugin's connection closed
    return sum("failed to handle CreateContainer request: ttrpc: closed" in l for l in open(tmp + "/containerd.log", errors="replace"))

def hooked(cid):
    return bool(lines(r"container=%s stage=nri-create action=inject" % cid))

results = {"closed": [], "open": []}
errors = {}
p, n = start_plugin()
wait_connected(n)
for rep in range(reps):
    for kind in ("closed", "open"):
        made = []
        closed_before = closed_calls()
        p.kill()
        p.wait()
        dead = time.time()
        first = create(kind)
        p, n = start_plugin()
        attempts = [first]
        while True:
            r = attempts[-1]
            if r[1]:
                made.append(r[1])
                if hooked(r[1]):
                    break
            if len(attempts) > 2000:
                sys.exit("no hooked GPU container after 2000 creates")
            attempts.append(create(kind))
        registered = wait_connected(n)
        failed = [a for a in attempts if not a[1]]
        unhooked = [a for a in attempts if a[1] and not hooked(a[1])]
        for a in failed:
            errors.setdefault(kind, {}).setdefault(re.sub(r"[0-9a-f]{64}", "ID", a[2]), 0)
            errors[kind][re.sub(r"[0-9a-f]{64}", "ID", a[2])] += 1
        results[kind].append({
            "registered_ms": (registered - dead) * 1e3,
            "first_hooked_ms": (attempts[-1][0] - dead) * 1e3,
            "failed": len(failed),
            "unhooked": len(unhooked),
            "last_unhooked_ms": ((unhooked[-1][0] - dead) * 1e3) if unhooked else 0.0,
            "attempts": len(attempts),
            "call_ms": statistics.median(a[3] for a in attempts),
            "closed_calls": closed_calls() - closed_before,
        })
        for cid in made:
            stub.RemoveContainer(api.RemoveContainerRequest(container_id=cid), timeout=60)
p.kill()
p.wait()

def spread(kind, key, fmt="%.0f"):
    v = sorted(r[key] for r in results[kind])
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(v), v[0], v[-1])

print("%s, gpu-numa-nri SIGKILLed and started again at once, %d repetitions each; median (min-max):" % (version, reps))
for kind, what in (("closed", "fail-closed (pod annotated %s)" % ann_key), ("open", "fail-open (no annotation)")):
    print(what)
    print("  plugin death -> its registration line:        %s ms" % spread(kind, "registered_ms"))
    print("  plugin death -> first GPU container hooked:   %s ms" % spread(kind, "first_hooked_ms"))
    print("  CreateContainer calls in between refused:     %s" % spread(kind, "failed"))
    print("  GPU containers created WITHOUT the hook:      %s, in %d of %d repetitions" %
          (spread(kind, "unhooked"), sum(r["unhooked"] > 0 for r in results[kind]), reps))
    print("  plugin death -> last one created unhooked:    %s ms" % spread(kind, "last_unhooked_ms"))
    print("  calls that found the dead plugin still listed: %s (containerd: \"closing plugin 99-gpu-numa, failed to handle CreateContainer request: ttrpc: closed\", the call goes on without it)" % spread(kind, "closed_calls"))
    print("  CreateContainer calls in the window:          %s, each %s ms" % (spread(kind, "attempts"), spread(kind, "call_ms", "%.1f")))
    for text, count in sorted(errors.get(kind, {}).items()):
        print("  refused %dx: %s" % (count, text))
PY
