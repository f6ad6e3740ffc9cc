#!/bin/bash
# Real-runtime tests for gpu-numa-hook: runc, crun and podman on this machine's real cgroups,
# with the hook registered the ways operators register it (config.json hooks, podman hooks.d,
# chained mode). Only the NVIDIA driver is faked: each runtime runs in a private mount namespace
# whose /proc/driver is a tmpfs holding nvidia/gpus/<bus>/information (and numa_status) in the
# driver's real format; the hook reads its production paths.
#
# Usage: tests/runtime/run-runtime-tests.sh [HOOK_BINARY]     (default: <repo>/build/gpu-numa-hook)
# Needs: root, runc, crun, podman, busybox (static), jq, unshare, mount.
# Output: one `PASS: <name>` / `FAIL: <name>: <detail>` line per case, loud `SKIP:` lines, and last
# the line `N passed, M failed`. Exit 0 only when nothing failed. Under CI=true a missing runtime or
# tool (or not being root) is a failure, not a skip.
# Env: GNH_RT_KEEP=1 keeps the temp dir (containers and cgroups are still removed).
set -u

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
REG=$REPO/config/registration
TALLY_NAME="runtime tests"
# shellcheck source-path=SCRIPTDIR source=../support/tally.sh
. "$(dirname "${BASH_SOURCE[0]}")/../support/tally.sh"

# ---------------------------------------------------------------- preconditions
if [ "$(id -u)" != 0 ]; then
    skip "all runtime tests" "not root (real runtimes and cgroups need root)"
    finish
fi
for tool in jq unshare mount umount timeout mknod; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        skip "all runtime tests" "required tool '$tool' is missing (apt-get install jq util-linux coreutils)"
        finish
    fi
done
BUSYBOX=$(command -v busybox || true)
if [ -z "$BUSYBOX" ] || ! LC_ALL=C ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic'; then
    skip "all runtime tests" "a static busybox is missing (apt-get install busybox-static)"
    finish
fi
if [ ! -x "$HOOK" ]; then
    fail "hook binary" "$HOOK is missing or not executable (build it: cmake -S . -B build && cmake --build build)"
    finish
fi
HOOK=$(cd "$(dirname "$HOOK")" && pwd)/$(basename "$HOOK")

have_runc=0; have_crun=0; have_podman=0
command -v runc >/dev/null 2>&1 && have_runc=1
command -v crun >/dev/null 2>&1 && have_crun=1
command -v podman >/dev/null 2>&1 && have_podman=1

TMP=$(mktemp -d /tmp/gnh-rt.XXXXXX) || { fail "setup" "mktemp failed"; finish; }
chmod 755 "$TMP"
RUNID=$(basename "$TMP" | sed 's/^gnh-rt\.//' | tr 'A-Z' 'a-z')
CG_PARENT=gnh-test                 # every cgroup we cause lives under /gnh-test/<name containing RUNID>
WORKAROUND_MOUNTS=()               # v1 mounts made for crun's hybrid-cgroup refusal

