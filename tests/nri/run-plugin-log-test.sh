#!/bin/bash
# gpu-numa-nri's log where `kubectl logs` looks (stderr), once per record, whether or not its log file
# can be written. A [log] file that is a directory (as a read-only or missing /var/log is) makes the
# log fall back to stderr: each record must still appear once there, and the line saying so must
# name gpu-numa-nri. Driven by a socket nobody serves: the plugin logs one retry record (then backs
# off quietly); once it is on stderr the plugin is stopped (SIGTERM only sets a flag, so the call
# that wrote it completes its writes) and the lines are counted.
#   tests/nri/run-plugin-log-test.sh PLUGIN
set -uo pipefail
PLUGIN=${1:?usage: run-plugin-log-test.sh PLUGIN}
TALLY_NAME="nri plugin log:"
source "$(dirname "$0")/../support/tally.sh"
TMP=$(mktemp -d /tmp/gnh-nri-log-XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# Starts the plugin with CONFIG, waits for its retry record on stderr (at most 30 s), stops it.
run_until_retry() {
    "$PLUGIN" --socket "$TMP/nobody.sock" --config "$1" --hook /bin/true --state-file "$TMP/state.json" 2>"$TMP/err" &
    PID=$!
    for _ in $(seq 1 300); do
        grep -q 'stage=nri-connect action=retry' "$TMP/err" && break
        sleep 0.1
    done
    kill -TERM "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=
}
retries() { grep -c 'stage=nri-connect action=retry' "$1" 2>/dev/null; }

mkdir -p "$TMP/logdir"
printf '[log]\nfile = "%s/logdir"\n' "$TMP" >"$TMP/fallback.toml"
run_until_retry "$TMP/fallback.toml"
name="log file unusable: the line saying so names gpu-numa-nri"
grep -q "^gpu-numa-nri\[[0-9]*\]: cannot write the log file $TMP/logdir (.*): this and later records go to stderr and syslog$" "$TMP/err" &&
    pass "$name" || fail "$name" "$(sed -n 1,2p "$TMP/err" | one_line)"
name="log file unusable: each record once on stderr"
n=$(retries "$TMP/err")
[ "$n" = 1 ] && pass "$name" || fail "$name" "$n retry records: $(sed -n 1,4p "$TMP/err" | one_line)"

printf '[log]\nfile = "%s/plugin.log"\n' "$TMP" >"$TMP/file.toml"
run_until_retry "$TMP/file.toml"
name="log file usable: each record once on stderr and once in the file"
n=$(retries "$TMP/err")
f=$(retries "$TMP/plugin.log")
[ "$n" = 1 ] && [ "$f" = 1 ] && pass "$name" || fail "$name" "stderr $n, file $f: $(sed -n 1,3p "$TMP/err" | one_line)"

# A pre-registered plugin's NRI_PLUGIN_SOCKET that is not a socket's descriptor: one line, exit 2,
# before anything is dialed (fd 9 is closed here, fd 0 is stdin).
for v in abc 3x -1 0 9; do
    name="NRI_PLUGIN_SOCKET=$v: refused in one line, exit 2"
    out=$(NRI_PLUGIN_SOCKET=$v "$PLUGIN" --socket "$TMP/nobody.sock" --config "$TMP/file.toml" --hook /bin/true \
              --state-file "$TMP/state.json" 2>&1 9>&-)
    rc=$?
    [ "$rc" = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
        grep -qE "^gpu-numa-nri: NRI_PLUGIN_SOCKET='$v' (is not a file descriptor number|names standard input, output or error, not a socket|is not an open socket here) " <<<"$out" &&
        pass "$name" || fail "$name" "rc $rc: $(echo "$out" | one_line)"
done
finish
