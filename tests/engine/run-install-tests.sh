#!/bin/bash
# `gpu-numa-hook install` on the engine files GPU nodes really have (issue 19), checked with a real
# containerd: `containerd --config FILE config dump` computes the effective configuration (imports
# merged as that release merges them, defaults filled in, 2.x's version migration) without starting
# a daemon. SUITE picks the containerd: bookworm (Debian 12's 1.6, the system's), trixie (1.7.24) or
# sid (2.1.9), the last two fetched and cached by tests/nri/fetch-containerd.sh and bound over
# /usr/bin in a private mount namespace, where install asks `/usr/bin/containerd --version`.
# 1.x replaces a plugin's whole table with an imported file's, 2.x merges key by key: the cases
# of each family run against the release that has it. CRI-O is not packaged for Debian 12: its
# drop-in is read back with Python's TOML reader. Docker's daemon.json is checked here as a file
# (bookworm only: it does not depend on containerd); tests/engine/run-engine-tests.sh runs it with
# the real dockerd. Everything lives in a temp dir; the host's /etc is never touched.
# Usage: tests/engine/run-install-tests.sh [HOOK] [SUITE]     SUITE: bookworm (default) | trixie | sid
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
HOOK=$(cd "$(dirname "${1:-$REPO/build/gpu-numa-hook}")" && pwd)/$(basename "${1:-$REPO/build/gpu-numa-hook}")
SUITE=${2:-bookworm}
. "$SCRIPT_DIR/containerd-suite.sh"
TALLY_NAME="install suite ($SUITE)"
. "$SCRIPT_DIR/../support/tally.sh"
use_containerd_suite "$SUITE" "$SCRIPT_DIR/run-install-tests.sh" "$HOOK" "$SUITE"
[ -x "$HOOK" ] || { fail "binary" "$HOOK missing"; finish; }
T=$(mktemp -d /tmp/gnh-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
SHIM=/usr/bin/gpu-numa-runtime
NV=/usr/local/nvidia/toolkit/nvidia-container-runtime
P='plugins."io.containerd.grpc.v1.cri".containerd'
OURS_DROPIN=conf.d/99-zz-gpu-numa.toml
# (containerd's log lines, timestamped, left out)
dump() { containerd --config "$1" config dump 2>&1 | grep -v '^time="'; }
# the TOML table [$2] of dump $1, up to the next header
table() { awk -v h="[$2]" '$0 == h || $0 ~ "^ *\\[" { p = (index($0, h) && $0 ~ "^ *\\" h "$") } p' <<<"$1"; }
inst() { OUT=$("$HOOK" install --runtime "$@" 2>&1); RC=$?; }
# a fresh copy of our shipped config beside the engine files
our_config() { cp "$REPO/config/config.toml" "$1/ours.toml"; cp "$1/ours.toml" "$1/ours.original"; }
# the dump without its `imports` line: it lists the files read in Go map order, which varies
dump_wo_imports() { dump "$1" | grep -v '^imports = '; }

# ---------------------------------------------------------------- containerd 1.x (1.6, 1.7), for real
if [ "$CTD_MAJOR" = 1 ]; then
# --- the GPU operator's layout: nvidia the default, runc and nvidia with SystemdCgroup = true
D_=$T/op; mkdir -p "$D_"; our_config "$D_"
sed "s#/usr/local/nvidia/toolkit/nvidia-container-runtime#$NV#" "$REPO/tests/fixtures/containerd/gpu-operator-v2.toml" >"$D_/config.toml"
cp "$D_/config.toml" "$D_/original.toml"
ORIG=$(dump "$D_/config.toml")
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --dry-run --config "$D_/ours.toml"
[ "$RC" = 0 ] && echo "$OUT" | grep -qxF "+imports = [\"$OURS_DROPIN\"]" && echo "$OUT" | grep -qxF "+++ $D_/$OURS_DROPIN" &&
    echo "$OUT" | grep -qxF 'dry run: nothing written' && cmp -s "$D_/config.toml" "$D_/original.toml" && [ ! -e "$D_/conf.d" ] &&
    pass "operator layout, --dry-run: the diff adds one imports line and our drop-in; nothing written" ||
    fail "dry run" "rc $RC $(echo "$OUT" | one_line)"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
OPTS=$(table "$D" "$P.runtimes.gpu-numa.options")
[ "$RC" = 0 ] && echo "$OPTS" | grep -qxF "            BinaryName = \"$SHIM\"" && echo "$OPTS" | grep -qxF '            SystemdCgroup = true' &&
    table "$D" "$P.runtimes.gpu-numa" | grep -qxF '          runtime_type = "io.containerd.runc.v2"' &&
    table "$D" "$P" | grep -qxF '      default_runtime_name = "nvidia"' &&
    table "$D" "$P.runtimes.nvidia.options" | grep -qxF "            BinaryName = \"$NV\"" &&
    pass "operator layout: config dump shows gpu-numa (runtime_type runc.v2, BinaryName the shim, SystemdCgroup = true copied from runc), nvidia still the default" ||
    fail "operator layout install" "rc $RC $(echo "$OUT" | one_line) options: $(echo "$OPTS" | one_line)"
[ "$(diff "$D_/original.toml" "$D_/config.toml")" = "1a2
> imports = [\"$OURS_DROPIN\"]" ] &&
    echo "$OUT" | grep -qxF "strategy: containerd $CTD_RELEASE (\`/usr/bin/containerd --version\`) replaces a plugin's whole table with an imported file's: $D_/$OURS_DROPIN carries the whole effective CRI table (from $D_/config.toml) plus gpu-numa; after editing that table, run install again" &&
    pass "operator layout: the main file's text is unchanged but for one imports line; the output names the 1.x strategy" ||
    fail "operator layout main text" "$(diff "$D_/original.toml" "$D_/config.toml" | one_line) out: $(echo "$OUT" | one_line)"
grep -qxF "next = [\"$NV\", \"runc\", \"crun\"]" "$D_/ours.toml" &&
    echo "$OUT" | grep -qxF "chain: containerd's runtime '$NV' is NVIDIA's: gpu-numa-runtime runs it next ([runtime] next in $D_/ours.toml)" &&
    [ "$(diff "$D_/ours.original" "$D_/ours.toml" | grep -c '^[<>]')" = 2 ] &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["containerd"]; assert r["previous_default"]=="nvidia" and r["previous_next"]==["runc","crun"] and r["import_added"]=="conf.d/99-zz-gpu-numa.toml", r' "$D_/install-state.json" &&
    pass "operator layout: our [runtime] next chains to NVIDIA's runtime first ($NV, runc, crun), one line of our config changed; install-state.json records what was displaced" ||
    fail "chain to nvidia" "$(grep -n '^next' "$D_/ours.toml" | one_line) out: $(echo "$OUT" | one_line) state: $(one_line <"$D_/install-state.json")"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
[ "$RC" = 0 ] && echo "$OUT" | grep -qxF "nothing to do: already installed" && pass "second install: nothing to do" || fail "second install" "$(echo "$OUT" | one_line)"
# --config after the subcommand is the same option as before it
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --set-default --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && table "$D" "$P" | grep -qxF '      default_runtime_name = "gpu-numa"' && pass "install --set-default (--config after the subcommand): gpu-numa is the default" ||
    fail "--set-default" "rc $RC $(echo "$OUT" | one_line)"
# the operator edits the main file: a setting and a registry mirror in the CRI table. On 1.x our
# drop-in holds a copy of that table, so install runs again; then uninstall keeps both edits.
sed -i '1a oom_score = -999' "$D_/config.toml"
printf '[plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]\n  endpoint = ["https://mirror.example"]\n' >>"$D_/config.toml"
cp "$D_/config.toml" "$D_/edited.toml"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && echo "$D" | grep -qF 'endpoint = ["https://mirror.example"]' && table "$D" "$P" | grep -qxF '      default_runtime_name = "gpu-numa"' &&
    pass "a mirror added to the main file, install run again: the dump has the mirror, gpu-numa stays the default (the earlier --set-default kept)" ||
    fail "re-run after edit" "rc $RC $(echo "$OUT" | one_line)"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --uninstall --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && table "$D" "$P" | grep -qxF '      default_runtime_name = "nvidia"' && ! echo "$D" | grep -q gpu-numa &&
    echo "$D" | grep -qxF 'oom_score = -999' && echo "$D" | grep -qF 'endpoint = ["https://mirror.example"]' &&
    [ "$(diff "$D_/edited.toml" "$D_/config.toml")" = "3d2
< imports = [\"$OURS_DROPIN\"]" ] && cmp -s "$D_/ours.toml" "$D_/ours.original" && [ ! -e "$D_/install-state.json" ] && [ ! -e "$D_/conf.d" ] &&
    pass "install, --set-default, edits, --uninstall: nvidia the default again, no gpu-numa, both edits kept, our imports line, drop-in, state and chain gone" ||
    fail "uninstall after an edit" "rc $RC $(echo "$OUT" | one_line) $(diff "$D_/edited.toml" "$D_/config.toml" | one_line)"
cp "$D_/original.toml" "$D_/config.toml"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --set-default
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --set-default
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --uninstall
[ "$RC" = 0 ] && [ "$(dump "$D_/config.toml")" = "$ORIG" ] && cmp -s "$D_/config.toml" "$D_/original.toml" &&
    pass "install --set-default twice, --uninstall: the main file is the original byte for byte and config dump is byte-identical" ||
    fail "uninstall exact" "rc $RC $(echo "$OUT" | one_line) $(diff <(echo "$ORIG") <(dump "$D_/config.toml") | head -5 | one_line)"

# --- nvidia-ctk >= 1.18's drop-in layout: the main file imports conf.d/*.toml, NVIDIA's drop-in holds
# the whole CRI table. On 1.6 a CRI table in the main file would be ignored: ours copies NVIDIA's.
D_=$T/ctk; mkdir -p "$D_/conf.d"; our_config "$D_"
printf 'version = 2\nimports = ["%s/conf.d/*.toml"]\n# the operator\x27s main file\n[grpc]\n  address = "/run/containerd/containerd.sock"\n' "$D_" >"$D_/config.toml"
cat >"$D_/conf.d/99-nvidia.toml" <<'TOML'
version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "nvidia"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
  SystemdCgroup = true
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
TOML
cp -a "$D_" "$T/ctk.orig"
ORIG=$(dump_wo_imports "$D_/config.toml")
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && cmp -s "$D_/config.toml" "$T/ctk.orig/config.toml" && cmp -s "$D_/conf.d/99-nvidia.toml" "$T/ctk.orig/conf.d/99-nvidia.toml" &&
    table "$D" "$P.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = \"$SHIM\"" &&
    table "$D" "$P.runtimes.gpu-numa.options" | grep -qxF '            SystemdCgroup = true' &&
    table "$D" "$P" | grep -qxF '      default_runtime_name = "nvidia"' &&
    table "$D" "$P.runtimes.nvidia.options" | grep -qxF '            BinaryName = "/usr/bin/nvidia-container-runtime"' &&
    echo "$OUT" | grep -qF "carries the whole effective CRI table (from $D_/conf.d/99-nvidia.toml) plus gpu-numa" &&
    grep -qxF 'next = ["/usr/bin/nvidia-container-runtime", "runc", "crun"]' "$D_/ours.toml" &&
    pass "nvidia-ctk drop-in layout: main file and 99-nvidia.toml untouched (the glob reads ours); config dump: gpu-numa beside NVIDIA's default, SystemdCgroup copied; chained" ||
    fail "drop-in layout" "rc $RC $(echo "$OUT" | one_line) $(table "$D" "$P.runtimes.gpu-numa.options" | one_line)"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --uninstall
rm -f "$D_/ours.toml.gpu-numa-hook.bak"; cp "$D_/ours.original" "$T/ctk.orig/ours.original"
[ "$RC" = 0 ] && diff -r "$D_" "$T/ctk.orig" >/dev/null && [ "$(dump_wo_imports "$D_/config.toml")" = "$ORIG" ] &&
    pass "nvidia-ctk drop-in layout, --uninstall: every file as it was, config dump identical" ||
    fail "drop-in uninstall" "rc $RC $(diff -r "$D_" "$T/ctk.orig" | one_line)"
# a file read after ours that defines the CRI table would replace ours on 1.x: refused, nothing written
printf 'version = 2\n[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "/etc/containerd/certs.d"\n' >"$D_/conf.d/zz-late.toml"
cp -a "$D_" "$T/ctk.late"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
[ "$RC" = 2 ] && [ "$OUT" = "gpu-numa-hook: error: install: $D_/conf.d/zz-late.toml is read after $D_/$OURS_DROPIN and defines the CRI plugin table: containerd 1.x would replace ours with it, so nothing was changed (ours must be the last file containerd reads: put \"$OURS_DROPIN\" last in the imports of $D_/config.toml, and make $D_/conf.d/zz-late.toml sort before it)" ] &&
    diff -r "$D_" "$T/ctk.late" >/dev/null && pass "a CRI table read after our drop-in: refused in one line naming it, nothing written" ||
    fail "late CRI table" "rc $RC $(echo "$OUT" | one_line)"

# --- broken files: untouched, file and line named
printf 'version = 2\n[plugins\nfoo = 1\n' >"$T/broken.toml"; cp "$T/broken.toml" "$T/broken.orig"; our_config "$T"
inst containerd --runtime-config "$T/broken.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
[ "$RC" = 2 ] && echo "$OUT" | grep -q "^gpu-numa-hook: error: install: $T/broken.toml: line 2, column 9: cannot parse, left untouched: " &&
    [ "$(echo "$OUT" | wc -l)" = 1 ] &&
    cmp -s "$T/broken.toml" "$T/broken.orig" && [ ! -e "$T/conf.d" ] &&
    pass "broken main file: exit 2, one line naming file and line, untouched" || fail "broken file" "rc $RC $(echo "$OUT" | one_line)"
mkdir -p "$T/bi/conf.d"; printf 'version = 2\nimports = ["conf.d/*.toml"]\n' >"$T/bi/config.toml"; printf 'version = 2\n\n[[x\n' >"$T/bi/conf.d/50-bad.toml"
inst containerd --runtime-config "$T/bi/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
[ "$RC" = 2 ] && echo "$OUT" | grep -q "^gpu-numa-hook: error: install: $T/bi/conf.d/50-bad.toml: line 3, column 4: cannot parse, left untouched" &&
    [ "$(echo "$OUT" | wc -l)" = 1 ] && [ "$(ls "$T/bi/conf.d")" = 50-bad.toml ] &&
    pass "broken imported file: exit 2, the line names that file and line, nothing written" || fail "broken import" "rc $RC $(echo "$OUT" | one_line)"

# --- a missing file: a version 2 main file importing our drop-in; CRI keeps its runc default
inst containerd --runtime-config "$T/new/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
D=$(dump "$T/new/config.toml")
[ "$RC" = 0 ] && [ "$(cat "$T/new/config.toml")" = "version = 2
imports = [\"$OURS_DROPIN\"]" ] && table "$D" "$P.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = \"$SHIM\"" &&
    table "$D" "$P.runtimes.runc" | grep -qxF '          runtime_type = "io.containerd.runc.v2"' && table "$D" "$P" | grep -qxF '      default_runtime_name = "runc"' &&
    pass "missing file: created as version 2 importing our drop-in; config dump shows gpu-numa and still the runc default runtime" ||
    fail "missing file" "rc $RC $(echo "$OUT" | one_line) $(table "$D" "$P" | one_line)"
inst containerd --runtime-config "$T/new/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml" --uninstall
[ "$RC" = 0 ] && [ ! -e "$T/new" ] && pass "missing file: --uninstall removes both files install created, and the directories it made" || fail "uninstall created file" "rc $RC $(ls -A "$T/new" 2>&1) $(echo "$OUT" | one_line)"

# --- a version 1 file (no `version`): no drop-in, edited in place
mkdir -p "$T/v1"; printf '[plugins.cri.containerd]\n  snapshotter = "overlayfs"\n[plugins.cri.containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n[plugins.cri.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n' >"$T/v1/config.toml"
ORIG=$(dump "$T/v1/config.toml")
inst containerd --runtime-config "$T/v1/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
D=$(dump "$T/v1/config.toml")
[ "$RC" = 0 ] && echo "$OUT" | grep -q '^strategy: config version 1 (no `version` key): no drop-in' && [ ! -e "$T/v1/conf.d" ] &&
    table "$D" "$P.runtimes.gpu-numa.options" | grep -qxF '            SystemdCgroup = true' &&
    pass "version 1 file: no drop-in, gpu-numa added in place (config dump shows it, SystemdCgroup copied)" || fail "version 1" "rc $RC $(echo "$OUT" | one_line)"
inst containerd --runtime-config "$T/v1/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml" --uninstall
[ "$RC" = 0 ] && [ "$(dump "$T/v1/config.toml")" = "$ORIG" ] && pass "version 1 file, --uninstall: config dump identical to the original's" ||
    fail "version 1 uninstall" "rc $RC $(diff <(echo "$ORIG") <(dump "$T/v1/config.toml") | head -5 | one_line)"

# version 3 with containerd $CTD_RELEASE installed: refused
mkdir -p "$T/v3"; printf 'version = 3\n' >"$T/v3/config.toml"
inst containerd --runtime-config "$T/v3/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
[ "$RC" = 2 ] && [ "$OUT" = "gpu-numa-hook: error: install: $T/v3/config.toml: config version 3 is containerd 2.x's, but containerd $CTD_RELEASE is installed (\`/usr/bin/containerd --version\`): left untouched" ] &&
    pass "version 3 file with containerd $CTD_RELEASE installed: refused in one line" || fail "v3 on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line)"

fi

# ---------------------------------------------------------------- containerd 2.x (2.1), for real
if [ "$CTD_MAJOR" = 2 ]; then
# The effective config is what this containerd 2.x's own `config dump` prints: version 3, the CRI
# runtimes under io.containerd.cri.v1.runtime (a version 2 file is migrated on load), values quoted
# with '. install detects 2.x from `/usr/bin/containerd --version` and writes a minimal drop-in.
R2="plugins.'io.containerd.cri.v1.runtime'.containerd"
# 2.3 migrates every file to version 4 on load (server settings move into plugin tables; the CRI
# runtime tables stay where version 3 has them); 2.0-2.2 to version 3
DUMP_VERSION=$([ "$CTD_RELEASE" = 2.0 ] || [ "$CTD_RELEASE" = 2.1 ] || [ "$CTD_RELEASE" = 2.2 ] && echo 3 || echo 4)
# --- the GPU operator's version 2 file on containerd 2.x: migrated, ours merged into it
D_=$T/op2; mkdir -p "$D_"; our_config "$D_"
sed "s#/usr/local/nvidia/toolkit/nvidia-container-runtime#$NV#" "$REPO/tests/fixtures/containerd/gpu-operator-v2.toml" >"$D_/config.toml"
cp -a "$D_" "$D_.orig"; ORIG=$(dump_wo_imports "$D_/config.toml")
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && head -1 <<<"$D" | grep -qxF "version = $DUMP_VERSION" &&
    table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = '$SHIM'" &&
    table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF '            SystemdCgroup = true' &&
    table "$D" "$R2.runtimes.gpu-numa" | grep -qxF "          runtime_type = 'io.containerd.runc.v2'" &&
    table "$D" "$R2" | grep -qxF "      default_runtime_name = 'nvidia'" &&
    table "$D" "$R2.runtimes.nvidia.options" | grep -qxF "            BinaryName = '$NV'" &&
    echo "$OUT" | grep -qxF "strategy: containerd $CTD_RELEASE (\`/usr/bin/containerd --version\`) merges imported files key by key: $D_/$OURS_DROPIN holds only the gpu-numa runtime" &&
    [ "$(python3 -c 'import tomllib,sys; d=tomllib.load(open(sys.argv[1],"rb")); print(d["version"], list(d["plugins"]), list(d["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]))' "$D_/$OURS_DROPIN")" = "2 ['io.containerd.grpc.v1.cri'] ['gpu-numa']" ] &&
    pass "operator layout (version 2) on containerd $CTD_RELEASE: a minimal version 2 drop-in; config dump (migrated to version $DUMP_VERSION): gpu-numa under io.containerd.cri.v1.runtime (runc.v2, the shim, SystemdCgroup copied), nvidia still the default" ||
    fail "operator layout on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) dump: $(table "$D" "$R2.runtimes.gpu-numa.options" | one_line) default: $(table "$D" "$R2" | grep default_runtime_name | one_line)"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --uninstall
rm -f "$D_/ours.toml.gpu-numa-hook.bak" "$D_/config.toml.gpu-numa-hook.bak"
[ "$RC" = 0 ] && diff -r "$D_" "$D_.orig" >/dev/null && [ "$(dump_wo_imports "$D_/config.toml")" = "$ORIG" ] &&
    pass "operator layout on containerd $CTD_RELEASE, --uninstall: every file as it was, config dump identical" ||
    fail "operator layout uninstall on $CTD_RELEASE" "rc $RC $(diff -r "$D_" "$D_.orig" | one_line)"

# --- version 3 with nvidia-ctk's drop-in (the main file imports an absolute conf.d glob), --set-default
D_=$T/v3; mkdir -p "$D_/conf.d"; our_config "$D_"
printf 'version = 3\nimports = ["%s/conf.d/*.toml"]\n# theirs\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n' "$D_" >"$D_/config.toml"
printf 'version = 3\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd]\n  default_runtime_name = "nvidia"\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.nvidia.options]\n  BinaryName = "/usr/bin/nvidia-container-runtime"\n  SystemdCgroup = true\n' >"$D_/conf.d/99-nvidia.toml"
cp -a "$D_" "$D_.orig"; ORIG=$(dump_wo_imports "$D_/config.toml")
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --set-default
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && table "$D" "$R2" | grep -qxF "      default_runtime_name = 'gpu-numa'" &&
    table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = '$SHIM'" &&
    table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF '            SystemdCgroup = true' &&
    table "$D" "$R2.runtimes.gpu-numa" | grep -qxF "          runtime_type = 'io.containerd.runc.v2'" &&
    table "$D" "$R2.runtimes.nvidia.options" | grep -qxF "            BinaryName = '/usr/bin/nvidia-container-runtime'" &&
    cmp -s "$D_/config.toml" "$D_.orig/config.toml" &&
    [ "$(python3 -c 'import tomllib,sys; d=tomllib.load(open(sys.argv[1],"rb")); print(d["version"], list(d["plugins"]), list(d["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]["runtimes"]))' "$D_/$OURS_DROPIN")" = "3 ['io.containerd.cri.v1.runtime'] ['gpu-numa']" ] &&
    echo "$OUT" | grep -qxF "strategy: containerd $CTD_RELEASE (\`/usr/bin/containerd --version\`) merges imported files key by key: $D_/$OURS_DROPIN holds only the gpu-numa runtime and the default" &&
    grep -qxF 'next = ["/usr/bin/nvidia-container-runtime", "runc", "crun"]' "$D_/ours.toml" &&
    pass "version 3 with nvidia-ctk's drop-in, --set-default on containerd $CTD_RELEASE: a minimal version 3 drop-in; config dump: gpu-numa the default, a copy of runc (SystemdCgroup), NVIDIA's runtime kept and chained" ||
    fail "version 3 on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) dump: $(table "$D" "$R2.runtimes.gpu-numa.options" | one_line) $(table "$D" "$R2" | grep default_runtime_name | one_line)"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml" --uninstall
