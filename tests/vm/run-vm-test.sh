#!/bin/bash
# VM test: reproduce the cgroup v1 cpuset race (late-onlined CPU-less GPU memory node) on a real
# kernel in QEMU, and check what gpu-numa-hook does about it with a real runc.
#
#   tests/vm/run-vm-test.sh [HOOK_BINARY]      (default: <repo>/build/gpu-numa-hook)
#
# Needs (Debian 12): qemu-system-x86 linux-image-amd64 busybox-static cpio runc jq gcc, run as root
# or as any user who can read /boot/vmlinuz-*. One VM boot runs every scenario (guest-init.sh).
# Prints the guest console, then `N passed, M failed` on a line of its own; exits 0 only when
# nothing failed (SKIPs are printed loudly but do not fail the run).
# Environment: VM_KERNEL (default: newest /boot/vmlinuz-*), VM_TIMEOUT (seconds, default 240),
# VM_KEEP=1 keeps the work directory.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
VM_TIMEOUT=${VM_TIMEOUT:-240}
T0=$(date +%s.%N)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=run-vm-test

vm_require_tools
BUSYBOX=$(command -v busybox)
KERNEL=$(vm_kernel)

HOOK_PRESENT=0
HOST_FAILS=()
if [ -x "$HOOK" ]; then
	HOOK=$(readlink -f "$HOOK")
	HOOK_PRESENT=1
else
	HOST_FAILS+=("FAIL: hook binary: $HOOK not found or not executable (scenarios b-e not run)")
fi

WORK=$(mktemp -d /tmp/gpu-numa-vmtest.XXXXXX)
cleanup() { if [ "${VM_KEEP:-0}" = 1 ]; then echo "run-vm-test: kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
ROOT=$WORK/initramfs
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/gpu-numa-hook,fixture,bundles,proc,sys,dev,tmp,run,var/log}

# --- build -----------------------------------------------------------------------------------
vm_build_numa_touch "$WORK/numa_touch"

t=$(date +%s.%N)
cp "$BUSYBOX" "$ROOT/bin/busybox"
vm_copy_elf "$ROOT" "$(command -v runc)" /usr/sbin/runc
if [ $HOOK_PRESENT = 1 ]; then
	vm_copy_elf "$ROOT" "$HOOK" /bin/gpu-numa-hook
fi
install -m 755 "$WORK/numa_touch" "$ROOT/bin/numa_touch"
install -m 755 "$HERE/guest-init.sh" "$ROOT/init"
install -m 644 "$HERE/guest-boot.sh" "$ROOT/guest-boot.sh"
cp "$HERE/fixture/information" "$ROOT/fixture/information"
echo "HOOK_PRESENT=$HOOK_PRESENT" >"$ROOT/etc/vmtest.env"

# Container rootfs: busybox plus numa_touch, shared read-only by every bundle.
vm_container_rootfs "$ROOT/bundles/rootfs" "$WORK/numa_touch"

cat >"$ROOT/etc/gpu-numa-hook/config.toml" <<'EOF'
[policy]
missing-node = "patch"
[log]
file = "/var/log/gpu-numa-hook.log"
EOF
cat >"$ROOT/etc/gpu-numa-hook/refuse.toml" <<'EOF'
[policy]
missing-node = "refuse"
[log]
file = "/var/log/gpu-numa-hook.log"
EOF

