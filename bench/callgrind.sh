#!/bin/bash
# Instruction counts (valgrind's callgrind, "Ir": instructions executed, user space, the whole
# process from exec to exit) of the hook's three paths on the benchmark's ac922 fixture, of one
# GPU's start whole, in MIG state (also given its instance's capability node) and re-partitioned (gh
# fixtures), and of `check` on 10,000 cgroups. Repeatable to a few hundred instructions on a noisy machine: the
# number to compare between commits when a timing cannot tell (docs/internals/benchmarks.md).
#
# Usage (root, from anywhere):   bash bench/callgrind.sh [BUILD_DIR]
#   BUILD_DIR defaults to <repo>/build-bench (Release, configured and built as run-bench.sh does).
# Env: HOOK=FILE counts another build of gpu-numa-hook; CHECK_CGROUPS (10000; 0 leaves check out).
# Needs: valgrind.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
BUILD=${1:-$REPO/build-bench}
CHECK_CGROUPS=${CHECK_CGROUPS:-10000}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" -j"$(nproc)" --target gpu-numa-hook make_fixture >&2
HOOK=${HOOK:-$BUILD/gpu-numa-hook}
MKFX=$BUILD/bench/make_fixture
WORK=$(mktemp -d /tmp/gnh-callgrind.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$MKFX" ac922 ok "$WORK/ok" "$REPO/config/config.toml" >/dev/null
"$MKFX" ac922 stale "$WORK/stale" "$REPO/config/config.toml" >/dev/null

# count NAME STDIN ARGS...: prints "NAME<TAB>Ir" (the program must exit 0)
count() {
    local name=$1 in=$2
    shift 2
    local cg=$WORK/cg.out
    valgrind --tool=callgrind --callgrind-out-file="$cg" --trace-children=no "$@" <"$in" >/dev/null 2>"$WORK/vg.err" ||
        { echo "callgrind.sh: $name exited non-zero:" >&2; tail -n 20 "$WORK/vg.err" >&2; exit 1; }
    printf '%s\t%s\n' "$name" "$(awk '/^summary:/ { print $2 }' "$cg")"
}

echo "hook: $HOOK ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
printf 'path\tinstructions (Ir)\n'
count "fast path" "$WORK/ok/state-nogpu.json" "$HOOK" --host-root "$WORK/ok/root" prestart
count "check path" "$WORK/ok/state-gpu.json" "$HOOK" --host-root "$WORK/ok/root" prestart
count "patch path" "$WORK/stale/state-gpu.json" "$HOOK" --host-root "$WORK/stale/root" prestart
grep -q 'action=patch' "$WORK/stale/root/var/log/gpu-numa-hook.log" 2>/dev/null ||
    grep -rqs 'action=patch' "$WORK/stale/root/var/log/" || echo "callgrind.sh: warning: the patch run did not log action=patch" >&2
# One GPU of a Grace-Hopper-like node, the same container three times: the GPU whole; in MIG state
# with a current NVML cache (its instance's node from the cache, the driver's MIG folders compared);
# re-partitioned since (no topology --follow runs, so nothing is asked or waited for). Each run's
# log line is checked for the path it took.
"$MKFX" gh ok "$WORK/gh" "$REPO/config/config.toml" >/dev/null
"$MKFX" gh-mig ok "$WORK/mig" "$REPO/config/config.toml" >/dev/null
last_line() { grep -h 'container=bench-gpu-last ' "$1"/root/var/log/*.log 2>/dev/null | tail -n1; }
path_taken() { # DIR PATTERN WHAT
    grep -q -- "$2" <<<"$(last_line "$1")" || { echo "callgrind.sh: the $3 run did not take its path: $(last_line "$1")" >&2; exit 1; }
}
count "one GPU, not MIG" "$WORK/gh/state-gpu-last.json" "$HOOK" --host-root "$WORK/gh/root" prestart
path_taken "$WORK/gh" "action=allow gpus=/dev/nvidia7(0041:01:00.0) required=64 " "one GPU"
count "one MIG GPU, cache current" "$WORK/mig/state-gpu-last.json" "$HOOK" --host-root "$WORK/mig/root" prestart
path_taken "$WORK/mig" "action=allow gpus=/dev/nvidia7(0041:01:00.0) required=64 " "MIG, cache current"
# The same GPU as a runtime's CDI edits give a MIG device: with its GPU instance's capability node
# (the driver's gi1/access names minor 16), whose instance is then read from the access files.
B=$(jq -r .bundle "$WORK/mig/state-gpu-last.json")   # a path on the host, under the fixture's root
cp -r "$WORK/mig/root$B" "$WORK/mig/root$B-caps"
jq -c '.linux.devices += [{"path": "/dev/nvidia-caps/nvidia-cap16", "type": "c", "major": 241, "minor": 16}]' \
    "$WORK/mig/root$B/config.json" >"$WORK/mig/root$B-caps/config.json"
jq --arg b "$B-caps" '.bundle = $b' "$WORK/mig/state-gpu-last.json" >"$WORK/mig/state-gpu-caps.json"
count "one MIG GPU, cache current, capability node" "$WORK/mig/state-gpu-caps.json" "$HOOK" --host-root "$WORK/mig/root" prestart
path_taken "$WORK/mig" "action=allow gpus=/dev/nvidia7(0041:01:00.0) required=64 " "MIG by capability node"
mv "$WORK/mig/root/proc/driver/nvidia/capabilities/gpu7/mig/gi1" "$WORK/mig/root/proc/driver/nvidia/capabilities/gpu7/mig/gi2"
count "one MIG GPU, re-partitioned" "$WORK/mig/state-gpu-last.json" "$HOOK" --host-root "$WORK/mig/root" prestart
path_taken "$WORK/mig" "required=- .*was re-partitioned since the NVML cache was written" "MIG, re-partitioned"
if [ "$CHECK_CGROUPS" -gt 0 ]; then
    "$MKFX" ac922 ok "$WORK/many" "$REPO/config/config.toml" --cgroups "$CHECK_CGROUPS" >/dev/null
    count "check $CHECK_CGROUPS cgroups" /dev/null "$HOOK" --host-root "$WORK/many/root" check
fi
