#!/bin/bash
# gpu-numa-runtime with real runc: the config.json edit on create (exactly one hook, every other
# field kept, idempotent, after an existing NVIDIA hook), update keeping a GPU node, and bad input
# (broken config.json, unwritable bundle, unknown next runtime, a loop) refused with config.json
# untouched. Real runc and cgroups; a fake driver and /etc overlay (lib.sh).
# Usage: tests/engine/run-shim-tests.sh [HOOK] [RUNTIME]   (default: build/gpu-numa-hook, build/gpu-numa-runtime)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
. "$SCRIPT_DIR/lib.sh"
HOOK=$(abs "${1:-$REPO/build/gpu-numa-hook}")
SHIM=$(abs "${2:-$REPO/build/gpu-numa-runtime}")
cleanup() {
    local id
    for id in $(runc --root "$TMP/state/runc" list -q 2>/dev/null); do runc --root "$TMP/state/runc" delete -f "$id" >/dev/null 2>&1; done
    rmdir "$(cpuset_mount)/gnh-shim/"*"$RUNID"* 2>/dev/null; rmdir "$(cpuset_mount)/gnh-shim" 2>/dev/null
    for d in /sys/fs/cgroup/*/gnh-shim; do [ -d "$d" ] && { rmdir "$d"/*"$RUNID"* 2>/dev/null; rmdir "$d" 2>/dev/null; }; done
    [ "${GNH_RT_KEEP:-}" = 1 ] && echo "kept $TMP" >&2 || rm -rf --one-file-system "$TMP"
}
trap cleanup EXIT
need_tools runc jq unshare busybox cmp
[ -x "$HOOK" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK or $SHIM missing (build first)"; finish; }
make_rootfs
make_driver online0 0 online
make_driver node1 1 online

# bundle NAME: a runc-spec bundle running `sh -c ARGS`, cgroup /gnh-shim/NAME-RUNID, GPU 195:0
bundle() {
    local b="$TMP/bundles/$1"
    mkdir -p "$b"
    runc spec --bundle "$b"
    jq --arg root "$TMP/rootfs" --arg cg "/gnh-shim/$1-$RUNID" '
        .process.terminal = false | .process.args = ["sh", "-c", "grep Mems_allowed_list /proc/self/status; echo ready; exec sleep 60"]
        | .root = {path: $root, readonly: true} | .linux.cgroupsPath = $cg
        | .linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0, fileMode: 438, uid: 0, gid: 0}]
        | .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rwm"}]' \
        "$b/config.json" >"$b/c.new" && mv "$b/c.new" "$b/config.json"
    echo "$b"
}
ours() { jq --arg h "$HOOK" '[.hooks.prestart[]? | select(.path == $h)] | length' "$1/config.json"; }

write_config main "[runtime]" "hook = \"$HOOK\"" 'next = ["runc"]'
# 1. create through the shim with real runc: one hook added, everything else equal, hook ran
B=$(bundle one); cp "$B/config.json" "$TMP/one.orig.json"
# run -d: the container inherits stdout, so output goes to files, never to a $(...) pipe
(cd "$B" && in_ns online0 main timeout 60 "$SHIM" --root "$TMP/state/runc" --log "$TMP/runc-log.json" --log-format json run -d one-$RUNID </dev/null >"$TMP/out/one" 2>&1); RC=$?; OUT=$(cat "$TMP/out/one")
if [ "$RC" != 0 ]; then fail "shim create (bundle = cwd) with real runc" "exit $RC: $(echo "$OUT" | one_line)"
elif [ "$(ours "$B")" != 1 ]; then fail "shim create: exactly one hook" "$(jq -c .hooks "$B/config.json")"
elif ! jq -e --slurpfile o "$TMP/one.orig.json" 'del(.hooks.prestart[-1]) | if .hooks.prestart == [] then del(.hooks.prestart) else . end | if .hooks == {} then del(.hooks) else . end | . == $o[0]' "$B/config.json" >/dev/null; then
    fail "shim create: other fields equal after the JSON round trip" "$(diff <(jq -S . "$TMP/one.orig.json") <(jq -S . "$B/config.json") | one_line)"
elif ! grep -q "container=one-$RUNID stage=prestart action=allow" "$TMP/logs/main.log"; then
    fail "shim create: the hook ran at prestart" "log: $(one_line <"$TMP/logs/main.log")"
else pass "shim create with real runc: exactly one prestart hook, other fields equal, the hook ran and allowed"; fi
runc --root "$TMP/state/runc" delete -f one-$RUNID >/dev/null 2>&1
# 1b. owner and mode of config.json are kept
B=$(bundle owner); chown 4242:4343 "$B/config.json"; chmod 0640 "$B/config.json"
in_ns online0 main "$SHIM" --root "$TMP/state/runc" create --bundle "$B" owner-$RUNID </dev/null >"$TMP/out/owner" 2>&1; RC=$?
[ "$RC" = 0 ] && [ "$(stat -c '%u:%g %a' "$B/config.json")" = "4242:4343 640" ] && [ "$(ours "$B")" = 1 ] &&
    pass "shim create keeps config.json's owner and mode (4242:4343 640)" || fail "shim keeps owner/mode" "rc $RC $(stat -c '%u:%g %a' "$B/config.json") $(one_line <"$TMP/out/owner")"
runc --root "$TMP/state/runc" delete -f owner-$RUNID >/dev/null 2>&1

# 2. second create on the same bundle: still one hook
in_ns online0 main timeout 60 "$SHIM" --root "$TMP/state/runc" create --bundle "$B" one2-$RUNID </dev/null >"$TMP/out/one2" 2>&1; RC=$?; OUT=$(cat "$TMP/out/one2")
[ "$RC" = 0 ] && [ "$(ours "$B")" = 1 ] && pass "shim create again: idempotent (one hook)" || fail "shim create again" "rc $RC hooks $(jq -c .hooks "$B/config.json") $(echo "$OUT" | one_line)"
runc --root "$TMP/state/runc" delete -f one2-$RUNID >/dev/null 2>&1

# 3. an NVIDIA hook already there keeps its place; ours comes after it
B=$(bundle nv)
printf '#!/bin/sh\ncat >/dev/null\necho nvidia-stand-in-ran >>%s/nv-ran\n' "$TMP" >"$TMP/nvidia-container-runtime-hook"; chmod 755 "$TMP/nvidia-container-runtime-hook"
jq --arg p "$TMP/nvidia-container-runtime-hook" '.hooks.prestart = [{path: $p, args: ["nvidia-container-runtime-hook", "prestart"]}]' "$B/config.json" >"$B/c" && mv "$B/c" "$B/config.json"
in_ns online0 main timeout 60 "$SHIM" --root "$TMP/state/runc" run -d --bundle "$B" nv-$RUNID </dev/null >"$TMP/out/nv" 2>&1; RC=$?; OUT=$(cat "$TMP/out/nv")
order=$(jq -r '[.hooks.prestart[].args[0]] | join(",")' "$B/config.json")
[ "$RC" = 0 ] && [ "$order" = "nvidia-container-runtime-hook,gpu-numa-hook" ] && [ -s "$TMP/nv-ran" ] &&
    pass "shim create: an existing NVIDIA hook stays first, ours after it ($order)" || fail "shim create after NVIDIA hook" "rc $RC order $order $(echo "$OUT" | one_line)"

# 3b. next = nvidia-container-runtime (a stand-in doing what jit-cdi mode does: add the GPU to
# linux.devices of config.json, then exec runc): our hook, run by runc at prestart, sees its edit
mkdir -p "$TMP/nvbin"
cat >"$TMP/nvbin/nvidia-container-runtime" <<NV
#!/bin/bash
# stand-in: on create, add /dev/nvidia0 to linux.devices (as jit-cdi mode does), then exec runc
args=("\$@"); b=""
for ((i = 0; i < \${#args[@]}; i++)); do [ "\${args[i]}" = --bundle ] && b=\${args[i+1]}; done
if [ -n "\$b" ]; then
    jq '.linux.devices = [{path: "/dev/nvidia0", type: "c", major: 195, minor: 0, fileMode: 438, uid: 0, gid: 0}]
        | .linux.resources.devices += [{allow: true, type: "c", major: 195, minor: 0, access: "rwm"}]' "\$b/config.json" >"\$b/c.nv" && mv "\$b/c.nv" "\$b/config.json"
fi
exec runc "\$@"
NV
chmod 755 "$TMP/nvbin/nvidia-container-runtime"
write_config nvnext "[runtime]" "hook = \"$HOOK\"" "next = [\"$TMP/nvbin/nvidia-container-runtime\", \"runc\"]"
# the GPU asked for by NVIDIA_VISIBLE_DEVICES, which jit-cdi turns into the device
B=$(bundle cdi); jq 'del(.linux.devices) | .process.env += ["NVIDIA_VISIBLE_DEVICES=0"]' "$B/config.json" >"$B/c" && mv "$B/c" "$B/config.json"
in_ns online0 nvnext timeout 60 "$SHIM" --root "$TMP/state/runc" run -d --bundle "$B" cdi-$RUNID </dev/null >"$TMP/out/cdi" 2>&1; RC=$?
[ "$RC" = 0 ] && grep -q "container=cdi-$RUNID stage=prestart action=allow gpus=/dev/nvidia0($GPU_BUS)" "$TMP/logs/nvnext.log" &&
    pass "next = nvidia-container-runtime (jit-cdi stand-in): our prestart hook sees the GPU it added" ||
    fail "next = nvidia-container-runtime" "rc $RC $(one_line <"$TMP/out/cdi") log: $(one_line <"$TMP/logs/nvnext.log")"
runc --root "$TMP/state/runc" delete -f cdi-$RUNID >/dev/null 2>&1

# 3c. a container that cannot get a GPU, before runc: config.json stays as the engine wrote it, the
# hook never runs (its exec is the cost skipped), and the shim logs the decision the hook would have
# (3b is the same bundle before NVIDIA's runtime, which adds a GPU: there the hook is registered)
B=$(bundle plain); jq 'del(.linux.devices)' "$B/config.json" >"$B/c" && mv "$B/c" "$B/config.json"
cp "$B/config.json" "$TMP/plain.orig.json"
in_ns online0 main timeout 60 "$SHIM" --root "$TMP/state/runc" run -d --bundle "$B" plain-$RUNID </dev/null >"$TMP/out/plain" 2>&1; RC=$?
if [ "$RC" != 0 ]; then fail "shim, non-GPU container before runc" "exit $RC: $(one_line <"$TMP/out/plain")"
elif ! cmp -s "$B/config.json" "$TMP/plain.orig.json"; then fail "shim, non-GPU container: config.json unchanged" "$(jq -c .hooks "$B/config.json")"
elif grep -q "container=plain-$RUNID stage=prestart" "$TMP/logs/main.log"; then fail "shim, non-GPU container: the hook did not run" "$(grep "container=plain-$RUNID" "$TMP/logs/main.log" | one_line)"
elif ! grep -q " info gpu-numa-runtime\[[0-9]*\] container=plain-$RUNID stage=runtime-run action=allow gpus=- .*no GPU requested (fast path): .*runc adds none" "$TMP/logs/main.log"; then
    fail "shim, non-GPU container: the decision logged" "log: $(one_line <"$TMP/logs/main.log")"
else pass "shim, non-GPU container before runc: started, config.json byte for byte unchanged, no hook run, the fast path logged by the shim"; fi
runc --root "$TMP/state/runc" delete -f plain-$RUNID >/dev/null 2>&1

# 4. update through the shim against a real container: runc's state.json read; the new mems keep
# the GPU's node. The host has one node, so the widened value goes to a recording runtime.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >%s/rec-argv\ncat >%s/rec-stdin\n' "$TMP" "$TMP" >"$TMP/recorder"; chmod 755 "$TMP/recorder"
write_config rec "[runtime]" "hook = \"$HOOK\"" "next = [\"$TMP/recorder\"]"
OUT=$(in_ns online0 rec "$SHIM" --root "$TMP/state/runc" update --cpuset-mems 1 nv-$RUNID 2>&1); RC=$?
if [ "$RC" = 0 ] && grep -qx '0-1' "$TMP/rec-argv" && grep -q "container=nv-$RUNID stage=runtime-update action=patch.*drops GPU memory node(s) 0" "$TMP/logs/rec.log"; then
    pass "shim update --cpuset-mems 1 of a running GPU container (node 0): passed on as 0-1, logged"
else fail "shim update --cpuset-mems" "rc $RC argv $(one_line <"$TMP/rec-argv" 2>/dev/null) log $(one_line <"$TMP/logs/rec.log") $(echo "$OUT" | one_line)"; fi
OUT=$(echo '{"cpu":{"shares":512,"mems":"1"}}' | in_ns online0 rec "$SHIM" --root "$TMP/state/runc" update --resources - nv-$RUNID 2>&1); RC=$?
[ "$RC" = 0 ] && [ "$(jq -c . "$TMP/rec-stdin" 2>/dev/null)" = '{"cpu":{"shares":512,"mems":"0-1"}}' ] &&
    pass "shim update --resources -: cpu.mems widened to 0-1 on the runtime's stdin, other fields kept" ||
    fail "shim update --resources -" "rc $RC stdin $(one_line <"$TMP/rec-stdin" 2>/dev/null) $(echo "$OUT" | one_line)"
OUT=$(echo '{"cpu":{"mems":"0"}}' | in_ns online0 main "$SHIM" --root "$TMP/state/runc" update --resources - nv-$RUNID 2>&1); RC=$?
[ "$RC" = 0 ] && pass "shim update --resources - with real runc (mems 0 keeps the GPU node: passed through)" || fail "shim update with real runc" "rc $RC $(echo "$OUT" | one_line)"
grep -q " warn gpu-numa-runtime\[[0-9]*\] container=nv-$RUNID stage=runtime-update" "$TMP/logs/rec.log" &&
    pass "the shim's log lines name the program that wrote them (gpu-numa-runtime[pid])" ||
    fail "shim log program name" "$(one_line <"$TMP/logs/rec.log")"
# an update for a container runc does not know: nothing of ours at stake, not an error
rm -f "$TMP/rec-argv"; : >"$TMP/logs/rec.log"
OUT=$(in_ns online0 rec "$SHIM" --root "$TMP/state/runc" update --cpuset-mems 1 nosuch-$RUNID 2>&1); RC=$?
[ "$RC" = 0 ] && grep -qx "nosuch-$RUNID" "$TMP/rec-argv" && grep -q " info gpu-numa-runtime\[[0-9]*\] container=nosuch-$RUNID stage=runtime-update action=allow .*runc does not know" "$TMP/logs/rec.log" &&
    ! grep -q " error " "$TMP/logs/rec.log" &&
    pass "update of a container runc does not know: passed on unchanged, logged at info (not error)" ||
    fail "update unknown container" "rc $RC log $(one_line <"$TMP/logs/rec.log") $(echo "$OUT" | one_line)"
runc --root "$TMP/state/runc" delete -f nv-$RUNID >/dev/null 2>&1

# 5. bad input: one line, non-zero, config.json untouched
expect_bad() { # NAME CFG BUNDLE MSGRE [ns-prefix...]
    local name=$1 cfg=$2 b=$3 re=$4
    shift 4
    cp "$b/config.json" "$TMP/before.json"
    in_ns online0 "$cfg" "$@" "$SHIM" --root "$TMP/state/runc" --log "$TMP/bad-runc.log" create --bundle "$b" bad-$RUNID </dev/null >"$TMP/out/bad" 2>&1; RC=$?; OUT=$(cat "$TMP/out/bad")
    if [ "$RC" = 0 ]; then fail "$name" "exit 0: $(echo "$OUT" | one_line)"; runc --root "$TMP/state/runc" delete -f bad-$RUNID >/dev/null 2>&1; return; fi
    [ "$(echo "$OUT" | grep -c .)" = 1 ] || { fail "$name" "not one line: $(echo "$OUT" | one_line)"; return; }
    echo "$OUT" | grep -qE "^gpu-numa-runtime: error: .*$re" || { fail "$name" "line does not match /$re/: $OUT"; return; }
    cmp -s "$b/config.json" "$TMP/before.json" || { fail "$name" "config.json changed"; return; }
    grep -q "action=refuse.*$re" "$TMP/logs/$cfg.log" || { fail "$name" "no refuse line in our log: $(one_line <"$TMP/logs/$cfg.log")"; return; }
    grep -q "gpu-numa-runtime: .*$re" "$TMP/bad-runc.log" || { fail "$name" "not in runc's --log"; return; }
    pass "$name: $OUT"
}
B=$(bundle broken); echo '{"ociVersion": "1.0.2", "process": ' >"$B/config.json"
expect_bad "broken config.json refused" main "$B" "config.json is not valid JSON"
B=$(bundle ro)
expect_bad "unwritable bundle refused" main "$B" "cannot create a temporary file" /bin/bash -c 'mount --bind -o ro "$0" "$0" && exec "$@"' "$B"
write_config unknown "[runtime]" "hook = \"$HOOK\"" 'next = ["no-such-runtime", "/nonexistent/runc"]'
expect_bad "unknown next runtime refused" unknown "$(bundle unk)" "runtime.next: none of"
# config.json as a symbolic link: refused without reading or replacing anything; the next runtime
# (a recorder) is not run
B=$(bundle link); mv "$B/config.json" "$TMP/link-target.json"; ln -s "$TMP/link-target.json" "$B/config.json"
cp "$TMP/link-target.json" "$TMP/link-target.orig"; rm -f "$TMP/rec-argv"
expect_bad "config.json that is a symbolic link refused" rec "$B" "config.json is a symbolic link"
[ -L "$B/config.json" ] && cmp -s "$TMP/link-target.json" "$TMP/link-target.orig" && [ ! -e "$TMP/rec-argv" ] &&
    pass "symlinked config.json: the link is still a link, its target unchanged, the next runtime never ran" ||
    fail "symlinked config.json left as it was" "$(ls -l "$B/config.json") rec-argv: $(cat "$TMP/rec-argv" 2>/dev/null | one_line)"
write_config loop "[runtime]" "hook = \"$HOOK\"" "next = [\"$SHIM\"]"
expect_bad "a next runtime that is the shim itself is a loop" loop "$(bundle loop)" "runtime.next: .* is gpu-numa-runtime itself"
finish
