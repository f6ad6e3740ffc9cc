# shellcheck shell=bash
# Which real containerd an engine suite runs against (sourced; needs tally.sh's fail/skip/finish):
#   bookworm  Debian 12's containerd 1.6, the system's /usr/bin/containerd
#   trixie    containerd 1.7.24, sid: containerd 2.1.9, both fetched and cached by
#             tests/nri/fetch-containerd.sh (CI fetches them before the build)
#   v2.2      upstream's 2.2.7 (NRI 0.11), v2.3: 2.3.4 (NRI 0.12), unpacked by the same script from
#             shared/tools beside the repository: skipped loudly where that is absent (a clone),
#             a failure under CI=true
# A fetched one is bound over /usr/bin/{containerd,containerd-shim-runc-v2,ctr} in a private mount
# namespace (install asks `/usr/bin/containerd --version`, never $PATH) and put first on PATH
# (containerd finds its shim there). A release that is not the suite's is a failure, never a skip.

# containerd_suite_release SUITE: the major.minor that SUITE must run
containerd_suite_release() {
    case $1 in bookworm) echo 1.6 ;; trixie) echo 1.7 ;; sid) echo 2.1 ;; v2.2) echo 2.2 ;; v2.3) echo 2.3 ;; *) return 1 ;; esac
}
# fetch_containerd_suite SUITE: the unpacked root of SUITE's containerd on stdout ("/" for bookworm)
fetch_containerd_suite() {
    [ "$1" = bookworm ] && { echo /; return 0; }
    "$(dirname "${BASH_SOURCE[0]}")/../nri/fetch-containerd.sh" "$1"
}
# containerd_suite_root SUITE: sets CTD_ROOT to SUITE's unpacked root ("/" for bookworm); a suite
# whose containerd cannot be had ends here: skipped where shared/tools is absent, else failed
containerd_suite_root() {
    local rc=0
    CTD_ROOT=$(fetch_containerd_suite "$1") && return 0 || rc=$?
    if [ "$rc" = 77 ]; then
        skip "every case on containerd $(containerd_suite_release "$1")" "its build is not here (see the line above)"
    else
        fail "fetch containerd $1" "tests/nri/fetch-containerd.sh $1 failed (see above)"
    fi
    finish
}
# bind_containerd ROOT: inside a private mount namespace, ROOT's binaries over /usr/bin's and first on PATH
bind_containerd() {
    local b
    [ "$1" = / ] && return 0
    for b in containerd containerd-shim-runc-v2 ctr; do
        [ -e "/usr/bin/$b" ] && [ -e "$1/usr/bin/$b" ] && { mount --bind "$1/usr/bin/$b" "/usr/bin/$b" || return 1; }
    done
    export PATH="$1/usr/bin:$PATH"
}
# check_containerd_release SUITE: sets CTD_VERSION (containerd --version), CTD_RELEASE (1.6, 2.1...),
# CTD_MAJOR; fails the suite when /usr/bin/containerd is not SUITE's release
check_containerd_release() {
    local want
    want=$(containerd_suite_release "$1") || { fail "containerd suite" "unknown suite '$1' (bookworm, trixie, sid, v2.2 or v2.3)"; finish; }
    [ -x /usr/bin/containerd ] || { fail "containerd $want" "/usr/bin/containerd is missing (tests/run-all.sh installs Debian 12's)"; finish; }
    CTD_VERSION=$(/usr/bin/containerd --version 2>&1)
    CTD_RELEASE=$(echo "$CTD_VERSION" | sed -n 's/^containerd [^ ]* v\{0,1\}\([0-9]*\.[0-9]*\)\..*/\1/p')
    CTD_MAJOR=${CTD_RELEASE%%.*}
    [ "$CTD_RELEASE" = "$want" ] || { fail "containerd $want" "suite $1 expects containerd $want at /usr/bin/containerd, found: $CTD_VERSION"; finish; }
    echo "containerd under test: $CTD_VERSION"
}
# use_containerd_suite SUITE SCRIPT ARG...: for a suite without a namespace of its own (install):
# bookworm runs here; trixie/sid re-run SCRIPT ARG... in a private mount namespace with the fetched
# containerd bound (GNH_CTD_ROOT marks that run). Returns with CTD_* set (check_containerd_release).
use_containerd_suite() {
    local suite=$1 root
    shift
    if [ "$suite" != bookworm ] && [ -z "${GNH_CTD_ROOT:-}" ]; then
        [ "$(id -u)" = 0 ] || { fail "containerd $suite" "binding the fetched containerd over /usr/bin needs root"; finish; }
        containerd_suite_root "$suite"
        GNH_CTD_ROOT=$CTD_ROOT exec unshare -m --propagation private -- /bin/bash "$@"
    fi
    if [ -n "${GNH_CTD_ROOT:-}" ]; then
        bind_containerd "$GNH_CTD_ROOT" || { fail "containerd $suite" "cannot bind $GNH_CTD_ROOT's binaries over /usr/bin"; finish; }
    fi
    check_containerd_release "$suite"
}

# containerd_nri_config DIR: the config.toml of a containerd with nothing of the host's: root,
# state and sockets under DIR/ctd, NRI on (1.7 ships it off) at DIR/nri.sock with its plugin
# directories under DIR. For the suites that need containerd and NRI but not CRI.
containerd_nri_config() {
    cat <<TOML
version = 2
root = "$1/ctd/root"
state = "$1/ctd/state"
[grpc]
  address = "$1/ctd/containerd.sock"
[ttrpc]
  address = "$1/ctd/containerd.sock.ttrpc"
[plugins."io.containerd.nri.v1.nri"]
  disable = false
  socket_path = "$1/nri.sock"
  plugin_path = "$1/nri-plugins"
  plugin_config_path = "$1/nri-conf"
TOML
}

# For a script that runs containerd without lib.sh's namespace (the scrape test, the scrape
# benchmark): started_pid keeps each process it starts with `&`, stop_started_pids (from its EXIT
# trap) stops and reaps them by pid.
STARTED_PIDS=()
started_pid() { STARTED_PIDS+=("$1"); }
stop_started_pids() {
    local p
    for p in "${STARTED_PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${STARTED_PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
# free_port: a TCP port on 127.0.0.1 that nothing listens on now
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
