# shellcheck shell=bash
# Helpers shared by the VM tests (run-vm-test.sh, run-vm-soak.sh); sourced, not run.
# Set VM_LOG_PREFIX before calling vm_die.

VM_LOG_PREFIX=${VM_LOG_PREFIX:-vm}

vm_die() { echo "$VM_LOG_PREFIX: $*" >&2; exit 2; }
# vm_elapsed T0: seconds since T0 (a `date +%s.%N` value), one decimal
vm_elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

# vm_require_tools: the host tools every VM test needs, and a static busybox.
vm_require_tools() {
	local t
	for t in qemu-system-x86_64 busybox cpio gzip runc jq gcc ldd timeout; do
		command -v "$t" >/dev/null || vm_die "missing tool: $t (apt-get install qemu-system-x86 busybox-static cpio runc jq gcc)"
	done
	if ldd "$(command -v busybox)" >/dev/null 2>&1; then
		vm_die "$(command -v busybox) is dynamically linked: apt-get install busybox-static"
	fi
}

# vm_kernel: prints VM_KERNEL or the newest readable /boot/vmlinuz-*.
vm_kernel() {
	local k=${VM_KERNEL:-$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n 1)}
	[ -r "$k" ] || vm_die "no readable kernel (/boot/vmlinuz-*; apt-get install linux-image-amd64)"
	echo "$k"
}

# vm_copy_elf ROOT BIN DEST: BIN at DEST in the initramfs ROOT plus every library ldd names (and
# the ELF interpreter), each at the path ldd gives.
vm_copy_elf() {
	install -D -m 755 "$2" "$1$3"
	local lib
	for lib in $(ldd "$2" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$1$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$1$lib"
	done
}

# vm_build_numa_touch OUT: the static stand-in for CUDA's first allocation (numa_touch.c).
vm_build_numa_touch() {
	local t
	t=$(date +%s.%N)
	gcc -static -O2 -Wall -Wextra -o "$1" "$(dirname "${BASH_SOURCE[0]}")/numa_touch.c"
	echo "$VM_LOG_PREFIX: built numa_touch in $(vm_elapsed "$t")s"
}

# vm_container_rootfs DIR NUMA_TOUCH: the containers' rootfs (busybox and numa_touch), shared
# read-only by every bundle.
vm_container_rootfs() {
	mkdir -p "$1"/{bin,proc,sys,dev,tmp,etc}
	cp "$(command -v busybox)" "$1/bin/busybox"
	local a
	for a in sh cat grep ls; do ln -s busybox "$1/bin/$a"; done
	install -m 755 "$2" "$1/bin/numa_touch"
}

# vm_pack_initramfs ROOT OUT: newc cpio of ROOT, gzip -1.
vm_pack_initramfs() {
	(cd "$1" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1 >"$2")
}

# vm_run_qemu TIMEOUT KERNEL INITRD LOG QEMU_OUT SMP [QEMU ARGS...]: boots the test VM under TCG
# (node 0: CPUs 0-1 and 512M; the caller's arguments add the late memory nodes and their pc-dimms),
# the guest console into LOG, qemu's own output into QEMU_OUT. Returns qemu's exit status
# (124 when TIMEOUT seconds ran out).
vm_run_qemu() {
	local timeout=$1 kernel=$2 initrd=$3 log=$4 out=$5 smp=$6
	shift 6
	timeout --kill-after=10 "$timeout" qemu-system-x86_64 \
		-accel tcg -cpu max -smp "$smp" \
		-m 512M,slots=4,maxmem=2G \
		-object memory-backend-ram,id=m0,size=512M \
		-numa node,nodeid=0,cpus=0-1,memdev=m0 \
		"$@" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 rdinit=/init panic=-1 quiet" \
		-display none -nodefaults -no-reboot -serial "file:$log" \
		</dev/null >"$out" 2>&1
}
