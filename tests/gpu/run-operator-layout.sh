#!/bin/bash
# On the GPU host (NOT CI): the GPU operator's node around the host's real driver and GPU.
#   1. The node image's nvml-refresh container, as the DaemonSet runs it: the image's file tree
#      (examples/kubernetes/build-image.sh, unpacked) as its root, the host's / at /host and /dev at
#      /dev, `gpu-numa-hook --host-root /host topology --follow`. It must write the NVML cache with
#      the image's probe and C library loading the host's real libnvidia-ml.so.1; its own peak memory,
#      the probe's (10 runs) and the follower's CPU time per tick are measured against the
#      DaemonSet's 64 MiB limit.
#   2. NVIDIA's toolkit laid out by the real nvidia-ctk-installer 1.20.0 as the operator runs it with
#      the host's driver (driver root /) and its hardened settings (volume mounts accepted, the
#      variable refused from unprivileged pods), into a private /usr/local/nvidia. A CUDA container
#      of the device plugin's volume-mounts strategy (NVIDIA_VISIBLE_DEVICES naming the folder, one
#      /dev/null mount per GPU UUID) through the installer's nvidia-container-runtime wrapper and
#      runc, our hook in its createRuntime hooks as the NRI plugin injects it: CUDA must run and our
#      hook's line must name the GPU, its NVML cache the one step 1 wrote.
#   3. gpu-numa-runtime in front of that runtime, whose own runtime is gpu-numa-runtime (what the
#      installer writes when gpu-numa is containerd's default): the shim, run back, passes on to
#      runc; CUDA must run and our hook run once.
# Everything happens in a private mount namespace: /usr/local/nvidia, /run/gpu-numa-hook,
# /etc/gpu-numa-hook and /etc/nvidia-container-runtime are tmpfs there.
#   OUT=<dir> bash tests/gpu/run-operator-layout.sh      (from the repo root)
# .device/ (git-ignored, carried): gpu-numa-hook, busybox, bin/runc, image-root/, toolkit/ (NVIDIA's
# three tarballs, libnvc-deps/), cuda_alloc.prebuilt (when nvcc is missing there).
set -u
OUT=${OUT:-/tmp/gnh-out}; mkdir -p "$OUT"; export OUT
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$REPO/.device
LOG=$OUT/operator-layout.log
exec > >(tee "$LOG") 2>&1
START_S=$SECONDS
. "$REPO/tests/gpu/gpu-common.sh"
D=/tmp/gnh-op
rm -rf "$D"; cp -a "$SRC" "$D" || die "carry" "cannot copy .device"
IMG=$D/image-root HOOK=$D/gpu-numa-hook
export PATH=$D/bin:$PATH CUDA_ALLOC_FALLBACK=$D/cuda_alloc.prebuilt
[ "$(id -u)" = 0 ] || die "preconditions" "not root"
for f in "$HOOK" "$IMG/usr/bin/gpu-numa-hook" "$IMG/usr/bin/gpu-numa-nvml-probe" "$D/bin/runc" "$D/busybox" \
         "$D/toolkit/nvidia-ctk-installer-1.20.0-amd64.tar.xz"; do
    [ -e "$f" ] || die "preconditions" "$f missing from .device"
done
echo "GPU: $(nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version --format=csv,noheader | one_line)"
read -r GPU_UUID <<<"$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0)"
GPU_MINOR=$(nvidia-smi -q -i 0 | awk -F: '/Minor Number/ { gsub(/ /, "", $2); print $2; exit }')

unshare -m --propagation private -- bash -s "$D" "$GPU_UUID" "$GPU_MINOR" "$REPO" <<'INNER'
set -u
D=$1 GPU_UUID=$2 GPU_MINOR=$3 REPO=$4
IMG=$D/image-root HOOK=$D/gpu-numa-hook
. "$REPO/tests/gpu/gpu-common.sh"
START_S=$SECONDS LOG=$OUT/operator-layout.log
for d in /run/gpu-numa-hook /etc/gpu-numa-hook /etc/nvidia-container-runtime; do
    mkdir -p "$d" 2>/dev/null; mount -t tmpfs gnh-op "$d" || die "namespace" "cannot mount a tmpfs over $d"
done
# /usr/local/nvidia: where the installer writes toolkit/. Some GPU hosts keep the driver itself
# there (lib64/): an overlay keeps the host's files visible and takes the installer's writes.
mkdir -p "$D/ovl" && mount -t tmpfs gnh-op "$D/ovl" && mkdir -p "$D/ovl/up" "$D/ovl/work" /usr/local/nvidia &&
    mount -t overlay gnh-op -o "lowerdir=/usr/local/nvidia,upperdir=$D/ovl/up,workdir=$D/ovl/work" /usr/local/nvidia ||
    die "namespace" "cannot overlay /usr/local/nvidia"
