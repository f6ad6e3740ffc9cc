#!/bin/bash
# The NRI DaemonSet as kubelet runs it, on the REAL containerd 2.1 (sid) or 1.7 (trixie): the image
# built offline by examples/kubernetes/build-image.sh and imported, the pod spec that `kustomize
# build examples/kubernetes/nri/base` prints run through CRI by tests/k8s/kubelet_pod.py (hostPath
# volumes, security contexts, init container then containers, a pod network from CNI's bridge
# plugin), then: a GPU pod gets the hook; an update that would drop its GPU's node, and a cpus-only
# one (CPU Manager), judged by the plugin in its pod through /host (the driver's files, the
# container's cgroup); the readiness probe;
# on the GPU operator's layout (the driver's user space and the fake NVML under /run/nvidia/driver,
# NVIDIA's toolkit config where its installer writes it, a GPU in MIG state), the nvml-refresh
# container's caches: the first MIG pod has its instances' nodes required, a re-partition NVML
# cannot answer leaves status saying not protected, the next one is followed; NVIDIA's toolkit pod
# restarting; the device plugin's CDI strategies (cdi-annotations, cdi-cri) and a MIG device by UUID
# resolved by containerd's CDI registry, each hooked with its node; its envvar and volume-mounts
# strategies (a GPU and a MIG device) through NVIDIA's runtime as the runtime class "nvidia", in
# legacy mode (NVIDIA's hook asks its cli for the GPU) and cdi mode, each hooked with its node; two
# GPU instances on two nodes: a MIG device through CDI (its capability node) requires its own only;
# the metrics; the pod deleted (status and the metric say unprotected at once); a new image rolled
# out (the window without protection measured); removal. No kubelet and no API server: what they add to the window is not measured here.
# containerd runs in a private mount namespace with the fake driver (tests/engine/lib.sh); the
# node's paths the DaemonSet uses (/run/nri, /opt/gpu-numa-hook, /etc/gpu-numa-hook, /var/log,
# /run/gpu-numa-hook, node_exporter's textfile directory) are private tmpfs or overlay there.
# Usage: tests/k8s/run-daemonset-test.sh HOOK RUNTIME PLUGIN SUITE FAKE_NVML   SUITE: sid | trixie
#   (the NVML probe is taken from beside HOOK)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
ENGINE_DIR=$REPO/tests/engine
. "$ENGINE_DIR/lib.sh"
# shellcheck source=../engine/containerd-suite.sh
. "$ENGINE_DIR/containerd-suite.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
RUNTIME=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
PLUGIN=$(abs "${3:-$REPO/build/gpu-numa-nri}")
SUITE=${4:-sid}
FAKE_NVML=$(abs "${5:-$(dirname "$HOOK")/tests/nvml/libnvidia-ml.so.1}")
PROBE=$(dirname "$HOOK")/gpu-numa-nvml-probe
PY=/usr/bin/python3
TALLY_NAME="k8s daemonset ($SUITE)"
BRIDGE=gnhbr${RUNID: -6}
cleanup() {
    engine_cleanup "gnh-ds-$RUNID"
    ip link del "$BRIDGE" 2>/dev/null
}
# A second GPU, minor 1, in MIG state as the driver shows it: its numa_status read fails with EIO (a
# link to /proc/self/mem, whose read fails so in any process) and /proc/driver/nvidia/version names
# the driver NVML answers for (580.159.04, the real H200 host's).
MIG_BUS=""
for b in 0000:00:08.0 0000:00:09.0 0000:fe:1e.7; do [ -e "/sys/bus/pci/devices/$b" ] || { MIG_BUS=$b; break; }; done
MIG_GPU=GPU-5c7a2e1f-9b3d-4e6a-8c2f-0d1e2f3a4b5c
mig_uuid() { echo "MIG-3e4f5a6b-7c8d-4e9f-a0b1-00000000000$1"; }
make_mig_gpu() { # NAME
    local d="$TMP/drivers/$1/nvidia"
    mkdir -p "$d/gpus/$MIG_BUS"
    printf 'Model: \t\t NVIDIA GH200 480GB\nIRQ:   \t\t 42\nGPU UUID: \t %s\nVideo BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t 1\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n' "$MIG_GPU" "$MIG_BUS" >"$d/gpus/$MIG_BUS/information"
    ln -s /proc/self/mem "$d/gpus/$MIG_BUS/numa_status"
    printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U16-I3-B03-4-3)  Mon Jun  2 11:00:00 UTC 2025\n' >"$d/version"
}
NODE_DIRS="/run/containerd /opt/containerd /run/gpu-numa-hook /var/lib/nri /etc/nri /opt/nri /run/nri /opt/gpu-numa-hook /var/lib/node_exporter /var/lib/cni /var/log /run/nvidia /usr/local/nvidia"
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools runc jq unshare busybox buildah ip "$PY"
    "$PY" -c 'import grpc, grpc_tools, yaml' 2>/dev/null ||
        { skip "all cases" "python3-grpcio / python3-grpc-tools / python3-yaml missing (tests/run-all.sh installs them)"; finish; }
    [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] ||
        { skip "all cases" "CNI plugins missing in /usr/lib/cni (containernetworking-plugins, a dependency of podman)"; finish; }
    for b in "$HOOK" "$RUNTIME" "$PLUGIN" "$PROBE" "$FAKE_NVML"; do [ -e "$b" ] || { fail "binaries" "$b missing"; finish; }; done
    containerd_suite_root "$SUITE"
    echo "$CTD_ROOT" >"$TMP/ctd-root"
    TOOLS=$("$SCRIPT_DIR/fetch-k8s-tools.sh") || { fail "fetch kustomize" "see above"; finish; }
    # NVIDIA's toolkit container, the real one (shared/tools): it lays out /usr/local/nvidia/toolkit
    # as on the operator's node. Without it the toolkit's config.toml is copied from its output
    # (tests/fixtures/nvidia-ctk-installer-1.20.0), said loudly.
    rc=0; NV=$("$REPO/tests/nri/fetch-nvidia-installer.sh") || rc=$?
    if [ "$rc" = 0 ]; then echo "$NV" >"$TMP/nvidia-parts"
    elif [ "$rc" = 77 ]; then skip "NVIDIA's toolkit container (the real installer): NOT RUN" "nvidia-ctk-installer is not here (the line above); its config.toml is copied instead"
    else fail "fetch NVIDIA's installer" "tests/nri/fetch-nvidia-installer.sh failed (exit $rc)"; fi
    KUSTOMIZE=$(sed -n "1s/ .*//p" <<<"$TOOLS")
    # The manifests exactly as `kubectl apply -k examples/kubernetes/nri/base` would send them.
    "$KUSTOMIZE" build "$REPO/examples/kubernetes/nri/base" >"$TMP/ds-1.yaml" ||
        { fail "kustomize build" "examples/kubernetes/nri/base"; finish; }
    # The image, by the documented command; storage of this run only (never the host's).
    printf '[storage]\ndriver = "vfs"\nrunroot = "%s/img/run"\ngraphroot = "%s/img/root"\n' "$TMP" "$TMP" >"$TMP/storage.conf"
    BIN=$TMP/bin-1 && mkdir -p "$BIN" && cp "$HOOK" "$RUNTIME" "$PLUGIN" "$PROBE" "$BIN/" && strip -o "$TMP/hook.stripped" "$HOOK"
    TAG=$(sed -n 's/^ *image: *\(gpu-numa-hook:.*\)$/\1/p' "$TMP/ds-1.yaml" | sort -u)
    OUT=$(CONTAINERS_STORAGE_CONF=$TMP/storage.conf sh "$REPO/examples/kubernetes/build-image.sh" --binaries "$BIN" --save "$TMP/img-1.tar" 2>&1) &&
        [ "$OUT" = "$TAG ($(dpkg --print-architecture | sed 's/ppc64el/ppc64le/')) saved as $TMP/img-1.tar" ] &&
        pass "examples/kubernetes/build-image.sh built and tagged the image the manifests name, offline: $OUT" ||
        { fail "build-image.sh" "manifests name '$TAG'; got: $(echo "$OUT" | one_line)"; finish; }
    # A second image for the rollout: the same programs, another tag, as a new release would be.
    TAG2=${TAG}-next
    OUT=$(CONTAINERS_STORAGE_CONF=$TMP/storage.conf sh "$REPO/examples/kubernetes/build-image.sh" --binaries "$BIN" --tag "$TAG2" --save "$TMP/img-2.tar" 2>&1) ||
        { fail "build-image.sh --tag" "$(echo "$OUT" | one_line)"; finish; }
    sed "s|image: $TAG\$|image: $TAG2|" "$TMP/ds-1.yaml" >"$TMP/ds-2.yaml"
    echo "$TAG $TAG2" >"$TMP/tags"
    make_rootfs
    make_driver online0 0 online
    make_mig_gpu online0
    mkdir -p "$TMP/bin" "$TMP/rec"
    make_runc_recorder "$TMP/bin/runc-rec" "$TMP/rec"
    write_config ds
    rerun_in_ns ds "$NODE_DIRS" "$SCRIPT_DIR/run-daemonset-test.sh" "$HOOK" "$RUNTIME" "$PLUGIN" "$SUITE" "$FAKE_NVML"
