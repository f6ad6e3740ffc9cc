#!/bin/bash
# Validates config/systemd: systemd-analyze verify (strict: any warning fails), proven able to
# catch a bad unit on this machine first; then runs the units' exact command lines against a
# small host tree (--host-root) to show the arguments work. Usage: verify-units.sh <gpu-numa-hook>
set -euo pipefail

BIN=$(readlink -f "$1")
SRC=$(cd "$(dirname "$0")/../../config/systemd" && pwd)
T=$(mktemp -d /tmp/gnh-units-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

# --- the units, with the binary path pointed at the build ----------------------------------------
mkdir -p "$T/units"
install_unit() {  # src dest: copies, rewriting /usr/bin/gpu-numa-hook to the built binary
  mkdir -p "$(dirname "$2")"
  sed "s#/usr/bin/gpu-numa-hook#$BIN#g" "$1" > "$2"
}
install_unit "$SRC/gpu-numa-hook-check.service" "$T/units/gpu-numa-hook-check.service"
install_unit "$SRC/gpu-numa-hook-check.timer" "$T/units/gpu-numa-hook-check.timer"
install_unit "$SRC/gpu-numa-hook-topology.service" "$T/units/gpu-numa-hook-topology.service"
SERVICES="docker containerd crio kubelet"
for s in $SERVICES; do
  # A stand-in for the real service: the drop-in is what is checked.
  printf '[Unit]\nDescription=stand-in %s\n[Service]\nExecStart=/bin/true\n' "$s" > "$T/units/$s.service"
  # The drop-in as `install --boot-gate` writes it (docker's differs: no start timeout); the
  # shipped example is the same text (hook/core/install/boot_gate_test.cc).
  "$BIN" --host-root "$T/gate" install --boot-gate "$s" --hook-path "$BIN" >/dev/null
  mkdir -p "$T/units/$s.service.d"
  cp "$T/gate/etc/systemd/system/$s.service.d/gpu-numa-hook-wait.conf" "$T/units/$s.service.d/gpu-numa-hook-wait.conf"
done

# --- validator: systemd-analyze, else a parse check --------------------------------------------------
# The fallback knows the sections and keys these units use; anything else is an error.
parse_check() {
  local f rc=0
  for f in "$@"; do
    [ -f "$f" ] || f="$T/units/$f"
    local section="" n=0 line key
    while IFS= read -r line || [ -n "$line" ]; do
      n=$((n + 1))
      case "$line" in ''|'#'*|';'*) continue ;; esac
      if [[ "$line" =~ ^\[([A-Za-z]+)\]$ ]]; then
        section=${BASH_REMATCH[1]}
        case "$section" in Unit|Service|Timer|Install) ;; *) echo "$f:$n: unknown section [$section]"; rc=1 ;; esac
        continue
      fi
      if [[ ! "$line" =~ ^([A-Za-z]+)=(.*)$ ]]; then echo "$f:$n: not Key=Value"; rc=1; continue; fi
      key="$section.${BASH_REMATCH[1]}"
      case "$key" in
        Unit.Description|Unit.Wants|Unit.After|Unit.Documentation|Install.WantedBy|Timer.OnBootSec|\
        Timer.OnUnitActiveSec|Timer.AccuracySec|Service.ExecStart|Service.ExecStartPre|Service.Nice|\
        Service.IOSchedulingClass|Service.TimeoutStartSec) ;;
        Service.Type) [[ "${BASH_REMATCH[2]}" =~ ^(simple|exec|forking|oneshot|dbus|notify|idle)$ ]] ||
                        { echo "$f:$n: bad Type"; rc=1; } ;;
        *) echo "$f:$n: unknown key $key"; rc=1 ;;
      esac
    done < "$f"
  done
  return $rc
}
# GNH_UNITS_VALIDATOR=parse forces the fallback (to test it on a machine that has systemd).
use_systemd() { [ "${GNH_UNITS_VALIDATOR:-}" != parse ] && command -v systemd-analyze > /dev/null; }
validate() {  # unit names or paths; prints what the validator said, returns non-zero on any complaint
  local out rc=0
  if use_systemd; then
    out=$(cd "$T/units" && SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify --man=no "$@" 2>&1) || rc=$?
  else
    local files=() u
    for u in "$@"; do files+=("$T/units/$u"); [ -d "$T/units/$u.d" ] && files+=("$T/units/$u.d"/*.conf); done
    out=$(parse_check "${files[@]}" 2>&1) || rc=$?
  fi
  [ -n "$out" ] && echo "$out"
  [ $rc -eq 0 ] && [ -z "$out" ]
}
use_systemd && echo "validator: $(systemd-analyze --version | sed -n 1p)" ||
  echo "validator: parse check (systemd-analyze not installed or GNH_UNITS_VALIDATOR=parse)"

# --- the validator must catch mistakes here, or passing proves nothing --------------------------------
sed 's/^Type=oneshot/Type=oneshott/' "$T/units/gpu-numa-hook-check.service" > "$T/units/bad-type.service"
validate bad-type.service > /dev/null && fail "validator accepted Type=oneshott" || pass "validator rejects a bad Type"
sed 's/^ExecStart=/Exec_Start=/' "$T/units/gpu-numa-hook-check.service" > "$T/units/bad-key.service"
validate bad-key.service > /dev/null && fail "validator accepted a bad key" || pass "validator rejects an unknown key"
mkdir -p "$T/units/probe.service.d"
printf '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n' > "$T/units/probe.service"
printf '[Service]\nTypo=1\n' > "$T/units/probe.service.d/x.conf"
validate probe.service > /dev/null && fail "validator ignored a drop-in" || pass "validator reads drop-ins"
rm -rf "$T/units/bad-type.service" "$T/units/bad-key.service" "$T/units/probe.service" "$T/units/probe.service.d"

# --- the real units -----------------------------------------------------------------------------------
validate gpu-numa-hook-check.service gpu-numa-hook-check.timer && pass "check service and timer" ||
  fail "check service and timer"
validate gpu-numa-hook-topology.service && pass "topology (NVML cache) service" || fail "topology (NVML cache) service"
for s in $SERVICES; do validate "$s.service" && pass "drop-in on $s.service" || fail "drop-in on $s.service"; done

# What the units promise, beyond syntax.
D="$SRC/gpu-numa-hook-wait.conf"
grep -qx 'After=nvidia-persistenced.service' "$D" && pass "drop-in orders after nvidia-persistenced" || fail "drop-in After="
grep -qx 'ExecStartPre=-/usr/bin/gpu-numa-hook wait --timeout 300' "$D" && pass "drop-in waits" || fail "drop-in ExecStartPre"
grep -qx 'Type=oneshot' "$SRC/gpu-numa-hook-check.service" && pass "check is oneshot" || fail "check Type="
TS="$SRC/gpu-numa-hook-topology.service"
grep -qx 'Type=oneshot' "$TS" && grep -qx 'After=nvidia-persistenced.service nvidia-mig-manager.service' "$TS" &&
  grep -qx 'ExecStart=/usr/bin/gpu-numa-hook topology --refresh' "$TS" &&
  pass "topology service: oneshot, after nvidia-persistenced and nvidia-mig-manager, runs topology --refresh" ||
  fail "topology service: Type=, After= or ExecStart="
grep -qx 'WantedBy=timers.target' "$SRC/gpu-numa-hook-check.timer" && pass "timer installs into timers.target" ||
  fail "timer WantedBy="
timeout_start=$(sed -n 's/^TimeoutStartSec=//p' "$D")
wait_timeout=$(sed -n 's/^ExecStartPre=.* --timeout \([0-9]*\).*/\1/p' "$D")
[ "$timeout_start" -gt "$wait_timeout" ] && pass "TimeoutStartSec ($timeout_start) leaves room for the wait ($wait_timeout)" ||
  fail "TimeoutStartSec $timeout_start <= wait timeout $wait_timeout"

# --- run the units' command lines on a small Grace Hopper-like host tree ----------------------------
H="$T/host"
mkdir -p "$H/proc/self" "$H/sys/fs/cgroup/system.slice" "$H/sys/devices/system/node" "$H/proc/driver/nvidia/gpus/0009:01:00.0"
echo "32 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate" > "$H/proc/self/mountinfo"
echo 0-1 > "$H/sys/fs/cgroup/cpuset.mems.effective"
echo 0-1 > "$H/sys/devices/system/node/has_memory"
echo 0 > "$H/sys/devices/system/node/has_cpu"
: > "$H/sys/fs/cgroup/system.slice/cpuset.mems"
printf 'Model: \t\t NVIDIA GH200\nGPU UUID: \t GPU-1\nBus Location: \t 0009:01:00.0\nDevice Minor: \t 0\n' \
  > "$H/proc/driver/nvidia/gpus/0009:01:00.0/information"
printf 'Node:      1\nStatus:    online\n' > "$H/proc/driver/nvidia/gpus/0009:01:00.0/numa_status"
run_exec_lines() {  # unit file: runs its ExecStartPre/ExecStart lines with the host paths under $H
  local line cmd rc
  while IFS= read -r line; do
    cmd=${line#*=}
    cmd=${cmd#-}
    cmd=${cmd//\/usr\/bin\/gpu-numa-hook/$BIN --host-root $H}
    cmd=${cmd//\/var\/lib\/node_exporter/$H/var/lib/node_exporter}
    rc=0
    out=$(eval "$cmd" 2>&1) || rc=$?
    [ $rc -eq 0 ] && pass "runs: $cmd" || { echo "$out"; fail "exit $rc: $cmd"; }
  done < <(grep -E '^ExecStart(Pre)?=' "$1")
}
run_exec_lines "$SRC/gpu-numa-hook-wait.conf"
run_exec_lines "$SRC/gpu-numa-hook-check.service"
grep -qx 'gpu_numa_hook_check_success 1' "$H/var/lib/node_exporter/textfile_collector/gpu_numa_hook.prom" &&
  pass "the check service's metrics file was written" || fail "no metrics from the check service"
# The topology service's command, with the tests' fake libnvidia-ml.so.1 (no NVML on this machine)
# in a directory of its own beside its topology file: the cache lands under the host tree.
FAKE_NVML="$(dirname "$BIN")/tests/nvml/libnvidia-ml.so.1"
if [ -f "$FAKE_NVML" ]; then
  mkdir -p "$T/nvml" "$H/proc/sys/kernel/random" "$H/run"
  cp "$FAKE_NVML" "$T/nvml/"
  printf 'driver 570.124.06\ngpu GPU-1 0 00000009:01:00.0 1 disabled\n' > "$T/nvml/fake-nvml-topology.txt"
  echo 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10 > "$H/proc/sys/kernel/random/boot_id"
  echo 'NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.124.06  Release Build' > "$H/proc/driver/nvidia/version"
  cmd=$(sed -n 's/^ExecStart=//p' "$TS")
  cmd="${cmd//\/usr\/bin\/gpu-numa-hook/$BIN --host-root $H} --nvml-library $T/nvml/libnvidia-ml.so.1"
  rc=0; out=$(eval "$cmd" 2>&1) || rc=$?
  [ $rc -eq 0 ] && grep -q '"uuid":"GPU-1"' "$H/run/gpu-numa-hook/nvml-cache.json" &&
    pass "runs: $cmd (cache written)" || { echo "$out"; fail "exit $rc: $cmd"; }
else
  fail "the tests' fake libnvidia-ml.so.1 is not built ($FAKE_NVML): build the fake_nvml target"
fi

[ $fails -eq 0 ] && echo "all unit checks passed" || { echo "$fails unit checks failed"; exit 1; }
