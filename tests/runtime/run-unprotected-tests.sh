#!/bin/bash
# `status` and `check --prometheus` judge what really runs: real runc starts a GPU container
# (linux.devices /dev/nvidia0, c 195:0) WITHOUT our hook, one WITH it (our real binary at prestart)
# and one without a GPU. status must exit 1 naming only the unhooked GPU container and the gauge
# gpu_numa_hook_unprotected_gpu_containers must be 1; once that container is deleted, status is
# protected again and the gauge 0.
#
# The node status reads is a host tree (--host-root) with a protected node's files (Docker's default
# runtime registered, the binaries it names, the check timer) whose /proc and /sys are this
# machine's (bind mounts in a private mount namespace, /proc/driver a fake NVIDIA driver tree as in
# run-runtime-tests.sh): runc's state root is inside the tree, its containers and cgroups are real.
#
# Usage: tests/runtime/run-unprotected-tests.sh [HOOK_BINARY]   (default: <repo>/build/gpu-numa-hook)
# Needs: root, runc, jq, a static busybox, unshare. Output: PASS/FAIL lines, then `N passed, M failed`.
set -u
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
HOOK=${1:-$REPO/build/gpu-numa-hook}
TALLY_NAME="unprotected-container tests"
# shellcheck source-path=SCRIPTDIR source=../support/tally.sh
. "$SCRIPT_DIR/../support/tally.sh"

if [ -z "${GNH_UNPROT_IN_NS:-}" ]; then
    if [ "$(id -u)" != 0 ]; then skip "unprotected-container tests" "not root (real runc and cgroups need root)"; finish; fi
    for tool in runc jq unshare mount umount busybox; do
        command -v "$tool" >/dev/null 2>&1 || { skip "unprotected-container tests" "'$tool' is missing (apt-get install runc jq util-linux busybox-static)"; finish; }
    done
    LC_ALL=C ldd "$(command -v busybox)" 2>&1 | grep -q 'not a dynamic' ||
        { skip "unprotected-container tests" "busybox is not static (apt-get install busybox-static)"; finish; }
    [ -x "$HOOK" ] || { fail "hook binary" "$HOOK is missing (build it first)"; finish; }
    # Everything below in a private mount namespace: its bind mounts end with it.
    exec unshare -m --propagation private env GNH_UNPROT_IN_NS=1 bash "${BASH_SOURCE[0]}" "$(cd "$(dirname "$HOOK")" && pwd)/$(basename "$HOOK")"
fi

TMP=$(mktemp -d /tmp/gnh-unprot.XXXXXX) || { fail "setup" "mktemp failed"; finish; }
chmod 755 "$TMP"
RUNID=$(basename "$TMP" | sed 's/^gnh-unprot\.//' | tr 'A-Z' 'a-z')
H=$TMP/host
CG_PARENT=gnh-test