fi
# shellcheck disable=SC2086
tmpfs_over gnh-ds $NODE_DIRS
# kubelet's HostToContainer propagation (the nvml-refresh container's /host) needs the node's / to
# be a shared or slave mount, as systemd leaves it; containerd refuses the container otherwise.
# This namespace's copy was made private: shared here, it still shares nothing with the host.
mount --make-shared / || { fail "setup" "mount --make-shared / in the test's namespace"; finish; }

# The GPU operator's node: the driver's user space under /run/nvidia/driver (the fake NVML with the
# topology it answers from), NVIDIA's config where its toolkit container writes it, naming that root.
DRIVER_LIB=/run/nvidia/driver/usr/lib/$(uname -m | sed 's/ppc64le/powerpc64le/')-linux-gnu
NV_CONFIG_DIR=/usr/local/nvidia/toolkit/.config/nvidia-container-runtime
mkdir -p "$DRIVER_LIB"
cp "$FAKE_NVML" "$DRIVER_LIB/libnvidia-ml.so.1"
# toolkit_pod_starts: what NVIDIA's toolkit container does at each start, as the operator runs it
# (driver root /run/nvidia/driver, the hardened settings): /usr/local/nvidia/toolkit deleted and
# laid out again. --no-daemon: it exits once installed; its runtime configuration is left out here.
# VAR=VALUE arguments: more of the toolkit's settings, as the operator's toolkit.env gives them.
toolkit_pod_starts() {
    if [ -s "$TMP/nvidia-parts" ]; then
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
            ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS=true "$@" \
            "$(sed -n 1p "$TMP/nvidia-parts")" --no-daemon --runtime containerd --no-runtime-config \
            --driver-root /run/nvidia/driver --toolkit-install-dir /usr/local/nvidia \
            --toolkit-source-root "$(sed -n 2p "$TMP/nvidia-parts")" --pid-file /run/nvidia/toolkit.pid >>"$TMP/installer.log" 2>&1
    else
        mkdir -p "$NV_CONFIG_DIR" && cp "$REPO/tests/fixtures/nvidia-ctk-installer-1.20.0/config.toml" "$NV_CONFIG_DIR/config.toml"
    fi
}
toolkit_pod_starts && grep -q '^ *root = "/run/nvidia/driver"' "$NV_CONFIG_DIR/config.toml" ||
    { fail "NVIDIA's toolkit laid out" "$(tail -n 3 "$TMP/installer.log" 2>&1 | one_line); config: $(grep root "$NV_CONFIG_DIR/config.toml" 2>&1 | one_line)"; finish; }
# nvml_answers "GI[@NODE]..." [fail]: NVML's view, GPU 1 with those GPU instances (memory node NODE,
# by default 0, this host's only one); with fail, NVML does not initialize.
nvml_answers() {
    local i=0 gi
    { echo "driver 580.159.04"
      echo "gpu GPU-f0586c67-b718-ef40-6571-4caeff0ab99c 0 0000$GPU_BUS -1 disabled"
      echo "gpu $MIG_GPU 1 0000$MIG_BUS -1 enabled"
      for gi in $1; do echo "mig $i $(mig_uuid "${gi%@*}") ${gi%@*} 0 $([ "${gi#*@}" != "$gi" ] && echo "${gi#*@}" || echo 0)"; i=$((i + 1)); done
      [ "${2:-}" = fail ] && echo "fail nvmlInit_v2 999"; } >"$DRIVER_LIB/fake-nvml-topology.txt.new"
    mv "$DRIVER_LIB/fake-nvml-topology.txt.new" "$DRIVER_LIB/fake-nvml-topology.txt"
}
# repartition GI...: the MIG manager's work as the driver shows it, GPU 1's capability folders swapped
# in whole (gi<GI>/ci0 for each).
repartition() {
    local caps=/proc/driver/nvidia/capabilities gi
    for gi in "$@"; do
        mkdir -p "$caps/gpu101/mig/gi$gi/ci0"
        printf 'DeviceFileMinor: %s\nDeviceFileMode: 292\nDeviceFileModify: 1\n' "$((16 + gi))" >"$caps/gpu101/mig/gi$gi/access"
    done
    [ -e "$caps/gpu1" ] && mv "$caps/gpu1" "$caps/old"
    mv "$caps/gpu101" "$caps/gpu1"
    rm -rf "$caps/old"
}
nvml_answers 1
repartition 1

# ---------------------------------------------------------------- inside the namespace: the node
CTD_ROOT=$(cat "$TMP/ctd-root")
read -r TAG TAG2 <"$TMP/tags"
for b in containerd containerd-shim-runc-v2 ctr; do
    [ -e "/usr/bin/$b" ] && mount --bind "$CTD_ROOT/usr/bin/$b" "/usr/bin/$b"
done
export PATH="$CTD_ROOT/usr/bin:$PATH"
# A node the DaemonSet has never run on: no hook, no config of ours.
rm -rf /etc/gpu-numa-hook
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
CGP=/gnh-ds-$RUNID
CPUSET=$(cpuset_mount)
NODE_LOG=/var/log/gpu-numa-hook.log
STATE=/run/gpu-numa-hook/nri-state.json
PROM=/var/lib/node_exporter/textfile_collector/gpu_numa_hook.prom
PODLOGS=/var/log/pods
mkdir -p "$CTD" "$TMP/dev" "$TMP/cni/conf" "$TMP/gen" "$PODLOGS"
mknod "$TMP/dev/nvidia0" c 195 0
mknod "$TMP/dev/nvidia1" c 195 1
mkdir -p "$TMP/dev/nvidia-caps"
for gi in 3 4; do mknod "$TMP/dev/nvidia-caps/nvidia-cap$((16 + gi))" c 241 $((16 + gi)); done
cri() { "$PY" "$ENGINE_DIR/cri/cri_client.py" "$TMP/gen" "$SOCK" "$@"; }
kubelet() { "$PY" "$SCRIPT_DIR/kubelet_pod.py" "$TMP/gen" "$SOCK" "$@"; }
"$PY" -m grpc_tools.protoc -I"$ENGINE_DIR/cri" --python_out="$TMP/gen" --grpc_python_out="$TMP/gen" cri_subset.proto ||
    { fail "protoc" "cannot compile tests/engine/cri/cri_subset.proto"; finish; }

# The pod network: CNI's bridge on a documentation subnet, no gateway, no NAT (deleted at the end).
cat >"$TMP/cni/conf/10-gnh.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "gnh-test", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": false, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "192.0.2.0/24"}]], "dataDir": "$TMP/cni/ipam"}}]}
JSON
IMG=docker.io/gnh/busybox:ds-$RUNID
VERSION=$(containerd --version)
# CDI on (containerd 1.7 ships it off), with the device plugin's specs in $TMP/cdi: what
# `nvidia-ctk cdi generate` writes for these GPUs, cut to their device nodes, each GPU by index and
# UUID, GPU 1's MIG devices by their UUIDs (the cdi-annotations and cdi-cri strategies name them so)
{ containerd_base_config; containerd_cri_config "$IMG" /usr/lib/cni "$TMP/cni/conf" "$TMP/bin/runc-rec" |
      sed "/^\[plugins.\"io.containerd.grpc.v1.cri\"\]\$/a\\  enable_cdi = true\\n  cdi_spec_dirs = [\"$TMP/cdi\"]"; } >"$CTD/config.toml"
