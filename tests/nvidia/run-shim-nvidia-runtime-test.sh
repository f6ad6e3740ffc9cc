#!/bin/bash
# Our shim in front of NVIDIA's real nvidia-container-runtime 1.20.0 (shared/tools), in front of
# real runc, on this machine's cgroups; only the driver is faked (tests/engine/lib.sh: its files
# over /proc/driver in a private mount namespace, device nodes made with mknod under the temp dir).
#   mode cdi: NVIDIA's runtime turns NVIDIA_VISIBLE_DEVICES=0, or a cdi.k8s.io/ annotation, into
#     linux.devices from a CDI spec in nvidia-ctk's format (GPU 0, /dev/nvidiactl, /dev/nvidia-modeset)
#     and sets the variable to void; our hook, which the shim registered before NVIDIA's runtime ran,
#     sees GPU 0 (not the modeset node) and allows; the same start with GPU memory that is not
#     online is refused, and our line reaches the shim's caller through both runtimes.
#   every mode (cdi, legacy, auto): a container whose config.json shows nothing NVIDIA's runtime
#     reads starts through the chain without our hook; the shim logs the fast path's line itself
#     (legacy mode still adds NVIDIA's own hook).
#   mode legacy: NVIDIA's real hook reads NVIDIA_VISIBLE_DEVICES (its nvidia-container-cli, which
#     needs the driver, records its arguments instead); our hook sees NVIDIA's hook in config.json
#     and counts the variable: allows GPU 0, refuses it with GPU memory not online before NVIDIA's
#     hook runs, and, with NVIDIA set not to take the variable from unprivileged containers, gives
#     such a container no GPU, as NVIDIA's hook does.
#   mode auto (NVIDIA's default, jit-cdi here): a GPU request fails with NVIDIA's own NVML error,
#     which the shim does not mask.
#   the GPU operator's layout (the toolkit laid out by the real nvidia-ctk-installer 1.20.0, hardened,
#     mode legacy): a GPU from the device plugin's volume-mounts strategy is the one NVIDIA's hook
#     asks its cli for and the one our hook allows, or refuses with its line; an unprivileged pod's
#     variable gives neither hook a GPU, and our log names the wrapper's config.toml.
# Without ../shared/tools it exits 77: NOT RUN, loudly (a failure under CI=true).
# Usage: tests/nvidia/run-shim-nvidia-runtime-test.sh HOOK SHIM SOURCE_DIR
SRC=$3
. "$SRC/tests/engine/lib.sh"
# shellcheck source=../support/shared-tools.sh
. "$SRC/tests/support/shared-tools.sh"
TALLY_NAME="shim in front of nvidia-container-runtime 1.20.0"
HOOK=$(abs "$1")
SHIM=$(abs "$2")
cleanup() {
	local id
	for id in $(runc --root "$TMP/state/runc" list -q 2>/dev/null); do runc --root "$TMP/state/runc" delete -f "$id" >/dev/null 2>&1; done
	for d in /sys/fs/cgroup/*/gnh-nvrt /sys/fs/cgroup/gnh-nvrt; do [ -d "$d" ] && { rmdir "$d"/*"$RUNID"* 2>/dev/null; rmdir "$d" 2>/dev/null; }; done
	[ "${GNH_RT_KEEP:-}" = 1 ] && echo "kept $TMP" >&2 || rm -rf --one-file-system "$TMP"
}
trap cleanup EXIT
need_tools runc jq unshare busybox mknod
[ -x "$HOOK" ] && [ -x "$SHIM" ] || { fail "binaries" "$HOOK or $SHIM missing (build first)"; finish; }
if ! tarball=$(shared_tool_tarball nvidia-container-toolkit nvidia-container-toolkit-1.20.0-amd64.tar.xz); then
	if [ "${CI:-}" = "true" ]; then fail "NVIDIA's toolkit" "CI=true and it is not in shared/tools"; finish; fi
	echo "NOT RUN: ***** NVIDIA toolkit 1.20.0 is not in $(shared_tools_dir): our shim in front of the real nvidia-container-runtime not proven on this run *****"
	exit 77
fi
P=$(unpack_cached "$tarball" nvidia/toolkit-1.20.0) || { fail "unpack" "$tarball"; finish; }
NVRT=$P/bin/nvidia-container-runtime
make_rootfs
make_driver online0 0 online
make_driver node1 1 online   # GPU memory on node 1, which this host does not have online

# The device nodes of one GPU, as the driver makes them, under the temp dir (the CDI spec's hostPath)
mkdir -p "$TMP/dev" "$TMP/cdi"
mknod -m 666 "$TMP/dev/nvidia0" c 195 0 && mknod -m 666 "$TMP/dev/nvidiactl" c 195 255 &&
	mknod -m 666 "$TMP/dev/nvidia-modeset" c 195 254 || { fail "mknod" "cannot make the fake device nodes"; finish; }
write_nvidia_cdi_spec "$TMP/cdi/nvidia.json" "$TMP/dev"

# nvidia_config MODE: NVIDIA's packaged config.toml set by the real nvidia-ctk, as an operator sets it
nvidia_config() {
	local c=$TMP/nvidia-$1.toml
	cp "$P/etc/nvidia-container-runtime/config.toml" "$c"
	"$P/bin/nvidia-ctk" config --config-file="$c" --in-place --set "nvidia-container-runtime.mode=$1" \
		--set nvidia-container-runtime.runtimes=/usr/sbin/runc --set "nvidia-container-runtime.modes.cdi.spec-dirs=$TMP/cdi" \
		--set "nvidia-container-runtime.debug=$TMP/logs/nvidia-$1.log" --set nvidia-container-runtime.log-level=debug \
		--set "nvidia-container-runtime-hook.path=$P/bin/nvidia-container-runtime-hook" >/dev/null 2>&1 ||
		{ fail "nvidia-ctk config mode=$1" "nvidia-ctk config --set failed"; return 1; }
	echo "$c"
}

# bundle NAME JQ: a runc-spec bundle (cgroup /gnh-nvrt/NAME-RUNID) edited by JQ
bundle() {
	local b="$TMP/bundles/$1"
	mkdir -p "$b"
	runc spec --bundle "$b"
	jq --arg root "$TMP/rootfs" --arg cg "/gnh-nvrt/$1-$RUNID" "
        .process.terminal = false | .process.args = [\"sh\", \"-c\", \"exit 0\"]
        | .root = {path: \$root, readonly: true} | .linux.cgroupsPath = \$cg | $2" \
		"$b/config.json" >"$b/c.new" && mv "$b/c.new" "$b/config.json"
	echo "$b"
}
# create MODE DRIVER NAME BUNDLE: `create` through the shim, NVIDIA's runtime next; sets RC, OUT, ID
create() {
	local nvcfg
	nvcfg=$(nvidia_config "$1") || { RC=99; OUT=""; return; }
	ID=$3-$RUNID
	write_config "$3" "[runtime]" "hook = \"$HOOK\"" "next = [\"$NVRT\"]"
	in_ns "$2" "$3" env NVIDIA_CTK_CONFIG_FILE_PATH="$nvcfg" timeout 60 "$SHIM" --root "$TMP/state/runc" \
		create --bundle "$4" "$ID" </dev/null >"$TMP/out/$3" 2>&1
	RC=$?
	OUT=$(cat "$TMP/out/$3")
}
delete() { runc --root "$TMP/state/runc" delete -f "$ID" >/dev/null 2>&1; }
ours_at_prestart() { jq --arg h "$HOOK" '[.hooks.prestart[]? | select(.path == $h)] | length' "$1/config.json"; }
# linux.devices of major 195, sorted (NVIDIA's runtime applies the spec-wide edits first)
gpu_nodes() { jq -r '[.linux.devices[]? | select(.major == 195) | "\(.path)=195:\(.minor)"] | sort | join(",")' "$1/config.json"; }
log_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n1; }   # stdin: one log line
evidence() { printf '  %s\n' "$2" "$3"; }   # NAME WHAT LOGLINE: what the case saw, under its PASS line
log_line() { grep " container=$ID stage=prestart " "$TMP/logs/$1.log"; }

# --- mode cdi: the GPU from NVIDIA_VISIBLE_DEVICES, then from a cdi.k8s.io/ annotation
for form in env annotation; do
	if [ $form = env ]; then B=$(bundle cdi-$form '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
	else B=$(bundle cdi-$form '.annotations["cdi.k8s.io/gnh-test"] = "nvidia.com/gpu=0"'); fi
	name="mode cdi, GPU by $form: NVIDIA's runtime adds GPU 0 from the CDI spec, our hook sees it (not the modeset node) and allows"
	create cdi online0 "cdi-$form" "$B"
	line=$(log_line "cdi-$form")
	devs=$(gpu_nodes "$B")
	# NVIDIA's runtime appends =void; runc's init sets the entries in order, so the last one counts
	env_now=$(jq -r '[.process.env[] | select(startswith("NVIDIA_VISIBLE_DEVICES="))] | last // "-"' "$B/config.json")
	if [ "$RC" != 0 ]; then fail "$name" "create exit $RC: $(echo "$OUT" | one_line); NVIDIA's log: $(grep -i -E 'error|cdi' "$TMP/logs/nvidia-cdi.log" | tail -3 | one_line)"
	elif [ "$devs" != "/dev/nvidia-modeset=195:254,/dev/nvidia0=195:0,/dev/nvidiactl=195:255" ]; then fail "$name" "NVIDIA's edit is not the CDI spec's: linux.devices $devs"
	elif [ "$env_now" != "NVIDIA_VISIBLE_DEVICES=void" ]; then fail "$name" "NVIDIA_VISIBLE_DEVICES after NVIDIA's edit: '$env_now'"
	elif [ "$(ours_at_prestart "$B")" != 1 ]; then fail "$name" "our hook is not in config.json once: $(jq -c .hooks "$B/config.json")"
	elif [ "$(echo "$line" | log_field action)" != allow ] || [ "$(echo "$line" | log_field gpus)" != "/dev/nvidia0($GPU_BUS)" ]; then
		fail "$name" "our log: ${line:-no line for $ID}"
	elif [ "${line#*unresolved}" != "$line" ]; then fail "$name" "the modeset node was taken for a GPU: $line"
	else pass "$name"; evidence "$name" "linux.devices $devs; $env_now" "$line"; fi
	delete
done

# --- mode cdi, refused: GPU 0's memory is on node 1, not online here
B=$(bundle cdi-refused '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
name="mode cdi, GPU memory not online: refused, our line reaches the shim's caller through NVIDIA's runtime and runc"
create cdi node1 cdi-refused "$B"
line=$(log_line cdi-refused)
if [ "$RC" = 0 ]; then fail "$name" "create succeeded: $(echo "$OUT" | one_line)"
elif [ "${OUT#*"gpu-numa-hook: container $ID: refusing start:"}" = "$OUT" ]; then fail "$name" "the caller did not get our line: $(echo "$OUT" | one_line)"
elif [ "$(echo "$line" | log_field action)" != refuse ]; then fail "$name" "our log: ${line:-no line for $ID}"
elif runc --root "$TMP/state/runc" list -q 2>/dev/null | grep -qx "$ID"; then fail "$name" "container left in runc's state"
else pass "$name"; evidence "$name" "$(echo "$OUT" | grep -o 'gpu-numa-hook: container.*' | head -n 1)" "$line"; fi
delete

# --- no GPU, in every mode: config.json shows nothing NVIDIA's runtime reads, so the shim
# registers no hook and logs the decision itself; the chain runs
for mode in cdi legacy auto; do
	B=$(bundle "plain-$mode" '.')
	name="mode $mode, no GPU: starts through shim, NVIDIA's runtime and runc; the shim registers no hook and logs the fast path"
	create "$mode" online0 "plain-$mode" "$B"
	line=$(grep " container=$ID stage=runtime-create " "$TMP/logs/plain-$mode.log")
	hooks=$(jq -r '[.hooks.prestart[]?.args[0]] | join(",")' "$B/config.json")
	want_hooks=""
	[ "$mode" = legacy ] && want_hooks=nvidia-container-runtime-hook   # legacy mode adds its own to every container
	if [ "$RC" != 0 ]; then fail "$name" "create exit $RC: $(echo "$OUT" | one_line)"
	elif [ "$hooks" != "$want_hooks" ]; then fail "$name" "prestart hooks '$hooks', want '$want_hooks'"
	elif [ "$(echo "$line" | log_field action)" != allow ] || [ "${line#*"$NVRT adds none"}" = "$line" ] ||
		grep -q " container=$ID stage=prestart " "$TMP/logs/plain-$mode.log"; then fail "$name" "our log: $(one_line <"$TMP/logs/plain-$mode.log")"
	elif ! runc --root "$TMP/state/runc" start "$ID" >/dev/null 2>&1; then fail "$name" "runc start failed"
	else pass "$name (prestart hooks: ${hooks:-none})"; fi
	delete
done

# --- mode legacy: NVIDIA's own hook reads NVIDIA_VISIBLE_DEVICES at the start, and our hook, seeing
# it in config.json, counts the variable. Its nvidia-container-cli, the part that needs the driver,
# is a program that records its arguments and exits 0. runc runs NVIDIA's hook with no environment,
# so it reads /etc/nvidia-container-runtime/config.toml: written inside the namespace (an overlay
# over /etc), where our hook reads NVIDIA's settings too.
mkdir -p "$TMP/bin"
make_nvidia_cli_recorder "$TMP/bin/nvidia-container-cli" "$TMP/cli-ran"
# create_legacy DRIVER NAME BUNDLE [KEY=VALUE...]: as create, mode legacy, the extra settings set by nvidia-ctk
create_legacy() {
	local nvcfg kv
	nvcfg=$(nvidia_config legacy) || { RC=99; OUT=""; return; }
	for kv in "nvidia-container-cli.path=$TMP/bin/nvidia-container-cli" "${@:4}"; do
		"$P/bin/nvidia-ctk" config --config-file="$nvcfg" --in-place --set "$kv" >/dev/null 2>&1 || { RC=99; OUT="nvidia-ctk --set $kv failed"; return; }
	done
	ID=$2-$RUNID
	rm -f "$TMP/cli-ran"
	write_config "$2" "[runtime]" "hook = \"$HOOK\"" "next = [\"$NVRT\"]"
	in_ns "$1" "$2" /bin/bash -c 'mkdir -p /etc/nvidia-container-runtime && cp "$1" /etc/nvidia-container-runtime/config.toml && shift && exec "$@"' \
		gnh-legacy "$nvcfg" env NVIDIA_CTK_CONFIG_FILE_PATH="$nvcfg" timeout 60 "$SHIM" --root "$TMP/state/runc" \
		create --bundle "$3" "$ID" </dev/null >"$TMP/out/$2" 2>&1
	RC=$?
	OUT=$(cat "$TMP/out/$2")
}
cli_args() { cat "$TMP/cli-ran" 2>/dev/null | one_line; }
# judge_refused NAME LOG: the start just made was refused with our line, before NVIDIA's hook ran
judge_refused() {
	local line
	line=$(log_line "$2")
	if [ "$RC" = 0 ]; then fail "$1" "create succeeded: $(echo "$OUT" | one_line)"
	elif [ "${OUT#*"gpu-numa-hook: container $ID: refusing start:"}" = "$OUT" ]; then fail "$1" "the caller did not get our line: $(echo "$OUT" | one_line)"
	elif [ "$(echo "$line" | log_field action)" != refuse ]; then fail "$1" "our log: ${line:-no line for $ID}"
	elif [ -e "$TMP/cli-ran" ]; then fail "$1" "NVIDIA's hook ran after our refusal: $(cli_args)"
	else pass "$1"; evidence "$1" "$(echo "$OUT" | grep -o 'gpu-numa-hook: container.*' | head -n 1)" "$line"; fi
}

B=$(bundle legacy-env '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
name="mode legacy, GPU by NVIDIA_VISIBLE_DEVICES: NVIDIA's hook reads it (its cli asked for device 0), our hook counts it and allows GPU 0"
create_legacy online0 legacy-env "$B"
line=$(log_line legacy-env)
hooks=$(jq -r '[.hooks.prestart[]?.path | split("/") | last] | join(",")' "$B/config.json")
if [ "$RC" != 0 ]; then fail "$name" "create exit $RC: $(echo "$OUT" | one_line)"
elif [ "$hooks" != "gpu-numa-hook,nvidia-container-runtime-hook" ]; then fail "$name" "prestart hooks: $hooks"
elif ! cli_args | grep -q -- '--device=0 '; then fail "$name" "NVIDIA's hook did not ask its cli for device 0: '$(cli_args)'"
elif [ "$(echo "$line" | log_field action)" != allow ] || [ "$(echo "$line" | log_field gpus)" != "/dev/nvidia0($GPU_BUS)" ]; then
	fail "$name" "our log: ${line:-no line for $ID}"
else pass "$name"; evidence "$name" "prestart hooks $hooks; NVIDIA's cli: $(cli_args | cut -c1-120)" "$line"; fi
delete

B=$(bundle legacy-refused '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
name="mode legacy, GPU memory not online: refused before NVIDIA's hook runs, our line reaches the caller"
create_legacy node1 legacy-refused "$B"
judge_refused "$name" legacy-refused
delete

# NVIDIA set not to take the variable from unprivileged containers: NVIDIA's hook gives this one no
# GPU, and ours agrees (GPU memory not online here would refuse it otherwise)
B=$(bundle legacy-unprivileged '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
name="mode legacy, accept-nvidia-visible-devices-envvar-when-unprivileged = false: neither NVIDIA's hook nor ours gives an unprivileged container the GPU"
create_legacy node1 legacy-unprivileged "$B" accept-nvidia-visible-devices-envvar-when-unprivileged=false
line=$(log_line legacy-unprivileged)
if [ "$RC" != 0 ]; then fail "$name" "create exit $RC: $(echo "$OUT" | one_line); our log: ${line:-none}"
elif [ -e "$TMP/cli-ran" ]; then fail "$name" "NVIDIA's hook asked its cli for a GPU: $(cli_args)"
elif [ "$(echo "$line" | log_field action)" != allow ] || [ "$(echo "$line" | log_field gpus)" != - ] ||
	[ "${line#*"ignores NVIDIA_VISIBLE_DEVICES from an unprivileged container"}" = "$line" ]; then fail "$name" "our log: ${line:-no line for $ID}"
else pass "$name"; evidence "$name" "NVIDIA's cli not run" "$line"; fi
delete

# --- mode auto with a GPU request: jit-cdi needs NVML, absent here; NVIDIA's error, not ours
B=$(bundle auto-gpu '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
name="mode auto (jit-cdi), GPU without a driver: NVIDIA's own error reaches the caller, the shim masks nothing"
create auto online0 auto-gpu "$B"
if [ "$RC" != 0 ] && [ "${OUT#*failed to initialize NVML}" != "$OUT" ] && [ -z "$(log_line auto-gpu)" ]; then pass "$name"
else fail "$name" "exit $RC: $(echo "$OUT" | one_line); our log: $(one_line <"$TMP/logs/auto-gpu.log")"; fi
delete

# --- the GPU operator's layout: the toolkit laid out by the real nvidia-ctk-installer 1.20.0 with
# the operator's hardened settings (volume mounts accepted, the variable refused from unprivileged
# pods): /bin/sh wrappers around *.real programs, NVIDIA's config.toml under .config, handed over by
# each wrapper in NVIDIA_CTK_CONFIG_FILE_PATH, and no /etc/nvidia-container-runtime. Mode legacy,
# the device plugin's volume-mounts strategy. The runtime's wrapper runs plain runc unless
# /proc/modules lists nvidia, and this kernel has no /proc/modules: the shim's next runtime is the
# installer's wrapper with that test cut out (its lines from the first `if` to `fi`), the rest as
# the installer wrote it.
operator_cases() {
	local inst installer art op cfg
	if ! inst=$("$SRC/tests/nri/fetch-nvidia-installer.sh" 2>"$TMP/inst.err"); then
		fail "the operator's layout: NVIDIA's installer" "tests/nri/fetch-nvidia-installer.sh: $(one_line <"$TMP/inst.err")"
		return
	fi
	installer=$(sed -n 1p <<<"$inst") art=$(sed -n 2p <<<"$inst") op=$TMP/operator
	mkdir -p "$TMP/op-run"
	unshare -m --propagation private -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS=true \
		"$installer" --no-daemon --runtime containerd --no-runtime-config --toolkit-install-dir "$op" \
		--toolkit-source-root "$art" --pid-file "$TMP/op-run/toolkit.pid" >"$TMP/logs/installer.log" 2>&1 ||
		{ fail "the operator's layout: the real installer" "$(tail -n 3 "$TMP/logs/installer.log" | one_line)"; return; }
	cfg=$op/toolkit/.config/nvidia-container-runtime/config.toml
	"$P/bin/nvidia-ctk" config --config-file="$cfg" --in-place --set nvidia-container-runtime.mode=legacy \
		--set nvidia-container-runtime.runtimes=/usr/sbin/runc --set "nvidia-container-cli.path=$TMP/bin/nvidia-container-cli" \
		--set "nvidia-container-runtime.debug=$TMP/logs/nvidia-operator.log" >/dev/null 2>&1 ||
		{ fail "the operator's layout: nvidia-ctk config" "cannot set mode legacy in $cfg"; return; }
	nvidia_runtime_as_loaded "$op/toolkit/nvidia-container-runtime" "$TMP/bin/nvidia-runtime-loaded" &&
		grep -q "^NVIDIA_CTK_CONFIG_FILE_PATH=$cfg " "$TMP/bin/nvidia-runtime-loaded" ||
		{ fail "the operator's layout: the runtime's wrapper" "not as expected: $(one_line <"$op/toolkit/nvidia-container-runtime")"; return; }
	local uuid=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c   # make_driver's GPU
	# op_create DRIVER NAME BUNDLE: `create` through the shim, the installer's runtime next
	op_create() {
		ID=$2-$RUNID
		rm -f "$TMP/cli-ran"
		write_config "$2" "[runtime]" "hook = \"$HOOK\"" "next = [\"$TMP/bin/nvidia-runtime-loaded\"]"
		in_ns "$1" "$2" timeout 60 "$SHIM" --root "$TMP/state/runc" create --bundle "$3" "$ID" </dev/null >"$TMP/out/$2" 2>&1
		RC=$?
		OUT=$(cat "$TMP/out/$2")
	}
	local mounts='.process.env += ["NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices"]
		| .mounts += [{destination: "/var/run/nvidia-container-devices/'$uuid'", type: "bind", source: "/dev/null", options: ["bind", "ro"]}]'
	B=$(bundle op-mounts "$mounts")
	name="the operator's layout, volume-mounts strategy: NVIDIA's hook (the installer's wrapper) asks its cli for the mounted GPU, our hook reads the wrapper's config.toml and allows GPU 0"
	op_create online0 op-mounts "$B"
	line=$(log_line op-mounts)
	hooks=$(jq -r '[.hooks.prestart[]?.path] | join(",")' "$B/config.json")
	if [ "$RC" != 0 ]; then fail "$name" "create exit $RC: $(echo "$OUT" | one_line); NVIDIA's log: $(tail -n 3 "$TMP/logs/nvidia-operator.log" 2>/dev/null | one_line)"
	elif [ "$hooks" != "$HOOK,$op/toolkit/nvidia-container-runtime-hook" ]; then fail "$name" "prestart hooks: $hooks"
	elif ! cli_args | grep -q -- "--device=$uuid "; then fail "$name" "NVIDIA's hook did not ask its cli for $uuid: '$(cli_args)'"
	elif [ "$(echo "$line" | log_field action)" != allow ] || [ "$(echo "$line" | log_field gpus)" != "/dev/nvidia0($GPU_BUS)" ] ||
		[ "${line#*unresolved}" != "$line" ]; then fail "$name" "our log: ${line:-no line for $ID}"
	else pass "$name"; evidence "$name" "prestart hooks $hooks; NVIDIA's cli: $(cli_args | cut -c1-120)" "$line"; fi
	delete

	B=$(bundle op-mounts-refused "$mounts")
	name="the operator's layout, volume-mounts strategy, GPU memory not online: refused with our line before NVIDIA's hook runs"
	op_create node1 op-mounts-refused "$B"
	judge_refused "$name" op-mounts-refused
	delete

	B=$(bundle op-unprivileged '.process.env += ["NVIDIA_VISIBLE_DEVICES=0"]')
	name="the operator's layout, the variable from an unprivileged pod: neither NVIDIA's hook nor ours gives it the GPU, ours names the wrapper's config.toml"
	op_create node1 op-unprivileged "$B"
	line=$(log_line op-unprivileged)
	if [ "$RC" != 0 ]; then fail "$name" "create exit $RC: $(echo "$OUT" | one_line); our log: ${line:-none}"
	elif [ -e "$TMP/cli-ran" ]; then fail "$name" "NVIDIA's hook asked its cli for a GPU: $(cli_args)"
	elif [ "$(echo "$line" | log_field action)" != allow ] || [ "$(echo "$line" | log_field gpus)" != - ] ||
		[ "${line#*"(settings: $cfg)"}" = "$line" ]; then fail "$name" "our log: ${line:-no line for $ID}"
	else pass "$name"; evidence "$name" "NVIDIA's cli not run" "$line"; fi
	delete
}
operator_cases
finish
