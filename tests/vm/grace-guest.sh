#!/bin/busybox sh
# shellcheck shell=dash
# /init of the Grace VM test (run-vm-grace-test.sh packs this file as /init). cgroup v2, node 1 a
# CPU-less memory node with no memory yet, a GH200-shaped fake driver (Model GH200, PCI id 0x2342,
# numa_status offline, auto_online_blocks online_movable): the GPU not initialized because
# persistence mode is off. Containers start with and without the hook; then the "driver" brings
# node 1's memory online (here: the guest onlines the pc-dimm's offline blocks as movable memory, as
# the driver's add_memory_driver_managed does under auto_online_blocks=online_movable), and the
# containers' first touch of node 1 is checked. One PASS:/FAIL: line per outcome.

# shellcheck disable=SC1091 # packed next to this file by the run script
. /guest-boot.sh

NPASS=0
NFAIL=0
pass() { echo "PASS: $1"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $1: $2"; NFAIL=$((NFAIL + 1)); }
finish() {
	echo "---- hook log ----"
	sed 's/^/  log| /' /var/log/gpu-numa-hook.log 2>/dev/null
	echo "GUEST-SUMMARY: $NPASS passed, $NFAIL failed"
	echo "VMTEST-DONE"
	sync
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 5
}

CG=/sys/fs/cgroup
mount -t cgroup2 none $CG || { fail setup "cannot mount cgroup2"; finish; }
echo "+cpuset +memory +pids" >$CG/cgroup.subtree_control
mkdir -p $CG/system.slice
echo "+cpuset +memory +pids" >$CG/system.slice/cgroup.subtree_control
echo online_movable >/sys/devices/system/memory/auto_online_blocks
echo "  kernel $(uname -r); nodes possible=$(cat /sys/devices/system/node/possible) has_memory=$(cat /sys/devices/system/node/has_memory); root cpuset.mems.effective=$(cat $CG/cpuset.mems.effective); auto_online_blocks=$(cat /sys/devices/system/memory/auto_online_blocks)"

# The fake driver in its real formats; the PCI device's id where the driver's probe reads it.
GPUDIR=/proc/driver/nvidia/gpus/0000:01:00.0
mount -t tmpfs -o mode=755 nvidia-fake /proc/driver
mkdir -p $GPUDIR
cp /fixture/information $GPUDIR/information
printf 'Node:      1\nStatus:    offline\n' >$GPUDIR/numa_status
mount -t tmpfs -o mode=755 pci-fake /sys/bus/pci/devices
mkdir -p /sys/bus/pci/devices/0000:01:00.0
echo 0x2342 >/sys/bus/pci/devices/0000:01:00.0/device
echo 0 >/sys/bus/pci/devices/0000:01:00.0/numa_node
mknod -m 666 /dev/nvidia0 c 195 0
mknod -m 666 /dev/nvidia0ctl c 195 255 2>/dev/null

if has_node "$(cat /sys/devices/system/node/has_memory)" 1; then
	fail setup "node 1 already has memory ($(cat /sys/devices/system/node/has_memory))"
	finish
fi

RUNC="runc --root /run/runc"
# start CTR: runc run in the background; exit status into /tmp/CTR.rc when it ends.
start() {
	# shellcheck disable=SC2086
	($RUNC run --no-pivot --bundle "/bundles/$1" "$1" </dev/null >"/tmp/$1.out" 2>&1; echo $? >"/tmp/$1.rc") &
	i=0
	while ! grep -q '^ctr: started' "/tmp/$1.out" 2>/dev/null && [ ! -f "/tmp/$1.rc" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "  started $1: $(head -n 3 "/tmp/$1.out" | tr '\n' ' ')"
}
state() { echo "cpuset.mems='$(cat "$CG/system.slice/$1/cpuset.mems" 2>&1)' effective=$(cat "$CG/system.slice/$1/cpuset.mems.effective" 2>&1)"; }

for c in gr-inherit gr-explicit gr-nohook; do start $c; done
for c in gr-inherit gr-explicit gr-nohook; do echo "  $c before: $(state $c)"; done

if grep -q '^ctr: started: Mems_allowed_list:[[:space:]]*0$' /tmp/gr-inherit.out &&
	grep 'container=gr-inherit ' /var/log/gpu-numa-hook.log | grep -q 'action=allow .*inherits NUMA node 1 when the driver adds it'; then
	pass "inherit: the hook allows the start while node 1 has no memory (logged why), Mems_allowed_list 0"
else
	fail "inherit: allowed" "$(cat /tmp/gr-inherit.out) log: $(grep gr-inherit /var/log/gpu-numa-hook.log)"
fi
if [ "$(cat $CG/system.slice/gr-explicit/cpuset.mems)" = 0-1 ] && [ "$(cat $CG/system.slice/gr-explicit/cpuset.mems.effective)" = 0 ] &&
	grep 'container=gr-explicit ' /var/log/gpu-numa-hook.log | grep -q 'action=patch'; then
	pass "explicit: the hook writes the possible node 1 into cpuset.mems (0-1) before it has memory; effective 0"
else
	fail "explicit: node written early" "$(state gr-explicit); log: $(grep gr-explicit /var/log/gpu-numa-hook.log)"
fi

# The "driver" adds node 1's memory, after the containers started (the GPU's first client).
n=0
for m in /sys/devices/system/memory/memory*; do
	[ -e "$m/node1" ] || continue
	[ "$(cat "$m/state")" = offline ] && echo online_movable >"$m/state" && n=$((n + 1))
done
printf 'Node:      1\nStatus:    online\n' >$GPUDIR/numa_status
echo "  driver: onlined $n blocks of node 1; has_memory=$(cat /sys/devices/system/node/has_memory)"

# The two hooked containers end by themselves once numa_touch ran.
i=0
while { [ ! -f /tmp/gr-inherit.rc ] || [ ! -f /tmp/gr-explicit.rc ]; } && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
for c in gr-inherit gr-explicit; do
	sed 's/^/  | /' "/tmp/$c.out"
	if [ "$(cat /tmp/$c.rc 2>/dev/null)" = 0 ] && grep -q '^numa_touch: node 1: OK' "/tmp/$c.out"; then
		pass "$c: node 1 reached the running container when the driver added it; first touch of node 1 OK ($(sed -n 's/^ctr: after waiting: //p' /tmp/$c.out))"
	else
		fail "$c: first touch of node 1" "exit $(cat /tmp/$c.rc 2>/dev/null), $(grep -E '^(ctr|numa_touch):' /tmp/$c.out | tr '\n' ' ')"
	fi
done
eff=$(cat $CG/system.slice/gr-nohook/cpuset.mems.effective 2>/dev/null)
if [ "$eff" = 0 ]; then
	pass "nohook: without the hook the container's explicit mems 0 never gain node 1 (effective $eff)"
else
	fail "nohook: effective stays 0" "$(state gr-nohook)"
fi
$RUNC kill gr-nohook KILL >/dev/null 2>&1
i=0
while [ ! -f /tmp/gr-nohook.rc ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
for c in gr-inherit gr-explicit gr-nohook; do $RUNC delete -f $c >/dev/null 2>&1; done
finish