mkdir -p "$TMP/cdi"
# cdi_device NAME PATH...: one device of the spec, its nodes (host paths under $TMP)
cdi_device() {
    local name=$1 nodes="" p
    shift
    for p in "$@"; do nodes="$nodes${nodes:+, }{\"path\": \"$p\", \"hostPath\": \"$TMP$p\"}"; done
    printf '{"name": "%s", "containerEdits": {"deviceNodes": [%s]}}' "$name" "$nodes"
}
# A MIG device's nodes as nvidia-ctk gives them: its parent's, and its GPU instance's capability
# node (minor from the driver's gi<GI>/access, which repartition writes as 16 + GI)
mig_nodes() { echo "/dev/nvidia1 /dev/nvidia-caps/nvidia-cap$((16 + $1))"; }
printf '{"cdiVersion": "0.6.0", "kind": "nvidia.com/gpu", "devices": [%s, %s, %s, %s, %s, %s, %s]}\n' \
    "$(cdi_device 0 /dev/nvidia0)" "$(cdi_device GPU-f0586c67-b718-ef40-6571-4caeff0ab99c /dev/nvidia0)" \
    "$(cdi_device 1 /dev/nvidia1)" "$(cdi_device "$MIG_GPU" /dev/nvidia1)" \
    "$(cdi_device "$(mig_uuid 3)" $(mig_nodes 3))" "$(cdi_device 1:0 $(mig_nodes 3))" "$(cdi_device "$(mig_uuid 4)" $(mig_nodes 4))" >"$TMP/cdi/nvidia.json"
# The runtime class "nvidia" as the toolkit container registers it: its runtime's wrapper, as if the
# nvidia module were loaded (nvidia_runtime_as_loaded, written in 3g).
printf '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n    SystemdCgroup = false\n    BinaryName = "%s"\n' \
    "$TMP/bin/nvidia-runtime-loaded" >>"$CTD/config.toml"
# containerd 1.7 ships NRI off (gpu-numa-hook install --runtime nri turns it on; tests/nri proves
# that); 2.x has it on, at the socket the DaemonSet mounts (/var/run/nri/nri.sock).
[ "$(containerd_suite_release "$SUITE")" = 1.7 ] && printf '[plugins."io.containerd.nri.v1.nri"]\n  disable = false\n' >>"$CTD/config.toml"

start_containerd
VER=""
for i in $(seq 1 150); do [ -S "$SOCK" ] && VER=$(cri version 2>/dev/null) && break; sleep 0.2; done
case "$VER" in
    containerd\ *\ v1) pass "real $VERSION: CRI answers ($VER), NRI socket $(ls /var/run/nri/nri.sock 2>&1)" ;;
    *) fail "CRI server up ($VERSION)" "Version: '$VER'; containerd log: $(grep -i -E 'error|fatal' "$TMP/containerd.log" | tail -3 | one_line)"; finish ;;
esac
import_image() {
    ctr -a "$SOCK" -n k8s.io images import --local --snapshotter native "$1" 2>&1 ||
        ctr -a "$SOCK" -n k8s.io images import --snapshotter native "$1" 2>&1
}
"$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/busybox.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
    OUT=$(import_image "$TMP/busybox.tar") && OUT2=$(import_image "$TMP/img-1.tar") && OUT3=$(import_image "$TMP/img-2.tar") ||
    { fail "image import" "$(echo "$OUT $OUT2 $OUT3" | one_line)"; finish; }
LISTED=$(ctr -a "$SOCK" -n k8s.io images ls -q 2>&1)
grep -qx "docker.io/library/$TAG" <<<"$LISTED" && grep -qx "docker.io/library/$TAG2" <<<"$LISTED" &&
    pass "ctr -n k8s.io images import: docker.io/library/$TAG (the name CRI resolves $TAG to) and $TAG2" ||
    { fail "images imported" "$(echo "$LISTED" | one_line)"; finish; }

# ---------------------------------------------------------------- 1. the DaemonSet's pod on a fresh node
# run_pod N MANIFESTS: the pod (uid ds-N), its ids in $TMP/pod-N ("name id" lines)
run_pod() {
    local uid=ds-$1-$RUNID
    kubelet run "$2" "gpu-numa-nri-$1" "$uid" "$CGP/pod$uid" "$PODLOGS/gpu-numa-hook_gpu-numa-nri-$1_$uid" >"$TMP/pod-$1" 2>&1
}
elapsed() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { printf "%.*f", d, b - a }'; }
id_of() { awk -v n="$2" '$1 == n {print $2}' "$TMP/pod-$1"; }
delete_pod() { # N GRACE
    # shellcheck disable=SC2046
    kubelet delete "$(id_of "$1" sandbox)" "$2" $(awk '$1 != "sandbox" && $1 != "install-hook" {print $2}' "$TMP/pod-$1")
}
T0=$(date +%s.%N)
run_pod 1 "$TMP/ds-1.yaml"; RC=$?
T1=$(date +%s.%N)
INIT=$(id_of 1 install-hook) PLUGIN_C=$(id_of 1 nri-plugin) CHECK_C=$(id_of 1 check)
if [ "$RC" = 0 ] && [ -n "$INIT" ] && [ -n "$PLUGIN_C" ] && [ -n "$CHECK_C" ] &&
    [ "$(kubelet state "$INIT")" = "CONTAINER_EXITED 0" ] &&
    cmp -s /opt/gpu-numa-hook/bin/gpu-numa-hook "$TMP/hook.stripped" && [ -x /opt/gpu-numa-hook/bin/gpu-numa-hook ] &&
    cmp -s /etc/gpu-numa-hook/config.toml "$REPO/config/config.toml"; then
    pass "kubelet's pod: the init container exited 0 after putting the image's hook at /opt/gpu-numa-hook/bin and the default config at /etc/gpu-numa-hook/config.toml; nri-plugin and check started ($(elapsed "$T0" "$T1" 1) s)"
else fail "the DaemonSet's pod" "rc $RC: $(one_line <"$TMP/pod-1") init: $(kubelet state "$INIT" 2>&1) hook: $(ls -l /opt/gpu-numa-hook/bin 2>&1 | one_line) containerd: $(grep -i -E 'level=error' "$TMP/containerd.log" | tail -3 | one_line)"; finish; fi

