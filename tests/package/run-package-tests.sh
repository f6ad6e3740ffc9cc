#!/bin/bash
# The Debian package: cpack -G DEB from the build tree, apt-get install ./...deb on this machine,
# files in place, the check timer enabled, --version, man pages, a reinstall keeping a changed
# config, the shim and engine suites against the INSTALLED binaries and config paths, removal
# with an engine registered (run-removal-tests.sh: the .deb's prerm and the .rpm's preun against a
# real dockerd), and purge leaving nothing behind.
# Usage: tests/package/run-package-tests.sh BUILD_DIR. Installs into / and purges at the end:
# refuses to run when gpu-numa-hook is already installed (it would remove the operator's copy).
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
BUILD=$(cd "${1:-$REPO/build}" && pwd)
. "$REPO/tests/engine/lib.sh"
trap 'rm -rf "$TMP"' EXIT
need_tools cpack dpkg-deb apt-get man rpm
if dpkg -s gpu-numa-hook >/dev/null 2>&1; then
    fail "precondition" "gpu-numa-hook is already installed here; this test installs and purges it (apt-get purge gpu-numa-hook first)"; finish
fi
OUT=$(cd "$BUILD" && cpack -G "DEB;RPM" -B "$TMP/pkg" 2>&1) || { fail "cpack -G DEB;RPM" "$(echo "$OUT" | tail -3 | one_line)"; finish; }
DEB=$(ls "$TMP"/pkg/gpu-numa-hook_*.deb 2>/dev/null | head -n1)
RPM=$(ls "$TMP"/pkg/gpu-numa-hook-*.rpm 2>/dev/null | head -n1)
[ -f "$DEB" ] && [ -f "$RPM" ] || { fail "cpack -G DEB;RPM" "no .deb or .rpm in $TMP/pkg"; finish; }
pass "cpack built $(basename "$DEB") and $(basename "$RPM")"
deps=$(dpkg-deb -f "$DEB" Depends)
[ -z "$deps" ] && pass "Depends is empty (static binaries)" || fail "Depends" "'$deps'"
dpkg-deb -e "$DEB" "$TMP/control"
grep -qx /etc/gpu-numa-hook/config.toml "$TMP/control/conffiles" && pass "config.toml is a conffile" || fail "conffiles" "$(cat "$TMP/control/conffiles")"
FILES=$(dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's#^\.##' | grep -v '/$')

