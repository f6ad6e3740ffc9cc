#!/bin/bash
# gpu-numa-hook beside NVIDIA's REAL Container Toolkit (1.20.0, with libnvidia-container 1.17.2's
# nvidia-container-cli) on a real GPU host: a CUDA container through each way of registering the hook
# next to nvidia-container-runtime, with runc underneath. NOT part of CI (no GPU there). As root:
#
#   NCT_TARBALL=nvidia-container-toolkit-1.20.0-amd64.tar.xz LIBNVC_TARBALL=libnvidia-container-1.17.2-amd64.tar.xz \
#   GNH_SHIM=build/gpu-numa-runtime RUNC=/usr/sbin/runc tests/gpu/run-toolkit-chains.sh [HOOK_BINARY]
#
# (tests/gpu/device-setup-and-run.sh runs it after run-on-gpu-host.sh with everything carried.)
# The bundle is what an engine hands over for `--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=<index>`: a
# busybox rootfs with cuda_alloc and the C library, NO device nodes and NO driver libraries; NVIDIA's
# runtime (or hook) injects those. Each container goes create / start / wait / delete, as a containerd
# shim does (nvidia-container-runtime edits the spec only on create), inside a private mount namespace
# whose /etc/gpu-numa-hook and /etc/nvidia-container-runtime are temp dirs (the host's /etc gets at most
# an empty mount point, removed after). NVIDIA_CTK_CONFIG_FILE_PATH names the same NVIDIA config.
#   a. shim: gpu-numa-runtime ([runtime] next = nvidia-container-runtime) -> nvidia-container-runtime
#      -> runc, NVIDIA's mode legacy, cdi (spec from this host's `nvidia-ctk cdi generate`), jit-cdi, auto
#   b. our createRuntime entry (config/registration/cdi/nvidia-gpu-numa-hook.yaml) merged into NVIDIA's
#      generated CDI spec; nvidia-container-runtime in cdi mode -> runc
#   c. `gpu-numa-hook --host-root DIR install --runtime nvidia-legacy` on NVIDIA's legacy config; the
#      start runs our hook, which runs NVIDIA's hook first ([chain] next-hook); NVIDIA's mode then set
#      to auto: status says not protected; and install on a config in mode auto is refused
#   d. refusals (memory-node override to a node this host lacks, missing-node = refuse) through b and c:
#      what the caller of nvidia-container-runtime sees
#   e. a container without NVIDIA_VISIBLE_DEVICES through the shim and NVIDIA's runtime (mode auto)
# Each GPU case asserts: create/start exit 0, cuda_alloc OK inside, one line of our hook's log for the
# container with action=allow and gpus naming the GPU. One NUMA node hosts (GPU numa_node -1) cannot
# show a cpuset being patched; there the cases show that the hook saw the GPU and CUDA ran.
# Needs: root, python3, nvidia-smi, unshare, mount, ldconfig, a static busybox, runc, nvcc or CUDA_ALLOC.
# Env: NCT_TARBALL, LIBNVC_TARBALL (required), LIBNVC_DEPS (a folder of libraries nvidia-container-cli
# may need and the host may lack: libtirpc.so.3 ...; used for the missing ones only), GNH_SHIM, RUNC,
# BUSYBOX, CUDA_ALLOC, CUDA_ALLOC_FALLBACK, NVCC, GNH_CHAINS_LOG, GNH_GPU_ARTIFACTS, GNH_GPU_KEEP=1.
set -u

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
LOG=${GNH_CHAINS_LOG:-/tmp/gnh-toolkit-chains-$(date -u +%Y%m%dT%H%M%SZ).log}
mkdir -p "$(dirname "$LOG")"
exec > >(tee -a "$LOG") 2>&1
START_S=$SECONDS
. "$SCRIPT_DIR/gpu-common.sh"