rm -f "$D_/ours.toml.gpu-numa-hook.bak"
[ "$RC" = 0 ] && diff -r "$D_" "$D_.orig" >/dev/null && [ "$(dump_wo_imports "$D_/config.toml")" = "$ORIG" ] &&
    pass "version 3 on containerd $CTD_RELEASE, --uninstall: every file as it was, config dump identical" ||
    fail "version 3 uninstall on $CTD_RELEASE" "rc $RC $(diff -r "$D_" "$D_.orig" | one_line)"

# --- a minimal version 2 file: our drop-in stays version 2 (2.x migrates the merged result)
D_=$T/v2on2; mkdir -p "$D_"; our_config "$D_"
printf 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n' >"$D_/config.toml"
inst containerd --runtime-config "$D_/config.toml" --runtime-path "$SHIM" --config "$D_/ours.toml"
D=$(dump "$D_/config.toml")
[ "$RC" = 0 ] && table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = '$SHIM'" &&
    table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF '            SystemdCgroup = true' &&
    table "$D" "$R2" | grep -qxF "      default_runtime_name = 'runc'" && grep -qxF 'version = 2' "$D_/$OURS_DROPIN" &&
    pass "minimal version 2 file on containerd $CTD_RELEASE: a version 2 drop-in; config dump: gpu-numa under io.containerd.cri.v1.runtime after migration, runc still the default" ||
    fail "v2 on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) dump: $(table "$D" "$R2.runtimes.gpu-numa.options" | one_line)"

