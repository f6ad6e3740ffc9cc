#!/bin/bash
# gpu-numa-hook on a real NVIDIA GPU host: the real driver, real GPUs, real CUDA, a real OCI runtime.
# NOT part of CI (CI machines have no GPU). Run it by hand, as root, on a GPU host:
#
#   tests/gpu/run-on-gpu-host.sh [HOOK_BINARY]        (default: <repo>/build/gpu-numa-hook)
#
# Steps, each reported as PASS/FAIL lines, then a summary:
#   a. topology: `gpu-numa-hook topology --json` against `nvidia-smi -q` (minor, bus id, UUID),
#      memory_node against /proc/driver/nvidia/gpus/<bus>/numa_status (null where absent: PCIe GPUs),
#      affinity_node against /sys/bus/pci/devices/<bus>/numa_node (null for -1), memory_nodes
#      against /sys/devices/system/node/has_memory; memory_mode against /proc/driver/nvidia/params.
#   b. CUDA: builds tests/gpu/cuda_alloc.cu with nvcc (static CUDA runtime) and runs it on the host.
#   c. an OCI bundle: busybox rootfs, the GPU's device nodes (/dev/nvidiaN, nvidiactl, nvidia-uvm,
#      nvidia-uvm-tools) in linux.devices with device-cgroup allow rules, the driver's libraries
#      (libcuda.so.1 and friends) bind-mounted read-only, cuda_alloc bind-mounted, the hook registered
#      as a prestart hook (args [gpu-numa-hook, --config, CFG, prestart], env PATH only).
#   d. containers under each policy (missing-node = patch | refuse | warn, gpu-affinity = ignore |
#      warn | patch), per runtime: the start succeeds, cuda_alloc succeeds inside, the hook's log
#      line says action=allow. Plus a non-GPU container (fast path) and a createRuntime registration.
#   e. `explain --json --bundle B` says "action": "allow".
#   f. refusals: a config override `[[topology.gpu]] minor = N, memory-node = <a node this host
#      lacks>` with missing-node=refuse, and gpu-affinity=refuse with affinity-node = that node:
#      the start is refused; prints what the user sees and the log's reason.
#   g. `check --json --prometheus F` (exit 0, no problems) and `wait --timeout 5` (exit 0) on this host.
#   h. (GNH_SHIM and runc) the runtime shim: `gpu-numa-runtime run` on a GPU bundle with "hooks": {},
#      as Docker hands it over: exactly one prestart hook added (ours), runc runs it, CUDA works.
#
# Needs: root, bash, python3, busybox (a static one), nvidia-smi, nvcc (or CUDA_ALLOC=prebuilt binary),
# crun and/or runc, ldd or ldconfig, timeout, stat.
# Env:
#   GNH_GPU_RUNTIMES  runtimes to use, e.g. "crun runc" (default: every one found)
#   CRUN, RUNC        runtime binaries (default: from PATH)
#   NVCC              nvcc (default: PATH, then /usr/local/cuda/bin/nvcc)
#   CUDA_ALLOC        a prebuilt cuda_alloc binary (skips nvcc)
#   CUDA_ALLOC_FALLBACK  a prebuilt cuda_alloc used (after a FAIL) when nvcc fails
#   BUSYBOX           static busybox (default: from PATH)
#   GNH_GPU_LOG       where the full output goes too (default /tmp/gnh-gpu-run-<time>.log)
#   GNH_GPU_ARTIFACTS a directory: configs, bundles' config.json and hook logs are copied there
#   GNH_GPU_KEEP=1    keep the temp dir
#   GNH_SHIM          gpu-numa-runtime to test in step h (its config is /etc/gpu-numa-hook/config.toml:
#                     a private mount namespace binds a temp dir over it; the host's /etc is not written
#                     unless that directory is missing, and then only an empty mount point, removed after)
# Exit status: 0 only when every step passed.
set -u

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
LOG=${GNH_GPU_LOG:-/tmp/gnh-gpu-run-$(date -u +%Y%m%dT%H%M%SZ).log}
mkdir -p "$(dirname "$LOG")"
exec > >(tee -a "$LOG") 2>&1
START_S=$SECONDS

. "$SCRIPT_DIR/gpu-common.sh"

# ---------------------------------------------------------------- preconditions
section "host"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "kernel: $(uname -r) $(uname -m); $(grep -m1 PRETTY_NAME /etc/os-release 2>/dev/null)"
echo "libc: $(ldd --version 2>&1 | head -n1)"
echo "pid 1: $(cat /proc/1/comm 2>/dev/null)"
echo "cgroup mounts: $(awk '$9 ~ /^cgroup/ { print $5 " (" $9 ")" }' /proc/self/mountinfo | one_line)"
echo "own cgroup: $(one_line </proc/self/cgroup)"
echo "NUMA: online=$(cat /sys/devices/system/node/online 2>/dev/null || echo '?') has_memory=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo '?') cpus=$(nproc)"
[ "$(id -u)" = 0 ] || die "preconditions" "not root"
for t in python3 nvidia-smi timeout stat; do
    command -v "$t" >/dev/null 2>&1 || die "preconditions" "'$t' is missing"
