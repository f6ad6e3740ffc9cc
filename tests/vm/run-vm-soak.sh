#!/bin/bash
# Randomized soak of gpu-numa-hook on a real kernel in QEMU: container starts interleaved with GPU
# memory onlining/offlining and background `check --fix`, from one seed (see README.md).
#
#   tests/vm/run-vm-soak.sh [--starts N] [--seed S] [HOOK_BINARY]
#       N: container starts (default 200); S: seed, a non-negative integer (default: from the clock)
#       HOOK_BINARY: default <repo>/build/gpu-numa-hook
#
# Needs what run-vm-test.sh needs (Debian 12: qemu-system-x86 linux-image-amd64 busybox-static cpio
# runc jq gcc), as root or any user who can read /boot/vmlinuz-*. One VM boot runs the whole soak
# (soak-guest.sh). Prints the seed, one line per start, the summary and, last, exactly
#   N starts: A ok, R refused, B broken
# Exit 0 only when B is 0 and every extra assertion held; a failing run prints how to replay it.
# Environment: SOAK_CONCURRENCY (starts at once, default 3), SOAK_DEADLINE (seconds one start may
# take, default 60), SOAK_DELAY_MS (largest random pause before a start, default 300), VM_TIMEOUT
# (seconds, default 300 + 6 per start), VM_KERNEL, VM_KEEP=1 keeps the work directory (a failing
# run keeps it anyway).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=run-vm-soak

STARTS=200
SEED=
HOOK=
usage() { echo "usage: $0 [--starts N] [--seed S] [HOOK_BINARY]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--starts) [ $# -ge 2 ] || usage; STARTS=$2; shift 2 ;;
	--starts=*) STARTS=${1#*=}; shift ;;
	--seed) [ $# -ge 2 ] || usage; SEED=$2; shift 2 ;;
	--seed=*) SEED=${1#*=}; shift ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) usage ;;
	*) [ -z "$HOOK" ] || usage; HOOK=$1; shift ;;
	esac
done
HOOK=${HOOK:-$REPO/build/gpu-numa-hook}
[ -n "$SEED" ] || SEED=$(( $(date +%s%N) % 1000000000 ))
if ! [[ $STARTS =~ ^[0-9]{1,6}$ ]] || [ "$STARTS" -lt 1 ]; then vm_die "--starts wants a number >= 1, not '$STARTS'"; fi
[[ $SEED =~ ^[0-9]{1,18}$ ]] || vm_die "--seed wants a non-negative integer (at most 18 digits), not '$SEED'"
SOAK_CONCURRENCY=${SOAK_CONCURRENCY:-3}
SOAK_DEADLINE=${SOAK_DEADLINE:-60}
SOAK_DELAY_MS=${SOAK_DELAY_MS:-300}
for v in SOAK_CONCURRENCY SOAK_DEADLINE SOAK_DELAY_MS; do
	[[ ${!v} =~ ^[0-9]{1,5}$ ]] || vm_die "$v wants a number, not '${!v}'"
done
[ "$SOAK_CONCURRENCY" -ge 1 ] || vm_die "SOAK_CONCURRENCY must be at least 1"
VM_TIMEOUT=${VM_TIMEOUT:-$((300 + 6 * STARTS))}
T0=$(date +%s.%N)

REPLAY="tests/vm/run-vm-soak.sh --starts $STARTS --seed $SEED"
for v in SOAK_CONCURRENCY:3 SOAK_DEADLINE:60 SOAK_DELAY_MS:300; do
	name=${v%%:*}
	[ "${!name}" = "${v#*:}" ] || REPLAY="$name=${!name} $REPLAY"
done
echo "run-vm-soak: seed $SEED, $STARTS starts, concurrency $SOAK_CONCURRENCY, deadline ${SOAK_DEADLINE}s"
echo "run-vm-soak: replay with: $REPLAY"