# ---------------------------------------------------------------- cleanup
cgroup_mounts() { awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup" || $(i+1) == "cgroup2") print $5; break } }' /proc/self/mountinfo; }

# our_cgroup_dirs: every cgroup directory of this run, in every mounted hierarchy, deepest first
our_cgroup_dirs() {
    local m
    for m in $(cgroup_mounts); do
        [ -d "$m/$CG_PARENT" ] || continue
        find "$m/$CG_PARENT" -mindepth 1 -maxdepth 1 -type d -name "*$RUNID*" -print0 2>/dev/null |
            xargs -0 -r -I{} find {} -depth -type d 2>/dev/null
    done
}

cleanup() {
    local rt id d i pids left=0
    trap - EXIT INT TERM HUP
    for rt in runc crun; do
        [ -d "$TMP/state/$rt" ] || continue
        for id in $("$rt" --root "$TMP/state/$rt" list -q 2>/dev/null); do
            "$rt" --root "$TMP/state/$rt" delete -f "$id" >/dev/null 2>&1
        done
    done
    if [ -d "$TMP/podman/root" ] && declare -F podman_base >/dev/null; then
        podman_base rm -af -t 0 >/dev/null 2>&1
    fi
    # processes still inside our cgroups (a timed-out container, a conmon): kill them by pid
    for d in $(our_cgroup_dirs); do
        pids=$(cat "$d/cgroup.procs" 2>/dev/null)
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    done
    for i in 1 2 3 4 5; do
        left=0
        for d in $(our_cgroup_dirs); do rmdir "$d" 2>/dev/null || left=1; done
        [ "$left" = 0 ] && break
        sleep 0.2
    done
    for d in $(cgroup_mounts); do rmdir "$d/$CG_PARENT" 2>/dev/null; done
    [ "$left" = 1 ] && echo "WARNING: cgroup directories left behind: $(our_cgroup_dirs | one_line)" >&2
    for d in "${WORKAROUND_MOUNTS[@]}"; do
        umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null
    done
    if grep -q " $TMP" /proc/self/mountinfo; then
        echo "WARNING: mounts left under $TMP; not removing it" >&2
    elif [ "${GNH_RT_KEEP:-}" = 1 ]; then
        echo "kept $TMP" >&2
    else
        rm -rf --one-file-system "$TMP"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---------------------------------------------------------------- fixtures
mkdir -p "$TMP"/{rootfs/bin,rootfs/proc,rootfs/dev,rootfs/sys,rootfs/etc,rootfs/run,rootfs/tmp,bundles,cfg,logs,state,out,drivers,chain,podman}
cp "$BUSYBOX" "$TMP/rootfs/bin/busybox"
for a in sh cat grep ls echo sleep true false test head tail wc; do ln -s busybox "$TMP/rootfs/bin/$a"; done
cp -a "$TMP/rootfs" "$TMP/rootfs-podman"   # podman writes etc/hosts etc. into a --rootfs

# A GPU as the driver shows it. information: the exact layout of a real 580.159.04 file
# (key, colon, spaces/tabs, value), minor 0, at a PCI address this host does not have, so
# /sys/bus/pci/devices/<bus>/numa_node is missing: the GPU has no affinity node.
GPU_BUS=""
for b in 0000:00:06.0 0000:00:07.0 0000:fe:1f.7; do
    [ -e "/sys/bus/pci/devices/$b" ] || { GPU_BUS=$b; break; }
done
[ -n "$GPU_BUS" ] || { fail "setup" "no unused PCI address for the fake GPU"; finish; }
write_information() { # DIR
    printf 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-f0586c67-b718-ef40-6571-4caeff0ab99c\nVideo BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t 0\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n' "$GPU_BUS" >"$1/information"
}
# driver variants: none (no driver), pcie (no numa_status), online0, node1, inprog
make_driver() { # NAME [NODE STATUS]
    local d="$TMP/drivers/$1"
    mkdir -p "$d"
    [ "$1" = none ] && return
    mkdir -p "$d/nvidia/gpus/$GPU_BUS"
    write_information "$d/nvidia/gpus/$GPU_BUS"
    [ $# -ge 3 ] && printf 'Node:      %s\nStatus:    %s\n' "$2" "$3" >"$d/nvidia/gpus/$GPU_BUS/numa_status"
}
make_driver none
make_driver pcie
make_driver online0 0 online
make_driver node1 1 online
make_driver inprog 0 online_in_progress
# driver535: a PCIe GPU under driver 535.104.05 (CUDA 12.2), its version file in the real format
make_driver driver535
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Sat Aug 19 01:13:15 UTC 2023\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n' >"$TMP/drivers/driver535/nvidia/version"

# with_driver VARIANT CMD...: CMD in a private mount namespace whose /proc/driver holds the variant.
# With GNH_CDI_SPEC=FILE set, /etc in that namespace is an overlay (writes go to the temp dir) with
# FILE installed in /etc/cdi, where podman looks for CDI specs; the host's /etc is not touched.
with_driver() {
    local v=$1
    shift
    if [ -n "${GNH_CDI_SPEC:-}" ]; then
        rm -rf "$TMP/etc-ovl"
        mkdir -p "$TMP/etc-ovl/upper" "$TMP/etc-ovl/work"
    fi
    unshare -m --propagation private -- /bin/bash -c '
        mount -t tmpfs -o size=1m,mode=0555 gnh-fake-driver /proc/driver || { echo "with_driver: cannot mount over /proc/driver" >&2; exit 97; }
        cp -a "$1/." /proc/driver/ || exit 97
        if [ -n "$2" ]; then
            mount -t overlay gnh-etc -o "lowerdir=/etc,upperdir=$3/upper,workdir=$3/work" /etc || { echo "with_driver: cannot overlay /etc" >&2; exit 97; }
            mkdir -p /etc/cdi && cp "$2" /etc/cdi/ || exit 97
        fi
        shift 3
        exec "$@"' gnh-ns "$TMP/drivers/$v" "${GNH_CDI_SPEC:-}" "$TMP/etc-ovl" "$@"
}

# write_config NAME [TOML...]: $TMP/cfg/NAME.toml logging to $TMP/logs/NAME.log
write_config() {
    local name=$1
    shift
    {
        printf '[log]\nfile = "%s"\nlevel = "info"\nformat = "text"\n\n[lock]\npath = "%s"\n\n' \
            "$TMP/logs/$name.log" "$TMP/hook.lock"
        local extra
        for extra in "$@"; do printf '%s\n' "$extra"; done
    } >"$TMP/cfg/$name.toml"
    : >"$TMP/logs/$name.log"
}

# make_bundle RT NAME CONFIGNAME [STAGE]: a runc-spec bundle; container id = cgroup leaf = RT-NAME-RUNID.
# The hook entry is the shipped config.json registration example (config/registration/
# oci-config-hooks.STAGE.json: path, args, env, timeout) with the path set to the binary under test
# and `--config` added after args[0]. Further edits with bundle_edit.
make_bundle() {
    local rt=$1 name=$2 cfg=$3 stage=${4:-prestart}
    local id="$rt-$name-$RUNID" b="$TMP/bundles/$rt-$name" example="$REG/oci-config-hooks.$stage.json"
    mkdir -p "$b"
    runc spec --bundle "$b" 2>/dev/null || { echo "runc spec failed" >&2; return 1; }
    if [ ! -f "$example" ]; then   # keep the runtime cases independent of the shipped example
        printf '{"hooks":{"%s":[{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","%s"],"env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"timeout":60}]}}\n' \
            "$stage" "$stage" >"$TMP/cfg/example-$stage.json"
        example="$TMP/cfg/example-$stage.json"
    fi
    jq --arg root "$TMP/rootfs" --arg cg "/$CG_PARENT/$id" --arg hook "$HOOK" \
        --arg cfg "$TMP/cfg/$cfg.toml" --slurpfile ex "$example" '
        .process.terminal = false
        | .process.args = ["sh", "-c", "echo container-ran; grep Mems_allowed_list /proc/self/status"]
        | .root = {path: $root, readonly: true}
        | .hostname = "gnh"
        | .linux.cgroupsPath = $cg
        | .hooks = ($ex[0].hooks | map_values(map(.path = $hook | .args = [.args[0], "--config", $cfg] + .args[1:])))
        ' "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
    echo "$id"
}
bundle_edit() { # RT NAME JQ-FILTER [jq args...]
    local b="$TMP/bundles/$1-$2" f=$3
    shift 3
    jq "$@" "$f" "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
}
add_gpu_device() { # RT NAME: /dev/nvidia0 (c 195:0) plus a devices-cgroup allow rule
    bundle_edit "$1" "$2" '
        .linux.devices = ((.linux.devices // []) + [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0,
                                                      fileMode: 438, uid: 0, gid: 0}])
        | .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rwm"}]'
}
add_env() { bundle_edit "$1" "$2" '.process.env += [$e]' --arg e "$3"; }
set_args() { bundle_edit "$1" "$2" '.process.args = ["sh", "-c", $c]' --arg c "$3"; }

# rt_run RT VARIANT NAME ID: foreground run; sets RC and OUT (stdout+stderr)
rt_run() {
    local rt=$1 v=$2 name=$3 id=$4
    OUT=$(with_driver "$v" timeout -k 5 60 "$rt" --root "$TMP/state/$rt" run --bundle "$TMP/bundles/$rt-$name" "$id" </dev/null 2>&1)
    RC=$?
}
# rt_run_detached RT VARIANT NAME ID: run -d (container sleeps); sets RC and OUT (runtime output)
rt_run_detached() {
    local rt=$1 v=$2 name=$3 id=$4
    with_driver "$v" timeout -k 5 60 "$rt" --root "$TMP/state/$rt" run -d --bundle "$TMP/bundles/$rt-$name" "$id" \
        </dev/null >"$TMP/out/$id.stdout" 2>"$TMP/out/$id.stderr"
    RC=$?
    OUT=$(cat "$TMP/out/$id.stderr")
}
rt_delete() { "$1" --root "$TMP/state/$1" delete -f "$2" >/dev/null 2>&1; }

# log helpers: the hook's line(s) for one container
log_for() { grep -F "container=$2 " "$TMP/logs/$1.log" 2>/dev/null; }
log_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n1; }   # stdin: one log line
# nodelist_has LIST N: kernel list syntax ("0-2,4") contains node N
nodelist_has() {
    local part lo hi
    for part in $(echo "$1" | tr ',' ' '); do
        lo=${part%-*}; hi=${part#*-}
        [ "$lo" -le "$2" ] 2>/dev/null && [ "$2" -le "$hi" ] 2>/dev/null && return 0
    done
    return 1
}
cpuset_mount() {
    awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if (($(i+1) == "cgroup" && $(i+3) ~ /(^|,)cpuset(,|$)/) ) print $5; break } }' /proc/self/mountinfo | head -n1
}
CPUSET_MNT=$(cpuset_mount)
[ -z "$CPUSET_MNT" ] && CPUSET_MNT=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -n1)

# evidence NAME OUTPUT LOG: keep what the user saw and what the log said, for docs/runtimes.md
evidence() {
    { printf '== %s\n-- runtime exit status %s, output (last 3 lines):\n%s\n-- hook log:\n%s\n\n' "$1" "$RC" "$(echo "$2" | tail -n 3)" "$3"; } >>"$TMP/evidence.txt"
}

