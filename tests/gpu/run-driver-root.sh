#!/bin/bash
# On the GPU host (device machine), from the repo root, with .device/ holding gpu-numa-hook and
# gpu-numa-nvml-probe: the GPU operator's driver layout around the host's real driver. In a private
# mount namespace: the driver's libnvidia-ml.so.1 copied into /run/nvidia/driver/usr/lib/<multiarch>
# (the driver container's root), the host's own copy hidden (/dev/null bound over it: a probe that
# searched the host's folders would fail), and the real nvidia-ctk-installer 1.20.0's config.toml at
# /usr/local/nvidia/toolkit/.config/nvidia-container-runtime/ (root = "/run/nvidia/driver").
# Then `gpu-numa-hook topology --refresh` as the DaemonSet would run it, and the probe's time and
# peak memory over 10 runs against that root.
#   OUT=<dir> bash tests/gpu/run-driver-root.sh
set -u
OUT=${OUT:-/tmp/gnh-out}; mkdir -p "$OUT"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
D=$REPO/.device
lib=$(ldconfig -p | awk '/libnvidia-ml.so.1 .*x86-64/ {print $NF; exit}')
[ -n "$lib" ] || { echo "FAIL: no libnvidia-ml.so.1 on this host" | tee "$OUT/driver-root.log"; exit 1; }
real=$(readlink -f "$lib")
exec > >(tee "$OUT/driver-root.log") 2>&1
echo "== host library: $lib -> $real"
unshare -m --propagation private bash -s "$D" "$lib" "$real" "$REPO" <<'INNER'
set -u
D=$1 lib=$2 real=$3 REPO=$4
mount -t tmpfs tmpfs /run/nvidia 2>/dev/null || { mkdir -p /run/nvidia && mount -t tmpfs tmpfs /run/nvidia; }
mkdir -p /run/nvidia/driver/usr/lib/x86_64-linux-gnu
cp "$real" /run/nvidia/driver/usr/lib/x86_64-linux-gnu/
ln -s "$(basename "$real")" /run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1
mount --bind /dev/null "$real"
mkdir -p /usr/local/nvidia 2>/dev/null; mount -t tmpfs tmpfs /usr/local/nvidia
mkdir -p /usr/local/nvidia/toolkit/.config/nvidia-container-runtime
cp "$REPO/tests/fixtures/nvidia-ctk-installer-1.20.0/config.toml" /usr/local/nvidia/toolkit/.config/nvidia-container-runtime/
mount -t tmpfs tmpfs /etc/nvidia-container-runtime 2>/dev/null || true  # no host-package config here
mkdir -p /run/gpu-numa-hook && mount -t tmpfs tmpfs /run/gpu-numa-hook
# (where the host's driver itself lies under /usr/local/nvidia, as on some GPU hosts, the tmpfs
# above hides it as well)
if [ -s "$real" ]; then echo "FAIL: the host's $real is still readable"; exit 1; fi
echo "== the host's copy of the library is hidden: only /run/nvidia/driver holds one"
echo "== gpu-numa-hook topology --refresh (no config: the root from the toolkit's config.toml)"
"$D/gpu-numa-hook" --config /dev/null topology --refresh; echo "exit $?"
echo "== the cache"; cat /run/gpu-numa-hook/nvml-cache.json; echo
echo "== gpu-numa-hook topology"; "$D/gpu-numa-hook" --config /dev/null topology
echo "== the probe against the driver root, 10 runs: wall ms and peak RSS KiB"
python3 - "$D/gpu-numa-nvml-probe" <<'PY'
import resource, subprocess, sys, time, statistics
walls, rss = [], []
for i in range(10):
    t = time.monotonic()
    p = subprocess.run([sys.argv[1], "--driver-root", "/run/nvidia/driver"], capture_output=True)
    walls.append((time.monotonic() - t) * 1000)
    r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    rss.append(r)
    if p.returncode != 0: print("probe failed:", p.stderr.decode()); sys.exit(1)
print("wall ms:", " ".join("%.0f" % w for w in walls))
print("median wall %.0f ms, max %.0f ms; peak RSS of the children %d KiB" % (statistics.median(walls), max(walls), max(rss)))
PY
INNER
