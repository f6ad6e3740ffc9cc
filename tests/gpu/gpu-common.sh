# Sourced by the GPU-host scripts (run-on-gpu-host.sh, run-toolkit-chains.sh): PASS/FAIL bookkeeping,
# the cuda_alloc build and the busybox rootfs with the host's C library, so both suites report and
# build containers the same way.

PASSED=0
FAILED=0
declare -a SUMMARY=()
pass() { echo "PASS: $1"; PASSED=$((PASSED + 1)); SUMMARY+=("PASS  $1"); }
fail() { echo "FAIL: $1: $2"; FAILED=$((FAILED + 1)); SUMMARY+=("FAIL  $1: $2"); }
section() { printf '\n==================== %s\n' "$*"; }
one_line() { tr '\n' ' ' | sed 's/[[:space:]]\+/ /g; s/^ //; s/ $//' | cut -c1-800; }
indent() { sed 's/^/    /'; }

# finish: the summary, then exit 0 only when nothing failed (START_S and LOG set by the caller)
finish() {
    section "summary"
    local s
    for s in "${SUMMARY[@]}"; do echo "$s"; done
    echo "took $((SECONDS - START_S)) s; full output in $LOG"
    echo "RESULT: $PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit $?
}
die() { fail "$1" "$2"; finish; }

# build_cuda_alloc DEST NOTES: cuda_alloc.cu built with nvcc (static CUDA runtime, sm_90 + compute_90
# PTX), or CUDA_ALLOC copied. Returns 0 built (or copied as asked), 1 nvcc failed but
# CUDA_ALLOC_FALLBACK was copied, 2 nothing to run. nvcc's output goes to NOTES.
build_cuda_alloc() {
    local dest=$1 notes=$2 nvcc
    if [ -n "${CUDA_ALLOC:-}" ]; then
        cp "$CUDA_ALLOC" "$dest" && echo "using prebuilt $CUDA_ALLOC" && return 0
        return 2
    fi
    nvcc=${NVCC:-$(command -v nvcc || true)}
    [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
    if [ -n "$nvcc" ]; then
        echo "nvcc: $nvcc ($("$nvcc" --version | tail -n1))"
        "$nvcc" -O2 -cudart static -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
            -o "$dest" "$(dirname "${BASH_SOURCE[0]}")/cuda_alloc.cu" >"$notes" 2>&1 && return 0
        indent <"$notes"
    else
        echo "no nvcc (set NVCC= or CUDA_ALLOC=)" >"$notes"
    fi
    [ -n "${CUDA_ALLOC_FALLBACK:-}" ] && cp "$CUDA_ALLOC_FALLBACK" "$dest" && return 1
    return 2
}

# make_rootfs R BUSYBOX BINARY...: a busybox rootfs at R plus every library the BINARIES load
# (ldd), copied to the host's paths except the driver's own (libcuda, libnvidia-*), which the
# container gets from the host. Sets ROOTFS_LIBDIRS (the directories they went to). Returns 1 when
# a library cannot be copied.
make_rootfs() {
    local r=$1 bb=$2 l a
    shift 2
    mkdir -p "$r"/{bin,proc,sys,dev,etc,tmp,run,opt/gnh}
    cp "$bb" "$r/bin/busybox"
    for a in sh cat grep ls echo sleep true head tail wc env tr; do ln -sf busybox "$r/bin/$a"; done
    ROOTFS_LIBDIRS=""
    for l in $(for a in "$@"; do ldd "$a"; done 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u); do
        case $(basename "$l") in libcuda.so*|libnvidia-*) continue ;; esac
        mkdir -p "$r$(dirname "$l")"
        cp -L "$l" "$r$l" || return 1
        case " $ROOTFS_LIBDIRS " in *" $(dirname "$l") "*) ;; *) ROOTFS_LIBDIRS="$ROOTFS_LIBDIRS $(dirname "$l")" ;; esac
    done
}