# leftover_cgroups PATH: the hierarchies in which /PATH still exists
leftover_cgroups() {
    local m out=""
    for m in $(cgroup_mounts); do [ -d "$m/$1" ] && out="$out $m/$1"; done
    echo "$out"
}

# ---------------------------------------------------------------- shared assertions
# expect_fast_path NAME CFG ID: rc 0, container ran, one log line action=allow gpus=- "fast path"
expect_fast_path() { # NAME CFG ID [WHY: a pattern the log line's message must also have]
    local name=$1 cfg=$2 id=$3 why=${4:-} line
    if [ "$RC" != 0 ]; then fail "$name" "exit $RC: $(echo "$OUT" | one_line)"; return; fi
    if ! echo "$OUT" | grep -q container-ran; then fail "$name" "container output missing: $(echo "$OUT" | one_line)"; return; fi
    line=$(log_for "$cfg" "$id")
    if [ "$(echo "$line" | grep -c .)" != 1 ]; then fail "$name" "expected one log line for $id, got: $(cat "$TMP/logs/$cfg.log" | one_line)"; return; fi
    if ! echo "$line" | grep -q ' action=allow ' || ! echo "$line" | grep -q ' gpus=- ' || ! echo "$line" | grep -q 'fast path'; then
        fail "$name" "log line is not the fast path: $line"; return
    fi
    if [ -n "$why" ] && ! echo "$line" | grep -qF "$why"; then fail "$name" "log line does not say '$why': $line"; return; fi
    pass "$name"
}

# expect_gpu_started NAME RT CFG ID STAGE: after rt_run_detached of a GPU container running
# $GPU_ARGS: runtime exit 0; /dev/nvidia0 present when linux.devices has it; the container's
# Mems_allowed_list and its cgroup's cpuset.mems (read while it runs) contain node 0;
# log line action=allow|patch, stage, gpus names nvidia0/the bus, cgroup names the container's cgroup
expect_gpu_started() {
    local name=$1 rt=$2 cfg=$3 id=$4 stage=$5 line mems cgmems i act gpus cg
    if [ "$RC" != 0 ]; then
        fail "$name" "exit $RC: $(echo "$OUT" | one_line); log: $(cat "$TMP/logs/$cfg.log" | one_line)"; rt_delete "$rt" "$id"; return
    fi
    for i in $(seq 1 100); do grep -q '^ready$' "$TMP/out/$id.stdout" 2>/dev/null && break; sleep 0.05; done
    mems=$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' "$TMP/out/$id.stdout")
    cgmems=$(cat "$CPUSET_MNT/$CG_PARENT/$id/cpuset.mems" 2>/dev/null)
    [ -z "$cgmems" ] && cgmems=$(cat "$CPUSET_MNT/$CG_PARENT/$id/cpuset.mems.effective" 2>/dev/null)
    rt_delete "$rt" "$id"
    if jq -e '.linux.devices[]? | select(.path == "/dev/nvidia0")' "$TMP/bundles/${id%-"$RUNID"}/config.json" >/dev/null 2>&1 &&
        ! grep -q '^has-nvidia0$' "$TMP/out/$id.stdout"; then
        fail "$name" "/dev/nvidia0 is not a char device in the container (stdout: $(one_line <"$TMP/out/$id.stdout"))"; return
    fi
    if ! nodelist_has "$mems" 0; then fail "$name" "container Mems_allowed_list '$mems' lacks node 0 (stdout: $(one_line <"$TMP/out/$id.stdout"))"; return; fi
    if ! nodelist_has "$cgmems" 0; then fail "$name" "cgroup $CPUSET_MNT/$CG_PARENT/$id cpuset.mems '$cgmems' lacks node 0"; return; fi
    line=$(log_for "$cfg" "$id")
    if [ "$(echo "$line" | grep -c .)" != 1 ]; then fail "$name" "expected one log line for $id, got: $(cat "$TMP/logs/$cfg.log" | one_line)"; return; fi
    act=$(echo "$line" | log_field action); gpus=$(echo "$line" | log_field gpus); cg=$(echo "$line" | log_field cgroup)
    case "$act" in allow|patch) ;; *) fail "$name" "log action '$act', want allow|patch: $line"; return ;; esac
    if ! echo "$line" | grep -q " stage=$stage "; then fail "$name" "log lacks stage=$stage: $line"; return; fi
    case "$gpus" in *nvidia0*|*"$GPU_BUS"*) ;; *) fail "$name" "log gpus '$gpus' does not name nvidia0/$GPU_BUS: $line"; return ;; esac
    case "$cg" in *"$CG_PARENT/$id"*) ;; *) fail "$name" "log cgroup '$cg' is not the container's cgroup /$CG_PARENT/$id: $line"; return ;; esac
    pass "$name (Mems_allowed_list=$mems cpuset.mems=$cgmems action=$act)"
}

# expect_refused NAME RT CFG ID MSGRE: start failed; runc: our stderr line in the output; crun: its
# generic hook error; log action=refuse with a reason matching MSGRE; no container, no cgroup left
expect_refused() {
    local name=$1 rt=$2 cfg=$3 id=$4 msgre=$5 line left
    if [ "$RC" = 0 ]; then fail "$name" "start was not refused: $(echo "$OUT" | one_line)"; rt_delete "$rt" "$id"; return; fi
    if echo "$OUT" | grep -q container-ran; then fail "$name" "container process ran despite refusal"; return; fi
    case "$rt" in
    runc)
        if ! echo "$OUT" | grep -qF "gpu-numa-hook: container $id: refusing start:"; then
            fail "$name" "runc output lacks our refusal line: $(echo "$OUT" | one_line)"; return
        fi ;;
    crun)
        if ! echo "$OUT" | grep -qF "error executing hook \`$HOOK\` (exit code: 1)"; then
            fail "$name" "crun output is not its generic hook error with exit code 1: $(echo "$OUT" | one_line)"; return
        fi ;;
    esac
    line=$(log_for "$cfg" "$id")
    if ! echo "$line" | grep -q ' action=refuse '; then fail "$name" "log has no action=refuse for $id: $(cat "$TMP/logs/$cfg.log" | one_line)"; return; fi
    if ! echo "$line" | grep -qiE -- "$msgre"; then fail "$name" "log reason does not match /$msgre/: $line"; return; fi
    if "$rt" --root "$TMP/state/$rt" list -q 2>/dev/null | grep -qxF "$id"; then fail "$name" "container $id left in '$rt list'"; rt_delete "$rt" "$id"; return; fi
    left=$(leftover_cgroups "$CG_PARENT/$id")
    if [ -n "$left" ]; then fail "$name" "cgroup directories left:$left"; return; fi
    evidence "$name" "$OUT" "$line"
    pass "$name"
}

