# shellcheck shell=bash
# Helpers shared by the VM tests (run-vm-test.sh, run-vm-soak.sh, the systemd VM tests); sourced, not run.
# Set VM_LOG_PREFIX before calling vm_die.

VM_LOG_PREFIX=${VM_LOG_PREFIX:-vm}
# The guest's architecture (vm_arch_init): x86_64 boots this machine's own kernel, runc and busybox;
# aarch64 and ppc64le boot Debian's kernel for that arch with that arch's runc and busybox
# (fetch-arch-parts.sh), under qemu-system-aarch64 -M virt / qemu-system-ppc64 -M pseries.
VM_ARCH=x86_64
VM_SYSROOT=
VM_TRIPLET=
VM_CC=gcc

vm_die() { echo "$VM_LOG_PREFIX: $*" >&2; exit 2; }
# vm_elapsed T0: seconds since T0 (a `date +%s.%N` value), one decimal
vm_elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

# vm_arch_init ARCH: selects the guest architecture; for aarch64/ppc64le fetches (once) and points
# at that arch's Debian parts. Call before the other vm_ functions.
vm_arch_init() {
	VM_ARCH=$1
	case $1 in
	x86_64) return 0 ;;
	aarch64) VM_TRIPLET=aarch64-linux-gnu ;;
	ppc64le) VM_TRIPLET=powerpc64le-linux-gnu ;;
	*) vm_die "unsupported guest arch '$1' (x86_64, aarch64, ppc64le)" ;;
	esac
	VM_CC=$VM_TRIPLET-gcc
	command -v "$VM_CC" >/dev/null || vm_die "missing tool: $VM_CC (apt-get install crossbuild-essential-${1/aarch64/arm64})"
	VM_SYSROOT=$(bash "$(dirname "${BASH_SOURCE[0]}")/fetch-arch-parts.sh" "$1") || vm_die "could not fetch the $1 guest parts"
}

# vm_qemu: the system emulator for the guest arch.
vm_qemu() {
	case $VM_ARCH in
	x86_64) echo qemu-system-x86_64 ;;
	aarch64) echo qemu-system-aarch64 ;;
	ppc64le) echo qemu-system-ppc64 ;;
	esac
}

# vm_busybox / vm_runc: the guest arch's static busybox and runc.
vm_busybox() { if [ -n "$VM_SYSROOT" ]; then echo "$VM_SYSROOT/bin/busybox"; else command -v busybox; fi; }
vm_runc() { if [ -n "$VM_SYSROOT" ]; then echo "$VM_SYSROOT/usr/sbin/runc"; else command -v runc; fi; }

# vm_require_tools: the host tools every VM test needs, and a static busybox.
vm_require_tools() {
	local t
	if [ "$VM_ARCH" != x86_64 ]; then
		for t in "$(vm_qemu)" cpio gzip jq readelf timeout; do
			command -v "$t" >/dev/null || vm_die "missing tool: $t (apt-get install qemu-system-arm qemu-system-ppc cpio jq binutils)"
		done
		return 0
	fi
	for t in qemu-system-x86_64 busybox cpio gzip runc jq gcc ldd timeout; do
		command -v "$t" >/dev/null || vm_die "missing tool: $t (apt-get install qemu-system-x86 busybox-static cpio runc jq gcc)"
	done
	if ldd "$(command -v busybox)" >/dev/null 2>&1; then
		vm_die "$(command -v busybox) is dynamically linked: apt-get install busybox-static"
	fi
}

# vm_kernel: prints VM_KERNEL or the newest readable /boot/vmlinuz-* (of the guest arch's sysroot).
vm_kernel() {
	if [ -n "$VM_SYSROOT" ]; then
		find "$VM_SYSROOT/boot" -maxdepth 1 -name 'vmlinu*' | sort -V | tail -n 1
		return 0
	fi
	local k=${VM_KERNEL:-$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n 1)}
	[ -r "$k" ] || vm_die "no readable kernel (/boot/vmlinuz-*; apt-get install linux-image-amd64)"
	echo "$k"
}

