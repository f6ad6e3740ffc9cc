#!/bin/bash
# `gpu-numa-hook install` on the engine files GPU nodes really have (issue 19), checked with the
# real containerd 1.6: `containerd --config FILE config dump` computes the effective configuration
# (imports merged, defaults filled in) without starting a daemon. Cases: the GPU operator's layout
# (nvidia the default, SystemdCgroup = true), --set-default, a second run, an unrelated edit between
# install and uninstall, uninstall (the dump byte-identical to the original's), nvidia-ctk's drop-in
# layout (refused, nothing written), a broken file, a missing file; Docker's daemon.json with
# "default-runtime": "nvidia". Everything lives in a temp dir; the host's /etc is never touched.
# Usage: tests/engine/run-install-tests.sh [HOOK]
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
TALLY_NAME="install suite"
. "$SCRIPT_DIR/../support/tally.sh"
HOOK=$(cd "$(dirname "${1:-$REPO/build/gpu-numa-hook}")" && pwd)/$(basename "${1:-$REPO/build/gpu-numa-hook}")
command -v containerd >/dev/null || { skip "all cases" "containerd is missing (tests/run-all.sh installs it)"; finish; }
[ -x "$HOOK" ] || { fail "binary" "$HOOK missing"; finish; }
T=$(mktemp -d /tmp/gnh-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
SHIM=/usr/bin/gpu-numa-runtime
NV=/usr/local/nvidia/toolkit/nvidia-container-runtime
dump() { containerd --config "$1" config dump 2>&1; }
# the TOML table [$2] of dump $1, up to the next header
table() { awk -v h="[$2]" '$0 == h || $0 ~ "^ *\\[" { p = (index($0, h) && $0 ~ "^ *\\" h "$") } p' <<<"$1"; }
inst() { OUT=$("$HOOK" install --runtime "$@" 2>&1); RC=$?; }

# --- the GPU operator's layout
mkdir -p "$T/op"
cat >"$T/op/config.toml" <<TOML
version = 2
# the GPU operator wrote this
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "nvidia"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = true
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
    BinaryName = "$NV"
    SystemdCgroup = true
TOML
cp "$REPO/config/config.toml" "$T/op/ours.toml"
cp "$T/op/config.toml" "$T/op/original.toml"; cp "$T/op/ours.toml" "$T/op/ours.original"
ORIG=$(dump "$T/op/config.toml")
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml"
D=$(dump "$T/op/config.toml")
P='plugins."io.containerd.grpc.v1.cri".containerd'
OPTS=$(table "$D" "$P.runtimes.gpu-numa.options")
[ "$RC" = 0 ] && echo "$OPTS" | grep -qF "BinaryName = \"$SHIM\"" && echo "$OPTS" | grep -q 'SystemdCgroup = true' &&
    table "$D" "$P.runtimes.gpu-numa" | grep -q 'runtime_type = "io.containerd.runc.v2"' &&
    table "$D" "$P" | grep -q 'default_runtime_name = "nvidia"' &&
    pass "operator layout: config dump shows gpu-numa as a copy of runc (SystemdCgroup = true, BinaryName = the shim), nvidia still the default" ||
    fail "operator layout install" "rc $RC $(echo "$OUT" | one_line) options: $(echo "$OPTS" | one_line)"
grep -qxF "next = [\"$NV\", \"runc\", \"crun\"]" "$T/op/ours.toml" && echo "$OUT" | grep -qF "chain: containerd's runtime '$NV' is NVIDIA's" &&
    diff <(grep -v '^next = ' "$T/op/ours.original") <(grep -v '^next = ' "$T/op/ours.toml") >/dev/null &&
    pass "operator layout: our [runtime] next chains to NVIDIA's runtime first ($NV, runc, crun), every other line of our config kept" ||
    fail "chain to nvidia" "$(grep -n '^next' "$T/op/ours.toml" | one_line) out: $(echo "$OUT" | one_line)"
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml"
[ "$RC" = 0 ] && echo "$OUT" | grep -q "nothing to do: already installed" && pass "second install: nothing to do" || fail "second install" "$(echo "$OUT" | one_line)"
# --config after the subcommand is the same option as before it
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --set-default --config "$T/op/ours.toml"
D=$(dump "$T/op/config.toml")
[ "$RC" = 0 ] && table "$D" "$P" | grep -q 'default_runtime_name = "gpu-numa"' && pass "install --set-default (--config after the subcommand): gpu-numa is the default" ||
    fail "--set-default" "rc $RC $(echo "$OUT" | one_line)"
# an unrelated edit between install and uninstall (an operator adds a setting)
sed -i '1a oom_score = -999' "$T/op/config.toml"
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --uninstall --config "$T/op/ours.toml"
D=$(dump "$T/op/config.toml")
[ "$RC" = 0 ] && table "$D" "$P" | grep -q 'default_runtime_name = "nvidia"' && ! echo "$D" | grep -q gpu-numa &&
    echo "$D" | grep -q '^oom_score = -999' && cmp -s "$T/op/ours.toml" "$T/op/ours.original" && [ ! -e "$T/op/install-state.json" ] &&
    pass "install, install --set-default, an unrelated edit, --uninstall: nvidia the default again, no gpu-numa, the edit kept, our config as it was" ||
    fail "uninstall after an edit" "rc $RC $(echo "$OUT" | one_line) default: $(table "$D" "$P" | grep default_runtime | one_line)"
# without the unrelated edit, uninstall gives back the original dump byte for byte
cp "$T/op/original.toml" "$T/op/config.toml"
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml" --set-default
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml" --set-default
inst containerd --runtime-config "$T/op/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml" --uninstall
[ "$RC" = 0 ] && [ "$(dump "$T/op/config.toml")" = "$ORIG" ] && cmp -s "$T/op/config.toml" "$T/op/original.toml" &&
    pass "install --set-default twice, --uninstall: the file is the original byte for byte (comments too) and config dump is identical" ||
    fail "uninstall exact" "rc $RC $(echo "$OUT" | one_line) $(diff <(echo "$ORIG") <(dump "$T/op/config.toml") | head -5 | one_line)"

# --- nvidia-ctk >= 1.18's drop-in layout: containerd 1.x would ignore an entry in the main file
mkdir -p "$T/ctk/conf.d"
printf 'version = 2\nimports = ["%s/conf.d/*.toml"]\n# the operator\x27s main file\n[grpc]\n  address = "/run/containerd/containerd.sock"\n' "$T/ctk" >"$T/ctk/config.toml"
printf 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n  BinaryName = "/usr/bin/nvidia-container-runtime"\n' >"$T/ctk/conf.d/99-nvidia.toml"
cp -a "$T/ctk" "$T/ctk.orig"
inst containerd --runtime-config "$T/ctk/config.toml" --runtime-path "$SHIM" --config "$T/ctk/ours.toml"
[ "$RC" = 2 ] && echo "$OUT" | grep -qF "gpu-numa-hook: error: install: $T/ctk/config.toml imports $T/ctk/conf.d/99-nvidia.toml, which defines the CRI plugin table" &&
    [ "$(echo "$OUT" | wc -l)" = 1 ] && diff -r "$T/ctk" "$T/ctk.orig" >/dev/null &&
    pass "nvidia-ctk drop-in layout: refused (exit 2) in one line naming the drop-in and what to add there; nothing written" ||
    fail "drop-in layout" "rc $RC $(echo "$OUT" | one_line)"
dump "$T/ctk/config.toml" | grep -q 'BinaryName = "/usr/bin/nvidia-container-runtime"' &&
    pass "(why) containerd 1.6 config dump of that layout takes the CRI table from the drop-in" || fail "drop-in dump" "no nvidia runtime in the dump"

# --- a broken file: untouched, file and line named
printf 'version = 2\n[plugins\nfoo = 1\n' >"$T/broken.toml"; cp "$T/broken.toml" "$T/broken.orig"
inst containerd --runtime-config "$T/broken.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml"
[ "$RC" = 2 ] && echo "$OUT" | grep -qF "gpu-numa-hook: error: install: $T/broken.toml: line 2" && cmp -s "$T/broken.toml" "$T/broken.orig" &&
    pass "broken file: exit 2, '$T/broken.toml: line 2 ...', untouched" || fail "broken file" "rc $RC $(echo "$OUT" | one_line)"

# --- a missing file: a version 2 config containerd accepts; uninstall removes it
inst containerd --runtime-config "$T/new/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml"
D=$(dump "$T/new/config.toml")
[ "$RC" = 0 ] && table "$D" "$P.runtimes.gpu-numa.options" | grep -qF "BinaryName = \"$SHIM\"" && pass "missing file: created as version 2, config dump shows gpu-numa" ||
    fail "missing file" "rc $RC $(echo "$OUT" | one_line)"
inst containerd --runtime-config "$T/new/config.toml" --runtime-path "$SHIM" --config "$T/op/ours.toml" --uninstall
[ "$RC" = 0 ] && [ ! -e "$T/new/config.toml" ] && pass "missing file: --uninstall removes the file install created" || fail "uninstall created file" "rc $RC $(echo "$OUT" | one_line)"

# --- Docker with NVIDIA's runtime the default (nvidia-ctk runtime configure --set-as-default)
mkdir -p "$T/docker"; cp "$REPO/config/config.toml" "$T/docker/ours.toml"; cp "$T/docker/ours.toml" "$T/docker/ours.original"
printf '{\n  "default-runtime": "nvidia",\n  "runtimes": {\n    "nvidia": {\n      "args": [],\n      "path": "nvidia-container-runtime"\n    }\n  }\n}\n' >"$T/docker/daemon.json"
cp "$T/docker/daemon.json" "$T/docker/daemon.orig"
inst docker --runtime-config "$T/docker/daemon.json" --runtime-path "$SHIM" --set-default --config "$T/docker/ours.toml"
[ "$RC" = 0 ] && [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["default-runtime"], d["runtimes"]["gpu-numa"]["path"], d["runtimes"]["nvidia"]["path"])' "$T/docker/daemon.json")" = "gpu-numa $SHIM nvidia-container-runtime" ] &&
    grep -qxF 'next = ["nvidia-container-runtime", "runc", "crun"]' "$T/docker/ours.toml" &&
    pass "docker, default-runtime nvidia: install --set-default makes gpu-numa the default and chains it to nvidia-container-runtime" ||
    fail "docker install" "rc $RC $(echo "$OUT" | one_line)"
python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); d["registry-mirrors"]=["https://mirror.example"]; json.dump(d, open(p,"w"), indent=2)' "$T/docker/daemon.json"
inst docker --runtime-config "$T/docker/daemon.json" --runtime-path "$SHIM" --uninstall --config "$T/docker/ours.toml"
[ "$RC" = 0 ] && [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("default-runtime"), "gpu-numa" in d["runtimes"], d["registry-mirrors"][0])' "$T/docker/daemon.json")" = "nvidia False https://mirror.example" ] &&
    cmp -s "$T/docker/ours.toml" "$T/docker/ours.original" &&
    pass "docker: a registry mirror added, then --uninstall: default-runtime nvidia restored (not deleted), the mirror kept, our config as it was" ||
    fail "docker uninstall" "rc $RC $(echo "$OUT" | one_line) $(cat "$T/docker/daemon.json" | one_line)"
