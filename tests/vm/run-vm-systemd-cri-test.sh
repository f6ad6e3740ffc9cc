#!/bin/bash
# VM test: the NRI plugin under containerd with the systemd cgroup driver, as a kubelet node runs it.
# Debian 12's systemd 252 boots as PID 1 (cgroup v2) in QEMU with two memory nodes (node 1 has no
# CPU and holds the fake GPU's memory); upstream's containerd 2.2.7 runs as a systemd service with
# NRI on and runc's `SystemdCgroup = true`; gpu-numa-nri is registered; a CRI client
# (tests/engine/cri/cri_client.py) runs pods in kubelet's slices (kubepods-besteffort-pod<uid>.slice).
# The guest scenario (systemd-cri-guest.sh) checks a GPU container created with cpuset.mems "0", an
# UpdateContainerResources with cpuset_mems "0", daemon-reload after each, and a pod without a GPU.
#
#   tests/vm/run-vm-systemd-cri-test.sh [HOOK_BINARY [NRI_PLUGIN]]   (default: <repo>/build/...)
#
# Needs root, qemu-system-x86, mmdebstrap (the root file system, with python3-grpcio, is built once
# and cached: fetch-systemd-rootfs.sh), e2fsprogs, python3 with grpc_tools (python3-grpc-tools),
# busybox-static, a readable /boot kernel and initrd, and containerd 2.2.7 from shared/tools beside
# the repository (tests/nri/fetch-containerd.sh v2.2): without it the test exits 77 (skipped), a
# failure under CI=true. Environment: VM_TIMEOUT (default 480 s), VM_KEEP=1 keeps the work dir, VM_KERNEL.
# Exit 0 only when every check passed; the last line is `N passed, M failed`.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
PLUGIN=${2:-$(dirname "$HOOK")/gpu-numa-nri}
VM_TIMEOUT=${VM_TIMEOUT:-480}
T0=$(date +%s.%N)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=run-vm-systemd-cri-test