echo "the host's /usr/local/nvidia: $(ls /usr/local/nvidia | one_line)"
NVML_LIB=$(ldconfig -p | awk '/libnvidia-ml.so.1 .*x86-64/ {print $NF; exit}')
echo "the host's NVML: $NVML_LIB -> $(readlink -f "$NVML_LIB"); NEEDED: $(objdump -p "$(readlink -f "$NVML_LIB")" 2>/dev/null | awk '/NEEDED/ {print $2}' | one_line)"
# The host's config as its administrator writes it: the library named where the driver keeps it
# outside the probe's search of /usr/lib/<multiarch>, /usr/lib64 and /usr/lib.
{ printf '[log]\nfile = "%s/hook.log"\n' "$D"
  case $(dirname "$NVML_LIB") in /usr/lib/x86_64-linux-gnu|/usr/lib64|/usr/lib|/lib/x86_64-linux-gnu) ;;
  *) printf '[nvml]\nlibrary = "%s"\n' "$NVML_LIB" ;; esac; } >/etc/gpu-numa-hook/config.toml
echo "/etc/gpu-numa-hook/config.toml: $(one_line </etc/gpu-numa-hook/config.toml)"
: >"$D/hook.log"

# ---------------------------------------------------------------- 1. the nvml-refresh container
section "1. the image's nvml-refresh: topology --follow with the image's probe and C library"
mkdir -p "$IMG/host" "$IMG/dev" "$IMG/proc"
mount --rbind / "$IMG/host" && mount --make-rslave "$IMG/host" && mount --rbind /dev "$IMG/dev" &&
    mount -t proc proc "$IMG/proc" || die "image root" "cannot mount /host, /dev, /proc"
echo "the image's loader and C library: $(cd "$IMG" && ls lib64/ lib/x86_64-linux-gnu/ | one_line)"
chroot "$IMG" /usr/bin/gpu-numa-hook --host-root /host topology --follow --interval-ms 100 >"$D/follow.out" 2>&1 &
FPID=$!
for _ in $(seq 1 600); do grep -q -E "topology --follow: (refreshed|refresh failed):" "$D/follow.out" && break; sleep 0.1; done
indent <"$D/follow.out"
CACHE=/run/gpu-numa-hook/nvml-cache.json
if grep -q "topology --follow: refreshed:" "$D/follow.out" && jq -e --arg u "$GPU_UUID" '.gpus | map(.uuid) | index($u) != null' "$CACHE" >/dev/null 2>&1; then
    pass "the nvml-refresh command from the image root wrote $CACHE with the real NVML: $(jq -c '{driver_version, cuda_version, gpus: [.gpus[] | {uuid, minor, mig_mode}]}' "$CACHE" | one_line)"
else fail "nvml-refresh from the image" "$(one_line <"$D/follow.out")"; fi
# Its steady cost: 50 ticks (procfs only, the cache current), the follower's CPU time and peak memory.
T0=$(awk '{print $14 + $15}' "/proc/$FPID/stat")
N0=$(grep -c . "$D/follow.out")
sleep 5
T1=$(awk '{print $14 + $15}' "/proc/$FPID/stat")
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$FPID/status")
TCK=$(getconf CLK_TCK)
echo "MEASURED: follower over 5 s at 100 ms ticks: $(( (T1 - T0) * 1000 / TCK )) ms CPU (clock ticks $T0 -> $T1 at $TCK/s), peak RSS ${HWM} KiB, new lines $(( $(grep -c . "$D/follow.out") - N0 ))"
kill -TERM "$FPID"; wait "$FPID"; echo "follower exit $? after SIGTERM: $(tail -n1 "$D/follow.out")"
python3 - "$IMG" "$NVML_LIB" <<'PY'
import resource, statistics, subprocess, sys, time
img, lib = sys.argv[1:3]
walls, rss = [], []
for i in range(10):
    t = time.monotonic()
    p = subprocess.run(["chroot", img, "/usr/bin/gpu-numa-nvml-probe", "--nvml", "/host" + lib, "--boot-id-file",
                        "/host/proc/sys/kernel/random/boot_id"], capture_output=True)
    walls.append((time.monotonic() - t) * 1000)
    rss.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    if p.returncode != 0:
        print("probe failed:", p.stderr.decode()); sys.exit(1)
print("MEASURED: the image's probe (its loader and C library, the host's NVML), 10 runs: wall ms", " ".join("%.0f" % w for w in walls),
      "- median %.0f ms, max %.0f ms; peak RSS %d KiB" % (statistics.median(walls), max(walls), max(rss)))