# --- a missing file: created as version 3
inst containerd --runtime-config "$T/new3/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
D=$(dump "$T/new3/config.toml")
[ "$RC" = 0 ] && head -1 "$T/new3/config.toml" | grep -qxF 'version = 3' &&
    table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = '$SHIM'" &&
    table "$D" "$R2.runtimes.runc" | grep -qxF "          runtime_type = 'io.containerd.runc.v2'" &&
    table "$D" "$R2" | grep -qxF "      default_runtime_name = 'runc'" &&
    pass "missing file on containerd $CTD_RELEASE: created as version 3; config dump shows gpu-numa and runc still the default" ||
    fail "missing file on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) $(table "$D" "$R2" | one_line)"

# --- version 4 (containerd 2.3's): 2.3 reads it and install edits it; an older 2.x refuses it, and
# install refuses too
mkdir -p "$T/v4"; printf 'version = 4\n' >"$T/v4/config.toml"; cp "$T/v4/config.toml" "$T/v4.orig"
V4DUMP=$(dump "$T/v4/config.toml")
inst containerd --runtime-config "$T/v4/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml"
if [ "$DUMP_VERSION" = 4 ]; then
    D=$(dump "$T/v4/config.toml")
    [ "$RC" = 0 ] && head -1 <<<"$D" | grep -qxF 'version = 4' &&
        table "$D" "$R2.runtimes.gpu-numa.options" | grep -qxF "            BinaryName = '$SHIM'" &&
        table "$D" "$R2.runtimes.gpu-numa" | grep -qxF "          runtime_type = 'io.containerd.runc.v2'" &&
        table "$D" "$R2" | grep -qxF "      default_runtime_name = 'runc'" &&
        pass "version 4 file on containerd $CTD_RELEASE: config dump (version 4) shows gpu-numa with the shim, runc still the default" ||
        fail "v4 on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) dump: $(table "$D" "$R2" | one_line)"
    inst containerd --runtime-config "$T/v4/config.toml" --runtime-path "$SHIM" --config "$T/ours.toml" --uninstall
    rm -f "$T/ours.toml.gpu-numa-hook.bak"
    [ "$RC" = 0 ] && cmp -s "$T/v4/config.toml" "$T/v4.orig" && [ -z "$(ls -A "$T/v4/conf.d" 2>/dev/null)" ] &&
        pass "version 4 on containerd $CTD_RELEASE, --uninstall: config.toml as it was, our drop-in gone" ||
        fail "v4 uninstall on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) $(ls -A "$T/v4" "$T/v4/conf.d" 2>&1 | one_line)"
