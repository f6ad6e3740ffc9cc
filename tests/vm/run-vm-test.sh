#!/bin/bash
# VM test: reproduce the cgroup v1 cpuset race (late-onlined CPU-less GPU memory node) on a real
# kernel in QEMU, and check what gpu-numa-hook does about it with a real runc.
#
#   tests/vm/run-vm-test.sh [--arch x86_64|aarch64|ppc64le] [HOOK_BINARY]
#                                      (default: x86_64, <repo>/build/gpu-numa-hook)
#
# Needs (Debian 12): qemu-system-x86 linux-image-amd64 busybox-static cpio runc jq gcc, run as root
# or as any user who can read /boot/vmlinuz-*. One VM boot runs every scenario (guest-init.sh).
# --arch aarch64|ppc64le boots Debian's kernel of that arch (qemu-system-aarch64 -M virt,
# qemu-system-ppc64 -M pseries -cpu POWER9, both TCG) with that arch's runc and busybox
# (fetch-arch-parts.sh) and a HOOK_BINARY built for it; the late memory comes as it can on that
# machine type (vm_late_node in vm-lib.sh). The shim, gpu-numa-runtime, is taken from beside the hook.
# Prints the guest console, then `N passed, M failed` on a line of its own; exits 0 only when
# nothing failed (SKIPs are printed loudly but do not fail the run).
# Environment: VM_KERNEL (default: newest /boot/vmlinuz-*), VM_TIMEOUT (seconds, default 240),
# VM_KEEP=1 keeps the work directory.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ARCH=x86_64
if [ "${1:-}" = --arch ]; then
	ARCH=${2:?--arch needs x86_64, aarch64 or ppc64le}
	shift 2
fi
HOOK=${1:-$REPO/build/gpu-numa-hook}
VM_TIMEOUT=${VM_TIMEOUT:-$([ "$ARCH" = x86_64 ] && echo 240 || echo 420)}
T0=$(date +%s.%N)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=run-vm-test

vm_arch_init "$ARCH"
vm_require_tools
BUSYBOX=$(vm_busybox)
KERNEL=$(vm_kernel)
read -r CPU_NODE GPU_NODE LATE_METHOD <<<"$(vm_late_node)"

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
vm_copy_elf "$ROOT" "$(vm_runc)" /usr/sbin/runc
if [ $HOOK_PRESENT = 1 ]; then
	# The hook and the shim are static: install, not vm_copy_elf (ldd cannot read another arch).
	install -D -m 755 "$HOOK" "$ROOT/bin/gpu-numa-hook"
	SHIM=$(dirname "$HOOK")/gpu-numa-runtime
	if [ -x "$SHIM" ]; then install -D -m 755 "$SHIM" "$ROOT/usr/bin/gpu-numa-runtime"; fi
	# The sandbox's own tests (hook/host/sandbox/sandbox_test.cc) from the same build: on this arch's real
	# kernel they check the filter the kernel holds, byte for byte, and what it allows and denies
	# (qemu-user cannot: it has no seccomp). Required for the other arches, where nothing else runs them.
	SANDBOX_TESTS=$(dirname "$HOOK")/tests/host_unit_tests
	if [ -x "$SANDBOX_TESTS" ]; then
		vm_copy_elf "$ROOT" "$SANDBOX_TESTS" /bin/host_unit_tests
	elif [ "$ARCH" != x86_64 ]; then
		HOST_FAILS+=("FAIL: sandbox tests: $SANDBOX_TESTS not built (cmake --build <dir> --target host_unit_tests)")
	fi
fi
if [ "$LATE_METHOD" = virtio-mem ]; then
	# virtio_mem and the PCI transport it needs, in load order, from the arch's kernel package.
	mkdir -p "$ROOT/lib/late-modules"
	for k in virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_mem; do
		f=$(find "$VM_SYSROOT/lib/modules" -name "$k.ko" -print -quit)
		[ -n "$f" ] || vm_die "$k.ko not in the $ARCH kernel package"
		cp "$f" "$ROOT/lib/late-modules/"
		echo "$k" >>"$ROOT/lib/late-modules/order"
	done