done
[ -x "$HOOK" ] || die "preconditions" "hook binary $HOOK missing (build: cmake -S . -B build && cmake --build build)"
HOOK=$(cd "$(dirname "$HOOK")" && pwd)/$(basename "$HOOK")
echo "hook: $HOOK ($("$HOOK" --version 2>&1 | one_line))"
"$HOOK" --version >/dev/null 2>&1 || die "preconditions" "the hook binary does not run here: $("$HOOK" --version 2>&1 | one_line)"
BUSYBOX=${BUSYBOX:-$(command -v busybox || true)}
[ -n "$BUSYBOX" ] && [ -x "$BUSYBOX" ] || die "preconditions" "no busybox (set BUSYBOX=/path/to/static/busybox)"
CRUN=${CRUN:-$(command -v crun || true)}
RUNC=${RUNC:-$(command -v runc || true)}
if [ -z "${GNH_GPU_RUNTIMES:-}" ]; then
    GNH_GPU_RUNTIMES=""
    [ -n "$CRUN" ] && GNH_GPU_RUNTIMES="$GNH_GPU_RUNTIMES crun"
    [ -n "$RUNC" ] && GNH_GPU_RUNTIMES="$GNH_GPU_RUNTIMES runc"
fi
[ -n "$GNH_GPU_RUNTIMES" ] || die "preconditions" "neither crun nor runc found (set CRUN= or RUNC=)"
for rt in $GNH_GPU_RUNTIMES; do
    case $rt in
    crun) echo "crun: $CRUN ($("$CRUN" --version 2>&1 | head -n1))" ;;
    runc) echo "runc: $RUNC ($("$RUNC" --version 2>&1 | head -n1))" ;;
    *) die "preconditions" "unknown runtime '$rt' in GNH_GPU_RUNTIMES" ;;
    esac
done
echo "nvidia-smi: $(command -v nvidia-smi); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n1)"

TMP=$(mktemp -d /tmp/gnh-gpu.XXXXXX) || die "preconditions" "mktemp failed"
chmod 755 "$TMP"
RUNID=$(basename "$TMP" | sed 's/^gnh-gpu\.//' | tr 'A-Z' 'a-z')
CG_PARENT=gnh-gpu-test
mkdir -p "$TMP"/{rootfs,bundles,cfg,logs,state,out}

