#!/bin/bash
# Device-side driver for tests/gpu/run-on-gpu-host.sh on a bare GPU machine that has the NVIDIA driver,
# nvcc and python3 but no crun/runc, busybox or the hook's libraries: those travel in .device/, made here
# by tests/gpu/make-device-carry.sh. Run from the repo root on the GPU machine:
#   OUT=<dir> tests/gpu/device-setup-and-run.sh
# Writes OUT/host-info.txt (driver, sysfs, cgroup facts), OUT/gpu-run.log (the test's full output),
# OUT/toolkit-chains.log (tests/gpu/run-toolkit-chains.sh: the hook beside NVIDIA's real toolkit, when
# .device/toolkit is carried) and OUT/artifacts.tgz (configs, bundles' config.json, hook logs).
# Exit status: 0 when both suites passed.
set -u
OUT=${OUT:-/tmp/gnh-out}; mkdir -p "$OUT"
D=/tmp/gnh-dev
rm -rf "$D"; cp -a .device "$D"
{
  echo "== host info"; date -u; uname -a; cat /etc/os-release 2>/dev/null | head -4; ldd --version 2>&1 | head -1
  echo "== /proc/driver/nvidia/version"; cat /proc/driver/nvidia/version
  for f in /proc/driver/nvidia/gpus/*/information; do echo "== $f"; cat "$f"; done
  for f in /proc/driver/nvidia/gpus/*/numa_status; do [ -e "$f" ] && { echo "== $f"; cat "$f"; }; done
  echo "== /proc/driver/nvidia/params (NUMA/Coherent lines)"; grep -iE 'numa|coherent' /proc/driver/nvidia/params
  for b in $(ls /proc/driver/nvidia/gpus); do echo "== /sys/bus/pci/devices/$b numa_node=$(cat /sys/bus/pci/devices/$b/numa_node 2>&1) local_cpulist=$(cat /sys/bus/pci/devices/$b/local_cpulist 2>&1)"; done
  echo "== nodes"; ls /sys/devices/system/node/ 2>&1; for f in online possible has_memory has_cpu has_normal_memory; do echo "$f: $(cat /sys/devices/system/node/$f 2>&1)"; done
  echo "== ls -l /dev/nvidia*"; ls -l /dev/nvidia* 2>&1
  echo "== /proc/devices"; cat /proc/devices
  echo "== nvidia-smi topo -m"; nvidia-smi topo -m 2>&1
  echo "== ldconfig -p | grep -E 'libcuda|libnvidia'"; ldconfig -p | grep -E 'libcuda|libnvidia'
  echo "== which"; for t in nvcc nvidia-smi python3 busybox crun runc jq unshare; do echo "$t: $(command -v $t)"; done; ls -l /usr/local/cuda/bin/nvcc 2>&1
  echo "== cgroup"; cat /proc/self/cgroup; cat /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/cgroup.subtree_control; ls /sys/fs/cgroup | head -40
  echo "== pid 1"; cat /proc/1/comm; ps -e -o pid,comm 2>/dev/null | head -20
  echo "== mountinfo"; cat /proc/self/mountinfo
} >"$OUT/host-info.txt" 2>&1
# Issue 20: the NVML probe against the host's real NVML (docs/platforms/mig.md), beside nvidia-smi's view.
if [ -x "$D/gpu-numa-nvml-probe" ]; then
  {
    echo "== gpu-numa-nvml-probe (default search)"; "$D/gpu-numa-nvml-probe"; echo "exit $?"
    lib=$(ldconfig -p | awk '/libnvidia-ml\.so\.1 /{print $NF; exit}')
    echo "== gpu-numa-nvml-probe --nvml $lib"; "$D/gpu-numa-nvml-probe" --nvml "$lib" | tee "$OUT/nvml-probe.json"; echo "exit ${PIPESTATUS[0]}"
    echo "== nvidia-smi"; nvidia-smi --query-gpu=index,uuid,pci.bus_id,mig.mode.current,driver_version --format=csv
    # topology --refresh with the real NVML: the cache the hook reads for MIG containers, then the
    # hook's view of a MIG reference with that cache, and with the cache made stale (another boot).
    N=/tmp/gnh-nvml; rm -rf "$N"; mkdir -p "$N/b/rootfs"
    printf '[nvml]\nlibrary = "%s"\nprobe = "%s"\ncache = "%s"\n[log]\nfile = "%s"\n' \
      "$lib" "$D/gpu-numa-nvml-probe" "$N/nvml-cache.json" "$N/hook.log" >"$N/config.toml"
    echo "== gpu-numa-hook topology --refresh"; "$D/gpu-numa-hook" --config "$N/config.toml" topology --refresh; echo "exit $?"
    echo "== $N/nvml-cache.json"; cat "$N/nvml-cache.json"; echo
    uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n 1)
    bundle() { # NVIDIA_VISIBLE_DEVICES value
      printf '{"ociVersion":"1.0.2","process":{"args":["true"],"cwd":"/","env":["NVIDIA_VISIBLE_DEVICES=%s"]},"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]},"root":{"path":"rootfs"},"linux":{"cgroupsPath":"/gnh-nvml/c1"}}\n' "$1" >"$N/b/config.json"
    }
    for ref in "$uuid" MIG-5d2c8e1a-0f3b-4c7d-9e61-a3b4c5d6e7f8 0:0; do
      bundle "$ref"; echo "== explain, NVIDIA_VISIBLE_DEVICES=$ref (current cache)"
      "$D/gpu-numa-hook" --config "$N/config.toml" explain --bundle "$N/b"; echo "exit $?"
    done
    sed -i 's/"boot_id":"[^"]*"/"boot_id":"00000000-0000-0000-0000-000000000000"/' "$N/nvml-cache.json"
    bundle MIG-5d2c8e1a-0f3b-4c7d-9e61-a3b4c5d6e7f8; echo "== explain, a MIG reference, the cache from another boot"
    "$D/gpu-numa-hook" --config "$N/config.toml" explain --bundle "$N/b"; echo "exit $?"
  } >"$OUT/nvml-probe.txt" 2>&1
