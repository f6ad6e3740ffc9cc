#!/bin/bash
# NVIDIA's real `nvidia-ctk runtime configure` (toolkit 1.20.0, shared/tools) and our install on the
# same engine files, in both orders, judged by the real containerd's config dump and by status:
#   docker, NVIDIA first: install --set-default (run twice: the second changes no byte) makes gpu-numa the default and chains the shim to
#     nvidia-container-runtime; status names no docker problem; uninstall gives daemon.json back
#     byte for byte as nvidia-ctk left it.
#   docker, ours first: nvidia-ctk --set-as-default takes the default: status says not protected
#     (exit 1), naming the file and the fix; install --set-default again takes it back, chained to
#     NVIDIA's runtime; uninstall keeps NVIDIA's edits.
#   containerd, both orders (nvidia-ctk's drop-in, --set-as-default): the config dump's default is
#     gpu-numa either way (our drop-in is read after NVIDIA's), NVIDIA's runtime is kept, and
#     uninstall gives every file back byte for byte as nvidia-ctk left it.
# Files live in a temp dir. The shim finds `nvidia-container-runtime` (daemon.json's bare name) on its
# fixed PATH: a tmpfs over /usr/local/sbin in a private mount namespace holds a link to NVIDIA's.
# Without ../shared/tools it exits 77: NOT RUN, loudly (a failure under CI=true).
# Usage: tests/nvidia/run-ctk-configure-test.sh HOOK SHIM SOURCE_DIR
set -u
HOOK=$(readlink -f "$1")
SHIM=$(readlink -f "$2")
SRC=$3
# shellcheck source=../support/tally.sh
. "$SRC/tests/support/tally.sh"
# shellcheck source=../support/shared-tools.sh
. "$SRC/tests/support/shared-tools.sh"
TALLY_NAME="nvidia-ctk runtime configure and install, both orders"
if [ "$(id -u)" != 0 ]; then skip "all cases" "not root (a mount namespace)"; finish; fi
if ! tarball=$(shared_tool_tarball nvidia-container-toolkit nvidia-container-toolkit-1.20.0-amd64.tar.xz); then
	if [ "${CI:-}" = "true" ]; then echo "FAIL: CI=true and NVIDIA's toolkit is not in shared/tools"; exit 1; fi
	echo "NOT RUN: ***** NVIDIA toolkit 1.20.0 is not in $(shared_tools_dir): nvidia-ctk runtime configure beside install not proven on this run *****"
	exit 77
fi
P=$(unpack_cached "$tarball" nvidia/toolkit-1.20.0) || { echo "FAIL: cannot unpack $tarball"; exit 1; }
if [ -z "${GNH_CTK_IN_NS:-}" ]; then
	exec env GNH_CTK_IN_NS=1 unshare -m --propagation private -- /bin/bash "$0" "$@"
fi
mount -t tmpfs -o size=1m,mode=0755 gnh-ctk /usr/local/sbin || { fail "setup" "cannot mount a tmpfs over /usr/local/sbin"; finish; }
ln -s "$P/bin/nvidia-container-runtime" /usr/local/sbin/nvidia-container-runtime
T=$(mktemp -d /tmp/gnh-ctk.XXXXXX)
trap 'rm -rf "$T"' EXIT

ctk() { "$P/bin/nvidia-ctk" runtime configure "$@" >"$T/ctk.out" 2>&1 || fail "nvidia-ctk runtime configure $*" "$(one_line <"$T/ctk.out")"; }
# gnh D ARGS...: our binary with D's own config (install-state.json beside it); sets RC and OUT
gnh() { local d=$1; shift; OUT=$("$HOOK" --config "$d/ours.toml" "$@" 2>&1); RC=$?; }
inst() { gnh "$1" install --runtime "$2" --runtime-config "$3" --runtime-path "$SHIM" --hook-path "$HOOK" "${@:4}"; }
# snapshot D: every file under D with its digest (a run that changes no byte leaves it equal)
snapshot() { (cd "$1" && for f in $(find . -type f | sort); do echo "$f $(sha256sum <"$f")"; done); }
our_next() { grep '^next = ' "$1/ours.toml"; }
# docker_status D: status with D's config; STATUS_LINE: its docker line of "not protected", if any
docker_status() { gnh "$1" status; STATUS_LINE=$(echo "$OUT" | grep '^not protected: docker: '); }
NEXT_NV='next = ["/usr/local/sbin/nvidia-container-runtime", "runc", "crun"]'

