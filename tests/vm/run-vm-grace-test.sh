#!/bin/bash
# VM test, issue 20: Grace without persistence mode on cgroup v2, on a real kernel. Containers start
# (with the hook) while GPU memory node 1 has no memory, as on a GH200 whose GPU is initialized only
# by its first client; then the "driver" brings node 1's memory online and each container's first
# touch of node 1 must succeed (or, without the hook and with explicit mems, must not).
#
#   tests/vm/run-vm-grace-test.sh [HOOK_BINARY]      (default: <repo>/build/gpu-numa-hook)
#
# Same needs and output as run-vm-test.sh (whose helpers it shares: vm-lib.sh, guest-boot.sh);
# its own guest /init is grace-guest.sh. Environment: VM_KERNEL, VM_TIMEOUT (default 240), VM_KEEP=1.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
VM_TIMEOUT=${VM_TIMEOUT:-240}
T0=$(date +%s.%N)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=run-vm-grace-test

vm_require_tools
KERNEL=$(vm_kernel)
[ -x "$HOOK" ] || vm_die "hook binary $HOOK not found or not executable"
HOOK=$(readlink -f "$HOOK")

WORK=$(mktemp -d /tmp/gpu-numa-vmgrace.XXXXXX)
cleanup() { if [ "${VM_KEEP:-0}" = 1 ]; then echo "run-vm-grace-test: kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
ROOT=$WORK/initramfs
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/gpu-numa-hook,fixture,bundles,proc,sys,dev,tmp,run,var/log}

vm_build_numa_touch "$WORK/numa_touch"
cp "$(command -v busybox)" "$ROOT/bin/busybox"
vm_copy_elf "$ROOT" "$(command -v runc)" /usr/sbin/runc
vm_copy_elf "$ROOT" "$HOOK" /bin/gpu-numa-hook
install -m 755 "$WORK/numa_touch" "$ROOT/bin/numa_touch"
install -m 755 "$HERE/grace-guest.sh" "$ROOT/init"
install -m 644 "$HERE/guest-boot.sh" "$ROOT/guest-boot.sh"
cp "$HERE/fixture/information" "$ROOT/fixture/information"
vm_container_rootfs "$ROOT/bundles/rootfs" "$WORK/numa_touch"
ln -s busybox "$ROOT/bundles/rootfs/bin/sleep"

cat >"$ROOT/etc/gpu-numa-hook/config.toml" <<'EOF'
[log]
file = "/var/log/gpu-numa-hook.log"
EOF

# The containers' process: say it started, wait (up to 60 s) until its own Mems_allowed_list is
# more than node 0 (the driver's node arriving), then touch node 1 as CUDA's first allocation would.
read -r -d '' PROC <<'EOF' || true
echo "ctr: started: $(grep Mems_allowed_list: /proc/self/status)"
i=0
while grep -q "^Mems_allowed_list:[[:space:]]*0$" /proc/self/status && [ $i -lt 300 ]; do sleep 0.2; i=$((i+1)); done
echo "ctr: after waiting: $(grep Mems_allowed_list: /proc/self/status)"
exec /bin/numa_touch 1
EOF

(cd "$WORK" && runc spec)
# mkbundle NAME CGROUPS_PATH HOOK(1|0) [EXPLICIT_MEMS]
mkbundle() {
	local hooks='{}'
	[ "$3" = 1 ] && hooks='{"prestart":[{"path":"/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"]}]}'
	mkdir -p "$ROOT/bundles/$1"
	jq --arg cg "$2" --argjson hooks "$hooks" --arg mems "${4:-}" --arg proc "$PROC" '
		.root = {path: "/bundles/rootfs", readonly: true}
		| .process.terminal = false
		| .process.args = ["/bin/sh", "-c", $proc]
		| .hostname = "vmtest"
		| .linux.cgroupsPath = $cg
		| .linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0, fileMode: 438, uid: 0, gid: 0}]
		| .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rw"}]
		| if $mems != "" then .linux.resources.cpu.mems = $mems else . end
		| .mounts |= map(select(.destination != "/sys/fs/cgroup"))
		| if ($hooks | length) > 0 then .hooks = $hooks else del(.hooks) end
	' "$WORK/config.json" >"$ROOT/bundles/$1/config.json"
}
mkbundle gr-inherit /system.slice/gr-inherit 1      # mems inherited: the hook allows
mkbundle gr-explicit /system.slice/gr-explicit 1 0  # --cpuset-mems 0: the hook writes 0-1 now
mkbundle gr-nohook /system.slice/gr-nohook 0 0      # the same without the hook: never gets node 1

INITRD=$WORK/initrd.cpio.gz
vm_pack_initramfs "$ROOT" "$INITRD"

t=$(date +%s.%N)
LOG=$WORK/console.log
set +e
vm_run_qemu "$VM_TIMEOUT" "$KERNEL" "$INITRD" "$LOG" "$WORK/qemu.out" 2 \
	-numa node,nodeid=1 -object memory-backend-ram,id=m1,size=256M -device pc-dimm,id=d1,memdev=m1,node=1
QRC=$?
set -e
tr -d '\r' <"$LOG" >"$WORK/console.txt" || true
echo "run-vm-grace-test: ---- guest console ----"
cat "$WORK/console.txt"
echo "run-vm-grace-test: ---- end of guest console ----"
[ $QRC -eq 0 ] || { echo "run-vm-grace-test: qemu exit $QRC"; sed 's/^/  qemu| /' "$WORK/qemu.out"; }
echo "run-vm-grace-test: VM boot + scenarios took $(vm_elapsed "$t")s"

FAILS=0
grep -q '^VMTEST-DONE$' "$WORK/console.txt" || { echo "FAIL: guest: did not finish (qemu exit $QRC)"; FAILS=1; }
NPASS=$(grep -c '^PASS: ' "$WORK/console.txt" || true)
NFAIL=$(( $(grep -c '^FAIL: ' "$WORK/console.txt" || true) + FAILS ))
echo "run-vm-grace-test: total wall time $(vm_elapsed "$T0")s"
echo "$NPASS passed, $NFAIL failed"
[ "$NFAIL" -eq 0 ] && [ "$NPASS" -gt 0 ]
