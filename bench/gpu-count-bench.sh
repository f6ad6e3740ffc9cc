#!/bin/bash
# The check path as nodes grow: Grace-Hopper-like host trees (make_fixture gh:N, the driver's real
# file formats) of 1, 8, 16 and 64 GPUs, a container asking for all N and one asking for the last
# GPU only (a pod's usual share of a large node), the hook timed by hook_bench in one interleaved
# run, with and without the GPU identity cache (`topology --refresh`, as the boot service writes
# it). Target: 64 GPUs with the cache at most 1.5x one GPU with the cache. Not a test.
#
#   bench/gpu-count-bench.sh prepare BUILD_DIR WORK   make the trees and the plan in WORK (an absolute
#                                                     path that the timing machine will have too)
#   bench/gpu-count-bench.sh time WORK [ROUNDS]       verify, then time (WORK/table.md, WORK/raw.tsv)
#
# prepare verifies each row's path: the log line names all N GPUs, and under strace the cached rows
# open no information file of the driver while the uncached ones open N. `time` writes the caches
# again on the machine it runs on (a GPU host's quiet cores: the GPU itself is not used), proves
# each current, and checks the log lines again.
set -euo pipefail
say() { echo "gpu-count-bench: $*" >&2; }
die() { say "error: $*"; exit 2; }
COUNTS="1 8 16 64"
T=$'\t'

# verify_row TREE STATE N FIRST: one run; its log line must allow N GPUs, FIRST (/dev/nvidiaK) first
verify_row() {
    local tree=$1 state=$2 n=$3 first=$4 line
    "$WORK/gpu-numa-hook" --host-root "$tree/root" prestart <"$tree/$state" >/dev/null 2>"$WORK/verify.err" ||
        die "$tree: exit $?: $(cat "$WORK/verify.err")"
    line=$(tail -n 1 "$tree/root/var/log/gpu-numa-hook.log")
    grep -q "action=allow gpus=$first(" <<<"$line" || die "$tree $state: not the check path from $first: ${line:0:300}"
    [ "$(grep -o '/dev/nvidia[0-9]*(' <<<"$line" | wc -l)" = "$n" ] || die "$tree $state: the line does not name $n GPUs: ${line:0:300}"
}

# refresh_cache TREE N: the identity cache written for the tree as it is on this machine, and proven
# current: N records, each binding the inode of the driver's link to its GPU here, as the hook
# lists it (d_ino). A cache copied from another machine (the trees travel as a tarball) names
# inodes that no longer exist, and every "cache" row would time the driver's files instead.
refresh_cache() {
    local tree=$1 n=$2 cache=$1/root/run/gpu-numa-hook/gpu-identities
    # its NVML part fails here (no driver library), after the cache is written
    "$WORK/gpu-numa-hook" --host-root "$tree/root" topology --refresh >/dev/null 2>&1 || true
    [ -s "$cache" ] || die "$tree: topology --refresh wrote no identity cache"
    python3 - "$cache" "$tree/root/sys/bus/pci/drivers/nvidia" "$n" <<'PY' || die "$tree: the identity cache is not current"
import os, sys
cache, links, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
bound = {e.name: e.inode() for e in os.scandir(links)}
records = [l.split(" ") for l in open(cache) if l.startswith("gpu ")]
stale = [r[1] for r in records if bound.get(r[1]) != int(r[2])]
if len(records) != n or stale:
    sys.exit(f"{len(records)} records for {n} GPUs; bindings not current: {stale[:3]}")
PY
}

# verify_tree TREE N: both containers of an N-GPU tree
verify_tree() {
    verify_row "$1" state-gpu.json "$2" /dev/nvidia0
    verify_row "$1" state-gpu-last.json 1 "/dev/nvidia$(($2 - 1))"
}