cgroup_mounts() { awk '$9 == "cgroup" || $9 == "cgroup2" { print $5 }' /proc/self/mountinfo; }
cleanup() {
    local rt id m d i
    trap - EXIT INT TERM HUP
    for rt in crun runc; do
        [ -d "$TMP/state/$rt" ] || continue
        for id in $(rt_cmd "$rt" list -q 2>/dev/null); do rt_cmd "$rt" delete -f "$id" >/dev/null 2>&1; done
    done
    for i in 1 2 3 4 5; do
        for m in $(cgroup_mounts); do
            [ -d "$m/$CG_PARENT" ] || continue
            find "$m/$CG_PARENT" -mindepth 1 -depth -type d -name "*$RUNID*" -exec rmdir {} \; 2>/dev/null
            rmdir "$m/$CG_PARENT" 2>/dev/null
        done
        [ -z "$(for m in $(cgroup_mounts); do [ -d "$m/$CG_PARENT" ] && echo x; done)" ] && break
        sleep 0.2
    done
    if [ -n "${GNH_GPU_ARTIFACTS:-}" ]; then
        mkdir -p "$GNH_GPU_ARTIFACTS" && cp -r "$TMP/cfg" "$TMP/logs" "$TMP/out" "$GNH_GPU_ARTIFACTS/" 2>/dev/null
        for d in "$TMP"/bundles/*; do [ -f "$d/config.json" ] && cp "$d/config.json" "$GNH_GPU_ARTIFACTS/config-$(basename "$d").json"; done
    fi
    if [ "${GNH_GPU_KEEP:-}" = 1 ]; then echo "kept $TMP"; else rm -rf --one-file-system "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

rt_cmd() { # RT ARGS...: the runtime with its state dir (and crun's cgroupfs manager)
    local rt=$1
    shift
    mkdir -p "$TMP/state/$rt"
    case $rt in
    crun) "$CRUN" --cgroup-manager=cgroupfs --root "$TMP/state/crun" "$@" ;;
    runc) "$RUNC" --root "$TMP/state/runc" "$@" ;;
    esac
}

# ================================================================ a. topology vs nvidia-smi
section "a. topology: gpu-numa-hook vs nvidia-smi -q vs sysfs"
"$HOOK" --config /dev/null topology >"$TMP/out/topology.txt" 2>&1
"$HOOK" --config /dev/null topology --json >"$TMP/out/topology.json" 2>"$TMP/out/topology.err"
TOPO_RC=$?
nvidia-smi -q >"$TMP/out/nvidia-smi-q.txt" 2>&1
SMI_RC=$?
echo "-- gpu-numa-hook topology (exit $TOPO_RC):"; indent <"$TMP/out/topology.txt"
echo "-- nvidia-smi -q (exit $SMI_RC), the lines compared:"
grep -E '^(Driver Version|CUDA Version|Attached GPUs)|^GPU [0-9a-fA-F]|^    (Product Name|GPU UUID|Minor Number)|^        Bus Id' "$TMP/out/nvidia-smi-q.txt" | indent
if [ "$TOPO_RC" != 0 ] || [ "$SMI_RC" != 0 ]; then
    die "a. topology" "topology exit $TOPO_RC ($(one_line <"$TMP/out/topology.err")), nvidia-smi exit $SMI_RC"
fi
python3 - "$TMP/out/topology.json" "$TMP/out/nvidia-smi-q.txt" >"$TMP/out/topology-compare.txt" 2>&1 <<'PY'
import json, os, re, sys
topo = json.load(open(sys.argv[1]))
smi_text = open(sys.argv[2]).read()

def norm_bus(b):
    # NVML: 00000000:00:06.0 (8-digit domain, upper case) -> 0000:00:06.0 (the kernel's form)
    b = b.strip().lower()
    m = re.match(r'^([0-9a-f]+):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$', b)
    if not m:
        return b
    return '%04x:%s:%s.%s' % (int(m.group(1), 16), m.group(2), m.group(3), m.group(4))

smi = []
cur = None
for line in smi_text.splitlines():
    m = re.match(r'^GPU ([0-9A-Fa-f:.]+)\s*$', line)
    if m:
        cur = {'header_bus': norm_bus(m.group(1))}
        smi.append(cur)
        continue
    if cur is None or ':' not in line:
        continue
    key, _, val = line.partition(':')
    key = key.strip(); val = val.strip()
    if key == 'Minor Number' and 'minor' not in cur:
        cur['minor'] = int(val) if val.isdigit() else val
    elif key == 'GPU UUID' and 'uuid' not in cur:
        cur['uuid'] = val
    elif key == 'Bus Id' and 'bus' not in cur:
        cur['bus'] = norm_bus(val)
    elif key == 'Product Name' and 'model' not in cur:
        cur['model'] = val

bad = []
def check(ok, what):
    print(('ok    ' if ok else 'WRONG ') + what)
    if not ok:
        bad.append(what)

gpus = topo.get('gpus', [])
check(len(gpus) == len(smi), 'GPU count: hook %d, nvidia-smi %d' % (len(gpus), len(smi)))
by_bus = {g['bus_id'].lower(): g for g in gpus}
for s in smi:
    bus = s.get('bus', s['header_bus'])
    check(bus == s['header_bus'], 'nvidia-smi section %s has Bus Id %s' % (s['header_bus'], bus))
    g = by_bus.get(bus)
    if g is None:
        check(False, 'nvidia-smi GPU %s (minor %s, %s) is missing from the hook topology' % (bus, s.get('minor'), s.get('uuid')))
        continue
    check(g['minor'] == s.get('minor'), '%s minor: hook %s, nvidia-smi %s' % (bus, g['minor'], s.get('minor')))
    check(g['device'] == '/dev/nvidia%s' % s.get('minor'), '%s device: hook %s' % (bus, g['device']))
    check(g['uuid'] == s.get('uuid'), '%s uuid: hook %s, nvidia-smi %s' % (bus, g['uuid'], s.get('uuid')))
    check(g['model'] == s.get('model'), '%s model: hook %r, nvidia-smi %r' % (bus, g['model'], s.get('model')))
    ns = '/proc/driver/nvidia/gpus/%s/numa_status' % bus
    want_mem = None
    if os.path.exists(ns):
        m = re.search(r'^Node:\s*(-?\d+)', open(ns).read(), re.M)
        want_mem = int(m.group(1)) if m and int(m.group(1)) >= 0 else None
    check(g['memory_node'] == want_mem, '%s memory_node: hook %s, %s %s' % (
        bus, json.dumps(g['memory_node']), ns if os.path.exists(ns) else 'no numa_status (PCIe GPU): want', json.dumps(want_mem)))
    nn_path = '/sys/bus/pci/devices/%s/numa_node' % bus
    try:
        raw = open(nn_path).read().strip()
        want_aff = int(raw) if int(raw) >= 0 else None
    except OSError:
        raw, want_aff = 'missing', None
    check(g['affinity_node'] == want_aff, '%s affinity_node: hook %s, %s = %s' % (bus, json.dumps(g['affinity_node']), nn_path, raw))
    check(g.get('overridden') is False, '%s overridden: %s' % (bus, g.get('overridden')))
try:
    hm = open('/sys/devices/system/node/has_memory').read().strip()
    check(topo.get('memory_nodes') == hm, 'memory_nodes: hook %r, /sys/devices/system/node/has_memory %r' % (topo.get('memory_nodes'), hm))
except OSError:
    print('note  no /sys/devices/system/node/has_memory; hook says memory_nodes %r' % topo.get('memory_nodes'))
# first GPU (lowest minor) for the container tests: minor bus
first = sorted(gpus, key=lambda g: g['minor'])[0] if gpus else None
if first:
    print('FIRST %d %s %s' % (first['minor'], first['bus_id'], json.dumps(first['affinity_node'])))
sys.exit(1 if bad else 0)
PY
CMP_RC=$?
grep -v '^FIRST ' "$TMP/out/topology-compare.txt" | indent
read -r _ GPU_MINOR GPU_BUS GPU_AFF <<<"$(grep "^FIRST " "$TMP/out/topology-compare.txt")"
if [ "$CMP_RC" = 0 ]; then
    pass "a. topology matches nvidia-smi and sysfs ($(grep -c '^ok' "$TMP/out/topology-compare.txt") checks, $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$TMP/out/topology.json") GPU(s))"
else
    fail "a. topology" "$(grep '^WRONG' "$TMP/out/topology-compare.txt" | one_line)"
fi
echo "-- nvidia-smi topo -m (NVML's own affinity view, for comparison; not asserted):"
nvidia-smi topo -m 2>&1 | sed -n '1,/^$/p' | sed 's/\x1b\[[0-9;]*m//g' | indent
# The driver's memory mode (issue 13): topology's memory_mode and memory_mode_param against the
# CoherentGPUMemoryMode line of /proc/driver/nvidia/params ("" or absent: unknown).
PARAMS_LINE=$(grep -m1 '^CoherentGPUMemoryMode:' /proc/driver/nvidia/params 2>/dev/null || true)
case "$PARAMS_LINE" in
    *'"driver"'*) WANT_MODE=driver ;;
    *'"numa"'*) WANT_MODE=numa ;;
    *) WANT_MODE=unknown ;;
esac
GOT_MODE=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(t.get("memory_mode"), "|", t.get("memory_mode_param"))' "$TMP/out/topology.json")
echo "-- /proc/driver/nvidia/params: ${PARAMS_LINE:-<no CoherentGPUMemoryMode line>}"
echo "-- topology: memory_mode | memory_mode_param = $GOT_MODE"
if [ "$GOT_MODE" = "$WANT_MODE | ${PARAMS_LINE:-None}" ]; then
    pass "a. driver memory mode: $WANT_MODE (${PARAMS_LINE:-no params line})"
else
    fail "a. driver memory mode" "topology says '$GOT_MODE', params says '${PARAMS_LINE}' (want $WANT_MODE)"
fi
[ -n "${GPU_MINOR:-}" ] || die "a. topology" "no GPU to test with"
HOST_NODES=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["memory_nodes"])' "$TMP/out/topology.json")
echo "container tests use /dev/nvidia$GPU_MINOR (bus $GPU_BUS, affinity node $GPU_AFF); host memory nodes '$HOST_NODES'"

# ================================================================ b. CUDA program
section "b. cuda_alloc: build with nvcc (static CUDA runtime) and run on the host"
build_cuda_alloc "$TMP/cuda_alloc" "$TMP/out/nvcc.txt"
case $? in
0) [ -n "${CUDA_ALLOC:-}" ] || pass "b. nvcc built cuda_alloc" ;;
1) fail "b. nvcc built cuda_alloc" "nvcc failed; going on with $CUDA_ALLOC_FALLBACK" ;;
*) die "b. build cuda_alloc" "$(one_line <"$TMP/out/nvcc.txt")" ;;
esac
echo "-- ldd cuda_alloc:"; ldd "$TMP/cuda_alloc" 2>&1 | indent
HOST_CUDA=$(timeout 120 "$TMP/cuda_alloc" 256 2>&1); rc=$?
echo "$HOST_CUDA" | indent
if [ "$rc" = 0 ] && echo "$HOST_CUDA" | grep -q '^cuda_alloc: OK '; then
    pass "b. cuda_alloc on the host"
else
    fail "b. cuda_alloc on the host" "exit $rc: $(echo "$HOST_CUDA" | tail -n1)"
fi

# ================================================================ c. bundle
section "c. OCI bundle: busybox rootfs, GPU device nodes, driver libraries, hook"
R=$TMP/rootfs

# Driver libraries: libcuda.so.1 and what the driver may load beside it, from where ldconfig finds them.
LIBCUDA=$(ldconfig -p 2>/dev/null | awk '$1 == "libcuda.so.1" && /x86-64/ { print $NF; exit }')
if [ -z "$LIBCUDA" ]; then
    for d in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib; do
        [ -e "$d/libcuda.so.1" ] && { LIBCUDA=$d/libcuda.so.1; break; }
    done
fi
[ -n "$LIBCUDA" ] || die "c. driver libraries" "libcuda.so.1 not found (ldconfig -p, /usr/local/nvidia/lib64, /usr/lib/x86_64-linux-gnu)"
DRV_DIR=$(dirname "$LIBCUDA")
echo "-- ldconfig -p | grep -E 'libcuda|libnvidia':"; ldconfig -p 2>/dev/null | grep -E 'libcuda|libnvidia' | indent
echo "libcuda.so.1: $LIBCUDA -> $(readlink -f "$LIBCUDA")"
CONT_DRV=/usr/local/nvidia/lib64                 # where the container sees them
: >"$TMP/mounts.tsv"                             # source<TAB>destination
add_mount() { printf '%s\t%s\n' "$1" "$2" >>"$TMP/mounts.tsv"; }
add_mount "$TMP/cuda_alloc" /opt/gnh/cuda_alloc
DRV_VER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' ')
for f in "$DRV_DIR"/libcuda.so.1 "$DRV_DIR"/libnvidia-ptxjitcompiler.so.1 "$DRV_DIR"/libnvidia-nvvm.so.4 \
         "$DRV_DIR"/libnvidia-gpucomp.so."$DRV_VER" "$DRV_DIR"/libnvidia-ml.so.1; do
    [ -e "$f" ] || continue
    mkdir -p "$R$CONT_DRV" && touch "$R$CONT_DRV/$(basename "$f")"
    add_mount "$(readlink -f "$f")" "$CONT_DRV/$(basename "$f")"
done
# The C library and whatever else cuda_alloc and libcuda need that is not the driver's: copied into the
# rootfs at the host's paths (the container has no distribution of its own).
make_rootfs "$R" "$BUSYBOX" "$TMP/cuda_alloc" "$LIBCUDA" || die "c. rootfs" "cannot copy the C library into the rootfs"
touch "$R/opt/gnh/cuda_alloc"
LIBDIRS=$ROOTFS_LIBDIRS
CONT_LDPATH=$CONT_DRV$(printf ':%s' $LIBDIRS)
echo "container LD_LIBRARY_PATH=$CONT_LDPATH; rootfs libraries: $(cd "$R" && find . -name '*.so*' | sort | one_line)"

# Device nodes: the GPU, nvidiactl, nvidia-uvm(-tools), majors/minors read from the nodes themselves.
echo "-- /proc/devices (nvidia):"; grep -i nvidia /proc/devices | indent
: >"$TMP/devices.tsv"
for n in /dev/nvidia$GPU_MINOR /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools; do
    if [ ! -c "$n" ]; then
        case $n in */nvidia-uvm-tools) echo "note: $n missing; not passed" ; continue ;; esac
        die "c. device nodes" "$n is missing (is the driver loaded? nvidia-modprobe -u -c=0 creates nvidia-uvm)"
    fi
    printf '%s\t%d\t%d\n' "$n" "0x$(stat -c %t "$n")" "0x$(stat -c %T "$n")" >>"$TMP/devices.tsv"
