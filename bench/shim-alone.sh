#!/bin/bash
# What gpu-numa-runtime itself costs, without runc: the shim with `[runtime] next = ["/bin/true"]`,
# timed interleaved by hook_bench against /bin/true alone, on a bundle whose config.json lacks the
# hook (the shim adds it: edits hooks, writes a temp file, swaps it in; no fsync since the bundle
# does not outlive the boot) and on one that has it (read only), with
# the bundle on this machine's disk and on a tmpfs (containerd keeps bundles under /run, a tmpfs).
# run-bench.sh's runc rows measure the same inside `runc run`, where the 1 ms that matters is lost
# in runc's own spread on a busy machine; this isolates it. docs/internals/benchmarks.md has the figures.
#
# Usage (root):  bash bench/shim-alone.sh BUILD_DIR   (BUILD_DIR holds gpu-numa-runtime and
#                bench/hook_bench, built); env ROUNDS (default 300), OUT=DIR keeps the table,
#                BASELINE=FILE another build of gpu-numa-runtime (before a change) timed in the
#                same interleaved run, with its ratios.
# The shim reads only /etc/gpu-numa-hook/config.toml: a private mount namespace binds a work-dir
# directory over it. When /etc/gpu-numa-hook is absent, it is created empty for the run (the mount
# point) and removed at exit; nothing is ever written under the host's /etc.
set -euo pipefail