else
echo "$V4DUMP" | grep -qF 'expected containerd config version equal to or less than `3`, got `4`' &&
    [ "$RC" = 2 ] && [ "$OUT" = "gpu-numa-hook: error: install: $T/v4/config.toml: config version 4 is not read by containerd $CTD_RELEASE (\`/usr/bin/containerd --version\`), which reads versions up to 3: left untouched" ] &&
    cmp -s "$T/v4/config.toml" "$T/v4.orig" && [ ! -e "$T/v4/conf.d" ] &&
    pass "version 4 file with containerd $CTD_RELEASE installed (its config dump refuses it): install refuses in one line, nothing written" ||
    fail "v4 on $CTD_RELEASE" "rc $RC $(echo "$OUT" | one_line) dump: $(echo "$V4DUMP" | one_line)"
fi
fi

[ "$SUITE" = bookworm ] || finish
# ---------------------------------------------------------------- Docker's daemon.json
D_=$T/docker; mkdir -p "$D_"; our_config "$D_"
printf '{\n  "default-runtime": "nvidia",\n  "runtimes": {\n    "nvidia": {\n      "args": [],\n      "path": "nvidia-container-runtime"\n    }\n  }\n}\n' >"$D_/daemon.json"
inst docker --runtime-config "$D_/daemon.json" --runtime-path "$SHIM" --set-default --config "$D_/ours.toml"
[ "$RC" = 0 ] && [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["default-runtime"], d["runtimes"]["gpu-numa"]["path"], d["runtimes"]["nvidia"]["path"])' "$D_/daemon.json")" = "gpu-numa $SHIM nvidia-container-runtime" ] &&
    grep -qxF 'next = ["nvidia-container-runtime", "runc", "crun"]' "$D_/ours.toml" &&
    pass "docker, default-runtime nvidia: install --set-default makes gpu-numa the default and chains it to nvidia-container-runtime (not installed here: the name stays for the shim's PATH lookup)" ||
    fail "docker install" "rc $RC $(echo "$OUT" | one_line)"