# Bundles: `runc spec`, plus /dev/nvidia0 (c 195:0) with a devices-cgroup allow rule.
(cd "$WORK" && runc spec)
# mkbundle NAME CGROUPS_PATH HOOK_CONFIG(""=no hook) [STAGE=prestart] [GPU=1|0] [NODE=1]
# GPU=1 passes /dev/nvidia0 in linux.devices; the process is `numa_touch NODE`.
mkbundle() {
	local stage=${4:-prestart} gpu=${5:-1} node=${6:-1} hooks='{}'
	if [ -n "$3" ]; then
		hooks=$(jq -nc --arg c "$3" --arg s "$stage" \
			'{($s):[{path:"/bin/gpu-numa-hook",args:["gpu-numa-hook","--config",$c,$s]}]}')
	fi
	mkdir -p "$ROOT/bundles/$1"
	jq --arg cg "$2" --argjson hooks "$hooks" --argjson gpu "$gpu" --arg node "$node" '
		.root = {path: "/bundles/rootfs", readonly: true}
		| .process.terminal = false
		| .process.args = ["/bin/numa_touch", $node]
		| .hostname = "vmtest"
		| .linux.cgroupsPath = $cg
		| if $gpu == 1 then
			.linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0, fileMode: 438, uid: 0, gid: 0}]
			| .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rw"}]
		  else . end
		| .mounts |= map(select(.destination != "/sys/fs/cgroup"))
		| if ($hooks | length) > 0 then .hooks = $hooks else del(.hooks) end
	' "$WORK/config.json" >"$ROOT/bundles/$1/config.json"
}
# One bundle per container, named like the container id; cgroupsPath ends in that id.
C=/etc/gpu-numa-hook/config.toml
mkbundle ctr-d /docker/ctr-d $C                  # d: GPU memory not online yet
mkbundle ctr-a /docker/ctr-a ""                  # a: no hook
mkbundle ctr-b /docker/ctr-b $C                  # b: hook, policy patch
mkbundle ctr-b2 /docker/ctr-b2 ""                # b: later container, no hook
mkbundle ctr-c /kubepods.slice/kubepods-burstable.slice/pod-x/ctr-c /etc/gpu-numa-hook/refuse.toml # c
mkbundle ctr-g /system.slice/ctr-g $C prestart 0 0 # g: no GPU, hook: fast path, nothing written
mkbundle ctr-f /system.slice/ctr-f $C createRuntime # f: the createRuntime stage patches too

INITRD=$WORK/initrd.cpio.gz
vm_pack_initramfs "$ROOT" "$INITRD"
echo "run-vm-test: built initramfs ($(du -h "$INITRD" | cut -f1)) in $(vm_elapsed "$t")s; hook: $([ $HOOK_PRESENT = 1 ] && echo "$HOOK" || echo none)"

# --- boot ------------------------------------------------------------------------------------
# Node 0: both CPUs and 512M. Node 1: no CPU, a coldplugged 256M pc-dimm whose memory blocks the
# Debian kernel leaves offline (no auto-online) until the guest onlines them.
t=$(date +%s.%N)
LOG=$WORK/console.log
set +e
# node 1: CPU-less, its memory in a pc-dimm (onlined late by the guest)
vm_run_qemu "$VM_TIMEOUT" "$KERNEL" "$INITRD" "$LOG" "$WORK/qemu.out" 2 \
	-numa node,nodeid=1 -object memory-backend-ram,id=m1,size=256M -device pc-dimm,id=d1,memdev=m1,node=1
QRC=$?
set -e
VM_TIME=$(vm_elapsed "$t")
tr -d '\r' <"$LOG" >"$WORK/console.txt" || true
echo "run-vm-test: ---- guest console ----"
cat "$WORK/console.txt"
echo "run-vm-test: ---- end of guest console ----"
if [ $QRC -ne 0 ]; then
	echo "run-vm-test: qemu exit $QRC$([ $QRC -eq 124 ] && echo " (timed out after ${VM_TIMEOUT}s)"):"
	sed 's/^/  qemu| /' "$WORK/qemu.out"
fi
echo "run-vm-test: VM boot + scenarios took ${VM_TIME}s (qemu TCG, $(basename "$KERNEL"))"

# --- verdict ---------------------------------------------------------------------------------
if ! grep -q '^VMTEST-DONE$' "$WORK/console.txt"; then
	HOST_FAILS+=("FAIL: guest: did not finish (qemu exit $QRC)")
fi
for f in "${HOST_FAILS[@]}"; do echo "$f"; done
NPASS=$(grep -c '^PASS: ' "$WORK/console.txt" || true)
NFAIL=$(( $(grep -c '^FAIL: ' "$WORK/console.txt" || true) + ${#HOST_FAILS[@]} ))
NSKIP=$(grep -c '^SKIP: ' "$WORK/console.txt" || true)
if [ "$NSKIP" -gt 0 ]; then
	echo "run-vm-test: !!! $NSKIP scenario group(s) SKIPPED:"
	grep '^SKIP: ' "$WORK/console.txt" | sed 's/^/  /'
fi
echo "run-vm-test: total wall time $(vm_elapsed "$T0")s"
echo "$NPASS passed, $NFAIL failed"
[ "$NFAIL" -eq 0 ] && [ "$NPASS" -gt 0 ]