purge() { DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq gpu-numa-hook >"$TMP/apt-purge.log" 2>&1; }
trap 'purge; rm -rf "$TMP"' EXIT
( cd "$(dirname "$DEB")" && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$(basename "$DEB")" ) >"$TMP/apt.log" 2>&1 ||
    { fail "apt-get install ./deb" "$(tail -5 "$TMP/apt.log" | one_line)"; finish; }
missing=""
for f in $FILES; do [ -e "$f" ] || missing="$missing $f"; done
[ -z "$missing" ] && pass "apt-get install ./$(basename "$DEB"): all $(echo "$FILES" | wc -l) files in place" || fail "files in place" "missing:$missing"
for f in /usr/bin/gpu-numa-hook /usr/bin/gpu-numa-runtime /etc/gpu-numa-hook/config.toml /usr/share/doc/gpu-numa-hook/hooks.d/gpu-numa-hook.json \
         /usr/lib/systemd/system/gpu-numa-hook-check.timer /etc/logrotate.d/gpu-numa-hook \
         /usr/bin/gpu-numa-nvml-probe /usr/lib/systemd/system/gpu-numa-hook-topology.service /usr/share/man/man5/gpu-numa-hook.toml.5; do
    [ -e "$f" ] || fail "installed $f" "missing"
done
# installing the package switches the hook on for no engine: podman and CRI-O read this directory
# by default, so the hooks.d file is placed only by `gpu-numa-hook install --runtime podman|crio`
[ ! -e /usr/share/containers/oci/hooks.d/gpu-numa-hook.json ] && [ ! -e /etc/containers/oci/hooks.d/gpu-numa-hook.json ] &&
    pass "the package registers nothing with podman or CRI-O (no gpu-numa-hook.json in their hooks directories)" ||
    fail "package registers with hooks.d" "$(ls -l /usr/share/containers/oci/hooks.d/gpu-numa-hook.json /etc/containers/oci/hooks.d/gpu-numa-hook.json 2>&1 | one_line)"
# the check timer enabled as deb-systemd-helper does (symlinks only: systemd is not PID 1 here)
WANTS=/etc/systemd/system/timers.target.wants/gpu-numa-hook-check.timer
[ -L "$WANTS" ] && [ "$(readlink -f "$WANTS")" = "$(readlink -f /usr/lib/systemd/system/gpu-numa-hook-check.timer)" ] &&
    pass "postinst enabled the check timer: $WANTS -> $(readlink "$WANTS")" || fail "timer enabled" "$WANTS: $(ls -l "$WANTS" 2>&1)"
V=$(/usr/bin/gpu-numa-hook --version 2>&1)
echo "$V" | grep -qE '^gpu-numa-hook [0-9]+\.[0-9]+\.[0-9]+ \(revision [^)]+\)$' && pass "gpu-numa-hook --version: $V" || fail "--version" "$V"
R=$(/usr/bin/gpu-numa-runtime --version 2>&1 | head -n2 | one_line)
echo "$R" | grep -q "gpu-numa-runtime version .* revision:" && pass "gpu-numa-runtime --version: $R" || fail "runtime --version" "$R"
M=$(MANPAGER=cat MANWIDTH=100 man gpu-numa-hook 2>&1)
echo "$M" | grep -q "gpu-numa-hook - keep GPU containers" && MANPAGER=cat man 1 gpu-numa-runtime >/dev/null 2>&1 && MANPAGER=cat man 5 gpu-numa-hook.toml >/dev/null 2>&1 &&
    pass "man gpu-numa-hook, gpu-numa-runtime(1), gpu-numa-hook.toml(5)" || fail "man pages" "$(echo "$M" | head -3 | one_line)"
bash -c '. /usr/share/bash-completion/completions/gpu-numa-hook && complete -p gpu-numa-hook' >/dev/null 2>&1 && pass "bash completion loads" || fail "bash completion" "does not load"
for c in zsh:/usr/share/zsh/vendor-completions/_gpu-numa-hook fish:/usr/share/fish/vendor_completions.d/gpu-numa-hook.fish; do
    sh=${c%%:*} f=${c#*:}
    if [ ! -f "$f" ]; then fail "$sh completion" "$f not installed"
    elif ! command -v "$sh" >/dev/null; then pass "$sh completion installed at $f (SKIPPED its syntax check: no $sh here)"
    elif "$sh" -n "$f" 2>/dev/null; then pass "$sh completion installed at $f and parses"
    else fail "$sh completion" "$f does not parse"; fi
done

# a changed conffile survives a reinstall
printf '\n# operator change %s\n[zz-operator-%s]\nbogus = 1\n' "$RUNID" "$RUNID" >>/etc/gpu-numa-hook/config.toml
( cd "$(dirname "$DEB")" && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall -o Dpkg::Options::=--force-confold "./$(basename "$DEB")" ) >"$TMP/apt2.log" 2>&1 ||
    fail "reinstall" "$(tail -3 "$TMP/apt2.log" | one_line)"
grep -q "operator change $RUNID" /etc/gpu-numa-hook/config.toml && pass "reinstall keeps the changed /etc/gpu-numa-hook/config.toml" || fail "reinstall keeps config" "change lost"
# postinst ran config check: the ignored key is named, the install still succeeded
grep -q "zz-operator-$RUNID: unknown key, ignored" "$TMP/apt2.log" && grep -q "^gpu-numa-hook: the hook ignores what is listed above" "$TMP/apt2.log" &&
    pass "postinst runs config check: the ignored key is listed, the package still configured" ||
    fail "postinst config check" "$(grep -i 'gpu-numa\|bogus' "$TMP/apt2.log" | one_line)"
sed -i "/^\[zz-operator-$RUNID\]\$/,\$d" /etc/gpu-numa-hook/config.toml

# the runtime suites against the installed files
OUT=$(bash "$REPO/tests/engine/run-shim-tests.sh" /usr/bin/gpu-numa-hook /usr/bin/gpu-numa-runtime 2>&1); RC=$?
[ "$RC" = 0 ] && pass "shim suite against /usr/bin: $(echo "$OUT" | tail -n1)" || fail "shim suite against /usr/bin" "$(echo "$OUT" | grep -E '^FAIL|passed' | one_line)"
OUT=$(bash "$REPO/tests/engine/run-engine-tests.sh" /usr/bin/gpu-numa-hook /usr/bin/gpu-numa-runtime 2>&1); RC=$?
[ "$RC" = 0 ] && pass "dockerd/containerd suite against /usr/bin: $(echo "$OUT" | tail -n1)" || fail "engine suite against /usr/bin" "$(echo "$OUT" | grep -E '^FAIL|passed' | one_line)"

# the installed hook with the installed config writes the default log; purge removes it all
echo '{"ociVersion":"1.0.2","id":"pkg-'"$RUNID"'","status":"creating","pid":1,"bundle":"/nonexistent-'"$RUNID"'"}' | /usr/bin/gpu-numa-hook prestart >/dev/null 2>&1
grep -q "container=pkg-$RUNID" /var/log/gpu-numa-hook.log 2>/dev/null && pass "installed hook logs to /var/log/gpu-numa-hook.log" || fail "default log" "no line"
# removal with an engine registered: nothing left naming the shim, dockerd still runs containers
OUT=$(bash "$SCRIPT_DIR/run-removal-tests.sh" "$RPM" 2>&1); RC=$?
echo "$OUT" | grep -E '^(PASS|FAIL|SKIP)'
[ "$RC" = 0 ] && pass "removal with docker registered as the default: $(echo "$OUT" | tail -n1)" || fail "removal suite" "$(echo "$OUT" | grep -E '^FAIL|passed' | one_line)"
purge || fail "apt-get purge" "$(tail -3 "$TMP/apt-purge.log" | one_line)"
left=""
for f in $FILES /etc/gpu-numa-hook /var/log/gpu-numa-hook.log "$WANTS" /etc/systemd/system/gpu-numa-hook-check.timer; do
    [ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done
ls /var/log/gpu-numa-hook.log.* >/dev/null 2>&1 && left="$left /var/log/gpu-numa-hook.log.*"
! dpkg -s gpu-numa-hook >/dev/null 2>&1 && [ -z "$left" ] && pass "apt-get purge: nothing left (files, /etc/gpu-numa-hook, the log, the timer's enablement)" || fail "purge" "left:$left"
finish