fi
install -m 755 "$WORK/numa_touch" "$ROOT/bin/numa_touch"
install -m 755 "$HERE/guest-init.sh" "$ROOT/init"
install -m 644 "$HERE/guest-boot.sh" "$ROOT/guest-boot.sh"
cp "$HERE/fixture/information" "$ROOT/fixture/information"
cat >"$ROOT/etc/vmtest.env" <<EOF
HOOK_PRESENT=$HOOK_PRESENT
CPU_NODE=$CPU_NODE
GPU_NODE=$GPU_NODE
LATE_METHOD=$LATE_METHOD
PROBE_ADDR=0x20000000
EOF

# Container rootfs: busybox plus numa_touch, shared read-only by every bundle.
vm_container_rootfs "$ROOT/bundles/rootfs" "$WORK/numa_touch"

cat >"$ROOT/etc/gpu-numa-hook/config.toml" <<'EOF'
[policy]
missing-node = "patch"
[log]
file = "/var/log/gpu-numa-hook.log"
[runtime]
next = ["/usr/sbin/runc"]
hook = "/bin/gpu-numa-hook"
EOF
cat >"$ROOT/etc/gpu-numa-hook/refuse.toml" <<'EOF'
[policy]
missing-node = "refuse"
[log]
file = "/var/log/gpu-numa-hook.log"
EOF

# Bundles: `runc spec`, plus /dev/nvidia0 (c 195:0) with a devices-cgroup allow rule.
# runc's default spec (this machine's runc writes it; the fields are the same on every arch).
(cd "$WORK" && runc spec)
# mkbundle NAME CGROUPS_PATH HOOK_CONFIG(""=no hook) [STAGE=prestart] [GPU=1|0] [NODE=1]
# GPU=1 passes /dev/nvidia0 in linux.devices; the process is `numa_touch NODE`.
mkbundle() {
	local stage=${4:-prestart} gpu=${5:-1} node=${6:-$GPU_NODE} hooks='{}'
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
mkbundle ctr-g /system.slice/ctr-g $C prestart 0 "$CPU_NODE" # g: no GPU, hook: fast path, nothing written
mkbundle ctr-f /system.slice/ctr-f $C createRuntime # f: the createRuntime stage patches too
mkbundle ctr-s /shim.slice/ctr-s ""              # s: no hook in the bundle: the shim adds it

INITRD=$WORK/initrd.cpio.gz
vm_pack_initramfs "$ROOT" "$INITRD"
echo "run-vm-test: built initramfs ($(du -h "$INITRD" | cut -f1)) in $(vm_elapsed "$t")s; hook: $([ $HOOK_PRESENT = 1 ] && echo "$HOOK" || echo none)"

# --- boot ---------------------------------------------------------------------------------------
# The CPU node has both CPUs and 512M; the GPU node has no CPU, and its 256M come late
# (vm_late_node): x86_64 a coldplugged pc-dimm whose memory blocks the Debian kernel leaves offline
# (no auto-online) until the guest onlines them; aarch64 a virtio-mem device the guest's driver
# plugs only when loaded; ppc64le memory the kernel was told to leave out (mem=) until the guest
# probes it.
t=$(date +%s.%N)
LOG=$WORK/console.log
# shellcheck disable=SC2054 # the commas are QEMU's option syntax, not array separators
case $LATE_METHOD in
blocks) LATE_ARGS=(-numa node,nodeid=1 -object memory-backend-ram,id=m1,size=256M -device pc-dimm,id=d1,memdev=m1,node=1) ;;
virtio-mem) LATE_ARGS=(-object memory-backend-ram,id=m1,size=256M -device "virtio-mem-pci,id=vmem1,memdev=m1,node=$GPU_NODE,requested-size=256M") ;;
probe) LATE_ARGS=() ;;
esac
set +e
vm_run_qemu "$VM_TIMEOUT" "$KERNEL" "$INITRD" "$LOG" "$WORK/qemu.out" 2 "${LATE_ARGS[@]}"
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
echo "run-vm-test: VM boot + scenarios took ${VM_TIME}s (qemu TCG, $ARCH, $(basename "$KERNEL"), late memory: $LATE_METHOD, CPU node $CPU_NODE, GPU node $GPU_NODE)"

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
