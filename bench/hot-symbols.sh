#!/bin/bash
# The functions gpu-numa-hook runs on a container start, for lld to lay side by side at the start
# of .text (cmake/hot-text.cmake says why). valgrind's callgrind records every function each path
# runs, from exec to exit, on the benchmark's ac922 fixture: the fast path first (most starts),
# then check (without and with the GPU identity cache), the CUDA requirement and a patch.
#
#   bash bench/hot-symbols.sh BUILD_DIR...        rewrites hook/cli/hot_symbols.txt from these builds' hooks
#   bash bench/hot-symbols.sh --check BUILD_DIR   the test: fails when the list or the layout went stale
#
# Give it both builds: build (RelWithDebInfo, what the tests and this --check see) and build-bench
# (Release, what the benchmark times). They inline differently, so each runs functions the other
# does not; the list is the union, each path's functions by name.
#
# --check fails when a C++ function the paths run is not in the list (a new function on the path:
# rerun without --check and commit the list), or when the functions the fast path runs lie in more
# than MAX_WINDOWS (16) of the kernel's 64 KiB fault-around windows (the ordering did not take;
# an unordered link touches about 45). Each path's log line is checked first, so a path that
# failed early cannot pass for a short one.
# Needs: valgrind, nm.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
CHECK=0
if [ "${1:-}" = --check ]; then CHECK=1; shift; fi
[ $# -ge 1 ] || { echo "usage: hot-symbols.sh [--check] BUILD_DIR..." >&2; exit 2; }
[ $CHECK = 0 ] || [ $# = 1 ] || { echo "hot-symbols.sh: --check takes one build" >&2; exit 2; }
LIST=$REPO/hook/cli/hot_symbols.txt
MAX_WINDOWS=${MAX_WINDOWS:-16}
command -v valgrind >/dev/null || { echo "hot-symbols.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/gnh-hot-symbols.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# run NAME FIXTURE STATE EXPECT: the functions one path of $HOOK runs in $WORK/$TAG.NAME.fn;
# EXPECT must be in the log line it wrote.
run() {
    local name=$1 fx=$WORK/$2 state=$3 expect=$4 line
    valgrind --tool=callgrind --demangle=no --compress-strings=no --callgrind-out-file="$WORK/$name.cg" \
        "$HOOK" --host-root "$fx/root" prestart <"$fx/state-$state.json" >/dev/null 2>"$WORK/$name.err" ||
        { echo "hot-symbols.sh: the $name path exited non-zero:" >&2; tail -n 20 "$WORK/$name.err" >&2; exit 1; }
    line=$(tail -n 1 "$fx/root/var/log/gpu-numa-hook.log")
    case $line in
        *"$expect"*) ;;
        *) echo "hot-symbols.sh: the $name path did not go where it should ($expect); its log line: $line" >&2; exit 1 ;;
    esac
    # Sorted by name: callgrind's order changes from build to build, and the list should change
    # only where the code did. Within a path the order matters little: its functions lie together.
    sed -n 's/^fn=\(([0-9]*) \)\{0,1\}//p' "$WORK/$name.cg" | grep -v '^0x' | LC_ALL=C sort -u >"$WORK/$TAG.$name.fn"
}

# What callgrind cannot see: glibc picks its string functions' variants for the CPU it runs on
# (valgrind's emulated CPU has no AVX-512, so it ran the AVX2 ones: every variant of each function
# it ran is listed), and the start-up before main that valgrind names "(below main)" or that
# differs by CPU vendor; every IFUNC resolver, run before main.
glibc_extras() {
    local isa='(sse2|ssse3|sse4_1|sse4_2|sse42|avx|avx2|evex|evex512|avx512|avx512f|avx512bw|avx512vl|erms)'
    sed -nE "s/^(__[a-z0-9]+)_$isa.*/\1/p" "$@" | sort -u | while read -r base; do
        nm --defined-only "$HOOK" | awk -v re="^${base}_$isa" '$3 ~ re { print $3 }'
    done
    # Every IFUNC's resolver runs while the static PIE relocates itself, before main.
    nm --defined-only "$HOOK" | awk '$2 == "i" || $2 == "I" { print $3 }'
    printf '%s\n' _start __libc_start_main __libc_start_main_impl __libc_start_call_main \
        _dl_relocate_static_pie _dl_aux_init __libc_init_secure __libc_setup_tls __libc_init_first \
        _dl_non_dynamic_init __libc_early_init init_cpu_features update_active get_common_indices \
        get_extended_indices init_cacheinfo handle_intel handle_amd handle_zhaoxin intel_check_word \
        __tunables_init exit __run_exit_handlers _IO_cleanup _exit ___pthread_mutex_lock \
        __pthread_mutex_lock pthread_mutex_lock ___pthread_mutex_unlock __pthread_mutex_unlock
}

# paths_of BUILD TAG: the five paths of BUILD's hook, in $WORK/TAG.*.fn and $WORK/TAG.extras.
paths_of() {
    BUILD=$1 TAG=$2 HOOK=$1/gpu-numa-hook
    rm -rf "$WORK/ok" "$WORK/stale"
    "$BUILD/bench/make_fixture" ac922 ok "$WORK/ok" "$REPO/config/config.toml" >/dev/null
    "$BUILD/bench/make_fixture" ac922 stale "$WORK/stale" "$REPO/config/config.toml" >/dev/null
    run fast ok nogpu 'msg="no GPU requested (fast path)"'
    run check ok gpu 'action=allow gpus=/dev/nvidia0(0004:04:00.0)'
    # The check path again, with the GPU identity cache that `topology --refresh` writes (its NVML
    # part fails here, after the cache is written).
    rm -rf "$WORK/cached"
    "$BUILD/bench/make_fixture" ac922 ok "$WORK/cached" "$REPO/config/config.toml" >/dev/null
    mkdir -p "$WORK/cached/root/proc/sys/kernel/random"
    cat /proc/sys/kernel/random/boot_id >"$WORK/cached/root/proc/sys/kernel/random/boot_id"
    "$HOOK" --host-root "$WORK/cached/root" topology --refresh >/dev/null 2>&1 || true
    [ -s "$WORK/cached/root/run/gpu-numa-hook/gpu-identities" ] ||
        { echo "hot-symbols.sh: topology --refresh wrote no GPU identity cache" >&2; exit 1; }
    run cached cached gpu 'action=allow gpus=/dev/nvidia0(0004:04:00.0)'
    run cuda ok gpu-cuda 'action=allow gpus=/dev/nvidia0(0004:04:00.0)'
    run patch stale gpu 'action=patch'
    glibc_extras "$WORK/$TAG".{fast,check,cached,cuda,patch}.fn >"$WORK/$TAG.extras"
}

if [ $CHECK = 0 ]; then
    n=0
    for b in "$@"; do
        n=$((n + 1))
        paths_of "$b" "$n"
    done
    {
        echo "# The functions gpu-numa-hook runs on a container start, fast path first: lld lays them out"
        echo "# in this order at the start of .text (cmake/hot-text.cmake). Made by bench/hot-symbols.sh"
        echo "# from build and build-bench; regenerate it when that script's --check (a ctest) says so."
        for path in fast check cached cuda patch; do cat "$WORK"/*."$path".fn | LC_ALL=C sort -u; done
        cat "$WORK"/*.extras
    } | awk '/^#/ || !seen[$0]++' >"$LIST"
    echo "hot-symbols.sh: $(grep -vc '^#' "$LIST") functions written to $LIST"
    exit 0
fi

paths_of "$1" 1
fail=0
missing=$(cat "$WORK"/1.{fast,check,cached,cuda,patch}.fn | grep '^_Z' | awk '!seen[$0]++' |
    grep -vxF -f <(grep -v '^#' "$LIST") || true)
if [ -n "$missing" ]; then
    echo "FAIL: $(wc -l <<<"$missing") C++ functions the hook runs are not in hook/cli/hot_symbols.txt, so lld leaves them" \
        "scattered; run: bash bench/hot-symbols.sh build build-bench && git add hook/cli/hot_symbols.txt. The first few:"
    sed -n 1,5p <<<"$missing" | sed 's/^/    /'
    fail=1
else
    echo "ok: every C++ function of the fast, check (with and without the identity cache), CUDA and patch paths is in hook/cli/hot_symbols.txt"
fi
# The fast path's functions, by address: how many 64 KiB windows the kernel maps for them.
windows=$(nm --defined-only "$HOOK" | awk 'NR == FNR { want[$0] = 1; next }
    ($2 ~ /^[TtWw]$/) && ($3 in want) { print $1 }' "$WORK/1.fast.fn" - |
    while read -r a; do echo $((16#$a / 65536)); done | sort -u | wc -l)
total=$(wc -l <"$WORK/1.fast.fn")
if [ "$windows" -le "$MAX_WINDOWS" ]; then
    echo "ok: the fast path's $total functions lie in $windows windows of 64 KiB (at most $MAX_WINDOWS)"
else
    echo "FAIL: the fast path's $total functions lie in $windows windows of 64 KiB, more than $MAX_WINDOWS: was the hook linked with lld and hook/cli/hot_symbols.txt (cmake/hot-text.cmake)?"
    fail=1
fi
exit $fail