section "toolkit chains: preconditions"
[ "$(id -u)" = 0 ] || die "preconditions" "not root"
for t in python3 nvidia-smi unshare mount ldconfig timeout; do command -v "$t" >/dev/null 2>&1 || die "preconditions" "'$t' is missing"; done
[ -x "$HOOK" ] || die "preconditions" "hook binary $HOOK missing"
HOOK=$(cd "$(dirname "$HOOK")" && pwd)/$(basename "$HOOK")
SHIM=${GNH_SHIM:-}
[ -n "$SHIM" ] && [ -x "$SHIM" ] || die "preconditions" "GNH_SHIM (gpu-numa-runtime) missing"
SHIM=$(cd "$(dirname "$SHIM")" && pwd)/$(basename "$SHIM")
RUNC=${RUNC:-$(command -v runc || true)}
[ -n "$RUNC" ] && [ -x "$RUNC" ] || die "preconditions" "no runc (set RUNC=)"
BUSYBOX=${BUSYBOX:-$(command -v busybox || true)}
[ -n "$BUSYBOX" ] && [ -x "$BUSYBOX" ] || die "preconditions" "no static busybox (set BUSYBOX=)"
for v in NCT_TARBALL LIBNVC_TARBALL; do
    [ -f "${!v:-}" ] || die "preconditions" "$v missing ('${!v:-}'): NVIDIA's toolkit comes from ../shared/tools/nvidia-container-toolkit (tests/gpu/make-device-carry.sh carries it)"
done
echo "hook: $HOOK ($("$HOOK" --version 2>&1 | one_line)); shim: $SHIM; runc: $RUNC ($("$RUNC" --version 2>&1 | head -n1))"
echo "GPU: $(nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv,noheader 2>&1 | one_line)"
echo "NUMA: has_memory=$(cat /sys/devices/system/node/has_memory 2>/dev/null)"

