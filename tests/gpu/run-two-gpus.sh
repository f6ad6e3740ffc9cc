#!/bin/bash
# gpu-numa-hook on a host with two or more real GPUs: which GPUs a start names for `all`, an index
# and a GPU-<uuid>, read from the driver and then from the GPU identity cache that
# `topology --refresh` writes. NOT part of CI (no GPU there); run by tests/gpu/device-setup-and-run.sh.
#
#   tests/gpu/run-two-gpus.sh HOOK_BINARY
#
# Each case runs the real hook as a runtime does (prestart, the OCI state on stdin, a bundle whose
# process env is NVIDIA_VISIBLE_DEVICES=<case> with NVIDIA's legacy hook in prestart, which reads it, the
# container a sleeping process of this host) and
# reads its log line's gpus= field, which must name exactly the GPUs nvidia-smi says that reference
# means. Each case runs twice: with no cache (every GPU asked), then with the cache just refreshed;
# the two lines must name the same GPUs. On one NUMA node hosts no cpuset is patched (the line says
# the GPUs have no node to require); the mapping is what is shown.
# Exit: 0 all passed, 1 a case failed, 77 fewer than two GPUs (NOT RUN, printed).
set -u
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=gpu-common.sh
. "$SCRIPT_DIR/gpu-common.sh"
HOOK=${1:?usage: run-two-gpus.sh HOOK_BINARY}
LOG=${GNH_TWO_GPU_LOG:-/tmp/gnh-two-gpus.log}
exec > >(tee -a "$LOG") 2>&1
START_S=$SECONDS
CACHE=/run/gpu-numa-hook/gpu-identities

# index,minor,uuid,bus: nvidia-smi's index, UUID and bus id; the minor from the driver's information
# file of that bus (nvidia-smi's query has no minor field)
mapfile -t SMI < <(nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader | tr -d ' ' |
    while IFS=, read -r i u b; do
        b=$(echo "${b#????}" | tr 'A-F' 'a-f')
        m=$(sed -n 's/^Device Minor:[[:space:]]*//p' "/proc/driver/nvidia/gpus/$b/information")
        echo "$i,$m,$u,$b"
    done)
if [ "${#SMI[@]}" -lt 2 ]; then
    echo "NOT RUN: run-two-gpus.sh needs two GPUs; nvidia-smi lists ${#SMI[@]}"
    exit 77
fi
section "GPUs (nvidia-smi index,minor,uuid,bus)"
printf '%s\n' "${SMI[@]}" | indent
minor_of_index() { printf '%s\n' "${SMI[@]}" | awk -F, -v i="$1" '$1 == i { print $2 }'; }
uuid_of_index() { printf '%s\n' "${SMI[@]}" | awk -F, -v i="$1" '$1 == i { print $3 }'; }
ALL_MINORS=$(printf '%s\n' "${SMI[@]}" | awk -F, '{ print $2 }' | sort -n | tr '\n' ' ')

TMP=$(mktemp -d /tmp/gnh-two.XXXXXX)
sleep 600 &
PID=$!
cleanup() { kill "$PID" 2>/dev/null; [ -n "${CACHE_SAVED:-}" ] && mv "$CACHE_SAVED" "$CACHE"; rm -rf "$TMP"; }
trap cleanup EXIT
# A cache already there (a host that runs the topology service) is put aside and back.
if [ -e "$CACHE" ]; then CACHE_SAVED=$TMP/cache.saved; mv "$CACHE" "$CACHE_SAVED"; fi
printf '[log]\nfile = "%s"\nlevel = "info"\nformat = "text"\n\n[lock]\npath = "%s"\n' "$TMP/hook.log" "$TMP/hook.lock" >"$TMP/config.toml"

# run_case NAME VALUE: the hook on a bundle asking for VALUE; prints the minors its log line names
run_case() {
    local name=$1 value=$2 b=$TMP/$1
    mkdir -p "$b/rootfs"
    printf '{"ociVersion":"1.0.2","process":{"args":["true"],"cwd":"/","env":["NVIDIA_VISIBLE_DEVICES=%s"]},"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]},"root":{"path":"rootfs"},"linux":{}}\n' "$value" >"$b/config.json"
    printf '{"ociVersion":"1.0.2","id":"%s","status":"created","pid":%d,"bundle":"%s"}' "$name" "$PID" "$b" |
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$HOOK" --config "$TMP/config.toml" prestart >"$TMP/$name.out" 2>&1
    echo "exit $?" >>"$TMP/$name.out"
    grep " container=$name " "$TMP/hook.log" | tail -n 1 >"$TMP/$name.line"
    sed -n 's/.* gpus=\([^ ]*\).*/\1/p' "$TMP/$name.line" | grep -o 'nvidia[0-9]*' | sed 's/nvidia//' | sort -n | tr '\n' ' '
}

# check NAME VALUE WANT_MINORS: without the cache, then with it
check() {
    local name=$1 value=$2 want=$3 cold warm
    rm -f "$CACHE"
    cold=$(run_case "$name-driver" "$value")
    echo "-- NVIDIA_VISIBLE_DEVICES=$value, from the driver: $(cat "$TMP/$name-driver.line")"
    "$HOOK" --config "$TMP/config.toml" topology --refresh >"$TMP/refresh.out" 2>&1
    warm=$(run_case "$name-cache" "$value")
    echo "-- NVIDIA_VISIBLE_DEVICES=$value, from the cache: $(cat "$TMP/$name-cache.line")"
    if [ "$cold" = "$want" ] && [ "$warm" = "$want" ]; then
        pass "$name: NVIDIA_VISIBLE_DEVICES=$value names minors [${want% }] from the driver and from the identity cache"
    else
        fail "$name" "want minors [$want], driver gave [$cold], cache gave [$warm] ($(one_line <"$TMP/$name-driver.out"))"
    fi
}

section "the identity cache: topology --refresh"
"$HOOK" --config "$TMP/config.toml" topology --refresh 2>&1 | indent
# One record per GPU, "gpu <dir> <binding> <minor> <uuid> <bus-id> <model>", agreeing with nvidia-smi.
missing=""
for row in "${SMI[@]}"; do
    IFS=, read -r _ m u b <<<"$row"
    grep -qiE "^gpu $b [0-9]+ $m $u $b " "$CACHE" 2>/dev/null || missing="$missing $b(minor $m, $u)"
done
if [ -z "$missing" ]; then pass "topology --refresh wrote $CACHE with each GPU's minor, UUID and bus id as nvidia-smi and the driver name them"
else fail "topology --refresh" "$CACHE lacks a record for$missing: $(head -c 600 "$CACHE" 2>/dev/null)"; fi

section "all, an index, a UUID, a list"
check all all "$ALL_MINORS"
check index-1 1 "$(minor_of_index 1) "
check uuid-of-1 "$(uuid_of_index 1)" "$(minor_of_index 1) "
check index-0 0 "$(minor_of_index 0) "
check list-1-0 "1,0" "$(printf '%s\n%s\n' "$(minor_of_index 0)" "$(minor_of_index 1)" | sort -n | tr '\n' ' ')"
finish