done
echo "-- devices passed to the container (path major minor):"; indent <"$TMP/devices.tsv"
UVM_MAJOR=$(awk '$2 == "nvidia-uvm" { print $1 }' /proc/devices)
if [ -n "$UVM_MAJOR" ] && ! grep -q "^/dev/nvidia-uvm	$UVM_MAJOR	" "$TMP/devices.tsv"; then
    fail "c. device majors" "/dev/nvidia-uvm major differs from /proc/devices ($UVM_MAJOR)"
fi

# write_config NAME [TOML lines...]
write_config() {
    local name=$1 extra
    shift
    {
        printf '[log]\nfile = "%s"\nlevel = "info"\nformat = "text"\n\n[lock]\npath = "%s"\n\n' "$TMP/logs/$name.log" "$TMP/hook.lock"
        for extra in "$@"; do printf '%s\n' "$extra"; done
    } >"$TMP/cfg/$name.toml"
    : >"$TMP/logs/$name.log"
}

# make_bundle RT CASE CFG STAGE GPU(1|0) ARGS: prints the container id (= cgroup leaf)
make_bundle() {
    local rt=$1 case=$2 cfg=$3 stage=$4 gpu=$5 args=$6
    local id="gnh-$rt-$case-$RUNID" b="$TMP/bundles/$rt-$case"
    mkdir -p "$b"
    python3 - "$b/config.json" "$args" <<PY || return 1
import json, sys
gpu = $gpu == 1
devices, allow = [], [{"allow": False, "access": "rwm"}]
for d in ([l.rstrip("\n").split("\t") for l in open("$TMP/devices.tsv")] if gpu else []):
    path, major, minor = d[0], int(d[1]), int(d[2])
    devices.append({"path": path, "type": "c", "major": major, "minor": minor, "fileMode": 0o666, "uid": 0, "gid": 0})
    allow.append({"allow": True, "type": "c", "major": major, "minor": minor, "access": "rwm"})
mounts = [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]},
    {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]},
]
if gpu:
    for l in open("$TMP/mounts.tsv"):
        src, dst = l.rstrip("\n").split("\t")
        mounts.append({"destination": dst, "type": "bind", "source": src, "options": ["rbind", "ro", "nosuid", "nodev"]})