# vm_sysroot_file PATH: the regular file PATH names inside VM_SYSROOT, following its symbolic links
# inside the sysroot (Debian's are often absolute, and must not resolve on this machine).
vm_sysroot_file() {
	local f=$VM_SYSROOT$1 t n=0
	while [ -L "$f" ] && [ $n -lt 16 ]; do
		t=$(readlink "$f")
		case $t in /*) f=$VM_SYSROOT$t ;; *) f=$(dirname "$f")/$t ;; esac
		n=$((n + 1))
	done
	[ -f "$f" ] && echo "$f"
}

# vm_foreign_lib NAME: "GUEST_PATH HOST_FILE" for the guest arch's shared library NAME: from the
# guest parts, else from this machine's multiarch copy of the same Debian package (the :arch -dev
# packages the cross build uses pull in libstdc++ (through libtomlplusplus3), libcap for a test binary).
vm_foreign_lib() {
	local d f
	for d in "$VM_SYSROOT"/lib/*-linux-gnu "$VM_SYSROOT"/usr/lib/*-linux-gnu "$VM_SYSROOT"/lib64 "$VM_SYSROOT"/lib; do
		d=${d#"$VM_SYSROOT"}
		if [ -e "$VM_SYSROOT$d/$1" ] && f=$(vm_sysroot_file "$d/$1"); then
			echo "$d/$1 $f"
			return 0
		fi
	done
	for d in "/usr/lib/$VM_TRIPLET" "/lib/$VM_TRIPLET"; do
		if [ -e "$d/$1" ]; then
			echo "/usr/lib/$VM_TRIPLET/$1 $(readlink -f "$d/$1")"
			return 0
		fi
	done
	return 1
}

# vm_copy_foreign_libs ROOT ELF: every library ELF needs, and theirs, into the initramfs ROOT.
vm_copy_foreign_libs() {
	local lib pair
	for lib in $(readelf -d "$2" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		pair=$(vm_foreign_lib "$lib") || vm_die "library $lib of $2 not in $VM_SYSROOT nor /usr/lib/$VM_TRIPLET"
		[ -e "$1${pair%% *}" ] && continue
		install -D -m 755 "${pair#* }" "$1${pair%% *}"
		vm_copy_foreign_libs "$1" "${pair#* }"
	done
}

# vm_copy_foreign_elf ROOT BIN DEST: a binary of the guest arch at DEST in the initramfs ROOT, with
# its ELF interpreter and the libraries it needs (readelf; ldd cannot run another arch's binary).
vm_copy_foreign_elf() {
	install -D -m 755 "$2" "$1$3"
	local interp f
	interp=$(readelf -l "$2" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ]; then
		f=$(vm_sysroot_file "$interp") || vm_die "interpreter $interp of $2 not in $VM_SYSROOT"
		install -D -m 755 "$f" "$1$interp"
	fi
	vm_copy_foreign_libs "$1" "$2"
}

# vm_copy_elf ROOT BIN DEST: BIN at DEST in the initramfs ROOT plus every library ldd names (and
# the ELF interpreter), each at the path ldd gives.
vm_copy_elf() {
	if [ -n "$VM_SYSROOT" ]; then
		vm_copy_foreign_elf "$@"
		return
	fi
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
	"$VM_CC" -static -O2 -Wall -Wextra -o "$1" "$(dirname "${BASH_SOURCE[0]}")/numa_touch.c"
	echo "$VM_LOG_PREFIX: built numa_touch in $(vm_elapsed "$t")s"
}

# vm_container_rootfs DIR NUMA_TOUCH: the containers' rootfs (busybox and numa_touch), shared
# read-only by every bundle.
vm_container_rootfs() {
	mkdir -p "$1"/{bin,proc,sys,dev,tmp,etc}
	cp "$(vm_busybox)" "$1/bin/busybox"
	local a
	for a in sh cat grep ls; do ln -s busybox "$1/bin/$a"; done
	install -m 755 "$2" "$1/bin/numa_touch"
}

# vm_pack_initramfs ROOT OUT: newc cpio of ROOT, gzip -1.
vm_pack_initramfs() {
	(cd "$1" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1 >"$2")
}

# vm_run_qemu TIMEOUT KERNEL INITRD LOG QEMU_OUT SMP [QEMU ARGS...]: boots the test VM under TCG,
# the guest console into LOG, qemu's own output into QEMU_OUT. Returns qemu's exit status (124 when
# TIMEOUT seconds ran out). The CPU node and its memory are the arch's (vm_late_node says which
# node is the late one); the caller's arguments add the late memory and its device.
#   x86_64:  node 0 = CPUs 0-1 + 512M; the caller adds node 1 and its pc-dimms.
#   aarch64: node 1 = CPUs 0-1 + 512M, node 0 declared with neither (the caller's virtio-mem adds
#            its memory later: without ACPI the kernel places hot-added memory on node 0).
#   ppc64le: node 0 = CPUs 0-1 + 512M, node 1 = 256M that `mem=512M` keeps out of the boot memory
#            (the guest hot-adds it through /sys/devices/system/memory/probe).
# VM_APPEND adds kernel parameters.
vm_run_qemu() {
	local timeout=$1 kernel=$2 initrd=$3 log=$4 out=$5 smp=$6
	shift 6
	local machine console
	# shellcheck disable=SC2054 # the commas are QEMU's option syntax, not array separators
	case $VM_ARCH in
	x86_64)
		machine=(-cpu max -m 512M,slots=4,maxmem=2G -object memory-backend-ram,id=m0,size=512M
			-numa node,nodeid=0,cpus=0-1,memdev=m0)
		console=ttyS0 ;;
	aarch64)
		machine=(-M virt -cpu max -m 512M,maxmem=2G -object memory-backend-ram,id=m0,size=512M
			-numa node,nodeid=0 -numa node,nodeid=1,cpus=0-1,memdev=m0 -numa dist,src=0,dst=1,val=20)
		console=ttyAMA0 ;;
	ppc64le)
		machine=(-M pseries -cpu POWER9 -m 768M -object memory-backend-ram,id=m0,size=512M
			-numa node,nodeid=0,cpus=0-1,memdev=m0 -object memory-backend-ram,id=m1,size=256M
			-numa node,nodeid=1,memdev=m1)
		console="hvc0 mem=512M" ;;
	esac
	timeout --kill-after=10 "$timeout" "$(vm_qemu)" \
		-accel tcg -smp "$smp" "${machine[@]}" \
		"$@" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=$console rdinit=/init panic=-1 quiet ${VM_APPEND:-}" \
		-display none -nodefaults -no-reboot -serial "file:$log" \
		</dev/null >"$out" 2>&1
}

# vm_late_node: "CPU_NODE GPU_NODE METHOD": the node with the CPUs, the node whose memory comes
# late, and how the guest brings it (x86_64: onlines the pc-dimm's offline blocks; aarch64: loads
# virtio_mem, which hot-adds it as NVIDIA's driver does on Grace, add_memory_driver_managed;
# ppc64le: the probe file hot-adds it), then onlines the new blocks.
vm_late_node() {
	case $VM_ARCH in
	x86_64) echo "0 1 blocks" ;;
	aarch64) echo "1 0 virtio-mem" ;;
	ppc64le) echo "0 1 probe" ;;
	esac
}

# The systemd VM tests (run-vm-systemd-test.sh, run-vm-systemd-cri-test.sh): Debian 12's systemd
# as PID 1 on a disk image, the scenario a oneshot unit writing PASS:/FAIL: lines on the serial console.

# vm_systemd_root [cri]: fetch-systemd-rootfs.sh's Debian root file system (cached; `cri` adds the
# CRI client's Python gRPC), unpacked into ROOT under a new WORK directory that is removed at exit
# (VM_KEEP=1 keeps it). Sets WORK and ROOT.
vm_systemd_root() {
	local t tarball
	t=$(date +%s.%N)
	tarball=$(bash "$(dirname "${BASH_SOURCE[0]}")/fetch-systemd-rootfs.sh" "$@") ||
		vm_die "could not build the Debian root file system (mmdebstrap)"
	echo "$VM_LOG_PREFIX: root file system $tarball ($(vm_elapsed "$t")s)"
	WORK=$(mktemp -d "/tmp/gpu-numa-$VM_LOG_PREFIX.XXXXXX")
	trap vm_remove_work EXIT
	ROOT=$WORK/root
	mkdir -p "$ROOT"
	tar -C "$ROOT" -xf "$tarball"
}
vm_remove_work() { if [ "${VM_KEEP:-0}" = 1 ]; then echo "$VM_LOG_PREFIX: kept $WORK"; else rm -rf "$WORK"; fi; }

# vm_systemd_scenario ROOT DESCRIPTION: /opt/gnh/scenario.sh as the oneshot unit gnh-scenario.service,
# and a fast, quiet boot: no getty on the serial line (it hangs up a script writing there), no
# timers, not a first boot (no presets).
vm_systemd_scenario() {
	cat >"$1/etc/systemd/system/gnh-scenario.service" <<UNIT
[Unit]
Description=$2
After=multi-user.target dbus.service
[Service]
Type=oneshot
ExecStart=/opt/gnh/scenario.sh
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
[Install]
WantedBy=multi-user.target
UNIT
	ln -s /etc/systemd/system/gnh-scenario.service "$1/etc/systemd/system/multi-user.target.wants/gnh-scenario.service"
	local u
	for u in serial-getty@ttyS0.service getty@tty1.service getty.target apt-daily.timer apt-daily-upgrade.timer \
		dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer systemd-tmpfiles-clean.timer \
		man-db.timer systemd-timesyncd.service systemd-networkd.service; do
		ln -sf /dev/null "$1/etc/systemd/system/$u"
	done
	echo 0123456789abcdef0123456789abcdef >"$1/etc/machine-id"
	echo gnh-vm >"$1/etc/hostname"
}

# vm_systemd_boot WORK DISK NODE0_MB: boots KERNEL/INITRD on DISK (root=/dev/vda) with two nodes,
# node 0 with both CPUs and NODE0_MB, node 1 with 512M and no CPU (where the fake GPU's memory is),
# bounded by VM_TIMEOUT; prints the guest console, then the verdict from its PASS:/FAIL: lines and
# VMTEST-DONE. Returns 0 only when every check passed.
vm_systemd_boot() {
	local work=$1 disk=$2 node0=$3 t qrc fails=0 npass nfail
	t=$(date +%s.%N)
	set +e
	timeout --kill-after=10 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m "$((node0 + 512))M" \
		-object memory-backend-ram,id=m0,size="${node0}M" -numa node,nodeid=0,cpus=0-1,memdev=m0 \
		-object memory-backend-ram,id=m1,size=512M -numa node,nodeid=1,memdev=m1 \
		-kernel "$KERNEL" -initrd "$INITRD" -drive "file=$disk,format=raw,if=virtio" \
		-append "root=/dev/vda rw console=ttyS0 quiet systemd.show_status=0 panic=-1" \
		-display none -nodefaults -no-reboot -serial "file:$work/console.log" </dev/null >"$work/qemu.out" 2>&1
	qrc=$?
	set -e
	tr -d '\r' <"$work/console.log" >"$work/console.txt" || true
	echo "$VM_LOG_PREFIX: ---- guest console ----"
	cat "$work/console.txt"
	echo "$VM_LOG_PREFIX: ---- end of guest console ----"
	[ $qrc -eq 0 ] || { echo "$VM_LOG_PREFIX: qemu exit $qrc"; sed 's/^/  qemu| /' "$work/qemu.out"; }
	echo "$VM_LOG_PREFIX: VM boot + scenario took $(vm_elapsed "$t")s"
	grep -q '^VMTEST-DONE$' "$work/console.txt" || { echo "FAIL: guest: did not finish (qemu exit $qrc)"; fails=1; }
	npass=$(grep -c '^PASS: ' "$work/console.txt" || true)
	nfail=$(( $(grep -c '^FAIL: ' "$work/console.txt" || true) + fails ))
	echo "$VM_LOG_PREFIX: total wall time $(vm_elapsed "$T0")s"
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
}
