#!/bin/busybox sh
# shellcheck disable=SC2012 # ls of cgroup/sysfs names, which hold no odd characters
# /init of the test VM (see run-vm-test.sh, which packs this file as /init).
#
# Reproduces the cgroup v1 cpuset race on a real kernel: node 1 is a CPU-less memory node whose
# memory is onlined late (as nvidia-persistenced does); the slices created before that keep
# cpuset.mems=0. Then it runs the scenarios and prints one `PASS: <name>` / `FAIL: <name>: <detail>`
# / `SKIP: <name>: <why>` line per asserted outcome; the host counts them.
# Every line the host parses starts at column 0; everything else is indented or prefixed.

# shellcheck disable=SC1091 # packed next to this file by the run script
. /guest-boot.sh

# shellcheck disable=SC1091 # written by run-vm-test.sh
. /etc/vmtest.env # HOOK_PRESENT=0|1

NPASS=0
NFAIL=0
pass() { echo "PASS: $1"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $1: $2"; NFAIL=$((NFAIL + 1)); }
skip() { echo "SKIP: $1: $2"; }
now() { cut -d' ' -f1 /proc/uptime; }
T_PHASE=
P_PHASE=
phase() { # phase NAME: say how long the previous phase took, start a new one
	t=$(now)
	if [ -n "$T_PHASE" ]; then
		echo "== phase $P_PHASE took $(awk -v a="$T_PHASE" -v b="$t" 'BEGIN{printf "%.2f", b-a}')s"
	fi
	[ "$1" = end ] || echo "== phase $1 (t=${t}s since boot)"
	T_PHASE=$t
	P_PHASE=$1
}
finish() {
	phase end
	echo "---- hook log (/var/log/gpu-numa-hook.log) ----"
	if [ -f /var/log/gpu-numa-hook.log ]; then sed 's/^/  log| /' /var/log/gpu-numa-hook.log; else echo "  (no log file)"; fi
	echo "---- end of hook log ----"
	echo "GUEST-SUMMARY: $NPASS passed, $NFAIL failed"
	echo "VMTEST-DONE"
	sync
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 5
}


CS=/sys/fs/cgroup/cpuset
mems() { cat "$CS/$1/cpuset.mems" 2>/dev/null || echo "<missing>"; }

phase setup
echo "  kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus"
echo "  nodes possible=$(cat /sys/devices/system/node/possible) online=$(cat /sys/devices/system/node/online) has_memory=$(cat /sys/devices/system/node/has_memory) has_cpu=$(cat /sys/devices/system/node/has_cpu)"

# cgroup v1, as on an AC922 host: every controller on its own hierarchy (runc needs devices;
# the rest are mounted where the kernel has them).
mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup
for c in cpuset cpu,cpuacct blkio memory devices freezer net_cls,net_prio perf_event hugetlb pids rdma misc; do
	mkdir -p "/sys/fs/cgroup/$c"
	if ! mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" 2>/dev/null; then
		rmdir "/sys/fs/cgroup/$c"
	fi
done
[ -d /sys/fs/cgroup/cpu,cpuacct ] && ln -s cpu,cpuacct /sys/fs/cgroup/cpu && ln -s cpu,cpuacct /sys/fs/cgroup/cpuacct
[ -d /sys/fs/cgroup/net_cls,net_prio ] && ln -s net_cls,net_prio /sys/fs/cgroup/net_cls && ln -s net_cls,net_prio /sys/fs/cgroup/net_prio
echo "  cgroup v1 hierarchies: $(ls /sys/fs/cgroup | tr '\n' ' ')"
if [ ! -f $CS/cpuset.mems ]; then
	fail setup "cpuset hierarchy not mounted"
	finish
fi

# The slices a host creates at boot, before the GPU memory is onlined (systemd/dockerd/kubelet
# copy the parent's cpus/mems into a new cpuset, as cgroup v1 requires).
mkslice() {
	for c in /sys/fs/cgroup/*/; do
		[ -L "${c%/}" ] && continue
		mkdir -p "$c$1"
	done
	_p=$CS
	_old=$IFS
	IFS=/
	for _d in $1; do
		_p=$_p/$_d
		[ -s "$_p/cpuset.cpus" ] || cat "${_p%/*}/cpuset.cpus" >"$_p/cpuset.cpus"
		[ -s "$_p/cpuset.mems" ] || cat "${_p%/*}/cpuset.mems" >"$_p/cpuset.mems"
	done
	IFS=$_old
}
SLICES="docker system.slice kubepods.slice/kubepods-burstable.slice kubepods.slice/kubepods-burstable.slice/pod-x machine.slice"
for s in $SLICES; do mkslice "$s"; done
echo "  before onlining: root mems=$(cat $CS/cpuset.mems), $(for s in $SLICES; do printf '%s=%s ' "$s" "$(mems "$s")"; done)"

# The fake NVIDIA driver, in its real format: one coherent GPU, minor 0, memory node 1.
GPUDIR=/proc/driver/nvidia/gpus/0000:01:00.0
mkdir -p /proc/driver 2>/dev/null
mount -t tmpfs -o mode=755 nvidia-fake /proc/driver
mkdir -p $GPUDIR
cp /fixture/information $GPUDIR/information
set_numa_status() { printf 'Node:      %d\nStatus:    %s\n' 1 "$1" >$GPUDIR/numa_status; }
set_numa_status online_in_progress
mknod -m 666 /dev/nvidia0 c 195 0
mknod -m 666 /dev/nvidiactl c 195 255
echo "  fake driver: $(ls /proc/driver/nvidia/gpus) numa_status: $(tr '\n' ' ' <$GPUDIR/numa_status)"

RUNC="runc --root /run/runc" # word-split on purpose below
# run_ctr ID: runc run of bundle /bundles/ID (cgroupsPath .../ID), output in /tmp/ID.out, exit status in RC
run_ctr() {
	echo "  \$ runc run --no-pivot --bundle /bundles/$1 $1   ($(jq_cg "$1"), hook: $(grep -q gpu-numa-hook "/bundles/$1/config.json" && echo yes || echo no))"
	_t=$(now)
	# shellcheck disable=SC2086
	timeout 60 $RUNC run --no-pivot --bundle "/bundles/$1" "$1" </dev/null >"/tmp/$1.out" 2>&1
	RC=$?
	sed 's/^/  | /' "/tmp/$1.out"
	echo "  (exit $RC, $(awk -v a="$_t" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}')s)"
	$RUNC delete -f "$1" >/dev/null 2>&1
}
jq_cg() { grep -o '"cgroupsPath": *"[^"]*"' "/bundles/$1/config.json" | sed 's/.*: *//'; }
ctr_mems() { sed -n 's/^numa_touch: Mems_allowed_list: //p' "/tmp/$1.out" | head -n1; }

# expect_refused SCENARIO CTR PATTERN PASS-TEXT: after run_ctr CTR, runc failed with our refusal line
# matching PATTERN (a grep regex after "refusing start"), and the container's process never ran.
expect_refused() {
	if [ "$RC" -ne 0 ] && grep -q "gpu-numa-hook: container $2: refusing start$3" "/tmp/$2.out"; then
		pass "$1: $4"
	else
		fail "$1: start refused" "runc exit $RC; want non-zero and 'gpu-numa-hook: container $2: refusing start$3' in its output"
	fi
	if grep -q '^numa_touch:' "/tmp/$2.out"; then
		fail "$1: container process did not run" "numa_touch ran: $(grep '^numa_touch: node' "/tmp/$2.out")"
	else
		pass "$1: container process did not run"
	fi
}

# ---------------------------------------------------------------------------------------------
phase d-gpu-memory-not-online
# The container starts while the driver still reports online_in_progress and node 1's memory is
# offline (persistenced not done yet). Policy patch (the default): the hook must refuse.
if [ "$HOOK_PRESENT" = 1 ]; then
	before=$(mems docker)
	run_ctr ctr-d
	expect_refused d ctr-d ':.*not online' "GPU memory not online: start refused, message says 'not online'"
	if [ "$(mems docker)" = "$before" ] && [ ! -d $CS/docker/ctr-d ]; then
		pass "d: /docker cpuset.mems unchanged ($before), no container cgroup left"
	else
		fail "d: /docker untouched" "mems $before -> $(mems docker); leftover dir: $(ls -d $CS/docker/ctr-d 2>&1)"
	fi
else
	skip "d" "no hook binary"
fi

# ---------------------------------------------------------------------------------------------
phase online-node-1
# What nvidia-persistenced does: online the GPU's memory blocks as movable memory.
n=0
for m in /sys/devices/system/memory/memory*; do
	[ -e "$m/node1" ] || continue
	if [ "$(cat "$m/state")" = offline ]; then
		echo online_movable >"$m/state" && n=$((n + 1))
	fi
done
# The top cpuset gains the node from the kernel's hotplug work, asynchronously: wait a little.
i=0
while ! has_node "$(cat $CS/cpuset.mems)" 1 && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
set_numa_status online
echo "  onlined $n memory blocks of node 1; has_memory=$(cat /sys/devices/system/node/has_memory)"
echo "  after onlining: root mems=$(cat $CS/cpuset.mems), $(for s in $SLICES; do printf '%s=%s ' "$s" "$(mems "$s")"; done)"
if [ "$n" -gt 0 ] && [ "$(cat $CS/cpuset.mems)" = 0-1 ]; then
	pass "race: node 1 onlined late ($n blocks), root cpuset.mems=0-1"
else
	fail "race: node 1 onlined late" "onlined $n blocks, root cpuset.mems=$(cat $CS/cpuset.mems)"
	finish
fi
stale=""
for s in $SLICES; do [ "$(mems "$s")" = 0 ] || stale="$stale $s=$(mems "$s")"; done
if [ -z "$stale" ]; then
	pass "race: slices created before onlining stayed stale (cpuset.mems=0)"
else
	fail "race: slices stayed stale" "not 0:$stale"
fi

# ---------------------------------------------------------------------------------------------
phase a-no-hook
run_ctr ctr-a
m=$(ctr_mems ctr-a)
if [ -n "$m" ] && ! has_node "$m" 1; then
	pass "a: without the hook the container's Mems_allowed_list lacks node 1 ($m)"
else
	fail "a: container Mems_allowed_list lacks node 1" "got '$m' (runc exit $RC)"
fi
if grep -q '^numa_touch: node 1: FAILED' /tmp/ctr-a.out; then
	pass "a: without the hook numa_touch 1 fails ($(sed -n 's/^numa_touch: node 1: FAILED: //p' /tmp/ctr-a.out))"
else
	fail "a: numa_touch 1 fails" "$(grep '^numa_touch: node' /tmp/ctr-a.out || echo 'no numa_touch result')"
fi
if [ "$(mems docker)" = 0 ]; then
	pass "a: /docker still stale after a plain container"
else
	fail "a: /docker still stale" "cpuset.mems=$(mems docker)"
fi

# ---------------------------------------------------------------------------------------------
if [ "$HOOK_PRESENT" = 1 ]; then
	phase b-hook-patch
	run_ctr ctr-b
	m=$(ctr_mems ctr-b)
	if [ "$RC" -eq 0 ] && [ -n "$m" ] && has_node "$m" 1; then
		pass "b: with the hook the container starts and its Mems_allowed_list has node 1 ($m)"
	else
		fail "b: container Mems_allowed_list has node 1" "runc exit $RC, Mems_allowed_list '$m'"
	fi
	if grep -q '^numa_touch: node 1: OK' /tmp/ctr-b.out; then
		pass "b: with the hook numa_touch 1 succeeds"
	else
		fail "b: numa_touch 1 succeeds" "$(grep '^numa_touch: node' /tmp/ctr-b.out || echo 'no numa_touch result')"
	fi
	if [ "$(mems docker)" = 0-1 ]; then
		pass "b: /docker cpuset.mems healed top-down to 0-1"
	else
		fail "b: /docker healed" "cpuset.mems=$(mems docker)"
	fi
	if [ "$(mems system.slice)" = 0 ] && [ "$(mems machine.slice)" = 0 ] && [ "$(mems kubepods.slice)" = 0 ]; then
		pass "b: unrelated slices untouched (system.slice, machine.slice, kubepods.slice still 0)"
	else
		fail "b: unrelated slices untouched" "system.slice=$(mems system.slice) machine.slice=$(mems machine.slice) kubepods.slice=$(mems kubepods.slice)"
	fi
	if grep 'container=ctr-b ' /var/log/gpu-numa-hook.log 2>/dev/null | grep -q 'action=patch'; then
		pass "b: hook log records container=ctr-b action=patch"
	else
		fail "b: hook log records action=patch" "$(grep 'ctr-b' /var/log/gpu-numa-hook.log 2>&1 | head -n 3)"
	fi
	run_ctr ctr-b2
	m=$(ctr_mems ctr-b2)
	if [ -n "$m" ] && has_node "$m" 1 && grep -q '^numa_touch: node 1: OK' /tmp/ctr-b2.out; then
		pass "b: a later container under /docker WITHOUT the hook gets node 1 ($m) and numa_touch 1 succeeds"
	else
		fail "b: later container without hook gets node 1" "Mems_allowed_list '$m', $(grep '^numa_touch: node' /tmp/ctr-b2.out || echo 'no numa_touch result')"
	fi

	# -----------------------------------------------------------------------------------------
	phase c-hook-refuse
	K=kubepods.slice/kubepods-burstable.slice
	b1=$(mems kubepods.slice)
	b2=$(mems $K)
	b3=$(mems $K/pod-x)
	run_ctr ctr-c
	expect_refused c ctr-c '' "policy refuse: runc run fails with 'gpu-numa-hook: container ... refusing start'"
	if [ "$(mems kubepods.slice)" = "$b1" ] && [ "$(mems $K)" = "$b2" ] && [ "$(mems $K/pod-x)" = "$b3" ]; then
		pass "c: kubepods slices' cpuset.mems unchanged ($b1/$b2/$b3)"
	else
		fail "c: slices unchanged" "kubepods.slice $b1->$(mems kubepods.slice), burstable $b2->$(mems $K), pod-x $b3->$(mems $K/pod-x)"
	fi
	left=$(ls -d /sys/fs/cgroup/*/$K/pod-x/ctr-c 2>/dev/null | tr '\n' ' ')
	if [ -z "$left" ]; then
		pass "c: no container cgroup dir left behind"
	else
		fail "c: no container cgroup left" "$left"
	fi

	# -----------------------------------------------------------------------------------------
	phase g-no-gpu-fast-path
	# A container without a GPU under the stale system.slice: the hook must leave it alone.
	run_ctr ctr-g
	m=$(ctr_mems ctr-g)
	if [ "$RC" -eq 0 ] && grep -q '^numa_touch: node 0: OK' /tmp/ctr-g.out && [ -n "$m" ] && ! has_node "$m" 1; then
		pass "g: non-GPU container with the hook starts unchanged (Mems_allowed_list $m, numa_touch 0 OK)"
	else
		fail "g: non-GPU container starts unchanged" "runc exit $RC, Mems_allowed_list '$m', $(grep '^numa_touch: node' /tmp/ctr-g.out || echo 'no numa_touch result')"
	fi
	if [ "$(mems system.slice)" = 0 ]; then
		pass "g: system.slice untouched by a non-GPU container"
	else
		fail "g: system.slice untouched" "cpuset.mems=$(mems system.slice)"
	fi
	if grep 'container=ctr-g ' /var/log/gpu-numa-hook.log 2>/dev/null | grep -q 'action=allow gpus=- .*fast path'; then
		pass "g: hook log records container=ctr-g action=allow gpus=- (fast path)"
	else
		fail "g: hook log records the fast path" "$(grep 'ctr-g' /var/log/gpu-numa-hook.log 2>&1 | head -n 3)"
	fi

	# -----------------------------------------------------------------------------------------
	phase f-createRuntime-stage
	# The same fix registered at createRuntime (hooks.createRuntime) under the stale system.slice.
	run_ctr ctr-f
	m=$(ctr_mems ctr-f)
	if [ "$RC" -eq 0 ] && [ -n "$m" ] && has_node "$m" 1 && grep -q '^numa_touch: node 1: OK' /tmp/ctr-f.out; then
		pass "f: createRuntime hook: container gets node 1 ($m) and numa_touch 1 succeeds"
	else
		fail "f: createRuntime hook" "runc exit $RC, Mems_allowed_list '$m', $(grep '^numa_touch: node' /tmp/ctr-f.out || echo 'no numa_touch result')"
	fi
	if [ "$(mems system.slice)" = 0-1 ] && grep 'container=ctr-f ' /var/log/gpu-numa-hook.log 2>/dev/null | grep -q 'stage=createRuntime action=patch'; then
		pass "f: system.slice healed to 0-1, log has stage=createRuntime action=patch"
	else
		fail "f: system.slice healed, logged" "system.slice=$(mems system.slice); log: $(grep 'ctr-f' /var/log/gpu-numa-hook.log 2>&1 | head -n 3)"
	fi

	# -----------------------------------------------------------------------------------------
	phase e-check
	# CLI11 answers `<unknown subcommand> --help` with the main help and exit 0: `check` counts as
	# implemented only when its help exits 0 and offers --fix.
	if timeout 20 gpu-numa-hook check --help >/tmp/check-help.out 2>&1 && grep -q -- '--fix' /tmp/check-help.out; then
		H="timeout 30 gpu-numa-hook --config /etc/gpu-numa-hook/config.toml"
		echo "  machine.slice cpuset.mems=$(mems machine.slice) (fresh stale slice)"
		echo "  \$ gpu-numa-hook check"
		$H check >/tmp/check1.out 2>&1
		rc1=$?
		sed 's/^/  | /' /tmp/check1.out
		echo "  (exit $rc1)"
		if [ $rc1 -eq 1 ] && grep -q 'machine.slice' /tmp/check1.out; then
			pass "e: check before fix exits 1 and names the stale machine.slice"
		else
			fail "e: check before fix" "exit $rc1 (want 1), machine.slice named: $(grep -c machine.slice /tmp/check1.out) lines"
		fi
		echo "  \$ gpu-numa-hook check --fix"
		$H check --fix >/tmp/check2.out 2>&1
		rc2=$?
		sed 's/^/  | /' /tmp/check2.out
		echo "  (exit $rc2)"
		echo "  \$ gpu-numa-hook check"
		$H check >/tmp/check3.out 2>&1
		rc3=$?
		sed 's/^/  | /' /tmp/check3.out
		echo "  (exit $rc3)"
		if [ $rc3 -eq 0 ] && has_node "$(mems machine.slice)" 1; then
			pass "e: after check --fix (exit $rc2), check exits 0 and machine.slice cpuset.mems=$(mems machine.slice)"
		else
			fail "e: check after fix" "check --fix exit $rc2, then check exit $rc3 (want 0), machine.slice mems=$(mems machine.slice)"
		fi
	else
		echo "  'gpu-numa-hook check --help' did not exit 0 with a --fix option: $(head -n 3 /tmp/check-help.out | tr '\n' ' ')"
		echo "!!!!!!!! SKIP: check not implemented !!!!!!!!"
		skip "e" "check not implemented"
	fi
else
	skip "b, c, e" "no hook binary"
fi

finish