caps = ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
cfg = {
    "ociVersion": "1.0.2",
    "process": {
        "terminal": False, "user": {"uid": 0, "gid": 0},
        "args": ["sh", "-c", sys.argv[2]],
        "env": ["PATH=/bin", "LD_LIBRARY_PATH=$CONT_LDPATH"],
        "cwd": "/",
        "capabilities": {k: caps for k in ("bounding", "effective", "permitted", "ambient")},
        "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
        "noNewPrivileges": True,
    },
    "root": {"path": "$TMP/rootfs", "readonly": True},
    "hostname": "gnh-gpu",
    "mounts": mounts,
    "hooks": {"$stage": [{
        "path": "$HOOK",
        "args": ["gpu-numa-hook", "--config", "$TMP/cfg/$cfg.toml", "$stage"],
        "env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],
        "timeout": 60,
    }]},
    "linux": {
        "devices": devices,
        "resources": {"devices": allow},
        "cgroupsPath": "/$CG_PARENT/$id",
        "namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount", "cgroup")],
        "maskedPaths": ["/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
                        "/proc/sched_debug", "/sys/firmware", "/proc/scsi"],
        "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"],
    },
}
json.dump(cfg, open(sys.argv[1], "w"), indent=2)
PY
    echo "$id"
}

# cgroup v2: the cpuset controller must be enabled down to our parent for cpuset.mems to exist there.
CG2=$(awk '$9 == "cgroup2" && $5 == "/sys/fs/cgroup" { print $5 }' /proc/self/mountinfo | head -n1)
if [ -n "$CG2" ]; then
    echo "cgroup v2: root cgroup.controllers: $(cat "$CG2/cgroup.controllers"); subtree_control: $(cat "$CG2/cgroup.subtree_control")"
    if ! grep -qw cpuset "$CG2/cgroup.subtree_control"; then
        if echo +cpuset >"$CG2/cgroup.subtree_control" 2>"$TMP/out/subtree.err"; then
            echo "enabled cpuset in $CG2/cgroup.subtree_control (it was off; left on)"
        else
            echo "could not enable cpuset at the root: $(one_line <"$TMP/out/subtree.err")"
        fi
    fi
    mkdir -p "$CG2/$CG_PARENT"
    echo +cpuset >"$CG2/$CG_PARENT/cgroup.subtree_control" 2>/dev/null || echo "note: cannot enable cpuset in $CG2/$CG_PARENT"
    echo "$CG2/$CG_PARENT: subtree_control '$(cat "$CG2/$CG_PARENT/cgroup.subtree_control")', cpuset.mems.effective '$(cat "$CG2/$CG_PARENT/cpuset.mems.effective" 2>/dev/null)'"
    CPUSET_DIR=$CG2