vm_require_tools
[ -x "$HOOK" ] || vm_die "hook binary $HOOK not found or not executable"
HOOK=$(readlink -f "$HOOK")
KERNEL=$(vm_kernel)

WORK=$(mktemp -d /tmp/gpu-numa-soak.XXXXXX)
KEEP=${VM_KEEP:-0}
cleanup() { [ "$KEEP" = 1 ] || rm -rf "$WORK"; }
trap cleanup EXIT
ROOT=$WORK/initramfs
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/gpu-numa-hook,etc/soak,fixture,bundles,proc,sys,dev,tmp,run,var/log}

# --- build -----------------------------------------------------------------------------------
t=$(date +%s.%N)
vm_build_numa_touch "$WORK/numa_touch"
cp "$(command -v busybox)" "$ROOT/bin/busybox"
vm_copy_elf "$ROOT" "$(command -v bash)" /bin/bash
vm_copy_elf "$ROOT" "$(command -v runc)" /usr/sbin/runc
vm_copy_elf "$ROOT" "$(command -v jq)" /usr/bin/jq
vm_copy_elf "$ROOT" "$HOOK" /bin/gpu-numa-hook
install -m 755 "$WORK/numa_touch" "$ROOT/bin/numa_touch"
install -m 755 "$HERE/soak-guest.sh" "$ROOT/init"
install -m 644 "$HERE/guest-boot.sh" "$ROOT/guest-boot.sh"
vm_container_rootfs "$ROOT/bundles/rootfs" "$WORK/numa_touch"
# Two GPUs: the fixture (minor 0, bus 0000:01:00.0) and a second one made from it (minor 1,
# bus 0000:02:00.0, its own UUID and IRQ), same keys, order and padding.
cp "$HERE/fixture/information" "$ROOT/fixture/information.0"
sed -e 's/^\(IRQ:[[:space:]]*\)41$/\142/' \
	-e 's/^\(GPU UUID:[[:space:]]*\)GPU-5d2c8e1a-0f3b-4c7d-9e61-a3b4c5d6e7f8$/\1GPU-7a41c0de-2b6e-4f1a-8c93-b5c6d7e8f901/' \
	-e 's/^\(Bus Location:[[:space:]]*\)0000:01:00.0$/\10000:02:00.0/' \
	-e 's/^\(Device Minor:[[:space:]]*\)0$/\11/' \
	"$HERE/fixture/information" >"$ROOT/fixture/information.1"
[ "$(diff "$ROOT/fixture/information.0" "$ROOT/fixture/information.1" | grep -c '^>')" = 4 ] ||
	vm_die "fixture/information changed: the second GPU's file could not be derived from it"
(cd "$WORK" && runc spec && mv config.json "$ROOT/etc/soak/base.json")
cat >"$ROOT/etc/soak.env" <<EOF
SOAK_SEED=$SEED
SOAK_STARTS=$STARTS
SOAK_CONCURRENCY=$SOAK_CONCURRENCY
SOAK_DEADLINE=$SOAK_DEADLINE
SOAK_DELAY_MS=$SOAK_DELAY_MS
EOF
INITRD=$WORK/initrd.cpio.gz
vm_pack_initramfs "$ROOT" "$INITRD"
echo "run-vm-soak: built initramfs ($(du -h "$INITRD" | cut -f1)) in $(vm_elapsed "$t")s; hook: $HOOK"

