#!/bin/bash
# Probe (not a ctest): what a cpuset.mems change does to a running process bound to a GPU memory
# node, on Debian's kernel in QEMU with the soak's topology (CPU-less nodes 1 and 2, all online).
# The randomized soak found a start whose numa_touch, bound to node 2, got its pages on node 1
# after `check --fix` widened the running container's cgroup from 0,2 to 0-2 (README: Findings).
#
#   tests/vm/mpol-rebind-probe.sh
#
# A static helper mbinds 8 MiB to node 2 (MPOL_BIND), waits, touches it, and prints where the pages
# landed and the policy's node mask afterwards. Cases: the cgroup left alone; the cgroup widened
# 0,2 -> 0-2 while it waits; only the parent widened; node 1 offlined under a cgroup 0-2.
# Exit 0 when the VM ran every case (the output is the finding, not a verdict).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=vm-lib.sh
. "$HERE/vm-lib.sh"
VM_LOG_PREFIX=mpol-rebind-probe
vm_require_tools
KERNEL=$(vm_kernel)
WORK=$(mktemp -d /tmp/gpu-numa-mpol.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
mkdir -p "$ROOT"/{bin,proc,sys,dev,cg}

cat >"$WORK/bound_touch.c" <<'EOF'
// bound_touch SECONDS: mbind 8 MiB to node 2 (MPOL_BIND), sleep, touch, print the pages' nodes.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
  const size_t len = 8 << 20, page = 4096;
  char *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned long mask[16] = {1UL << 2};
  if (b == MAP_FAILED || syscall(SYS_mbind, b, len, 2 /*MPOL_BIND*/, mask, 1025UL, 1UL) != 0) {
    perror("mmap/mbind");
    return 1;
  }
  sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 0);
  memset(b, 1, len);
  int count[3] = {0, 0, 0};
  for (size_t i = 0; i < len / page; i++) {
    int where = -1;
    syscall(SYS_get_mempolicy, &where, NULL, 0UL, b + i * page, 3UL /*MPOL_F_NODE|MPOL_F_ADDR*/);
    if (where >= 0 && where < 3) count[where]++;
  }
  unsigned long now[16] = {0};
  int mode = -1;
  syscall(SYS_get_mempolicy, &mode, now, 1025UL, b, 2UL /*MPOL_F_ADDR*/);
  printf("  pages on node 0: %d, node 1: %d, node 2: %d; policy now MPOL_BIND=%d to node mask 0x%lx\n",
         count[0], count[1], count[2], mode == 2, now[0]);
  return 0;
}
EOF
gcc -static -O2 -Wall -o "$ROOT/bin/bound_touch" "$WORK/bound_touch.c"
cp "$(command -v busybox)" "$ROOT/bin/busybox"
cat >"$ROOT/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs dev /dev
exec >/dev/console 2>&1
for m in /sys/devices/system/node/node1/memory* /sys/devices/system/node/node2/memory*; do echo online_movable >"$m/state"; done
mount -t cgroup -o cpuset cpuset /cg
sleep 0.5
mk() { mkdir -p "/cg/$1"; cat /cg/cpuset.cpus >"/cg/$1/cpuset.cpus"; echo "$2" >"/cg/$1/cpuset.mems"; }
run_in() { sh -c "echo \$\$ >/cg/$1/tasks; exec bound_touch $2"; }
echo "PROBE 1: cgroup mems 0,2, left alone"
mk a 0,2; run_in a 0
echo "PROBE 2: cgroup mems 0,2, widened to 0-2 while the process waits (what check --fix does)"
mk b 0,2; run_in b 2 & sleep 1; echo 0-2 >/cg/b/cpuset.mems; wait
echo "PROBE 3: cgroup mems 0,2 under a parent 0,2; only the parent widened to 0-2"
mk p 0,2; mk p/c 0,2; run_in p/c 2 & sleep 1; echo 0-2 >/cg/p/cpuset.mems; wait
echo "PROBE 4: cgroup mems 0-2, node 1 offlined while the process waits"
mk d 0-2; run_in d 3 & sleep 1
for m in /sys/devices/system/node/node1/memory*; do echo offline >"$m/state"; done
wait
echo "PROBE-DONE"
poweroff -f
EOF
chmod 755 "$ROOT/init"
vm_pack_initramfs "$ROOT" "$WORK/initrd.gz"
timeout --kill-after=10 240 qemu-system-x86_64 -accel tcg -cpu max -smp 2,maxcpus=4 \
	-m 512M,slots=4,maxmem=2G -object memory-backend-ram,id=m0,size=512M \
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2 -numa node,nodeid=2,cpus=3 \
	-object memory-backend-ram,id=m1,size=384M -device pc-dimm,id=d1,memdev=m1,node=1 \
	-object memory-backend-ram,id=m2,size=384M -device pc-dimm,id=d2,memdev=m2,node=2 \
	-kernel "$KERNEL" -initrd "$WORK/initrd.gz" -append "console=ttyS0 rdinit=/init panic=-1 quiet" \
	-display none -nodefaults -no-reboot -serial "file:$WORK/console.log" </dev/null >/dev/null 2>&1 || true
tr -d '\r' <"$WORK/console.log" | grep -E '^(PROBE|  pages|  mmap)' || true
grep -q PROBE-DONE "$WORK/console.log"