else
    CPUSET_DIR=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ { print $5; exit }' /proc/self/mountinfo)
    echo "cgroup v1 cpuset at ${CPUSET_DIR:-?}"
fi
pass "c. rootfs, device list, driver library mounts ready"

CONTAINER_CMD='echo container-ran; grep Mems_allowed_list /proc/self/status; echo "cgroup: $(tr "\\n" " " </proc/self/cgroup)"; echo "cpuset.mems.effective: $(cat /sys/fs/cgroup/cpuset.mems.effective 2>/dev/null)"; /opt/gnh/cuda_alloc 256'

# run_case RT CASE CFG STAGE GPU: runs the container in the foreground; sets RC, OUT, ID
run_case() {
    local rt=$1 case=$2 cfg=$3 stage=$4 gpu=$5 cmd=$CONTAINER_CMD
    [ "$gpu" = 1 ] || cmd='echo container-ran; grep Mems_allowed_list /proc/self/status'
    ID=$(make_bundle "$rt" "$case" "$cfg" "$stage" "$gpu" "$cmd") || { RC=99; OUT="make_bundle failed"; return; }
    local t0=$(date +%s%N)
    OUT=$(timeout -k 5 180 bash -c 'cd / && "$@"' rt "${RT_ARGV[@]}" run --bundle "$TMP/bundles/$rt-$case" "$ID" </dev/null 2>&1)
    RC=$?
    WALL_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "$OUT" >"$TMP/out/$rt-$case.txt"
    rt_cmd "$rt" delete -f "$ID" >/dev/null 2>&1
}
set_rt() { # RT: RT_ARGV for run_case
    case $1 in
    crun) RT_ARGV=("$CRUN" --cgroup-manager=cgroupfs --root "$TMP/state/crun") ;;
    runc) RT_ARGV=("$RUNC" --root "$TMP/state/runc") ;;
    esac
    mkdir -p "$TMP/state/$1"
}
log_for() { grep -F "container=$2 " "$TMP/logs/$1.log" 2>/dev/null; }
log_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n1; }

# expect_started NAME CFG STAGE WANT_ACTION GPU
expect_started() {
    local name=$1 cfg=$2 stage=$3 want=$4 gpu=$5 line act
    echo "-- $name: runtime exit $RC, ${WALL_MS} ms"
    echo "$OUT" | indent
    line=$(log_for "$cfg" "$ID")
    echo "   hook log: ${line:-<none>}"
    if [ "$RC" != 0 ]; then fail "$name" "runtime exit $RC: $(echo "$OUT" | tail -n 3 | one_line)"; return; fi
    if ! echo "$OUT" | grep -q container-ran; then fail "$name" "container did not run"; return; fi
    if [ "$gpu" = 1 ] && ! echo "$OUT" | grep -q '^cuda_alloc: OK '; then
        fail "$name" "cuda_alloc did not succeed: $(echo "$OUT" | grep cuda_alloc | tail -n1)"; return
    fi
    if [ "$(echo "$line" | grep -c .)" != 1 ]; then fail "$name" "want one hook log line for $ID, log: $(one_line <"$TMP/logs/$cfg.log")"; return; fi
    act=$(echo "$line" | log_field action)
    if [ "$act" != "$want" ]; then fail "$name" "hook log action=$act, want $want"; return; fi
    if ! echo "$line" | grep -q " stage=$stage "; then fail "$name" "hook log lacks stage=$stage"; return; fi
    if [ "$gpu" = 1 ]; then
        case "$(echo "$line" | log_field gpus)" in *nvidia$GPU_MINOR*) ;; *) fail "$name" "hook log gpus does not name nvidia$GPU_MINOR"; return ;; esac
        case "$(echo "$line" | log_field cgroup)" in *"$CG_PARENT/$ID"*) ;; *) fail "$name" "hook log cgroup is not /$CG_PARENT/$ID"; return ;; esac
    fi
    pass "$name (action=$act, $(echo "$OUT" | grep -o 'cuda_alloc: OK [0-9]*' || echo 'no CUDA'), hook $(echo "$line" | log_field duration-us) us, run ${WALL_MS} ms)"
}

# expect_refused NAME RT CFG REASON_RE
expect_refused() {
    local name=$1 rt=$2 cfg=$3 re=$4 line m left=""
    echo "-- $name: runtime exit $RC, ${WALL_MS} ms; what the user sees:"
    echo "$OUT" | indent
    line=$(log_for "$cfg" "$ID")
    echo "   hook log: ${line:-<none>}"
    if [ "$RC" = 0 ]; then fail "$name" "the start was not refused"; return; fi
    if echo "$OUT" | grep -q container-ran; then fail "$name" "the container process ran"; return; fi
    case $rt in
    runc) echo "$OUT" | grep -qF "gpu-numa-hook: container $ID: refusing start:" || { fail "$name" "runc output lacks our refusal line"; return; } ;;
    crun) echo "$OUT" | grep -q "error executing hook" || { fail "$name" "crun output lacks its hook error"; return; } ;;
    esac
    if ! echo "$line" | grep -q ' action=refuse '; then fail "$name" "hook log has no action=refuse"; return; fi
    if ! echo "$line" | grep -qE -- "$re"; then fail "$name" "hook log reason does not match /$re/"; return; fi
    for m in $(cgroup_mounts); do [ -d "$m/$CG_PARENT/$ID" ] && left="$left $m/$CG_PARENT/$ID"; done
    if [ -n "$left" ]; then fail "$name" "cgroup left behind:$left"; return; fi
    pass "$name"
}