# --- boot ------------------------------------------------------------------------------------
# Node 0: both CPUs and 512M. Nodes 1 and 2: no CPU, each a coldplugged 384M pc-dimm (3 memory
# blocks of 128M) that Debian's kernel leaves offline until the guest onlines it. QEMU 7.2 writes
# no SRAT entry for a node without boot memory and gives the whole hotplug range to the last node,
# so nodes 1 and 2 each own one never-plugged vCPU slot (maxcpus=4): its SRAT entry makes the
# node known to the kernel, and it stays CPU-less (has_cpu is 0 only).
t=$(date +%s.%N)
LOG=$WORK/console.log
set +e
# nodes 1 and 2: CPU-less at boot (their CPU slots are never plugged), memory in a pc-dimm each
vm_run_qemu "$VM_TIMEOUT" "$KERNEL" "$INITRD" "$LOG" "$WORK/qemu.out" 2,maxcpus=4 \
	-numa node,nodeid=1,cpus=2 -numa node,nodeid=2,cpus=3 \
	-object memory-backend-ram,id=m1,size=384M -device pc-dimm,id=d1,memdev=m1,node=1 \
	-object memory-backend-ram,id=m2,size=384M -device pc-dimm,id=d2,memdev=m2,node=2
QRC=$?
set -e
VM_TIME=$(vm_elapsed "$t")
tr -d '\r' <"$LOG" >"$WORK/console.txt" || true
# The per-start schedule lines stay in the kept console; everything else is shown.
echo "run-vm-soak: ---- guest console (schedule lines 'SCHED start' left out) ----"
grep -v '^  SCHED start ' "$WORK/console.txt" || true
echo "run-vm-soak: ---- end of guest console ----"
if [ $QRC -ne 0 ]; then
	echo "run-vm-soak: qemu exit $QRC$([ $QRC -eq 124 ] && echo " (timed out after ${VM_TIMEOUT}s)"):"
	sed 's/^/  qemu| /' "$WORK/qemu.out"
fi
echo "run-vm-soak: VM boot + soak took ${VM_TIME}s (qemu TCG, $(basename "$KERNEL"))"

# --- verdict ---------------------------------------------------------------------------------
FAILS=()
grep -q '^SOAK-DONE$' "$WORK/console.txt" || FAILS+=("guest did not finish (qemu exit $QRC)")
SUMMARY=$(grep '^SOAK-SUMMARY: ' "$WORK/console.txt" | tail -n 1 || true)
if [ -n "$SUMMARY" ]; then
	field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$SUMMARY"; }
	OK=$(field ok) DIST=$(field disturbed) REF=$(field refused) BROKEN=$(field broken)
else
	# No verdict from the guest: every start it did not classify counts as broken.
	OK=$(grep -c '^START .* class=ok ' "$WORK/console.txt" || true)
	DIST=$(grep -c '^START .* class=disturbed ' "$WORK/console.txt" || true)
	REF=$(grep -c '^START .* class=refused ' "$WORK/console.txt" || true)
	BROKEN=$((STARTS - OK - DIST - REF))
	FAILS+=("no summary from the guest: the $BROKEN starts it did not classify count as broken")
fi
NASSERT=$(grep -c '^ASSERT-FAIL: ' "$WORK/console.txt" || true)
[ "$NASSERT" -eq 0 ] || FAILS+=("$NASSERT assertion(s) failed (ASSERT-FAIL lines above)")
[ "$BROKEN" -eq 0 ] || FAILS+=("$BROKEN broken start(s) (START ... class=broken lines above)")
echo "run-vm-soak: seed $SEED: $OK ok (+ $DIST disturbed: an offline began during the start and took their GPU's node), $REF refused, $BROKEN broken; $NASSERT assertion failure(s)"
echo "run-vm-soak: total wall time $(vm_elapsed "$T0")s"
if [ ${#FAILS[@]} -gt 0 ]; then
	for f in "${FAILS[@]}"; do echo "run-vm-soak: FAIL: $f"; done
	echo "run-vm-soak: replay this schedule with: $REPLAY $HOOK"
	KEEP=1
fi
[ "$KEEP" = 1 ] && echo "run-vm-soak: work directory kept: $WORK (console.txt holds the whole guest console)"
echo "$STARTS starts: $((OK + DIST)) ok, $REF refused, $BROKEN broken"
[ ${#FAILS[@]} -eq 0 ]