PY
[ $? = 0 ] && pass "the image's probe ran 10 times against the host's driver root (times and peak memory above)" || fail "the image's probe" "see above"

# ---------------------------------------------------------------- 2. the real installer, volume-mounts
section "2. NVIDIA's toolkit laid out by the real nvidia-ctk-installer 1.20.0 (driver root /, hardened)"
T=$D/nct; mkdir -p "$T/inst" "$T/tk" "$T/lib" "$T/art/usr/bin" "$T/art/usr/lib" "$T/run"
tar -xJf "$D/toolkit/nvidia-ctk-installer-1.20.0-amd64.tar.xz" -C "$T/inst" &&
    tar -xJf "$D/toolkit/nvidia-container-toolkit-1.20.0-amd64.tar.xz" -C "$T/tk" &&
    tar -xJf "$D/toolkit/libnvidia-container-1.17.2-amd64.tar.xz" -C "$T/lib" || die "installer" "cannot unpack the tarballs"
for f in "$T"/tk/bin/* "$T"/lib/bin/*; do ln -s "$f" "$T/art/usr/bin/"; done
ln -s "$T/lib/lib/x86_64-linux-gnu" "$T/art/usr/lib/x86_64-linux-gnu"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS=true \
    "$T/inst/bin/nvidia-ctk-installer" --no-daemon --runtime containerd --no-runtime-config \
    --driver-root / --driver-root-ctr-path / --toolkit-install-dir /usr/local/nvidia \
    --toolkit-source-root "$T/art" --pid-file "$T/run/toolkit.pid" >"$D/installer.log" 2>&1
rc=$?
tail -n 5 "$D/installer.log" | indent
TK=/usr/local/nvidia/toolkit CFG=/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml
[ "$rc" = 0 ] && [ -f "$CFG" ] || die "installer" "exit $rc: $(tail -n 3 "$D/installer.log" | one_line)"
echo "-- $CFG (as written):"; grep -E '^\s*(root|ldconfig|mode|runtimes|accept-nvidia|path) ' "$CFG" | indent
# The cli's libraries this host lacks (libtirpc ...), beside the installed library (its wrapper's
# LD_LIBRARY_PATH); nothing else of the layout is changed. NVIDIA's runtime logs for the evidence.
missing=$(LD_LIBRARY_PATH=$TK ldd "$TK/nvidia-container-cli.real" 2>&1 | awk '/not found/ {print $1}')
for so in $missing; do [ -e "$D/toolkit/libnvc-deps/$so" ] && cp "$D/toolkit/libnvc-deps/$so" "$TK/"; done
[ -n "$missing" ] && echo "the cli's libraries this host lacks, put beside it: $(echo $missing)"
"$TK/nvidia-ctk" config --config-file="$CFG" --in-place --set nvidia-container-runtime.debug="$D/nvidia-runtime.log" \
    --set nvidia-container-cli.debug="$D/nvidia-cli.log" >/dev/null 2>&1 || echo "note: nvidia-ctk config --set debug failed"

build_cuda_alloc "$D/cuda_alloc" "$D/nvcc.txt"; [ $? -le 1 ] || die "cuda_alloc" "$(one_line <"$D/nvcc.txt")"
R=$D/bundle/rootfs
# with the libraries the driver's libcuda loads (its own copy comes from NVIDIA's runtime)
LIBCUDA=$(ldconfig -p | awk '$1 == "libcuda.so.1" && /x86-64/ { print $NF; exit }')
make_rootfs "$R" "$D/busybox" "$D/cuda_alloc" ${LIBCUDA:+"$LIBCUDA"} || die "rootfs" "cannot copy the C library"
cp "$D/cuda_alloc" "$R/opt/gnh/cuda_alloc"
mkdir -p "$R/usr/lib/x86_64-linux-gnu" "$R/usr/lib64" "$R/var/run/nvidia-container-devices"
# NVIDIA's runtime mounts the driver's libraries at their host paths (CDI): the image's library path
# names them, as run-toolkit-chains.sh does.
python3 - "$D/bundle/config.json" "$HOOK" "$GPU_UUID" "/usr/lib/x86_64-linux-gnu:/usr/lib64${LIBCUDA:+:$(dirname "$LIBCUDA")}" <<'PY'
import json, sys
out, hook, uuid, ldpath = sys.argv[1:5]
cmd = 'echo container-ran; ls /dev | grep nvidia | tr "\\n" " "; echo; /opt/gnh/cuda_alloc 64'
cfg = {
    "ociVersion": "1.0.2",
    "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", cmd], "cwd": "/",
                # the volume-mounts strategy: the variable names the folder, a mount per device id
                "env": ["PATH=/bin", "LD_LIBRARY_PATH=" + ldpath,
                        "NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"],
                "capabilities": {k: ["CAP_KILL"] for k in ("bounding", "effective", "permitted")}, "noNewPrivileges": True},
    "root": {"path": "rootfs"},
    "mounts": [
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
        {"destination": "/var/run/nvidia-container-devices/" + uuid, "type": "bind", "source": "/dev/null", "options": ["bind", "ro"]},
    ],
    # as the NRI plugin injects it
    "hooks": {"createRuntime": [{"path": hook, "args": ["gpu-numa-hook", "createRuntime"]}]},
    "linux": {"resources": {"devices": [{"allow": False, "access": "rwm"}]}, "cgroupsPath": "/gnh-op/ctr",
              "namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]},
}
json.dump(cfg, open(out, "w"), indent=1)
PY
cp "$D/bundle/config.json" "$D/bundle/config.orig.json"
# run_case NAME: the bundle's copy NAME through the installer's nvidia-container-runtime wrapper:
# create / start / wait / delete as a shim does; CUDA must run and our hook name the GPU.
run_case() {
local B=$D/case-$1
rm -rf "$B"; cp -a "$D/bundle" "$B"
python3 "$REPO/tests/gpu/run_container.py" "$TK/nvidia-container-runtime" "$D/state" "$B" "gnh-op-$1" >"$D/ctr-$1.txt" 2>&1
cat "$D/ctr-$1.txt" "$B/ctr.out" "$B/ctr.err" 2>/dev/null | indent
HOOKS=$(jq -c '{prestart: [.hooks.prestart[]?.path], createRuntime: [.hooks.createRuntime[]?.path]}' "$B/config.json")
LINE=$(grep "container=gnh-op-$1 " "$D/hook.log" | tail -1)
echo "-- $1: spec hooks after create: $HOOKS; devices: $(jq -c '[.linux.devices[]?.path]' "$B/config.json")"
echo "NVIDIA's runtime, mode lines: $(grep -hE '[Mm]ode' "$D/nvidia-runtime.log" 2>/dev/null | sed -E 's/^time="[^"]*" //' | awk '!s[$0]++' | head -3 | one_line)"
echo "NVIDIA's cli: $(grep -h -o -- '--device=[^ ]*' "$D/nvidia-cli.log" 2>/dev/null | head -1)"
echo "our hook's line: ${LINE:-<none>}"
if grep -q "container exit status 0" "$D/ctr-$1.txt" && grep -q "^cuda_alloc: OK " "$B/ctr.out" &&
    grep -q "action=allow gpus=/dev/nvidia$GPU_MINOR(" <<<"$LINE"; then
    pass "$1: volume-mounts strategy under the installer's layout: CUDA ran, NVIDIA's runtime (the installer's wrapper, $(grep -h -o "Using requested mode '[a-z-]*'" "$D/nvidia-runtime.log" | tail -1)) gave the GPU from its mount, our hook named it (/dev/nvidia$GPU_MINOR)"
else fail "$1: volume-mounts CUDA container" "$(cat "$D/ctr-$1.txt" "$B/ctr.out" "$B/ctr.err" 2>/dev/null | one_line); line: ${LINE:-none}"; fi
}
run_case jit
# The same container with NVIDIA's runtime in mode legacy: NVIDIA's hook (the installer's wrapper)
# takes the GPU from the mount, and our hook reads the settings from the file that wrapper names.
# (cuda-compat-mode none: the carried cli, libnvidia-container 1.17.2, predates 1.20's
# --cuda-compat-mode, as in run-toolkit-chains.sh)
"$TK/nvidia-ctk" config --config-file="$CFG" --in-place --set nvidia-container-runtime.mode=legacy \
    --set nvidia-container-runtime.modes.legacy.cuda-compat-mode=none --set features.allow-cuda-compat-libs-from-container=true >/dev/null 2>&1 ||
    echo "note: nvidia-ctk config --set mode=legacy failed"
run_case legacy
grep -q "$TK/nvidia-container-runtime-hook" <<<"$HOOKS" &&
    pass "mode legacy: NVIDIA's hook in the spec is the installer's wrapper ($TK/nvidia-container-runtime-hook), whose config.toml our hook read" ||
    fail "mode legacy: NVIDIA's hook" "prestart hooks: $HOOKS"
echo "-- NVIDIA's cli (debug log), what it was asked:"; grep -h -i -E "device|requested" "$D/nvidia-cli.log" 2>/dev/null | head -n 4 | cut -c1-200 | indent
echo "-- gpu-numa-hook topology (its CUDA version from the cache the image's probe wrote):"
"$HOOK" topology 2>&1 | indent
"$HOOK" status 2>&1 | head -n 12 | indent

# ---------------------------------------------------------------- 3. the shim, run back by NVIDIA's runtime
section "3. gpu-numa-runtime in front of the installer's runtime, whose own runtime is gpu-numa-runtime"
# NVIDIA's runtimes as the installer writes them when gpu-numa is containerd's default (the CI
# lifecycle test, tests/nvidia/run-toolkit-lifecycle-test.sh, shows this line), and our shim
# chained to NVIDIA's runtime as install chains it. The nvidia module is loaded here, so the
# wrapper runs nvidia-container-runtime.real, which makes its edits and execs the shim back.
sed -i "s|^\( *runtimes = \).*|\1[\"$D/gpu-numa-runtime\", \"runc\", \"crun\"]|" "$CFG"
printf '[runtime]\nhook = "%s"\nnext = ["%s", "%s"]\n' "$HOOK" "$TK/nvidia-container-runtime" "$D/bin/runc" >>/etc/gpu-numa-hook/config.toml
echo "NVIDIA's $(grep -E '^ *runtimes = ' "$CFG" | sed 's/^ *//'); ours: $(grep -A2 '^\[runtime\]' /etc/gpu-numa-hook/config.toml | one_line)"
B=$D/case-chain
rm -rf "$B"; cp -a "$D/bundle" "$B"
jq '.hooks = {}' "$D/bundle/config.orig.json" >"$B/config.json"   # the shim registers our hook
python3 "$REPO/tests/gpu/run_container.py" "$D/gpu-numa-runtime" "$D/state" "$B" "gnh-op-chain" >"$D/ctr-chain.txt" 2>&1 &
CPID=$!
for _ in $(seq 1 300); do kill -0 "$CPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$CPID" 2>/dev/null; then
    echo "still running after 30 s: $(ps -eo pid,stat,args | grep -E 'gpu-numa-runtime|nvidia-container-runtime' | grep -v grep | head -5 | one_line)"
    pkill -f "$D/gpu-numa-runtime"; kill "$CPID"