# ---------------------------------------------------------------- docker
for order in nvidia-first ours-first; do
	D=$T/docker-$order; mkdir -p "$D"; cp "$SRC/config/config.toml" "$D/ours.toml"
	echo '{}' >"$D/daemon.json"
	if [ $order = nvidia-first ]; then
		ctk --runtime=docker --config="$D/daemon.json" --set-as-default
		cp "$D/daemon.json" "$D/after-ctk.json"
		inst "$D" docker "$D/daemon.json" --set-default
		name="docker, nvidia-ctk first: install --set-default takes the default, keeps NVIDIA's runtime, chains the shim to it"
		if [ "$RC" != 0 ]; then fail "$name" "install exit $RC: $(echo "$OUT" | one_line)"
		elif [ "$(jq -r '."default-runtime"' "$D/daemon.json")" != gpu-numa ] || [ "$(jq -r '.runtimes.nvidia.path' "$D/daemon.json")" != nvidia-container-runtime ]; then
			fail "$name" "daemon.json: $(jq -c . "$D/daemon.json")"
		elif [ "$(our_next "$D")" != "$NEXT_NV" ]; then fail "$name" "our $(our_next "$D")"
		elif docker_status "$D" && [ -n "$STATUS_LINE" ]; then fail "$name" "status: $STATUS_LINE"
		else pass "$name"; fi
		before=$(snapshot "$D")
		inst "$D" docker "$D/daemon.json" --set-default
		if [ "$RC" = 0 ] && [ "$(snapshot "$D")" = "$before" ]; then pass "docker, nvidia-ctk first: install run again changes no byte"
		else fail "docker, second install" "exit $RC: $(diff <(echo "$before") <(snapshot "$D") | one_line)"; fi
		inst "$D" docker "$D/daemon.json" --uninstall
		name="docker, nvidia-ctk first: uninstall gives daemon.json back byte for byte as nvidia-ctk left it"
		if [ "$RC" = 0 ] && cmp -s "$D/daemon.json" "$D/after-ctk.json"; then pass "$name"
		else fail "$name" "exit $RC: $(diff "$D/after-ctk.json" "$D/daemon.json" | one_line)"; fi
	else
		inst "$D" docker "$D/daemon.json" --set-default
		[ "$RC" = 0 ] || fail "docker, ours first: install" "exit $RC: $(echo "$OUT" | one_line)"
		ctk --runtime=docker --config="$D/daemon.json" --set-as-default
		name="docker, ours first, then nvidia-ctk --set-as-default: status not protected, naming the file and the fix"
		docker_status "$D"; line=$STATUS_LINE
		want="not protected: docker: install made gpu-numa the default runtime, but $D/daemon.json now makes 'nvidia' the default"
		if [ "$(jq -r '."default-runtime"' "$D/daemon.json")" != nvidia ]; then fail "$name" "nvidia-ctk did not take the default: $(jq -c . "$D/daemon.json")"
		elif [ "$RC" != 1 ] || [ "${line#"$want"}" = "$line" ] || [ "${line#*"install --runtime docker --set-default again"}" = "$line" ]; then
			fail "$name" "status exit $RC: ${line:-no docker line}"
		else pass "$name"; echo "  $line"; fi
		inst "$D" docker "$D/daemon.json" --set-default
		name="docker, ours first: install --set-default again takes the default back, chained to NVIDIA's runtime; status names no docker problem"
		if [ "$RC" != 0 ] || [ "$(jq -r '."default-runtime"' "$D/daemon.json")" != gpu-numa ]; then fail "$name" "exit $RC: $(echo "$OUT" | one_line); $(jq -c . "$D/daemon.json")"
		elif [ "$(our_next "$D")" != "$NEXT_NV" ]; then fail "$name" "our $(our_next "$D")"
		elif docker_status "$D" && [ -n "$STATUS_LINE" ]; then fail "$name" "status: $STATUS_LINE"
		else pass "$name"; fi
		inst "$D" docker "$D/daemon.json" --uninstall
		# what nvidia-ctk alone makes of the original file
		echo '{}' >"$D/ref.json"; ctk --runtime=docker --config="$D/ref.json" --set-as-default
		name="docker, ours first: uninstall leaves what nvidia-ctk alone makes (its runtime, its default), no backup behind"
		if [ "$RC" = 0 ] && [ "$(jq -S -c . "$D/daemon.json")" = "$(jq -S -c . "$D/ref.json")" ] && [ ! -e "$D/daemon.json.gpu-numa-hook.bak" ]; then
			pass "$name ($(jq -c . "$D/daemon.json"))"
		else fail "$name" "exit $RC: $(echo "$OUT" | one_line); $(jq -c . "$D/daemon.json"); backup: $(ls "$D")"; fi
	fi