# What runc was handed for the plugin's container: the manifest's security context, as kubelet asks.
CFG=$(config_of "$PLUGIN_C")
SEC=$(jq -c '{netns: ([.linux.namespaces[] | select(.type == "network") | .path // "new"] | length), ro: .root.readonly, nnp: .process.noNewPrivileges, uid: .process.user.uid,
             caps: ([.process.capabilities // {} | .[] | length] | add // 0), seccomp: (.linux.seccomp.defaultAction // "none"),
             mounts: [.mounts[] | select(.destination | test("^/(etc/gpu-numa-hook|opt/gpu-numa-hook/bin|var/run/nri|run/gpu-numa-hook)$")) |
                      "\(.destination):\(if (.options | index("ro")) then "ro" else "rw" end)"] | sort}' "$CFG" 2>&1)
[ "$SEC" = '{"netns":1,"ro":true,"nnp":true,"uid":0,"caps":0,"seccomp":"SCMP_ACT_ERRNO","mounts":["/etc/gpu-numa-hook:ro","/opt/gpu-numa-hook/bin:ro","/run/gpu-numa-hook:rw","/var/run/nri:rw"]}' ] &&
    pass "runc got the plugin's spec as kubelet asks it: the pod's network namespace (CNI bridge), read-only root, no_new_privs, uid 0 with no capability, RuntimeDefault seccomp, hook and config read-only: $SEC" ||
    fail "plugin container's spec" "$SEC"

# ---------------------------------------------------------------- 1b. the nvml-refresh container writes the caches
# Privileged (NVML opens the GPUs' device files), the node's /dev live at /dev, the node's / with
# HostToContainer (rslave: the driver container's root mounted later shows); then its first lines.
REFRESH_C=$(id_of 1 nvml-refresh)
RLOG=$(ls "$PODLOGS"/gpu-numa-hook_gpu-numa-nri-1_*/nvml-refresh/0.log 2>/dev/null | head -1)
CFG=$(config_of "$REFRESH_C")
SEC=$(jq -c '{admin: (.process.capabilities.bounding // [] | index("CAP_SYS_ADMIN") != null), ro: .root.readonly,
             host: [.mounts[] | select(.destination == "/host") | (.options | index("rslave") != null)],
             dev: [.mounts[] | select(.destination == "/dev") | "\(.source):\(if (.options | index("ro")) then "ro" else "rw" end)"]}' "$CFG" 2>&1)
[ "$SEC" = '{"admin":true,"ro":true,"host":[true],"dev":["/dev:ro"]}' ] &&
    pass "runc got the nvml-refresh container's spec as kubelet asks it: privileged, read-only root, /host rslave (HostToContainer), the node's /dev read-only: $SEC" ||
    fail "nvml-refresh container's spec" "$SEC"
CACHE=/run/gpu-numa-hook/nvml-cache.json
if [ -n "$RLOG" ] && wait_for "$RLOG" "topology --follow: refreshed: " &&
    grep -q "topology --follow: refreshing: NVML cache /host$CACHE is missing" "$RLOG" &&
    grep -q "NVML from the driver root /host/run/nvidia/driver (\[nvidia-container-cli\] root in $NV_CONFIG_DIR/config.toml)" "$RLOG" &&
    grep -q "wrote /host$CACHE: driver 580.159.04, 2 GPUs, 1 MIG devices" "$RLOG" &&
    [ "$(jq -r '.gpus[] | select(.minor == 1) | .mig_devices[0].uuid' "$CACHE" 2>&1)" = "$(mig_uuid 1)" ]; then
    pass "the nvml-refresh container ran the image's NVML probe against the driver container's root (the fake NVML there) and wrote the node's caches: $(grep -o 'wrote /host[^ ]*nvml-cache.json.*' "$RLOG" | one_line)"
else fail "nvml-refresh writes the caches" "log ${RLOG:-none}: $(sed 's/^[^ ]* [a-z]* [FP] //' "$RLOG" 2>&1 | one_line); cache: $(jq -c . "$CACHE" 2>&1 | one_line)"; fi

# ---------------------------------------------------------------- 2. registered, logged, ready
wait_for "$NODE_LOG" "gpu-numa-nri\[[0-9]+\] .*stage=nri-connect action=connected .*registered as 99-gpu-numa with containerd" &&
    wait_for "$PODLOGS"/gpu-numa-hook_gpu-numa-nri-1_*/nri-plugin/0.log "stage=nri-connect action=connected" &&
    pass "the plugin registered; its line is in the node's log ($NODE_LOG) and in the container log kubectl logs reads: $(grep -h 'action=connected' "$PODLOGS"/gpu-numa-hook_gpu-numa-nri-1_*/nri-plugin/0.log | sed 's/.*msg=//' | one_line)" ||
    { fail "plugin registers" "node log: $(one_line <"$NODE_LOG") pod log: $(cat "$PODLOGS"/*/nri-plugin/0.log 2>&1 | one_line)"; finish; }
OUT=$(kubelet exec "$PLUGIN_C" 10 /usr/bin/gpu-numa-nri --ready); RC=$?
[ "$RC" = 0 ] && [[ "$OUT" == "gpu-numa-nri: ready: registered with containerd "* ]] &&
    pass "readiness probe (exec gpu-numa-nri --ready): exit 0, '$OUT'" || fail "readiness" "rc $RC: $OUT"
# The metrics: the check container's own command, run now through CRI (kubectl exec) rather than
# waiting for its next minute, then read as node_exporter reads the file.
OUT=$(kubelet exec "$CHECK_C" 60 /usr/bin/gpu-numa-hook --host-root /host check --prometheus /textfile/gpu_numa_hook.prom 2>&1)
grep -qx 'gpu_numa_hook_nri_plugin_connected 1' "$PROM" 2>/dev/null && grep -qx 'gpu_numa_hook_nri_hook_present 1' "$PROM" &&
    pass "the check container's metrics: gpu_numa_hook_nri_plugin_connected 1, gpu_numa_hook_nri_hook_present 1 in $PROM" ||
    fail "metrics" "check said: $(echo "$OUT" | one_line); file: $(grep nri "$PROM" 2>&1 | one_line)"
OUT=$("$HOOK" status 2>&1); RC=$?
[ "$RC" = 0 ] && grep -q "^ *nri: connected to containerd " <<<"$OUT" &&
    pass "gpu-numa-hook status on the node: exit 0, $(grep -E '^gpu-numa-hook status|^ *nri:' <<<"$OUT" | one_line)" ||
    fail "status protected" "rc $RC: $(echo "$OUT" | one_line)"

# ---------------------------------------------------------------- 3. a GPU pod gets the hook
gpu_pod() { # NAME [cri create options]: a GPU container (NVIDIA_VISIBLE_DEVICES and the device) in a pod of its own; prints its id
    local sb
    sb=$(cri run-sandbox "$1" "uid-$1-$RUNID" "" "$CGP/pod-$1" "$PODLOGS/default_$1") || return 1
    cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP/pod-$1" "$PODLOGS/default_$1" cuda "$IMG" 'exec sleep 600' \
        --env NVIDIA_VISIBLE_DEVICES=0 --device "$TMP/dev/nvidia0:/dev/nvidia0" "${@:2}"
}
C1=$(gpu_pod gpu-1); RC=$?
OUT=$(cri start "$C1")
CFG=$(config_of "$C1")
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(jq -r '.hooks.createRuntime[0].path' "$CFG" 2>/dev/null)" = /opt/gpu-numa-hook/bin/gpu-numa-hook ] &&
    grep -q "gpu-numa-hook\[[0-9]*\] container=$C1 pod=default/gpu-1 name=cuda stage=createRuntime action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " "$NODE_LOG" &&
    pass "GPU pod: the plugin injected the init container's hook, runc ran it on the node, the node's log has its decision (action=allow required=0)" ||
    fail "GPU pod hooked" "rc $RC ($C1) start $OUT hooks: $(jq -c .hooks "$CFG" 2>&1 | one_line) log: $(grep "container=$C1" "$NODE_LOG" | one_line)"

# ---------------------------------------------------------------- 3b. an update that drops the GPU's node, judged in the pod
# kubelet's Memory Manager asks for cpuset.mems 1. The plugin in its pod reads the driver's files
# and the container's cgroup under /host (the node's /, its cgroup tree mounted at
# /host/sys/fs/cgroup): its line names the cgroup file it read, and what it read is what the node's
# file holds. This host has node 0 only: the recorder hands runc the value intersected with the
# host's nodes and keeps what it was asked.
CGPATH=$(jq -r .linux.cgroupsPath "$(config_of "$C1")" 2>/dev/null)
MEMS_FILE=$CPUSET$CGPATH/cpuset.mems
MEMS_NOW=$(cat "$MEMS_FILE" 2>/dev/null)
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
OUT=$(cri update "$C1" 1); RC=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
LINE=$(grep "gpu-numa-nri\[[0-9]*\] container=$C1 stage=nri-update " "$NODE_LOG" | tail -1)
field() { sed -n "s/.* $1=\([^ ]*\) .*/\1/p" <<<"$LINE"; }
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ -n "$CGPATH" ] && [ -n "$MEMS_NOW" ] &&
    [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] &&
    grep -q " action=patch gpus=/dev/nvidia0($GPU_BUS) required=0 mems-before=$MEMS_NOW mems-after=0-1 " <<<"$LINE" &&
    [ "$(field cgroup)" = "/host$MEMS_FILE" ] && [ "$(field mems-before)" = "$MEMS_NOW" ] &&
    [ "$(cat "$MEMS_FILE")" = "$MEMS_NOW" ]; then
    pass "UpdateContainerResources cpuset_mems=1 with the DaemonSet's plugin: it read the fake driver and the container's real cgroup through /host (cgroup=$(field cgroup), mems-before=$MEMS_NOW as the node's file holds), runc update was handed mems 0-1; cpuset.mems still $MEMS_NOW"
else fail "update judged in the pod" "rc $RC ($OUT) cgroup $MEMS_FILE holds '$MEMS_NOW' (now '$(cat "$MEMS_FILE" 2>&1)'); runc got $(echo "$UPD" | one_line); line: $(echo "${LINE:-none}" | one_line)"; fi

# ---------------------------------------------------------------- 3c. kubelet's CPU Manager: an update of cpuset_cpus only
# The update carries no mems: containerd re-applies the stored spec's. 3b's answer is in C1's stored
# spec now (mems 0-1, which keeps the GPU's node): a cpus-only update of C1 hands runc 0-1 by
# itself and the plugin adds nothing. A guaranteed pod's container (Memory Manager: mems 1 at
# create, then the hook kept node 0 in its cgroup) still has mems 1 in its spec: the plugin in
# its pod reads the real cgroup through /host and answers with mems that keep node 0.
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
N_UPD=$(grep -c "container=$C1 stage=nri-update " "$NODE_LOG")
OUT=$(cri update-cpus "$C1" 0-1); RC=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
[ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$(echo "$UPD" | jq -r .cpu.cpus)" = 0-1 ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] &&
    [ "$(grep -c "container=$C1 stage=nri-update " "$NODE_LOG")" = "$N_UPD" ] && [ "$(cat "$MEMS_FILE")" = "$MEMS_NOW" ] &&
    pass "cpus-only UpdateContainerResources (cpuset_cpus=0-1) after 3b: containerd re-applied the stored spec's mems 0-1 (3b's answer), runc got cpus 0-1 mems 0-1, the plugin added nothing; cpuset.mems still $MEMS_NOW" ||
    fail "cpus-only update after 3b" "rc $RC ($OUT) runc got $(echo "$UPD" | one_line); lines $N_UPD -> $(grep -c "container=$C1 stage=nri-update " "$NODE_LOG"); mems $(cat "$MEMS_FILE" 2>&1)"
C1C=$(gpu_pod gpu-1c --mems 1); RC=$?
OUT=$(cri start "$C1C"); RC2=$?
CGPATH_C=$(jq -r .linux.cgroupsPath "$(config_of "$C1C")" 2>/dev/null)
MEMS_FILE_C=$CPUSET$CGPATH_C/cpuset.mems
MEMS_C=$(cat "$MEMS_FILE_C" 2>/dev/null)
rm -f "$TMP"/rec/*.update "$TMP"/rec/*.update-form
OUT2=$(cri update-cpus "$C1C" 0-1); RC3=$?
UPD=$(cat "$TMP"/rec/*.update 2>/dev/null)
LINE=$(grep "gpu-numa-nri\[[0-9]*\] container=$C1C stage=nri-update " "$NODE_LOG" | tail -1)
if [ "$RC" = 0 ] && [ "$OUT" = ok ] && [ "$RC3" = 0 ] && [ "$OUT2" = ok ] && [ -n "$CGPATH_C" ] &&
    [ "$(jq -r .linux.resources.cpu.mems "$(config_of "$C1C")")" = 1 ] && [ "$MEMS_C" = 0 ] &&
    [ "$(echo "$UPD" | jq -r .cpu.cpus)" = 0-1 ] && [ "$(echo "$UPD" | jq -r .cpu.mems)" = 0-1 ] &&
    grep -q " action=patch gpus=/dev/nvidia0($GPU_BUS) required=0 mems-before=$MEMS_C mems-after=0-1 .*update sets no cpuset.mems, so the runtime re-applies the spec's 1 (from before the hook widened it), which drops GPU memory node(s) 0" <<<"$LINE" &&
    [ "$(field cgroup)" = "/host$MEMS_FILE_C" ] && [ "$(cat "$MEMS_FILE_C")" = "$MEMS_C" ]; then
    pass "cpus-only UpdateContainerResources (cpuset_cpus=0-1) of a GPU container whose spec says mems 1, with the DaemonSet's plugin: it read the container's real cgroup through /host (cgroup=$(field cgroup), mems-before=$MEMS_C), runc update was handed cpus 0-1 and mems 0-1 (not the spec's 1); cpuset.mems still $MEMS_C"
else fail "cpus-only update judged in the pod" "create rc $RC start $RC2 ($OUT) spec mems $(jq -r .linux.resources.cpu.mems "$(config_of "$C1C")" 2>&1) cgroup $MEMS_FILE_C '$MEMS_C' (now '$(cat "$MEMS_FILE_C" 2>&1)'); update rc $RC3 ($OUT2) runc got $(echo "$UPD" | one_line); line: $(echo "${LINE:-none}" | one_line)"; fi

# ---------------------------------------------------------------- 3d. GPU pods on the MIG GPU, through re-partitions
# A start that asks the follower waits at most [nvml] refresh-wait-ms (2 s by default): bounded here
# far beyond what a busy machine needs, so that the outcome follows the follower's answer, not a clock.
sed -i 's/^deadline-ms = 5000$/deadline-ms = 120000/' /etc/gpu-numa-hook/config.toml &&
    printf '\n[nvml]\nrefresh-wait-ms = 60000\n' >>/etc/gpu-numa-hook/config.toml &&
    grep -q '^deadline-ms = 120000$' /etc/gpu-numa-hook/config.toml ||
    { fail "setup" "cannot raise the node config's deadline-ms and nvml.refresh-wait-ms"; finish; }
mig_pod() { # NAME: the whole GPU 1 by its device node: every GPU instance's node is required
    local sb
    sb=$(cri run-sandbox "$1" "uid-$1-$RUNID" "" "$CGP/pod-$1" "$PODLOGS/default_$1") || return 1
    cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP/pod-$1" "$PODLOGS/default_$1" cuda "$IMG" 'exec sleep 600' \
        --env NVIDIA_VISIBLE_DEVICES=1 --device "$TMP/dev/nvidia1:/dev/nvidia1"
}
hook_line() { grep "gpu-numa-hook\[[0-9]*\] container=$1 " "$NODE_LOG" | tail -1; }
M1=$(mig_pod mig-1); OUT=$(cri start "$M1")
[ "$OUT" = ok ] && grep -q "pod=default/mig-1 name=cuda stage=createRuntime action=allow gpus=/dev/nvidia1($MIG_BUS) required=0 " <<<"$(hook_line "$M1")" &&
    pass "the first GPU pod on the MIG GPU: its GPU instance's node required from the cache the DaemonSet wrote (required=0)" ||
    fail "first MIG pod" "start $OUT; $(hook_line "$M1" | one_line)"
# A re-partition NVML cannot answer for: the follower says so, status names the GPU not protected,
# and a pod then starts without the old layout's nodes, its line saying why.
N_FAILED=$(grep -c "refresh failed: " "$RLOG")
nvml_answers 2 fail
repartition 2
if wait_for "$RLOG" "topology --follow: refresh failed: " $((N_FAILED + 1)); then
    OUT=$("$HOOK" status 2>&1); SRC=$?
    M2=$(mig_pod mig-2); START=$(cri start "$M2")
    LINE=$(hook_line "$M2")
    [ "$SRC" = 1 ] && grep -q "GPU /dev/nvidia1 is in MIG state and its GPU instances' memory nodes are unknown (GPU /dev/nvidia1 was re-partitioned since the NVML cache was written" <<<"$OUT" &&
        [ "$START" = ok ] && grep -q "action=allow gpus=/dev/nvidia1($MIG_BUS) required=- .*the driver lists 2/0 now" <<<"$LINE" &&
        pass "re-partitioned while NVML cannot answer: the follower said '$(grep -o 'refresh failed: [^;]*' "$RLOG" | tail -1)', status exits 1 naming GPU /dev/nvidia1, and a pod starts without the old layout's node (required=-, its line says why)" ||
        fail "failed refresh" "status rc $SRC: $(grep -i mig <<<"$OUT" | one_line); start $START; line: $(echo "$LINE" | one_line)"
else fail "follower reports a failed refresh" "$(sed 's/^[^ ]* [a-z]* [FP] //' "$RLOG" | tail -5 | one_line)"; fi
# The next re-partition, NVML answering again, and a pod at once: its start asks the follower
# (nvml.refresh-wait-ms) unless a tick was quicker; either way it has the new instance's node.
nvml_answers 3
repartition 3
M3=$(mig_pod mig-3); START=$(cri start "$M3")
LINE=$(hook_line "$M3")
OUT=$("$HOOK" status 2>&1); SRC=$?
if [ "$START" = ok ] && grep -q "action=allow gpus=/dev/nvidia1($MIG_BUS) required=0 " <<<"$LINE" &&
    [ "$(jq -r '.gpus[] | select(.minor == 1) | .mig_devices[0].uuid' "$CACHE")" = "$(mig_uuid 3)" ] && [ "$SRC" = 0 ] &&
    grep -q "refreshing: GPU /dev/nvidia1 .* the driver lists 3/0 now" "$RLOG"; then
    how="a tick of the follower had refreshed first"
    grep -q "asked topology --follow for a current NVML cache: refreshed" <<<"$LINE" && how="its start asked the follower and waited: 'asked topology --follow for a current NVML cache: refreshed'"
    pass "a pod started right after the next re-partition has the new instance's node required ($how); status exits 0"
else fail "first pod after a re-partition" "start $START; $(echo "$LINE" | one_line); cache $(jq -c . "$CACHE" | one_line); status rc $SRC: $(grep -i -E 'mig|not protected' <<<"$OUT" | one_line); follower: $(sed 's/^[^ ]* [a-z]* [FP] //' "$RLOG" | tail -3 | one_line)"; fi

# ---------------------------------------------------------------- 3e. NVIDIA's toolkit pod restarts
# It deletes and re-creates /usr/local/nvidia/toolkit, its config.toml with it: the caches stay
# current (the follower asks NVML nothing), and the next GPU pods are hooked as before.
N_REFRESH=$(grep -c "topology --follow: refreshing" "$RLOG")
toolkit_pod_starts; RC=$?
M4=$(mig_pod mig-4); START=$(cri start "$M4")
C4=$(gpu_pod gpu-4); START2=$(cri start "$C4")
if [ "$RC" = 0 ] && [ -f "$NV_CONFIG_DIR/config.toml" ] && [ "$START" = ok ] && [ "$START2" = ok ] &&
    grep -q "action=allow gpus=/dev/nvidia1($MIG_BUS) required=0 " <<<"$(hook_line "$M4")" &&
    grep -q "action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 " <<<"$(hook_line "$C4")" &&
    [ "$(grep -c "topology --follow: refreshing" "$RLOG")" = "$N_REFRESH" ]; then
    pass "NVIDIA's toolkit pod restarted ($([ -s "$TMP/nvidia-parts" ] && echo "the real nvidia-ctk-installer re-created /usr/local/nvidia/toolkit" || echo "config copied")): the next MIG pod and GPU pod were hooked as before (required=0 each), no refresh needed"
else fail "toolkit pod restart" "installer rc $RC ($(tail -n 2 "$TMP/installer.log" 2>&1 | one_line)); MIG pod $START: $(hook_line "$M4" | one_line); GPU pod $START2: $(hook_line "$C4" | one_line); refreshes $N_REFRESH -> $(grep -c "topology --follow: refreshing" "$RLOG")"; fi

# ---------------------------------------------------------------- 3f. the device plugin's CDI strategies and MIG by UUID
# GPUs as the device plugin names them through CRI, containerd resolving them through its CDI
# registry into linux.devices: cdi-annotations (cdi.k8s.io/nvidia-device-plugin_<uid>, a GPU by
# UUID), cdi-cri (the CRI request's CDI devices, by index), and GPU 1's MIG device by its UUID (the
# MIG strategies' form: single and mixed name the same CDI device). Each is hooked with its node.
# (envvar and volume-mounts give GPUs only through NVIDIA's runtime: 3g.)
strategy_pod() { # NAME CREATE-OPTION...: a pod (of the runtime class $RUNTIME_CLASS, default none) whose container gets its GPU only by those options; its id
    local sb
    sb=$(cri run-sandbox "$1" "uid-$1-$RUNID" "${RUNTIME_CLASS:-}" "$CGP/pod-$1" "$PODLOGS/default_$1") || return 1
    cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP/pod-$1" "$PODLOGS/default_$1" cuda "$IMG" 'exec sleep 600' "${@:2}"
}
# strategy NAME WHAT DEVICE BUS CREATE-OPTION...: pod NAME started, runc was handed DEVICE (from
# containerd's CDI registry) and our hook, which allowed it with its node required
strategy() {
    local name=$1 what=$2 dev=$3 bus=$4 c out cfg
    shift 4
    c=$(strategy_pod "$name" "$@"); out=$(cri start "$c" 2>&1)
    cfg=$(config_of "$c")
    if [ "$out" = ok ] && [ "$(jq -r --arg d "$dev" '[.linux.devices[]? | select(.path == $d)] | length' "$cfg" 2>/dev/null)" = 1 ] &&
        grep -q "pod=default/$name name=cuda stage=createRuntime action=allow gpus=$dev($bus) required=0 " <<<"$(hook_line "$c")"; then
        pass "$what: runc was handed $dev from containerd's CDI registry and our hook, which required its node: $(hook_line "$c" | sed 's/.*\(action=allow\)/\1/; s/ mems-before.* msg=/ msg=/' | cut -c1-240)"
    else fail "$what" "create $c start $out devices $(jq -c '[.linux.devices[]?.path]' "$cfg" 2>&1 | one_line) line: $(hook_line "$c" | one_line)"; fi
}
strategy cdi-ann "device plugin strategy cdi-annotations (a GPU by UUID)" /dev/nvidia0 "$GPU_BUS" \
    --annotation "cdi.k8s.io/nvidia-device-plugin_uid-cdi-ann=nvidia.com/gpu=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c"
strategy cdi-cri "device plugin strategy cdi-cri (the CRI request's CDI device, by index)" /dev/nvidia0 "$GPU_BUS" --cdi nvidia.com/gpu=0
strategy mig-uuid "MIG strategy (single or mixed): GPU 1's MIG device by its UUID, cdi-annotations" /dev/nvidia1 "$MIG_BUS" \
    --annotation "cdi.k8s.io/nvidia-device-plugin_uid-mig-uuid=nvidia.com/gpu=$(mig_uuid 3)"
strategy mig-cri "MIG strategy (single or mixed): GPU 1's MIG device by its UUID, cdi-cri" /dev/nvidia1 "$MIG_BUS" --cdi "nvidia.com/gpu=$(mig_uuid 3)"

# ---------------------------------------------------------------- 3g. envvar and volume-mounts, through NVIDIA's runtime
# These strategies give a container no device node: NVIDIA's runtime gives it the GPU. Pods of the
# runtime class "nvidia" run through the runtime's wrapper the toolkit container wrote, its mode set
# as the operator sets it (NVIDIA_CONTAINER_RUNTIME_MODE: legacy with CDI off, cdi with CDI on) and
# runc behind the recorder as its next runtime (NVIDIA_CONTAINER_RUNTIME_RUNTIMES: what the installer
# takes from the default runtime). Legacy: NVIDIA's hook asks its cli (a recorder: the part that
# needs the driver) for the GPU, and our hook counts what NVIDIA's hook reads, by NVIDIA's settings
# in the toolkit's config.toml. cdi: NVIDIA's runtime puts the GPU's node from the CDI spec (3f's)
# into the spec.
NVCLI_LOG=$TMP/nvidia-cli.log
NVHOOK=/usr/local/nvidia/toolkit/nvidia-container-runtime-hook
make_nvidia_cli_recorder "$TMP/bin/nvidia-container-cli" "$NVCLI_LOG"
# toolkit_for_class VAR=VALUE...: the toolkit pod started again with those settings, its cli the recorder
toolkit_for_class() {
    toolkit_pod_starts NVIDIA_CONTAINER_RUNTIME_RUNTIMES="$TMP/bin/runc-rec" NVIDIA_CONTAINER_RUNTIME_DEBUG="$TMP/nvidia-runtime.log" "$@" &&
        /usr/local/nvidia/toolkit/nvidia-ctk config --config-file="$NV_CONFIG_DIR/config.toml" --in-place \
            --set "nvidia-container-cli.path=$TMP/bin/nvidia-container-cli" --set "nvidia-container-runtime.modes.cdi.spec-dirs=$TMP/cdi" &&
        nvidia_runtime_as_loaded /usr/local/nvidia/toolkit/nvidia-container-runtime "$TMP/bin/nvidia-runtime-loaded"
}
ours_line() { # NAME ID: our hook's decision for pod NAME's container ID, from "action=" on
    grep "gpu-numa-hook\[[0-9]*\] container=$2 pod=default/$1 name=cuda stage=createRuntime " "$NODE_LOG" | sed 's/.* \(action=\)/\1/'
}
# through_nvidia NAME WHAT MODE DEVICE BUS ID CREATE-OPTION...: pod NAME of the class nvidia started;
# the CRI request gave it no GPU node. legacy: runc got NVIDIA's hook (prestart) and ours
# (createRuntime), and NVIDIA's hook asked its cli for ID. cdi: runc got DEVICE from NVIDIA's
# runtime. Our hook allowed DEVICE with its node required. DEVICE "-": NVIDIA gives it nothing, and
# nor does our hook, which says by which of NVIDIA's settings.
through_nvidia() {
    local name=$1 what=$2 mode=$3 dev=$4 bus=$5 id=$6 c out cfg hooks devs line ok=1 why=""
    shift 6
    c=$(RUNTIME_CLASS=nvidia strategy_pod "$name" "$@"); out=$(cri start "$c" 2>&1)
    cfg=$(config_of "$c")
    hooks=$(jq -r '[(.hooks.prestart[]?.path), "|", (.hooks.createRuntime[]?.path)] | join(" ")' "$cfg" 2>/dev/null)
    devs=$(jq -r '[.linux.devices[]? | select(.major == 195) | .path] | join(",")' "$cfg" 2>/dev/null)
    line=$(ours_line "$name" "$c")
    [ "$out" = ok ] || { ok=0; why="start: $out"; }
    if [ "$mode" = legacy ]; then
        [ "$hooks" = "$NVHOOK | /opt/gpu-numa-hook/bin/gpu-numa-hook" ] && [ -z "$devs" ] || { ok=0; why="$why hooks: $hooks devices: $devs"; }
        if [ "$dev" = - ]; then
            ! grep -q "/$c/" "$NVCLI_LOG" 2>/dev/null || { ok=0; why="$why NVIDIA's cli was asked: $(grep "/$c/" "$NVCLI_LOG" | one_line)"; }
        else
            grep "/$c/" "$NVCLI_LOG" 2>/dev/null | grep -q -- "--device=$id " || { ok=0; why="$why NVIDIA's cli: $(grep "/$c/" "$NVCLI_LOG" 2>&1 | one_line)"; }
        fi
    else
        [ "$devs" = "$dev" ] || { ok=0; why="$why devices: '$devs' hooks: $hooks"; }
    fi
    if [ "$dev" = - ]; then
        [[ "$line" == "action=allow gpus=- "*"(settings: $NV_CONFIG_DIR/config.toml)"* ]] || { ok=0; why="$why ours: $line"; }
    else
        [[ "$line" == "action=allow gpus=$dev($bus) required=0 "* ]] || { ok=0; why="$why ours: $line"; }
    fi
    if [ "$ok" = 1 ]; then
        local seen="NVIDIA's cli asked for $id"
        [ "$dev" = - ] && seen="NVIDIA's cli not asked"
        [ "$mode" = cdi ] && seen="runc got $devs from NVIDIA's runtime"
        pass "$what: $seen; ours: $(echo "$line" | sed 's/ mems-before.* msg=/ msg=/' | cut -c1-200)"
    else fail "$what" "$why; NVIDIA's runtime: $(grep -i -E 'error|warn' "$TMP/nvidia-runtime.log" 2>/dev/null | tail -2 | one_line)"; fi
}
GPU0=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c
mounted() { echo "--env NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices --mount /dev/null:/var/run/nvidia-container-devices/$1:ro"; }
if [ ! -s "$TMP/nvidia-parts" ]; then
    skip "envvar and volume-mounts through NVIDIA's runtime" "nvidia-ctk-installer is not here: no toolkit to run"
elif ! OUT=$(toolkit_for_class NVIDIA_CONTAINER_RUNTIME_MODE=legacy 2>&1); then
    fail "the toolkit pod, mode legacy" "$(echo "$OUT" | one_line); $(tail -n 2 "$TMP/installer.log" | one_line)"
else
    # shellcheck disable=SC2046 # mounted's words are options
    {
    through_nvidia vm-gpu "volume-mounts strategy, legacy mode (the hardened toolkit): GPU 0 by UUID" legacy /dev/nvidia0 "$GPU_BUS" "$GPU0" $(mounted "$GPU0")
    through_nvidia vm-mig "volume-mounts strategy, legacy mode: GPU 1's MIG device (MIG strategy single or mixed)" legacy /dev/nvidia1 "$MIG_BUS" "$(mig_uuid 3)" $(mounted "$(mig_uuid 3)")
    through_nvidia env-hardened "envvar strategy against the hardened toolkit (the variable refused from unprivileged pods)" legacy - - - --env "NVIDIA_VISIBLE_DEVICES=$GPU0"
    if OUT=$(toolkit_for_class NVIDIA_CONTAINER_RUNTIME_MODE=legacy ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=true 2>&1); then
        through_nvidia env-gpu "envvar strategy, legacy mode (toolkit restarted, the variable accepted): GPU 0 by UUID" legacy /dev/nvidia0 "$GPU_BUS" "$GPU0" --env "NVIDIA_VISIBLE_DEVICES=$GPU0"
        through_nvidia env-mig "envvar strategy, legacy mode: GPU 1's MIG device (MIG strategy single or mixed)" legacy /dev/nvidia1 "$MIG_BUS" "$(mig_uuid 3)" --env "NVIDIA_VISIBLE_DEVICES=$(mig_uuid 3)"
    else fail "the toolkit pod, the variable accepted" "$(echo "$OUT" | one_line)"; fi
    if OUT=$(toolkit_for_class NVIDIA_CONTAINER_RUNTIME_MODE=cdi ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=true 2>&1); then
        through_nvidia cdi-env "envvar strategy, cdi mode (toolkit restarted, CDI on): GPU 0 by UUID" cdi /dev/nvidia0 "$GPU_BUS" "$GPU0" --env "NVIDIA_VISIBLE_DEVICES=$GPU0"
        through_nvidia cdi-vm "volume-mounts strategy, cdi mode: GPU 1's MIG device" cdi /dev/nvidia1 "$MIG_BUS" "$(mig_uuid 3)" $(mounted "$(mig_uuid 3)")
    else fail "the toolkit pod, mode cdi" "$(echo "$OUT" | one_line)"; fi
    }
fi

# ---------------------------------------------------------------- 3h. two GPU instances, two nodes: a MIG device is its own instance
# GPU 1 re-partitioned into GI 3 (memory node 0) and GI 4 (node 1, which this host lacks, as a
# Grace node whose instance memory is not online yet): by its UUID, GI 3's device requires node 0
# only and starts; GI 4's requires node 1 and is refused with our line; the whole GPU (both nodes)
# is refused too. A whole-GPU answer for a MIG device would refuse the first.
nvml_answers "3 4@1"
repartition 3 4
C=$(strategy_pod gi3 --cdi "nvidia.com/gpu=$(mig_uuid 3)"); OUT=$(cri start "$C" 2>&1)
LINE=$(hook_line "$C")
if [ "$OUT" = ok ] && grep -q "pod=default/gi3 name=cuda stage=createRuntime action=allow gpus=/dev/nvidia1($MIG_BUS) required=0 " <<<"$LINE"; then
    pass "GI 3 of two (nodes 0 and 1) by its MIG UUID (cdi-cri): only its own instance's node required, started: $(sed 's/.*\(action=\)/\1/; s/ mems-before.* msg=/ msg=/' <<<"$LINE" | cut -c1-200)"
else fail "a MIG device by UUID is its own instance" "start $OUT; $(echo "$LINE" | one_line); cache $(jq -c '.gpus[] | select(.minor == 1) | .mig_devices' "$CACHE" 2>&1 | one_line)"; fi
C=$(strategy_pod gi4 --cdi "nvidia.com/gpu=$(mig_uuid 4)"); OUT=$(cri start "$C" 2>&1)
LINE=$(hook_line "$C")
if [ "$OUT" != ok ] && [[ "$OUT" == *"gpu-numa-hook: container $C: refusing start: "*"node 1"* ]] &&
    grep -q "pod=default/gi4 name=cuda stage=createRuntime action=refuse gpus=/dev/nvidia1($MIG_BUS) required=1 " <<<"$LINE"; then
    pass "GI 4 by its MIG UUID, its memory node 1 not on this host: refused, our line in the CRI error: $(grep -o 'gpu-numa-hook: container [0-9a-f]*: refusing start: [^;]*' <<<"$OUT" | head -1 | cut -c1-220)"
else fail "a MIG device whose instance's node is missing" "start: $(echo "$OUT" | one_line); $(echo "$LINE" | one_line)"; fi
# The same through NVIDIA's real runtime in cdi mode (3g left the toolkit so): the variable names
# GI 3's device, NVIDIA's runtime injects its nodes from the CDI spec, ours requires node 0 only.
if [ -s "$TMP/nvidia-parts" ]; then
    through_nvidia gi3-nvidia "GI 3 of two by NVIDIA_VISIBLE_DEVICES through NVIDIA's runtime in cdi mode (its capability node from the spec)" \
        cdi /dev/nvidia1 "$MIG_BUS" "$(mig_uuid 3)" --env "NVIDIA_VISIBLE_DEVICES=$(mig_uuid 3)"
fi
C=$(mig_pod gi-whole); OUT=$(cri start "$C" 2>&1)
LINE=$(hook_line "$C")
if [ "$OUT" != ok ] && grep -q "pod=default/gi-whole name=cuda stage=createRuntime action=refuse gpus=/dev/nvidia1($MIG_BUS) required=0-1 " <<<"$LINE"; then
    pass "the whole GPU 1 by its device: both instances' nodes required (0-1), refused"
else fail "the whole MIG GPU with an instance on a missing node" "start: $(echo "$OUT" | one_line); $(echo "$LINE" | one_line)"; fi
# back to GI 3 alone: the next pod follows (and leaves the caches current for what comes next)
nvml_answers 3
repartition 3
C=$(mig_pod gi-back); OUT=$(cri start "$C" 2>&1)
grep -q "pod=default/gi-back name=cuda stage=createRuntime action=allow gpus=/dev/nvidia1($MIG_BUS) required=0 " <<<"$(hook_line "$C")" && [ "$OUT" = ok ] &&
    pass "re-partitioned back to GI 3 alone: the next whole-GPU pod has node 0 required and starts" ||
    fail "back to one instance" "start: $(echo "$OUT" | one_line); $(hook_line "$C" | one_line)"

# ---------------------------------------------------------------- 4. rolling update: the old pod goes, the new one comes
delete_pod 1 30 >/dev/null; RC=$?
T_GONE=$(date +%s.%N)
OUT=$("$HOOK" status 2>&1); SRC=$?
[ "$RC" = 0 ] && [ "$SRC" = 1 ] && grep -q "NRI plugin not connected" <<<"$OUT" && [ ! -e "$PROM" ] &&
    [ "$(jq -r .connected "$STATE")" = false ] &&
    pass "old pod deleted (SIGTERM, grace 30 s): at once, status exits 1 ($(grep -o 'NRI plugin not connected[^;]*' <<<"$OUT" | head -1)) and the metrics file is gone" ||
    fail "deleted pod" "delete rc $RC; status rc $SRC: $(echo "$OUT" | grep -i nri | one_line); prom: $(ls "$PROM" 2>&1); state: $(jq -c . "$STATE" 2>&1)"
N_CONN=$(grep -c "stage=nri-connect action=connected" "$NODE_LOG")
run_pod 2 "$TMP/ds-2.yaml"; RC=$?
if [ "$RC" = 0 ] && wait_for "$NODE_LOG" "stage=nri-connect action=connected" $((N_CONN + 1)); then
    T_BACK=$(date +%s.%N)
    WINDOW=$(elapsed "$T_GONE" "$T_BACK" 2)
    pass "rollout to $TAG2: the new pod registered ${WINDOW} s after the old one was gone (init container, plugin start, registration; kubelet's and the controller's own delays come on top)"
    echo "MEASURED: rollout window without protection (CRI part) = ${WINDOW} s on $VERSION" >&2
else fail "rollout" "rc $RC: $(one_line <"$TMP/pod-2") log: $(tail -3 "$NODE_LOG" | one_line)"; fi
# ctr's stderr apart: from 2.2 on it warns there on every call (cgroup v1 deprecated)
NEW_IMAGE=$(ctr -a "$SOCK" -n k8s.io containers info "$(id_of 2 nri-plugin)" 2>"$TMP/ctr-info.err" | jq -r .Image 2>&1) ||
    NEW_IMAGE="$NEW_IMAGE (ctr: $(one_line <"$TMP/ctr-info.err"))"
[ "$NEW_IMAGE" = "docker.io/library/$TAG2" ] && [ "$(jq -r .connected "$STATE")" = true ] &&
    pass "the new plugin runs the new image ($NEW_IMAGE) and owns the state file (connected)" ||
    fail "after the rollout" "image '$NEW_IMAGE' state $(jq -c . "$STATE" 2>&1)"
# The old follower stopped on SIGTERM leaving the caches; the new one finds them current and asks
# NVML nothing.
RLOG2=$(ls "$PODLOGS"/gpu-numa-hook_gpu-numa-nri-2_*/nvml-refresh/0.log 2>/dev/null | head -1)
grep -q "topology --follow: stopping (signal); the caches stay as they are" "$RLOG" && [ -n "$RLOG2" ] &&
    wait_for "$RLOG2" "topology --follow: current: " && ! grep -q "refreshing" "$RLOG2" &&
    pass "rollout: the old nvml-refresh stopped on SIGTERM leaving the caches; the new one found them current, no NVML call ($(grep -o 'current: .*' "$RLOG2" | one_line))" ||
    fail "nvml-refresh across the rollout" "old: $(tail -2 "$RLOG" | one_line) new: $(cat "$RLOG2" 2>&1 | one_line)"
C2=$(gpu_pod gpu-2); OUT=$(cri start "$C2")
grep -q "container=$C2 pod=default/gpu-2 name=cuda stage=createRuntime action=allow" "$NODE_LOG" &&
    pass "GPU pod after the rollout: hooked by the new plugin" || fail "GPU pod after rollout" "$(grep "container=$C2" "$NODE_LOG" | one_line)"

# ---------------------------------------------------------------- 4b. the plugin killed (SIGKILL: no grace, no last write)
PLUGIN2_C=$(id_of 2 nri-plugin) CHECK2_C=$(id_of 2 check)
OUT=$(cri stop "$PLUGIN2_C"); RC=$?   # StopContainer with timeout 0: SIGKILL at once
ST=$(kubelet state "$PLUGIN2_C")
STATUS=$("$HOOK" status 2>&1); SRC=$?
kubelet exec "$CHECK2_C" 60 /usr/bin/gpu-numa-hook --host-root /host check --prometheus /textfile/gpu_numa_hook.prom >/dev/null 2>&1
[ "$RC" = 0 ] && [ "$ST" = "CONTAINER_EXITED 137" ] && [ "$(jq -r .connected "$STATE")" = true ] && [ "$SRC" = 1 ] &&
    grep -q "gpu-numa-nri (pid [0-9]*) is gone: no process holds its lock /run/gpu-numa-hook/nri-state.json.lock" <<<"$STATUS" &&
    grep -qx 'gpu_numa_hook_nri_plugin_connected 0' "$PROM" &&
    pass "plugin killed by SIGKILL (its state file still says connected): status, from the node's pid namespace, says not protected at once by its lock; the check container's metric says 0" ||
    fail "plugin killed" "stop rc $RC state '$ST' file $(jq -c '{connected, pid}' "$STATE" 2>&1) status rc $SRC: $(grep -i nri <<<"$STATUS" | one_line) metric: $(grep connected "$PROM" 2>&1)"

# ---------------------------------------------------------------- 5. removal: nothing says protected
delete_pod 2 30 >/dev/null; RC=$?
OUT=$("$HOOK" status 2>&1); SRC=$?
C3=$(gpu_pod gpu-3); cri start "$C3" >/dev/null
CFG=$(config_of "$C3")
[ "$RC" = 0 ] && [ "$SRC" = 1 ] && [ ! -e "$PROM" ] && [ "$(jq -c '.hooks.createRuntime // []' "$CFG")" = "[]" ] &&
    pass "DaemonSet removed: status exits 1 (not protected), no metrics file remains, and a GPU pod now starts without the hook (NRI fails open, as documented)" ||
    fail "removal" "delete rc $RC status rc $SRC prom $(ls "$PROM" 2>&1) hooks $(jq -c .hooks "$CFG" 2>&1)"
finish
