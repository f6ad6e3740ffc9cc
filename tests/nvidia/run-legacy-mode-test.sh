#!/bin/bash
# install --runtime nvidia-legacy and status against NVIDIA's real toolkit 1.20.0 (shared/tools/
# nvidia-container-toolkit; no GPU, no driver needed). The mode is set by the real `nvidia-ctk
# config --set nvidia-container-runtime.mode=...` on NVIDIA's packaged config.toml beneath a private
# host root:
#   auto, cdi, jit-cdi: install (and --dry-run) refuses, exit 2, one line naming the mode and the
#     file; the file is unchanged, no backup, no install-state.json;
#   legacy: installed, the hook's path line changed in place; uninstall gives the file back byte
#     for byte; installed again, then `nvidia-ctk ... mode=auto`: status says not protected (exit 1)
#     with one line naming the mode and the file;
#   the real nvidia-container-runtime (legacy mode, runc) on `create` of a busybox bundle puts the
#     hook install named into config.json as the prestart hook, and runc runs it.
# Without ../shared/tools it exits 77: NOT RUN, loudly (a failure under CI=true).
# Usage: tests/nvidia/run-legacy-mode-test.sh HOOK SOURCE_DIR
# The toolkit is unpacked once into the cache nvidia/toolkit-1.20.0 (tests/support/cache.sh).
set -u
HOOK=$(readlink -f "$1")
SRC=$2
# shellcheck source=../support/tally.sh
. "$SRC/tests/support/tally.sh"
# shellcheck source=../support/shared-tools.sh
. "$SRC/tests/support/shared-tools.sh"
TALLY_NAME="NVIDIA toolkit 1.20.0 modes"

if ! tarball=$(shared_tool_tarball nvidia-container-toolkit nvidia-container-toolkit-1.20.0-amd64.tar.xz); then
	if [ "${CI:-}" = "true" ]; then echo "FAIL: CI=true and NVIDIA's toolkit is not in shared/tools"; exit 1; fi
	echo "NOT RUN: ***** NVIDIA toolkit 1.20.0 is not in $(shared_tools_dir): install --runtime nvidia-legacy against the real nvidia-ctk and nvidia-container-runtime not proven on this run *****"
	exit 77
fi
P=$(unpack_cached "$tarball" nvidia/toolkit-1.20.0) || { echo "FAIL: cannot unpack $tarball"; exit 1; }
CTK=$P/bin/nvidia-ctk

T=$(mktemp -d /tmp/gnh-nvidia.XXXXXX)
trap 'rm -rf "$T"' EXIT
R=$T/root
NV=/etc/nvidia-container-runtime/config.toml   # the host's path, beneath $R
mkdir -p "$R/etc/nvidia-container-runtime" "$R/etc/gpu-numa-hook" "$R/usr/bin"
cp "$P/etc/nvidia-container-runtime/config.toml" "$R$NV"
cp "$SRC/config/config.toml" "$R/etc/gpu-numa-hook/config.toml"
for b in gpu-numa-hook nvidia-container-runtime-hook; do printf '#!/bin/sh\nexit 0\n' >"$R/usr/bin/$b"; chmod 755 "$R/usr/bin/$b"; done

set_mode() { "$CTK" config --config-file="$1" --in-place --set "nvidia-container-runtime.mode=$2" >/dev/null 2>&1; }
gnh() { OUT=$("$HOOK" --host-root "$R" "$@" 2>"$T/err"); RC=$?; ERR=$(cat "$T/err"); }
digest() { sha256sum <"$1" | cut -d' ' -f1; }

for mode in auto cdi jit-cdi; do
	set_mode "$R$NV" "$mode" || { fail "nvidia-ctk mode=$mode" "nvidia-ctk config --set failed"; continue; }
	grep -qx "mode = \"$mode\"" "$R$NV" || { fail "nvidia-ctk mode=$mode" "no 'mode = \"$mode\"' line: $(one_line <"$R$NV")"; continue; }
	before=$(digest "$R$NV")
	for dry in "" --dry-run; do
		name="mode $mode: install --runtime nvidia-legacy ${dry:-(for real)} refused"
		gnh install --runtime nvidia-legacy $dry
		want="gpu-numa-hook: error: install: --runtime nvidia-legacy refused, nothing written: $R$NV has [nvidia-container-runtime] mode = \"$mode\""
		if [ "$RC" != 2 ]; then fail "$name" "exit $RC, want 2: $(echo "$OUT $ERR" | one_line)"
		elif [ "$(echo "$ERR" | wc -l)" != 1 ] || [ "${ERR#"$want"}" = "$ERR" ]; then fail "$name" "stderr: $(echo "$ERR" | one_line)"
		elif [ "${ERR#*"never runs [nvidia-container-runtime-hook] path"}" = "$ERR" ] || [ "${ERR#*"set mode = \"legacy\""}" = "$ERR" ]; then
			fail "$name" "the line says neither why nor what to do: $ERR"
		elif [ "$(digest "$R$NV")" != "$before" ] || [ -e "$R$NV.gpu-numa-hook.bak" ] || [ -e "$R/etc/gpu-numa-hook/install-state.json" ]; then
			fail "$name" "something was written"
		else pass "$name"; fi
	done
done

