#!/bin/bash
# One Prometheus scrape of gpu-numa-nri's own endpoint (--metrics-address): the real plugin,
# registered with a real containerd (NRI on, its own root, state and sockets, as
# tests/nri/run-prometheus-scrape-test.sh starts them), scraped N times in a row over loopback by one
# Python process, a new connection each time (the plugin closes each one, as Prometheus expects).
# Prints the median and p99 of a scrape's round trip and the plugin's CPU time per scrape, from
# its threads' /proc schedstat (ns) and from /proc/PID/stat's utime+stime (clock ticks), each read
# before and after; the same reading over an idle stretch as long is printed beside it.
#   bash bench/run-nri-scrape-bench.sh [PLUGIN] [N] [SUITE]     (build/gpu-numa-nri, 1000, v2.3)
set -uo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
PLUGIN=$(realpath "${1:-$REPO/build/gpu-numa-nri}")
N=${2:-1000}
SUITE=${3:-v2.3}
# shellcheck source=../tests/support/tally.sh
. "$REPO/tests/support/tally.sh"
# shellcheck source=../tests/engine/containerd-suite.sh
. "$REPO/tests/engine/containerd-suite.sh"
TMP=$(mktemp -d /tmp/gnh-scrape-XXXXXX)
cleanup() {
    stop_started_pids
    rm -rf "$TMP"
}
trap cleanup EXIT
containerd_suite_root "$SUITE"
PORT=$(free_port)
mkdir -p "$TMP/ctd"
containerd_nri_config "$TMP" >"$TMP/ctd/config.toml"
"$CTD_ROOT/usr/bin/containerd" --config "$TMP/ctd/config.toml" >"$TMP/containerd.log" 2>&1 &
started_pid "$!"
printf '[log]\nfile = "%s/plugin.log"\n' "$TMP" >"$TMP/nri.toml"
"$PLUGIN" --socket "$TMP/nri.sock" --config "$TMP/nri.toml" --hook /bin/true --state-file "$TMP/state.json" \
    --metrics-address "127.0.0.1:$PORT" >"$TMP/plugin.err" 2>&1 &
PLUGIN_PID=$!
started_pid "$PLUGIN_PID"
# registered: its own log line says so (bounded wait)
for _ in $(seq 1 300); do
    [ "$(grep -c "stage=nri-connect action=connected" "$TMP/plugin.log" 2>/dev/null)" -ge 1 ] && break
    sleep 0.1
done
[ "$(grep -c "stage=nri-connect action=connected" "$TMP/plugin.log" 2>/dev/null)" -ge 1 ] ||
    { echo "plugin did not register: $(tail -3 "$TMP/plugin.err")" >&2; exit 1; }
python3 - "$PLUGIN_PID" "$PORT" "$N" "$("$CTD_ROOT/usr/bin/containerd" --version | cut -d' ' -f3)" <<'PY'
import glob, http.client, os, statistics, sys, time
pid, port, n, ctd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
tick = os.sysconf("SC_CLK_TCK")
def cpu():
    ns = sum(int(open(f).read().split()[0]) for f in glob.glob(f"/proc/{pid}/task/*/schedstat"))
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return ns, int(f[11]) + int(f[12])  # utime, stime (fields 14, 15)
def scrape():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read()
    c.close()
    if r.status != 200 or b"gpu_numa_hook_nri_plugin_connected 1" not in body:
        sys.exit("scrape: status %d, connected 1 not in the body" % r.status)
    return len(body)
size = scrape()
for _ in range(20):
    scrape()  # warm: the first connections of a fresh process
ns0, t0 = cpu(); w0 = time.perf_counter()
lat = []
for _ in range(n):
    a = time.perf_counter(); scrape(); lat.append((time.perf_counter() - a) * 1e6)
wall = time.perf_counter() - w0
ns1, t1 = cpu()
time.sleep(wall)  # the same stretch, idle: what the plugin's own threads take meanwhile
ns2, t2 = cpu()
lat.sort()
print("gpu-numa-nri /metrics (%d bytes), registered with containerd %s, %d scrapes over loopback:" % (size, ctd, n))
print("  round trip: median %.0f us  p99 %.0f us  max %.0f us" % (statistics.median(lat), lat[int(0.99 * (n - 1))], lat[-1]))
print("  plugin CPU per scrape: %.1f us (schedstat), %.1f us (utime+stime, %d ticks)" %
      ((ns1 - ns0) / 1e3 / n, (t1 - t0) * 1e6 / tick / n, t1 - t0))
print("  plugin CPU over an idle %.2f s: %.1f us (schedstat), %d ticks" % (wall, (ns2 - ns1) / 1e3, t2 - t1))
PY