# ---------------------------------------------------------------- crun on a hybrid host
# crun 1.8.1 refuses hybrid cgroups while a controller sits on a cgroup2 mounted beside v1
# (here: hugetlb on /sys/fs/cgroup/unified). Mount each such controller as a v1 hierarchy in the
# temp dir for the run (this moves it off cgroup2); cleanup rmdirs our cgroups there and unmounts.
hybrid_workaround() {
    local u ctrl
    u=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -n1)
    [ -z "$u" ] && return 0
    [ "$u" = /sys/fs/cgroup ] && return 0              # pure v2: nothing to do
    for ctrl in $(cat "$u/cgroup.controllers" 2>/dev/null); do
        mkdir -p "$TMP/cgv1-$ctrl"
        if ! mount -t cgroup -o "$ctrl" cgroup "$TMP/cgv1-$ctrl"; then
            echo "cannot mount $ctrl as cgroup v1" >&2
            return 1
        fi
        WORKAROUND_MOUNTS+=("$TMP/cgv1-$ctrl")
    done
    return 0
}

# ---------------------------------------------------------------- stand-in for the next hook (chained mode)
# make_next_hook CFG: writes $TMP/chain/next-hook-CFG.sh and prints its path. It records argv and
# stdin, notes how many lines our log had when it ran (our line must come after), and fails with
# exit 3 and a message while $TMP/chain/fail exists, or hangs (exec sleep 60) while $TMP/chain/hang exists.
# While $TMP/chain/make-online exists it turns the fake GPU's numa_status to "Node 0, online" (it runs
# in the runtime's mount namespace, like the hook): our check sees that only if it runs after it.
make_next_hook() {
    local f="$TMP/chain/next-hook-$1.sh"
    cat >"$f" <<EOF
#!/bin/sh
printf '%s\n' "\$0" "\$@" >"$TMP/chain/argv"
cat >"$TMP/chain/stdin"
wc -l <"$TMP/logs/$1.log" >"$TMP/chain/loglines-at-run"
if [ -e "$TMP/chain/make-online" ]; then
    printf 'Node:      0\nStatus:    online\n' >"/proc/driver/nvidia/gpus/$GPU_BUS/numa_status"
fi
if [ -e "$TMP/chain/hang" ]; then
    echo \$\$ >"$TMP/chain/pid"
    exec sleep 60
fi
if [ -e "$TMP/chain/fail" ]; then
    echo "next-hook stand-in: simulated NVIDIA hook failure" >&2
    exit 3
fi
exit 0
EOF
    chmod 755 "$f"
    echo "$f"
}

# ================================================================ runc / crun cases
# what a started GPU container runs: facts for the host to read, then it waits to be deleted
GPU_ARGS='grep Mems_allowed_list /proc/self/status; test -c /dev/nvidia0 && echo has-nvidia0; echo ready; exec sleep 60'
run_oci_cases() { # RT
    local rt=$1 id name cfg
    mkdir -p "$TMP/state/$rt"

    # 1. non-GPU container: fast path
    cfg=$rt-nongpu; write_config "$cfg"
    id=$(make_bundle "$rt" nongpu "$cfg")
    rt_run "$rt" none nongpu "$id"
    expect_fast_path "$rt: non-GPU container starts, log shows fast path" "$cfg" "$id"

    # 2. GPU by linux.devices, memory node 0 online
    cfg=$rt-dev-online; write_config "$cfg"
    id=$(make_bundle "$rt" dev-online "$cfg"); add_gpu_device "$rt" dev-online
    set_args "$rt" dev-online "$GPU_ARGS"
    rt_run_detached "$rt" online0 dev-online "$id"
    expect_gpu_started "$rt: GPU by linux.devices, node 0 online -> starts" "$rt" "$cfg" "$id" prestart

    # 3. NVIDIA_VISIBLE_DEVICES=0 and no hook to read it (a CUDA image on a CDI-only node): it gives
    # no GPU, so GPU 0's memory node, which this host lacks, does not refuse the start; the log says
    # why the variable did not count (NVIDIA's legacy hook reading it: tests/nvidia, the GPU host)
    cfg=$rt-env-unread; write_config "$cfg"
    id=$(make_bundle "$rt" env-unread "$cfg"); add_env "$rt" env-unread NVIDIA_VISIBLE_DEVICES=0
    rt_run "$rt" node1 env-unread "$id"
    expect_fast_path "$rt: NVIDIA_VISIBLE_DEVICES=0 with no hook to read it -> no GPU, starts (fast path)" "$cfg" "$id" \
        'no hook in the spec reads NVIDIA_VISIBLE_DEVICES'

    # 4. ordinary PCIe GPU: no numa_status, no PCI numa_node -> nothing required, starts
    cfg=$rt-pcie; write_config "$cfg"
    id=$(make_bundle "$rt" pcie "$cfg"); add_gpu_device "$rt" pcie
    set_args "$rt" pcie "$GPU_ARGS"
    rt_run_detached "$rt" pcie pcie "$id"
    expect_gpu_started "$rt: PCIe GPU without a memory node -> starts" "$rt" "$cfg" "$id" prestart

    # 5. createRuntime registration
    cfg=$rt-createruntime; write_config "$cfg"
    id=$(make_bundle "$rt" createruntime "$cfg" createRuntime); add_gpu_device "$rt" createruntime
    set_args "$rt" createruntime "$GPU_ARGS"
    rt_run_detached "$rt" online0 createruntime "$id"
    expect_gpu_started "$rt: createRuntime hook, GPU node 0 online -> starts" "$rt" "$cfg" "$id" createRuntime

    # 6. GPU memory node 1: not a memory node of this host -> refused
    cfg=$rt-node1; write_config "$cfg"
    id=$(make_bundle "$rt" node1 "$cfg"); add_gpu_device "$rt" node1
    rt_run "$rt" node1 node1 "$id"
    expect_refused "$rt: GPU memory node 1 not online on host -> refused, nothing left" "$rt" "$cfg" "$id" 'not online|offline|missing|node 1'

    # 7. GPU memory node 0 online_in_progress -> refused
    cfg=$rt-inprog; write_config "$cfg"
    id=$(make_bundle "$rt" inprog "$cfg"); add_gpu_device "$rt" inprog
    rt_run "$rt" inprog inprog "$id"
    expect_refused "$rt: GPU memory node status online_in_progress -> refused, nothing left" "$rt" "$cfg" "$id" 'not online|online_in_progress'

    # 8. an image requiring a CUDA the driver does not support (535.104.05: CUDA 12.2) -> refused;
    # the same image with NVIDIA_DISABLE_REQUIRE=true (it carries its own compat libraries) starts
    cfg=$rt-cuda; write_config "$cfg"
    id=$(make_bundle "$rt" cuda "$cfg"); add_gpu_device "$rt" cuda
    add_env "$rt" cuda "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471"
    rt_run "$rt" driver535 cuda "$id"
    expect_refused "$rt: image requires CUDA 12.4, driver 535 supports 12.2 -> refused, nothing left" "$rt" "$cfg" "$id" \
        'the image requires cuda>=12.4 .*driver 535.104.05, CUDA 12.2 .*NVIDIA_DISABLE_REQUIRE=true'
    cfg=$rt-cuda-disabled; write_config "$cfg"
    id=$(make_bundle "$rt" cuda-disabled "$cfg"); add_gpu_device "$rt" cuda-disabled
    add_env "$rt" cuda-disabled "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471"
    add_env "$rt" cuda-disabled NVIDIA_DISABLE_REQUIRE=true
    set_args "$rt" cuda-disabled "$GPU_ARGS"
    rt_run_detached "$rt" driver535 cuda-disabled "$id"
    expect_gpu_started "$rt: the same image with NVIDIA_DISABLE_REQUIRE=true -> starts" "$rt" "$cfg" "$id" prestart

    # crun only: the annotation run.oci.hooks.stderr names a file that gets the hooks' stderr,
    # so a crun user can see our reason without the hook's log
    if [ "$rt" = crun ]; then
        local name="crun: annotation run.oci.hooks.stderr captures our refusal line"
        cfg=$rt-stderr-annot; write_config "$cfg"
        id=$(make_bundle "$rt" stderr-annot "$cfg"); add_gpu_device "$rt" stderr-annot
        bundle_edit "$rt" stderr-annot '.annotations["run.oci.hooks.stderr"] = $f' --arg f "$TMP/out/$id.hooks-stderr"
        rt_run "$rt" node1 stderr-annot "$id"
        if [ "$RC" = 0 ]; then fail "$name" "start was not refused"; rt_delete "$rt" "$id"
        elif ! grep -qF "gpu-numa-hook: container $id: refusing start:" "$TMP/out/$id.hooks-stderr" 2>/dev/null; then
            fail "$name" "file lacks our line: $(one_line <"$TMP/out/$id.hooks-stderr" 2>&1)"
        else
            evidence "$name" "$OUT
(file $TMP/out/$id.hooks-stderr:) $(cat "$TMP/out/$id.hooks-stderr")" "$(log_for "$cfg" "$id")"
            pass "$name"
        fi
    fi

    # 8/9. policy gpu-affinity refuse vs warn (affinity node 1 from a topology override)
    run_affinity_cases "$rt"

    # 10/11. chained mode
    run_chain_cases "$rt"
}

