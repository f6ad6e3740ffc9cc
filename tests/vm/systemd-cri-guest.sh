#!/bin/bash
# The scenario of run-vm-systemd-cri-test.sh, a oneshot unit under systemd 252 as PID 1: containerd
# 2.2.7 (a systemd service, runc with SystemdCgroup = true, NRI on) and gpu-numa-nri, driven over CRI
# as kubelet drives them. Prints PASS:/FAIL: lines on the serial console, then powers off.
set -u
exec >/dev/ttyS0 2>&1
T0=$(date +%s.%N)
BOOT_AT=$(cut -d" " -f1 /proc/uptime)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
# expect DESCRIPTION ACTUAL EXPECTED
expect() { if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1: got '$2', expected '$3'"; fi; }
phase() { echo "== phase $1 (t=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')s, $(cut -d' ' -f1 /proc/uptime)s since boot)"; }
mems() { cat "/sys/fs/cgroup/$1/cpuset.mems" 2>/dev/null || echo "(no $1)"; }
allowed() { systemctl show -p AllowedMemoryNodes --value "$1"; }
LOG=/var/log/gpu-numa-hook.log
SOCK=/run/containerd/containerd.sock
IMG=docker.io/gnh/busybox:vm
cri() { python3 /opt/gnh/cri/cri_client.py /opt/gnh/cri "$SOCK" "$@"; }
# wait_for FILE ERE: until FILE has a line matching ERE, polled every 0.2 s, 60 s at most.
wait_for() {
	for _ in $(seq 1 300); do
		[ "$(grep -c -E -- "$2" "$1" 2>/dev/null)" -ge 1 ] && return 0
		sleep 0.2
	done
	return 1
}
# state SCOPE_PATH: the container's cpuset.mems and its scope unit's AllowedMemoryNodes
state() { echo "$(mems "$1") unit:$(allowed "${1##*/}")"; }
# spec_field ID EXPR: a field of the OCI spec containerd stored for container ID (python's json)
spec_field() {
	ctr -n k8s.io containers info "$1" 2>/dev/null |
		python3 -c "import json,sys; s=json.load(sys.stdin)['Spec']; print($2)" 2>&1
}

phase setup
echo "systemd: $(systemctl --version | sed -n 1p); runc: $(runc --version | sed -n 1p); $(containerd --version); kernel $(uname -r)"
echo "nodes with memory: $(cat /sys/devices/system/node/has_memory); root cpuset.mems.effective: $(cat /sys/fs/cgroup/cpuset.mems.effective)"
echo "PID 1: $(cat /proc/1/comm); cgroup: $(stat -fc %T /sys/fs/cgroup)"
# The fake NVIDIA driver, in its real format (tests/vm/README.md): one GPU whose memory is node 1.
# Mounted in the root mount namespace, so containerd, the plugin and the hook all see it.
GPUDIR=/proc/driver/nvidia/gpus/0000:01:00.0
mount -t tmpfs -o mode=755 nvidia-fake /proc/driver
mkdir -p $GPUDIR
cp /opt/gnh/fixture/information $GPUDIR/information
printf 'Node:      1\nStatus:    online\n' >$GPUDIR/numa_status
mknod -m 666 /dev/nvidia0 c 195 0

phase containerd
systemctl start containerd.service || fail "systemctl start containerd: $(journalctl -u containerd --no-pager | tail -n 5 | tr '\n' ' ')"
VER=""
for _ in $(seq 1 150); do VER=$(cri version 2>/dev/null) && break; sleep 0.2; done
[ -n "$VER" ] && pass "containerd's CRI server answers: $VER" || fail "CRI server: no answer on $SOCK"
echo "runc options: $(containerd config dump 2>/dev/null | grep -E '^ *SystemdCgroup' | tr -s ' ')"
OUT=$(ctr -n k8s.io images import --local --snapshotter native /opt/gnh/image.tar 2>&1) || fail "image import: $OUT"
systemctl start gpu-numa-nri.service
wait_for $LOG 'gpu-numa-nri\[[0-9]+\] .*stage=nri-connect action=connected .*registered as 99-gpu-numa' &&
	pass "gpu-numa-nri registered with containerd: $(grep 'stage=nri-connect action=connected' $LOG | sed -n 1p | cut -c1-200)" ||
	fail "gpu-numa-nri did not register: $(tail -n 3 $LOG | tr '\n' ' ') $(journalctl -u gpu-numa-nri --no-pager | tail -n 3 | tr '\n' ' ')"

# pod UID -> kubelet's pod slice (dashes become underscores), in the QoS class's slice
GPU_UID=c0ffee00-0000-4000-8000-000000000001
GPU_SLICE=kubepods-besteffort-pod${GPU_UID//-/_}.slice
PLAIN_UID=c0ffee00-0000-4000-8000-000000000002
PLAIN_SLICE=kubepods-besteffort-pod${PLAIN_UID//-/_}.slice
PODS=kubepods.slice/kubepods-besteffort.slice

phase gpu-pod
# A GPU pod as kubelet runs it with the CPU/Memory Manager pinning it to node 0: /dev/nvidia0 and
# cpuset_mems "0". The plugin adds its hook; the hook widens the cgroup and the scope unit.
SB=$(cri run-sandbox gpu "$GPU_UID" "" "$GPU_SLICE" /var/log/pods) || fail "RunPodSandbox gpu: $SB"
C=$(cri create "$SB" gpu "$GPU_UID" "$GPU_SLICE" /var/log/pods cuda "$IMG" 'exec sleep 3600' \
	--device /dev/nvidia0:/dev/nvidia0 --mems 0) || fail "CreateContainer cuda: $C"
OUT=$(cri start "$C") || fail "StartContainer cuda: $OUT"
SCOPE=$PODS/$GPU_SLICE/cri-containerd-$C.scope
expect "containerd gave runc a systemd-form cgroups path (SystemdCgroup = true)" \
	"$(spec_field "$C" "s['linux']['cgroupsPath']")" "$GPU_SLICE:cri-containerd:$C"
expect "the container's spec asks for cpuset.mems 0" "$(spec_field "$C" "s['linux']['resources']['cpu']['mems']")" "0"
grep -E "container=$C .*stage=createRuntime" $LOG
expect "the hook widened the scope's cpuset.mems and set its unit's AllowedMemoryNodes" "$(state "$SCOPE")" "0-1 unit:0-1"
grep -c -E "gpu-numa-hook\[[0-9]+\] container=$C pod=default/gpu name=cuda stage=createRuntime action=patch .*systemd AllowedMemoryNodes: .*cri-containerd-$C\.scope=0-1" $LOG >/dev/null &&
	pass "hook log: the injected hook patched the container and told systemd about its scope" ||
	fail "hook log: no 'container=$C pod=default/gpu name=cuda stage=createRuntime action=patch ... systemd AllowedMemoryNodes: ...cri-containerd-$C.scope=0-1'"
pid=$(sed -n 1p "/sys/fs/cgroup/$SCOPE/cgroup.procs" 2>/dev/null)
expect "the container's process may use node 1" "$(sed -n 's/^Mems_allowed_list:\s*//p' "/proc/${pid:-0}/status" 2>/dev/null)" "0-1"
# A second GPU container in the pod, left alone until the control at the end.
C2=$(cri create "$SB" gpu "$GPU_UID" "$GPU_SLICE" /var/log/pods cuda2 "$IMG" 'exec sleep 3600' \
	--device /dev/nvidia0:/dev/nvidia0 --mems 0) || fail "CreateContainer cuda2: $C2"
OUT=$(cri start "$C2") || fail "StartContainer cuda2: $OUT"
SCOPE2=$PODS/$GPU_SLICE/cri-containerd-$C2.scope
expect "a second GPU container: the same (scope and unit 0-1)" "$(state "$SCOPE2")" "0-1 unit:0-1"
systemctl daemon-reload
expect "after daemon-reload the scope keeps node 1 (its unit says 0-1)" "$(state "$SCOPE")" "0-1 unit:0-1"

CGFILE=/sys/fs/cgroup/$SCOPE/cpuset.mems
last_update() { grep "container=$C stage=nri-update" $LOG | tail -n 1; }

phase update-cpus
# kubelet's CPU Manager sets cpus only: containerd re-applies the stored spec's mems "0" (from
# before the hook), and runc would set the unit to 0 with it. The plugin answers with the mems the
# scope has now.
OUT=$(cri update-cpus "$C" 1)
expect "cpus-only UpdateContainerResources (cpuset_cpus=1) succeeds and reaches the scope" "$OUT $(cat "/sys/fs/cgroup/$SCOPE/cpuset.cpus")" "ok 1"
grep "container=$C stage=nri-update" $LOG
grep -c -F -- "container=$C stage=nri-update action=patch gpus=/dev/nvidia0(0000:01:00.0) required=1 mems-before=0-1 mems-after=0-1 cgroup=$CGFILE duration-us=" <<<"$(last_update)" >/dev/null &&
	grep -c -F -- "update sets no cpuset.mems, so the runtime re-applies the spec's 0 (from before the hook widened it), which drops GPU memory node(s) 1 " <<<"$(last_update)" >/dev/null &&
	pass "plugin log: the cpus-only update would re-apply the spec's 0; it read $CGFILE and asked for 0-1" ||
	fail "plugin log: no 'stage=nri-update action=patch ... cgroup=$CGFILE ... update sets no cpuset.mems, so the runtime re-applies the spec's 0'"
expect "after the cpus-only update the scope and its unit keep node 1" "$(state "$SCOPE")" "0-1 unit:0-1"

phase update
# kubelet's CPU/Memory Manager re-applies cpuset_mems "0": the plugin reads the container's real
# cgroup through the systemd-form path, keeps node 1; runc's systemd driver sets the unit's property.
n=$(grep -c "container=$C stage=nri-update" $LOG)
OUT=$(cri update "$C" 0)
expect "UpdateContainerResources cpuset_mems=0 succeeds" "$OUT" "ok"
grep "container=$C stage=nri-update" $LOG
expect "the plugin logged one more patched update" "$(grep -c "container=$C stage=nri-update" $LOG)" "$((n + 1))"
grep -c -F -- "container=$C stage=nri-update action=patch gpus=/dev/nvidia0(0000:01:00.0) required=1 mems-before=0-1 mems-after=0-1 cgroup=$CGFILE " <<<"$(last_update)" >/dev/null &&
	pass "plugin log: it read the scope's real cgroup ($CGFILE: 0-1) and asked for 0-1" ||
	fail "plugin log: no 'stage=nri-update action=patch ... mems-before=0-1 mems-after=0-1 cgroup=$CGFILE'"
grep -c -E -- "container=$C stage=nri-update action=patch .*update asked for cpuset.mems 0, which drops GPU memory node\(s\) 1 " <<<"$(last_update)" >/dev/null &&
	pass "plugin log: the update asked for 0, which drops node 1" ||
	fail "plugin log: no 'update asked for cpuset.mems 0, which drops GPU memory node(s) 1'"
expect "after the update the scope and its unit keep node 1" "$(state "$SCOPE")" "0-1 unit:0-1"
systemctl daemon-reload
expect "after the update and daemon-reload the scope keeps node 1" "$(state "$SCOPE")" "0-1 unit:0-1"

phase plain-pod
# A pod without a GPU: no hook, mems as asked.
SB0=$(cri run-sandbox plain "$PLAIN_UID" "" "$PLAIN_SLICE" /var/log/pods) || fail "RunPodSandbox plain: $SB0"
C0=$(cri create "$SB0" plain "$PLAIN_UID" "$PLAIN_SLICE" /var/log/pods app "$IMG" 'exec sleep 3600' --mems 0) ||
	fail "CreateContainer app: $C0"
OUT=$(cri start "$C0") || fail "StartContainer app: $OUT"
expect "a container without a GPU keeps cpuset.mems 0 and its unit 0" "$(state "$PODS/$PLAIN_SLICE/cri-containerd-$C0.scope")" "0 unit:0"
expect "no hook or plugin line names it" "$(grep -c "container=$C0" $LOG)" "0"

phase plugin-stopped
# The controls: without the plugin the same updates do take node 1 away (runc sets the unit to 0),
# so the 0-1 above was the plugin's doing.
systemctl stop gpu-numa-nri.service
OUT=$(cri update "$C" 0)
expect "without the plugin, UpdateContainerResources cpuset_mems=0 leaves the GPU container on node 0" "$OUT $(state "$SCOPE")" "ok 0 unit:0"
OUT=$(cri update-cpus "$C2" 1)
expect "without the plugin, a cpus-only update re-applies the spec's stale 0 to the second GPU container" "$OUT $(state "$SCOPE2")" "ok 0 unit:0"

phase remove-pods
# As kubelet removes pods: their containers and scopes go (and nothing is left for the power-off
# to wait on: a container's sleep as PID 1 ignores SIGTERM).
for sb in "$SB" "$SB0"; do
	OUT=$(cri stop-sandbox "$sb") && OUT=$(cri remove-sandbox "$sb") || fail "StopPodSandbox/RemovePodSandbox $sb: $OUT"
done
expect "no container scope is left under kubepods.slice" \
	"$(find /sys/fs/cgroup/kubepods.slice -name 'cri-containerd-*.scope' 2>/dev/null | wc -l)" "0"
systemctl stop containerd.service

phase end
echo "---- hook and plugin log ----"
cat $LOG
echo "---- containerd's NRI lines ----"
journalctl -u containerd --no-pager | grep -i nri
echo "scenario took $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')s, started ${BOOT_AT}s after boot"
echo VMTEST-DONE
sync
systemctl poweroff -f