# --- containerd 2.x (version 3 files) is not in Debian 12: a merge model of our own stands in for its
# `config dump` (2.x reads the main file, then each import in glob order, and deep-merges plugin
# tables, PR 9982; 1.x replaced them). Our entry in the main file survives an nvidia-ctk drop-in.
merge_model() { # MAIN: the effective config as JSON, by the model
    python3 - "$1" <<'PY'
import glob, json, os, sys, tomllib
def merge(a, b):
    for k, v in b.items():
        a[k] = merge(a[k], v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
    return a
main = sys.argv[1]
eff = tomllib.load(open(main, "rb"))
for pat in eff.get("imports", []):
    pat = pat if pat.startswith("/") else os.path.join(os.path.dirname(main), pat)
    for f in sorted(glob.glob(pat)):
        eff = merge(eff, tomllib.load(open(f, "rb")))
print(json.dumps(eff))
PY
}
mkdir -p "$T/v3/conf.d"; cp "$REPO/config/config.toml" "$T/v3/ours.toml"
printf 'version = 3\nimports = ["%s/conf.d/*.toml"]\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n' "$T/v3" >"$T/v3/config.toml"
printf 'version = 3\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd]\n  default_runtime_name = "nvidia"\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n[plugins.\x27io.containerd.cri.v1.runtime\x27.containerd.runtimes.nvidia.options]\n  BinaryName = "/usr/bin/nvidia-container-runtime"\n  SystemdCgroup = true\n' >"$T/v3/conf.d/99-nvidia.toml"
inst containerd --runtime-config "$T/v3/config.toml" --runtime-path "$SHIM" --config "$T/v3/ours.toml"
M=$(merge_model "$T/v3/config.toml" 2>&1)
[ "$RC" = 0 ] && [ "$(python3 -c 'import json,sys; c=json.loads(sys.argv[1])["plugins"]["io.containerd.cri.v1.runtime"]["containerd"]; g=c["runtimes"]["gpu-numa"]; print(c["default_runtime_name"], g["options"]["BinaryName"], g["options"]["SystemdCgroup"], "nvidia" in c["runtimes"])' "$M")" = "nvidia $SHIM True True" ] &&
    grep -qxF 'next = ["/usr/bin/nvidia-container-runtime", "runc", "crun"]' "$T/v3/ours.toml" &&
    pass "version 3 (containerd 2.x) with an nvidia-ctk drop-in: by the merge model, gpu-numa (a copy of runc, SystemdCgroup) sits beside NVIDIA's default under io.containerd.cri.v1.runtime; next chains to the drop-in's NVIDIA runtime" ||
    fail "version 3 merge model" "rc $RC $(echo "$OUT" | one_line) model: $(echo "$M" | one_line)"

# --- CRI-O (not in Debian 12: its files are checked with Python's TOML reader, not by CRI-O)
mkdir -p "$T/crio/crio.conf.d"; cp "$REPO/config/config.toml" "$T/crio/ours.toml"; cp "$T/crio/ours.toml" "$T/crio/ours.original"
printf '[crio.runtime]\ndefault_runtime = "nvidia"\n[crio.runtime.runtimes.runc]\nruntime_path = "/usr/bin/runc"\nruntime_root = "/run/runc"\n[crio.runtime.runtimes.nvidia]\nruntime_path = "/usr/bin/nvidia-container-runtime"\n' >"$T/crio/crio.conf"
inst crio-runtime --runtime-config "$T/crio/crio.conf.d" --runtime-path "$SHIM" --config "$T/crio/ours.toml" --set-default
[ "$RC" = 0 ] && [ "$(python3 -c 'import tomllib,sys; r=tomllib.load(open(sys.argv[1],"rb"))["crio"]["runtime"]; g=r["runtimes"]["gpu-numa"]; print(r["default_runtime"], g["runtime_path"], g["runtime_type"], g["runtime_root"])' "$T/crio/crio.conf.d/99-gpu-numa.toml")" = "gpu-numa $SHIM oci /run/runc" ] &&
    grep -qxF 'next = ["/usr/bin/nvidia-container-runtime", "runc", "crun"]' "$T/crio/ours.toml" &&
    pass "CRI-O: crio.conf.d/99-gpu-numa.toml holds gpu-numa as a copy of runc (runtime_type oci, runtime_path the shim), the default; next chains to NVIDIA's runtime" ||
    fail "crio-runtime install" "rc $RC $(echo "$OUT" | one_line) $(one_line <"$T/crio/crio.conf.d/99-gpu-numa.toml" 2>/dev/null)"
inst crio-runtime --runtime-config "$T/crio/crio.conf.d" --runtime-path "$SHIM" --config "$T/crio/ours.toml"
[ "$RC" = 0 ] && echo "$OUT" | grep -q "nothing to do" && pass "CRI-O: a second run (without --set-default) changes nothing" || fail "crio second run" "$(echo "$OUT" | one_line)"
inst crio-runtime --runtime-config "$T/crio/crio.conf.d" --runtime-path "$SHIM" --config "$T/crio/ours.toml" --uninstall
[ "$RC" = 0 ] && [ ! -e "$T/crio/crio.conf.d/99-gpu-numa.toml" ] && cmp -s "$T/crio/ours.toml" "$T/crio/ours.original" &&
    pass "CRI-O: --uninstall removes our drop-in and gives our config back" || fail "crio uninstall" "rc $RC $(echo "$OUT" | one_line)"
finish