run_affinity_cases() {
    local rt=$1 id cfg line topo name
    topo=$'[[topology.gpu]]\nminor = 0\naffinity-node = 1'

    cfg=$rt-aff-refuse; write_config "$cfg" $'[policy]\ngpu-affinity = "refuse"' "$topo"
    id=$(make_bundle "$rt" aff-refuse "$cfg"); add_gpu_device "$rt" aff-refuse
    rt_run "$rt" pcie aff-refuse "$id"
    expect_refused "$rt: policy gpu-affinity=refuse, affinity node 1 absent -> refused" "$rt" "$cfg" "$id" 'affinity|node 1|nearest'

    # warn, and patch with a node this host does not have: both start and log action=warn
    local pol
    for pol in warn patch; do
        name="$rt: policy gpu-affinity=$pol, affinity node 1 not on host -> starts, log action=warn"
        cfg=$rt-aff-$pol; write_config "$cfg" "$(printf '[policy]\ngpu-affinity = "%s"' "$pol")" "$topo"
        id=$(make_bundle "$rt" "aff-$pol" "$cfg"); add_gpu_device "$rt" "aff-$pol"
        rt_run "$rt" pcie "aff-$pol" "$id"
        line=$(log_for "$cfg" "$id")
        if [ "$RC" != 0 ]; then
            fail "$name" "exit $RC: $(echo "$OUT" | one_line); log: $line"
        elif ! echo "$OUT" | grep -q container-ran; then
            fail "$name" "container did not run: $(echo "$OUT" | one_line)"
        elif [ "$(echo "$line" | grep -c .)" != 1 ] || ! echo "$line" | grep -q ' action=warn '; then
            fail "$name" "want one log line with action=warn: $(cat "$TMP/logs/$cfg.log" | one_line)"
        elif ! echo "$line" | grep -qE 'nearest to NUMA node 1|node 1'; then
            fail "$name" "warning does not name node 1: $line"
        else
            pass "$name"
        fi
    done
}

run_chain_cases() {
    local rt=$1 id cfg line name argv want_argv sid before next
    # failing next hook: the start fails with its message, our check does not run
    name="$rt: chained next hook fails -> start fails with its message, no decision logged"
    cfg=$rt-chain-fail; next=$(make_next_hook "$cfg")
    write_config "$cfg" "$(printf '[chain]\nnext-hook = "%s"\ntimeout-ms = 10000' "$next")"
    id=$(make_bundle "$rt" chain-fail "$cfg"); add_gpu_device "$rt" chain-fail
    rm -f "$TMP/chain/argv" "$TMP/chain/stdin"; touch "$TMP/chain/fail"
    rt_run "$rt" online0 chain-fail "$id"
    rm -f "$TMP/chain/fail"
    line=$(log_for "$cfg" "$id")
    if [ "$RC" = 0 ]; then
        fail "$name" "start succeeded: $(echo "$OUT" | one_line)"; rt_delete "$rt" "$id"
    elif [ ! -s "$TMP/chain/argv" ]; then
        fail "$name" "next hook did not run; output: $(echo "$OUT" | one_line)"
    elif [ "$rt" = runc ] && ! echo "$OUT" | grep -q 'next-hook stand-in: simulated NVIDIA hook failure'; then
        fail "$name" "runc output lacks the next hook's message: $(echo "$OUT" | one_line)"
    elif [ "$rt" = runc ] && ! echo "$OUT" | grep -q 'exit status 3'; then
        fail "$name" "runc output does not show the next hook's exit status 3: $(echo "$OUT" | one_line)"
    elif [ "$rt" = crun ] && ! echo "$OUT" | grep -qF "error executing hook \`$HOOK\` (exit code: 3)"; then
        fail "$name" "crun output does not show exit code 3: $(echo "$OUT" | one_line)"
    elif grep -qE ' action=(allow|patch|warn) ' "$TMP/logs/$cfg.log"; then
        fail "$name" "log has a decision for a start the next hook failed: $(one_line <"$TMP/logs/$cfg.log")"
    elif [ -s "$TMP/logs/$cfg.log" ] && grep -viE 'next hook|chain' "$TMP/logs/$cfg.log" | grep -q .; then
        fail "$name" "a log line does not say the next hook failed: $(one_line <"$TMP/logs/$cfg.log")"
    elif [ -n "$(leftover_cgroups "$CG_PARENT/$id")" ]; then
        fail "$name" "cgroup directories left:$(leftover_cgroups "$CG_PARENT/$id")"
    else
        pass "$name"
        evidence "$name" "$OUT" "$(cat "$TMP/logs/$cfg.log")"
    fi

    # hanging next hook: killed after chain.timeout-ms, the start fails quickly
    name="$rt: chained next hook hangs -> killed after chain.timeout-ms, start fails"
    cfg=$rt-chain-hang; next=$(make_next_hook "$cfg")
    write_config "$cfg" "$(printf '[chain]\nnext-hook = "%s"\ntimeout-ms = 500' "$next")"
    id=$(make_bundle "$rt" chain-hang "$cfg"); add_gpu_device "$rt" chain-hang
    rm -f "$TMP/chain/pid"; touch "$TMP/chain/hang"
    local t0=$SECONDS pid
    rt_run "$rt" online0 chain-hang "$id"
    local took=$((SECONDS - t0))
    rm -f "$TMP/chain/hang"
    pid=$(cat "$TMP/chain/pid" 2>/dev/null)
    line=$(log_for "$cfg" "$id")
    if [ "$RC" = 0 ]; then
        fail "$name" "start succeeded: $(echo "$OUT" | one_line)"; rt_delete "$rt" "$id"
    elif [ -z "$pid" ]; then
        fail "$name" "next hook did not run: $(echo "$OUT" | one_line)"
    elif [ "$took" -gt 15 ]; then
        fail "$name" "took ${took}s; the 500 ms chain timeout was not applied"
    elif kill -0 "$pid" 2>/dev/null; then
        fail "$name" "next hook (pid $pid) still alive after the start failed"; kill -9 "$pid"
    elif grep -qE ' action=(allow|patch|warn) ' "$TMP/logs/$cfg.log"; then
        fail "$name" "log has a decision for a start whose next hook hung: $(one_line <"$TMP/logs/$cfg.log")"
    elif [ -s "$TMP/logs/$cfg.log" ] && grep -viE 'next hook|chain' "$TMP/logs/$cfg.log" | grep -q .; then
        fail "$name" "a log line does not say the next hook was killed: $(one_line <"$TMP/logs/$cfg.log")"
    elif [ -n "$(leftover_cgroups "$CG_PARENT/$id")" ]; then
        fail "$name" "cgroup directories left:$(leftover_cgroups "$CG_PARENT/$id")"
    else
        pass "$name (failed after ${took}s)"
        evidence "$name" "$OUT" "$(cat "$TMP/logs/$cfg.log")"
    fi

    # succeeding next hook: it ran first, with argv [path, stage] and the state JSON; our check after.
    # The driver starts as online_in_progress (would be refused) and the next hook makes it online:
    # an allow proves our check read the driver after the next hook ran.
    name="$rt: chained next hook runs first with right argv/stdin, then our check"
    cfg=$rt-chain-ok; next=$(make_next_hook "$cfg")
    write_config "$cfg" "$(printf '[chain]\nnext-hook = "%s"\ntimeout-ms = 10000' "$next")"
    id=$(make_bundle "$rt" chain-ok "$cfg"); add_gpu_device "$rt" chain-ok
    rm -f "$TMP/chain/argv" "$TMP/chain/stdin" "$TMP/chain/loglines-at-run"; touch "$TMP/chain/make-online"
    rt_run "$rt" inprog chain-ok "$id"
    rm -f "$TMP/chain/make-online"
    line=$(log_for "$cfg" "$id")
    argv=$(cat "$TMP/chain/argv" 2>/dev/null | one_line)
    want_argv="$next prestart"
    sid=$(jq -r .id "$TMP/chain/stdin" 2>/dev/null)
    before=$(tr -d ' ' <"$TMP/chain/loglines-at-run" 2>/dev/null)
    if [ "$RC" != 0 ]; then
        fail "$name" "exit $RC: $(echo "$OUT" | one_line); log: $line"
    elif [ "$argv" != "$want_argv" ]; then
        fail "$name" "next hook argv '$argv', want '$want_argv'"
    elif [ "$sid" != "$id" ] || [ "$(jq -r .bundle "$TMP/chain/stdin")" != "$TMP/bundles/$rt-chain-ok" ]; then
        fail "$name" "next hook stdin is not the state of $id: $(one_line <"$TMP/chain/stdin")"
    elif [ "$before" != 0 ]; then
        fail "$name" "our log already had $before line(s) when the next hook ran"
    elif ! echo "$line" | grep -qE ' action=(allow|patch) .* required=0 '; then
        fail "$name" "no allow/patch decision for required node 0 logged after the next hook (did our check read the driver before it?): $(cat "$TMP/logs/$cfg.log" | one_line)"
    else
        pass "$name"
    fi
}