TMP=$(mktemp -d /tmp/gnh-nct.XXXXXX) || die "preconditions" "mktemp failed"
chmod 755 "$TMP"
RUNID=$(basename "$TMP" | sed 's/^gnh-nct\.//' | tr 'A-Z' 'a-z')
CG_PARENT=gnh-nct-test
mkdir -p "$TMP"/{bundles,logs,out,state,cdi,cdi-ours,bin}
MADE_ETC=""
cleanup() {
    local id m d
    trap - EXIT INT TERM HUP
    for id in $("$RUNC" --root "$TMP/state" list -q 2>/dev/null); do "$RUNC" --root "$TMP/state" delete -f "$id" >/dev/null 2>&1; done
    for m in $(awk '$9 == "cgroup" || $9 == "cgroup2" { print $5 }' /proc/self/mountinfo); do
        [ -d "$m/$CG_PARENT" ] || continue
        find "$m/$CG_PARENT" -mindepth 1 -depth -type d -name "*$RUNID*" -exec rmdir {} \; 2>/dev/null
        rmdir "$m/$CG_PARENT" 2>/dev/null
    done
    for d in $MADE_ETC; do rmdir "$d" 2>/dev/null; done
    if [ -n "${GNH_GPU_ARTIFACTS:-}" ]; then
        mkdir -p "$GNH_GPU_ARTIFACTS/chains" && cp -r "$TMP/logs" "$TMP/out" "$TMP/root" "$TMP/cdi" "$TMP/cdi-ours" "$GNH_GPU_ARTIFACTS/chains/" 2>/dev/null
        for d in "$TMP"/bundles/*; do
            [ -f "$d/config.json" ] && cp "$d/config.json" "$GNH_GPU_ARTIFACTS/chains/config-$(basename "$d").json"
            [ -f "$d/ctr.err" ] && cp "$d/ctr.err" "$GNH_GPU_ARTIFACTS/chains/ctr-$(basename "$d").err"
        done
    fi
    if [ "${GNH_GPU_KEEP:-}" = 1 ]; then echo "kept $TMP"; else rm -rf --one-file-system "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---------------------------------------------------------------- NVIDIA's toolkit
section "toolkit: unpack, versions, nvidia-container-cli"
P=$TMP/nct L=$TMP/libnvc
mkdir -p "$P" "$L"
tar -xJf "$NCT_TARBALL" -C "$P" && tar -xJf "$LIBNVC_TARBALL" -C "$L" || die "toolkit" "cannot unpack the tarballs"
NVRT=$P/bin/nvidia-container-runtime
"$P/bin/nvidia-ctk" --version 2>&1 | indent
"$P/bin/nvidia-container-runtime-hook" -version 2>&1 | head -n1 | indent
# nvidia-container-cli finds libnvidia-container.so.1 through its RUNPATH, but that library dlopens
# libnvidia-container-go.so.1 by name: unpacked outside the loader's paths it needs LD_LIBRARY_PATH,
# set by a wrapper (the hook execs [nvidia-container-cli] path as is). It also needs libcap, libelf,
# libseccomp, libtirpc from the host; the carried ones fill only what ldd says is missing.
CLI=$L/bin/nvidia-container-cli
LIBNVC_PATH=$L/lib/x86_64-linux-gnu
missing=$(LD_LIBRARY_PATH=$LIBNVC_PATH ldd "$CLI" 2>&1 | awk '/not found/ { print $1 }')
if [ -n "$missing" ]; then
    echo "nvidia-container-cli: this host lacks $(echo $missing); taking them from ${LIBNVC_DEPS:-<no LIBNVC_DEPS>}"
    mkdir -p "$L/extra"
    LIBNVC_PATH=$LIBNVC_PATH:$L/extra
    for _ in 1 2 3 4; do
        for so in $missing; do [ -e "${LIBNVC_DEPS:-/nonexistent}/$so" ] && ln -sf "$LIBNVC_DEPS/$so" "$L/extra/$so"; done
        missing=$(LD_LIBRARY_PATH=$LIBNVC_PATH ldd "$CLI" 2>&1 | awk '/not found/ { print $1 }')
        [ -z "$missing" ] && break
    done
    [ -z "$missing" ] || fail "toolkit: nvidia-container-cli libraries" "still missing: $(echo $missing)"
fi
printf '#!/bin/sh\n# libnvidia-container 1.17.2 unpacked here, with the libraries this host lacks\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$LIBNVC_PATH" "$CLI" >"$TMP/bin/nvidia-container-cli"
chmod +x "$TMP/bin/nvidia-container-cli"
CLI=$TMP/bin/nvidia-container-cli
"$CLI" --version 2>&1 | head -n2 | indent
"$CLI" info >"$TMP/out/nvc-info.txt" 2>&1; rc=$?
echo "-- nvidia-container-cli info (exit $rc):"; head -n 12 "$TMP/out/nvc-info.txt" | indent
# Ubuntu's /sbin/ldconfig is a shell script around ldconfig.real, which does not run inside a container.
LDCONFIG=/sbin/ldconfig; [ -x /sbin/ldconfig.real ] && LDCONFIG=/sbin/ldconfig.real
echo "ldconfig for the toolkit: $LDCONFIG"

# the GPU the containers ask for: index for NVIDIA_VISIBLE_DEVICES, minor for the log check
read -r GPU_INDEX GPU_MINOR <<<"$(nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader | head -n1 | tr -d ',')"
GPU_MINOR=$(nvidia-smi -q -i "$GPU_INDEX" | awk -F: '/Minor Number/ { gsub(/ /, "", $2); print $2; exit }')
HOST_NODES=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
echo "containers ask for GPU index $GPU_INDEX (/dev/nvidia$GPU_MINOR); host memory nodes '$HOST_NODES'"
echo "NOTE: this host has $(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l) NUMA node(s) and the GPU's numa_node is" \
     "$(cat /sys/bus/pci/devices/$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$GPU_INDEX" | tr 'A-F' 'a-f' | sed 's/^0000//')/numa_node 2>/dev/null || echo '?'):" \
     "no cpuset can be patched here; each case shows that our hook saw the GPU and that CUDA ran"

# NVIDIA's config: the packaged one, pointed at the carried binaries and runc, load-kmods off, and
# cuda-compat-mode "none" + allow-cuda-compat-libs-from-container (1.17.2's cli rejects --cuda-compat-mode).
NVBASE=$TMP/nvidia-base.toml
"$P/bin/nvidia-ctk" --quiet config --config-file="$P/etc/nvidia-container-runtime/config.toml" \
    --set nvidia-container-runtime.runtimes="$RUNC" \
    --set nvidia-container-runtime.log-level=debug \
    --set nvidia-container-runtime-hook.path="$P/bin/nvidia-container-runtime-hook" \
    --set nvidia-ctk.path="$P/bin/nvidia-ctk" \
    --set nvidia-container-runtime.modes.cdi.spec-dirs="$TMP/cdi" \
    --set nvidia-container-cli.path="$CLI" \
    --set nvidia-container-cli.load-kmods=false \
    --set nvidia-container-cli.ldconfig="@$LDCONFIG" \
    --set nvidia-container-runtime.modes.legacy.cuda-compat-mode=none \
    --set features.allow-cuda-compat-libs-from-container=true \
    -o "$NVBASE" 2>"$TMP/out/nvctk-config.err" || die "toolkit: nvidia-ctk config" "$(one_line <"$TMP/out/nvctk-config.err")"

# Each case NAME has its own /etc: $TMP/root/NAME/etc (a host root for install --host-root).
# nv_etc NAME MODE [KEY=VALUE...]: <its etc>/nvidia-container-runtime/config.toml
nv_etc() {
    local name=$1 mode=$2 d=$TMP/root/$1/etc/nvidia-container-runtime a
    shift 2
    mkdir -p "$d"
    local sets=(--set nvidia-container-runtime.mode="$mode" --set nvidia-container-runtime.debug="$TMP/logs/nvidia-runtime-$name.log"
                --set nvidia-container-cli.debug="$TMP/logs/nvidia-cli-$name.log")
    for a in "$@"; do sets+=(--set "$a"); done
    "$P/bin/nvidia-ctk" --quiet config --config-file="$NVBASE" "${sets[@]}" -o "$d/config.toml" || return 1
}
# gnh_etc NAME [TOML lines...]: <its etc>/gpu-numa-hook/config.toml, log $TMP/logs/NAME.log
gnh_etc() {
    local name=$1 d=$TMP/root/$1/etc/gpu-numa-hook l
    shift
    mkdir -p "$d"
    {
        printf '[log]\nfile = "%s"\nlevel = "info"\nformat = "text"\n\n[lock]\npath = "%s"\n\n' "$TMP/logs/$name.log" "$TMP/hook.lock"
        for l in "$@"; do printf '%s\n' "$l"; done
    } >"$d/config.toml"
    : >"$TMP/logs/$name.log"
}

# ---------------------------------------------------------------- CDI specs
section "toolkit: nvidia-ctk cdi generate on this host; our createRuntime entry merged in"
"$P/bin/nvidia-ctk" cdi generate --format=json --output="$TMP/cdi/nvidia.json" \
    --nvidia-cdi-hook-path="$P/bin/nvidia-cdi-hook" --ldconfig-path="$LDCONFIG" >"$TMP/out/cdi-generate.txt" 2>&1
rc=$?
tail -n 8 "$TMP/out/cdi-generate.txt" | indent
"$P/bin/nvidia-ctk" cdi list --spec-dir="$TMP/cdi" 2>&1 | indent
if [ "$rc" = 0 ] && [ -s "$TMP/cdi/nvidia.json" ]; then pass "toolkit: nvidia-ctk cdi generate wrote a spec for this host"
else fail "toolkit: nvidia-ctk cdi generate" "exit $rc: $(tail -n 3 "$TMP/out/cdi-generate.txt" | one_line)"; fi
# The shipped entry (YAML, flow-style values) read with a few lines of python: the device image may lack PyYAML.
python3 - "$REPO/config/registration/cdi/nvidia-gpu-numa-hook.yaml" "$TMP/cdi/nvidia.json" "$TMP/cdi-ours/nvidia.json" "$HOOK" <<'PY' || fail "b. CDI spec with our entry" "merge failed"
import json, re, sys
entry, inside = {}, False
for line in open(sys.argv[1]):
    m = re.match(r'^\s*(-\s*)?(hookName|path|args|env|timeout):\s*(.*?)\s*$', line)
    if not m:
        continue
    v = m.group(3)
    try:
        v = json.loads(v)
    except ValueError:
        pass
    entry[m.group(2)] = v
entry["path"] = sys.argv[4]           # where the hook is on this host (the file says /usr/bin/gpu-numa-hook)
spec = json.load(open(sys.argv[2]))
spec.setdefault("containerEdits", {}).setdefault("hooks", []).append(entry)
json.dump(spec, open(sys.argv[3], "w"), indent=1)
print("    our entry:", json.dumps(entry))
print("    top-level hooks now:", json.dumps([(h["hookName"], h["path"].rsplit("/", 1)[-1], (h.get("args") or [None, None])[1]) for h in spec["containerEdits"]["hooks"]]))
PY

# ---------------------------------------------------------------- rootfs and bundles
section "bundle: busybox rootfs with cuda_alloc and the C library, no GPU devices or driver libraries"
build_cuda_alloc "$TMP/cuda_alloc" "$TMP/out/nvcc.txt"
[ $? -le 1 ] || die "cuda_alloc" "$(one_line <"$TMP/out/nvcc.txt")"
LIBCUDA=$(ldconfig -p 2>/dev/null | awk '$1 == "libcuda.so.1" && /x86-64/ { print $NF; exit }')
R0=$TMP/rootfs
make_rootfs "$R0" "$BUSYBOX" "$TMP/cuda_alloc" ${LIBCUDA:+"$LIBCUDA"} || die "rootfs" "cannot copy the C library"
cp "$TMP/cuda_alloc" "$R0/opt/gnh/cuda_alloc"
mkdir -p "$R0/usr/lib/x86_64-linux-gnu" "$R0/usr/lib64" "$R0/usr/bin"
# where NVIDIA puts the driver's libraries: legacy in the distribution's directory, CDI at the host's path
CONT_LDPATH=/usr/lib/x86_64-linux-gnu:/usr/lib64:${LIBCUDA:+$(dirname "$LIBCUDA"):}$(echo $ROOTFS_LIBDIRS | tr ' ' ':')
echo "rootfs: $(cd "$R0" && find . -name '*.so*' | sort | one_line); LD_LIBRARY_PATH=$CONT_LDPATH"
CG2=$(awk '$9 == "cgroup2" && $5 == "/sys/fs/cgroup" { print $5 }' /proc/self/mountinfo | head -n1)
if [ -n "$CG2" ]; then
    mkdir -p "$CG2/$CG_PARENT" && echo +cpuset >"$CG2/$CG_PARENT/cgroup.subtree_control" 2>/dev/null
fi
GPU_CMD='echo container-ran; grep Mems_allowed_list /proc/self/status; ls /dev | grep nvidia | tr "\n" " "; echo; /opt/gnh/cuda_alloc 64'

# make_bundle NAME GPU(1|0): prints the container id; each bundle gets its own writable rootfs copy
# (NVIDIA's tools create mount points and /etc/ld.so.cache in it)
make_bundle() {
    local name=$1 gpu=$2 id="gnh-nct-$1-$RUNID" b="$TMP/bundles/$1" cmd=$GPU_CMD
    [ "$gpu" = 1 ] || cmd='echo container-ran; grep Mems_allowed_list /proc/self/status'
    mkdir -p "$b" && cp -a "$R0" "$b/rootfs" || return 1
    python3 - "$b/config.json" "$cmd" "$gpu" "$CONT_LDPATH" "/$CG_PARENT/$id" "$GPU_INDEX" <<'PY' || return 1
import json, sys
out, cmd, gpu, ldpath, cg, index = sys.argv[1:7]
env = ["PATH=/bin", "LD_LIBRARY_PATH=" + ldpath]
if gpu == "1":
    env += ["NVIDIA_VISIBLE_DEVICES=" + index, "NVIDIA_DRIVER_CAPABILITIES=compute,utility"]
caps = ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
cfg = {
    "ociVersion": "1.0.2",
    "process": {"terminal": False, "user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", cmd], "env": env, "cwd": "/",
                "capabilities": {k: caps for k in ("bounding", "effective", "permitted", "ambient")},
                "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}], "noNewPrivileges": True},
    "root": {"path": "rootfs", "readonly": False},
    "hostname": "gnh-nct",
    "mounts": [
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
        {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]},
    ],
    "linux": {
        "resources": {"devices": [{"allow": False, "access": "rwm"}]},   # as Docker: NVIDIA adds the GPU's rules
        "cgroupsPath": cg,
        "namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount", "cgroup")],
        "maskedPaths": ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
        "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"],
    },
}
json.dump(cfg, open(out, "w"), indent=1)
PY
    cp "$b/config.json" "$b/config.orig.json"
    echo "$id"
}


# run_chain CASE ETC RUNTIME: the container of bundle CASE through RUNTIME (the shim or NVIDIA's),
# with $TMP/root/ETC/etc/{gpu-numa-hook,nvidia-container-runtime} as /etc's. Sets RC, OUT, ID.
run_chain() {
    local case=$1 etc=$TMP/root/$2/etc rt=$3 d
    for d in /etc/gpu-numa-hook /etc/nvidia-container-runtime; do
        [ -e "$d" ] || { mkdir "$d" && MADE_ETC="$d $MADE_ETC"; }
    done
    mkdir -p "$etc/gpu-numa-hook" "$etc/nvidia-container-runtime"
    OUT=$(NVIDIA_CTK_CONFIG_FILE_PATH=$etc/nvidia-container-runtime/config.toml timeout -k 5 90 \
        unshare -m --propagation private -- bash -c '
        mount --bind "$1/gpu-numa-hook" /etc/gpu-numa-hook && mount --bind "$1/nvidia-container-runtime" /etc/nvidia-container-runtime || exit 97
        shift; cd / && exec python3 "$@"' chain "$etc" "$SCRIPT_DIR/run_container.py" "$rt" "$TMP/state" "$TMP/bundles/$case" "$ID" </dev/null 2>&1)
    RC=$?
    OUT="$OUT
$(cat "$TMP/bundles/$case/ctr.out" "$TMP/bundles/$case/ctr.err" 2>/dev/null)"
}

# show_case CASE ETC LOGNAME: what happened: output, spec edits (hooks, devices), NVIDIA's mode lines, our line
show_case() {
    local case=$1 etc=$2 logname=$3
    echo "-- $case: exit $RC"
    echo "$OUT" | grep -v '^$' | indent
    python3 - "$TMP/bundles/$case/config.orig.json" "$TMP/bundles/$case/config.json" <<'PY' | indent
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def hooks(c):
    return {k: [(h["path"].rsplit("/", 1)[-1] + " " + " ".join((h.get("args") or [])[1:]))[:48] for h in v] for k, v in (c.get("hooks") or {}).items()}
print("spec hooks before create:", json.dumps(hooks(a)))
print("spec hooks after create: ", json.dumps(hooks(b)))
print("linux.devices after create:", [d["path"] for d in b.get("linux", {}).get("devices", [])])
PY
    echo "    NVIDIA's runtime log, mode lines:"
    grep -hE "[Mm]ode|Forwarding" "$TMP/logs/nvidia-runtime-$etc.log" 2>/dev/null | grep -v "Running with config" |
        sed -E 's/^time="[^"]*" //' | cut -c1-300 | awk '!seen[$0]++' | head -n 6 | indent
    LINE=$(grep -F "container=$ID " "$TMP/logs/$logname.log" 2>/dev/null)
    echo "    our hook's log: ${LINE:-<none>}"
}
log_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n1; }

# expect_gpu NAME CASE ETC LOGNAME STAGE
expect_gpu() {
    local name=$1 case=$2 etc=$3 logname=$4 stage=$5
    show_case "$case" "$etc" "$logname"
    if [ "$RC" != 0 ]; then fail "$name" "exit $RC: $(echo "$OUT" | grep -v '^$' | tail -n 3 | one_line)"; return; fi
    echo "$OUT" | grep -q '^cuda_alloc: OK ' || { fail "$name" "cuda_alloc did not succeed: $(echo "$OUT" | grep cuda_alloc | tail -n1)"; return; }
    [ "$(echo "$LINE" | grep -c .)" = 1 ] || { fail "$name" "want one line of our log for $ID: $(one_line <"$TMP/logs/$logname.log")"; return; }
    echo "$LINE" | grep -q " stage=$stage action=allow " || { fail "$name" "our log line lacks 'stage=$stage action=allow'"; return; }
    case "$(echo "$LINE" | log_field gpus)" in *nvidia$GPU_MINOR*) ;; *) fail "$name" "our log line's gpus does not name nvidia$GPU_MINOR"; return ;; esac
    pass "$name (stage=$stage action=allow gpus=$(echo "$LINE" | log_field gpus), $(echo "$OUT" | grep -o 'cuda_alloc: OK [0-9]*'))"
}

# ================================================================ a. the shim in front of NVIDIA's runtime
section "a. gpu-numa-runtime -> nvidia-container-runtime -> runc, per NVIDIA mode"
for mode in legacy cdi jit-cdi auto; do
    nv_etc "a-$mode" "$mode" || { fail "a. $mode" "nvidia-ctk config failed"; continue; }
    gnh_etc "a-$mode" "[policy]" 'on-error = "refuse"' "" "[runtime]" "next = [\"$NVRT\"]" "hook = \"$HOOK\""
    ID=$(make_bundle "a-$mode" 1) || { fail "a. $mode" "make_bundle failed"; continue; }
    run_chain "a-$mode" "a-$mode" "$SHIM"
    expect_gpu "a. shim -> nvidia-container-runtime (mode $mode) -> runc: CUDA OK, our hook saw the GPU" "a-$mode" "a-$mode" "a-$mode" prestart
done

# ================================================================ b. our entry in NVIDIA's CDI spec
section "b. our createRuntime entry in NVIDIA's generated CDI spec; nvidia-container-runtime (cdi) -> runc"
nv_etc b cdi nvidia-container-runtime.modes.cdi.spec-dirs="$TMP/cdi-ours"
gnh_etc b "[policy]" 'on-error = "refuse"'
ID=$(make_bundle b 1) && run_chain b b "$NVRT"
expect_gpu "b. CDI spec entry, nvidia-container-runtime (cdi) -> runc: CUDA OK, our hook saw the GPU" b b b createRuntime

# ================================================================ c. install --runtime nvidia-legacy
section "c. gpu-numa-hook install --runtime nvidia-legacy (under --host-root); NVIDIA's mode legacy"
# install_legacy NAME MODE [TOML lines...]: NVIDIA's config in MODE and ours (with the lines) under the
# host root $TMP/root/NAME, then install there; prints what install did and status. Sets INSTALL_RC.
install_legacy() {
    local name=$1 mode=$2 hr=$TMP/root/$1
    shift 2
    nv_etc "$name" "$mode" || { INSTALL_RC=99; return; }
    gnh_etc "$name" "$@"
    cp "$hr/etc/nvidia-container-runtime/config.toml" "$TMP/out/$name-nvidia-before.toml"
    cp "$hr/etc/gpu-numa-hook/config.toml" "$TMP/out/$name-gnh-before.toml"
    "$HOOK" --host-root "$hr" install --runtime nvidia-legacy --hook-path "$HOOK" >"$TMP/out/$name-install.txt" 2>&1
    INSTALL_RC=$?
    echo "-- install --runtime nvidia-legacy (NVIDIA mode $mode): exit $INSTALL_RC"; indent <"$TMP/out/$name-install.txt"
    echo "-- NVIDIA's config, what install changed:"; diff "$TMP/out/$name-nvidia-before.toml" "$hr/etc/nvidia-container-runtime/config.toml" | indent
    echo "-- our config, what install changed:"; diff "$TMP/out/$name-gnh-before.toml" "$hr/etc/gpu-numa-hook/config.toml" | indent
    "$HOOK" --host-root "$hr" status >"$TMP/out/$name-status.txt" 2>&1
    echo "-- status under --host-root (exit $?; it looks for the binaries beneath DIR too):"; head -n 4 "$TMP/out/$name-status.txt" | cut -c1-200 | indent
}
install_legacy c legacy "[policy]" 'on-error = "refuse"'
if [ "$INSTALL_RC" = 0 ]; then
    ID=$(make_bundle c 1) && run_chain c c "$NVRT"
    expect_gpu "c. install --runtime nvidia-legacy: nvidia-container-runtime (legacy) -> runc -> our hook -> NVIDIA's hook: CUDA OK, our hook saw the GPU" c c c prestart
else
    fail "c. install --runtime nvidia-legacy" "exit $INSTALL_RC: $(one_line <"$TMP/out/c-install.txt")"
fi
# NVIDIA's mode leaving legacy after install: NVIDIA's runtime then adds no prestart hook, so status
# must stop saying protected (its line names the mode; other lines under --host-root are about the
# binaries it looks for beneath DIR).
if [ "$INSTALL_RC" = 0 ]; then
    "$P/bin/nvidia-ctk" --quiet config --config-file="$TMP/root/c/etc/nvidia-container-runtime/config.toml" --in-place \
        --set nvidia-container-runtime.mode=auto
    "$HOOK" --host-root "$TMP/root/c" status >"$TMP/out/c-status-auto.txt" 2>&1
    rc=$?
    echo "-- status after nvidia-ctk set NVIDIA's mode to auto (exit $rc):"; indent <"$TMP/out/c-status-auto.txt"
    if [ "$rc" != 0 ] && grep -q "^not protected: nvidia-legacy: .*mode = \"auto\"" "$TMP/out/c-status-auto.txt"; then
        pass "c. install --runtime nvidia-legacy, then NVIDIA's mode set to auto: status not protected (exit $rc), naming the mode"
    else
        fail "c. status after the mode left legacy" "exit $rc, no 'not protected: nvidia-legacy: ... mode = \"auto\"' line"
    fi
fi
# The same install on NVIDIA's default mode (auto = jit-cdi for the runtime, which adds no prestart
# hook): refused, NVIDIA's file untouched.
section "c. install --runtime nvidia-legacy with NVIDIA's mode auto: refused"
install_legacy c-auto auto "[policy]" 'on-error = "refuse"'
if [ "$INSTALL_RC" = 2 ] && cmp -s "$TMP/out/c-auto-nvidia-before.toml" "$TMP/root/c-auto/etc/nvidia-container-runtime/config.toml"; then
    pass "c. install --runtime nvidia-legacy on mode auto refused (exit 2), NVIDIA's config unchanged: $(head -c 200 "$TMP/out/c-auto-install.txt" | one_line)"
else
    fail "c. install --runtime nvidia-legacy on mode auto" "exit $INSTALL_RC (want 2), or NVIDIA's config changed"
fi

# ================================================================ d. refusals the caller sees
section "d. refusal (memory-node override to a node this host lacks, missing-node = refuse) through nvidia-container-runtime"
ABSENT=$(python3 -c '
import sys
nodes = set()
for part in filter(None, sys.argv[1].strip().split(",")):
    lo, _, hi = part.partition("-")
    nodes.update(range(int(lo), int(hi or lo) + 1))
n = 1
while n in nodes: n += 1
print(n)' "$HOST_NODES")
REFUSE_CFG=("[policy]" 'missing-node = "refuse"' "" "[[topology.gpu]]" "minor = $GPU_MINOR" "memory-node = $ABSENT")
echo "override: /dev/nvidia$GPU_MINOR memory-node = $ABSENT (host memory nodes '$HOST_NODES')"
# expect_refused NAME CASE ETC
expect_refused() {
    local name=$1 case=$2 etc=$3 seen
    show_case "$case" "$etc" "$etc"
    seen=$(grep -o "gpu-numa-hook: container $ID: refusing start:.*" "$TMP/bundles/$case/ctr.err" | head -n1)
    echo "    the caller of nvidia-container-runtime sees: ${seen:-<not our line>}"
    [ "$RC" != 0 ] || { fail "$name" "the start was not refused"; return; }
    echo "$OUT" | grep -q container-ran && { fail "$name" "the container process ran"; return; }
    [ -n "$seen" ] || { fail "$name" "nvidia-container-runtime's stderr lacks our refusal line: $(tail -n 2 "$TMP/bundles/$case/ctr.err" | one_line)"; return; }
    echo "$LINE" | grep -q ' action=refuse ' || { fail "$name" "our log has no action=refuse"; return; }
    pass "$name"
}
nv_etc d-cdi cdi nvidia-container-runtime.modes.cdi.spec-dirs="$TMP/cdi-ours"
gnh_etc d-cdi "${REFUSE_CFG[@]}"
ID=$(make_bundle d-cdi 1) && run_chain d-cdi d-cdi "$NVRT"
expect_refused "d. CDI spec entry (createRuntime), nvidia-container-runtime (cdi): start refused, the caller sees our line" d-cdi d-cdi
install_legacy d-legacy legacy "${REFUSE_CFG[@]}"
if [ "$INSTALL_RC" = 0 ]; then
    ID=$(make_bundle d-legacy 1) && run_chain d-legacy d-legacy "$NVRT"
    expect_refused "d. install --runtime nvidia-legacy, nvidia-container-runtime (legacy): start refused, the caller sees our line" d-legacy d-legacy
else
    fail "d. install --runtime nvidia-legacy (refusal config)" "exit $INSTALL_RC"
fi

# ================================================================ e. a container without a GPU
section "e. a container without NVIDIA_VISIBLE_DEVICES: shim -> nvidia-container-runtime (auto) -> runc"
nv_etc e auto
gnh_etc e "[policy]" 'on-error = "refuse"' "" "[runtime]" "next = [\"$NVRT\"]" "hook = \"$HOOK\""
ID=$(make_bundle e 0) && run_chain e e "$SHIM"
show_case e e e
if [ "$RC" = 0 ] && echo "$OUT" | grep -q container-ran; then
    # config.json shows nothing NVIDIA's runtime reads: the shim registers no hook, logs the fast path
    if echo "$LINE" | grep -q 'gpu-numa-runtime\[[0-9]*\] .* stage=runtime-create action=allow .*fast path'; then
        pass "e. non-GPU container ran; the shim passed it to NVIDIA's runtime untouched, no hook registered (its fast-path line)"
    else
        fail "e. non-GPU container" "not the shim's fast-path line: ${LINE:-no line}"
    fi
else
    fail "e. non-GPU container" "exit $RC: $(echo "$OUT" | tail -n 3 | one_line)"
fi

section "our hook's log files"
for f in "$TMP"/logs/*.log; do case $f in */nvidia-*) continue ;; esac; echo "-- $(basename "$f")"; indent <"$f"; done
finish
