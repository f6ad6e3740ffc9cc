#!/bin/bash
# VM test: a cpuset patch under the systemd cgroup driver survives systemd. Debian 12's systemd 252
# boots as PID 1 (cgroup v2) in QEMU with two memory nodes; Debian's runc 1.1.5 runs containers with
# --systemd-cgroup and explicit cpuset.mems "0" while their (fake) GPU's memory is node 1; the hook
# patches them, then `systemctl daemon-reload` and friends run. With the hook's durable step
# ([systemd] allowed-memory-nodes, the default) the node stays; without it, systemd takes it away.
# Also: the runtime shim's `update` (runc sets the property itself) and `check` / `check --fix` of a
# container that lost its node.
#
#   tests/vm/run-vm-systemd-test.sh [HOOK_BINARY [RUNTIME_SHIM]]   (default: <repo>/build/...)
#
# Needs root, qemu-system-x86, mmdebstrap (the root file system is built once from Debian's
# packages and cached: fetch-systemd-rootfs.sh), e2fsprogs, jq, runc, a readable /boot kernel and
# initrd. Environment: VM_TIMEOUT (default 480 s), VM_KEEP=1 keeps the work dir, VM_KERNEL.
# Exit 0 only when every check passed; the last line is `N passed, M failed`.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
SHIM=${2:-$(dirname "$HOOK")/gpu-numa-runtime}
VM_TIMEOUT=${VM_TIMEOUT:-480}
T0=$(date +%s.%N)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=run-vm-systemd-test

vm_require_tools
for t in mkfs.ext4 tar; do command -v "$t" >/dev/null || vm_die "missing tool: $t (apt-get install e2fsprogs tar)"; done
KERNEL=$(vm_kernel)
INITRD=${VM_INITRD:-${KERNEL/vmlinuz/initrd.img}}
[ -r "$INITRD" ] || vm_die "no readable initrd $INITRD (the Debian kernel's; update-initramfs -c -k $(basename "${KERNEL#*vmlinuz-}"))"
[ -x "$HOOK" ] || vm_die "hook binary $HOOK not found or not executable"
[ -x "$SHIM" ] || vm_die "runtime shim $SHIM not found or not executable"
HOOK=$(readlink -f "$HOOK")
SHIM=$(readlink -f "$SHIM")
for b in "$HOOK" "$SHIM"; do
	grep -q 'program interpreter' <<<"$(readelf -l "$b")" && vm_die "$b is dynamically linked; the guest gets it as a single file"
done

vm_systemd_root
t=$(date +%s.%N)

# The programs under test and the scenario.
install -m 755 "$HOOK" "$ROOT/usr/local/bin/gpu-numa-hook"
install -m 755 "$SHIM" "$ROOT/usr/local/bin/gpu-numa-runtime"
mkdir -p "$ROOT/opt/gnh/fixture" "$ROOT/etc/gpu-numa-hook"
install -m 755 "$HERE/systemd-guest.sh" "$ROOT/opt/gnh/scenario.sh"
cp "$HERE/fixture/information" "$ROOT/opt/gnh/fixture/information"
cat >"$ROOT/etc/gpu-numa-hook/config.toml" <<'CONF'
[log]
file = "/var/log/gpu-numa-hook.log"
CONF
{ cat "$ROOT/etc/gpu-numa-hook/config.toml"; printf '\n[systemd]\nallowed-memory-nodes = false\n'; } \
	>"$ROOT/etc/gpu-numa-hook/no-systemd-property.toml"

# Bundles: busybox's sleep, explicit cpu.mems "0", /dev/nvidia0, the hook as prestart hook with the
# config named; the root file system is shared read-only.
(cd "$WORK" && runc spec)
mkbundle() { # NAME CGROUPS_PATH CONFIG
	mkdir -p "$ROOT/opt/gnh/bundles/$1"
	jq --arg cg "$2" --arg conf "/etc/gpu-numa-hook/$3" '
		.root = {path: "/opt/gnh/rootfs", readonly: true}
		| .process.terminal = false
		| .process.args = ["/bin/sleep", "3600"]
		| .hostname = "vmtest"
		| .linux.cgroupsPath = $cg
		| .linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0, fileMode: 438, uid: 0, gid: 0}]
		| .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rw"}]
		| .linux.resources.cpu.mems = "0"
		| .mounts |= map(select(.destination != "/sys/fs/cgroup"))
		| .hooks = {prestart: [{path: "/usr/local/bin/gpu-numa-hook", args: ["gpu-numa-hook", "--config", $conf, "prestart"]}]}
	' "$WORK/config.json" >"$ROOT/opt/gnh/bundles/$1/config.json"
}
mkbundle ctr-on gnh-on.slice:gnh:ctr-on config.toml
mkbundle ctr-off gnh-off.slice:gnh:ctr-off no-systemd-property.toml
mkbundle ctr-upd system.slice:gnh:ctr-upd no-systemd-property.toml
# crun's container, as podman on Fedora/RHEL runs it: `check` must find it in crun's state (/run/crun).
mkbundle ctr-crun gnh-crun.slice:gnh:ctr-crun no-systemd-property.toml

# Two slices that pin memory to node 0 themselves (AllowedMemoryNodes=0), so the patch widens a
# parent slice as well as the container's scope.
for s in gnh-on gnh-off gnh-crun; do printf '[Slice]\nAllowedMemoryNodes=0\n' >"$ROOT/etc/systemd/system/$s.slice"; done
# An unrelated service for `systemctl restart` and `set-property`.
cat >"$ROOT/etc/systemd/system/gnh-idle.service" <<'UNIT'
[Service]
ExecStart=/bin/busybox sleep 3600
UNIT
vm_systemd_scenario "$ROOT" "gpu-numa-hook systemd scenario"
DISK=$WORK/disk.img
mkfs.ext4 -q -F -L gnh-root -d "$ROOT" "$DISK" 1200M
rm -rf "$ROOT"
echo "run-vm-systemd-test: disk image built in $(vm_elapsed "$t")s"

# node 0: both CPUs and 512M; node 1: 512M, no CPU (where the fake GPU's memory is).
vm_systemd_boot "$WORK" "$DISK" 512