# Debian's python3, not another on PATH: its grpc_tools generates code for the guest's Debian 12
# python3-grpcio and python3-protobuf.
PY=/usr/bin/python3
vm_require_tools
for t in mkfs.ext4 tar "$PY"; do command -v "$t" >/dev/null || vm_die "missing tool: $t (apt-get install e2fsprogs tar python3)"; done
"$PY" -c 'import grpc_tools' 2>/dev/null || vm_die "python3's grpc_tools is missing (apt-get install python3-grpc-tools): it compiles the CRI client's proto"
KERNEL=$(vm_kernel)
INITRD=${VM_INITRD:-${KERNEL/vmlinuz/initrd.img}}
[ -r "$INITRD" ] || vm_die "no readable initrd $INITRD (the Debian kernel's; update-initramfs -c -k $(basename "${KERNEL#*vmlinuz-}"))"
[ -x "$HOOK" ] || vm_die "hook binary $HOOK not found or not executable"
[ -x "$PLUGIN" ] || vm_die "NRI plugin $PLUGIN not found or not executable"
HOOK=$(readlink -f "$HOOK")
PLUGIN=$(readlink -f "$PLUGIN")
for b in "$HOOK" "$PLUGIN"; do
	grep -q 'program interpreter' <<<"$(readelf -l "$b")" && vm_die "$b is dynamically linked; the guest gets it as a single file"
done
# Upstream's static containerd 2.2.7 (Debian 12 has only 1.6, whose NRI predates what this tests).
rc=0
CTD_ROOT=$(bash "$REPO/tests/nri/fetch-containerd.sh" v2.2) || rc=$?
if [ "$rc" = 77 ]; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: containerd 2.2.7 is not here (see the line above), and under CI=true that fails the test"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "run-vm-systemd-cri-test: SKIP: containerd 2.2.7 is not here (see the line above)"
	exit 77
fi
[ "$rc" = 0 ] || vm_die "tests/nri/fetch-containerd.sh v2.2 failed (exit $rc)"

vm_systemd_root cri
t=$(date +%s.%N)

# The programs under test, containerd, the CRI client (its proto compiled here, where grpc_tools is)
# and the scenario.
install -m 755 "$HOOK" "$ROOT/usr/local/bin/gpu-numa-hook"
install -m 755 "$PLUGIN" "$ROOT/usr/local/bin/gpu-numa-nri"
for b in containerd containerd-shim-runc-v2 ctr; do install -m 755 "$CTD_ROOT/usr/bin/$b" "$ROOT/usr/local/bin/$b"; done
mkdir -p "$ROOT/opt/gnh/fixture" "$ROOT/opt/gnh/cri" "$ROOT/etc/gpu-numa-hook" "$ROOT/etc/containerd"
"$PY" -m grpc_tools.protoc -I"$REPO/tests/engine/cri" --python_out="$ROOT/opt/gnh/cri" \
	--grpc_python_out="$ROOT/opt/gnh/cri" cri_subset.proto || vm_die "cannot compile tests/engine/cri/cri_subset.proto"
install -m 755 "$REPO/tests/engine/cri/cri_client.py" "$ROOT/opt/gnh/cri/cri_client.py"
install -m 755 "$HERE/systemd-cri-guest.sh" "$ROOT/opt/gnh/scenario.sh"
cp "$HERE/fixture/information" "$ROOT/opt/gnh/fixture/information"
# The image every pod runs (its sandbox too): busybox, whose default command sleeps.
mkdir -p "$WORK/img/bin" "$WORK/img/proc" "$WORK/img/sys" "$WORK/img/dev" "$WORK/img/tmp" "$WORK/img/etc"
cp "$(command -v busybox)" "$WORK/img/bin/busybox"
for a in sh sleep cat; do ln -sf busybox "$WORK/img/bin/$a"; done
"$PY" "$REPO/tests/engine/cri/make_image.py" "$ROOT/opt/gnh/image.tar" docker.io/gnh/busybox:vm "$WORK/img" sleep 2147483647 ||
	vm_die "tests/engine/cri/make_image.py failed"
# One log for the plugin and the hook it injects (the hook reads this file by default).
cat >"$ROOT/etc/gpu-numa-hook/config.toml" <<'CONF'
[log]
file = "/var/log/gpu-numa-hook.log"
CONF
# containerd as a kubelet node configures it: CRI with runc and the systemd cgroup driver; NRI is on
# by default in 2.x (/var/run/nri/nri.sock). Host-network pods only: no CNI.
cat >"$ROOT/etc/containerd/config.toml" <<'TOML'
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/gnh/busybox:vm"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = true
TOML
# containerd's own unit as upstream ships it (containerd.service), trimmed to what matters here:
# notify when ready, its shims stay in their own cgroups (KillMode=process, Delegate).
cat >"$ROOT/etc/systemd/system/containerd.service" <<'UNIT'
[Unit]
Description=containerd container runtime
After=local-fs.target dbus.service
[Service]
ExecStart=/usr/local/bin/containerd
Type=notify
Delegate=yes
KillMode=process
UNIT
cat >"$ROOT/etc/systemd/system/gpu-numa-nri.service" <<'UNIT'
[Unit]
Description=gpu-numa-hook's NRI plugin
After=containerd.service
[Service]
ExecStart=/usr/local/bin/gpu-numa-nri --socket /var/run/nri/nri.sock --hook /usr/local/bin/gpu-numa-hook --config /etc/gpu-numa-hook/config.toml
UNIT
# containerd copies the node's hosts and resolv.conf into host-network pods.
printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"
: >"$ROOT/etc/resolv.conf"
vm_systemd_scenario "$ROOT" "gpu-numa-hook systemd + containerd CRI scenario"
DISK=$WORK/disk.img
mkfs.ext4 -q -F -L gnh-root -d "$ROOT" "$DISK" 1400M
rm -rf "$ROOT"
echo "run-vm-systemd-cri-test: disk image built in $(vm_elapsed "$t")s"

# node 0: both CPUs and 768M; node 1: 512M, no CPU (where the fake GPU's memory is).
vm_systemd_boot "$WORK" "$DISK" 768
