# shellcheck shell=bash
# What the toolkit-lifecycle suites (tests/nvidia/ and tests/crio/run-toolkit-lifecycle-test.sh)
# judge at each step, sourced inside their namespace. Needs: cri (the CRI client at the engine's
# socket), HOOK, LOG (our log), TK (NVIDIA's toolkit folder), CGP, IMG, TMP, GPU_BUS, ENGINE (the
# engine's name in status: containerd, crio-runtime).
# shellcheck source=status-checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/status-checks.sh"

# pod NAME: a pod whose container "cuda" gets GPU 0 from the device plugin (a CRI device, as with
# PASS_DEVICE_SPECS), through the engine's default runtime; the container's id in $C, create's
# status in $RC, start's answer in $STARTED. Every one is accounted for at the end (ACCOUNT).
pod() {
    local sb
    sb=$(cri run-sandbox "$1" "uid-$1-$RUNID" "" "$CGP" "$TMP/podlogs") || { fail "RunPodSandbox $1" "$sb"; finish; }
    C=$(cri create "$sb" "$1" "uid-$1-$RUNID" "$CGP" "$TMP/podlogs" cuda "$IMG" 'exec sleep 600' --device "$TMP/dev/nvidia0:/dev/nvidia0"); RC=$?
    STARTED=""
    [ "$RC" = 0 ] && STARTED=$(cri start "$C")
}
hook_line() { grep "gpu-numa-hook\[[0-9]*\] container=$1 " "$LOG"; }
reentry_line() { grep "gpu-numa-runtime\[[0-9]*\] container=$1 stage=runtime-create action=allow .*run back by $TK/toolkit/nvidia-container-runtime, " "$LOG"; }
# hooked NAME STEP [via-nvidia]: pod NAME started, our hook ran once for it and allowed GPU 0 with
# its node required; via-nvidia: NVIDIA's runtime ran between the shim's two passes, the second of
# which said so. Here that is the installer's wrapper: with no nvidia module in /proc/modules it
# execs its own runtime at once, as nvidia-container-runtime.real does after its edits.
hooked() {
    pod "$1"
    local want="gpu-numa-hook\[[0-9]*\] container=$C .*stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS) required=0 "
    if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ "$(grep -c "$want" "$LOG")" = 1 ] &&
        { [ "${3:-}" != via-nvidia ] || [ "$(reentry_line "$C" | wc -l)" = 1 ]; }; then
        ACCOUNT+=("$1 hooked")
        pass "$2: pod $1 hooked$([ "${3:-}" = via-nvidia ] && echo ", through NVIDIA's runtime and back ($(reentry_line "$C" | sed 's/.*msg="//; s/"$//' | cut -c1-60)...)"): $(hook_line "$C" | sed 's/.*\(stage=prestart\)/\1/' | cut -c1-80)"
    else
        ACCOUNT+=("$1 NOT accounted for")
        fail "$2: pod $1 hooked" "create rc $RC ($C) start $STARTED; hook: $(hook_line "$C" | one_line); shim: $(grep "container=$C " "$LOG" | grep -v gpu-numa-hook | one_line)"
    fi
}
# unhooked_is_named STEP: a GPU pod started now, with nothing of ours registered, runs without the
# hook; status, check and gpu_numa_hook_unprotected_gpu_containers all name it
unhooked_is_named() {
    local unhooked out
    pod bare
    unhooked=$C
    if [ "$RC" = 0 ] && [ "$STARTED" = ok ] && [ -z "$(hook_line "$C")" ]; then
        ACCOUNT+=("bare unhooked, named below")
    else fail "$1: a GPU pod after uninstall" "create rc $RC ($C) start $STARTED hook $(hook_line "$C" | one_line)"; fi
    status_says "$1" 1 "^not protected: no container engine runs gpu-numa-hook" "^not protected: .*$unhooked"
    out=$("$HOOK" check --prometheus "$TMP/metrics.prom" 2>&1)
    if grep -q "^gpu_numa_hook_unprotected_gpu_containers 1$" "$TMP/metrics.prom" && grep -q "$unhooked" <<<"$out"; then
        pass "$1: check names the unhooked GPU container and gpu_numa_hook_unprotected_gpu_containers is 1"
    else fail "$1: check and metrics" "$(echo "$out" | one_line); metrics: $(grep unprotected "$TMP/metrics.prom" | one_line)"; fi
    UNHOOKED=$unhooked
}