# legacy: installed in place, undone byte for byte
set_mode "$R$NV" legacy
legacy_text=$(cat "$R$NV"; echo .)
gnh install --runtime nvidia-legacy
hook_line=$(sed -n '/^\[nvidia-container-runtime-hook\]$/,/^\[/p' "$R$NV" | grep '^path = ')
if [ "$RC" = 0 ] && [ "$hook_line" = 'path = "/usr/bin/gpu-numa-hook"' ] &&
	[ "$(diff <(echo "$legacy_text") <(cat "$R$NV"; echo .) | grep -c '^[<>]')" = 2 ]; then
	pass "mode legacy: installed, the one path line changed in place"
else fail "mode legacy: installed in place" "exit $RC, hook line '$hook_line': $(diff <(echo "$legacy_text") <(cat "$R$NV"; echo .) | one_line) $ERR"; fi
gnh status
if [ "${OUT#*not protected: nvidia-legacy}" = "$OUT" ]; then pass "mode legacy: status does not call the registration unprotected"
else fail "mode legacy: status" "$(echo "$OUT" | grep 'not protected' | one_line)"; fi
gnh install --runtime nvidia-legacy --uninstall
if [ "$RC" = 0 ] && [ "$(cat "$R$NV"; echo .)" = "$legacy_text" ]; then pass "mode legacy: uninstall gives NVIDIA's file back byte for byte"
else fail "mode legacy: uninstall" "exit $RC: $(diff <(echo "$legacy_text") <(cat "$R$NV"; echo .) | one_line) $ERR"; fi

# installed, then the mode changed behind install's back: status says so
gnh install --runtime nvidia-legacy
set_mode "$R$NV" auto
gnh status
want="not protected: nvidia-legacy: $NV has [nvidia-container-runtime] mode = \"auto\" (auto resolves to jit-cdi"
if [ "$RC" = 1 ] && [ "$(echo "$OUT" | grep -c '^not protected: nvidia-legacy: ')" = 1 ] && [ "${OUT#*"$want"}" != "$OUT" ]; then
	pass "installed, then nvidia-ctk mode=auto: status not protected (exit 1), one line with the mode and the file"
else fail "status after mode=auto" "exit $RC: $(echo "$OUT" | grep 'protected' | one_line)"; fi
gnh install --runtime nvidia-legacy --uninstall

# The real nvidia-container-runtime in legacy mode injects the hook install named, and runc runs it.
if [ "$(id -u)" != 0 ]; then skip "nvidia-container-runtime create" "needs root (runc)"; finish; fi
B=$T/bundle
mkdir -p "$B/rootfs/bin" "$T/bin"
install -m 0755 "$(readlink -f "$(command -v busybox)")" "$B/rootfs/bin/busybox"
ln -s busybox "$B/rootfs/bin/sh"
(cd "$T" && /usr/sbin/runc spec && mv config.json spec.json)
python3 - "$T/spec.json" "$B/config.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["root"] = {"path": "rootfs", "readonly": True}
s["process"]["terminal"] = False
s["process"]["args"] = ["/bin/sh", "-c", "exit 0"]
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
# a stand-in with our hook's name, recording that runc ran it: this case is about NVIDIA's runtime
# shellcheck disable=SC2016 # $0 and $* are the stand-in's
printf '#!/bin/sh\necho "$0 $*" >>%s/hook-ran\ncat >/dev/null\n' "$T" >"$T/bin/gpu-numa-hook"
chmod 755 "$T/bin/gpu-numa-hook"
C=$T/nvidia.toml
cp "$P/etc/nvidia-container-runtime/config.toml" "$C"
"$CTK" config --config-file="$C" --in-place --set nvidia-container-runtime.mode=legacy \
	--set nvidia-container-runtime.runtimes=/usr/sbin/runc --set nvidia-container-runtime.debug="$T/runtime.log" \
	--set nvidia-container-runtime.log-level=debug >/dev/null 2>&1
printf '[chain]\nnext-hook = ""\n' >"$T/ours.toml"
"$HOOK" --config "$T/ours.toml" install --runtime nvidia-legacy --runtime-config "$C" --hook-path "$T/bin/gpu-numa-hook" >/dev/null 2>"$T/err" ||
	fail "install on the runtime's config" "$(one_line <"$T/err")"
NVIDIA_CTK_CONFIG_FILE_PATH=$C "$P/bin/nvidia-container-runtime" --root "$T/runc-root" create --bundle "$B" gnh-nvidia-legacy >"$T/create.out" 2>&1
rc=$?
/usr/sbin/runc --root "$T/runc-root" delete -f gnh-nvidia-legacy >/dev/null 2>&1
# the path is what install wrote; args[0] is the runtime's business, the stage is prestart
prestart=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1])).get("hooks",{}).get("prestart") or []; print(len(h), h[0]["path"] if h else "-", (h[0].get("args") or ["-"])[-1] if h else "-")' "$B/config.json")
prestart_json=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])).get("hooks")))' "$B/config.json")
if [ "$rc" = 0 ] && [ "$prestart" = "1 $T/bin/gpu-numa-hook prestart" ] && grep -q "gpu-numa-hook prestart" "$T/hook-ran" 2>/dev/null; then
	pass "nvidia-container-runtime (legacy) create: config.json's prestart hook is the one install named ($prestart_json), and runc ran it"
else fail "nvidia-container-runtime create" "exit $rc, hooks $prestart_json: $(one_line <"$T/create.out")"; fi
finish
