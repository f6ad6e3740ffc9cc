#!/bin/bash
# Instruction counts (valgrind's callgrind, "Ir": instructions executed, user space, the whole
# process from exec to exit) of the hook's three paths on the benchmark's ac922 fixture, and of
# `check` on 10,000 cgroups. Repeatable to a few hundred instructions on a noisy machine: the
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
if [ "$CHECK_CGROUPS" -gt 0 ]; then
    "$MKFX" ac922 ok "$WORK/many" "$REPO/config/config.toml" --cgroups "$CHECK_CGROUPS" >/dev/null
    count "check $CHECK_CGROUPS cgroups" /dev/null "$HOOK" --host-root "$WORK/many/root" check
fi
