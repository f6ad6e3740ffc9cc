#!/bin/bash
# On the GPU host, interleaved by hook_bench in one run:
#   - a start without a GPU through gpu-numa-runtime against runc alone (the shim passes it on
#     untouched: its exec is the whole cost; target 1.02x), and through an exec-only wrapper (the
#     floor of any shim);
#   - our hook against NVIDIA's real nvidia-container-runtime-hook 1.20.0 on the same containers:
#     one without a GPU, and one with NVIDIA_VISIBLE_DEVICES=all on the real driver (ours: its check
#     path; NVIDIA's: up to the exec of its cli, here busybox's static `true`), each above the floor
#     of any hook (busybox `true`) and as a share of NVIDIA's cost (target: at most 10%).
#   - a container start (create, start, delete: bench/start_cycle.c, as a containerd shim drives a
#     runtime) through NVIDIA's real nvidia-container-runtime 1.20.0 in each mode (legacy, cdi with
#     a spec from this host's `nvidia-ctk cdi generate`, auto = jit-cdi here) in front of runc,
#     alone and behind our shim, with and without NVIDIA_VISIBLE_DEVICES=all; and runc alone and
#     behind our shim. Ours as a ratio of NVIDIA's and as a share of NVIDIA's cost above runc
#     (target: at most 10%), beside the same share for an exec-only wrapper in that place (the
#     floor of any shim there).
# Every row is verified once before timing by the path it took (the log line, the cli's record,
# the spec NVIDIA's runtime handed runc).
#
#   bench/gpu-host-bench.sh CARRY OUT   (root; CARRY: .device/ as tests/gpu/make-device-carry.sh
#                                        makes it, with hook_bench and toolkit/; ROUNDS, default 200;
#                                        IDENTITY_CACHE=1, below)
set -euo pipefail
say() { echo "gpu-host-bench: $*" >&2; }
die() { say "error: $*"; exit 2; }
[ $# = 2 ] || die "usage: bench/gpu-host-bench.sh CARRY OUT"
D=$(cd "$1" && pwd)
mkdir -p "$2" && OUT=$(cd "$2" && pwd)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-200}
HOOK=$D/gpu-numa-hook SHIM=$D/gpu-numa-runtime BENCH=$D/hook_bench RUNC=$D/bin/runc BUSYBOX=$D/busybox
WRAPPER=$D/exec_wrapper   # bench/exec_wrapper.c, static: the floor of any shim, one exec
CYCLE=$D/start_cycle      # bench/start_cycle.c, static: create, start, delete
for f in "$HOOK" "$SHIM" "$BENCH" "$RUNC" "$BUSYBOX" "$WRAPPER" "$CYCLE" "$D/toolkit/nvidia-container-toolkit-1.20.0-amd64.tar.xz"; do
    [ -e "$f" ] || die "$f is missing from the carry"
