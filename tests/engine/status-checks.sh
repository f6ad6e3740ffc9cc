# shellcheck shell=bash
# What a lifecycle suite judges whatever starts its GPU pods: `gpu-numa-hook status` at a step, and
# at the end every GPU container accounted for. Needs: HOOK, ENGINE (the part of status's report to
# show: containerd, crio-runtime, nri).

# status_says STEP RC PATTERN...: `gpu-numa-hook status` exits RC and prints each ERE PATTERN (one
# starting with ! it must not print)
status_says() {
    local step=$1 want=$2 out rc p
    shift 2
    out=$("$HOOK" status 2>&1); rc=$?
    for p in "$@"; do
        case $p in
            !*) ! grep -q -E -- "${p#!}" <<<"$out" || { fail "$step: status" "exit $rc, /${p#!}/ in: $(echo "$out" | one_line)"; return; } ;;
            *) grep -q -E -- "$p" <<<"$out" || { fail "$step: status" "exit $rc, no /$p/ in: $(echo "$out" | one_line)"; return; } ;;
        esac
    done
    [ "$rc" = "$want" ] || { fail "$step: status" "exit $rc, not $want: $(echo "$out" | one_line)"; return; }
    pass "$step: status exits $rc: $(grep -E "^gpu-numa-hook status|^not protected|^  $ENGINE:|next runtime|NVIDIA.s runtime" <<<"$out" | sed 's/^ *//' | one_line | cut -c1-420)"
}
# ACCOUNT: one entry per GPU container the suite started, "NAME hooked", "NAME ..., named below"
# or "NAME NOT accounted for"; all_accounted judges them at the end
ACCOUNT=()
all_accounted() {
    if printf '%s\n' "${ACCOUNT[@]}" | grep -q "NOT accounted"; then
        fail "every GPU container accounted for" "$(printf '%s; ' "${ACCOUNT[@]}")"
    else pass "every GPU container started during the lifecycle accounted for: $(printf '%s; ' "${ACCOUNT[@]}")"; fi
}