cleanup() {
    local id m d
    trap - EXIT INT TERM HUP
    for id in $(runc --root "$H/run/runc" list -q 2>/dev/null); do runc --root "$H/run/runc" delete -f "$id" >/dev/null 2>&1; done
    # runc delete removes its cgroups; what a failed start left, in every hierarchy (outside the tree)
    for m in $(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup" || $(i+1) == "cgroup2") print $5; break } }' \
            /proc/self/mountinfo | grep -v "^$TMP"); do
        for d in "$m/$CG_PARENT"/*"$RUNID"*; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
        rmdir "$m/$CG_PARENT" 2>/dev/null
    done
    umount -R "$H$H/b" "$H/proc" "$H/sys" 2>/dev/null || umount -R -l "$H$H/b" "$H/proc" "$H/sys" 2>/dev/null
    if grep -q " $TMP" /proc/self/mountinfo; then echo "WARNING: mounts left under $TMP; not removing it" >&2
    else rm -rf --one-file-system "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ------------------------------------------------------------ the host tree
GPU_BUS=""
for b in 0000:00:06.0 0000:00:07.0 0000:fe:1f.7; do [ -e "/sys/bus/pci/devices/$b" ] || { GPU_BUS=$b; break; }; done
# A PCIe GPU as driver 580 shows it (no numa_status): the hook allows its containers.
mount -t tmpfs -o size=1m gnh-fake-driver /proc/driver || { fail "setup" "cannot mount a tmpfs over /proc/driver"; finish; }
mkdir -p "/proc/driver/nvidia/gpus/$GPU_BUS"
printf 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-f0586c67-b718-ef40-6571-4caeff0ab99c\nBus Location: \t %s\nDevice Minor: \t 0\nGPU Excluded:\t No\n' \
    "$GPU_BUS" >"/proc/driver/nvidia/gpus/$GPU_BUS/information"
mkdir -p "$H"/{proc,sys,b,run/runc,usr/bin,usr/sbin,etc/docker,usr/lib/systemd/system,etc/systemd/system/timers.target.wants} "$H$H/b"
mount --rbind /proc "$H/proc" && mount --rbind /sys "$H/sys" || { fail "setup" "cannot bind /proc and /sys into the host tree"; finish; }
# runc records the bundle by its path here ($H/b/...); status reads that path beneath the tree.
mount --bind "$H/b" "$H$H/b" || { fail "setup" "cannot bind the bundles"; finish; }
for f in usr/bin/gpu-numa-hook usr/bin/gpu-numa-runtime usr/sbin/runc; do printf '#!/bin/sh\nexit 0\n' >"$H/$f"; chmod 755 "$H/$f"; done
echo '{"default-runtime": "gpu-numa", "runtimes": {"gpu-numa": {"path": "/usr/bin/gpu-numa-runtime"}}}' >"$H/etc/docker/daemon.json"
printf '[Timer]\n' >"$H/usr/lib/systemd/system/gpu-numa-hook-check.timer"
ln -s /lib/systemd/system/gpu-numa-hook-check.timer "$H/etc/systemd/system/timers.target.wants/gpu-numa-hook-check.timer"
printf '[log]\nfile = "%s"\nlevel = "info"\nformat = "text"\n\n[lock]\npath = "%s"\n' "$TMP/hook.log" "$TMP/hook.lock" >"$TMP/hook.toml"

mkdir -p "$TMP"/rootfs/{bin,proc,dev,sys,etc,tmp}
cp "$(command -v busybox)" "$TMP/rootfs/bin/busybox"
for a in sh sleep; do ln -s busybox "$TMP/rootfs/bin/$a"; done

# make_bundle NAME GPU(0|1) HOOK(0|1): a sleeping container; prints its id
make_bundle() {
    local name=$1 gpu=$2 hook=$3 id="$1-$RUNID" b="$H/b/$1"
    mkdir -p "$b"
    runc spec --bundle "$b" || return 1
    jq --arg root "$TMP/rootfs" --arg cg "/$CG_PARENT/$id" --arg hook "$HOOK" --arg cfg "$TMP/hook.toml" \
        --argjson gpu "$gpu" --argjson withhook "$hook" '
        .process.terminal = false | .process.args = ["sleep", "300"]
        | .root = {path: $root, readonly: true} | .linux.cgroupsPath = $cg
        | if $gpu == 1 then
            .linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0, fileMode: 438, uid: 0, gid: 0}]
            | .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rwm"}]
          else . end
        | if $withhook == 1 then
            .hooks = {prestart: [{path: $hook, args: ["gpu-numa-hook", "--config", $cfg, "prestart"], timeout: 60}]}
          else del(.hooks) end' "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
    echo "$id"
}
start() { # NAME ID
    runc --root "$H/run/runc" run -d --bundle "$H/b/$1" "$2" </dev/null >"$TMP/$2.out" 2>"$TMP/$2.err" ||
        { fail "start $1" "runc: $(one_line <"$TMP/$2.err")"; return 1; }
}

UNHOOKED=$(make_bundle gpu-unhooked 1 0) && HOOKED=$(make_bundle gpu-hooked 1 1) && PLAIN=$(make_bundle plain 0 0) ||
    { fail "setup" "runc spec failed"; finish; }
start gpu-unhooked "$UNHOOKED" && start gpu-hooked "$HOOKED" && start plain "$PLAIN" || finish
if ! grep -q "container=$HOOKED " "$TMP/hook.log" 2>/dev/null; then
    fail "setup: our hook ran for the hooked container" "no log line for $HOOKED: $(one_line <"$TMP/hook.log" 2>/dev/null)"
fi

gauge() { # the gauge's value in check's textfile, "(absent)" when not written
    "$HOOK" --host-root "$H" check --prometheus "$TMP/metrics.prom" >"$TMP/check.out" 2>&1
    sed -n 's/^gpu_numa_hook_unprotected_gpu_containers \(.*\)$/\1/p' "$TMP/metrics.prom" | grep . || echo "(absent)"
}

# ------------------------------------------------------------ with the unhooked GPU container running
OUT=$("$HOOK" --host-root "$H" status 2>&1); RC=$?
name="status: a running GPU container without the hook makes the node not protected, named alone"
lines=$(grep -c '^not protected: ' <<<"$OUT")
if [ "$RC" != 1 ]; then fail "$name" "exit $RC, want 1: $(one_line <<<"$OUT")"
elif [ "$lines" != 1 ]; then fail "$name" "$lines not-protected lines, want 1: $(grep '^not protected: ' <<<"$OUT" | one_line)"
elif ! grep -q "^not protected: GPU container running without gpu-numa-hook: container $UNHOOKED, runc (/run/runc), GPU from linux.devices; " <<<"$OUT"; then
    fail "$name" "no line naming $UNHOOKED: $(one_line <<<"$OUT")"
elif grep -q -e "$HOOKED" -e "$PLAIN" <<<"$OUT"; then fail "$name" "names the hooked or the non-GPU container: $(one_line <<<"$OUT")"
else pass "$name"; fi
name="status: counts the three running containers"
if grep -q '^containers: 3 running, 1 GPU container(s) without the hook$' <<<"$OUT"; then pass "$name"
else fail "$name" "$(grep '^containers' <<<"$OUT" | one_line)"; fi
name="check --prometheus: gpu_numa_hook_unprotected_gpu_containers 1"
v=$(gauge)
if [ "$v" = 1 ] && grep -q '^# HELP gpu_numa_hook_unprotected_gpu_containers ' "$TMP/metrics.prom"; then pass "$name"
else fail "$name" "gauge $v; check said: $(one_line <"$TMP/check.out")"; fi

# ------------------------------------------------------------ after deleting it
runc --root "$H/run/runc" delete -f "$UNHOOKED" >/dev/null 2>&1
OUT=$("$HOOK" --host-root "$H" status 2>&1); RC=$?
name="status: protected again once the unhooked container is deleted"
if [ "$RC" = 0 ] && grep -q '^gpu-numa-hook status: protected$' <<<"$OUT" &&
    grep -q '^containers: 2 running, every GPU container with the hook$' <<<"$OUT"; then pass "$name"
else fail "$name" "exit $RC: $(one_line <<<"$OUT")"; fi
name="check --prometheus: gpu_numa_hook_unprotected_gpu_containers 0 after the delete"
v=$(gauge)
if [ "$v" = 0 ]; then pass "$name"; else fail "$name" "gauge $v; check said: $(one_line <"$TMP/check.out")"; fi

finish