fi
wait "$CPID"
cat "$D/ctr-chain.txt" "$B/ctr.out" "$B/ctr.err" 2>/dev/null | indent
LINE=$(grep "container=gnh-op-chain " "$D/hook.log" | grep "gpu-numa-hook\[" | tail -1)
BACK=$(grep "container=gnh-op-chain stage=runtime-create .*run back by $TK/nvidia-container-runtime," "$D/hook.log")
echo "-- chain: spec hooks after create: $(jq -c '{prestart: [.hooks.prestart[]?.path], createRuntime: [.hooks.createRuntime[]?.path]}' "$B/config.json")"
echo "NVIDIA's runtime: $(grep -hE "low-level|Using (requested )?mode|Running " "$D/nvidia-runtime.log" 2>/dev/null | tail -3 | sed -E 's/^time="[^"]*" //' | one_line)"
echo "the shim, run back: ${BACK:-<none>}"
echo "our hook's line: ${LINE:-<none>}"
if grep -q "container exit status 0" "$D/ctr-chain.txt" && grep -q "^cuda_alloc: OK " "$B/ctr.out" &&
    grep -q "action=allow gpus=/dev/nvidia$GPU_MINOR(" <<<"$LINE" && [ -n "$BACK" ]; then
    pass "chain: gpu-numa-runtime -> NVIDIA's runtime (the installer's wrapper and .real) -> gpu-numa-runtime, run back, -> runc: CUDA ran, our hook ran once and named /dev/nvidia$GPU_MINOR"
else fail "chain: shim run back by NVIDIA's runtime" "$(cat "$D/ctr-chain.txt" "$B/ctr.out" "$B/ctr.err" 2>/dev/null | one_line); line: ${LINE:-none}; back: ${BACK:-none}"; fi
finish
INNER
rc=$?
rmdir /sys/fs/cgroup/gnh-op/ctr /sys/fs/cgroup/gnh-op 2>/dev/null
for c in /sys/fs/cgroup/*/gnh-op; do rmdir "$c/ctr" "$c" 2>/dev/null; done
mkdir -p "$OUT/operator-layout" && cp "$D"/*.log "$D"/follow.out "$OUT/operator-layout/" 2>/dev/null
for c in jit legacy chain; do cp "$D/case-$c/config.json" "$OUT/operator-layout/config-$c.json" 2>/dev/null; done
exit $rc