# ================================================================ podman (hooks.d)
podman_base() {
    CONTAINERS_CONF=${PODMAN_CONF:-$TMP/podman/containers.conf} podman --root "$TMP/podman/root" \
        --runroot "$TMP/podman/runroot" --tmpdir "$TMP/podman/tmp" --storage-driver vfs "$@"
}
write_podman_conf() { # FILE HOOKSDIR
    cat >"$1" <<EOF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
hooks_dir = ["$2"]
EOF
}
# install_hooks_json SRC DST CFG [WHEN-JSON]: the shipped hooks.d file, path -> test binary,
# args gain --config; optionally a different `when`
install_hooks_json() {
    local src=$1 dst=$2 cfg=$3 when=${4:-}
    jq --arg hook "$HOOK" --arg cfg "$TMP/cfg/$cfg.toml" --argjson when "${when:-null}" '
        .hook.path = $hook
        | .hook.args = [.hook.args[0], "--config", $cfg] + .hook.args[1:]
        | if $when != null then .when = $when else . end' "$src" >"$dst"
}
# pod_run NAME VARIANT RUNTIME [podman run options...] -- CMD: sets RC, OUT, CID
pod_run() {
    local name=$1 v=$2 prt=$3
    shift 3
    local opts=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    rm -f "$TMP/podman/cid-$name"
    OUT=$(with_driver "$v" timeout -k 5 90 env CONTAINERS_CONF="${PODMAN_CONF:-$TMP/podman/containers.conf}" \
        podman --root "$TMP/podman/root" --runroot "$TMP/podman/runroot" --tmpdir "$TMP/podman/tmp" \
        --storage-driver vfs run --rm --name "gnh-$name-$RUNID" --cidfile "$TMP/podman/cid-$name" \
        --runtime "$prt" --network none --cgroup-parent "/$CG_PARENT/pod-$RUNID" \
        "${opts[@]}" --rootfs "$TMP/rootfs-podman" "$@" </dev/null 2>&1)
    RC=$?
    CID=$(cat "$TMP/podman/cid-$name" 2>/dev/null)
}

# make_cdi_spec FILE CFG: a CDI spec (JSON form) for kind nvidia.com/gpu with device "0" (our temp
# /dev/nvidia0 node) and, in its top-level containerEdits.hooks, the shipped createRuntime hook entry
# (config/registration/oci-config-hooks.createRuntime.json) with hookName added
make_cdi_spec() {
    local example="$REG/oci-config-hooks.createRuntime.json"
    [ -f "$example" ] || example=/dev/null
    jq -n --arg node "$TMP/podman/nvidia0" --arg hook "$HOOK" --arg cfg "$TMP/cfg/$2.toml" \
        --slurpfile ex "$example" '
        ($ex[0].hooks.createRuntime[0] // {path: "/usr/bin/gpu-numa-hook", args: ["gpu-numa-hook", "createRuntime"],
                                           env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], timeout: 60}) as $h
        | {cdiVersion: "0.5.0", kind: "nvidia.com/gpu",
           devices: [{name: "0", containerEdits: {deviceNodes: [{path: "/dev/nvidia0", hostPath: $node}]}}],
           containerEdits: {hooks: [$h + {hookName: "createRuntime", path: $hook,
                                          args: ([$h.args[0], "--config", $cfg] + $h.args[1:])}]}}' >"$1"
}