say() { echo "shim-alone: $*" >&2; }
die() { say "error: $*"; exit 2; }
[ "$(id -u)" = 0 ] || die "run as root (mount namespace)"
[ $# = 1 ] || die "usage: bash bench/shim-alone.sh BUILD_DIR"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "$1" && pwd)
ROUNDS=${ROUNDS:-300}
OUT=${OUT:-$(mktemp -d /tmp/gnh-shim-alone-results.XXXXXX)}
mkdir -p "$OUT"
for f in gpu-numa-runtime bench/hook_bench; do [ -x "$BUILD/$f" ] || die "$BUILD/$f is missing (build it first)"; done
command -v jq >/dev/null || die "needs jq"

W=$(mktemp -d /tmp/gnh-shim-alone.XXXXXX)
ETC_MADE=0
cleanup() {
    if [ "$ETC_MADE" = 1 ]; then rmdir /etc/gpu-numa-hook 2>/dev/null || say "warning: could not remove /etc/gpu-numa-hook (made by this run)"; fi
    rm -rf --one-file-system "$W"
}
trap cleanup EXIT
if [ ! -e /etc/gpu-numa-hook ]; then mkdir /etc/gpu-numa-hook; ETC_MADE=1; fi

install -m 0755 "$BUILD/gpu-numa-runtime" "$W/gpu-numa-runtime"   # timed as installed (run-bench.sh says why)
if [ -n "${BASELINE:-}" ]; then
    [ -x "$BASELINE" ] || die "BASELINE=$BASELINE is not an executable"
    install -m 0755 "$BASELINE" "$W/baseline-runtime"
fi
mkdir -p "$W/etc" "$W/disk/add" "$W/disk/there" "$W/tsrc/add" "$W/tsrc/there" "$W/tmpfs"
sed -e 's|^next = .*|next = ["/bin/true"]|' -e 's|^hook = .*|hook = "/usr/bin/gpu-numa-hook"|' \
    -e "s|^file = .*|file = \"$W/log\"|" "$REPO/config/config.toml" >"$W/etc/config.toml"
grep -q '^next = \["/bin/true"\]' "$W/etc/config.toml" || die "could not set [runtime] next"
# Docker's config.json as Docker writes it (tests/fixtures/docker-20.10: 9 KB, "hooks": {})
cp "$REPO/tests/fixtures/docker-20.10/config.json" "$W/nohook.json"
cp "$W/nohook.json" "$W/disk/add/config.json"
in_ns() {
    unshare -m --propagation private -- /bin/bash -c '
        mount --bind "$1/etc" /etc/gpu-numa-hook || exit 97
        mount -t tmpfs -o size=4m,mode=0755 gnh-shim-alone "$1/tmpfs" || exit 97
        cp -a "$1/tsrc/." "$1/tmpfs/" || exit 97
        shift
        exec "$@"' shim-alone "$W" "$@"
}
# the hooked config.json is the one the shim writes; verify it added exactly one hook
in_ns "$W/gpu-numa-runtime" run --bundle "$W/disk/add" gnh-shim-alone || die "the shim failed on a bundle without the hook"
[ "$(jq '[.hooks.prestart[]? | select(.path == "/usr/bin/gpu-numa-hook")] | length' "$W/disk/add/config.json")" = 1 ] ||
    die "the shim did not add exactly one hook"
jq -c . "$W/disk/add/config.json" >"$W/hooked.json"
if [ -n "${BASELINE:-}" ]; then
    cp "$W/nohook.json" "$W/disk/add/config.json"
    in_ns "$W/baseline-runtime" run --bundle "$W/disk/add" gnh-shim-alone || die "the baseline shim failed on a bundle without the hook"
    cmp -s <(jq -c . "$W/disk/add/config.json") "$W/hooked.json" || die "the baseline shim's config.json differs from this build's"
fi
T=$'\t'
reset() { printf '%s\t%s\n' "$1" "$(sed 's/\\/\\\\/g' "$2")" >"$3"; }
for d in disk tsrc; do
    cp "$W/nohook.json" "$W/$d/add/config.json"
    cp "$W/hooked.json" "$W/$d/there/config.json"
done
{
    echo "variant${T}/bin/true${T}-${T}-${T}/bin/true"
    for where in disk tmpfs; do
        dir=$W/$where
        reset "$dir/add/config.json" "$W/nohook.json" "$W/reset-$where-add.tsv"
        reset "$dir/there/config.json" "$W/hooked.json" "$W/reset-$where-there.tsv"
        echo "variant${T}shim adds the hook, $where${T}-${T}$W/reset-$where-add.tsv${T}$W/gpu-numa-runtime${T}run${T}--bundle${T}$dir/add${T}gnh-shim-alone"
        echo "variant${T}shim, hook there, $where${T}-${T}$W/reset-$where-there.tsv${T}$W/gpu-numa-runtime${T}run${T}--bundle${T}$dir/there${T}gnh-shim-alone"
        [ -n "${BASELINE:-}" ] || continue
        echo "variant${T}baseline adds the hook, $where${T}-${T}$W/reset-$where-add.tsv${T}$W/baseline-runtime${T}run${T}--bundle${T}$dir/add${T}gnh-shim-alone"
        echo "variant${T}baseline, hook there, $where${T}-${T}$W/reset-$where-there.tsv${T}$W/baseline-runtime${T}run${T}--bundle${T}$dir/there${T}gnh-shim-alone"
        echo "cmp${T}shim adds the hook, $where${T}baseline adds the hook, $where${T}99${T}(info, no limit) this build against BASELINE"
        echo "cmp${T}shim, hook there, $where${T}baseline, hook there, $where${T}99${T}(info, no limit) this build against BASELINE"
    done
    echo "cmp${T}shim, hook there, disk${T}/bin/true${T}99${T}(info, no limit) the shim's own start (exec, config, read config.json) + exec of next"
    echo "cmp${T}shim adds the hook, disk${T}shim, hook there, disk${T}99${T}(info, no limit) edit of hooks, write and swap of config.json on disk"
    echo "cmp${T}shim adds the hook, tmpfs${T}shim, hook there, tmpfs${T}99${T}(info, no limit) edit of hooks, write and swap of config.json on tmpfs"
} >"$W/plan.tsv"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/shim-alone.md"
PRIO=(chrt -f 10); command -v chrt >/dev/null || PRIO=(nice -n -10)
in_ns "${PRIO[@]}" "$BUILD/bench/hook_bench" --rounds "$ROUNDS" --warmup 10 --raw "$OUT/shim-alone-raw.tsv" \
    --title "gpu-numa-runtime alone ([runtime] next = /bin/true)" "$W/plan.tsv" | tee -a "$OUT/shim-alone.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/shim-alone.md"