# ================================================================ d. containers under each policy
section "d. GPU containers with the hook, per policy and runtime"
# The refusal counter counts since boot: an earlier run on this machine already added to it.
"$HOOK" --config /dev/null check --prometheus "$TMP/out/check-before.prom" >/dev/null 2>&1
REFUSED_BEFORE=$(sed -n 's/^gpu_numa_hook_decisions_total{action="refuse"} //p' "$TMP/out/check-before.prom")
echo "refusals counted before this run: ${REFUSED_BEFORE:-?}"
POLICIES="patch:ignore refuse:ignore warn:ignore patch:warn patch:patch"
for p in $POLICIES; do
    mn=${p%%:*}; ga=${p#*:}
    write_config "mn-$mn-ga-$ga" "[policy]" "missing-node = \"$mn\"" "gpu-affinity = \"$ga\"" "on-error = \"refuse\""
done
write_config nongpu "[policy]" 'on-error = "refuse"'
for rt in $GNH_GPU_RUNTIMES; do
    set_rt "$rt"
    for p in $POLICIES; do
        mn=${p%%:*}; ga=${p#*:}
        run_case "$rt" "mn-$mn-ga-$ga" "mn-$mn-ga-$ga" prestart 1
        expect_started "d. $rt prestart missing-node=$mn gpu-affinity=$ga: starts, CUDA OK, action=allow" "mn-$mn-ga-$ga" prestart allow 1
    done
    run_case "$rt" createruntime mn-patch-ga-ignore createRuntime 1
    expect_started "d. $rt createRuntime missing-node=patch: starts, CUDA OK, action=allow" mn-patch-ga-ignore createRuntime allow 1
    if [ "$rt" = "$(echo $GNH_GPU_RUNTIMES | cut -d' ' -f1)" ]; then
        write_config json-log "[policy]" 'on-error = "refuse"'
        sed -i 's/^format = "text"/format = "json"/' "$TMP/cfg/json-log.toml"
        run_case "$rt" json-log json-log prestart 1
        echo "-- d. $rt with [log] format = \"json\": runtime exit $RC"; echo "$OUT" | grep cuda_alloc | indent
        jl=$(grep -F "\"$ID\"" "$TMP/logs/json-log.log")
        echo "   hook log: $jl"
        if [ "$RC" = 0 ] && echo "$OUT" | grep -q '^cuda_alloc: OK ' &&
            python3 -c 'import json,sys; r=json.loads(sys.argv[1]); sys.exit(0 if r["action"]=="allow" and r["container"]==sys.argv[2] else 1)' "$jl" "$ID" 2>/dev/null; then
            pass "d. $rt JSON log format: CUDA OK, one JSON record with action allow"
        else
            fail "d. $rt JSON log format" "exit $RC, log: $(one_line <"$TMP/logs/json-log.log")"
        fi
    fi
    run_case "$rt" nongpu nongpu prestart 0
    expect_started "d. $rt non-GPU container: fast path, action=allow" nongpu prestart allow 0
    if ! log_for nongpu "$ID" | grep -q 'gpus=- '; then fail "d. $rt non-GPU container log" "not gpus=-: $(log_for nongpu "$ID")"; fi
done

# ================================================================ e. explain
section "e. explain --json --bundle"
FIRST_RT=$(echo $GNH_GPU_RUNTIMES | cut -d' ' -f1)
"$HOOK" --config "$TMP/cfg/mn-patch-ga-ignore.toml" explain --json --bundle "$TMP/bundles/$FIRST_RT-mn-patch-ga-ignore" >"$TMP/out/explain.json" 2>&1
rc=$?
indent <"$TMP/out/explain.json"
act=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["action"])' "$TMP/out/explain.json" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$act" = allow ]; then
    pass "e. explain --json says \"action\": \"allow\""
else
    fail "e. explain --json" "exit $rc, action '$act'"
fi
"$HOOK" --config "$TMP/cfg/mn-patch-ga-ignore.toml" explain --bundle "$TMP/bundles/$FIRST_RT-mn-patch-ga-ignore" 2>&1 | indent

# ================================================================ f. refusals
section "f. refusal: a GPU memory node the host / container lacks"
ABSENT=$(python3 -c '
import sys
s = sys.argv[1].strip()
nodes = set()
for part in filter(None, s.split(",")):
    lo, _, hi = part.partition("-")
    nodes.update(range(int(lo), int(hi or lo) + 1))
n = 1
while n in nodes: n += 1
print(n)' "$HOST_NODES")
echo "override: /dev/nvidia$GPU_MINOR memory-node = $ABSENT (host memory nodes '$HOST_NODES')"
write_config refuse-memnode "[policy]" 'missing-node = "refuse"' "" "[[topology.gpu]]" "minor = $GPU_MINOR" "memory-node = $ABSENT"
write_config refuse-affinity "[policy]" 'gpu-affinity = "refuse"' "" "[[topology.gpu]]" "minor = $GPU_MINOR" "affinity-node = $ABSENT"
echo "-- config refuse-memnode.toml:"; indent <"$TMP/cfg/refuse-memnode.toml"
echo "-- topology with that config:"; "$HOOK" --config "$TMP/cfg/refuse-memnode.toml" topology 2>&1 | indent
for rt in $GNH_GPU_RUNTIMES; do
    set_rt "$rt"
    run_case "$rt" refuse-memnode refuse-memnode prestart 1
    expect_refused "f. $rt missing-node=refuse, memory-node=$ABSENT override: start refused" "$rt" refuse-memnode "memory NUMA node $ABSENT|needs"
    run_case "$rt" refuse-affinity refuse-affinity prestart 1
    expect_refused "f. $rt gpu-affinity=refuse, affinity-node=$ABSENT override: start refused" "$rt" refuse-affinity "nearest to"
done
"$HOOK" --config "$TMP/cfg/refuse-memnode.toml" explain --json --bundle "$TMP/bundles/$FIRST_RT-refuse-memnode" >"$TMP/out/explain-refuse.json" 2>&1
echo "-- explain --json with the override:"; indent <"$TMP/out/explain-refuse.json"
act=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["action"])' "$TMP/out/explain-refuse.json" 2>/dev/null)
if [ "$act" = refuse ]; then pass "f. explain --json with the override says \"action\": \"refuse\""; else fail "f. explain with the override" "action '$act'"; fi

# ================================================================ g. host-level commands
section "g. check and wait on this host"
"$HOOK" --config /dev/null check --json --prometheus "$TMP/out/check.prom" >"$TMP/out/check.json" 2>&1
rc=$?
indent <"$TMP/out/check.json"
echo "-- check --prometheus:"; indent <"$TMP/out/check.prom" 2>/dev/null
probs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["problems"])' "$TMP/out/check.json" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$probs" = 0 ]; then pass "g. check --json: exit 0, no cgroup lacks a GPU node"; else fail "g. check --json" "exit $rc, problems '$probs'"; fi
# Every refusal this run's hooks logged is counted in the metric (the hook's counter file in /run).
logged=$(cat "$TMP"/logs/*.log 2>/dev/null | grep -c -E ' action=refuse |"action":"refuse"')
counted=$(sed -n 's/^gpu_numa_hook_decisions_total{action="refuse"} //p' "$TMP/out/check.prom")
[ -n "$counted" ] && [ -n "${REFUSED_BEFORE:-}" ] && counted=$((counted - REFUSED_BEFORE))
if [ "$logged" -gt 0 ] && [ "$counted" = "$logged" ]; then pass "g. gpu_numa_hook_decisions_total{action=\"refuse\"} grew by $counted: every refusal the hooks logged"
else fail "g. refusals counted" "logged $logged, metric '$counted'"; fi
WOUT=$(timeout 30 "$HOOK" --config /dev/null wait --timeout 5 2>&1); rc=$?
echo "$WOUT" | indent
if [ "$rc" = 0 ]; then pass "g. wait --timeout 5: exit 0 (ready)"; else fail "g. wait" "exit $rc: $(echo "$WOUT" | one_line)"; fi

# ================================================================ h. the runtime shim
if [ -n "${GNH_SHIM:-}" ] && [ -n "$RUNC" ]; then
    section "h. gpu-numa-runtime (the runtime shim) with runc"
    set_rt runc
    write_config shim "[policy]" 'on-error = "refuse"' "" "[runtime]" "next = [\"$RUNC\"]" "hook = \"$HOOK\""
    ID=$(make_bundle runc shim shim prestart 1 "$CONTAINER_CMD")
    B=$TMP/bundles/runc-shim
    python3 - "$B/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["hooks"] = {}   # as Docker writes it: the shim must add ours
json.dump(c, open(sys.argv[1], "w"), separators=(",", ":"))
PY
    mkdir -p "$TMP/etc-gnh" && cp "$TMP/cfg/shim.toml" "$TMP/etc-gnh/config.toml"
    made_etc=0
    [ -e /etc/gpu-numa-hook ] || { mkdir /etc/gpu-numa-hook && made_etc=1; }
    t0=$(date +%s%N)
    OUT=$(timeout -k 5 180 unshare -m --propagation private -- bash -c '
        mount --bind "$1" /etc/gpu-numa-hook || exit 97
        shift; cd / && exec "$@"' shim "$TMP/etc-gnh" "$GNH_SHIM" --root "$TMP/state/runc" run --bundle "$B" "$ID" </dev/null 2>&1)
    RC=$?
    WALL_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
    rt_cmd runc delete -f "$ID" >/dev/null 2>&1
    [ "$made_etc" = 1 ] && rmdir /etc/gpu-numa-hook
    hooks=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hooks"]; print(json.dumps(h))' "$B/config.json")
    echo "   config.json hooks after the shim: $hooks"
    n=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hooks"]; p=h.get("prestart",[]); print(len(p) if len(h)==1 and p and p[0]["path"]==sys.argv[2] and p[0]["args"]==["gpu-numa-hook","prestart"] else -1)' "$B/config.json" "$HOOK")
    if [ "$n" = 1 ]; then
        expect_started "h. gpu-numa-runtime run (runc): our prestart hook added once, CUDA OK, action=allow" shim prestart allow 1
    else
        fail "h. gpu-numa-runtime run" "the shim left hooks $hooks (runtime exit $RC: $(echo "$OUT" | tail -n 3 | one_line))"
    fi
fi

# ================================================================ the hook's logs
section "hook log files"
for f in "$TMP"/logs/*.log; do echo "-- $(basename "$f")"; indent <"$f"; done

finish