run_podman_cases() {
    local name cfg line left n crt ps_out
    mkdir -p "$TMP/podman/hooks.d" "$TMP/podman/hooks-annot.d" "$TMP/podman/root" "$TMP/podman/runroot" "$TMP/podman/tmp"
    if [ ! -f "$REG/hooks.d/gpu-numa-hook.json" ]; then
        fail "podman: shipped hooks.d file" "$REG/hooks.d/gpu-numa-hook.json missing"; return
    fi
    write_podman_conf "$TMP/podman/containers.conf" "$TMP/podman/hooks.d"
    cfg=podman; write_config "$cfg"
    install_hooks_json "$REG/hooks.d/gpu-numa-hook.json" "$TMP/podman/hooks.d/gpu-numa-hook.json" "$cfg"
    mknod -m 666 "$TMP/podman/nvidia0" c 195 0

    name="podman (crun, hooks.d): non-GPU container runs, log shows fast path"
    pod_run nongpu none crun -- sh -c 'echo container-ran; grep Mems_allowed_list /proc/self/status'
    if [ -z "$CID" ]; then fail "$name" "no container id (rc $RC): $(echo "$OUT" | one_line)"
    else expect_fast_path "$name" "$cfg" "$CID"; fi

    name="podman (crun, hooks.d): --device nvidia0, node 0 online -> runs"
    pod_run gpu-ok online0 crun --device "$TMP/podman/nvidia0:/dev/nvidia0" -- \
        sh -c 'echo container-ran; grep Mems_allowed_list /proc/self/status; test -c /dev/nvidia0 && echo has-nvidia0'
    line=$(log_for "$cfg" "$CID")
    if [ "$RC" != 0 ]; then fail "$name" "exit $RC: $(echo "$OUT" | one_line); log: $line"
    elif ! echo "$OUT" | grep -q has-nvidia0; then fail "$name" "no /dev/nvidia0 in the container: $(echo "$OUT" | one_line)"
    elif ! nodelist_has "$(echo "$OUT" | sed -n 's/^Mems_allowed_list:[[:space:]]*//p')" 0; then fail "$name" "Mems_allowed_list lacks node 0: $(echo "$OUT" | one_line)"
    elif ! echo "$line" | grep -qE ' action=(allow|patch) '; then fail "$name" "log has no allow/patch for $CID: $(cat "$TMP/logs/$cfg.log" | one_line)"
    elif ! echo "$line" | log_field gpus | grep -qE "nvidia0|$GPU_BUS"; then fail "$name" "log gpus does not name the GPU: $line"
    else pass "$name"; fi

    for crt in crun runc; do
        command -v "$crt" >/dev/null 2>&1 || continue
        name="podman ($crt, hooks.d): --device nvidia0, memory node 1 not online -> refused, nothing left"
        pod_run "gpu-refuse-$crt" node1 "$crt" --device "$TMP/podman/nvidia0:/dev/nvidia0" -- sh -c 'echo container-ran'
        line=$(log_for "$cfg" "$CID")
        left=""
        [ -n "$CID" ] && left=$(leftover_cgroups "$CG_PARENT/pod-$RUNID/libpod-$CID")
        if [ "$RC" = 0 ] || echo "$OUT" | grep -q container-ran; then fail "$name" "start was not refused (rc $RC): $(echo "$OUT" | one_line)"
        elif [ -z "$CID" ]; then fail "$name" "container was never created (rc $RC): $(echo "$OUT" | one_line)"
        elif [ "$crt" = crun ] && ! echo "$OUT" | grep -qF "error executing hook \`$HOOK\` (exit code: 1)"; then fail "$name" "not crun's generic hook error: $(echo "$OUT" | one_line)"
        elif [ "$crt" = runc ] && ! echo "$OUT" | grep -qF "gpu-numa-hook: container $CID: refusing start:"; then fail "$name" "runc output under podman lacks our line: $(echo "$OUT" | one_line)"
        elif ! echo "$line" | grep -q ' action=refuse '; then fail "$name" "log has no action=refuse for $CID: $(cat "$TMP/logs/$cfg.log" | one_line)"
        elif [ -n "$left" ]; then fail "$name" "container cgroup left:$left"
        elif ! ps_out=$(podman_base ps -a -q --filter "name=gnh-gpu-refuse-$crt-$RUNID" 2>&1) || [ -n "$ps_out" ]; then
            fail "$name" "container left behind (run --rm): podman ps -a: $ps_out"
        else
            pass "$name"
            evidence "$name" "$OUT" "$line"
        fi
        # in case the check above failed: remove the container
        podman_base rm -f "gnh-gpu-refuse-$crt-$RUNID" >/dev/null 2>&1
    done

    # CDI: the hook comes from the CDI spec's top-level containerEdits.hooks (createRuntime), the
    # GPU from `--device nvidia.com/gpu=0`; no hooks.d file is active for these runs
    mkdir -p "$TMP/podman/hooks-empty.d"
    PODMAN_CONF=$TMP/podman/containers-cdi.conf
    write_podman_conf "$PODMAN_CONF" "$TMP/podman/hooks-empty.d"
    cfg=podman-cdi; write_config "$cfg"
    make_cdi_spec "$TMP/podman/gnh-test-nvidia.json" "$cfg"
    export GNH_CDI_SPEC=$TMP/podman/gnh-test-nvidia.json
    name="podman (crun, CDI): --device nvidia.com/gpu=0, hook in the CDI spec, node 0 online -> runs"
    pod_run cdi-ok online0 crun --device nvidia.com/gpu=0 -- \
        sh -c 'echo container-ran; grep Mems_allowed_list /proc/self/status; test -c /dev/nvidia0 && echo has-nvidia0'
    line=$(log_for "$cfg" "$CID")
    if [ "$RC" != 0 ]; then fail "$name" "exit $RC: $(echo "$OUT" | one_line); log: $line"
    elif ! echo "$OUT" | grep -q has-nvidia0; then fail "$name" "no /dev/nvidia0 in the container: $(echo "$OUT" | one_line)"
    elif ! echo "$line" | grep -qE ' stage=createRuntime action=(allow|patch) '; then fail "$name" "log has no createRuntime allow/patch for $CID: $(one_line <"$TMP/logs/$cfg.log")"
    elif ! echo "$line" | log_field gpus | grep -qE "nvidia0|$GPU_BUS"; then fail "$name" "log gpus does not name the GPU: $line"
    else pass "$name"; fi

    name="podman (crun, CDI): --device nvidia.com/gpu=0, memory node 1 not online -> refused"
    pod_run cdi-refuse node1 crun --device nvidia.com/gpu=0 -- sh -c 'echo container-ran'
    line=$(log_for "$cfg" "$CID")
    if [ "$RC" = 0 ] || echo "$OUT" | grep -q container-ran; then fail "$name" "start was not refused (rc $RC): $(echo "$OUT" | one_line)"
    elif ! echo "$OUT" | grep -qF "error executing hook \`$HOOK\` (exit code: 1)"; then fail "$name" "not crun's generic hook error: $(echo "$OUT" | one_line)"
    elif ! echo "$line" | grep -qE ' stage=createRuntime action=refuse '; then fail "$name" "log has no createRuntime refusal for $CID: $(one_line <"$TMP/logs/$cfg.log")"
    else pass "$name"; evidence "$name" "$OUT" "$line"; fi
    podman_base rm -f "gnh-cdi-refuse-$RUNID" >/dev/null 2>&1

    # CDI devices with the hook from hooks.d, as install registers it for podman: the CDI spec is
    # NVIDIA's layout (nvidia-ctk cdi generate), cut to its device nodes and env: GPU 0's node, the
    # control and modeset nodes (195:255, 195:254) every GPU device carries, NVIDIA_VISIBLE_DEVICES=void.
    # The hook must count GPU 0 alone: modeset names no GPU.
    mknod -m 666 "$TMP/podman/nvidiactl" c 195 255
    mknod -m 666 "$TMP/podman/nvidia-modeset" c 195 254
    jq -n --arg d "$TMP/podman" '{cdiVersion: "0.5.0", kind: "nvidia.com/gpu",
        devices: [{name: "0", containerEdits: {deviceNodes: [{path: "/dev/nvidia0", hostPath: ($d + "/nvidia0")}]}}],
        containerEdits: {env: ["NVIDIA_VISIBLE_DEVICES=void"],
                         deviceNodes: [{path: "/dev/nvidiactl", hostPath: ($d + "/nvidiactl")},
                                       {path: "/dev/nvidia-modeset", hostPath: ($d + "/nvidia-modeset")}]}}' \
        >"$TMP/podman/gnh-test-nvidia-plain.json"
    export GNH_CDI_SPEC=$TMP/podman/gnh-test-nvidia-plain.json
    PODMAN_CONF=$TMP/podman/containers.conf
    cfg=podman; : >"$TMP/logs/$cfg.log"
    name="podman (crun, hooks.d): --device nvidia.com/gpu=0 from NVIDIA's CDI layout -> GPU 0 alone (not modeset), node 0 online -> runs"
    pod_run cdi-hooksd online0 crun --device nvidia.com/gpu=0 -- \
        sh -c 'echo container-ran; test -c /dev/nvidia0 && test -c /dev/nvidia-modeset && echo has-nodes'
    line=$(log_for "$cfg" "$CID")
    if [ "$RC" != 0 ]; then fail "$name" "exit $RC: $(echo "$OUT" | one_line); log: $line"
    elif ! echo "$OUT" | grep -q has-nodes; then fail "$name" "the CDI nodes are not in the container: $(echo "$OUT" | one_line)"
    elif ! echo "$line" | grep -qE ' action=(allow|patch) '; then fail "$name" "log has no allow/patch for $CID: $(one_line <"$TMP/logs/$cfg.log")"
    elif [ "$(echo "$line" | log_field gpus)" != "/dev/nvidia0($GPU_BUS)" ]; then fail "$name" "log gpus is not GPU 0 alone: $line"
    elif echo "$line" | grep -q unresolved; then fail "$name" "a node was taken for an unknown GPU: $line"
    else pass "$name"; evidence "$name" "$OUT" "$line"; fi
    unset GNH_CDI_SPEC PODMAN_CONF

    # when.annotations: the hook runs only for containers carrying the annotation
    name="podman (crun, hooks.d): when.annotations runs the hook only for annotated containers"
    PODMAN_CONF=$TMP/podman/containers-annot.conf
    write_podman_conf "$PODMAN_CONF" "$TMP/podman/hooks-annot.d"
    cfg=podman-annot; write_config "$cfg"
    install_hooks_json "$REG/hooks.d/gpu-numa-hook.json" "$TMP/podman/hooks-annot.d/gpu-numa-hook.json" "$cfg" \
        '{"annotations": {"^com\\.example\\.gpu$": "^true$"}}'
    pod_run annot-no none crun -- sh -c 'echo container-ran'
    local rc1=$RC cid1=$CID out1=$OUT
    pod_run annot-yes none crun --annotation com.example.gpu=true -- sh -c 'echo container-ran'
    local rc2=$RC cid2=$CID
    unset PODMAN_CONF
    n=$(grep -c . "$TMP/logs/$cfg.log")
    if [ "$rc1" != 0 ] || [ "$rc2" != 0 ]; then fail "$name" "runs failed: rc $rc1/$rc2: $(echo "$out1 $OUT" | one_line)"
    elif [ "$n" != 1 ]; then fail "$name" "want exactly 1 log line, got $n: $(cat "$TMP/logs/$cfg.log" | one_line)"
    elif [ -z "$(log_for "$cfg" "$cid2")" ] || [ -n "$(log_for "$cfg" "$cid1")" ]; then fail "$name" "log line is for the wrong container: $(cat "$TMP/logs/$cfg.log" | one_line)"
    else pass "$name"; fi
}