python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); d["registry-mirrors"]=["https://mirror.example"]; json.dump(d, open(p,"w"), indent=2)' "$D_/daemon.json"
inst docker --runtime-config "$D_/daemon.json" --runtime-path "$SHIM" --uninstall --config "$D_/ours.toml"
[ "$RC" = 0 ] && [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("default-runtime"), "gpu-numa" in d["runtimes"], d["registry-mirrors"][0])' "$D_/daemon.json")" = "nvidia False https://mirror.example" ] &&
    cmp -s "$D_/ours.toml" "$D_/ours.original" &&
    pass "docker: a registry mirror added, then --uninstall: default-runtime nvidia restored (not deleted), the mirror kept, our config as it was" ||
    fail "docker uninstall" "rc $RC $(echo "$OUT" | one_line) $(one_line <"$D_/daemon.json")"

# ---------------------------------------------------------------- CRI-O (files only)
D_=$T/crio; mkdir -p "$D_/crio.conf.d"; our_config "$D_"
printf '[crio.runtime]\ndefault_runtime = "nvidia"\n[crio.runtime.runtimes.runc]\nruntime_path = "/usr/bin/runc"\nruntime_root = "/run/runc"\n[crio.runtime.runtimes.nvidia]\nruntime_path = "/usr/bin/nvidia-container-runtime"\n' >"$D_/crio.conf"
inst crio-runtime --runtime-config "$D_/crio.conf.d" --runtime-path "$SHIM" --config "$D_/ours.toml" --set-default
[ "$RC" = 0 ] && [ "$(python3 -c 'import tomllib,sys; r=tomllib.load(open(sys.argv[1],"rb"))["crio"]["runtime"]; g=r["runtimes"]["gpu-numa"]; print(r["default_runtime"], g["runtime_path"], g["runtime_type"], g["runtime_root"])' "$D_/crio.conf.d/99-zz-gpu-numa.toml")" = "gpu-numa $SHIM oci /run/runc" ] &&
    grep -qxF 'next = ["/usr/bin/nvidia-container-runtime", "runc", "crun"]' "$D_/ours.toml" &&
    pass "CRI-O: crio.conf.d/99-zz-gpu-numa.toml holds gpu-numa as a copy of runc (runtime_type oci, runtime_path the shim), the default; next chains to NVIDIA's runtime" ||
    fail "crio-runtime install" "rc $RC $(echo "$OUT" | one_line) $(one_line <"$D_/crio.conf.d/99-zz-gpu-numa.toml" 2>/dev/null)"
inst crio-runtime --runtime-config "$D_/crio.conf.d" --runtime-path "$SHIM" --config "$D_/ours.toml"
[ "$RC" = 0 ] && echo "$OUT" | grep -qxF "nothing to do: already installed" && pass "CRI-O: a second run (without --set-default) changes nothing" || fail "crio second run" "$(echo "$OUT" | one_line)"
inst crio-runtime --runtime-config "$D_/crio.conf.d" --runtime-path "$SHIM" --config "$D_/ours.toml" --uninstall
[ "$RC" = 0 ] && [ ! -e "$D_/crio.conf.d/99-zz-gpu-numa.toml" ] && cmp -s "$D_/ours.toml" "$D_/ours.original" &&
    pass "CRI-O: --uninstall removes our drop-in and gives our config back" || fail "crio uninstall" "rc $RC $(echo "$OUT" | one_line)"
finish
