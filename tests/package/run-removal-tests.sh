#!/bin/bash
# Removing the package must not take the node's containers down: with the .deb INSTALLED (by
# run-package-tests.sh, which calls this), `gpu-numa-hook install --runtime docker --set-default`
# against a real dockerd (20.10, its own containerd, sockets and data under a temp dir, started by
# this test in a private mount namespace), then:
#   the .rpm's preun scriptlet (extracted with rpm -qp) run as rpm runs it: $1=1 (upgrade) changes
#     nothing, $1=0 (removal) gives daemon.json back; re-registered;
#   a registration that cannot be undone (daemon.json broken by hand): apt-get remove refused with
#     one line naming the command, the package still installed;
#   apt-get remove: daemon.json back byte for byte, what to restart printed, the binaries gone;
#     dockerd restarted still runs a busybox container (default runtime runc).
# Usage: tests/package/run-removal-tests.sh RPM   (the .deb is installed already). Leaves the
# package removed (not purged): the caller purges.
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
. "$REPO/tests/engine/lib.sh"
TALLY_NAME="package removal"
RPM=$1
cleanup() { engine_cleanup "gnh-pkgrm-$RUNID"; }
if [ -z "${GNH_TMP:-}" ]; then
    trap cleanup EXIT
    need_tools dockerd containerd runc rpm jq unshare busybox apt-get cmp
    [ -x /usr/bin/docker ] || { skip "all cases" "Debian's docker CLI /usr/bin/docker is missing (apt-get install docker.io)"; finish; }
    dpkg -s gpu-numa-hook 2>/dev/null | grep -q '^Status: install ok installed' || { fail "precondition" "the .deb is not installed"; finish; }
    make_rootfs
    # Beyond their own roots the engines write /run/containerd, /run/docker, /opt/containerd and
    # /etc/docker (dockerd's key.json): a private tmpfs over each inside the namespace. /etc itself
    # stays the host's: dpkg must see its real conffiles.
    for d in /run/containerd /run/docker /opt/containerd /etc/docker; do
        [ -e "$d" ] || { mkdir -p "$d" && echo "$d" >>"$TMP/created-dirs"; }
    done
    GNH_TMP=$TMP unshare -m --propagation private -- /bin/bash "$SCRIPT_DIR/run-removal-tests.sh" "$@"
    rc=$?
    [ -f "$TMP/created-dirs" ] && while read -r d; do rmdir "$d" 2>/dev/null; done <"$TMP/created-dirs"
    exit $rc
fi
tmpfs_over gnh-pkgrm /run/containerd /run/docker /opt/containerd /etc/docker