# ================================================================ static checks of the shipped files
run_static_cases() {
    local name f bad=""
    name="registration: shipped JSON files parse and hooks.d file is oci-hooks 1.0.0 with minimal env"
    for f in "$REG"/hooks.d/*.json "$REG"/*.json; do
        [ -f "$f" ] || continue
        jq -e . "$f" >/dev/null 2>&1 || bad="$bad $f"
    done
    if [ -n "$bad" ]; then fail "$name" "invalid JSON:$bad"
    elif ! jq -e '.version == "1.0.0" and .hook.args[1] == "prestart" and .stages == ["prestart"]
                 and .when.always == true and .hook.env == ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]' \
            "$REG/hooks.d/gpu-numa-hook.json" >/dev/null 2>&1; then
        fail "$name" "hooks.d/gpu-numa-hook.json does not have the expected fields"
    else pass "$name"; fi
    name="registration: shipped TOML files parse"
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import tomllib' 2>/dev/null; then
        # a syntax aid only (podman and the hook parse what matters at run time): never a CI failure
        echo "SKIP: ***** $name: python3 with tomllib is missing *****"
        SKIPPED=$((SKIPPED + 1))
        return
    fi
    bad=""
    for f in "$REG"/*.toml "$REG"/*/*.conf; do
        [ -f "$f" ] || continue
        python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))' "$f" 2>/dev/null || bad="$bad $f"
    done
    if [ -n "$bad" ]; then fail "$name" "invalid TOML:$bad"; else pass "$name"; fi
}

# ================================================================ main
run_static_cases

# sanity: the fake driver is visible to a process the runtime would start
if ! with_driver online0 cat "/proc/driver/nvidia/gpus/$GPU_BUS/numa_status" 2>/dev/null | grep -q '^Status: *online$'; then
    fail "setup: fake driver over /proc/driver" "cannot mount a tmpfs over /proc/driver in a private mount namespace"
    finish
fi

if [ "$have_runc" = 1 ]; then run_oci_cases runc; else skip "runc cases" "runc is not installed"; fi

if [ "$have_crun" = 1 ] || [ "$have_podman" = 1 ]; then
    if ! hybrid_workaround; then
        fail "crun/podman: hybrid cgroup workaround" "cannot mount the cgroup2 controllers as v1"
    fi
fi
if [ "$have_crun" = 1 ]; then run_oci_cases crun; else skip "crun cases" "crun is not installed"; fi
if [ "$have_podman" = 1 ] && [ "$have_crun" = 1 ]; then run_podman_cases
elif [ "$have_podman" = 1 ]; then skip "podman cases" "crun (podman's runtime here) is not installed"
else skip "podman cases" "podman is not installed"; fi

# GNH_RT_EVIDENCE=FILE: what the user saw and what the log said for each refused start (docs/runtimes.md)
[ -n "${GNH_RT_EVIDENCE:-}" ] && cp "$TMP/evidence.txt" "$GNH_RT_EVIDENCE"

finish