fi
HOOK=$D/gpu-numa-hook; CRUN=$D/bin/crun
if ! "$HOOK" --version >/dev/null 2>&1; then
  echo "carried hook does not run natively ($("$HOOK" --version 2>&1 | head -2)); using the glibc-carrying fallback"
  HOOK=$D/alt/gpu-numa-hook; CRUN=$D/alt/crun
fi
[ -x "$(command -v nvcc)" ] || [ -x /usr/local/cuda/bin/nvcc ] || export CUDA_ALLOC=$D/cuda_alloc.prebuilt
export CUDA_ALLOC_FALLBACK=$D/cuda_alloc.prebuilt
export CRUN RUNC=$D/bin/runc BUSYBOX=$D/busybox GNH_GPU_LOG=$OUT/gpu-run.log GNH_GPU_ARTIFACTS=/tmp/gnh-art
[ -x "$D/gpu-numa-runtime" ] && export GNH_SHIM=$D/gpu-numa-runtime
rm -rf /tmp/gnh-art
tests/gpu/run-on-gpu-host.sh "$HOOK"
rc=$?
echo "run-on-gpu-host.sh exit $rc"
# The hook beside NVIDIA's real Container Toolkit (its tarballs carried in .device/toolkit).
if [ -d "$D/toolkit" ]; then
  NCT_TARBALL=$D/toolkit/nvidia-container-toolkit-1.20.0-amd64.tar.xz LIBNVC_TARBALL=$D/toolkit/libnvidia-container-1.17.2-amd64.tar.xz \
  LIBNVC_DEPS=$D/toolkit/libnvc-deps GNH_CHAINS_LOG=$OUT/toolkit-chains.log tests/gpu/run-toolkit-chains.sh "$HOOK"
  crc=$?
  echo "run-toolkit-chains.sh exit $crc"
  [ $rc = 0 ] && rc=$crc
else
  echo "WARNING: no .device/toolkit (NVIDIA's toolkit tarballs): run-toolkit-chains.sh not run"
fi
# Two or more GPUs: all, an index and a UUID, from the driver and from the identity cache.
GNH_TWO_GPU_LOG=$OUT/two-gpus.log tests/gpu/run-two-gpus.sh "$HOOK"
trc=$?
echo "run-two-gpus.sh exit $trc"
[ $rc = 0 ] && [ $trc != 77 ] && rc=$trc
tar czf "$OUT/artifacts.tgz" -C /tmp/gnh-art . 2>/dev/null
exit $rc
