#!/bin/bash
# A real Prometheus (Debian's) scrapes gpu-numa-nri's own endpoint while the plugin is registered
# with a real containerd (2.1, NRI on as shipped): gpu_numa_hook_nri_plugin_connected reads 1 in
# Prometheus; containerd stopped (by pid), it reads 0 there, and the plugin's endpoint still
# answers. Everything listens on 127.0.0.1 or under a temporary directory; each process is stopped
# by its pid. Progress is read from what the programs report (Prometheus's query API), polled
# with a bound, never from a sleep that must win a race.
#   tests/nri/run-prometheus-scrape-test.sh PLUGIN [SUITE]     SUITE: sid (default) | v2.2 | v2.3
set -uo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLUGIN=${1:?usage: run-prometheus-scrape-test.sh PLUGIN [SUITE]}
SUITE=${2:-sid}
TALLY_NAME="prometheus scrape ($SUITE)"
# shellcheck source=../support/tally.sh
. "$SCRIPT_DIR/../support/tally.sh"
# shellcheck source=../engine/containerd-suite.sh
. "$SCRIPT_DIR/../engine/containerd-suite.sh"
TMP=$(mktemp -d /tmp/gnh-prom-XXXXXX)
cleanup() {
    stop_started_pids
    rm -rf "$TMP"
}
trap cleanup EXIT

command -v prometheus >/dev/null && command -v curl >/dev/null ||
    { skip "all cases" "prometheus or curl missing (tests/run-all.sh installs them)"; finish; }
containerd_suite_root "$SUITE"
CTD_BIN=$CTD_ROOT/usr/bin

METRICS_PORT=$(free_port)
PROM_PORT=$(free_port)

# containerd with its own root, state, sockets and NRI directories: nothing of the host's.
mkdir -p "$TMP/ctd" "$TMP/nri-plugins" "$TMP/nri-conf"
containerd_nri_config "$TMP" >"$TMP/ctd/config.toml"
"$CTD_BIN/containerd" --config "$TMP/ctd/config.toml" >"$TMP/containerd.log" 2>&1 &
CTD_PID=$!
started_pid "$CTD_PID"

printf '[log]\nfile = "%s/plugin.log"\n' "$TMP" >"$TMP/nri.toml"
"$PLUGIN" --socket "$TMP/nri.sock" --config "$TMP/nri.toml" --hook /bin/true --state-file "$TMP/state.json" \
    --metrics-address "127.0.0.1:$METRICS_PORT" >"$TMP/plugin.err" 2>&1 &
started_pid "$!"

cat >"$TMP/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gpu-numa-nri
    static_configs:
      - targets: ["127.0.0.1:$METRICS_PORT"]
YAML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom-data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$TMP/prometheus.log" 2>&1 &
started_pid "$!"

# connected_in_prometheus: the value of gpu_numa_hook_nri_plugin_connected as Prometheus has it now
connected_in_prometheus() {
    curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query?query=gpu_numa_hook_nri_plugin_connected" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")' 2>/dev/null
}
# wait_connected VALUE: until Prometheus reads VALUE (at most 60 s); the last value seen in $SEEN
wait_connected() {
    local i
    for i in $(seq 1 300); do
        SEEN=$(connected_in_prometheus)
        [ "$SEEN" = "$1" ] && return 0
        sleep 0.2
    done
    return 1
}

if wait_connected 1; then
    pass "registered with $("$CTD_BIN/containerd" --version | cut -d' ' -f3): Prometheus scraped gpu_numa_hook_nri_plugin_connected 1 from the plugin's endpoint"
else
    fail "connected 1 in Prometheus" "last value '$SEEN'; plugin: $(tail -3 "$TMP/plugin.err" | one_line) prometheus: $(grep -i -E 'error|warn' "$TMP/prometheus.log" | tail -2 | one_line)"
    finish
fi
UP=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query?query=up" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])' 2>&1)
[ "$UP" = 1 ] && pass "Prometheus reports the target up (up 1)" || fail "target up" "up: $UP"

kill "$CTD_PID"
wait "$CTD_PID" 2>/dev/null
if wait_connected 0; then
    pass "containerd stopped: Prometheus reads gpu_numa_hook_nri_plugin_connected 0"
else
    fail "connected 0 after containerd stopped" "last value '$SEEN'; plugin: $(tail -3 "$TMP/plugin.err" | one_line)"
fi
BODY=$(curl -sf "http://127.0.0.1:$METRICS_PORT/metrics"); RC=$?
[ "$RC" = 0 ] && grep -qx 'gpu_numa_hook_nri_plugin_connected 0' <<<"$BODY" &&
    grep -q '^gpu_numa_hook_nri_drops_total 1$' <<<"$BODY" &&
    grep -q '^gpu_numa_hook_nri_last_drop_info{reason="[a-z_]*"} 1$' <<<"$BODY" &&
    pass "the plugin still answers /metrics without its runtime: connected 0, drops 1, $(grep '^gpu_numa_hook_nri_last_drop_info' <<<"$BODY")" ||
    fail "plugin endpoint after containerd stopped" "curl rc $RC: $(grep '^gpu_numa_hook_nri_' <<<"$BODY" | one_line)"
finish