case ${1:-} in
prepare)
    [ $# = 3 ] || die "usage: bench/gpu-count-bench.sh prepare BUILD_DIR WORK"
    BUILD=$(cd "$2" && pwd) WORK=$3
    REPO=$(cd "$(dirname "$0")/.." && pwd)
    [ -x "$BUILD/bench/make_fixture" ] && [ -x "$BUILD/gpu-numa-hook" ] || die "build make_fixture and gpu-numa-hook in $BUILD first"
    command -v strace >/dev/null || die "strace is needed to verify the cached rows' path"
    rm -rf "$WORK" && mkdir -p "$WORK"
    cp "$BUILD/gpu-numa-hook" "$WORK/gpu-numa-hook"
    : >"$WORK/plan.tsv"
    for n in $COUNTS; do
        for cache in nocache cache; do
            tree=$WORK/gh$n-$cache
            "$BUILD/bench/make_fixture" "gh:$n" ok "$tree" "$REPO/config/config.toml" >/dev/null
            if [ $cache = cache ]; then
                mkdir -p "$tree/root/proc/sys/kernel/random"
                echo 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10 >"$tree/root/proc/sys/kernel/random/boot_id"
                refresh_cache "$tree" "$n"
            fi
            verify_tree "$tree" "$n"
            opened=$(strace -f -e trace=openat,openat2 -o /dev/stdout "$WORK/gpu-numa-hook" --host-root "$tree/root" prestart \
                <"$tree/state-gpu.json" 2>/dev/null | grep -c '[0-9a-f]:[0-9a-f.]*/information"' || true)
            want=$n; [ $cache = cache ] && want=0
            [ "$opened" = "$want" ] || die "gh:$n $cache: opened $opened information files, not $want"
            say "gh:$n $cache: verified, $opened information files opened"
            echo "variant${T}$n GPUs, $cache${T}$tree/state-gpu.json${T}-${T}$WORK/gpu-numa-hook${T}--host-root${T}$tree/root${T}prestart" >>"$WORK/plan.tsv"
            echo "variant${T}$n GPUs, the last asked, $cache${T}$tree/state-gpu-last.json${T}-${T}$WORK/gpu-numa-hook${T}--host-root${T}$tree/root${T}prestart" >>"$WORK/plan.tsv"
        done
    done
    for n in $COUNTS; do
        echo "cmp${T}$n GPUs, cache${T}1 GPUs, cache${T}1.5${T}$n GPUs against one, all asked, with the identity cache (target at 64: 1.5x)" >>"$WORK/plan.tsv"
        echo "cmp${T}$n GPUs, the last asked, cache${T}1 GPUs, cache${T}1.5${T}one GPU asked on $n against one on one, with the identity cache (target at 64: 1.5x)" >>"$WORK/plan.tsv"
        echo "cmp${T}$n GPUs, the last asked, nocache${T}1 GPUs, nocache${T}99${T}(info) one GPU asked on $n against one on one, without the cache" >>"$WORK/plan.tsv"
        echo "cmp${T}$n GPUs, nocache${T}1 GPUs, nocache${T}99${T}(info) $n GPUs against one, without the cache" >>"$WORK/plan.tsv"
        echo "cmp${T}$n GPUs, cache${T}$n GPUs, nocache${T}1${T}(info) $n GPUs: with the cache against without" >>"$WORK/plan.tsv"
    done
    say "prepared $WORK"
    ;;
time)
    [ $# -ge 2 ] || die "usage: bench/gpu-count-bench.sh time WORK [ROUNDS] [HOOK_BENCH]"
    WORK=$2 ROUNDS=${3:-300} BENCH=${4:-hook_bench}
    for n in $COUNTS; do
        refresh_cache "$WORK/gh$n-cache" "$n"
        for cache in nocache cache; do verify_tree "$WORK/gh$n-$cache" "$n"; done
    done
    say "verified every row here; timing $ROUNDS rounds"
    "$BENCH" --rounds "$ROUNDS" --warmup 10 --raw "$WORK/raw.tsv" --title "the check path at 1, 8, 16 and 64 GPUs" \
        "$WORK/plan.tsv" | tee "$WORK/table.md"
    ;;
*) die "usage: bench/gpu-count-bench.sh prepare BUILD_DIR WORK | time WORK [ROUNDS] [HOOK_BENCH]" ;;
esac