done

# ---------------------------------------------------------------- containerd (the system's, config dump)
P_CRI='plugins."io.containerd.grpc.v1.cri".containerd'
dump() { containerd --config "$1" config dump 2>/dev/null; }
# value KEY TABLE DUMP: KEY's value in [TABLE] of a config dump
value() { awk -v t="[$2]" -v k="$1" '$0 ~ /^ *\[/ { in_t = ($1 == t) } in_t && $1 == k { print $3; exit }' <<<"$3"; }
configure() { ctk --runtime=containerd --config="$1/config.toml" --drop-in-config="$1/conf.d/99-nvidia.toml" --set-as-default; }
# chained DUMP D: the dump has gpu-numa (the shim) as the default beside NVIDIA's runtime, and our
# config runs NVIDIA's after the shim; the reason why not in WHY
chained() {
	WHY=""
	if [ "$(value default_runtime_name "$P_CRI" "$1")" != '"gpu-numa"' ]; then WHY="default_runtime_name $(value default_runtime_name "$P_CRI" "$1")"
	elif [ "$(value BinaryName "$P_CRI.runtimes.nvidia.options" "$1")" != '"/usr/bin/nvidia-container-runtime"' ]; then WHY="no NVIDIA runtime in the dump"
	elif [ "$(value BinaryName "$P_CRI.runtimes.gpu-numa.options" "$1")" != "\"$SHIM\"" ]; then WHY="gpu-numa's BinaryName $(value BinaryName "$P_CRI.runtimes.gpu-numa.options" "$1")"
	elif [ "$(our_next "$2")" != 'next = ["/usr/bin/nvidia-container-runtime", "runc", "crun"]' ]; then WHY="our $(our_next "$2")"
	fi
	[ -z "$WHY" ]
}
containerd_status() { gnh "$1" status; STATUS_LINE=$(echo "$OUT" | grep '^not protected: containerd: ' | head -n 1); }
# the files of D and of a reference REF made in another directory, REF's name replaced by D's
same_files() { diff <(cd "$1" && grep -r . --exclude=ours.toml | sort) <(cd "$2" && grep -r . --exclude=ours.toml | sed "s#$2#$1#g" | sort) >"$T/diff"; }
VER=$(containerd --version | awk '{print $3}')

# nvidia-ctk first
D=$T/containerd-nvidia-first; mkdir -p "$D/conf.d"; cp "$SRC/config/config.toml" "$D/ours.toml"
printf 'version = 2\n' >"$D/config.toml"
configure "$D"; cp -a "$D" "$T/containerd-after-ctk"
inst "$D" containerd "$D/config.toml" --set-default
name="containerd $VER, nvidia-ctk first (its drop-in, --set-as-default), then install --set-default: config dump's default is gpu-numa, NVIDIA's runtime kept, the shim chained to it"
if [ "$RC" != 0 ]; then fail "$name" "install exit $RC: $(echo "$OUT" | one_line)"
elif ! chained "$(dump "$D/config.toml")" "$D"; then fail "$name" "$WHY"
elif containerd_status "$D" && [ -n "$STATUS_LINE" ]; then fail "$name" "status: $STATUS_LINE"
else pass "$name"; fi
before=$(snapshot "$D")
inst "$D" containerd "$D/config.toml" --set-default
if [ "$RC" = 0 ] && [ "$(snapshot "$D")" = "$before" ]; then
	pass "containerd $VER, nvidia-ctk first: install run again changes no byte"
