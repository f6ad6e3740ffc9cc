#!/bin/bash
# The systemd VM's scenario (run-vm-systemd-test.sh), a oneshot unit under systemd 252 as PID 1.
# Prints PASS:/FAIL:/FINDING: lines on the serial console, then powers off.
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
RUNC="runc --systemd-cgroup"
# systemd nests slices by their dashes: gnh-on.slice is gnh.slice/gnh-on.slice.
ON=gnh.slice/gnh-on.slice/gnh-ctr-on.scope
OFF=gnh.slice/gnh-off.slice/gnh-ctr-off.scope
UPD=system.slice/gnh-ctr-upd.scope
# crun puts the container in a "container" sub-cgroup of its scope (its default with systemd).
CRN=gnh.slice/gnh-crun.slice/gnh-ctr-crun.scope/container
effective() { cat "/sys/fs/cgroup/$1/cpuset.mems.effective" 2>/dev/null || echo "(no $1)"; }
state() { # the scope and its parent slice: cpuset.mems and the units' AllowedMemoryNodes
	local scope=$1 slice=${1%/*}
	echo "$(mems "$slice")/$(mems "$scope") unit:$(allowed "${slice##*/}")/$(allowed "${scope##*/}")"
}

phase setup
echo "systemd: $(systemctl --version | head -1); runc: $(runc --version | head -1); crun: $(crun --version | head -1); kernel $(uname -r)"
echo "nodes with memory: $(cat /sys/devices/system/node/has_memory); root cpuset.mems.effective: $(cat /sys/fs/cgroup/cpuset.mems.effective)"
echo "PID 1: $(cat /proc/1/comm); cgroup: $(stat -fc %T /sys/fs/cgroup)"
# The fake NVIDIA driver, in its real format (tests/vm/README.md): one GPU whose memory is node 1.
GPUDIR=/proc/driver/nvidia/gpus/0000:01:00.0
mount -t tmpfs -o mode=755 nvidia-fake /proc/driver
mkdir -p $GPUDIR
cp /opt/gnh/fixture/information $GPUDIR/information
printf 'Node:      1\nStatus:    online\n' >$GPUDIR/numa_status
mknod -m 666 /dev/nvidia0 c 195 0
mkdir -p /opt/gnh/rootfs/{bin,proc,sys,dev,tmp,etc}
cp /bin/busybox /opt/gnh/rootfs/bin/busybox
for a in sh sleep cat; do ln -sf busybox /opt/gnh/rootfs/bin/$a; done
systemctl start gnh-idle.service

start() { # ID
	local t
	t=$(date +%s.%N)
	if $RUNC run -d --bundle "/opt/gnh/bundles/$1" "$1" </dev/null >"/tmp/$1.out" 2>&1; then
		echo "started $1 in $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')s"
	else
		fail "$1: runc run failed: $(tr '\n' ' ' <"/tmp/$1.out")"
	fi
}
phase start-containers
# ctr-on last: the first start in a fresh VM is the slowest, and the hook's duration-us of ctr-on
# against ctr-off's is the cost of the D-Bus call.
start ctr-off
start ctr-upd
start ctr-on
if crun --systemd-cgroup run -d --bundle /opt/gnh/bundles/ctr-crun ctr-crun </dev/null >/tmp/ctr-crun.out 2>&1; then
	echo "started ctr-crun (crun); its status: $(tr -d '\n' </run/crun/ctr-crun/status)"
else
	fail "ctr-crun: crun run failed: $(tr '\n' ' ' </tmp/ctr-crun.out)"
fi
expect "crun: the hook widened the container's cgroup" "$(effective $CRN)" "0-1"
grep -E 'container=ctr-' /var/log/gpu-numa-hook.log
echo "hook run times: $(sed -n 's/.*container=\(ctr-[a-z]*\) stage=prestart.* duration-us=\([0-9]*\).*/\1=\2us/p' /var/log/gpu-numa-hook.log | tr '\n' ' ')"
expect "with the durable step: the hook patched scope and slice, and set both units' AllowedMemoryNodes" "$(state $ON)" "0-1/0-1 unit:0-1/0-1"
expect "without it: the hook patched scope and slice; the units keep runc's AllowedMemoryNodes=0" "$(state $OFF)" "0-1/0-1 unit:0/0"
grep 'container=ctr-on ' /var/log/gpu-numa-hook.log | grep -q 'action=patch.*systemd AllowedMemoryNodes: gnh-on.slice=0-1, gnh-ctr-on.scope=0-1' &&
	pass "hook log: ctr-on patched and systemd told for the slice and the scope" ||
	fail "hook log: no 'action=patch ... systemd AllowedMemoryNodes: gnh-on.slice=0-1, gnh-ctr-on.scope=0-1' for ctr-on"
grep 'container=ctr-off ' /var/log/gpu-numa-hook.log | grep 'action=patch' | grep -qv 'systemd' &&
	pass "hook log: ctr-off patched, systemd not told (allowed-memory-nodes = false)" ||
	fail "hook log: ctr-off line missing or mentions systemd"
expect "ctr-upd (system.slice, no durable step): scope patched, unit keeps 0" "$(mems $UPD) unit:$(allowed gnh-ctr-upd.scope)" "0-1 unit:0"

phase shim-update
# kubelet's CPU Manager (or `docker update --cpuset-mems 0`) asks for node 0 only: the shim keeps
# the GPU's node and runc, with the systemd driver, sets the unit's property itself.
gpu-numa-runtime --systemd-cgroup update --cpuset-mems 0 ctr-upd >/tmp/upd.out 2>&1
echo "gpu-numa-runtime update rc=$?: $(tr '\n' ' ' </tmp/upd.out)"
grep 'container=ctr-upd .*stage=runtime-update' /var/log/gpu-numa-hook.log
expect "shim update: runc got 0-1, scope and its unit's AllowedMemoryNodes are 0-1" "$(mems $UPD) unit:$(allowed gnh-ctr-upd.scope)" "0-1 unit:0-1"

phase what-systemd-does
# What systemd does to a widened cpuset.mems whose unit still says 0 (ctr-off), step by step.
systemctl set-property --runtime gnh-idle.service CPUWeight=50
echo "FINDING: set-property on an unrelated service: ctr-off slice/scope $(state $OFF)"
systemctl set-property --runtime system.slice CPUWeight=60
echo "FINDING: set-property on another slice (system.slice): ctr-off $(state $OFF)"
systemctl restart gnh-idle.service
echo "FINDING: restart of an unrelated service: ctr-off $(state $OFF)"
systemctl set-property --runtime gnh-off.slice CPUWeight=70
echo "FINDING: set-property on the container's parent slice: ctr-off $(state $OFF)"
systemctl set-property --runtime gnh-ctr-off.scope CPUWeight=80
echo "FINDING: set-property on the container's own scope: ctr-off $(state $OFF)"
systemctl set-property --runtime gnh-ctr-on.scope CPUWeight=80
expect "with the durable step, set-property on the container's own scope keeps node 1" "$(state $ON)" "0-1/0-1 unit:0-1/0-1"

phase daemon-reload
systemctl daemon-reload
echo "FINDING: daemon-reload: ctr-on $(state $ON); ctr-off $(state $OFF); ctr-upd $(mems $UPD) unit:$(allowed gnh-ctr-upd.scope)"
expect "WITH the durable step: after daemon-reload the scope and slice still hold node 1" "$(state $ON)" "0-1/0-1 unit:0-1/0-1"
expect "WITHOUT it: after daemon-reload systemd has taken node 1 away again" "$(mems $OFF)" "0"
expect "shim update: after daemon-reload runc's AllowedMemoryNodes=0-1 keeps node 1" "$(mems $UPD)" "0-1"
expect "crun, without the durable step: after daemon-reload its cgroup lost node 1" "$(effective $CRN)" "0"
pid=$($RUNC state ctr-on | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
expect "ctr-on's process still may use node 1" "$(sed -n 's/^Mems_allowed_list:\s*//p' /proc/$pid/status)" "0-1"
pid=$($RUNC state ctr-off | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
expect "ctr-off's process lost node 1" "$(sed -n 's/^Mems_allowed_list:\s*//p' /proc/$pid/status)" "0"

phase check-drift
gpu-numa-hook check >/tmp/check.out 2>&1
rc=$?
cat /tmp/check.out
expect "check exits 1 for a running GPU container that lost its GPU's node" "$rc" "1"
grep -q 'ctr-off' /tmp/check.out && pass "check names ctr-off" || fail "check does not name ctr-off"
grep -q 'ctr-on' /tmp/check.out && fail "check names ctr-on, which has its node" || pass "check does not name ctr-on"
grep -q "  ctr-crun  /$CRN  " /tmp/check.out && pass "check names ctr-crun (crun's state) with its cgroup" ||
	fail "check does not name ctr-crun with /$CRN"
gpu-numa-hook check --json >/tmp/check.json 2>/dev/null
grep -q '"container": "ctr-off"' /tmp/check.json && pass "check --json names ctr-off" || fail "check --json: $(head -c 600 /tmp/check.json)"
gpu-numa-hook check --prometheus /tmp/check.prom >/dev/null 2>&1
grep 'gpu_numa_hook_containers_lost_gpu_node' /tmp/check.prom
expect "Prometheus: two containers lost a GPU node (runc's ctr-off, crun's ctr-crun)" "$(awk '$1=="gpu_numa_hook_containers_lost_gpu_node"{print $2}' /tmp/check.prom)" "2"
gpu-numa-hook check --fix >/tmp/fix.out 2>&1
rc=$?
cat /tmp/fix.out
expect "check --fix exits 0" "$rc" "0"
expect "check --fix re-applied node 1 through the durable path (cgroups and units)" "$(state $OFF)" "0-1/0-1 unit:0-1/0-1"
expect "check --fix re-patched crun's container" "$(effective $CRN)" "0-1"
systemctl daemon-reload
expect "after check --fix, daemon-reload keeps node 1 for ctr-off" "$(state $OFF)" "0-1/0-1 unit:0-1/0-1"
expect "after check --fix, daemon-reload keeps node 1 for ctr-crun" "$(effective $CRN)" "0-1"
gpu-numa-hook check >/dev/null 2>&1
expect "check exits 0 afterwards" "$?" "0"

phase end
# The hook made its D-Bus calls from inside its sandbox: nothing in its log says the sandbox was
# incomplete or a call was denied (everything runs as root: an EPERM can only be the filter's).
if grep -E -q 'sandbox incomplete|EPERM|Operation not permitted' /var/log/gpu-numa-hook.log; then
	fail "hook log mentions an incomplete sandbox or a denied call: $(grep -E 'sandbox incomplete|EPERM|Operation not permitted' /var/log/gpu-numa-hook.log | head -1)"
else
	pass "the hook's D-Bus calls ran inside its full sandbox (no 'sandbox incomplete', no EPERM in its log)"
fi
for c in ctr-on ctr-off ctr-upd; do $RUNC delete -f $c >/dev/null 2>&1; done
crun --systemd-cgroup delete -f ctr-crun >/dev/null 2>&1
echo "---- hook log ----"
cat /var/log/gpu-numa-hook.log
echo "scenario took $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')s, started ${BOOT_AT}s after boot"
echo VMTEST-DONE
sync
systemctl poweroff -f