done
[ -d /proc/driver/nvidia/gpus ] || die "no NVIDIA driver here (/proc/driver/nvidia/gpus)"
W=$(mktemp -d /tmp/gnh-gbench.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
T=$'\t'

# the container: busybox's true; the floor of any hook and NVIDIA's cli: busybox's true too
mkdir -p "$W/rootfs/bin" "$W/rootfs/proc" "$W/rootfs/dev" "$W/rootfs/sys" "$W/bin" "$W/state" "$W/etc-gnh"
cp "$BUSYBOX" "$W/rootfs/bin/busybox" && ln -s busybox "$W/rootfs/bin/true"
cp "$BUSYBOX" "$W/bin/busybox" && ln -s busybox "$W/bin/true"
"$RUNC" spec --bundle "$W" && mv "$W/config.json" "$W/spec.json"
sed -e "s|^file = .*|file = \"$W/hook.log\"|" -e "s|^path = \"/run/gpu-numa-hook.lock\"|path = \"$W/hook.lock\"|" \
    -e "s|^next = .*|next = [\"$RUNC\"]|" -e "s|^hook = .*|hook = \"$HOOK\"|" "$REPO/config/config.toml" >"$W/etc-gnh/config.toml"
grep -q "^file = \"$W/hook.log\"" "$W/etc-gnh/config.toml" && grep -q "^next = \[\"$RUNC\"\]" "$W/etc-gnh/config.toml" ||
    die "could not point the config's log and [runtime] next at $W"
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
spec = json.load(open(f"{w}/spec.json"))
spec["process"]["terminal"] = False
spec["process"]["args"] = ["true"]
spec["root"] = {"path": f"{w}/rootfs", "readonly": True}
spec["hooks"] = {}  # as Docker hands a bundle over
for name in ("base", "shim", "wrap"):
    c = json.loads(json.dumps(spec))
    c["linux"]["cgroupsPath"] = f"/gnh-gbench/{name}"
    import os
    os.makedirs(f"{w}/b-{name}", exist_ok=True)
    json.dump(c, open(f"{w}/b-{name}/config.json", "w"), separators=(",", ":"))
# the hooks' containers: the same config.json, one with NVIDIA_VISIBLE_DEVICES=all, both as legacy
# mode hands them on (NVIDIA's hook at prestart: what reads the variable)
for name, env in (("nogpu", []), ("gpu", ["NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"])):
    c = json.loads(json.dumps(spec))
    c["process"]["env"] += env
    c.setdefault("hooks", {}).setdefault("prestart", []).append(
        {"path": "/usr/bin/nvidia-container-runtime-hook", "args": ["nvidia-container-runtime-hook", "prestart"]})
    os.makedirs(f"{w}/h-{name}", exist_ok=True)
    json.dump(c, open(f"{w}/h-{name}/config.json", "w"), separators=(",", ":"))
    json.dump({"ociVersion": "1.0.2", "id": f"gbench-{name}", "status": "creating", "pid": os.getpid(),
               "bundle": f"{w}/h-{name}"}, open(f"{w}/state-{name}.json", "w"))
PY
# the states name this script's python, gone now: the hook needs a live pid for its cgroup
sleep 100000 &
SLEEPER=$!
trap 'kill $SLEEPER 2>/dev/null; rm -rf "$W"' EXIT
for n in nogpu gpu; do sed -i "s/\"pid\": [0-9]*/\"pid\": $SLEEPER/" "$W/state-$n.json"; done
cp "$W/b-shim/config.json" "$W/b-shim/config.json.orig"

# NVIDIA's hook: legacy mode (its own), no kernel modules; the cli a recorder to verify, then true
mkdir -p "$W/nct"
tar -xJf "$D/toolkit/nvidia-container-toolkit-1.20.0-amd64.tar.xz" -C "$W/nct"
NVHOOK=$W/nct/bin/nvidia-container-runtime-hook
printf '#!/bin/sh\necho "$@" >%s/cli-ran\n' "$W" >"$W/bin/cli-recorder" && chmod 755 "$W/bin/cli-recorder"
for c in verify timed; do
    cli=$W/bin/true
    [ "$c" = verify ] && cli=$W/bin/cli-recorder
    cp "$W/nct/etc/nvidia-container-runtime/config.toml" "$W/nv-$c.toml"
    "$W/nct/bin/nvidia-ctk" config --config-file="$W/nv-$c.toml" --in-place --set nvidia-container-runtime.mode=legacy \
        --set nvidia-container-cli.load-kmods=false --set nvidia-container-cli.path="$cli" >/dev/null
done

# ---------------------------------------------------------------- NVIDIA's runtime in each mode
# Its config per mode (NVIDIA_CTK_CONFIG_FILE_PATH picks one per row): the packaged one pointed at
# the carried binaries and runc, load-kmods off, the cli busybox's true (as for the hook rows); cdi
# mode reads the spec `nvidia-ctk cdi generate` writes for this host.
LDCONFIG=/sbin/ldconfig; [ -x /sbin/ldconfig.real ] && LDCONFIG=/sbin/ldconfig.real
mkdir -p "$W/cdi"
"$W/nct/bin/nvidia-ctk" cdi generate --format=json --output="$W/cdi/nvidia.json" \
    --nvidia-cdi-hook-path="$W/nct/bin/nvidia-cdi-hook" --ldconfig-path="$LDCONFIG" >"$W/cdi-generate.out" 2>&1 ||
    die "nvidia-ctk cdi generate: $(tail -n 3 "$W/cdi-generate.out")"
for mode in legacy cdi auto; do
    "$W/nct/bin/nvidia-ctk" --quiet config --config-file="$W/nct/etc/nvidia-container-runtime/config.toml" \
        --set nvidia-container-runtime.mode=$mode \
        --set nvidia-container-runtime.runtimes="$RUNC" \
        --set nvidia-container-runtime-hook.path="$NVHOOK" \
        --set nvidia-ctk.path="$W/nct/bin/nvidia-ctk" \
        --set nvidia-container-runtime.modes.cdi.spec-dirs="$W/cdi" \
        --set nvidia-container-cli.path="$W/bin/true" \
        --set nvidia-container-cli.load-kmods=false \
        --set nvidia-container-cli.ldconfig="@$LDCONFIG" \
        -o "$W/nv-rt-$mode.toml" || die "nvidia-ctk config for mode $mode"
done
NVRT=$W/nct/bin/nvidia-container-runtime
# our shim's config for the chains: [runtime] next = NVIDIA's runtime (a second /etc/gpu-numa-hook)
mkdir -p "$W/etc-gnh-nv"
sed -e "s|^next = .*|next = [\"$NVRT\"]|" "$W/etc-gnh/config.toml" >"$W/etc-gnh-nv/config.toml"
grep -q "^next = \[\"$NVRT\"\]" "$W/etc-gnh-nv/config.toml" || die "could not point the chain config's next at $NVRT"
# the cycles' bundles (writable root: NVIDIA's runtime adds mounts), restored before every run
# (NVIDIA's runtime and our shim edit config.json on create; a cdi-mode edit sets the variable to void)
python3 - "$W" <<'PY'
import json, os, sys
w = sys.argv[1]
spec = json.load(open(f"{w}/spec.json"))
spec["process"]["terminal"] = False
spec["process"]["args"] = ["true"]
spec["root"] = {"path": f"{w}/rootfs", "readonly": False}
spec["hooks"] = {}
for name, env in (("nogpu", []), ("gpu", ["NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"])):
    c = json.loads(json.dumps(spec))
    c["process"]["env"] += env
    c["linux"]["cgroupsPath"] = f"/gnh-gbench/cyc-{name}"
    os.makedirs(f"{w}/c-{name}", exist_ok=True)
    text = json.dumps(c, separators=(",", ":"))
    open(f"{w}/c-{name}/config.json", "w").write(text)
    esc = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    open(f"{w}/c-{name}.reset.tsv", "w").write(f"{w}/c-{name}/config.json\t{esc}\n")
PY

# in_ns CMD...: the shim reads only /etc/gpu-numa-hook/config.toml: ours, in a private mount namespace
ETC_MADE=0
[ -e /etc/gpu-numa-hook ] || { mkdir /etc/gpu-numa-hook && ETC_MADE=1; }
trap 'kill $SLEEPER 2>/dev/null; [ $ETC_MADE = 1 ] && rmdir /etc/gpu-numa-hook; rm -rf "$W"' EXIT
in_ns() { unshare -m --propagation private -- bash -c 'mount --bind "$1" /etc/gpu-numa-hook || exit 97; shift; exec "$@"' ns "$W/etc-gnh" "$@"; }

# IDENTITY_CACHE=1: the GPU identity cache in place first (`topology --refresh`, as the boot service
# does), so the GPU rows take each GPU's information file from it instead of asking the driver; the
# cache is removed at the end when this run made it.
CACHE=/run/gpu-numa-hook/gpu-identities
CACHE_MADE=0
if [ "${IDENTITY_CACHE:-0}" = 1 ]; then
    [ -e "$CACHE" ] || CACHE_MADE=1
    "$HOOK" --config "$W/etc-gnh/config.toml" topology --refresh >"$W/refresh.out" 2>&1 || die "topology --refresh: $(cat "$W/refresh.out")"
    say "identity cache: $(grep -m1 wrote "$W/refresh.out")"
fi
trap 'kill $SLEEPER 2>/dev/null; [ $ETC_MADE = 1 ] && rmdir /etc/gpu-numa-hook; [ $CACHE_MADE = 1 ] && rm -f "$CACHE"; rm -rf "$W"' EXIT

# ---------------------------------------------------------------- verification: the path each row takes
last_line() { tail -n1 "$W/hook.log"; }
"$HOOK" --config "$W/etc-gnh/config.toml" prestart <"$W/state-nogpu.json" || die "our hook, no GPU: exit $?"
grep -q "container=gbench-nogpu .*action=allow gpus=- .*fast path" <<<"$(last_line)" || die "our hook, no GPU: $(last_line)"
"$HOOK" --config "$W/etc-gnh/config.toml" prestart <"$W/state-gpu.json" || die "our hook, NVIDIA_VISIBLE_DEVICES=all: exit $?"
grep -q "container=gbench-gpu .*action=allow gpus=/dev/nvidia0(" <<<"$(last_line)" || die "our hook, NVIDIA_VISIBLE_DEVICES=all: $(last_line)"
say "verified our hook: no GPU: the fast path; all GPUs: the check path on the real driver ($(last_line | grep -o 'action=[a-z]* gpus=[^ ]*'))"
"$NVHOOK" -config "$W/nv-verify.toml" prestart <"$W/state-nogpu.json" 2>/dev/null || die "NVIDIA's hook, no GPU: exit $?"
[ ! -e "$W/cli-ran" ] || die "NVIDIA's hook ran its cli for a container without NVIDIA_VISIBLE_DEVICES"
"$NVHOOK" -config "$W/nv-verify.toml" prestart <"$W/state-gpu.json" 2>/dev/null || die "NVIDIA's hook, all GPUs: exit $?"
grep -q -- '--device=all' "$W/cli-ran" || die "NVIDIA's hook did not exec its cli with --device=all"
say "verified NVIDIA's hook: no GPU: exit 0, no cli; all GPUs: exec of its cli ($(cut -c1-70 "$W/cli-ran"))"
in_ns "$RUNC" --root "$W/state" run --bundle "$W/b-base" gbench-vbase </dev/null >/dev/null || die "runc run: exit $?"
in_ns "$SHIM" --root "$W/state" run --bundle "$W/b-shim" gbench-vshim </dev/null >/dev/null || die "runc run via the shim: exit $?"
cmp -s "$W/b-shim/config.json" "$W/b-shim/config.json.orig" || die "the shim changed a non-GPU container's config.json"
grep -q "gpu-numa-runtime\[[0-9]*\] container=gbench-vshim stage=runtime-run action=allow gpus=- .*fast path" <<<"$(last_line)" ||
    die "via the shim, no GPU: the last log line is not the shim's fast path: $(last_line)"
say "verified the shim, no GPU: config.json unchanged, no hook run, the shim's fast-path line"

# cycle ROW GPU ETC RUNTIME [MODE]: the argv of one start of bundle c-GPU through RUNTIME (as a row)
cycle_argv() {
    local row=$1 gpu=$2 etc=$3 rt=$4 mode=${5:-legacy}
    local IFS=$'\t'
    echo "$CYCLE${IFS}-c${IFS}$W/$etc${IFS}-e${IFS}NVIDIA_CTK_CONFIG_FILE_PATH=$W/nv-rt-$mode.toml${IFS}$rt${IFS}$W/state${IFS}$W/c-$gpu${IFS}gcyc-$row"
}
# verify_cycle ROW GPU ETC RUNTIME MODE: one start, then what runc was handed: NVIDIA's hook, ours, GPU devices
verify_cycle() {
    local row=$1 gpu=$2 etc=$3 rt=$4 mode=$5 out argv
    cp "$W/c-$gpu/config.json" "$W/c-$gpu/config.json.orig"
    IFS=$'\t' read -r -a argv <<<"$(cycle_argv "$row" "$gpu" "$etc" "$rt" "$mode")"
    # create only, to read the spec as runc got it; then the whole cycle must succeed
    unshare -m --propagation private -- bash -c 'mount --bind "$1" /etc/gpu-numa-hook && shift && exec "$@"' ns "$W/$etc" \
        env NVIDIA_CTK_CONFIG_FILE_PATH="$W/nv-rt-$mode.toml" "$rt" --root "$W/state" create --bundle "$W/c-$gpu" "gver-$row" \
        >"$W/verify.out" 2>&1 || die "$row: create exited $?: $(tail -n 3 "$W/verify.out")"
    out=$(python3 - "$W/c-$gpu/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
hooks = [h["path"].rsplit("/", 1)[-1] for stage in (c.get("hooks") or {}).values() for h in stage]
devs = [d["path"] for d in (c.get("linux", {}).get("devices") or []) if d["path"].startswith("/dev/nvidia")]
env = [e for e in c["process"]["env"] if e.startswith("NVIDIA_VISIBLE_DEVICES=")]
print("hooks=" + ",".join(hooks or ["-"]), "nvidia-devices=" + str(len(devs)), "env=" + ",".join(env or ["-"]))
PY
)
    "$RUNC" --root "$W/state" delete --force "gver-$row" >/dev/null 2>&1 || true
    cp "$W/c-$gpu/config.json.orig" "$W/c-$gpu/config.json"
    "${argv[@]}" >"$W/verify.out" 2>&1 || die "$row: a whole start exited $?: $(tail -n 3 "$W/verify.out")"
    cp "$W/c-$gpu/config.json.orig" "$W/c-$gpu/config.json"
    say "verified $row: $out"
    VERIFIED=$out
}
declare -A SEEN
for mode in legacy cdi auto; do
    for gpu in nogpu gpu; do
        verify_cycle "nv-$mode-$gpu" $gpu etc-gnh "$NVRT" $mode
        SEEN[nv-$mode-$gpu]=$VERIFIED
        verify_cycle "shim-nv-$mode-$gpu" $gpu etc-gnh-nv "$SHIM" $mode
        SEEN[shim-nv-$mode-$gpu]=$VERIFIED
        grep -q "container=gver-shim-nv-$mode-$gpu " "$W/hook.log" || die "shim-nv-$mode-$gpu: neither the shim nor our hook logged it"
    done
done
# what each path must show: legacy adds NVIDIA's hook; cdi and auto give devices and set the variable void
grep -q "hooks=.*nvidia-container-runtime-hook" <<<"${SEEN[nv-legacy-gpu]}" || die "legacy, GPU: NVIDIA's runtime added no hook: ${SEEN[nv-legacy-gpu]}"
grep -q "hooks=.*gpu-numa-hook" <<<"${SEEN[shim-nv-legacy-gpu]}" || die "shim, legacy, GPU: our hook not registered: ${SEEN[shim-nv-legacy-gpu]}"
# a container showing nothing NVIDIA's runtime reads passes the shim untouched, in every mode
for mode in legacy cdi auto; do
    ! grep -q "hooks=.*gpu-numa-hook" <<<"${SEEN[shim-nv-$mode-nogpu]}" ||
        die "shim, $mode, no GPU: our hook registered for a container showing nothing NVIDIA's runtime reads: ${SEEN[shim-nv-$mode-nogpu]}"
    grep -q "container=gver-shim-nv-$mode-nogpu stage=runtime-create action=allow " "$W/hook.log" ||
        die "shim, $mode, no GPU: no fast-path line of the shim's"
done
for mode in cdi auto; do
    grep -q "nvidia-devices=[1-9]" <<<"${SEEN[nv-$mode-gpu]}" || die "$mode, GPU: NVIDIA's runtime gave no device: ${SEEN[nv-$mode-gpu]}"
    grep -q "nvidia-devices=[1-9]" <<<"${SEEN[shim-nv-$mode-gpu]}" || die "shim, $mode, GPU: no device: ${SEEN[shim-nv-$mode-gpu]}"
    grep -q "nvidia-devices=0" <<<"${SEEN[nv-$mode-nogpu]}" || die "$mode, no GPU: devices given: ${SEEN[nv-$mode-nogpu]}"
done
grep -q "container=gver-shim-nv-cdi-gpu .*action=allow gpus=/dev/nvidia" "$W/hook.log" ||
    die "shim, cdi, GPU: our hook did not see the GPU NVIDIA's runtime gave: $(grep gver-shim-nv-cdi-gpu "$W/hook.log" | tail -n1)"
verify_cycle runc-nogpu nogpu etc-gnh "$RUNC" legacy
verify_cycle shim-runc-nogpu nogpu etc-gnh "$SHIM" legacy
# wrap_argv ROW MODE: one start without a GPU through an exec-only wrapper in front of NVIDIA's
# runtime: the floor of any shim there, one exec more per step
wrap_argv() {
    local IFS=$'\t'
    echo "$CYCLE${IFS}-c${IFS}$W/etc-gnh${IFS}-e${IFS}NVIDIA_CTK_CONFIG_FILE_PATH=$W/nv-rt-$2.toml${IFS}-e${IFS}EXEC_WRAPPER_NEXT=$NVRT${IFS}$WRAPPER${IFS}$W/state${IFS}$W/c-nogpu${IFS}gcyc-$1"
}
for mode in legacy cdi auto; do
    IFS=$'\t' read -r -a argv <<<"$(wrap_argv "wver-$mode" $mode)"
    "${argv[@]}" >"$W/verify.out" 2>&1 || die "the exec-only wrapper in front of NVIDIA's runtime ($mode): a start exited $?: $(tail -n 3 "$W/verify.out")"
    cp "$W/c-nogpu/config.json.orig" "$W/c-nogpu/config.json"
done
say "verified a start without a GPU through the exec-only wrapper in front of NVIDIA's runtime, in each mode"

# ---------------------------------------------------------------- the plan
{
    echo "variant${T}floor: busybox true${T}$W/state-nogpu.json${T}-${T}$W/bin/true"
    echo "variant${T}gpu-numa-hook, no GPU${T}$W/state-nogpu.json${T}-${T}$HOOK${T}--config${T}$W/etc-gnh/config.toml${T}prestart"
    echo "variant${T}NVIDIA hook, no GPU${T}$W/state-nogpu.json${T}-${T}$NVHOOK${T}-config${T}$W/nv-timed.toml${T}prestart"
    echo "variant${T}gpu-numa-hook, all GPUs${T}$W/state-gpu.json${T}-${T}$HOOK${T}--config${T}$W/etc-gnh/config.toml${T}prestart"
    echo "variant${T}NVIDIA hook, all GPUs (to its cli)${T}$W/state-gpu.json${T}-${T}$NVHOOK${T}-config${T}$W/nv-timed.toml${T}prestart"
    echo "variant-other${T}runc run, no GPU${T}-${T}-${T}$RUNC${T}--root${T}$W/state${T}run${T}--bundle${T}$W/b-base${T}gbench-base"
    echo "variant-other${T}runc run via gpu-numa-runtime, no GPU${T}-${T}-${T}$SHIM${T}--root${T}$W/state${T}run${T}--bundle${T}$W/b-shim${T}gbench-shim"
    echo "variant-other${T}runc run via an exec-only wrapper, no GPU${T}-${T}-${T}$WRAPPER${T}$RUNC${T}--root${T}$W/state${T}run${T}--bundle${T}$W/b-wrap${T}gbench-wrap"
    echo "variant-other${T}start: runc, no GPU${T}-${T}$W/c-nogpu.reset.tsv${T}$(cycle_argv c-runc nogpu etc-gnh "$RUNC")"
    echo "variant-other${T}start: gpu-numa-runtime -> runc, no GPU${T}-${T}$W/c-nogpu.reset.tsv${T}$(cycle_argv c-shim nogpu etc-gnh "$SHIM")"
    for mode in legacy cdi auto; do
        for gpu in nogpu gpu; do
            label=$([ $gpu = gpu ] && echo "all GPUs" || echo "no GPU")
            echo "variant-other${T}start: nvidia-container-runtime $mode, $label${T}-${T}$W/c-$gpu.reset.tsv${T}$(cycle_argv c-nv-$mode-$gpu $gpu etc-gnh "$NVRT" $mode)"
            echo "variant-other${T}start: gpu-numa-runtime -> nvidia-container-runtime $mode, $label${T}-${T}$W/c-$gpu.reset.tsv${T}$(cycle_argv c-shnv-$mode-$gpu $gpu etc-gnh-nv "$SHIM" $mode)"
            echo "cmp${T}start: gpu-numa-runtime -> nvidia-container-runtime $mode, $label${T}start: nvidia-container-runtime $mode, $label${T}1.1${T}(info) our shim in front of NVIDIA's runtime ($mode, $label) against NVIDIA's runtime alone"
        done
        echo "variant-other${T}start: exec-only wrapper -> nvidia-container-runtime $mode, no GPU${T}-${T}$W/c-nogpu.reset.tsv${T}$(wrap_argv c-wrap-$mode $mode)"
        echo "cmp${T}start: gpu-numa-runtime -> runc, no GPU${T}start: nvidia-container-runtime $mode, no GPU${T}1${T}(info) our shim in front of runc against NVIDIA's runtime ($mode) in front of runc"
    done
    echo "cmp${T}start: gpu-numa-runtime -> runc, no GPU${T}start: runc, no GPU${T}1.02${T}a start without a GPU (create, start, delete) through the shim within 1.02x of runc alone"
    echo "cmp${T}runc run via gpu-numa-runtime, no GPU${T}runc run, no GPU${T}1.02${T}a start without a GPU through the shim within 1.02x of runc alone"
    echo "cmp${T}runc run via an exec-only wrapper, no GPU${T}runc run, no GPU${T}1.02${T}(info) the floor of any shim: one exec more"
    echo "cmp${T}runc run via gpu-numa-runtime, no GPU${T}runc run via an exec-only wrapper, no GPU${T}1.02${T}(info) the shim's own work above that floor"
    echo "cmp${T}gpu-numa-hook, no GPU${T}NVIDIA hook, no GPU${T}1${T}(info) our hook against NVIDIA's, no GPU"
    echo "cmp${T}gpu-numa-hook, all GPUs${T}NVIDIA hook, all GPUs (to its cli)${T}1${T}(info) our check path against NVIDIA's hook up to its cli"
} >"$OUT/gpu-host-plan.tsv"
say "timing: $ROUNDS rounds"
# a row that exited non-zero is in the table (and fails this script at its end); the rest still print
STATUS=0
in_ns "$BENCH" --rounds "$ROUNDS" --warmup 10 --raw "$OUT/gpu-host-raw.tsv" --title "on the GPU host" "$OUT/gpu-host-plan.tsv" |
    tee "$OUT/gpu-host-table.md" || STATUS=1

# above the floor: medians from the same rounds; ours as a share of NVIDIA's (bench/share-of-theirs.sh)
# shellcheck source=share-of-theirs.sh
. "$REPO/bench/share-of-theirs.sh"
{
    echo
    echo "### beside NVIDIA's hook on the GPU host: cost above busybox true, in ms"
    echo
    echo "| ours | NVIDIA's | ours median | theirs median | floor median | ours above floor | theirs above floor | ours / theirs | target | met |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    share_of_theirs "$OUT/gpu-host-raw.tsv" "gpu-numa-hook, no GPU" "NVIDIA hook, no GPU" "floor: busybox true"
    share_of_theirs "$OUT/gpu-host-raw.tsv" "gpu-numa-hook, all GPUs" "NVIDIA hook, all GPUs (to its cli)" "floor: busybox true"
    echo
    echo "### our shim in front of NVIDIA's runtime: what it adds, as a share of what NVIDIA's runtime adds to runc alone, in ms"
    echo
    echo "| ours | NVIDIA's | ours median | theirs median | floor median | ours above floor | theirs above floor | ours / theirs | target | met |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for mode in legacy cdi auto; do
        for label in "no GPU" "all GPUs"; do
            # ours: shim+NVIDIA above NVIDIA alone; theirs: NVIDIA above runc alone
            share_of_theirs_added "$OUT/gpu-host-raw.tsv" "start: gpu-numa-runtime -> nvidia-container-runtime $mode, $label" \
                "start: nvidia-container-runtime $mode, $label" "start: runc, no GPU"
        done
        # the floor of any shim in that place: one exec more per step, nothing read
        share_of_theirs_added "$OUT/gpu-host-raw.tsv" "start: exec-only wrapper -> nvidia-container-runtime $mode, no GPU" \
            "start: nvidia-container-runtime $mode, no GPU" "start: runc, no GPU"
    done
} | tee -a "$OUT/gpu-host-table.md"
exit $STATUS