else fail "containerd, second install" "exit $RC: $(echo "$OUT" | one_line)"; fi
inst "$D" containerd "$D/config.toml" --uninstall
name="containerd $VER, nvidia-ctk first: uninstall gives every file back byte for byte as nvidia-ctk left it"
if [ "$RC" = 0 ] && same_files "$D" "$T/containerd-after-ctk"; then pass "$name"; else fail "$name" "exit $RC: $(one_line <"$T/diff")"; fi

# ours first: nvidia-ctk appends its conf.d glob to imports, after our entry, so containerd reads
# NVIDIA's drop-in after ours: on 1.x its CRI table replaces ours whole, on 2.x its default wins
D=$T/containerd-ours-first; mkdir -p "$D/conf.d"; cp "$SRC/config/config.toml" "$D/ours.toml"
printf 'version = 2\n' >"$D/config.toml"
inst "$D" containerd "$D/config.toml" --set-default
[ "$RC" = 0 ] || fail "containerd $VER, ours first: install" "exit $RC: $(echo "$OUT" | one_line)"
configure "$D"
DUMP=$(dump "$D/config.toml")
containerd_status "$D"
name="containerd $VER, ours first, then nvidia-ctk --set-as-default: NVIDIA's drop-in is read after ours; status not protected, naming it and the fix"
if [ "$(value default_runtime_name "$P_CRI" "$DUMP")" != '"nvidia"' ]; then fail "$name" "the dump's default is $(value default_runtime_name "$P_CRI" "$DUMP"): nvidia-ctk no longer takes it, this case needs a new look"
elif [ "$RC" != 1 ] || [ "${STATUS_LINE#*"$D/conf.d/99-nvidia.toml"}" = "$STATUS_LINE" ] || [ "${STATUS_LINE#*'last in '}" = "$STATUS_LINE" ]; then
	fail "$name" "status exit $RC: ${STATUS_LINE:-no containerd line}"
else pass "$name"; echo "  $STATUS_LINE"; fi
# the operator's fix, as status words it: our entry last in imports; then install again
sed -i 's#^imports = \["conf.d/99-zz-gpu-numa.toml", \(.*\)\]$#imports = [\1, "conf.d/99-zz-gpu-numa.toml"]#' "$D/config.toml"
inst "$D" containerd "$D/config.toml" --set-default
name="containerd $VER, ours first: our entry put last in imports, install --set-default again: the default is gpu-numa, chained to NVIDIA's runtime; status names no containerd problem"
if [ "$RC" != 0 ]; then fail "$name" "install exit $RC: $(echo "$OUT" | one_line) (imports: $(grep '^imports' "$D/config.toml"))"
elif ! chained "$(dump "$D/config.toml")" "$D"; then fail "$name" "$WHY"
elif containerd_status "$D" && [ -n "$STATUS_LINE" ]; then fail "$name" "status: $STATUS_LINE"
else pass "$name"; fi
inst "$D" containerd "$D/config.toml" --uninstall
name="containerd $VER, ours first: uninstall removes ours, NVIDIA's edits stay, no backup behind"
R=$T/containerd-ref; mkdir -p "$R/conf.d"; printf 'version = 2\n' >"$R/config.toml"; configure "$R"
if [ "$RC" = 0 ] && [ "$(dump "$D/config.toml" | grep -v -e '^imports' -e '^version')" = "$(dump "$R/config.toml" | grep -v -e '^imports' -e '^version')" ] &&
	[ ! -e "$D/conf.d/99-zz-gpu-numa.toml" ] && [ -z "$(find "$D" -name '*.gpu-numa-hook.bak')" ]; then pass "$name"
else fail "$name" "exit $RC: $(echo "$OUT" | one_line); $(diff <(dump "$R/config.toml") <(dump "$D/config.toml") | one_line); $(ls -R "$D" | one_line)"; fi
finish