# ---------------------------------------------------------------- inside the namespace
DOCKER=/usr/bin/docker
CTD=$TMP/ctd
SOCK=$CTD/containerd.sock
STATE=/etc/gpu-numa-hook/install-state.json
HOOKLOG=/var/log/gpu-numa-hook.log
mkdir -p "$CTD" "$TMP/docker"
containerd_base_config >"$CTD/config.toml"
start_containerd
for i in $(seq 1 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { fail "containerd start" "no socket: $(tail -5 "$TMP/containerd.log" | one_line)"; finish; }
start_dockerd() {
    dockerd --containerd="$SOCK" --config-file "$TMP/daemon.json" --data-root "$TMP/docker/data" \
        --exec-root "$TMP/docker/exec" --pidfile "$TMP/dockerd.pid" -H "unix://$TMP/docker.sock" \
        --iptables=false --ip-masq=false --bridge=none --storage-driver=vfs --cgroup-parent "/gnh-pkgrm-$RUNID" \
        >>"$TMP/dockerd.log" 2>&1 &
    for i in $(seq 1 300); do DOCKER_HOST=unix://$TMP/docker.sock $DOCKER info >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}
restart_dockerd() { stop_pidfile "$TMP/dockerd.pid"; start_dockerd || { fail "dockerd (re)start" "$(tail -5 "$TMP/dockerd.log" | one_line)"; finish; }; }
default_runtime() { $DOCKER info --format '{{.DefaultRuntime}}' 2>&1; }
export DOCKER_HOST=unix://$TMP/docker.sock
register() { # install --set-default with the installed binaries and config (no --config: the real state file)
    OUT=$(/usr/bin/gpu-numa-hook install --runtime docker --runtime-config "$TMP/daemon.json" --set-default 2>&1) ||
        { fail "install --runtime docker --set-default" "$(echo "$OUT" | one_line)"; finish; }
}
[ -e "$STATE" ] && { fail "precondition" "$STATE exists already: $(one_line <"$STATE")"; finish; }

printf '{\n  "log-level": "warn"\n}\n' >"$TMP/daemon.json"
cp "$TMP/daemon.json" "$TMP/daemon.original"
register
start_dockerd || { fail "dockerd start" "$(tail -5 "$TMP/dockerd.log" | one_line)"; finish; }
tar -C "$TMP/rootfs" -c . | $DOCKER import - gnh-busybox >/dev/null || { fail "docker import" "image"; finish; }
n=before-$RUNID
OUT=$(timeout 90 $DOCKER run --rm --name "$n" gnh-busybox sh -c 'echo ran-before' 2>&1); RC=$?
[ "$RC" = 0 ] && echo "$OUT" | grep -q ran-before && [ "$(default_runtime)" = gpu-numa ] &&
    grep -E "container=[0-9a-f]{64} .*action=allow gpus=- " "$HOOKLOG" 2>/dev/null | grep -q . &&
    [ "$(jq -r '.docker.config' "$STATE")" = "$TMP/daemon.json" ] &&
    pass "install --set-default: dockerd's default runtime is gpu-numa (the installed shim; our hook logged the container), recorded in $STATE" ||
    fail "registered as the default" "rc $RC $(echo "$OUT" | one_line) default '$(default_runtime)' state $(one_line <"$STATE" 2>/dev/null)"
cp "$TMP/daemon.json" "$TMP/daemon.registered"
# status finds the registration where install-state.json says it is, and the installed shim
OUT=$(/usr/bin/gpu-numa-hook status 2>&1)
echo "$OUT" | grep -qxF "  docker: runtime gpu-numa, the default, in $TMP/daemon.json" &&
    echo "$OUT" | grep -qxF "    shim /usr/bin/gpu-numa-runtime: ok" && echo "$OUT" | grep -qxF "timer: gpu-numa-hook-check.timer enabled" &&
    pass "installed status: docker's gpu-numa runtime (the default) in the recorded daemon.json, the shim there, the timer enabled" ||
    fail "status after install" "$(echo "$OUT" | one_line)"

# The .rpm's preun scriptlet, as rpm would run it on this state (rpm cannot install on Debian: its
# database is not dpkg's). The same function as the .deb's prerm, called for $1 = 0 only.
rpm -qp --qf '%{PREUN}' "$RPM" >"$TMP/preun.sh" 2>/dev/null
sed -n '/^gnh_undo_engines()/,/^}/p' "$REPO/packaging/scriptlets/engine-undo.sh" >"$TMP/fn.want"
sed -n '/^gnh_undo_engines()/,/^}/p' "$TMP/preun.sh" >"$TMP/fn.rpm"
dpkg-deb -e "$(ls "$(dirname "$RPM")"/gpu-numa-hook_*.deb | head -n1)" "$TMP/debctl" 2>/dev/null
sed -n '/^gnh_undo_engines()/,/^}/p' "$TMP/debctl/prerm" >"$TMP/fn.deb"
[ -s "$TMP/fn.want" ] && cmp -s "$TMP/fn.want" "$TMP/fn.rpm" && cmp -s "$TMP/fn.want" "$TMP/fn.deb" &&
    grep -q '^if \[ "$1" -eq 0 \]; then' "$TMP/preun.sh" && grep -q '^if \[ "$1" = remove \]; then' "$TMP/debctl/prerm" &&
    pass "rpm -qp --scripts: preun carries gnh_undo_engines byte for byte as the .deb's prerm, called for \$1 = 0 (the .deb: remove)" ||
    fail "preun scriptlet" "$(diff "$TMP/fn.want" "$TMP/fn.rpm" | one_line) $(diff "$TMP/fn.want" "$TMP/fn.deb" | one_line)"
OUT=$(sh "$TMP/preun.sh" 1 2>&1); RC=$?
[ "$RC" = 0 ] && [ -z "$OUT" ] && cmp -s "$TMP/daemon.json" "$TMP/daemon.registered" && [ -e "$STATE" ] &&
    pass "rpm preun with \$1 = 1 (an upgrade): nothing undone, nothing said" ||
    fail "rpm preun upgrade" "rc $RC $(echo "$OUT" | one_line) $(diff "$TMP/daemon.registered" "$TMP/daemon.json" | one_line)"
OUT=$(sh "$TMP/preun.sh" 0 2>&1); RC=$?
[ "$RC" = 0 ] && cmp -s "$TMP/daemon.json" "$TMP/daemon.original" && [ ! -e "$STATE" ] &&
    echo "$OUT" | grep -qxF "restart dockerd to apply: systemctl restart docker" &&
    pass "rpm preun with \$1 = 0 (removal): daemon.json back byte for byte, the state file gone, 'systemctl restart docker' said" ||
    fail "rpm preun removal" "rc $RC $(echo "$OUT" | one_line) $(diff "$TMP/daemon.original" "$TMP/daemon.json" | one_line)"

# A registration that cannot be undone: the removal is refused, nothing removed.
register
cp "$TMP/daemon.json" "$TMP/daemon.registered"
printf '{ "default-runtime": "gpu-numa", ' >"$TMP/daemon.json"   # broken by hand
OUT=$(DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq gpu-numa-hook 2>&1); RC=$?
refusal=$(echo "$OUT" | grep -c "gpu-numa-hook: not removed: .*run 'gpu-numa-hook install --uninstall --all', then remove the package again")
[ "$RC" != 0 ] && [ "$refusal" = 1 ] && dpkg -s gpu-numa-hook 2>/dev/null | grep -q '^Status: install ok installed' &&
    [ -x /usr/bin/gpu-numa-runtime ] && [ -e "$STATE" ] &&
    pass "apt-get remove with a registration that cannot be undone: refused (exit $RC) with one line naming the command; package, shim and record kept" ||
    fail "refused removal" "rc $RC refusal lines $refusal: $(echo "$OUT" | grep -v 'Reading database' | one_line) status: $(dpkg -s gpu-numa-hook 2>&1 | grep Status)"
cp "$TMP/daemon.registered" "$TMP/daemon.json"
restart_dockerd
[ "$(default_runtime)" = gpu-numa ] || fail "registered again" "default runtime '$(default_runtime)'"

# The removal itself; then dockerd, restarted as the package said, still runs containers.
OUT=$(DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq gpu-numa-hook 2>&1); RC=$?
# (apt's output is not line-clean: its progress lines end in carriage returns)
[ "$RC" = 0 ] && cmp -s "$TMP/daemon.json" "$TMP/daemon.original" && [ ! -e "$STATE" ] && [ ! -e /usr/bin/gpu-numa-runtime ] &&
    echo "$OUT" | grep -qF "restart dockerd to apply: systemctl restart docker" &&
    pass "apt-get remove: prerm gave daemon.json back byte for byte before the binaries went, and said 'systemctl restart docker'" ||
    fail "apt-get remove" "rc $RC diff: $(diff "$TMP/daemon.original" "$TMP/daemon.json" | one_line) state: $(ls "$STATE" 2>&1) $(ls /usr/bin/gpu-numa-runtime 2>&1) $(echo "$OUT" | grep -v 'Reading database' | one_line)"
restart_dockerd
# status (this checkout's build: the installed one is gone) on what removal left: docker not registered
if [ -x "$REPO/build/gpu-numa-hook" ]; then
    OUT=$("$REPO/build/gpu-numa-hook" status 2>&1)
    echo "$OUT" | grep -q "^gpu-numa-hook status: " && ! echo "$OUT" | grep -q "docker: runtime gpu-numa" &&
        pass "status after removal: no docker registration left" || fail "status after removal" "$(echo "$OUT" | one_line)"
fi
n=after-$RUNID
OUT=$(timeout 90 $DOCKER run --rm --name "$n" gnh-busybox sh -c 'echo ran-after-removal' 2>&1); RC=$?
[ "$RC" = 0 ] && echo "$OUT" | grep -q ran-after-removal && [ "$(default_runtime)" = runc ] &&
    pass "after removal: dockerd restarted, default runtime runc, a busybox container runs" ||
    fail "dockerd after removal" "rc $RC $(echo "$OUT" | one_line) default '$(default_runtime)'"
stop_pidfile "$TMP/dockerd.pid"
finish
